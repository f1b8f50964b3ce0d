"""Every agent's module names the evidence that its sub-agents' tool calls reach hookd (issue 27.7):
a real-CLI test that exists, and that names the agent. `hookd doctor` reports an agent that names none."""

from __future__ import annotations

import pytest

from hookd.dialects.registry import AGENTS
from support import ROOT


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_the_module_names_the_test_that_proves_its_sub_agents_are_guarded(name: str) -> None:
    evidence = AGENTS[name].subagents.guarded
    test_file = ROOT / evidence.split()[0]
    assert test_file.is_file(), evidence
    source = test_file.read_text()
    assert "sub_agent" in source and name in source, evidence
