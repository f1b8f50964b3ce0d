"""Does a command line start an agent without hookd's hooks? (issue 25.1, docs/self-protection.md)

A guarded agent can start another agent from its shell; that nested agent fires hookd's hooks like any
session unless the command line switches them off or moves the settings that hold them. Each agent's
module declares how (InstallSpec: `hooks_off_env`, `unguarded_options`, `location_env`, `home_env`); this
module reads one command's argv and the variables the line sets for it against those declarations.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hookd.dialects.spec import MISSING, AgentSpec, Option, dotted, settings_doc

# Runtimes and package runners that start an agent named by a later word (`node …/cli.js`, `npx opencode`,
# `bun x opencode`, `pnpm dlx claude`).
_RUNTIMES = frozenset({"node", "nodejs", "bun", "bunx", "deno", "npx", "pnpx", "pnpm", "yarn"})
_FALSE = frozenset({"false", "0", "no", "off"})
_MAX_SETTINGS_BYTES = 1 << 20


def agents_started(name: str, argv: list[str], agents: Mapping[str, AgentSpec]) -> list[tuple[AgentSpec, int]]:
    """The agents this command starts (by the registry's process names), each with the index in argv of the
    word that names it: the program itself, or the first word of a runtime's or package runner's that is one
    (its options and the runner's subcommand come before it)."""
    package = _package(argv[0]) if argv else ""
    found = [(spec, 0) for spec in agents.values() if _names(spec, name, package)]
    if found or name not in _RUNTIMES:
        return found
    for i, word in enumerate(argv[1:], 1):
        base, package = word.rsplit("/", 1)[-1], _package(word)
        found = [(spec, i) for spec in agents.values() if _names(spec, base, package)]
        if found:
            return found
    return []


def _names(spec: AgentSpec, program: str, package: str) -> bool:
    """Whether a command word names the agent: one of its process names, its package (`@scope/name@1.2`), or its
    package's program as a package runner's spec is read (`npx @anthropic-ai/claude-code@2` runs `claude-code`:
    the effect model peels the spec to the package's name without scope and version)."""
    return program in spec.process_names or package in spec.packages or program in _programs(spec)


def _programs(spec: AgentSpec) -> tuple[str, ...]:
    return tuple(package.rsplit("/", 1)[-1] for package in spec.packages)


def package_of(word: str) -> str:
    """An npm package spec without its version: `opencode-ai@latest`, `@scope/name@1.2`."""
    at = word.rfind("@")
    return word[:at] if at > 0 else word


_package = package_of


def starting_words(agents: Mapping[str, AgentSpec]) -> frozenset[str]:
    """Every name and package by which `agents_started` finds an agent in a command's name or first word, and
    the runtimes it looks past: a command with neither (the usual one) starts none of `agents`."""
    key = tuple(map(id, agents.values()))
    found = _STARTING.get(key)
    if found is None:
        specs = agents.values()
        words = (w for spec in specs for w in (*spec.process_names, *spec.packages, *_programs(spec)))
        found = frozenset((*_RUNTIMES, *words))
        _STARTING.clear()  # one registry in a process: kept for the last one asked about
        _STARTING[key] = found
    return found


_STARTING: dict[tuple[int, ...], frozenset[str]] = {}


def relocating_env(spec: AgentSpec) -> tuple[str, ...]:
    """The variables that move where the agent reads hookd's hooks from."""
    return ("HOME", *spec.install.location_env, *spec.install.home_env)


def unguarded_start(
    spec: AgentSpec, argv: list[str], assigned: Mapping[str, str], current: Mapping[str, str], cwd: str
) -> str:
    """Why starting `spec` with these arguments (after its program word) and the variables the line sets for it
    (`assigned`; `current`: the caller's own, HOME among them) runs it without hookd's hooks; '' when it
    fires them."""
    for var in spec.install.hooks_off_env:
        if var in assigned:
            return f"{var} set for it switches hookd's hooks off"
    moved = [v for v in relocating_env(spec) if v in assigned and assigned[v] != current.get(v)]
    if moved and _surface_moved(spec, {v: assigned[v] for v in moved}, current, cwd):
        return f"{moved[0]} set for it moves the settings that hold hookd's hooks"
    env = {**current, **assigned}
    changed = _settings_changed(spec, argv)
    if changed:
        return changed
    for i, word in enumerate(argv):
        if word == "--":
            break
        for option in spec.install.unguarded_options:
            value = _value(option, word, argv[i + 1] if i + 1 < len(argv) else None)
            if value is not None and _switches_off(spec, option, value, cwd, env):
                given = f"{word.split('=', 1)[0]} {value[:80]}" if option.takes else word
                return f"{given} switches hookd's hooks off"
    return ""


def _surface_moved(spec: AgentSpec, assigned: Mapping[str, str], current: Mapping[str, str], cwd: str) -> bool:
    """Whether the variables put any file of the agent's tamper surface (its hook settings, their switches, trust
    and what brings hooks in, every scope: AgentSpec.tamper_surface) somewhere other than the caller's own: a
    relocation given the place the agent reads anyway (`CLAUDE_CONFIG_DIR=$HOME/.claude`) moves nothing. A
    variable the surface does not follow (a probe value leaves it as it was: OPENCODE_CONFIG names a file loaded
    beside the others) cannot be shown to move nothing."""
    try:
        before = _surface(spec, current, cwd)
        if any(_surface(spec, {**current, v: "/nonexistent/hookd-probe"}, cwd) == before for v in assigned):
            return True
        return _surface(spec, {**current, **assigned}, cwd) != before
    except (OSError, ValueError, KeyError):
        return True


def _surface(spec: AgentSpec, env: Mapping[str, str], cwd: str) -> frozenset[Path]:
    return frozenset(s.path for s in spec.tamper_surface(Path(env.get("HOME") or "/"), Path(cwd), env))


_REMOTE_TRANSPORTS = frozenset({"http", "sse", "streamable-http"})


def _settings_changed(spec: AgentSpec, argv: list[str]) -> str:
    """Why one of the agent's own settings commands (InstallSpec.settings_commands) on this command line leaves
    later sessions without hookd's hooks, or outside them; '' for none."""
    keys = {s.key for s in spec.install.hooks_off}
    for command in spec.install.settings_commands:
        words, n = list(command.words), len(command.words)
        said = " ".join(words)
        if command.takes == "slash":
            if any(w.split()[:n] == words for w in argv):
                return f"the built-in `{said}` run from the command line switches hookd's hooks off"
        elif argv[:n] == words and command.takes == "feature" and f"features.{''.join(argv[n : n + 1])}" in keys:
            return f"`{said} {argv[n]}` switches hookd's hooks off for every later session"
        elif argv[:n] == words and command.takes == "server" and _local_server(argv[n:]):
            return f"`{said}` stores a command the agent starts itself, outside hookd's hooks"
        elif argv[:n] == words and command.takes == "install" and any(not w.startswith("-") for w in argv[n:]):
            return f"`{said}` brings in a plugin or extension whose hooks and settings load beside hookd's"
    return ""


def _local_server(rest: list[str]) -> bool:
    """A stdio MCP server added (`NAME -- CMD ARGS`, `NAME CMD`): not a remote one (`--url`, a URL, a
    `--transport`/`-t` of http or sse)."""
    if "--" in rest:
        return rest.index("--") + 1 < len(rest)
    for i, word in enumerate(rest):
        value = word.partition("=")[2] if "=" in word else (rest[i + 1] if i + 1 < len(rest) else "")
        if word.startswith("--url") or (word.split("=")[0] in ("--transport", "-t") and value in _REMOTE_TRANSPORTS):
            return False
    positional = [w for w in rest if not w.startswith("-")]
    return len(positional) > 1 and not positional[1].startswith(("http://", "https://"))


def _value(option: Option, word: str, following: str | None) -> str | None:
    """The option's value when `word` is it (None when it is not): a flag's own `=value` or "true"."""
    for name in option.names:
        if word == name:
            return (following or "") if option.takes else "true"
        if word.startswith(name + "=") and name.startswith("--"):
            return word[len(name) + 1 :]
        if option.takes and len(name) == 2 and word.startswith(name) and not name.startswith("--"):
            return word[2:]  # `-ckey=value`
    return None


def _switches_off(spec: AgentSpec, option: Option, value: str, cwd: str, env: Mapping[str, str]) -> bool:
    switches = {s.key: s.off for s in spec.install.hooks_off if not s.beside}
    keys = {s.key for s in spec.install.hooks_off}
    carried = {"hooks", *spec.install.switch_keys, *spec.install.judged_switch_keys, *spec.install.guarded_keys}
    if spec.install.trust is not None:
        carried.update(spec.install.trust.keys)
    if not option.takes:
        return value.strip().lower() not in _FALSE
    if option.takes == "override":
        key = value.split("=", 1)[0].strip().strip("\"'")
        return any(_related(key, k) for k in (*keys, *carried))
    if option.takes == "feature":
        return f"features.{value.strip()}" in keys
    if option.takes == "scopes":
        named = {part.strip() for part in value.split(",")}
        return not {s for s in spec.install.scopes if s != "managed"} <= named
    if option.takes == "profile":
        return _profile_touches(spec, value, option.file.format(value), cwd, env, keys | carried)
    doc = _settings(value, cwd)
    if doc is None:
        return True  # a document hookd cannot read is one it cannot vouch for
    if any(dotted(doc, key) is not MISSING for key in carried):
        return True
    return any(dotted(doc, key) is not MISSING and dotted(doc, key) == off for key, off in switches.items())


def _profile_touches(
    spec: AgentSpec, profile: str, name: str, cwd: str, env: Mapping[str, str], keys: set[str]
) -> bool:
    """Does the profile file `name`, beside the agent's user settings file as this start would find it, or else
    the `[profiles.PROFILE]` table of a switch file there (Codex's config.toml), set any of `keys`? True when
    neither can be read: it may be written by the same command line."""
    user = spec.install.settings_path("user", Path(env.get("HOME") or "/"), Path(cwd), env)
    path = user.parent / name
    text = _regular_file_text(path)
    if text is None:
        tables = [_profile_table(user.parent / s.beside, profile) for s in spec.install.hooks_off if s.beside]
        table = next((t for t in tables if t is not None), None)
        return table is None or any(dotted(table, key) is not MISSING for key in keys)
    try:
        doc = settings_doc(path, text)
    except ValueError:
        return True
    return any(dotted(doc, key) is not MISSING for key in keys)


def _profile_table(path: Path, profile: str) -> Mapping[str, Any] | None:
    text = _regular_file_text(path)
    try:
        doc = settings_doc(path, text) if text is not None else {}
    except ValueError:
        return None
    table = doc.get("profiles", {}).get(profile) if isinstance(doc.get("profiles"), Mapping) else None
    return table if isinstance(table, Mapping) else None


def _regular_file_text(path: Path) -> str | None:
    """A regular file's text; None for anything else: a FIFO or a device named here must not block or
    flood the daemon (opened without blocking, judged by fstat before any read)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read(_MAX_SETTINGS_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    finally:
        os.close(fd)


def _related(key: str, switch: str) -> bool:
    """One key is the other, or above or under it, part by part (a `*` part of a switch is any name)."""
    return all(a == b or "*" in (a, b) for a, b in zip(key.split("."), switch.split("."), strict=False))


def _settings(value: str, cwd: str) -> Mapping[str, Any] | None:
    """An option's settings: inline JSON, or the JSON file it names; None when neither can be read."""
    text = value.strip()
    if not text.startswith("{"):
        text = _regular_file_text(Path(cwd) / text) or ""
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):  # nested deeper than the decoder goes: not read, as a text that is not JSON
        return None
    return doc if isinstance(doc, dict) else None


def view_changed(spec: AgentSpec, view: Any, env: Mapping[str, str], cwd: str) -> str:
    """Why the agent, started by a launcher that binds, hides or overlays paths for it (`view`: the command's
    view, hookd.enrich.shell.views), does not read the settings that hold hookd's hooks; '' when it does."""
    if not isinstance(view, dict):
        return ""
    binds = sorted(((str(i), str(h)) for i, h in view.get("binds") or ()), key=lambda bind: -len(bind[0]))
    covers, keeps = [str(c) for c in view.get("covers") or ()], [str(k) for k in view.get("keeps") or ()]
    home = env.get("HOME") or "/"
    try:
        surface = sorted(str(p) for p in _surface(spec, env, cwd))
    except (OSError, ValueError, KeyError):
        return "its launcher changes what it sees of the filesystem, and hookd cannot tell where its settings are"
    for path in surface:
        bound = next(((i, h) for i, h in binds if _within(path, i)), None)
        if (bound and _bound_at(path, *bound) != path) or any(_within(i, path) and i != h for i, h in binds):
            return f"its launcher binds another file or directory at {path}, {_HOLDS}"
        if not os.path.lexists(path):
            continue  # hiding a file that is not there hides nothing
        hidden = any(_within(path, c) or _within(c, path) for c in covers) or (view.get("empty") and not bound)
        if hidden or (keeps and _within(path, home) and not any(_within(path, k) for k in keeps)):
            return f"its launcher hides {path} from it, {_HOLDS}"
    return ""


_HOLDS = "which holds its settings or what brings in hookd's hooks"


def _within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def _bound_at(path: str, inside: str, host: str) -> str:
    return host.rstrip("/") + path[len(inside.rstrip("/")) :]
