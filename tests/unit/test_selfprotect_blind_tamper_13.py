"""blind-tamper-13 (policies/README.md, "The seventh blind tamper batch"): a file's times set from Python, a path built
from a name that holds one, the configurations in a directory handed to logrotate, a daemon served on other
policies where the shims look; each through the whole hot path with the shipped policies, beside the look-alikes
that stay allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.test_selfprotect import keeps, shell_outcome


def _log(home: Path) -> Path:
    log = home / ".local/state/hookd/decisions.log"
    log.parent.mkdir(parents=True)
    log.write_text('{"seq": 1}\n')
    return log


# --- os.utime sets a file's times, as touch does ---


def test_the_logs_times_set_from_python_are_denied(world: tuple[Path, Path]) -> None:
    home, project = world
    _log(home)
    line = "python3 -c \"import os; p=os.path.expanduser('~/.local/state/hookd/decisions.log'); os.utime(p, (0, 0))\""
    assert shell_outcome(home, project, line) == "deny"


def test_a_stamps_times_set_from_python_pass(world: tuple[Path, Path]) -> None:
    home, project = world
    (project / "build").mkdir()
    (project / "build" / "stamp").write_text("")
    assert shell_outcome(home, project, "python3 -c \"import os; os.utime('build/stamp', (0, 0))\"") == "allow"


# --- a path built from a name that holds one: `d = Path.home() / "…"; (d / "x").write_text(…)` ---


@pytest.mark.parametrize(
    "code",
    [
        "import pathlib; d=pathlib.Path.home()/'.config/systemd/user/hookd.service.d'; (d/'q.conf').write_text('x')",
        "import os; d=os.path.expanduser('~/.local/state/hookd'); open(os.path.join(d, 'decisions.log'), 'w')",
        "from pathlib import Path; d=Path.home()/'.claude'; f=d/'settings.json'; f.write_text('{}')",
    ],
)
def test_a_protected_path_built_from_a_name_is_denied(code: str, world: tuple[Path, Path]) -> None:
    home, project = world
    _log(home)
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text('{"hooks": {}}\n')
    assert shell_outcome(home, project, f'python3 -c "{code}"') == "deny"


def test_a_project_path_built_from_a_name_passes(world: tuple[Path, Path]) -> None:
    home, project = world
    code = "from pathlib import Path; d=Path('build'); d.mkdir(exist_ok=True); (d/'out.txt').write_text('ok')"
    assert shell_outcome(home, project, f'python3 -c "{code}"') == "allow"


# --- logrotate reads every file of a directory it is given as a configuration ---


def test_a_directory_of_configurations_that_rotates_the_log_away_is_denied(world: tuple[Path, Path]) -> None:
    home, project = world
    _log(home)
    line = (
        "mkdir -p /tmp/lr.d && printf '%s/.local/state/hookd/decisions.log {\\n rotate 0\\n}\\n' \"$HOME\""
        " > /tmp/lr.d/h && logrotate -f -s /dev/null /tmp/lr.d"
    )
    assert shell_outcome(home, project, line) == "deny"


def test_a_directory_of_the_projects_own_configurations_passes(world: tuple[Path, Path]) -> None:
    home, project = world
    line = "mkdir -p ops/lr.d && printf 'logs/*.log {\\n rotate 3\\n}\\n' > ops/lr.d/app"
    line += " && logrotate -f -s lr.state ops/lr.d"
    assert shell_outcome(home, project, line) == "allow"


# --- hookd serve on policies of its own, where the shims look for the guard ---


@pytest.mark.parametrize(
    "line",
    [
        'setsid -f hookd serve --policies ~/.cache/p --runtime-dir "$XDG_RUNTIME_DIR/hookd" >/dev/null 2>&1',
        "HOOKD_CONFIG=/tmp/h.toml nohup hookd serve &",
        "hookd --config /tmp/h.toml serve",
    ],
)
def test_a_daemon_served_on_other_policies_is_denied(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "deny"


def test_a_test_daemon_of_the_projects_own_passes(world: tuple[Path, Path]) -> None:
    home, project = world
    (project / "policies").mkdir()
    assert shell_outcome(home, project, "hookd serve --policies policies --runtime-dir ./.rt") == "allow"


# --- the agent's own approvals turned off for every later session (hookd.dialects.approvals) ---

_CLAUDE = '{\n  "permissions": {"allow": ["Bash(npm run lint)"]},\n  "hooks": {"PreToolUse": []}\n}\n'


@pytest.mark.parametrize(
    ("permissions", "kept"),
    [
        ('{"allow": ["Bash(npm run lint)", "Bash(npm test)"]}', True),
        ('{"allow": ["Bash(npm run lint)", "Bash(*)"]}', False),
        ('{"allow": ["Bash"]}', False),
        ('{"allow": ["Bash(npm run lint)"], "defaultMode": "bypassPermissions"}', False),
        ('{"allow": ["Bash(npm run lint)"], "defaultMode": "acceptEdits"}', True),
    ],
)
def test_claudes_permissions_are_kept_unless_they_approve_everything(
    permissions: str, kept: bool, world: tuple[Path, Path]
) -> None:
    home, project = world
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(_CLAUDE)
    content = _CLAUDE.replace('{"allow": ["Bash(npm run lint)"]}', permissions)
    write = {"file_path": str(settings), "content": content}
    assert (str(settings) in keeps(home, project, "claude", "Write", write)) is kept


@pytest.mark.parametrize(
    ("permission", "kept"),
    [
        ('{"bash": {"*": "ask", "npm test": "allow"}}', True),
        ('"ask"', True),
        ('"allow"', False),
        ('{"bash": "allow"}', False),
        ('{"*": "allow", "edit": "ask"}', False),
    ],
)
def test_opencodes_permission_is_kept_unless_it_approves_everything(
    permission: str, kept: bool, world: tuple[Path, Path]
) -> None:
    home, project = world
    config = home / ".config" / "opencode" / "opencode.json"
    config.parent.mkdir(parents=True)
    config.write_text('{"model": "anthropic/claude-sonnet-4"}\n')
    write = {
        "filePath": str(config),
        "content": f'{{"model": "anthropic/claude-sonnet-4", "permission": {permission}}}',
    }
    assert (str(config) in keeps(home, project, "opencode", "write", write)) is kept


@pytest.mark.parametrize(
    ("lines", "kept"),
    [
        (('-approval_policy = "on-request"', '+approval_policy = "never"'), False),
        (('-sandbox_mode = "workspace-write"', '+sandbox_mode = "danger-full-access"'), False),
        (('-model = "gpt-5"', '+model = "gpt-5-codex"'), True),
    ],
)
def test_codexs_approvals_are_kept_unless_they_approve_everything(
    lines: tuple[str, str], kept: bool, world: tuple[Path, Path]
) -> None:
    home, project = world
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "gpt-5"\napproval_policy = "on-request"\nsandbox_mode = "workspace-write"\n')
    patch = f"*** Begin Patch\n*** Update File: {config}\n@@\n{lines[0]}\n{lines[1]}\n*** End Patch"
    assert (str(config) in keeps(home, project, "codex", "apply_patch", {"command": patch})) is kept


@pytest.mark.parametrize(
    "alias",
    [
        "alias gemini='gemini --approval-mode=yolo'",
        "alias gemini='gemini --approval-mode yolo'",
        "alias kilo='kilo --auto'",
        "alias codex='codex -a never'",
        "alias droid='droid exec --auto high'",
        "alias codex='codex -c approval_policy=never'",
    ],
)
def test_an_alias_that_approves_every_later_call_is_denied(alias: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, f'echo "{alias}" >> ~/.bashrc') == "deny"


@pytest.mark.parametrize(
    "alias",
    [
        "alias gemini='gemini --approval-mode plan'",
        "alias droid='droid exec --auto low'",
        "alias cl='claude --model sonnet'",
    ],
)
def test_an_alias_that_keeps_the_agents_approvals_passes(alias: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, f'echo "{alias}" >> ~/.bashrc') == "allow"


def test_a_headless_start_now_is_left_to_its_own_ask(world: tuple[Path, Path]) -> None:
    home, project = world  # every agent denies an ask it cannot put to anyone: nothing of hookd's is lost
    assert shell_outcome(home, project, "gemini --yolo -p 'summarise README.md'") == "allow"


# --- logrotate of a configuration already on disk: its stanzas are read when the call is decided ---


@pytest.mark.parametrize("target", ["~/lr.d/rot.conf", "~/lr.d"])
def test_a_configuration_left_on_disk_that_rotates_the_log_away_is_denied(
    target: str, world: tuple[Path, Path]
) -> None:
    home, project = world
    log = _log(home)
    (home / "lr.d").mkdir()
    (home / "lr.d" / "rot.conf").write_text(f"{log} {{\n rotate 0\n}}\n")
    assert shell_outcome(home, project, f"logrotate -f -s /dev/null {target}") == "deny"
    assert shell_outcome(home, project, f"logrotate -d {target}") == "allow"


def test_the_projects_configuration_on_disk_passes(world: tuple[Path, Path]) -> None:
    home, project = world
    (project / "ops").mkdir()
    (project / "ops" / "logrotate.conf").write_text(f"{project}/logs/*.log {{\n rotate 3\n copytruncate\n}}\n")
    assert shell_outcome(home, project, "logrotate -s .lr.state -f ops/logrotate.conf") == "allow"


# --- hookd's own module run by an interpreter is the hookd command ---


@pytest.mark.parametrize(
    "line", ["python3 -m hookd serve --policies /tmp/p", "python3 -I -m hookd uninstall --client claude"]
)
def test_hookds_module_is_judged_as_hookd(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "deny"


def test_hookds_module_reading_its_status_passes(world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, "python3 -m hookd status --json") == "allow"
