"""Reporters: findings (and, in review mode, the diff) rendered in one output format each.

``render.py`` picks the renderer for a format; ``base.py`` holds the report type."""
