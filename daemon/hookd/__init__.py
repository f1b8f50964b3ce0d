"""hookd: a policy-proxy daemon that serves hook decisions to AI coding agents."""

__version__ = "0.1.0"
