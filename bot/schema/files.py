"""Where the JSON Schemas shipped with reviewbot are: the ``reviewbot.schemas`` package's
folder, read as files (``importlib.resources`` and its zip support cost 3-5 ms of every start;
reviewbot is installed as files)."""

from __future__ import annotations

import os

import reviewbot.schemas

#: the folder of the shipped schemas (config.schema.json, the bundled CRD schemas)
FOLDER = os.path.dirname(os.path.abspath(reviewbot.schemas.__file__ or ""))
