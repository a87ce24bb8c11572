"""Bytes in: disk trees, git refs, the CI event."""
