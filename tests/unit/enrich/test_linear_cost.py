"""Issue 26 item 7: the analysis' work grows linearly with its input. A line of 4n commands, or an env file's text
of 4n lines, costs about four times what n cost; a walk over every pair of effects or words (quadratic) costs
sixteen, which the bound of eight fails. Each figure is the best of several runs' CPU time, so that the box's load
moves it little."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from differential_support import ThrowawayWorld
from effect_support import analysed

from hookd.dialects.registry import DEFAULT_AGENT
from hookd.enrich.paths import enrich_paths
from hookd.enrich.plain_env_write import plain_env_write_effects
from hookd.enrich.tool_effects import enrich_tool_effects
from hookd.policytest.corpus import _payload

GROWTH = 4
BOUND = 8.0  # linear: ~4; quadratic: ~16


def _best(call: Callable[[], object], runs: int = 5) -> float:
    spent = []
    for _ in range(runs):
        started = time.process_time()
        call()
        spent.append(time.process_time() - started)
    return min(spent)


def _ratio(cost: Callable[[int], Callable[[], object]], n: int) -> float:
    small, large = cost(n), cost(n * GROWTH)
    small()  # caches filled (the catalogue, compiled patterns)
    return _best(large) / max(_best(small), 1e-6)


def test_a_line_of_more_commands_costs_linearly_more(tmp_path: Path) -> None:
    def line(n: int) -> Callable[[], object]:
        text = " && ".join(f"rm -f build/x{i} && cp src/a{i} out/b{i} && cat log{i}" for i in range(n))
        return lambda: analysed(text, tmp_path)

    assert _ratio(line, 20) < BOUND  # 800 words at the most: within the walk's bound (WALK_WORDS)


def test_a_line_of_more_variables_with_choices_costs_linearly_more(tmp_path: Path) -> None:
    """Each `if` leaves its variable two values (choices.py): each command naming it is walked twice, the rest of
    the line once (a walk of the rest per value would double with each `if`)."""

    def line(n: int) -> Callable[[], object]:
        text = "; ".join(f'o{i}=build; if [ -n "$C" ]; then o{i}=dist; fi; rm -rf "$o{i}/x"' for i in range(n))
        return lambda: analysed(text, tmp_path)

    assert _ratio(line, 6) < BOUND  # 4 * 6 commands of 8 words, within the walk's bound


def test_an_env_file_of_more_lines_costs_linearly_more(tmp_path: Path) -> None:
    """Both the first test's route and the full analysis of the same write."""
    world = ThrowawayWorld(tmp_path)

    def event(n: int):  # type: ignore[no-untyped-def]
        text = "".join(f"KEY_{i}=value{i}\n" for i in range(n))
        payload = {**_payload({"tool": "write", "path": ".env"}), "tool_input": {"file_path": ".env", "content": text}}
        parsed = world.parsed(DEFAULT_AGENT, payload)
        assert parsed is not None
        return enrich_paths(parsed)

    def routed(n: int) -> Callable[[], object]:
        made = event(n)
        assert plain_env_write_effects(made) is not None
        return lambda: plain_env_write_effects(made)

    def full(n: int) -> Callable[[], object]:
        made = event(n)
        return lambda: enrich_tool_effects(made)

    assert _ratio(routed, 200) < BOUND
    assert _ratio(full, 200) < BOUND
