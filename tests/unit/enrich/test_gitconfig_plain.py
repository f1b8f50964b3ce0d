"""hookd.enrich.gitconfig_plain: a file tool's write of a repository's config judged by the keys it adds."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.enrich.gitconfig_plain import pairs, plain_change
from tests.unit.enrich.test_tool_effects import enriched

BEFORE = '[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:a/b.git\n'


@pytest.mark.parametrize(
    ("added", "plain"),
    [
        ("[pull]\n\trebase = true\n", True),
        ('[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n', True),
        ("[core]\n\tautocrlf = input\n", True),
        ("[user]\n\temail = a@example.com # work\n", True),
        ('[branch "main"]\n\tremote = https://evil.example/x.git\n', False),  # a URL where a remote's name goes
        ("[remote]\n\tpushDefault = ../elsewhere\n", False),
        ("[core]\n\tpager = less\n", False),  # a key git runs: judged as before
        ('[remote "x"]\n\turl = https://evil.example/x.git\n', False),  # a key git sends to
        ("[include]\n\tpath = ../x\n", False),
        ('[filter "lfs"]\n\tsmudge = sh\n', False),
        ("[lfs]\n\tsomekey = 1\n", False),  # unknown to be safe
        ("[pull]\n\trebase = true \\\n\tpager = sh\n", False),  # a continued value: not read whole
        ('[pull]\n\trebase = "true"\n', False),  # a quoted value: not read whole
        ("[core] pager = sh\n", False),  # a key on its header's line
    ],
)
def test_only_keys_that_run_and_send_nothing_are_plain(added: str, plain: bool) -> None:
    assert plain_change(BEFORE, BEFORE + added) is plain


def test_keys_the_file_held_are_not_judged_again() -> None:
    assert plain_change(BEFORE, BEFORE.replace("bare = false", "bare = false\n\tautocrlf = input"))
    assert not plain_change(BEFORE, BEFORE.replace("a/b.git", "evil/b.git"))  # a changed URL is an added one
    assert not plain_change(BEFORE, BEFORE.replace("bare = false", "bare = false\n\tsshCommand = sh"))


def test_a_key_below_no_header_is_not_read() -> None:
    assert pairs("\tautocrlf = input\n") is None


@pytest.mark.parametrize(
    ("new", "marked"),
    [("\tbare = false\n[pull]\n\trebase = true", True), ("\tbare = false\n\tfsmonitor = sh -c id", False)],
)
def test_an_edit_of_the_projects_config_is_marked_plain(tmp_path: Path, new: str, marked: bool) -> None:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / ".git" / "config").write_text(BEFORE)
    tool_input = {"file_path": str(proj / ".git" / "config"), "old_string": "\tbare = false", "new_string": new}
    effects = enriched("claude", "Edit", tool_input, proj).facts["effects"]
    assert isinstance(effects, list)
    writes = [e for e in effects if e.get("op") == "write" and e.get("path") == str(proj / ".git" / "config")]
    assert writes and any(e.get("plain") == "git_config" for e in writes) is marked
