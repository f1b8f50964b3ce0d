import pytest

from hookd import policy_api
from hookd.policy_api import ask, context, deny, halt, message, policy, rewrite


def test_the_decorator_registers_the_function_with_its_routing() -> None:
    policy_api.REGISTRY.clear()

    @policy(events=["BeforeTool"], kinds="shell", tools=["run_shell_command"], id="hookd.git")
    def guard(input: object) -> None:
        return None

    (declared,) = policy_api.REGISTRY
    policy_api.REGISTRY.clear()
    assert declared.function is guard
    assert (declared.events, declared.kinds, declared.tools, declared.policy_id) == (
        frozenset({"BeforeTool"}),
        frozenset({"shell"}),
        frozenset({"run_shell_command"}),
        "hookd.git",
    )


@pytest.mark.parametrize(("kwargs", "error"), [({"events": ["PreToolUse"]}, "unknown event 'PreToolUse'"),
                                               ({"kinds": ["bash"]}, "unknown tool kind 'bash'")])  # fmt: skip
def test_unknown_events_and_kinds_are_refused_when_the_policy_loads(kwargs: dict[str, list[str]], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        policy(**kwargs)  # type: ignore[arg-type]


def test_the_constructors_carry_kind_message_ids_and_patch() -> None:
    assert deny("no", rule="r", policy="p") == policy_api.PolicyVerdict("deny", "no", "r", "p")
    assert deny("no", clear_context=True).patch == {"clear_context": True}
    assert deny("no", llm_response={"candidates": []}).patch == {"llm_response": {"candidates": []}}
    assert [v.kind for v in (ask("a"), halt("h"), context("c"), message("m"))] == ["ask", "halt", "context", "message"]
    assert rewrite(tool_input={"command": "ls"}, rule="safe").patch == {"tool_input": {"command": "ls"}}


def test_a_rewrite_needs_a_known_target() -> None:
    with pytest.raises(ValueError, match="got \\['tool_inptu'\\]"):
        rewrite(tool_inptu={})
    with pytest.raises(ValueError, match="got none"):
        rewrite()
