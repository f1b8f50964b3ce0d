"""fp48: an edit of an agent's settings is judged by what it changes whatever the agent's spelling of the edit's
(old, new) pair the call gives (types.ToolSpec.replace_pairs): Droid's Edit sent with Claude's `old_string`, as
its own `old_str`; a call giving two spellings is judged by each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.test_selfprotect_blind_tamper_8 import agent_outcome

_HOOK = {"type": "command", "command": "hookd-shim droid PreToolUse"}
_HOOKED = {"model": "custom:local", "hooks": {"PreToolUse": [{"matcher": "*", "hooks": [_HOOK]}]}}


@pytest.mark.parametrize(
    ("old", "new"), [("old_str", "new_str"), ("old_string", "new_string"), ("oldString", "newString")]
)
def test_a_droid_settings_edit_of_the_model_passes_in_any_spelling(
    old: str, new: str, world: tuple[Path, Path]
) -> None:
    home, project = world
    path = project / ".factory" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{\n  "model": "custom:local"\n}\n')
    given = {"file_path": str(path), old: '"model": "custom:local"', new: '"model": "claude-sonnet-4-5"'}
    assert agent_outcome("droid", home, project, "Edit", given) == "allow"


@pytest.mark.parametrize(
    "given",
    [
        {"old_string": '"PreToolUse"', "new_string": '"Nothing"'},
        {"old_str": '"model"', "new_str": '"model"', "old_string": '"PreToolUse"', "new_string": '"Nothing"'},
        {"old_string": '"model"', "new_string": '"model"', "oldString": '"PreToolUse"', "newString": '"Nothing"'},
    ],
)
def test_a_droid_settings_edit_of_the_hooks_is_denied_in_any_spelling(
    given: dict[str, str], world: tuple[Path, Path]
) -> None:
    home, project = world
    path = home / ".factory" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_HOOKED, indent=2))
    assert agent_outcome("droid", home, project, "Edit", {"file_path": str(path), **given}) == "deny"
