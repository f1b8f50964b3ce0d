"""The whole text a file tool leaves in a file (part of the effect model's tool effects, enrich/tool_effects.py): a
write's content, or an edit's replacements applied to the file's text as it is on disk (read bounded, never from a
FIFO or a device)."""

from __future__ import annotations

import difflib
import os
import stat
from collections.abc import Callable, Mapping
from typing import Any

from hookd.enrich.later_code import MAX_TEXT
from hookd.enrich.patches import codex_sections
from hookd.types import ToolSpec


def texts_after(path: str, tool_input: Mapping[str, Any], spec: ToolSpec, declared: bool) -> list[str] | None:
    """The whole text a file tool leaves in `path` (both, for a replacement that may take one occurrence or
    every one); None when it cannot be known: a patch, an edit of a file that cannot be read or does not hold
    the text it replaces, a tool whose arguments do not show it."""
    if spec.patches:
        return _patched_texts(path, tool_input, spec)
    if spec.content:
        content = tool_input.get(spec.content)
        return [content] if isinstance(content, str) and declared else None
    pairs = replacements(tool_input, spec)
    if not pairs:  # a tool naming no argument hookd reads (Droid's ApplyPatch): a patch in any one
        return _patched_texts(path, tool_input, spec)
    exists, old = read_text(path)
    if not exists:  # the edit fails, finding nothing to replace: should the file appear first, its new lines
        return [after for _, after in pairs]  # are judged alone, each key by its name whatever its section
    if old is None:
        return None
    texts = []
    for count in (1, -1):
        text = old
        for before, after in pairs:
            if not before or before not in text:
                return None
            text = text.replace(before, after, count)
        texts.append(text)
    return texts


def moved_texts(effects: list[dict[str, Any]], written: list[str]) -> list[str]:
    """The texts a call's moves land at their destinations (a patch's `Move to:`, a rename): each source's text
    as it is on disk, which the patch's added lines do not show (a hunk of context lines only moves a script
    onto a hook's path whole)."""
    texts = []
    for effect in effects:
        if effect["op"] == "move" and effect.get("to") in written and isinstance(source := effect["path"], str):
            text = read_text(source)[1]
            if text:
                texts.append(text)
    return texts


def replacements(tool_input: Mapping[str, Any], spec: ToolSpec) -> list[tuple[str, str]]:
    """The (old, new) texts of an edit, in order: the tool's declared pair, or each entry of a list of edits
    (MultiEdit's `edits`, an MCP `edit_file`'s `oldText`/`newText`); [] when some entry shows no pair."""
    if spec.replace:
        before, after = (tool_input.get(arg) for arg in spec.replace_pairs(tool_input)[0])
        return [(before, after)] if isinstance(before, str) and isinstance(after, str) else []
    pairs: list[tuple[str, str]] = []
    for value in tool_input.values():
        for entry in value if isinstance(value, list) else ():
            if not isinstance(entry, Mapping):
                return []
            olds = [v for k, v in entry.items() if "old" in str(k).lower() and isinstance(v, str)]
            news = [v for k, v in entry.items() if "new" in str(k).lower() and isinstance(v, str)]
            if len(olds) != 1 or len(news) != 1:
                return []
            pairs.append((olds[0], news[0]))
    return pairs


