"""blind-tamper-8 (policies/README.md, "The second blind tamper batch"): what hookd now judges about a change of
its own set-up, through the whole hot path with the shipped policies, and the look-alikes that stay allowed."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from hookd.config import Config
from hookd.dialects.registry import AGENTS
from hookd.types import Caller, Deadline, HookRequest
from tests.unit.test_selfprotect import protected, shell_outcome, tool_outcome


def agent_outcome(client: str, home: Path, project: Path, tool: str, tool_input: dict[str, Any]) -> str:
    """One agent's own tool call (its PreToolUse, or the event it has for one) through the whole hot path."""
    from hookd.assembly import build_pipeline, engine_for_dir
    from hookd.config import bundled_policies_dir

    spec = AGENTS[client]
    names = [e.name for e in spec.events]
    tool_event = next(e.name for e in spec.events if e.event.value == "BeforeTool")
    event = "PreToolUse" if "PreToolUse" in names else tool_event
    payload = {"session_id": "s", "transcript_path": "", "cwd": str(project), "hook_event_name": event,
               "tool_name": tool, "tool_input": tool_input}  # fmt: skip
    request = HookRequest(
        client=client, event=event, payload=json.dumps(payload).encode(), cwd=str(project),
        env={spec.project_dir_env: str(project), "HOME": str(home)},
        caller=Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid()), deadline=Deadline.after(5),
    )  # fmt: skip

    async def decide() -> str:
        config = Config()
        engine = engine_for_dir(config, bundled_policies_dir())
        try:
            pipeline, _ = build_pipeline(config, engine, probe=lambda _pid: False)
            return (await pipeline.handle(request)).decision.outcome.name.lower()
        finally:
            await engine.aclose()

    return asyncio.run(decide())


# --- a protected place handed to a program the catalogue does not know: asked ---


def test_an_unknown_program_given_a_protected_place_is_asked(world: tuple[Path, Path]) -> None:
    home, project = world
    put = "dasel put -f ~/.config/hookd/config.toml -t int -v 1 '.log.max_bytes'"
    assert shell_outcome(home, project, put) != "allow"  # an ask, which a headless Gemini session denies
    assert shell_outcome(home, project, "dasel put -f config/app.toml -t int -v 1 '.port'") == "allow"
    assert shell_outcome(home, project, 'X="rm -rf ~"; bash -c $X') == "allow"  # the home as a guess: not this rule


# --- the daemon's process, named after its interpreter ---


def test_a_signal_to_every_process_named_like_the_daemons_interpreter_is_denied(world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, "killall -q -s KILL python3") == "deny"
    assert shell_outcome(home, project, "killall -q node") == "allow"


# --- hookd's units written from a configuration the line names ---


@pytest.mark.parametrize(
    "command",
    [
        'hookd --config "$PWD/.hk.toml" service install',
        "HOOKD_CONFIG=/tmp/h.toml hookd service install",
        "export HOOKD_CONFIG=/tmp/h.toml; hookd service install --no-start",
    ],
)
def test_hookds_service_installed_from_another_config_is_denied(world: tuple[Path, Path], command: str) -> None:
    home, project = world
    assert shell_outcome(home, project, command) == "deny"


def test_hookds_service_status_is_allowed(world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, "hookd service status --json") == "allow"


# --- a path built when the call runs, read as the pattern of the paths it can be ---


def test_a_path_built_at_run_time_hits_the_places_its_pattern_matches(world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, 'ln -sfn "$PWD/.rt" "/tmp/hookd-$(id -u)"') == "deny"
    assert shell_outcome(home, project, 'ln -sfn "$PWD/.rt" "/tmp/build-$(id -u)"') == "allow"


# --- every unit directory a user manager merges drop-ins from ---


def test_every_user_unit_directory_is_protected(world: tuple[Path, Path]) -> None:
    home, project = world
    listed = protected(Config(), home, project)
    for below in (".config/systemd/user", ".config/systemd/user.control", ".local/share/systemd/user"):
        assert str(home / below) in listed
    memory = {"file_path": str(home / ".config/systemd/user.control/hookd.service.d/50-MemoryMax.conf"),
              "content": "[Service]\nMemoryMax=6M\n"}  # fmt: skip
    assert tool_outcome(home, project, "write_file", memory) == "deny"


# --- trust files and keys that load code beside hookd's ---


def test_geminis_trusted_folders_file_is_protected(world: tuple[Path, Path]) -> None:
    home, project = world
    untrust = {"file_path": str(home / ".gemini/trustedFolders.json"), "content": f'{{"{project}": "DO_NOT_TRUST"}}\n'}
    assert tool_outcome(home, project, "write_file", untrust) == "deny"


def test_opencodes_plugins_list_is_judged_by_its_key(world: tuple[Path, Path]) -> None:
    home, project = world
    config = str(home / ".config/opencode/opencode.jsonc")
    off = {"file_path": config, "content": '{"plugins": ["*", "-hookd"]}\n'}
    assert tool_outcome(home, project, "write_file", off) == "deny"
    theme = {"file_path": config, "content": '{"theme": "tokyonight"}\n'}
    assert tool_outcome(home, project, "write_file", theme) == "allow"


