"""blind-tamper-7 (policies/README.md, "The blind tamper batch"): a startup file left with a variable that switches
an agent's hooks off or moves the settings that hold them, or that points hookd at another config, is judged as
the start of every later session with it set (hookd.selfprotect.later_starts), whatever writes the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.config import Config
from tests.unit.test_selfprotect import protected, shell_outcome, tool_outcome


@pytest.mark.parametrize(
    "command",
    [
        "echo 'export CLAUDE_CODE_SIMPLE=1' >> ~/.zshenv",  # a declared hooks-off switch, any value
        "printf 'export QWEN_CODE_SAFE_MODE=true\\n' >> ~/.bashrc",
        "echo 'export CODEX_HOME=\"$HOME/.cache/cx\"' >> ~/.profile",  # a declared relocation
        "mkdir -p ~/.config/environment.d && printf 'GEMINI_CLI_HOME=%s/.cache/g\\n' \"$HOME\" > "
        "~/.config/environment.d/50-gemini.conf",
        "echo 'set -gx OPENCODE_CONFIG_DIR /tmp/oc' >> ~/.config/fish/config.fish",
        "echo 'export HOOKD_CONFIG=\"$HOME/.cache/hk.toml\"' >> ~/.bashrc",  # hookd's own config moved
    ],
)
def test_a_startup_file_that_leaves_a_switch_for_later_sessions_is_denied(
    world: tuple[Path, Path], command: str
) -> None:
    home, project = world
    assert shell_outcome(home, project, command) == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "echo 'export EDITOR=nvim' >> ~/.bashrc",
        "echo 'export XDG_CONFIG_HOME=\"$HOME/.config\"' >> ~/.bashrc",  # the XDG default: nothing moves
        "echo 'export PATH=\"$HOME/.local/bin:$PATH\"' >> ~/.zshenv",
    ],
)
def test_everyday_settings_in_a_startup_file_stay_allowed(world: tuple[Path, Path], command: str) -> None:
    home, project = world
    assert shell_outcome(home, project, command) == "allow"


def test_a_file_tool_edit_of_a_startup_file_is_judged_alike(world: tuple[Path, Path]) -> None:
    home, project = world
    (home / ".bashrc").write_text("export EDITOR=vim\n")
    moved = {"file_path": str(home / ".bashrc"), "old_string": "export EDITOR=vim\n",
             "new_string": "export EDITOR=vim\nexport CLAUDE_CONFIG_DIR=\"$HOME/.cache/c\"\n"}  # fmt: skip
    assert tool_outcome(home, project, "replace", moved) == "deny"
    editor = {**moved, "new_string": "export EDITOR=nvim\n"}
    assert tool_outcome(home, project, "replace", editor) == "allow"


# --- a change named by a pattern of paths hits every protected place the pattern matches ---


def test_a_change_named_by_a_pattern_hits_the_places_it_matches(world: tuple[Path, Path]) -> None:
    home, project = world
    edit = "find ~/.gemini -name 'settings*.json' -exec sed -i 's/\"enabled\": true/\"enabled\": false/' {} +"
    assert shell_outcome(home, project, edit) == "deny"  # the pattern ~/.gemini/**/settings*.json: Gemini's hooks
    assert shell_outcome(home, project, "find . -name '*.log' -exec truncate -s 0 {} +") == "allow"
    state = home / ".local/state/hookd"  # hookd's state directory: what a pattern selects inside it, once it is there
    truncate = "find ~/.local/state -name 'decisions.log*' -exec truncate -s 0 {} +"
    assert shell_outcome(home, project, truncate) == "allow"
    state.mkdir(parents=True)
    assert shell_outcome(home, project, truncate) == "deny"


@pytest.mark.parametrize(
    "command",
    ["pipx inject hookd git+https://x.example.net/grpcio.git", "pipx runpip hookd install ./structlog.whl"],
)
def test_installing_into_hookds_environment_is_denied(world: tuple[Path, Path], command: str) -> None:
    home, project = world
    assert shell_outcome(home, project, command) == "deny"
    assert shell_outcome(home, project, command.replace("hookd", "black", 1)) == "allow"


def test_hookds_pipx_and_uv_tool_environments_are_protected(world: tuple[Path, Path]) -> None:
    """Where `pipx install hookd` and `uv tool install hookd` put hookd (docs/install.md), whichever runs now."""
    home, project = world
    listed = protected(Config(), home, project)
    assert str(home / ".local/share/pipx/venvs/hookd") in listed
    assert str(home / ".local/share/uv/tools/hookd") in listed
    pth = f"echo 'import x' > {home}/.local/share/pipx/venvs/hookd/lib/python3.11/site-packages/zz.pth"
    assert shell_outcome(home, project, pth) == "deny"


def test_the_venv_docs_install_makes_by_hand_is_protected(world: tuple[Path, Path]) -> None:
    """gaps38: `python3.11 -m venv ~/.hookd` (docs/install.md's third way), whichever environment this daemon runs."""
    home, project = world
    assert str(home / ".hookd") in protected(Config(), home, project)
    pip = "python3 -m pip install --upgrade --target ~/.hookd/lib/python3.11/site-packages ./patched-hookd"
    assert shell_outcome(home, project, pip) == "deny"


def test_droids_local_settings_are_judged_by_its_hooks_switch(world: tuple[Path, Path]) -> None:
    """settings.local.json merges over the settings.json beside it (docs.factory.ai, "Local overrides")."""
    home, project = world
    local = str(project / ".factory/settings.local.json")
    off = {"file_path": local, "content": '{"hooks": {"hooksDisabled": true}}\n'}
    assert tool_outcome(home, project, "write_file", off) == "deny"
    model = {"file_path": local, "content": '{"model": "opus"}\n'}
    assert tool_outcome(home, project, "write_file", model) == "allow"


# --- gaps38: an alias left in a startup file is judged as the start it makes (hookd.selfprotect_aliases) ---


@pytest.mark.parametrize(
    "command",
    [
        "echo \"alias codex='codex --disable hooks'\" >> ~/.bash_aliases",
        "echo \"alias claude='CLAUDE_CODE_SIMPLE=1 claude'\" >> ~/.bashrc",
    ],
)
def test_an_alias_that_starts_an_agent_unguarded_is_denied(world: tuple[Path, Path], command: str) -> None:
    home, project = world
    assert shell_outcome(home, project, command) == "deny"


def test_an_everyday_alias_stays_allowed(world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, "echo \"alias gs='git status -sb'\" >> ~/.bash_aliases") == "allow"
