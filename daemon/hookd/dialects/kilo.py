"""Kilo Code CLI (7.7.9): OpenCode's fork, so hookd is the same in-process plugin (hookd.dialects.opencode)
in Kilo's own directories: `~/.config/kilo/plugin/hookd.js` (user) and `<project>/.kilo/plugin/hookd.js`
(project). Kilo also reads `.kilocode/` and OpenCode's `.opencode/` and `opencode.json` files, whose plugins
run beside hookd's: they are its bypass surface."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from hookd.dialects.opencode import plugin_agent
from hookd.dialects.spec import SubAgents


def _config_dir(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> Path:
    if scope == "user":
        return Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "kilo"
    return project_dir / ".kilo"


def _bypass(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> tuple[Path, ...]:
    """Other plugins run in the same process and can change a call's arguments after hookd judged them."""
    if scope == "user":
        base = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
        folders = (base / "kilo", base / "kilocode", base / "opencode")
        extra: tuple[Path, ...] = ()
    else:
        folders = (project_dir / ".kilo", project_dir / ".kilocode", project_dir / ".opencode")
        extra = tuple(project_dir / f"{n}.{x}" for n in ("kilo", "opencode") for x in ("json", "jsonc"))
    out = [p for f in folders for p in (f / "plugin", f / "plugins", f / "kilo.json", f / "kilo.jsonc",
                                        f / "opencode.json", f / "opencode.jsonc")]  # fmt: skip
    return (*out, *extra)


SPEC = plugin_agent("kilo", "Kilo Code CLI", _config_dir, _bypass,
                    SubAgents(guarded="tests/e2e/test_subagents.py [kilo], 7.7.9"))  # fmt: skip
