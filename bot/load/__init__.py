"""YAML to documents with positions (the only ruamel.yaml importer), and the parse cache."""
