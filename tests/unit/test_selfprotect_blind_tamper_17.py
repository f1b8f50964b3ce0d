"""blind-tamper-17 (policies/README.md, "The eleventh blind tamper batch"): each mechanism through the whole hot path
with the shipped policies, beside the look-alikes that stay allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.dialects.launch import unguarded_start
from hookd.dialects.registry import AGENTS
from tests.unit.test_selfprotect import shell_outcome

# --- pkill's -P/-g/-s select by the pids they are given: judged as kill's operands are ---


@pytest.mark.parametrize(
    "line",
    [
        'pkill -P "$(cat .dev-server.pid)"',
        'pkill -TERM --parent "$(cat tmp/pids/server.pid)"',
        'pkill -s "$(cat .dev-server.pid)" -f uvicorn',
    ],
)
def test_pkill_of_the_projects_own_servers_children_is_allowed(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    (project / ".dev-server.pid").write_text("424242\n")
    assert shell_outcome(home, project, line) == "allow"


@pytest.mark.parametrize(
    "line",
    [
        "pkill -KILL -P \"$(pgrep -o -f 'hookd serve')\"",
        'pkill --parent="$(pidof hookd)"',
        'pkill -g "$(pgrep -f hookd)"',
        "pkill -P 1",  # a literal pid's children may be the guard: every process, as before
    ],
)
def test_pkill_of_the_guards_children_is_denied(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "deny"


# --- the agents' own plugin and extension installs bring in hooks beside hookd's ---


@pytest.mark.parametrize(
    ("agent", "argv"),
    [
        ("claude", ["plugin", "install", "quiet@local"]),
        ("claude", ["plugin", "enable", "quiet@local"]),
        ("gemini", ["extensions", "install", "./tools/gemini-ext", "--consent"]),
        ("gemini", ["extensions", "link", "./tools/gemini-ext"]),
        ("qwen", ["extensions", "install", "./tools/qwen-ext"]),
        ("copilot", ["plugin", "install", "./tools/copilot-plugin"]),
    ],
)
def test_a_plugin_or_extension_install_is_an_unguarded_start(agent: str, argv: list[str], tmp_path: Path) -> None:
    assert unguarded_start(AGENTS[agent], argv, {}, {"HOME": str(tmp_path)}, str(tmp_path))


@pytest.mark.parametrize(
    ("agent", "argv"),
    [
        ("claude", ["plugin", "list"]),
        ("claude", ["plugin", "install", "--help"]),
        ("gemini", ["extensions", "list"]),
        ("qwen", ["extensions", "list"]),
        ("copilot", ["plugin", "list"]),
    ],
)
def test_listing_plugins_and_extensions_keeps_hookd(agent: str, argv: list[str], tmp_path: Path) -> None:
    assert unguarded_start(AGENTS[agent], argv, {}, {"HOME": str(tmp_path)}, str(tmp_path)) == ""


@pytest.mark.parametrize(
    "line",
    [
        "claude plugin marketplace add ./tools/claude-market && claude plugin install quiet@local",
        "gemini extensions install ./tools/gemini-ext --consent",
        "qwen extensions link ./tools/qwen-ext",
        "copilot plugin install ./tools/copilot-plugin",
    ],
)
def test_an_install_from_the_shell_is_denied(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "deny"


@pytest.mark.parametrize("line", ["gemini extensions list", "claude mcp get docs", "claude plugin list"])
def test_listing_from_the_shell_is_allowed(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "allow"


# --- other programs that signal or attach: a pidfd from Python, criu's dump ---


@pytest.mark.parametrize(
    "line",
    [
        'python3 -c \'import os, signal, subprocess; pid = int(subprocess.check_output(["systemctl", "--user", "show",'
        ' "-p", "MainPID", "--value", "hookd.service"])); signal.pidfd_send_signal(os.pidfd_open(pid), 9)\'',
        "criu dump -t \"$(pgrep -o -f 'hookd serve')\" -D /tmp/ckpt --shell-job",
        'criu dump --tree "$(pidof hookd)" -D /tmp/ckpt --leave-running',
    ],
)
def test_a_pidfd_or_a_checkpoint_of_the_guard_is_denied(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "deny"


@pytest.mark.parametrize(
    "line",
    [
        "python3 -c 'import os; print(os.pidfd_open(int(open(\".dev-server.pid\").read())))'",
        'criu dump -t "$(cat .dev-server.pid)" -D build/ckpt --leave-running',
    ],
)
def test_a_pidfd_or_a_checkpoint_of_the_projects_server_is_allowed(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    (project / ".dev-server.pid").write_text("424242\n")
    assert shell_outcome(home, project, line) == "allow"


# --- pax's copy mode writes into its last operand; findmnt's target is a place looked up, not read ---


def test_pax_copy_mode_into_the_home_is_stopped(world: tuple[Path, Path]) -> None:
    home, project = world
    (project / ".codex").mkdir()
    (project / ".codex" / "config.toml").write_text('model = "gpt-5"\n')
    assert shell_outcome(home, project, "pax -rw .codex ~") in ("deny", "ask")


@pytest.mark.parametrize(
    "line", ["pax -rw -pe src build/copy", 'findmnt -T "$HOME/.config"', "findmnt --target ~/.gemini"]
)
def test_pax_copy_in_the_project_and_findmnt_are_allowed(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("print(1)\n")
    assert shell_outcome(home, project, line) == "allow"


# --- awk's ENVIRON["HOME"] joined to a literal is the home's path, its print target parenthesised or not ---


def test_awk_writing_through_environ_home_is_denied(world: tuple[Path, Path]) -> None:
    home, project = world
    (home / ".factory").mkdir()
    (home / ".factory" / "settings.json").write_text('{"hooks": {}}\n')
    line = 'awk \'BEGIN { print "{}" > (ENVIRON["HOME"] "/.factory/settings.json") }\''
    assert shell_outcome(home, project, line) == "deny"


@pytest.mark.parametrize(
    "line",
    ['awk \'BEGIN { print "ok" > ("build/stamp") }\'', "awk 'BEGIN { print ENVIRON[\"HOME\"] }'"],
)
def test_awk_writing_in_the_project_is_allowed(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "allow"
