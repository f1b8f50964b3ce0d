"""Layers: organisation > user > project. A lower layer may add restrictions, never relax or override."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest
from bundle_support import policy_dir

from hookd.engines.base import settle
from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.errors import PartialAnswer, PolicyError
from hookd.policy.combine import combine
from hookd.policy.layers import Layer, LayeredEngine, Rank, layered
from hookd.testing import StaticEngine
from hookd.types import (
    Caller,
    Deadline,
    EngineRequest,
    Event,
    NormalisedEvent,
    Outcome,
    ToolCall,
    ToolKind,
    Verdict,
    VerdictKind,
    settled,
)  # fmt: skip

K = VerdictKind


def v(kind: VerdictKind, rank: int, layer: str, rule: str = "r", **patch: Any) -> Verdict:
    return Verdict(kind, f"hookd.{layer}", rule, "", patch, layer=layer, rank=rank)


class TestCombineAcrossLayers:
    def test_a_lower_layer_adds_a_deny(self) -> None:
        assert combine([v(K.REWRITE, 0, "org", tool_input={"a": 1}), v(K.DENY, 2, "project")]).outcome is Outcome.DENY

    def test_a_lower_rewrite_of_the_same_key_is_dropped_with_a_note(self) -> None:
        decision = combine([
            v(K.REWRITE, 2, "project", "undo", tool_input={"command": "rm -rf /"}),
            v(K.REWRITE, 0, "org", "safe", tool_input={"command": "echo safe"}),
        ])  # fmt: skip
        assert decision.rewrite == {"tool_input": {"command": "echo safe"}}
        assert decision.notes == (
            "rewrite hookd.project:undo of layer project dropped: layer org already rewrites tool_input.command",
        )

    def test_overlap_is_by_key_path_prefix(self) -> None:
        decision = combine([
            v(K.REWRITE, 0, "org", tool_input={"env": {"PATH": "/safe"}}),
            v(K.REWRITE, 1, "user", tool_input={"env": None}),  # deleting the parent would undo the org's key
            v(K.REWRITE, 1, "user", "ok", tool_input={"timeout": 5}),
        ])  # fmt: skip
        assert decision.rewrite == {"tool_input": {"env": {"PATH": "/safe"}, "timeout": 5}}
        assert len(decision.notes) == 1

    def test_whole_value_targets_conflict_and_tool_config_composes(self) -> None:
        decision = combine([
            v(K.REWRITE, 0, "org", llm_response={"text": "org"}, tool_config={"mode": "ANY", "allowed": ["a", "b"]}),
            v(K.REWRITE, 2, "project", "resp", llm_response={"text": "project"}),
            v(K.REWRITE, 2, "project", "tools", tool_config={"mode": "AUTO", "allowed": ["b", "c"]}),
        ])  # fmt: skip
        assert decision.rewrite == {"llm_response": {"text": "org"}, "tool_config": {"mode": "ANY", "allowed": ["b"]}}

    def test_within_one_layer_the_later_rewrite_still_wins(self) -> None:
        decision = combine([v(K.REWRITE, 1, "u", tool_input={"a": 1}), v(K.REWRITE, 1, "u", tool_input={"a": 2})])
        assert (decision.rewrite, decision.notes) == ({"tool_input": {"a": 2}}, ())


def request(project_dir: str, command: str) -> EngineRequest:
    event = NormalisedEvent(
        client="gemini", event=Event.BEFORE_TOOL, payload={},
        tool=ToolCall("run_shell_command", ToolKind.SHELL, {"command": command}),
        session_id="s", cwd=project_dir, project_dir=project_dir, caller=Caller(0, 0, 1),
    )  # fmt: skip
    return EngineRequest(event, event.input_document(), Deadline.after(5))


def test_layers_tag_verdicts_and_projects_apply_only_inside_their_root(tmp_path: Path) -> None:
    org = RegoEmbeddedEngine.load(
        policy_dir(tmp_path / "org", "guard", 'deny contains "no rm" if contains(input.tool.input.command, "rm")')
    )
    # The project redefines the org's package, hoping to shadow it: each layer is its own engine, so it cannot.
    project = RegoEmbeddedEngine.load(
        policy_dir(tmp_path / "proj", "guard", 'context contains "project was here" if true')
    )
    engine = LayeredEngine([
        Layer("proj", Rank.PROJECT, project, project_root="/work/p"),
        Layer("acme", Rank.ORGANISATION, org, pinned_revision="v7"),
    ])  # fmt: skip
    inside = asyncio.run(settled(engine.evaluate(request("/work/p/sub", "rm -rf x"))))
    assert [(x.kind, x.layer, x.rank) for x in inside] == [(K.DENY, "acme", 0), (K.CONTEXT, "proj", 2)]
    assert combine(inside).outcome is Outcome.DENY
    outside = asyncio.run(settled(engine.evaluate(request("/work/pother", "ls"))))
    assert outside == []
    assert engine.status().revisions == {"acme": "v7", "proj": project.revision}


def test_closing_a_replaced_set_closes_only_what_it_alone_held() -> None:
    bundle_v1, bundle_v2, local = StaticEngine(), StaticEngine(), StaticEngine()
    old = layered([Layer("acme", Rank.ORGANISATION, bundle_v1), Layer("default", Rank.USER, local)])
    new = layered([Layer("acme", Rank.ORGANISATION, bundle_v2), Layer("default", Rank.USER, local)])
    asyncio.run(old.close(keep=new))
    assert (bundle_v1.closed, local.closed, bundle_v2.closed) == (True, False, False)
    asyncio.run(new.close())
    assert local.closed and bundle_v2.closed


def test_a_layer_whose_policies_partly_failed_keeps_the_other_layers_and_its_tags() -> None:
    broken = PolicyError("hostile.py:f failed (ValueError)", policy="hookd.hostile", rule="python-error")
    engine = LayeredEngine([
        Layer("default", Rank.USER, StaticEngine(error=PartialAnswer([broken]))),
        Layer("acme", Rank.ORGANISATION, StaticEngine([Verdict(K.CONTEXT, "hookd.org", "c", "org")])),
    ])  # fmt: skip
    with pytest.raises(PartialAnswer) as caught:
        asyncio.run(settled(engine.evaluate(request("/work/p", "ls"))))
    verdicts = settle(Event.BEFORE_TOOL, caught.value.results, {})
    assert [(x.kind, x.policy_id, x.layer, x.rank) for x in verdicts] == [
        (K.CONTEXT, "hookd.org", "acme", 0), (K.DENY, "hookd.hostile", "default", 1),
    ]  # fmt: skip


def test_layers_answer_in_the_call_as_awaited_when_every_enforced_engine_does(tmp_path: Path) -> None:
    org = RegoEmbeddedEngine.load(
        policy_dir(tmp_path / "org", "guard", 'deny contains "no rm" if contains(input.tool.input.command, "rm")')
    )
    project = RegoEmbeddedEngine.load(policy_dir(tmp_path / "proj", "guard", 'context contains "here" if true'))
    broken = PolicyError("hostile.py:f failed (ValueError)", policy="hookd.hostile", rule="python-error")

    def layered(*, awaited: bool) -> LayeredEngine:
        return LayeredEngine([
            Layer("proj", Rank.PROJECT, project, project_root="/work/p"),
            Layer("acme", Rank.ORGANISATION, org, pinned_revision="v7"),
            Layer("default", Rank.USER, StaticEngine(error=PartialAnswer([broken]), awaited=awaited)),
        ])  # fmt: skip

    for project_dir, command in (("/work/p/sub", "rm -rf x"), ("/work/pother", "ls")):
        with pytest.raises(PartialAnswer) as later:
            asyncio.run(settled(layered(awaited=True).evaluate(request(project_dir, command))))
        with pytest.raises(PartialAnswer) as now:
            layered(awaited=False).evaluate(request(project_dir, command))  # raised in the call
        assert now.value.results == later.value.results
    # A monitored layer's engine is not evaluated on the hot path: it does not make the answer awaited.
    watched = Layer("candidate", Rank.USER, StaticEngine(), mode="monitor")
    acme = Layer("acme", Rank.ORGANISATION, org, pinned_revision="v7")
    assert LayeredEngine([acme, watched]).evaluate(request("/work/p", "ls")) == []
    answer = LayeredEngine([acme, Layer("py", Rank.USER, StaticEngine())]).evaluate(request("/work/p", "ls"))
    assert isinstance(answer, Awaitable) and asyncio.run(settled(answer)) == []
