"""Enrichers: facts that hookd adds to an event before the policies see it (docs/policies.md)."""