def test_a_local_mcp_server_in_codexs_config_is_judged_and_a_remote_one_passes(world: tuple[Path, Path]) -> None:
    home, project = world
    config = str(project / ".codex/config.toml")
    local = {"file_path": config, "content": '[mcp_servers.x]\ncommand = "sh"\n'}
    assert tool_outcome(home, project, "write_file", local) == "deny"
    remote = {"file_path": config, "content": '[mcp_servers.docs]\nurl = "https://mcp.example.com/mcp"\n'}
    assert tool_outcome(home, project, "write_file", remote) == "allow"


# --- a Codex patch judged by the text its hunks leave; Copilot's edit by its old and new strings ---

CODEX_CONFIG = (
    'model = "gpt-5"\nmodel_reasoning_effort = "medium"\n\n[features]\nhooks = true\n\n'
    '[hooks.state."/h/.codex/hooks.json:PreToolUse:0:0"]\ntrusted_hash = "sha256:5f2b"\n'
)


def _patch(home: Path, old: str, new: str) -> dict[str, Any]:
    hunk = f"@@\n-{old}\n+{new}\n"
    return {"command": f"*** Begin Patch\n*** Update File: {home}/.codex/config.toml\n{hunk}*** End Patch"}


def test_a_codex_patch_of_its_config_is_judged_by_the_keys_it_leaves(world: tuple[Path, Path]) -> None:
    home, project = world
    (home / ".codex").mkdir()
    (home / ".codex/config.toml").write_text(CODEX_CONFIG)
    effort = _patch(home, 'model_reasoning_effort = "medium"', 'model_reasoning_effort = "high"')
    assert agent_outcome("codex", home, project, "apply_patch", effort) == "allow"
    off = _patch(home, "hooks = true", "hooks = false")
    assert agent_outcome("codex", home, project, "apply_patch", off) == "deny"
    untrusted = _patch(home, 'trusted_hash = "sha256:5f2b"', 'trusted_hash = "sha256:0000"')
    assert agent_outcome("codex", home, project, "apply_patch", untrusted) == "deny"


def test_a_codex_patch_adding_an_envrc_that_only_sets_variables_is_allowed(world: tuple[Path, Path]) -> None:
    home, project = world
    patch = '*** Begin Patch\n*** Add File: .envrc\n+export DATABASE_URL="postgres://localhost/app"\n*** End Patch'
    assert agent_outcome("codex", home, project, "apply_patch", {"command": patch}) == "allow"
    moved = patch.replace('DATABASE_URL="postgres://localhost/app"', 'CODEX_HOME="$PWD/.codex-lite"')
    assert agent_outcome("codex", home, project, "apply_patch", {"command": moved}) == "deny"


def test_a_copilot_edit_of_its_settings_is_judged_by_its_switch(world: tuple[Path, Path]) -> None:
    home, project = world
    (home / ".copilot").mkdir()
    (home / ".copilot/settings.json").write_text('{\n  "theme": "dark"\n}\n')
    theme = {"path": str(home / ".copilot/settings.json"), "old_str": '"theme": "dark"', "new_str": '"theme": "light"'}
    assert agent_outcome("copilot", home, project, "edit", theme) == "allow"
    off = {**theme, "new_str": '"theme": "dark",\n  "disableAllHooks": true'}
    assert agent_outcome("copilot", home, project, "edit", off) == "deny"


# --- a unit of the developer's own in a user unit directory: judged by what it names and what its commands do ---

_UNITS = ".config/systemd/user"


@pytest.mark.parametrize(
    ("name", "text", "outcome"),
    [
        (
            "myapp-dev.service",
            "[Service]\nExecStart=%h/src/myapp/.venv/bin/uvicorn app.main:app --port 8000\n",
            "allow",
        ),
        ("clean.timer", "[Timer]\nOnCalendar=daily\n", "allow"),
        ("evil.service", "[Service]\nExecStart=/bin/sh -c 'rm -rf %h'\n", "deny"),  # its command, when it starts
        ("cached.service", "[Service]\nExecStart=/bin/sh %h/.cache/run.sh\n", "deny"),  # code left in scratch space
        ("notes.service", "[Service]\nExecStart=/bin/sh -c 'echo x > %h/.claude/settings.json'\n", "deny"),
        ("stopper.service", "[Unit]\nConflicts=hookd.service\n[Service]\nExecStart=/bin/true\n", "deny"),  # names hookd
        ("hookd.service", "[Service]\nExecStart=/bin/true\n", "deny"),  # hookd's own unit
        ("hookd.service.d/x.conf", "[Service]\nExecStart=\nExecStart=/bin/true\n", "deny"),  # its drop-in
        ("service.d/x.conf", "[Service]\nEnvironment=LD_PRELOAD=/tmp/x.so\n", "deny"),  # every service's drop-in
        ("hookd-.socket.d/x.conf", "[Socket]\nListenStream=\n", "deny"),  # a prefix drop-in
    ],
)
def test_a_user_unit_is_judged_by_what_it_names_and_runs(
    world: tuple[Path, Path], name: str, text: str, outcome: str
) -> None:
    home, project = world
    written = {"file_path": str(home / _UNITS / name), "content": text}
    assert tool_outcome(home, project, "write_file", written) == outcome


def test_a_shell_copy_of_a_unit_is_still_denied(world: tuple[Path, Path]) -> None:
    """A shell write's text is not seen whole: the unit directory stays guarded (blind-tamper-7's gap 98)."""
    home, project = world
    assert shell_outcome(home, project, f"cp deploy/app.service ~/{_UNITS}/") == "deny"
