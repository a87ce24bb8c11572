"""Base vs head, object by object (the only deepdiff importer)."""
