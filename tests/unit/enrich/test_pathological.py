"""Every pathological input of issue 13 (tests/pathological.py) gets a clear verdict by rule through the real
pipeline, shell parser and regorus on the bundled policies: the policies' own, or `input-limit` over a cap;
never an engine error. What each costs is measured by bench/stall.py, not here."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from hookd.assembly import build_pipeline
from hookd.config import parse_config
from hookd.pipeline import Pipeline
from hookd.types import Caller, Deadline, HookRequest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from pathological import SHAPES, Shape


@pytest.fixture(scope="module")
def pipeline() -> Pipeline:
    return build_pipeline(parse_config({}), probe=lambda _pid: False)[0]


@pytest.mark.parametrize("shape", SHAPES, ids=[shape.name for shape in SHAPES])
def test_each_pathological_input_gets_its_verdict_by_rule(pipeline: Pipeline, shape: Shape) -> None:
    payload = {"session_id": "s1", "cwd": "/work/project", "hook_event_name": shape.event, **shape.fields}
    request = HookRequest(
        client="gemini", event=shape.event, payload=json.dumps(payload).encode(), env={"HOME": "/home/u"},
        cwd="/work/project", caller=Caller(uid=0, gid=0, pid=1), deadline=Deadline.after(120),
    )  # fmt: skip
    handled = asyncio.run(pipeline.handle(request))
    assert not handled.engine_error
    assert handled.decision.outcome.name.lower() == shape.outcome
    if shape.rule:
        assert shape.rule in {verdict.rule_id for verdict in handled.decision.verdicts}
