"""Kilo Code CLI (7.7.9): OpenCode's fork, so hookd is the same in-process plugin (hookd.dialects.opencode)
in Kilo's own directories: `~/.config/kilo/plugin/hookd.js` (user), `<project>/.kilo/plugin/hookd.js`
(project) and `/etc/kilo/plugin/hookd.js`, named in `/etc/kilo/kilo.json` (managed). Kilo also reads
`.kilocode/` and OpenCode's `.opencode/` and `opencode.json` files, whose plugins run beside hookd's: they
are its bypass surface."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from hookd.dialects.opencode import home_folder, plugin_agent, upward
from hookd.dialects.spec import SubAgents, system_path


def _config_dir(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> Path:
    if scope == "managed":  # read last, over every other config (7.7.9: `/etc/kilo`, its kilo.json and opencode.json)
        return system_path(env, "/etc/kilo")
    if scope == "user":
        return Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "kilo"
    return project_dir / ".kilo"


def _bypass(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> tuple[Path, ...]:
    """Other plugins run in the same process and can change a call's arguments after hookd judged them."""
    if scope == "managed":  # its configs name plugins too (kilo.json is the managed scope's trust file)
        base = system_path(env, "/etc/kilo")
        return tuple(base / n for n in ("kilo.jsonc", "opencode.json", "opencode.jsonc"))
    if scope == "user":
        base = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
        folders = (base / "kilo", base / "kilocode", base / "opencode")
        extra: tuple[Path, ...] = tuple(f / "config.json" for f in folders)  # 7.7.9 reads the legacy name too
        # the home's config directories, scanned wherever it starts (hookd.dialects.opencode `home_folder`)
        extra += tuple(p for n in (".kilo", ".kilocode", ".opencode") for p in home_folder(home / n))
        extra += tuple(home / n / f"kilo.{x}" for n in (".kilo", ".kilocode") for x in ("json", "jsonc"))
    else:
        folders = (project_dir / ".kilo", project_dir / ".kilocode", project_dir / ".opencode")
        names = tuple(f"{n}.{x}" for n in ("kilo", "opencode") for x in ("json", "jsonc"))
        extra = upward(project_dir, home, names, (".kilo", ".kilocode", ".opencode"))  # found upward, as OpenCode's
    out = [p for f in folders for p in (f / "plugin", f / "plugins", f / "kilo.json", f / "kilo.jsonc",
                                        f / "opencode.json", f / "opencode.jsonc")]  # fmt: skip
    return (*out, *extra)


SPEC = plugin_agent("kilo", "Kilo Code CLI", _config_dir, _bypass, "kilo.json", "KILO_PURE",
                    SubAgents(guarded="tests/e2e/test_subagents.py [kilo], 7.7.9"),
                    ("@kilocode/cli", "@kilocode/cli-linux-x64"))  # fmt: skip
