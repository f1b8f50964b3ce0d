"""hookd.dialects.launch's verdict on the switches tests/e2e/test_switches.py proves on the real CLIs."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.dialects.launch import unguarded_start
from hookd.dialects.registry import AGENTS


@pytest.fixture
def codex_home(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    return home / ".codex", {"HOME": str(home)}


@pytest.mark.parametrize("option", ["-p", "--profile"])
def test_a_codex_profile_that_switches_hooks_off_is_unguarded(
    option: str, codex_home: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    folder, env = codex_home
    (folder / "off.config.toml").write_text("[features]\nhooks = false\n")
    assert "switches hookd's hooks off" in unguarded_start(
        AGENTS["codex"], [option, "off", "x"], {}, env, str(tmp_path)
    )
    assert unguarded_start(AGENTS["codex"], [f"{option}=off", "x"], {}, env, str(tmp_path))


def test_a_codex_profile_that_leaves_hooks_alone_is_guarded(
    codex_home: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    folder, env = codex_home
    (folder / "fast.config.toml").write_text('model = "o3"\n[features]\nmulti_agent = true\n')
    assert unguarded_start(AGENTS["codex"], ["-p", "fast", "x"], {}, env, str(tmp_path)) == ""
    assert unguarded_start(AGENTS["codex"], ["x"], {}, env, str(tmp_path)) == ""


def test_a_codex_profile_hookd_cannot_read_is_unguarded(
    codex_home: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """Absent (the same line may write it), not TOML, or a directory: hookd cannot vouch for it."""
    folder, env = codex_home
    (folder / "broken.config.toml").write_text("[features\n")
    (folder / "dir.config.toml").mkdir()
    for name in ("missing", "broken", "dir"):
        assert unguarded_start(AGENTS["codex"], ["--profile", name, "x"], {}, env, str(tmp_path)), name


def test_a_codex_profile_is_read_from_the_codex_home_the_start_uses(tmp_path: Path) -> None:
    """CODEX_HOME set for the start (equal to the caller's, so no move) is where the profile is read."""
    moved = tmp_path / "codex-home"
    moved.mkdir()
    (moved / "off.config.toml").write_text("[features]\ncodex_hooks = false\n")
    env = {"HOME": str(tmp_path / "home"), "CODEX_HOME": str(moved)}
    assert unguarded_start(AGENTS["codex"], ["-p", "off", "x"], {}, env, str(tmp_path))
    (moved / "off.config.toml").write_text('model = "o3"\n')
    assert unguarded_start(AGENTS["codex"], ["-p", "off", "x"], {}, env, str(tmp_path)) == ""


def test_claude_code_personal_hooks_off_is_no_switch(tmp_path: Path) -> None:
    """2.1.332 fires hookd's hooks with it set (tests/e2e/test_switches.py): a nested start with it is guarded."""
    env = {"HOME": str(tmp_path)}
    assigned = {"CLAUDE_CODE_PERSONAL_HOOKS_OFF": "launch", "CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG": "1"}
    assert unguarded_start(AGENTS["claude"], ["-p", "x"], assigned, env, str(tmp_path)) == ""


@pytest.mark.parametrize("config_dir", [["--config-dir", "/tmp/cp"], ["--config-dir=/tmp/cp"]])
def test_copilots_config_dir_moves_its_settings(config_dir: list[str], tmp_path: Path) -> None:
    """1.0.102 reads its configuration from the directory `--config-dir` names (COPILOT_HOME's deprecated
    option, proven in tests/e2e/test_switches.py): a nested start with it runs without hookd's hooks."""
    argv = [*config_dir, "-p", "x", "--allow-all-tools"]
    assert unguarded_start(AGENTS["copilot"], argv, {}, {"HOME": str(tmp_path)}, str(tmp_path))
    assert unguarded_start(AGENTS["copilot"], ["-p", "x"], {}, {"HOME": str(tmp_path)}, str(tmp_path)) == ""


@pytest.mark.parametrize(
    ("agent", "assigned"),
    [
        ("gemini", {"GEMINI_CLI_TRUST_WORKSPACE": "true"}),
        ("gemini", {"GEMINI_CLI_TRUSTED_FOLDERS_PATH": "/tmp/tf.json"}),
        ("qwen", {"QWEN_CODE_TRUSTED_FOLDERS_PATH": "/tmp/tf.json"}),
    ],
)
def test_folder_trust_set_for_a_nested_start_is_unguarded(agent: str, assigned: dict[str, str], tmp_path: Path) -> None:
    """Trusting the workspace, or a trust file of the line's making, loads an untrusted project's own settings."""
    env = {"HOME": str(tmp_path)}
    assert unguarded_start(AGENTS[agent], ["-p", "x"], assigned, env, str(tmp_path))
    assert unguarded_start(AGENTS[agent], ["-p", "x"], {}, env, str(tmp_path)) == ""
