"""What a configured command reads on its standard input: an agent writes to every command it starts from its
configuration (an MCP stdio server gets the protocol's messages, a status line or hook command the session's JSON).
A shell or interpreter started there with no program of its own (`command = "sh"`, `python3` alone, `sh -s`) runs
whatever arrives: code hookd never sees (CVE-2025-61260's project `.codex/config.toml` server `sh`). The line is
judged as it runs, fed by a pipe from a producer hookd does not know."""

from __future__ import annotations

from hookd.enrich.home_reach import shell_effects


def runs_its_input(line: str, home: str, project: str) -> bool:
    """Does `line`, fed on its standard input by the agent, run code it reads from there?"""
    fed = shell_effects(f"cat | {{ {line}\n}}", home, project)
    return any(e["op"] == "exec" and e.get("known") is False and not e.get("path") for e in fed)
