"""Code a program reads from a file (part of the effect model: model.py calls it after a program's hooks): a
database client or interpreter fed a file on its standard input (`psql shop < drop.sql`, `sqlite3 app.db < x.sql`:
programs.json `stdin_lang`, or a code operand read from stdin), or named by its code-file option in that same
language (`psql -f drop.sql`: `code_file_options`). The file's text is the code it runs, judged as the same code
handed on the line (`psql -c …`): what the line wrote there, else what the file holds now (a file the line
downloaded or decoded, or wrote with text it does not show, is code hookd cannot see, as is one it cannot read:
both asked). A file `cat` hands a pipe is that text on the next command's stdin (`files_printed`)."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hookd.enrich.effects.catalogue import Hook, Program
from hookd.enrich.effects.ledger import CommandView, Followups, Ledger, Place
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.stdin_files import fed_file
from hookd.enrich.effects.words import STDIN_FILES, _code_by_option

if TYPE_CHECKING:
    from hookd.enrich.effects.code import CodeRuns

MAX_CODE_FILE = 256 * 1024  # bytes of a code file read at decision time; a longer one is code not known


def code_from_files(
    code: CodeRuns, program: Program, parsed: Parsed, view: CommandView, given: tuple[Place, Followups]
) -> None:
    """What `program` runs from the files it reads code from, as code handed to it: its stdin's file, its code
    files (a code file the line made is judged where the line's flows are: loaded.py)."""
    place, follow = given
    lang = _stdin_language(program, parsed)
    fed = fed_file(view)
    if lang and fed:
        _judged(code, program.name, lang, fed, follow)
    # a code file in the language the program reads on stdin (`psql -f F`: as `psql < F`); another program's code
    # file the line did not make (`cmake -P F`, `awk -f F`) is the project's own code, not read here
    same = bool(program.code_file_lang) and program.code_file_lang == program.stdin_lang
    for value in program.code_files(parsed.options) if same else ():
        path = str(place(value).get("path") or "")
        if value not in STDIN_FILES and path and path not in code.ledger.produced:
            _judged(code, program.name, program.code_file_lang, path, follow)
    for entry in program.reads_code:
        _documents(code, program, parsed, (entry, view.env), given)


def _documents(
    code: CodeRuns,
    program: Program,
    parsed: Parsed,
    entry: tuple[Mapping[str, Any], Mapping[str, str]],
    given: tuple[Place, Followups],
) -> None:
    """The files `program` reads as instructions in the language of a `reads_code` entry (an XSLT stylesheet's
    `exsl:document`, a roff `.so`, an ffmpeg concat list's `file` lines, the files bc's BC_ENV_ARGS names): each
    judged as that code handed on the line, from what the line wrote there or the disk's text; one the line made
    unseen, or one on disk it cannot read, is code not known. A word that is the text itself (`inline`: TeX's
    first line `\\documentclass…`) is that code. `entry` comes with the command's environment."""
    (spec, env), (place, follow) = entry, given
    if spec.get("when") and not any(o in spec["when"] for o, _ in parsed.options):
        return
    if any(not any((o, v) in parsed.options for v in values) for o, values in spec.get("when_values", {}).items()):
        return
    named = [w for w in env.get(str(spec.get("env", "")), "").split() if not w.startswith("-")]
    words = [v for o, v in parsed.options if o == spec.get("option") and v]
    words += parsed.operands[:1] if spec.get("first") else parsed.operands if spec.get("operands") else []
    prefix, inline = str(spec.get("prefix", "")), re.compile(str(spec.get("inline", "(?!)")))
    hook = Hook("option", code=True, lang=str(spec["lang"]))
    for word in [*named, *(w for w in words if w.startswith(prefix))][:_MAX_DOCUMENTS]:
        if inline.match(word):
            code.handed_code(program.name, word, hook, follow)
            continue
        placed = place(word.removeprefix(prefix))
        path = str(placed.get("path") or "")
        if not path or word in STDIN_FILES:
            continue
        if word in named:  # (an operand's or option's read is its own effect already)
            code.ledger.add("read", placed, program.name)
        text, made = file_text(path, code.ledger)
        if text is not None:
            code.handed_code(program.name, text, hook, follow)
        elif made != "unread" or os.path.lexists(path):  # (one that is not there is not read)
            flow: dict[str, Any] = {"flow": made} if made in ("fetch", "decode") else {}
            code.ledger.add("exec", placed, program.name, code={"lang": hook.lang, "text": ""}, known=False, **flow)


_MAX_DOCUMENTS = 8  # files of one command read as instructions (each up to MAX_CODE_FILE)


def _stdin_language(program: Program, parsed: Parsed) -> str:
    """The language of the code `program` reads on its standard input here: its `stdin_lang`, or the language of a
    code operand the line leaves to stdin (`sqlite3 DB`); none when the line hands it its code."""
    if _code_by_option(program, parsed) or program.code_files(parsed.options):
        return ""
    operands = parsed.operands
    hooks = [h for h in program.runs if h.kind == "operand"]
    if any(h.index < len(operands) for h in hooks):
        return ""
    return program.stdin_lang or next((h.lang for h in hooks if h.lang and 0 < h.index == len(operands)), "")


def _judged(code: CodeRuns, name: str, lang: str, path: str, follow: Followups) -> None:
    text, made = file_text(path, code.ledger)
    if text is None:
        extra: dict[str, Any] = {"flow": made, "through": "file"} if made in ("fetch", "decode", "write") else {}
        code.ledger.add("exec", None, name, code={"lang": lang, "text": ""}, known=False, **extra)
        return
    code.handed_code(name, text, Hook("option", code=True, lang=lang), follow)


def file_text(path: str, ledger: Ledger) -> tuple[str | None, str]:
    """The text of the file at `path` as a command run now would read it: what the line wrote there, else the
    disk's (None when the line made it without showing its text, with how it made it, or when the disk's file
    cannot be read whole: "unread")."""
    if path in ledger.contents:
        return ledger.contents[path], ""
    if path in ledger.produced:
        return None, ledger.produced[path]
    return _on_disk(path), "unread"


def _on_disk(path: str) -> str | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # never a FIFO or a device
            return None
        data = os.read(fd, MAX_CODE_FILE + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > MAX_CODE_FILE or b"\x00" in data:
        return None
    return data.decode("utf-8", "replace")


def files_printed(argv: list[str], path_of: Callable[[str], str], ledger: Ledger) -> str | None:
    """What `cat FILE…` hands a pipe (`cat drop.sql | psql`): its files' texts joined, as a command run now reads
    them (`file_text`); None for any other command, an option, or a file that cannot be read."""
    operands = [w for w in argv[1:] if w != "--"]
    if not argv or argv[0].rpartition("/")[2] != "cat" or not operands or any(w.startswith("-") for w in operands):
        return None
    texts = [file_text(path_of(word), ledger)[0] for word in operands[:MAX_PRINTED_FILES]]
    return None if len(operands) > MAX_PRINTED_FILES or None in texts else "".join(t or "" for t in texts)


MAX_PRINTED_FILES = 8
