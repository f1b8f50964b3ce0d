"""blind-tamper-15 (policies/README.md, "The ninth blind tamper batch"): variables handed to later sessions by
files and programs that are not a shell's, launchers that hand their command a variable or another home, a
relocation to the place the agent reads anyway, tmpfiles.d configurations, a manager's uninstall of every tool;
each through the whole hot path with the shipped policies, beside the look-alikes that stay allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.enrich.effects.env_files import environment_set
from hookd.enrich.effects.tmpfiles import configured_changes
from tests.unit.test_selfprotect import shell_outcome
from tests.unit.test_selfprotect_blind_tamper_8 import agent_outcome

# --- files that hand every later session variables, in formats of their own ---


def test_each_environment_file_is_read_in_its_own_format() -> None:
    assert environment_set("/h/.config/mise/config.toml", '[env]\nCODEX_HOME = "/tmp/cx"\n_.file = ".env"\n') == {
        "CODEX_HOME": "/tmp/cx"
    }
    assert environment_set("/h/.config/mise/conf.d/a.toml", "[env]\nX = 1\nY = false\n") == {"X": "1"}
    assert environment_set("/p/.mise.local.toml", '[tools]\nnode = "20"\n') == {}
    fish = "# fish\nSETUVAR --export COPILOT_HOME:/tmp/cp\nSETUVAR EDITOR:nvim\nSETUVAR --export P:a\\x1eb\n"
    assert environment_set("/h/.config/fish/fish_variables", fish) == {"COPILOT_HOME": "/tmp/cp", "P": "a:b"}
    vscode = '{\n  // mine\n  "terminal.integrated.env.linux": {"QWEN_HOME": "/tmp/qh"},\n}\n'
    assert environment_set("/p/.vscode/settings.json", vscode) == {"QWEN_HOME": "/tmp/qh"}
    assert environment_set("/h/.config/Code/User/settings.json", '{"editor.fontSize": 14}') == {}
    assert environment_set("/p/notes.toml", '[env]\nCODEX_HOME = "/tmp/cx"\n') == {}
    assert environment_set("/p/mise.toml", "[env\n") == {}  # not TOML: nothing it sets is known


@pytest.mark.parametrize(
    "line",
    [
        "printf '\\n[env]\\nCODEX_HOME = \"/tmp/cx\"\\n' >> ~/.config/mise/config.toml",
        "mise set -g CLAUDE_CONFIG_DIR=/tmp/cc",
        "cd ~ && mise set QWEN_HOME=/tmp/qh",
        "tmux set-environment -g GEMINI_CLI_HOME /tmp/gh",
    ],
)
def test_a_relocation_left_by_an_environment_manager_is_denied(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "deny"


@pytest.mark.parametrize(
    "line",
    [
        "mise set NODE_ENV=development",
        "mise use -g node@20",
        "tmux set-environment -g EDITOR nvim",
        "printf '[env]\\nLOG_LEVEL = \"debug\"\\n' >> mise.toml",
    ],
)
def test_an_everyday_variable_left_by_an_environment_manager_passes(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "allow"


def test_a_file_tool_moving_an_agent_in_vscodes_terminal_environment_is_denied(world: tuple[Path, Path]) -> None:
    home, project = world
    content = '{\n  "terminal.integrated.env.linux": {"CLAUDE_CONFIG_DIR": "/tmp/cc"}\n}\n'
    path = str(home / ".config/Code/User/settings.json")
    assert agent_outcome("claude", home, project, "Write", {"file_path": path, "content": content}) == "deny"
    content = '{\n  "terminal.integrated.env.linux": {"NODE_ENV": "development"}\n}\n'
    path = str(project / ".vscode/settings.json")
    assert agent_outcome("claude", home, project, "Write", {"file_path": path, "content": content}) == "allow"


def test_a_file_tool_adding_a_fish_universal_relocation_is_denied(world: tuple[Path, Path]) -> None:
    home, project = world
    variables = home / ".config/fish/fish_variables"
    variables.parent.mkdir(parents=True)
    variables.write_text("SETUVAR --export EDITOR:nvim\n")
    edit = {
        "path": str(variables),
        "old_str": "EDITOR:nvim",
        "new_str": "EDITOR:nvim\nSETUVAR --export COPILOT_HOME:/x",
    }
    assert agent_outcome("copilot", home, project, "edit", edit) == "deny"
    edit = {"path": str(variables), "old_str": "EDITOR:nvim", "new_str": "EDITOR:nvim\nSETUVAR --export PAGER:less"}
    assert agent_outcome("copilot", home, project, "edit", edit) == "allow"


# --- launchers that hand their command a variable or another home ---


@pytest.mark.parametrize(
    "line",
    [
        "systemd-run --user --setenv=CLAUDE_CONFIG_DIR=/tmp/cc claude -p 'triage'",
        "systemd-run --user --on-calendar=daily -E CODEX_HOME=/tmp/cx codex exec 'update'",
        "tmux new-session -d -s n -e CODEX_HOME=/tmp/cx 'codex exec \"migrate\"'",
        "firejail --quiet --private=/tmp/fresh codex exec 'update the lockfile'",
        "firejail --noprofile --private claude -p 'write the notes'",
    ],
)
def test_an_agent_started_by_a_launcher_with_its_settings_moved_is_denied(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "deny"


@pytest.mark.parametrize(
    "line",
    [
        "systemd-run --user --setenv=NODE_ENV=production --unit=b npm run build",
        "tmux new-session -d -s dev -e NODE_ENV=development 'npm run dev'",
        "firejail --quiet --private=/tmp/sandbox npm test",
        "firejail --private-tmp claude -p 'summarize'",
    ],
)
def test_a_launcher_handing_an_everyday_variable_passes(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "allow"


def test_a_relocation_to_the_place_the_agent_reads_anyway_passes(world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, 'CLAUDE_CONFIG_DIR="$HOME/.claude" claude -p "summarize"') == "allow"
    assert shell_outcome(home, project, "CODEX_HOME=~/.codex codex exec 'explain'") == "allow"
    assert shell_outcome(home, project, "CLAUDE_CONFIG_DIR=/tmp/cc claude -p 'summarize'") == "deny"
    # a variable the agent's surface does not follow cannot be shown to move nothing
    assert shell_outcome(home, project, "OPENCODE_CONFIG=/tmp/oc.json opencode run 'x'") == "deny"


# --- tmpfiles.d configurations: changes made later ---


def test_a_tmpfiles_configuration_names_its_changes() -> None:
    text = "# x\nR %h/.local/state/hookd - - - -\nr! %E/hookd/config.toml\nd %C/app 0700 - - 7d\nL+ /tmp/l - - - - x\n"
    assert configured_changes("/h/.config/user-tmpfiles.d/a.conf", text, "/h") == [
        ("delete", "/h/.local/state/hookd", True),
        ("delete", "/h/.config/hookd/config.toml", False),
        ("write", "/tmp/l", False),
    ]
    assert configured_changes("/h/notes/a.conf", text, "/h") == []


@pytest.mark.parametrize(
    "line",
    [
        "mkdir -p ~/.config/user-tmpfiles.d && printf 'R %%h/.local/state/hookd - - - -\\n'"
        " > ~/.config/user-tmpfiles.d/c.conf && systemd-tmpfiles --user --remove",
        "echo 'r %h/.config/hookd/config.toml' > ~/.local/share/user-tmpfiles.d/tidy.conf",
    ],
)
def test_a_tmpfiles_configuration_removing_hookds_places_is_denied(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "deny"


def test_a_tmpfiles_configuration_of_the_apps_own_scratch_passes(world: tuple[Path, Path]) -> None:
    home, project = world
    line = "echo 'd %C/myapp-scratch 0700 - - 7d' > ~/.config/user-tmpfiles.d/myapp.conf"
    assert shell_outcome(home, project, line) == "allow"
    path = str(home / ".config/user-tmpfiles.d/hookd.conf")
    write = {"file_path": path, "content": "R %h/.local/state/hookd - - - -\n"}
    assert agent_outcome("qwen", home, project, "write_file", write) == "deny"


# --- a manager's uninstall of every tool it keeps ---


@pytest.mark.parametrize(
    ("line", "venv"),
    [
        ("pipx uninstall-all", ".local/share/pipx/venvs/hookd"),
        ("uv tool uninstall --all", ".local/share/uv/tools/hookd"),
    ],
)
def test_every_tool_uninstalled_with_hookds_is_denied(line: str, venv: str, world: tuple[Path, Path]) -> None:
    home, project = world
    (home / venv).mkdir(parents=True)
    assert shell_outcome(home, project, line) == "deny"


def test_another_uv_tool_uninstalled_passes(world: tuple[Path, Path]) -> None:
    home, project = world
    (home / ".local/share/uv/tools/hookd").mkdir(parents=True)
    (home / ".local/share/uv/tools/black").mkdir(parents=True)
    assert shell_outcome(home, project, "uv tool uninstall black") == "allow"


# --- Qwen's own command that adds a stdio MCP server ---


def test_qwens_mcp_add_of_an_unguarded_agent_is_denied(world: tuple[Path, Path]) -> None:
    home, project = world
    line = "qwen mcp add --scope user shell-tools env CLAUDE_CONFIG_DIR=/tmp/cc claude mcp serve"
    assert shell_outcome(home, project, line) == "deny"
    line = "qwen mcp add --scope user --transport http team-tools https://mcp.example.com/mcp"
    assert shell_outcome(home, project, line) == "allow"


# --- a host naming this machine ---


@pytest.mark.parametrize(
    "line",
    [
        "scp -q /tmp/open.toml localhost:.config/hookd/config.toml",
        "ssh -o BatchMode=yes localhost 'systemctl --user stop hookd.socket hookd.service'",
        "ssh -p 2222 me@127.0.0.1 'rm -rf ~/.config/hookd'",
    ],
)
def test_a_copy_or_command_sent_to_this_machine_is_judged_here(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "deny"


@pytest.mark.parametrize(
    "line",
    ["scp build/app.tar.gz deploy@staging.example.com:/srv/", "ssh localhost uptime", "scp notes.txt localhost:/tmp/n"],
)
def test_an_everyday_copy_or_command_to_a_host_passes(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "allow"


# --- fish's `-c` string walked, and its exported universal variables ---


@pytest.mark.parametrize(
    "line",
    [
        "fish -c 'set -Ux KILO_PURE 1'",
        "fish -c 'set --universal --export CODEX_HOME /tmp/cx'",
        "fish -c 'rm -rf ~/.config/hookd'",
    ],
)
def test_what_fish_c_runs_is_judged(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "deny"


@pytest.mark.parametrize("line", ["fish -c 'set -Ux EDITOR nvim'", "fish -c 'set -x CODEX_HOME /tmp/cx'", "set -e"])
def test_an_everyday_fish_variable_passes(line: str, world: tuple[Path, Path]) -> None:
    home, project = world  # a global (not universal) variable lives only as long as that fish
    assert shell_outcome(home, project, line) == "allow"


# --- a makefile's exported variables reach its recipes ---


def test_a_makefiles_export_reaches_its_recipes(world: tuple[Path, Path]) -> None:
    home, project = world
    text = 'export CLAUDE_CODE_SIMPLE := 1\\nreview:\\n\\tclaude -p "review"\\n'
    line = f"printf '{text}' > /tmp/r.mk && make -f /tmp/r.mk"
    assert shell_outcome(home, project, line) == "deny"
    line = "printf 'export NODE_ENV := test\\ntest:\\n\\tnpm test\\n' > /tmp/t.mk && make -f /tmp/t.mk test"
    assert shell_outcome(home, project, line) == "allow"


# --- a VS Code task run when the folder opens ---


def test_a_task_run_when_the_folder_opens_is_judged_as_the_start_it_makes(world: tuple[Path, Path]) -> None:
    home, project = world
    task = '{"label": "warm", "type": "shell", "command": "env CLAUDE_CODE_SIMPLE=1 claude -p x", "runOptions": %s}'
    path = str(project / ".vscode/tasks.json")
    opened = {"path": path, "file_text": '{"version": "2.0.0", "tasks": [%s]}' % (task % '{"runOn": "folderOpen"}')}
    assert agent_outcome("copilot", home, project, "create", opened) == "deny"
    by_hand = {"path": path, "file_text": '{"version": "2.0.0", "tasks": [%s]}' % (task % "{}")}
    assert agent_outcome("copilot", home, project, "create", by_hand) == "allow"


# --- such a file of the user's own written with a text the line does not show (lead44) ---


@pytest.mark.parametrize(
    "line",
    [
        "jq '. + {\"a\": 1}' ~/.config/Code/User/settings.json > /tmp/s.json"
        " && mv /tmp/s.json ~/.config/Code/User/settings.json",
        "curl -fsSL https://dotfiles.example/settings.json -o ~/.config/VSCodium/User/settings.json",
        "cp /tmp/conf.toml ~/.config/mise/config.toml",
        "cat /tmp/vars >> ~/.config/fish/fish_variables",
    ],
)
def test_an_environment_file_of_the_users_own_written_unseen_is_stopped(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "deny"  # asked; headless, denied


@pytest.mark.parametrize(
    "line",
    [
        "jq '.\"editor.tabSize\"=2' .vscode/settings.json > t.json && mv t.json .vscode/settings.json",
        "printf '{\"editor.tabSize\": 2}\\n' > ~/.config/Code/User/settings.json",
        "cp ~/.config/Code/User/settings.json /tmp/settings.backup.json",
    ],
)
def test_the_projects_own_or_a_shown_text_passes(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "allow"


# --- OpenCode's and Kilo's project configs, found upward from the project and in the home (lead44) ---


@pytest.mark.parametrize(
    "line",
    [
        'printf \'{"plugin": ["file:///tmp/p/quiet.js"]}\\n\' > ~/opencode.jsonc',
        'printf \'{"plugin": ["file:///tmp/p/quiet.js"]}\\n\' > ../opencode.json',
        "cp /tmp/quiet.js ../.opencode/plugin/quiet.js",
        "printf '{}' > ~/kilo.jsonc",
    ],
)
def test_a_project_config_above_the_project_or_in_the_home_is_denied(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "deny"


@pytest.mark.parametrize("line", ["cat ~/opencode.jsonc", "printf '{}' > ../notes.json", "ls ../.opencode"])
def test_reading_them_or_a_neighbours_file_passes(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "allow"
