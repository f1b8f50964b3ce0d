"""hookd.enrich.patches: the files a patch writes, deletes and moves, from Codex's apply_patch format and unified
diffs, and what `apply_patch`, `git apply` and `patch` in a shell command apply (as the commands the policies
judge)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.enrich.patches import (
    MAX_PATCH_FILE,
    PatchedFile,
    ShellPatch,
    as_commands,
    codex_patch_files,
    diff_files,
    patch_files,
    shell_patch,
)
from hookd.enrich.shell import parse_shell

W, D = "write", "delete"


def codex(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"])


GIT_DIFF = """diff --git a/.git/config b/.git/config
index 1..2 100644
--- a/.git/config
+++ b/.git/config
@@ -1 +1,2 @@
 [core]
+\tfsmonitor = ./x.sh
diff --git a/old.py b/new.py
similarity index 100%
rename from old.py
rename to new.py
diff --git a/made b/made
new file mode 100644
--- /dev/null
+++ b/made
@@ -0,0 +1 @@
+x
diff --git a/gone b/gone
deleted file mode 100644
--- a/gone
+++ /dev/null
@@ -1 +0,0 @@
-x
"""


def test_codex_format_every_operation_and_move() -> None:
    patch = codex(
        "*** Add File: .git/hooks/pre-commit",
        "+#!/bin/sh",
        "*** Update File: src/a.py",
        "*** Move to: src/b.py",
        "@@ def f():",
        "-    return 1",
        "+    return 2",
        "*** Delete File: /home/alice/.ssh/authorized_keys",
        "*** Update File:   spaced name.txt  ",
        "@@",
        "+x",
    )
    assert codex_patch_files(patch) == [
        PatchedFile(W, ".git/hooks/pre-commit"),
        PatchedFile("move", "src/a.py", "src/b.py"),
        PatchedFile(D, "/home/alice/.ssh/authorized_keys"),
        PatchedFile(W, "spaced name.txt"),
    ]


def test_codex_added_lines_are_never_headers() -> None:
    """An added line starts with `+`: a header spelled inside it names no file. (Headers are read with
    surrounding whitespace trimmed, as Codex's lenient parser does, so a context line that reads as one
    adds a path: that can only ask more, never hide a file.)"""
    patch = codex(
        "*** Add File: notes.md", "+*** Add File: .git/hooks/pre-commit", "-*** Delete File: y", " *** Delete File: x"
    )
    assert [f.path for f in codex_patch_files(patch)] == ["notes.md", "x"]


def test_codex_headers_are_found_with_leading_whitespace_and_in_a_heredoc() -> None:
    text = "apply_patch <<'EOF'\n*** Begin Patch\n   *** Add File: .git/config\n+x\n*** End Patch\nEOF\n"
    assert patch_files(text) == [PatchedFile(W, ".git/config")]


def test_git_diff_names_renames_creations_and_deletions() -> None:
    assert set(diff_files(GIT_DIFF, [1])) == {
        PatchedFile(W, ".git/config"),
        PatchedFile(W, "old.py"),
        PatchedFile(W, "new.py"),
        PatchedFile("move", "old.py", "new.py"),
        PatchedFile(W, "made"),
        PatchedFile(W, "gone"),  # from `diff --git`: either side may be written
        PatchedFile(D, "gone"),
    }
    assert set(patch_files(GIT_DIFF)) >= {PatchedFile(D, "gone"), PatchedFile("move", "old.py", "new.py")}


def test_unified_diff_strip_levels_quoted_names_and_timestamps() -> None:
    diff = (
        '--- "a/dir/we\\tird.txt"\n+++ "b/dir/we\\tird.txt"\n@@\n'
        "--- x/.ssh/config\t2026-01-01 00:00\n+++ x/.ssh/config\t2026-01-01\n"
    )
    assert {f.path for f in diff_files(diff, [1])} == {"dir/we\tird.txt", ".ssh/config"}
    assert {f.path for f in diff_files(diff, [0, 2])} >= {"a/dir/we\tird.txt", "x/.ssh/config", "we\tird.txt"}


def test_an_old_name_differing_from_the_new_is_written_too() -> None:
    """patch writes whichever of the two names exists: both count."""
    assert diff_files("--- a/.env\n+++ b/notes.txt\n", [1]) == [PatchedFile(W, "notes.txt"), PatchedFile(W, ".env")]


def shell(command: str, stdin: str | None = None, cwd: str = "/p") -> list[list[str]]:
    argv = command.split()
    found = shell_patch(argv[0], argv, stdin, cwd)
    assert found is not None
    return [words for words, _text in as_commands(found)]


DIFF = "--- a/.git/hooks/pre-commit\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+x\n"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("patch -p1", [["tee", ".git/hooks/pre-commit"]]),
        ("patch -p 1", [["tee", ".git/hooks/pre-commit"]]),
        ("patch --strip=1", [["tee", ".git/hooks/pre-commit"]]),
        (
            "patch",
            [["tee", "a/.git/hooks/pre-commit"], ["tee", "b/.git/hooks/pre-commit"], ["tee", ".git/hooks/pre-commit"]],
        ),
        ("patch -d sub -p1", [["tee", "sub/.git/hooks/pre-commit"]]),
        ("patch --directory=/srv -p1", [["tee", "/srv/.git/hooks/pre-commit"]]),
        ("patch -p1 target.txt", [["tee", "target.txt"]]),
        ("patch -p1 -o -out.txt", [["tee", "./-out.txt"]]),
        ("patch -p1 --dry-run", []),
        ("git apply", [["tee", ".git/hooks/pre-commit"]]),
        ("git apply -p0", [["tee", "a/.git/hooks/pre-commit"], ["tee", "b/.git/hooks/pre-commit"]]),
        ("git apply --directory=vendor", [["tee", "vendor/.git/hooks/pre-commit"]]),
        ("git -C sub apply", [["tee", "sub/.git/hooks/pre-commit"]]),
        ("git -c x=y apply --index", [["tee", ".git/hooks/pre-commit"]]),
        ("git apply --check", []),
        ("git apply --stat --apply", [["tee", ".git/hooks/pre-commit"]]),
        ("git am", [["tee", ".git/hooks/pre-commit"]]),
    ],
)
def test_shell_patch_commands(command: str, expected: list[list[str]]) -> None:
    assert sorted(shell(command, DIFF)) == sorted(expected)


def test_a_reversed_patch_creates_what_it_deleted() -> None:
    assert shell("patch -R -p1", "--- a/gone\n+++ /dev/null\n") == [["tee", "gone"]]
    assert shell("git apply -R", GIT_DIFF)[-1] == ["tee", "gone"]


def test_codex_apply_patch_command_inline_or_on_stdin() -> None:
    text = codex("*** Add File: a.txt", "+x", "*** Delete File: b.txt")
    assert shell("apply_patch", text) == [["tee", "a.txt"], ["rm", "b.txt"]]
    found = shell_patch("apply_patch", ["apply_patch", text], None, "/p")
    assert found == ShellPatch([PatchedFile(W, "a.txt"), PatchedFile(D, "b.txt")])


def test_patches_whose_text_cannot_be_had_are_unknown(tmp_path: Path) -> None:
    assert shell("git apply", None) == [["tee", "$PATCHED_FILES"]]
    assert shell("patch -p1", None) == [["tee", "$PATCHED_FILES"]]
    assert shell("apply_patch", None) == [["tee", "$PATCHED_FILES"]]
    assert shell(f"git apply {tmp_path}/missing.patch") == [["tee", "$PATCHED_FILES"]]
    huge = tmp_path / "huge.patch"
    huge.write_text("x" * (MAX_PATCH_FILE + 1))
    assert shell("git apply huge.patch", cwd=str(tmp_path)) == [["tee", "$PATCHED_FILES"]]


def test_patch_files_named_by_the_command_are_read(tmp_path: Path) -> None:
    (tmp_path / "fix.patch").write_text(DIFF)
    assert shell("git apply fix.patch", cwd=str(tmp_path)) == [["tee", ".git/hooks/pre-commit"]]
    assert shell("patch -p1 -i fix.patch", cwd=str(tmp_path)) == [["tee", ".git/hooks/pre-commit"]]
    assert shell("patch -p1 x.c fix.patch", cwd=str(tmp_path)) == [["tee", "x.c"]]


def test_other_programs_apply_no_patch() -> None:
    assert shell_patch("git", ["git", "status"], DIFF, "/p") is None
    assert shell_patch("cat", ["cat"], DIFF, "/p") is None


# --------------------------------------------------------------------------------------------------
# In the shell's analysis: the patch's files as the commands that write them


def commands(command: str, proj: Path) -> list[tuple[list[str], list[str], object]]:
    shell_doc = parse_shell(command, home="/home/alice", base_dir=str(proj), project_dir=str(proj))
    return [(c["argv"], c["wrappers"], c.get("patch")) for c in shell_doc["commands"]]


def test_a_heredoc_patch_becomes_writes_the_policies_see(tmp_path: Path) -> None:
    command = "apply_patch <<'EOF'\n" + codex("*** Add File: .git/hooks/pre-commit", "+x") + "\nEOF"
    assert commands(command, tmp_path)[1:] == [(["tee", ".git/hooks/pre-commit"], ["apply_patch"], {"known": True})]


def test_a_patch_read_from_a_redirect_or_a_pipe(tmp_path: Path) -> None:
    (tmp_path / "fix.diff").write_text(DIFF)
    assert commands("patch -p1 < fix.diff", tmp_path)[1:] == [
        (["tee", ".git/hooks/pre-commit"], ["patch"], {"known": True})
    ]
    piped = commands("printf '%s' \"$(cat fix.diff)\" | git apply", tmp_path)
    assert piped[-1] == (["tee", "$PATCHED_FILES"], ["git"], {"known": False})


def test_only_a_regular_patch_file_is_read(tmp_path: Path) -> None:
    """A FIFO would block the deciding process until someone writes to it; a device could read without end."""
    import os

    os.mkfifo(tmp_path / "pipe.patch")
    assert shell("git apply pipe.patch", cwd=str(tmp_path)) == [["tee", "$PATCHED_FILES"]]
    assert shell("patch -p1 -i /dev/zero") == [["tee", "$PATCHED_FILES"]]
    assert commands("patch -p1 < pipe.patch", tmp_path)[-1] == (["tee", "$PATCHED_FILES"], ["patch"], {"known": False})


def test_the_patch_files_of_one_command_line_share_one_read_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("hookd.enrich.patches.MAX_PATCH_READS", len(DIFF) + 10)
    (tmp_path / "fix.patch").write_text(DIFF)
    found = commands("git apply fix.patch; git apply fix.patch", tmp_path)
    assert [c for c in found if c[2] is not None] == [
        (["tee", ".git/hooks/pre-commit"], ["git"], {"known": True}),
        (["tee", "$PATCHED_FILES"], ["git"], {"known": False}),  # the second read is past the line's budget: not known
    ]
