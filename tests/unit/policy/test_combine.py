"""combine / merge_patch / merge_rewrite: deny-wins precedence, reasons, concatenation, rewrites."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from hookd.policy.combine import combine, merge_patch, merge_rewrite
from hookd.types import Outcome, Verdict, VerdictKind

K = VerdictKind


def v(kind: VerdictKind, message: str = "", policy: str = "hookd.p", rule: str = "r", **patch: Any) -> Verdict:
    return Verdict(kind, policy, rule, message, patch)


ONE_OF_EACH = {
    K.HALT: v(K.HALT, "halted", rule="h"),
    K.DENY: v(K.DENY, "denied", rule="d"),
    K.ASK: v(K.ASK, "asked", rule="a"),
    K.REWRITE: v(K.REWRITE, rule="w", tool_input={"x": 1}),
    K.CONTEXT: v(K.CONTEXT, "ctx", rule="c"),
    K.MESSAGE: v(K.MESSAGE, "msg", rule="m"),
}
RANK = {K.HALT: Outcome.HALT, K.DENY: Outcome.DENY, K.ASK: Outcome.ASK, K.REWRITE: Outcome.REWRITE}
REASON = {K.HALT: "halted [hookd.p:h]", K.DENY: "denied [hookd.p:d]", K.ASK: "asked [hookd.p:a]"}


SUBSETS = [subset for size in range(len(ONE_OF_EACH) + 1) for subset in itertools.combinations(ONE_OF_EACH, size)]


@pytest.mark.parametrize("kinds", SUBSETS, ids=lambda ks: "-".join(k.value for k in ks) or "none")
def test_precedence_in_every_order(kinds: tuple[VerdictKind, ...]) -> None:
    expected = max((RANK.get(k, Outcome.ALLOW) for k in kinds), default=Outcome.ALLOW)
    winner = next((k for k in (K.HALT, K.DENY, K.ASK) if RANK[k] is expected), None)
    for order in itertools.permutations(kinds):
        verdicts = tuple(ONE_OF_EACH[k] for k in order)
        decision = combine(verdicts)
        assert decision.outcome is expected, order
        assert decision.reasons == ((REASON[winner],) if winner else ()), order
        assert decision.contexts == (("ctx",) if K.CONTEXT in kinds else ()), order
        assert decision.messages == (("msg",) if K.MESSAGE in kinds else ()), order
        assert decision.rewrite == ({"tool_input": {"x": 1}} if K.REWRITE in kinds else {}), order
        assert decision.verdicts == verdicts


def test_halt_over_deny_over_ask_over_rewrite_over_allow() -> None:
    assert Outcome.HALT > Outcome.DENY > Outcome.ASK > Outcome.REWRITE > Outcome.ALLOW
    assert combine([]).outcome is Outcome.ALLOW
    assert combine([v(K.CONTEXT, "c"), v(K.MESSAGE, "m")]).outcome is Outcome.ALLOW


def test_reasons_only_from_the_winning_kind_tagged_policy_rule() -> None:
    decision = combine(
        [
            v(K.ASK, "ask me", policy="hookd.a", rule="r1"),
            v(K.DENY, "no shell", policy="hookd.shell", rule="rm-rf"),
            v(K.MESSAGE, "fyi"),
            v(K.DENY, "no secrets", policy="hookd.secrets", rule="env"),
        ]
    )
    assert decision.reasons == ("no shell [hookd.shell:rm-rf]", "no secrets [hookd.secrets:env]")
    assert decision.reason == "no shell [hookd.shell:rm-rf]; no secrets [hookd.secrets:env]"


def test_reason_without_a_message_names_the_kind() -> None:
    assert combine([v(K.DENY, policy="hookd.x", rule="y")]).reasons == ("deny by policy [hookd.x:y]",)
    assert combine([v(K.HALT, policy="hookd.x", rule="z")]).reasons == ("halt by policy [hookd.x:z]",)


def test_identical_reasons_are_deduplicated_in_order() -> None:
    decision = combine([v(K.DENY, "b", rule="2"), v(K.DENY, "a", rule="1"), v(K.DENY, "b", rule="2")])
    assert decision.reasons == ("b [hookd.p:2]", "a [hookd.p:1]")


def test_rewrite_outcome_has_no_reasons() -> None:
    assert combine([v(K.REWRITE, "why", tool_input={"a": 1})]).reasons == ()


def test_contexts_and_messages_concatenate_in_order_whatever_wins() -> None:
    decision = combine(
        [
            v(K.MESSAGE, "m1"),
            v(K.CONTEXT, "c1"),
            v(K.DENY, "d"),
            v(K.CONTEXT, ""),
            v(K.MESSAGE, "m2"),
            v(K.CONTEXT, "c2"),
            v(K.MESSAGE, "m1"),
        ]
    )
    assert decision.contexts == ("c1", "c2")
    assert decision.messages == ("m1", "m2", "m1")


# --- rewrites ------------------------------------------------------------------------------------


def test_rewrites_merge_in_order_later_wins_per_key() -> None:
    decision = combine(
        [
            v(K.REWRITE, tool_input={"command": "ls", "dir_path": "/a"}),
            v(K.REWRITE, tool_input={"command": "ls -la"}),
        ]
    )
    assert decision.rewrite == {"tool_input": {"command": "ls -la", "dir_path": "/a"}}
    reversed_ = combine(
        [
            v(K.REWRITE, tool_input={"command": "ls -la"}),
            v(K.REWRITE, tool_input={"command": "ls", "dir_path": "/a"}),
        ]
    )
    assert reversed_.rewrite == {"tool_input": {"command": "ls", "dir_path": "/a"}}


def test_later_null_still_deletes_after_an_earlier_set() -> None:
    decision = combine([v(K.REWRITE, tool_input={"a": 1, "b": 2}), v(K.REWRITE, tool_input={"a": None})])
    assert decision.rewrite == {"tool_input": {"a": None, "b": 2}}
    assert merge_patch({"a": 0, "c": 3}, decision.rewrite["tool_input"]) == {"b": 2, "c": 3}


def test_later_set_overrides_an_earlier_null() -> None:
    decision = combine([v(K.REWRITE, tool_input={"a": None}), v(K.REWRITE, tool_input={"a": 5})])
    assert decision.rewrite == {"tool_input": {"a": 5}}


@pytest.mark.parametrize(
    ("patches", "original"),
    [
        ([{"a": 1}, {"a": None}], {"a": 0, "z": 1}),
        ([{"o": {"x": 1, "y": None}}, {"o": {"y": 2, "x": None}}], {"o": {"x": 0, "y": 0, "w": 0}}),
        ([{"o": {"x": 1}}, {"o": None}, {"o": {"k": 1}}], {"p": 1}),
        ([{"l": [1, 2]}, {"l": [3]}], {"l": [0]}),
        ([{"a": None}, {"b": None}, {"a": {"n": None, "m": 1}}], {"b": 1}),
    ],
)
def test_composed_patch_equals_applying_the_patches_in_turn(
    patches: list[dict[str, Any]], original: dict[str, Any]
) -> None:
    combined: dict[str, Any] = {}
    expected: Any = original
    for patch in patches:
        combined = merge_rewrite(combined, {"tool_input": patch})
        expected = merge_patch(expected, patch)
    assert merge_patch(original, combined["tool_input"]) == expected


def test_targets_are_independent() -> None:
    decision = combine(
        [
            v(K.REWRITE, tool_input={"a": 1}),
            v(K.REWRITE, llm_request={"config": {"temperature": 0}}),
            v(K.REWRITE, tool_input={"b": 2}),
        ]
    )
    assert decision.rewrite == {"tool_input": {"a": 1, "b": 2}, "llm_request": {"config": {"temperature": 0}}}


@pytest.mark.parametrize("target", ["tail_tool_call", "llm_response"])
def test_whole_value_targets_later_wins_whole(target: str) -> None:
    first: dict[str, Any] = {"name": "write_file", "args": {"file_path": "a", "content": "x"}, "text": "one"}
    second: dict[str, Any] = {"name": "read_file", "args": {"file_path": "b"}}
    decision = combine(
        [
            Verdict(K.REWRITE, "p", "1", "", {target: first}),
            Verdict(K.REWRITE, "p", "2", "", {target: second}),
        ]
    )
    assert decision.rewrite == {target: second}


def test_rewrites_are_kept_when_a_block_wins() -> None:
    decision = combine([v(K.REWRITE, tool_input={"a": 1}), v(K.DENY, "no")])
    assert decision.outcome is Outcome.DENY
    assert decision.rewrite == {"tool_input": {"a": 1}}


def test_merge_rewrite_does_not_mutate_its_inputs() -> None:
    current = {"tool_input": {"a": 1}}
    patch = {"tool_input": {"a": None, "b": 2}}
    merge_rewrite(current, patch)
    assert current == {"tool_input": {"a": 1}}
    assert patch == {"tool_input": {"a": None, "b": 2}}


# RFC 7386 Appendix A test vectors
@pytest.mark.parametrize(
    ("target", "patch", "result"),
    [
        ({"a": "b"}, {"a": "c"}, {"a": "c"}),
        ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
        ({"a": "b"}, {"a": None}, {}),
        ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
        ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
        ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
        ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
        ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
        (["a", "b"], ["c", "d"], ["c", "d"]),
        ({"a": "b"}, ["c"], ["c"]),
        ({"a": "foo"}, None, None),
        ({"a": "foo"}, "bar", "bar"),
        ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
        ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
        ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
    ],
)
def test_merge_patch_rfc7386_vectors(target: Any, patch: Any, result: Any) -> None:
    assert merge_patch(target, patch) == result


# --- tool_config ---------------------------------------------------------------------------------


def _tool_config(*configs: Any) -> Any:
    return combine([v(K.REWRITE, rule=f"w{i}", tool_config=c) for i, c in enumerate(configs)]).rewrite["tool_config"]


def test_tool_config_allowed_names_intersect() -> None:
    assert _tool_config(
        {"mode": "ANY", "allowed": ["read_file", "glob", "grep_search"]},
        {"mode": "ANY", "allowed": ["glob", "write_file", "read_file"]},
    ) == {"mode": "ANY", "allowed": ["glob", "read_file"]}


def test_tool_config_three_way_intersection() -> None:
    assert _tool_config({"allowed": ["a", "b", "c"]}, {"allowed": ["b", "c"]}, {"allowed": ["c", "d"]}) == {
        "mode": "AUTO",
        "allowed": ["c"],
    }


def test_tool_config_missing_list_is_no_restriction() -> None:
    assert _tool_config({"mode": "ANY"}, {"mode": "AUTO", "allowed": ["b", "a"]}) == {
        "mode": "ANY",
        "allowed": ["a", "b"],
    }
    assert _tool_config({"mode": "AUTO"}, {"mode": "AUTO"}) == {"mode": "AUTO"}


def test_tool_config_accepts_gemini_key_allowed_function_names() -> None:
    assert _tool_config({"allowedFunctionNames": ["a", "b"]}, {"allowed": ["b"]}) == {
        "mode": "AUTO",
        "allowed": ["b"],
    }


def test_tool_config_empty_intersection_is_mode_none() -> None:
    assert _tool_config({"mode": "ANY", "allowed": ["a"]}, {"mode": "ANY", "allowed": ["b"]}) == {
        "mode": "NONE",
        "allowed": [],
    }


@pytest.mark.parametrize("modes", list(itertools.permutations(["AUTO", "ANY", "NONE"])))
def test_tool_config_strictest_mode_wins_in_every_order(modes: tuple[str, ...]) -> None:
    assert _tool_config(*({"mode": m} for m in modes)) == {"mode": "NONE"}
    without_none = [m for m in modes if m != "NONE"]
    assert _tool_config(*({"mode": m} for m in without_none)) == {"mode": "ANY"}


@pytest.mark.parametrize("other", [{}, {"mode": "bogus"}, {"mode": 3}])
def test_tool_config_missing_or_unknown_mode_counts_as_auto(other: dict[str, Any]) -> None:
    assert _tool_config(other, {"mode": "AUTO"}) == {"mode": "AUTO"}
    assert _tool_config({"mode": "ANY"}, other) == {"mode": "ANY"}


def test_tool_config_non_string_names_are_dropped() -> None:
    assert _tool_config({"allowed": ["a", {"x": 1}, 3, "b"]}, {"allowed": ["b", ["a"]]}) == {
        "mode": "AUTO",
        "allowed": ["b"],
    }


def test_tool_config_non_object_then_object_later_wins() -> None:
    assert _tool_config("NONE", {"mode": "ANY"}) == {"mode": "ANY"}
    assert _tool_config({"mode": "ANY"}, "NONE") == "NONE"


def test_tool_config_single_is_kept_as_given() -> None:
    assert _tool_config({"mode": "ANY", "allowedFunctionNames": ["x"]}) == {
        "mode": "ANY",
        "allowedFunctionNames": ["x"],
    }


# --- extras --------------------------------------------------------------------------------------


def test_llm_response_extra_comes_from_the_winning_kind_only() -> None:
    decision = combine([v(K.ASK, "a", llm_response="from ask"), v(K.DENY, "d", llm_response="from deny")])
    assert decision.extras == {"llm_response": "from deny"}
    assert combine([v(K.HALT, "h"), v(K.DENY, "d", llm_response="x")]).extras == {}


def test_llm_response_extra_later_winner_wins() -> None:
    decision = combine([v(K.DENY, "1", llm_response="one"), v(K.DENY, "2", llm_response="two")])
    assert decision.extras == {"llm_response": "two"}


def test_clear_context_is_sticky_across_blocking_verdicts() -> None:
    assert combine([v(K.DENY, "d", clear_context=True), v(K.DENY, "e")]).extras == {"clear_context": True}
    assert combine([v(K.DENY, "d", clear_context=True), v(K.HALT, "h")]).extras == {"clear_context": True}
    assert combine([v(K.HALT, "h", clear_context=True)]).extras == {"clear_context": True}


def test_clear_context_needs_a_block_to_win_and_literal_true() -> None:
    assert combine([v(K.ASK, "a", clear_context=True)]).extras == {}
    assert combine([v(K.DENY, "d", clear_context="yes")]).extras == {}
    assert combine([v(K.MESSAGE, "m", clear_context=True)]).extras == {}
