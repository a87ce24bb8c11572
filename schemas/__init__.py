"""JSON Schemas shipped with reviewbot (config, CRDs)."""
