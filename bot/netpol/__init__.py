"""NetworkPolicy evaluation and connectivity (no CLI)."""
