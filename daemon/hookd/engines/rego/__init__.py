"""The Rego engines: one policy-set loader (policyset.py) served in process (embedded.py) or by OPA (opa.py)."""
