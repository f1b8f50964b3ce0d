"""What the short routes' differential tests share (tests/unit/enrich/test_first_test.py, test_plain_write.py): every
payload of the policies' cases and the corpus with its world, and a throw-away project and home to parse it in as the
corpus runner does. The corpus's lines are a share of it (tests/corpus_share.py)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from corpus_share import in_share

from hookd.dialects.registry import AGENTS, DEFAULT_AGENT
from hookd.policytest import _substitute
from hookd.policytest.corpus import _payload
from hookd.types import Caller, Deadline, HookRequest, NormalisedEvent

ROOT = Path(__file__).resolve().parents[1]


def policy_payloads() -> Iterator[tuple[str, dict[str, Any], Any]]:
    """(client, payload with `${PROJECT}`/`${HOME}` unsubstituted, world) of every policy case and of the corpus
    lines in the share (tests/corpus_share.py)."""
    for path in sorted(ROOT.glob("policies/*/cases/*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            if isinstance(case, dict) and isinstance(case.get("payload"), dict):
                yield str(case.get("client", DEFAULT_AGENT)), case["payload"], case.get("world", {})
    for path in sorted(ROOT.glob("policies/corpus/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and in_share(line):
                case = json.loads(line)
                yield str(case.get("client", DEFAULT_AGENT)), _payload(case), case.get("world", {})


class ThrowawayWorld:
    """A throw-away project and home under `tmp`, and an event parsed in them as the corpus runner parses it."""

    def __init__(self, tmp: Path) -> None:
        self.project, self.home = tmp / "project", tmp / "home"
        self.project.mkdir()
        self.home.mkdir()

    def parsed(self, client: str, payload: dict[str, Any]) -> NormalisedEvent | None:
        """The event, or None for a case that expects a dialect error (nothing to enrich)."""
        body = _substitute(payload, self.project, self.home)
        request = HookRequest(
            client=client,
            event=str(body.get("hook_event_name", "")),
            payload=json.dumps(body).encode(),
            env={**{spec.project_dir_env: str(self.project) for spec in AGENTS.values()}, "HOME": str(self.home)},
            cwd=str(self.project),
            caller=Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid()),
            deadline=Deadline.after(5),
        )
        try:
            return AGENTS[client].dialect.parse(request)
        except Exception:  # a case that expects a dialect error: nothing to enrich
            return None
