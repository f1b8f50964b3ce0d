"""What `hookd install` writes and reports: the plan, the result, the names and limits every part of the
installer shares (the behaviour is described in hookd.install)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookd.dialects.registry import AGENTS, agent
from hookd.dialects.spec import REFUSE, HookEntry


def install_events(client: str) -> tuple[str, ...]:
    """The agent event names hookd registers for `client`, in the agent's table order."""
    return tuple(e.name for e in agent(client).events if e.install)


def _all_event_names() -> tuple[str, ...]:
    return tuple(dict.fromkeys(e.name for spec in AGENTS.values() for e in spec.events))


MARKER_KEY = "hookd"
BACKUP_SUFFIX = ".hookd-backup"
DESCRIPTION = "hookd policy decision (installed by hookd install)"
# Node fires a timer of 0, a negative value or more than 2**31-1 ms after ~1 ms (gemini-cli-hooks.md §3.5).
MAX_TIMEOUT_MS = 2**31 - 1

_REFUSE = REFUSE
# The keys an install record may hold beside names and created: each agent's enable switch, its value
# before the first install.
_ENABLE_KEYS = frozenset(spec.install.enable_key for spec in AGENTS.values() if spec.install.enable_key)

JSONObject = dict[str, Any]


@dataclass(frozen=True)
class InstallPlan:
    settings_path: Path
    commands: Mapping[str, str]  # event name -> full shell command string (exec form: the program)
    timeout_ms: int
    hook_name: str = "hookd"
    client: str = ""  # the agent (hookd.dialects.registry); install refuses a plan that names none
    args: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # exec form: event -> the program's args
    http: Mapping[str, JSONObject] = field(default_factory=dict)  # http hooks: event -> {url, headers, allowedEnvVars}
    block_on_failure: frozenset[str] = frozenset()  # events the agent must block on when the hook cannot run "block"
    managed_hooks_only: bool = False  # managed scope: also set the agent's "only managed hooks run" switch
    trust_path: Path | None = None  # where the agent records its trust in these hooks (see trust_path())
    managed_only_path: Path | None = None  # the file of the managed-hooks-only switch, when not settings_path
    project_dir: Path | None = None  # project scope: the folder the agent must trust to load them


@dataclass(frozen=True)
class InstallResult:
    settings_path: Path
    changed: bool
    backup_path: Path | None  # copy of the previous file; None when unchanged or newly created
    added: tuple[str, ...]  # events whose hookd entry was added or updated
    removed: tuple[str, ...]  # events whose hookd entry was removed


def hook_entries(plan: InstallPlan) -> tuple[HookEntry, ...]:
    """The plan's entries, one per event, in the agent's table order, for the agent's module to shape."""
    return tuple(
        HookEntry(
            event,
            plan.hook_name,
            plan.commands[event],
            plan.timeout_ms,
            tuple(plan.args.get(event, ())),
            plan.http.get(event),
            event in plan.block_on_failure,
            DESCRIPTION,
        )
        for event in install_events(plan.client)
        if event in plan.commands
    )
