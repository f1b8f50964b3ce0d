"""The one list of agents hookd serves: name -> AgentSpec (hookd.dialects.spec).

Adding an agent is adding its module to this package and its SPEC here; nothing else names one.
"""

from __future__ import annotations

from collections.abc import Mapping

from hookd.dialects import claude, codex, copilot, droid, gemini, kilo, opencode, qwen
from hookd.dialects.spec import AgentSpec
from hookd.errors import HookdError
from hookd.types import STREAM_EVENTS, Event, FailMode

AGENTS: Mapping[str, AgentSpec] = {
    spec.name: spec
    for spec in (gemini.SPEC, claude.SPEC, codex.SPEC, copilot.SPEC, qwen.SPEC, droid.SPEC, opencode.SPEC, kilo.SPEC)
}
NAMES: tuple[str, ...] = tuple(AGENTS)
DEFAULT_AGENT = "gemini"  # the client a request names when it names none (hookd eval, the Evaluate RPC)
# (client, the client's event name) of the events whose state is one response's streamed text: each is
# decided where that text is (hookd.lane), and the shims send it to the stream lane's socket first.
STREAMED = frozenset(
    (name, found.name) for name, spec in AGENTS.items() for found in spec.events if found.event in STREAM_EVENTS
)
# The streamed event whose payload the native quiet chunk reads (client_shim/hookd_quiet.c knows its shape):
# Gemini CLI's AfterModel; every other streamed event is answered in Python.
NATIVE_QUIET = (gemini.SPEC.name, next(f.name for f in gemini.SPEC.events if f.event is Event.AFTER_MODEL))


def agent(name: str) -> AgentSpec:
    try:
        return AGENTS[name]
    except KeyError:
        raise HookdError(f"unknown client {name!r} (known: {', '.join(NAMES)})") from None


def default_fail_modes() -> dict[Event, FailMode]:
    """Per canonical event: closed when any agent's event of that kind fails closed by default."""
    closed = {e.event for spec in AGENTS.values() for e in spec.events if e.fail_closed}
    return {event: FailMode.CLOSED if event in closed else FailMode.OPEN for event in Event}


def can_fail_closed() -> frozenset[Event]:
    """The canonical events on which some agent has an output that blocks."""
    return frozenset(e.event for spec in AGENTS.values() for e in spec.events if e.fail_output is not None)


def forwarded_env() -> tuple[str, ...]:
    """The variables the shims forward to hookd: every agent's (those it sets for a hook, and those that move
    its files), then HOME and USER."""
    names = [name for spec in AGENTS.values() for name in (*spec.env, *spec.install.location_env)]
    return (*dict.fromkeys(names), "HOME", "USER")
