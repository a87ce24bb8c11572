"""JSON Schema validation of objects (the only jsonschema importer), schema sources."""
