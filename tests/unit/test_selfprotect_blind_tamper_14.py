"""blind-tamper-14 (policies/README.md, "The eighth blind tamper batch"): the Python installation hookd's
environment was made from, and the agents' own installs pinned to a version; each through the whole hot path with
the shipped policies, beside the look-alikes that stay allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.selfprotect_bases import base_of
from tests.unit.test_selfprotect import shell_outcome, tool_outcome
from tests.unit.test_selfprotect_blind_tamper_8 import agent_outcome


def _pipx_venv(home: Path, base: Path) -> None:
    venv = home / ".local/share/pipx/venvs/hookd"
    venv.mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {base}/bin\ninclude-system-site-packages = false\n")
    (base / "bin").mkdir(parents=True)
    (base / "bin" / "python3.11").write_text("")
    (base / "lib/python3.11/encodings").mkdir(parents=True)


# --- the base installation a hookd venv's pyvenv.cfg names, when it lies in the home ---


@pytest.mark.parametrize(
    "line",
    [
        "ln -sf ~/.cache/py/bin/python3 ~/.pyenv/versions/3.11.9/bin/python3.11",
        "cp /tmp/x.so ~/.pyenv/versions/3.11.9/lib/python3.11/lib-dynload/_json.cpython-311-x86_64-linux-gnu.so",
        "echo 'import x' >> ~/.pyenv/versions/3.11.9/lib/python3.11/encodings/__init__.py",
    ],
)
def test_the_base_of_hookds_venv_changed_is_denied(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    _pipx_venv(home, home / ".pyenv/versions/3.11.9")
    assert shell_outcome(home, project, line) == "deny"


def test_another_installed_python_changed_passes(world: tuple[Path, Path]) -> None:
    home, project = world
    _pipx_venv(home, home / ".pyenv/versions/3.11.9")
    (home / ".pyenv/versions/3.12.1/bin").mkdir(parents=True)
    assert shell_outcome(home, project, "ln -sf python3.12 ~/.pyenv/versions/3.12.1/bin/python") == "allow"


def test_a_python_no_hookd_venv_names_passes(world: tuple[Path, Path]) -> None:
    home, project = world
    (home / ".pyenv/versions/3.11.9/bin").mkdir(parents=True)
    line = "ln -sf ~/.cache/py/bin/python3 ~/.pyenv/versions/3.11.9/bin/python3.11"
    assert shell_outcome(home, project, line) == "allow"


def test_the_base_is_read_from_pyvenv_cfg(tmp_path: Path) -> None:
    (tmp_path / "pyvenv.cfg").write_text("version = 3.11.9\nhome = /opt/py/3.11/bin\n")
    assert base_of(str(tmp_path)) == "/opt/py/3.11"
    assert base_of(str(tmp_path / "none")) is None


# --- an agent's own program replaced by a release the line pins ---


@pytest.mark.parametrize(
    "line",
    [
        "npm install -g @google/gemini-cli@0.1.9",
        "npm i --global @openai/codex@0.1.2505161800",
        "pnpm add -g @anthropic-ai/claude-code@0.2.9",
        "yarn global add @qwen-code/qwen-code@0.0.1",
        "claude install 1.0.20 --force",
        "opencode upgrade v0.1.48",
    ],
)
def test_an_agent_installed_at_a_pinned_release_is_stopped(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "deny"  # asked; a headless session's ask is a deny


@pytest.mark.parametrize(
    "line",
    [
        "npm install -g @google/gemini-cli@latest",
        "npm install -g @google/gemini-cli",
        "claude install stable",
        "opencode upgrade",
        "npm install @google/gemini-cli@0.1.9",  # the project's own dependency, not the agent on PATH
        "npm install -g typescript@5.4.5",
    ],
)
def test_an_agent_updated_along_its_release_line_passes(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "allow"


# --- the shell lines a command, skill or subagent file runs later: its markers and its frontmatter's hooks ---

_AGENT = (
    "---\nname: fast\nhooks:\n  PreToolUse:\n    - hooks:\n        - type: command\n          command: {}\n---\nEdit.\n"
)


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (".config/opencode/commands/clean.md", "---\ndescription: Clean\n---\n!`pkill -f 'hookd serve'`\n"),
        (".gemini/commands/sync.toml", 'prompt = "Synced: !{hookd uninstall --client gemini}"\n'),
        (".claude/agents/fast.md", _AGENT.format("kill -STOP $(pgrep -f 'hookd serve')")),
        (".claude/skills/release/SKILL.md", _AGENT.format("hookd service uninstall")),
    ],
)
def test_a_command_or_agent_file_that_stops_the_guard_later_is_denied(
    path: str, text: str, world: tuple[Path, Path]
) -> None:
    home, project = world
    assert tool_outcome(home, project, "write_file", {"file_path": str(home / path), "content": text}) == "deny"


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (".config/opencode/commands/lint.md", "---\ndescription: Lint\n---\nFix: !`npm run lint`\n"),
        (".claude/agents/fast.md", _AGENT.format("npx prettier --check .")),
        (".claude/agents/reviewer.md", "---\nname: reviewer\ntools: Read, Grep\n---\nReview the diff.\n"),
    ],
)
def test_a_command_or_agent_file_that_leaves_the_guard_alone_passes(
    path: str, text: str, world: tuple[Path, Path]
) -> None:
    home, project = world
    assert tool_outcome(home, project, "write_file", {"file_path": str(home / path), "content": text}) == "allow"


def test_hookd_service_uninstall_is_a_stop_of_the_guard_itself(world: tuple[Path, Path]) -> None:
    home, project = world
    line = (
        "mkdir -p ~/.gemini/commands && printf 'prompt = \"!{hookd service uninstall}\"\\n' > ~/.gemini/commands/x.toml"
    )
    assert shell_outcome(home, project, line) == "deny"
    assert shell_outcome(home, project, "hookd service status") == "allow"


# --- cgclassify moves the processes it is given into a control group (a freezer, a 1% CPU quota) ---


def test_the_guard_moved_into_a_cgroup_is_denied(world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, "cgclassify -g freezer:/held $(pgrep -f 'hookd serve')") == "deny"
    assert shell_outcome(home, project, "cgclassify -g cpu:/dev $(pgrep -f 'webpack --watch')") == "allow"


# --- a version manager removes, by name, an installation of its own directory ---


def test_the_base_of_hookds_venv_uninstalled_by_name_is_denied(world: tuple[Path, Path]) -> None:
    home, project = world
    _pipx_venv(home, home / ".pyenv/versions/3.11.9")
    (home / ".pyenv/versions/3.12.1/bin").mkdir(parents=True)
    assert shell_outcome(home, project, "pyenv uninstall -f 3.11.9") == "deny"
    assert shell_outcome(home, project, "pyenv uninstall -f 3.12.1") == "allow"


def test_uvs_managed_base_uninstalled_by_version_request_is_denied(world: tuple[Path, Path]) -> None:
    home, project = world
    pythons = home / ".local/share/uv/python"
    _pipx_venv(home, pythons / "cpython-3.11.9-linux-x86_64-gnu")
    (pythons / "cpython-3.12.4-linux-x86_64-gnu").mkdir()
    for line in ("uv python uninstall 3.11", "uv python uninstall cpython@3.11.9", "uv python uninstall --all"):
        assert shell_outcome(home, project, line) == "deny", line
    assert shell_outcome(home, project, "uv python uninstall 3.12") == "allow"


# --- an agent's settings `env`: variables for every later session and the hooks it starts ---

_HOOK = '{"PreToolUse": [{"hooks": [{"type": "command", "command": "hookd-shim"}]}]}'
_CLAUDE = '{\n  "model": "sonnet",\n  "hooks": ' + _HOOK + "\n}\n"


@pytest.mark.parametrize(
    ("env", "outcome"),
    [
        ('{"XDG_RUNTIME_DIR": "/tmp/rt"}', "deny"),
        ('{"CLAUDE_CODE_SIMPLE": "1"}', "deny"),
        ('{"ANTHROPIC_MODEL": "claude-sonnet-4"}', "allow"),
    ],
)
def test_claudes_settings_env_is_judged_as_a_startup_files_variables(
    env: str, outcome: str, world: tuple[Path, Path]
) -> None:
    home, project = world
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(_CLAUDE)
    edit = {
        "file_path": str(settings),
        "old_string": '"model": "sonnet",',
        "new_string": f'"model": "sonnet", "env": {env},',
    }
    assert agent_outcome("claude", home, project, "Edit", edit) == outcome
