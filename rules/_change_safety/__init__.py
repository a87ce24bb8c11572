"""The checks of the change-safety rule (``rules/change_safety.py``), one module a check."""
