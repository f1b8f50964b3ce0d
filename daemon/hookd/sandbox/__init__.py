"""The sandboxed Python policy workers: what runs inside a worker (standard library only, started with
`python -I -S`) and the framing both sides speak. The daemon side is hookd.engines.python."""
