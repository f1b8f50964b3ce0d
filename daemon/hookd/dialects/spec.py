"""The shape of one agent's module: what hookd knows about an agent, as data.

Each agent is one module in this package (gemini.py, claude.py, …) that ends with one `SPEC`, and
`registry.py` is the one list of them. Everything outside `dialects/` that needs an agent fact (the
install command, the config's fail-mode defaults, the shims' tables, the interactive-session probe,
the tool tables of the enrichers) reads it from a spec, never from an agent's name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookd.dialects.common import dump_json
from hookd.types import Dialect, Event, ToolKind, ToolSpec

# Where the reason goes in an event's fail-closed output (see AgentEvent.fail_output).
REASON = "\x00reason\x00"


@dataclass(frozen=True, slots=True)
class AgentEvent:
    """One hook event of an agent.

    `fail_output` is the stdout that makes the agent deny when hookd cannot decide, with REASON where
    the one-line reason goes (as a JSON string); None when nothing printed there can block (the
    shims then print nothing). With `fail_exit` set, it is instead text for stderr (the reason as it
    is) and the shims exit with that code (Droid: only an exit 2 is a deny no other hook overrides).
    `fail_closed` is whether that is the default (`--fail` overrides). `install` is False for an
    event that hookd parses but does not register.
    """

    name: str
    event: Event
    fail_output: Mapping[str, Any] | str | None = None
    fail_closed: bool = False
    install: bool = True
    fail_exit: int = 0

    def fail_parts(self) -> tuple[str, str] | None:
        """The fail output split around the reason: (prefix, suffix) of the exact bytes printed."""
        if self.fail_output is None:
            return None
        if isinstance(self.fail_output, str):
            prefix, suffix = self.fail_output.split(REASON)
            return prefix, suffix
        text = dump_json(self.fail_output).decode("ascii")
        marker = dump_json({"r": REASON}).decode("ascii")[5:-1]
        prefix, suffix = text.split(marker)
        return prefix, suffix


def system_path(env: Mapping[str, str], path: str) -> Path:
    """A machine-wide (managed) settings path, under $HOOKD_SYSTEM_ROOT when that is set: tests install
    the managed scope into a scratch tree, never into the real /etc."""
    return Path(env.get("HOOKD_SYSTEM_ROOT") or "/") / path.lstrip("/")


@dataclass(frozen=True, slots=True)
class InstallSpec:
    """How `hookd install` registers hookd with the agent.

    `form` names the hook-entry shape install.py writes (one per settings format). `settings_path`
    maps (scope, home, project directory, environment) to the file of that scope; `scopes` lists them.
    `timeout_unit_ms` is the unit the agent reads a hook timeout in (1000: seconds). `trust_path` maps
    the same arguments to the file where the agent records that it trusts the scope's hooks (Codex's
    config.toml, Copilot's config.json), None where nothing needs trusting. `managed_only_file` is the file
    that takes `managed_only_key` when that is not the settings file itself (relative to its directory).
    `hooks_off` and `run_order` are what `hookd doctor` checks beyond hookd's own entries.
    """

    form: str
    scopes: tuple[str, ...]
    settings_path: Callable[[str, Path, Path, Mapping[str, str]], Path]
    timeout_unit_ms: int = 1
    transports: tuple[str, ...] = ("command",)
    http_command_only: frozenset[str] = frozenset()  # events the agent never sends to an http hook
    marker: bool = True  # the file takes hookd's top-level install record (a closed schema does not)
    identity: str = "name"  # the handler key whose value is hookd's hook name
    managed_only_key: str = ""  # the managed setting that lets only managed hooks run (--managed-hooks-only)
    managed_only_file: str = ""
    trust_path: Callable[[str, Path, Path, Mapping[str, str]], Path | None] | None = None
    # Settings that switch every hook off, for `hookd doctor`: (a file beside the scope's settings file,
    # "" for that file itself; a dotted key; the value that switches them off).
    hooks_off: tuple[tuple[str, str, Any], ...] = ()
    # The scopes in the order the agent runs their hooks, when a later hook's answer replaces an earlier
    # one's (a later allow undoing hookd's deny); empty when a deny from any hook stands.
    run_order: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class AgentSpec:
    name: str  # the registry key, the shim's CLIENT argument and `input.client`
    title: str  # for people: "Gemini CLI"
    dialect: Dialect
    events: tuple[AgentEvent, ...]
    tools: Mapping[str, ToolSpec]
    install: InstallSpec
    env: tuple[str, ...] = ()  # variables the agent sets for a hook that the shims forward to hookd
    project_dir_env: str = ""  # the one of `env` that names the project directory
    process_names: tuple[str, ...] = ()  # basenames of the agent's process (or its script), for the probe
    mcp_prefix: str = "mcp__"
    event_index: Mapping[str, AgentEvent] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "event_index", {e.name: e for e in self.events})

    def tool_spec(self, name: str) -> ToolSpec:
        spec = self.tools.get(name)
        if spec is not None:
            return spec
        return ToolSpec(ToolKind.MCP if name.startswith(self.mcp_prefix) else ToolKind.OTHER)
