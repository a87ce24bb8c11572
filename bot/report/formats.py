"""The report formats of ``lint`` and ``review`` (``--format``): what the command line offers
without importing a renderer (``render.py`` picks one)."""

from __future__ import annotations

FORMATS = ("text", "json", "sarif", "github", "rdjson", "markdown")
