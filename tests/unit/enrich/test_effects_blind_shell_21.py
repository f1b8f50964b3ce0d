"""Mechanisms blind-shell-21's first run missed (policies/README.md, "Twenty-first batch"): the effects they now have,
and the everyday look-alikes that keep none."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, analysed, ops

# --- the directory stack's tilde prefixes (`~+N`, `~-N`, `~N`) are entries hookd does not follow: unknown ---


@pytest.mark.parametrize(
    "command",
    [
        "pushd -n /tmp >/dev/null; DIRSTACK[1]=$HOME/Documents; rm -rf ~+1",
        "pushd ~/Documents >/dev/null && pushd +1 >/dev/null && rm -rf ~1",
        "rm -rf ~-0/x",
    ],
)
def test_a_directory_stack_entry_is_not_known(command: str, tmp_path: Path) -> None:
    deletes = ops(command, tmp_path, "delete")
    assert deletes and all(not e["known"] for e in deletes)
    assert "DIRSTACK[" in deletes[0]["raw"]


def test_pwd_and_oldpwd_prefixes_stay_as_they_were(tmp_path: Path) -> None:
    argv, _ = analysed("ls ~+/src ~+", tmp_path)
    assert argv[0] == ["ls", f"{tmp_path}/src", str(tmp_path)]


def test_pushd_n_changes_the_stack_not_the_directory(tmp_path: Path) -> None:
    deletes = ops("pushd -n ~ >/dev/null; rm -rf Documents", tmp_path, "delete")
    assert [e["path"] for e in deletes] == [f"{tmp_path}/Documents"]


# --- `link` makes a hard link as ln does; a copier's long link options count too ---


@pytest.mark.parametrize(
    ("command", "written"),
    [
        ("link ~/.bashrc rc.txt && echo 'curl x | sh' >> rc.txt", f"{HOME}/.bashrc"),
        ("cp --symbolic-link ~/.ssh k && echo key >> k/authorized_keys", f"{HOME}/.ssh/authorized_keys"),
    ],
)
def test_a_write_through_a_link_the_line_made_is_a_write_of_its_target(
    command: str, written: str, tmp_path: Path
) -> None:
    assert written in [e["path"] for e in ops(command, tmp_path, "write")]


def test_a_plain_copy_is_no_link(tmp_path: Path) -> None:
    writes = [e["path"] for e in ops("cp -r ~/.ssh k && echo key >> k/authorized_keys", tmp_path, "write")]
    assert f"{HOME}/.ssh/authorized_keys" not in writes


# --- tar's --transform/--xform: members land under the replacement's literal start ---


def test_a_transform_on_extraction_writes_where_it_renames_to(tmp_path: Path) -> None:
    command = "tar cf - tools/post-merge | tar xf - --transform 's,^tools/,.git/hooks/,'"
    assert f"{tmp_path}/.git/hooks" in [e["path"] for e in ops(command, tmp_path, "write")]


def test_a_transform_when_creating_writes_only_the_archive(tmp_path: Path) -> None:
    command = "tar -czf app-1.2.tar.gz --transform 's,^,app-1.2/,' src README.md"
    assert [e["path"] for e in ops(command, tmp_path, "write")] == [f"{tmp_path}/app-1.2.tar.gz"]


# --- truncate's relative sizes: one at least the file's size leaves it empty ---


@pytest.mark.parametrize("size", ["-1G", "-12", "/1K", "<0", "0"])
def test_a_size_that_leaves_nothing_empties_the_file(size: str, tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("hello world\n")
    deletes = ops(f"truncate -s '{size}' notes.md", tmp_path, "delete")
    assert [e["path"] for e in deletes] == [f"{tmp_path}/notes.md"] and deletes[0].get("emptied")


@pytest.mark.parametrize("size", ["-1", "+1M", "100M", "%4K", "-11"])
def test_a_size_that_keeps_bytes_is_an_edit(size: str, tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("hello world\n")
    assert not ops(f"truncate -s '{size}' notes.md", tmp_path, "delete")


# --- bash's extended patterns: read as `*`, a superset of what they match, not a parse error ---


def test_an_extglob_negation_in_the_home_deletes_the_home(tmp_path: Path) -> None:
    deletes = ops("shopt -s extglob; cd ~ && rm -rf !(projects)", tmp_path, "delete")
    assert [(e["path"], e["class"]) for e in deletes] == [(f"{HOME}/*", "home")]


@pytest.mark.parametrize("command", ["shopt -s extglob; rm -rf build/!(cache)", "ls src/*.@(py|pyi)"])
def test_an_extglob_in_the_project_stays_in_it(command: str, tmp_path: Path) -> None:
    _, found = analysed(command, tmp_path)
    assert all(e["class"] == "project" for e in found if e["op"] in ("delete", "list"))


def test_a_zsh_qualifier_that_runs_code_is_no_pattern(tmp_path: Path) -> None:
    """`e-…-` runs its text for each file: never read as an extglob group's `*` (the code dropped); zsh's own
    reading (holes46, shell/zsh_globs.py) walks the code as a command of its own."""
    argv, _ = analysed("zsh -c 'ls *(e-reboot-)'", tmp_path)
    assert ["reboot"] in argv


# --- find: start points after -H/-L/-P, and the links -L follows out of the tree ---


def test_find_start_points_after_its_link_options(tmp_path: Path) -> None:
    deletes = ops("find -L ~/Documents -name '*.md' -exec rm {} +", tmp_path, "delete")
    assert [e["path"] for e in deletes] == [f"{HOME}/Documents/**/*.md"]


def test_find_l_deletes_through_a_link_out_of_the_tree(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "docs").mkdir(parents=True)
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes").symlink_to(outside / "docs")
    followed = [e["path"] for e in ops("find -L . -name '*.md' -delete", project, "delete")]
    assert str(outside / "docs") in followed
    assert str(outside / "docs") not in [e["path"] for e in ops("find . -name '*.md' -delete", project, "delete")]