def read_text(path: str) -> tuple[bool, str | None]:
    """(is there a file, its text when it can be read whole: None when unreadable, not text, past MAX_TEXT, or
    no regular file: a FIFO or a device is never read, which could block the deciding process)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False, None
    except (OSError, ValueError):
        return True, None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return True, None
        data = b""
        while len(data) <= MAX_TEXT and (chunk := os.read(fd, MAX_TEXT + 1 - len(data))):
            data += chunk
    except OSError:
        return True, None
    finally:
        os.close(fd)
    try:
        return True, data.decode("utf-8") if len(data) <= MAX_TEXT else None
    except UnicodeDecodeError:
        return True, None


def inserted_text(path: str, tool_input: Mapping[str, Any], spec: ToolSpec) -> str | None:
    """The lines an edit only adds to `path`, every line the file had kept whole and in order (an `export` line
    put after `alias ll=…`): what the edit leaves that was not there before. None when the edit changes or removes
    a line, or when the file or the edit's text cannot be known; a write's content is its own text."""
    if spec.patches or spec.content or not (pairs := replacements(tool_input, spec)):
        return None
    exists, old = read_text(path)
    if not exists or old is None:
        return None
    text = old
    for before, after in pairs:
        if not before or text.count(before) != 1:  # the one place the edit lands
            return None
        text = text.replace(before, after, 1)
    return _inserted_lines(old, text)


def changed_lines(written: list[str], tool_input: Mapping[str, Any], spec: ToolSpec, declared: bool) -> list[str]:
    """For a replacement edit, the whole lines it leaves that the file did not hold before, one text for each way it
    may apply (once, or at every occurrence): an old text that starts or ends inside a line (`": "jest` made
    `": "curl … | sh; jest`) is judged as the line it makes, which its new text alone does not show."""
    if spec.patches or spec.content:
        return []
    out: list[str] = []
    for path in written:
        old = read_text(path)[1]
        held = set(old.splitlines()) if old is not None else set()
        for text in (texts_after(path, tool_input, spec, declared) or []) if old is not None else []:
            lines = "\n".join(line for line in text.splitlines() if line not in held)
            out += [lines] if lines and lines not in out else []
    return out


def _inserted_lines(old: str, new: str) -> str | None:
    before, after = old.splitlines(keepends=True), new.splitlines(keepends=True)
    if before and not before[-1].endswith("\n") and after[: len(before)] != before:
        return None  # a last line without its newline that the edit continues: a changed line
    added: list[str] = []
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for op, _, _, j1, j2 in matcher.get_opcodes():
        if op == "insert":
            added += after[j1:j2]
        elif op != "equal":
            return None
    return "".join(added)


def _patched_texts(path: str, tool_input: Mapping[str, Any], spec: ToolSpec) -> list[str] | None:
    """A Codex patch's text for `path`, its names matched as the path's tail (a relative name is the agent's
    directory's, which the path was resolved from). A tool whose patch argument hookd does not know (Droid's
    ApplyPatch) has it in any argument, as tool_effects' unnamed write finds it."""
    for arg in spec.patches or tuple(tool_input):
        patch = tool_input.get(arg)
        if isinstance(patch, str) and patch.lstrip().startswith("*** Begin Patch"):
            old = read_text(path)[1]
            return codex_patch_texts(patch, path, old, lambda name: _tail_of(path, name))
    return None


def patch_added_text(path: str, tool_input: Mapping[str, Any], spec: ToolSpec) -> str | None:
    """The lines a Codex patch adds to `path` (an added file's whole text, an update's `+` lines), the text it
    writes there as an edit's new string is; None when no patch of the call names the file once."""
    for arg in spec.patches:
        patch = tool_input.get(arg)
        if isinstance(patch, str) and patch.lstrip().startswith("*** Begin Patch"):
            mine = [s for s in codex_sections(patch) if _tail_of(path, s[1]) == path]
            if len(mine) == 1 and mine[0][0] in ("add", "update"):
                return "".join(line[1:] + "\n" for line in mine[0][2] if line.startswith("+"))
    return None


def _tail_of(path: str, name: str) -> str:
    """`path` when `name` names it (the same absolute path, or a relative name that is its tail), else `name`."""
    name = os.path.normpath(name)
    return path if name == path or (not name.startswith(("/", "~", "..")) and path.endswith("/" + name)) else name


def codex_patch_texts(patch: str, path: str, old: str | None, resolve: Callable[[str], str]) -> list[str] | None:
    """The whole text a patch in Codex's apply_patch format leaves in `path` (each name read through `resolve`),
    as its hunks replace their old lines (context and `-`) by their new ones (context and `+`), once and
    everywhere; None when it cannot be known: the patch deletes or moves the file, names it twice, changes a
    file that is not there or whose text is unreadable, or a hunk's old lines are not in it."""
    sections = codex_sections(patch)
    mine = [s for s in sections if resolve(s[1]) == path]
    if len(mine) != 1:
        return None
    op, _, body = mine[0]
    if op == "add":
        return ["".join(line[1:] + "\n" for line in body if line.startswith("+"))]
    if op != "update" or old is None or any(line.startswith("*** Move to:") for line in body):
        return None
    texts = []
    for count in (1, -1):
        text = old
        for hunk in _hunks(body):
            before = "".join(line[1:] + "\n" for line in hunk if line[:1] in (" ", "-"))
            after = "".join(line[1:] + "\n" for line in hunk if line[:1] in (" ", "+"))
            if not before or before not in text:
                return None
            text = text.replace(before, after, count)
        texts.append(text)
    return texts


def _hunks(body: list[str]) -> list[list[str]]:
    """An update's hunks: the lines after each `@@` (the first hunk may have none before it)."""
    hunks: list[list[str]] = [[]]
    for line in body:
        if line.startswith("@@"):
            hunks.append([])
        elif line.startswith("*** End of File"):
            continue
        else:
            hunks[-1].append(line if line else " ")
    return [h for h in hunks if h]
