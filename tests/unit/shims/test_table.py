"""hookd.shims.table: both shims' per-agent tables are generated from the agents' specs and never stale."""

from __future__ import annotations

import importlib.util
from types import ModuleType

import pytest

from hookd.dialects.registry import AGENTS, forwarded_env
from hookd.shims import table as shimtable
from hookd.types import Event
from support import SHIM


def load_python_shim() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hookd_shim", SHIM)
    assert spec is not None and spec.loader is not None
    shim = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shim)
    return shim


def test_neither_shim_table_is_stale() -> None:
    assert shimtable.stale() == [], "run `python -m hookd.shims.table` and commit the result"
    assert shimtable.main(["--check"]) == 0


def test_a_changed_spec_makes_the_tables_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shimtable, "forwarded_env", lambda: (*forwarded_env(), "SOMETHING_NEW"))
    assert set(shimtable.stale()) == {shimtable.C_HEADER, shimtable.PYTHON_SHIM}


def test_the_python_shim_holds_every_agents_table() -> None:
    shim = load_python_shim()
    assert forwarded_env() == shim.FORWARDED_ENV
    for client, event, closed, prefix, suffix, tell, code in shimtable.rows():
        assert shim.AGENT_EVENTS[client][event] == (closed, prefix, suffix, tell, code)


@pytest.mark.parametrize("client", list(AGENTS))
def test_the_shims_fail_output_is_the_dialects_fail_reply(client: str) -> None:
    """Where an event fails closed by default, the shim prints the bytes the daemon would (hookd's own
    fail reply for the first agent event of that canonical kind), and an event that cannot block prints
    nothing."""
    shim, spec = load_python_shim(), AGENTS[client]
    reason = 'hookd is "not" running\nhere'
    first: dict[Event, str] = {}
    for event in spec.events:
        first.setdefault(event.event, event.name)
        printed = shim.fail_reply(client, event.name, "closed", reason)
        if event.fail_closed and first[event.event] == event.name:
            daemon = spec.dialect.fail_reply(event.event, reason)
            assert printed == (daemon.exit_code, daemon.stdout, daemon.stderr), event.name
        if event.fail_output is None:
            assert printed == (0, b"", b""), event.name
        assert shim.fail_reply(client, event.name, "open", reason) == (0, b"", b"")
