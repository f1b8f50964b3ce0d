"""Python policies: sandboxed worker processes (channel.py) behind a pool that is the Engine (engine.py)."""
