"""The files a patch writes, deletes and moves: Codex's `apply_patch` format (its tool, and the `apply_patch`
command in a shell) and unified diffs (`git apply`, `patch`). Read in one pass over the text's lines, so linear
in its size; no I/O here but `patch_file_text`, which reads a patch file a command names (bounded).

Codex's format (codex-rs/apply-patch, the grammar its tool description gives): `*** Add File: P`, `*** Delete
File: P`, `*** Update File: P` optionally followed by `*** Move to: Q`; every other line of the patch starts
with `+`, `-`, ` `, `@@` or is `*** Begin Patch`/`*** End Patch`/`*** End of File`, so a header line is
never content. A unified diff names its files in `--- OLD` / `+++ NEW` pairs (`/dev/null` on one side for a
created or deleted file) and, from git, in `diff --git a/X b/Y`, `rename from/to`, `copy from/to` and
`deleted file mode`. Hunks are not counted: a removed line that reads `-- x` followed by an added `++ y` is
taken as a header too, which can only add a path, never hide one.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

CODEX_MARK = "*** Begin Patch"
MAX_PATCH_FILE = 1 << 20  # bytes of a patch file a command names that are read; past it: not known
MAX_PATCH_READS = 2 << 20  # bytes of patch files read for one shell command line, all its patches together


class PatchReads:
    """The bytes of patch files one command line may still have read."""

    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = MAX_PATCH_READS


_DEV_NULL = "/dev/null"


@dataclass(frozen=True, slots=True)
class PatchedFile:
    """One file a patch touches: `op` is "write" (created or changed), "delete", "move" (`path` to `to`)
    or "copy" (`path` to `to`, `to` written). `added`: the lines the patch adds to a written file (an added file's
    whole text, an update's `+` lines), the text it leaves there as an edit's new string is."""

    op: str
    path: str
    to: str = ""
    added: str = field(default="", compare=False)


_CODEX_MARKERS = (("*** Add File:", "add"), ("*** Update File:", "update"), ("*** Delete File:", "delete"))
_MOVE_TO = "*** Move to:"


def codex_sections(text: str) -> list[tuple[str, str, list[str]]]:
    """Each file of a patch in Codex's apply_patch format: `add`, `update` or `delete`, its name, and the lines
    after its marker (a `*** Move to:`, its hunks). The one reading of the format: which files a patch touches
    (`codex_patch_files`) and what it leaves in them (hookd.enrich.edit_texts) agree on where each file starts."""
    sections: list[tuple[str, str, list[str]]] = []
    for raw in text.splitlines():
        line = raw.strip()
        marker = next(((m, op) for m, op in _CODEX_MARKERS if line.startswith(m)), None)
        if marker is not None:
            sections.append((marker[1], line[len(marker[0]) :].strip(), []))
        elif sections and not line.startswith(("*** End Patch", CODEX_MARK)):
            sections[-1][2].append(raw)
    return sections


def codex_patch_files(text: str) -> list[PatchedFile]:
    """The files of a patch in Codex's apply_patch format."""
    out: list[PatchedFile] = []
    for op, name, lines in codex_sections(text):
        moved = next((s[len(_MOVE_TO) :].strip() for s in map(str.strip, lines) if s.startswith(_MOVE_TO)), None)
        if op != "delete" and moved is not None:
            out.append(PatchedFile("move", name, moved))
        elif op == "delete":
            out.append(PatchedFile("delete", name))
        else:
            out.append(PatchedFile("write", name, added="".join(line[1:] + "\n" for line in lines if line[:1] == "+")))
    return [f for f in out if f.path]


def _unquote(name: str) -> str:
    """A git path as written: C-quoted (`"a/x\\ty"`) when it holds odd characters; a tab ends the name
    (a timestamp may follow it in a diff header)."""
    name = name.split("\t", 1)[0].strip()
    if len(name) >= 2 and name[0] == name[-1] == '"':
        try:
            return name[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
        except (UnicodeDecodeError, UnicodeEncodeError):
            return name[1:-1]
    return name


def _strip(name: str, levels: Sequence[int]) -> list[str]:
    """`name` with each number of leading directories stripped (`-pN`); none when it is /dev/null."""
    if name == _DEV_NULL or not name:
        return []
    out: list[str] = []
    for level in levels:
        parts = name.split("/")
        if level >= len(parts):
            continue
        out.append("/".join(parts[level:]) if level else name)
    return list(dict.fromkeys(out))


def _git_header(rest: str) -> tuple[str, str]:
    """`a/X b/Y` of `diff --git a/X b/Y` (unquoted names hold no ` b/`; quoted ones are split on the quote)."""
    if rest.startswith('"'):
        end = rest.find('" ', 1)
        return (_unquote(rest[: end + 1]), _unquote(rest[end + 2 :])) if end > 0 else (_unquote(rest), "")
    cut = rest.find(" b/")
    return (rest[:cut], rest[cut + 1 :]) if cut > 0 else (rest, "")


def diff_files(text: str, levels: Sequence[int]) -> list[PatchedFile]:
    """The files of a unified (or git) diff, each name stripped by each of `levels` (`-pN`; an unknown
    strip level is given as several, and every result counts), each written one with the lines its hunks add."""
    out: list[PatchedFile] = []
    for lines in _file_sections(text):
        added = "".join(line[1:] + "\n" for line in lines if line.startswith("+") and not line.startswith("+++ "))
        out += [replace(f, added=added) if f.op == "write" and added else f for f in _diff_headers(lines, levels)]
    return out


def _file_sections(text: str) -> list[list[str]]:
    """A diff's lines cut where a file's headers start after another file's hunks."""
    sections: list[list[str]] = [[]]
    hunks = False
    for line in text.splitlines():
        if hunks and line.startswith(("--- ", "diff --git ")):
            sections.append([])
            hunks = False
        hunks = hunks or line.startswith("@@")
        sections[-1].append(line)
    return sections


def _diff_headers(lines: list[str], levels: Sequence[int]) -> list[PatchedFile]:
    out: list[PatchedFile] = []
    old: str | None = None
    renamed: str | None = None
    for line in lines:
        if line.startswith("--- "):
            old = _unquote(line[4:])
        elif line.startswith("+++ ") and old is not None:
            new = _unquote(line[4:])
            if new == _DEV_NULL:
                out.extend(PatchedFile("delete", p) for p in _strip(old, levels))
            else:
                out.extend(PatchedFile("write", p) for p in _strip(new, levels))
                if old not in (new, _DEV_NULL):  # patch writes whichever of the two names exists
                    out.extend(PatchedFile("write", p) for p in _strip(old, levels))
            old = None
        elif line.startswith("diff --git "):
            a, b = _git_header(line[11:])
            out.extend(PatchedFile("write", p) for name in (a, b) for p in _strip(name, levels))
            old = renamed = None
        elif line.startswith(("rename from ", "copy from ")):
            renamed = _unquote(line.split(" ", 2)[2])
        elif line.startswith(("rename to ", "copy to ")) and renamed is not None:
            op = "move" if line.startswith("rename") else "copy"
            target = _unquote(line.split(" ", 2)[2])  # git's extended headers carry no a/ b/ prefix
            out.append(PatchedFile(op, renamed, target))
            renamed = None
        else:
            old = None
    return out


def patch_files(text: str, levels: Sequence[int] = (1,)) -> list[PatchedFile]:
    """The files of a patch in either format (Codex's when it has its `*** Begin Patch` line)."""
    if CODEX_MARK in text:
        return list(dict.fromkeys(codex_patch_files(text)))
    return list(dict.fromkeys(diff_files(text, levels)))


def patch_file_text(path: str, reads: PatchReads | None = None) -> str | None:
    """The text of a patch file a command names (at most MAX_PATCH_FILE bytes), or None when it cannot be
    read whole: its files are then not known. Only a regular file is read: opening a FIFO, a terminal or a
    device could block the deciding process or read without end. `reads` is what the command line has left."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        cap = min(MAX_PATCH_FILE, reads.left if reads is not None else MAX_PATCH_FILE)
        data = b""
        while len(data) <= cap and (chunk := os.read(fd, cap + 1 - len(data))):
            data += chunk
    except OSError:
        return None
    finally:
        os.close(fd)
    if reads is not None:
        reads.left -= len(data)
    if len(data) > cap:
        return None
    return data.decode("utf-8", "replace")


def reversed_files(files: list[PatchedFile]) -> list[PatchedFile]:
    """A patch applied in reverse (`-R`): a created file is deleted, a deleted one created, a move undone."""
    swap = {"write": "write", "delete": "write", "move": "move", "copy": "delete"}
    out = []
    for f in files:
        if f.op == "move":
            out.append(PatchedFile("move", f.to, f.path))
        elif f.op == "copy":
            out.append(PatchedFile("delete", f.to))
        else:
            out.append(PatchedFile(swap[f.op], f.path))
    return out


def joined(directory: str, name: str) -> str:
    """`name` under `directory` (a patch's `-d`/`--directory`), as given when absolute."""
    if not directory or name.startswith("/"):
        return name
    return os.path.join(directory, name)


# --------------------------------------------------------------------------------------------------
# Patches applied by shell commands


@dataclass(frozen=True, slots=True)
class ShellPatch:
    """What one command applies: the files (names as the patch gives them, under `directory`), or
    `known` False when the patch text cannot be had (a patch file that cannot be read, stdin from a
    program)."""

    files: list[PatchedFile]
    known: bool = True


_PATCH_VALUE_SHORT = frozenset("pdiorBDFgVYzx")  # GNU patch's short options that take a value (-p1, -d dir)
_GIT_APPLY_VALUE = ("--directory", "--exclude", "--include", "--whitespace", "-C", "--build-fake-ancestor")
_GIT_APPLY_DRY = frozenset(("--check", "--stat", "--numstat", "--summary"))


def _level(text: str) -> int | None:
    return int(text) if text.isdigit() and len(text) < 4 else None


def _git_apply(argv: list[str], start: int, stdin: str | None, cwd: str, reads: PatchReads | None) -> ShellPatch:
    levels: list[int] = [1]
    directory, reverse, dry, applies = "", False, False, False
    files: list[str] = []
    i = start
    while i < len(argv):
        word = argv[i]
        if word.startswith("-p") and _level(word[2:]) is not None:
            levels = [_level(word[2:]) or 0]
        elif word.startswith("--directory="):
            directory = word.split("=", 1)[1]
        elif word in _GIT_APPLY_VALUE and i + 1 < len(argv):
            directory = argv[i + 1] if word == "--directory" else directory
            i += 1
        elif word in ("-R", "--reverse"):
            reverse = True
        elif word in _GIT_APPLY_DRY:
            dry = True
        elif word in ("--apply", "--index", "--cached", "-3", "--3way"):
            applies = True
        elif word == "--":
            files.extend(argv[i + 1 :])
            break
        elif not word.startswith("-") or word == "-":
            files.append(word)
        i += 1
    if dry and not applies:
        return ShellPatch([])
    chdir = ""  # `git -C DIR apply`: the patch's names are under DIR
    for j in range(1, start - 1):
        if argv[j] == "-C":
            chdir = joined(chdir, argv[j + 1])
    return _collect(
        files, stdin, joined(cwd, chdir), levels, joined(chdir, directory) if chdir else directory, reverse, reads
    )


_PATCH_LONG = {"--strip": "p", "--directory": "d", "--input": "i", "--output": "o"}


def _patch_words(argv: list[str]) -> tuple[dict[str, str], set[str], list[str]]:
    """patch's argv as (the values of -p, -d, -i, -o by letter; the other options; the operands)."""
    values: dict[str, str] = {}
    flags: set[str] = set()
    operands: list[str] = []
    i = 1
    while i < len(argv):
        word = argv[i]
        i += 1
        if word.startswith("--"):
            key, eq, value = word.partition("=")
            if key in _PATCH_LONG:
                if not eq and i < len(argv):
                    value, i = argv[i], i + 1
                values[_PATCH_LONG[key]] = value
            else:
                flags.add(key)
        elif word.startswith("-") and len(word) > 1:
            if word[1] in _PATCH_VALUE_SHORT:
                value = word[2:]
                if not value and i < len(argv):
                    value, i = argv[i], i + 1
                values[word[1]] = value
            else:
                flags.update("-" + letter for letter in word[1:])
        else:
            operands.append(word)
    return values, flags, operands


def _patch(argv: list[str], stdin: str | None, cwd: str, reads: PatchReads | None) -> ShellPatch:
    """GNU/BSD patch: `[options] [ORIGFILE [PATCHFILE]]`; without -p both the names as written and with one
    directory stripped count (GNU patch takes git's a/ b/ itself)."""
    values, flags, operands = _patch_words(argv)
    if "--dry-run" in flags:
        return ShellPatch([])
    level = _level(values.get("p", ""))
    levels = [level] if level is not None else [0, 1]
    directory = values.get("d", "")
    source = values.get("i", "") or (operands[1] if len(operands) > 1 else "")
    reverse = "-R" in flags or "--reverse" in flags
    found = _collect([source] if source else [], stdin, cwd, levels, directory, reverse, reads)
    named = [f for f in (values.get("o", ""), operands[0] if operands else "") if f and f != "-"]
    if named:  # ORIGFILE or -o FILE is what gets written, whatever the patch names
        return ShellPatch([PatchedFile("write", joined(directory, name)) for name in named], found.known)
    return found


def _collect(
    sources: list[str],
    stdin: str | None,
    cwd: str,
    levels: list[int],
    directory: str,
    reverse: bool,
    reads: PatchReads | None,
) -> ShellPatch:
    texts: list[str] = []
    known = True
    for source in sources or ["-"]:
        text = stdin if source == "-" else patch_file_text(joined(cwd, source), reads)
        if text is None:
            known = False
        else:
            texts.append(text)
    files = list(dict.fromkeys(f for text in texts for f in patch_files(text, levels)))
    if reverse:
        files = reversed_files(files)
    placed = [
        PatchedFile(f.op, joined(directory, f.path), joined(directory, f.to) if f.to else "", f.added) for f in files
    ]
    return ShellPatch(placed, known)


PATCH_PROGRAMS = frozenset(("apply_patch", "applypatch", "git", "patch", "gpatch"))  # what shell_patch looks at
_GIT_GLOBAL_VALUE = frozenset(("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env"))


def _git_subcommand(argv: list[str]) -> int | None:
    i = 1
    while i < len(argv):
        if argv[i] in _GIT_GLOBAL_VALUE:
            i += 2
        elif argv[i].startswith("-"):
            i += 1
        else:
            return i
    return None


def shell_patch(
    name: str, argv: list[str], stdin: str | None, cwd: str, reads: PatchReads | None = None
) -> ShellPatch | None:
    """What the command `argv` (program `name`) applies, run in `cwd` with `stdin` (a here-document, a
    here-string or what the pipeline prints; None when not known); None when it applies no patch."""
    git_sub = _git_subcommand(argv) if name == "git" else None
    if name in ("apply_patch", "applypatch"):
        inline = next((w for w in argv[1:] if CODEX_MARK in w), None)
        text = inline if inline is not None else stdin
        return ShellPatch(codex_patch_files(text), True) if text is not None else ShellPatch([], False)
    if name == "git" and git_sub is not None and argv[git_sub] in ("apply", "am"):
        return _git_apply(argv, git_sub + 1, stdin, cwd, reads)
    if name in ("patch", "gpatch"):
        return _patch(argv, stdin, cwd, reads)
    return None


def as_commands(patch: ShellPatch) -> list[tuple[list[str], str | None]]:
    """The patch as the commands that do the same (`tee` writes, `rm` deletes, `mv` moves, `cp` copies), each with
    the text it reads (a `tee`'s: the lines the patch adds to its file, None when it adds none), for the rules that
    judge commands and what their writes leave; an unknown patch writes a place only known when it runs."""
    out: list[tuple[list[str], str | None]] = []
    for f in patch.files:
        path, to = _operand(f.path), _operand(f.to)
        if f.op == "write":
            out.append((["tee", path], f.added or None))
        elif f.op == "delete":
            out.append((["rm", path], None))
        else:
            out.append((["mv" if f.op == "move" else "cp", path, to], None))
    if not patch.known:
        # marked {"patch": {"known": false}} by the builder: the files are only known when it runs
        out.append((["tee", "$PATCHED_FILES"], None))
    return out


def redirected_text(redirects: list[dict[str, object]], reads: PatchReads | None = None) -> str | None:
    """The text a command reads on stdin from a file (`< x.patch`), when it can be read whole."""
    for redirect in reversed(redirects):
        path = redirect.get("path")
        if redirect.get("op") == "<" and isinstance(path, str):
            return patch_file_text(path, reads)
    return None


def _operand(path: str) -> str:
    return "./" + path if path.startswith("-") else path
