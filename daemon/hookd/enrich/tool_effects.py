"""What a call of an agent's file, search, patch or web tool does, as effects (`input.effects`, the effect model
of docs/policies.md): appended to the list the shell's analysis (enrich/effects) fills for shell tools.

Built from the tool's `input.paths` entries (enrich/paths.py, which must run first): each path a file tool
reads or writes, each file a search tool's filter reaches, each file a patch adds, changes, deletes or moves
(a move is a `move` of its source with `to`, and, as in the shell's effects, a `write` of its destination:
what a file there does when it lands, a startup file run later, is judged on that write).
Where the tool names its target in a way that cannot be resolved now (a glob past its caps, a patch tool
whose patch is in no argument hookd knows), the effect says `"known": false`: a policy asks on it.
"""

from __future__ import annotations

import functools
import os
import pwd
import re
import stat
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from hookd.enrich.effects.words import runs_nothing, startup_language
from hookd.enrich.facts import arg_class
from hookd.enrich.gitconfig_text import MAX_TEXT, executing_keys, is_git_config, unjudged_write
from hookd.enrich.patches import CODEX_MARK
from hookd.enrich.paths import PathResolver, _patch_entries, realpath
from hookd.enrich.tool_args import inferred
from hookd.types import JSON, NormalisedEvent, ToolKind, ToolSpec

_URL_ARGS = ("url", "uri")


def _op(entry: Mapping[str, Any], spec: ToolSpec) -> tuple[str, bool]:
    """The effect's op and whether it is recursive, for one `input.paths` entry."""
    op = entry.get("op")
    if isinstance(op, str):
        return op, entry.get("recursive") is True
    if entry.get("access") != "read":
        return "write", False
    arg = entry.get("arg")
    if arg in spec.relative_to.values() and "search" in spec.globs.values():
        return "read", True  # a search tool's root: every file below it can be read
    if arg in spec.relative_to and arg not in spec.globs:
        return "list", False  # a glob tool's pattern lists names
    return "read", False


def _effect(
    entry: Mapping[str, Any], spec: ToolSpec, program: str, *, home: str | None, project: str
) -> dict[str, JSON]:
    op, recursive = _op(entry, spec)
    path = entry.get("path")
    path = path if isinstance(path, str) else ""
    to = entry.get("to")
    effect: dict[str, JSON] = {
        "op": op,
        "path": path,
        "known": entry.get("known") is not False and bool(path),
        "recursive": recursive,
        "to": to if isinstance(to, str) else "",
        "program": program,
        "via": "tool",
        "class": arg_class(entry, path, home=home, project=project) if path else "unresolved",
    }
    return effect


def _unknown(op: str, program: str) -> dict[str, JSON]:
    return {"op": op, "path": "", "known": False, "recursive": False, "to": "", "program": program,
            "via": "tool", "class": "unresolved"}  # fmt: skip


def tool_effects(event: NormalisedEvent) -> list[dict[str, JSON]]:
    """The effects of the event's (non-shell) tool call, from its `paths` fact."""
    tool = event.tool
    if tool is None or tool.spec is None or tool.kind is ToolKind.SHELL:
        return []
    guess = inferred(tool)
    spec = guess.spec if guess is not None else tool.spec
    kind = spec.kind if guess is not None else tool.kind  # an MCP tool that writes is judged as a write tool
    home = event.facts.get("home")
    home_dir = home.removesuffix("/") if isinstance(home, str) else None
    project = event.project_dir.removesuffix("/")
    if tool.kind is ToolKind.WEB:
        urls = [tool.input[a] for a in _URL_ARGS if isinstance(tool.input.get(a), str)]
        fetches = [{**_unknown("fetch", tool.name), "known": True, "class": "outside", "url": u} for u in urls]
        return fetches + _local_reads(tool.input, tool.name, home=home_dir, project=project)
    entries = event.facts.get("paths")
    out = [
        _effect(e, spec, tool.name, home=home_dir, project=project)
        for e in (entries if isinstance(entries, list) else [])
        if isinstance(e, Mapping)
    ]
    if spec.patches and not any(isinstance(tool.input.get(a), str) for a in spec.patches):
        out.append(_unknown("write", tool.name))  # a patch tool whose patch hookd cannot find
    elif kind in (ToolKind.WRITE, ToolKind.EDIT) and not spec.paths and not spec.patches:
        out.extend(_unnamed_write(tool.input, tool.name, spec, home=home_dir, project=project))
    if home_dir and kind in (ToolKind.WRITE, ToolKind.EDIT):
        out.extend(_runs_at_start(out, tool.input, spec, tool.name, _homes(home_dir, event.caller.uid)))
    out.extend(_git_keys(out, tool.input, spec, tool.name, declared=guess is None))
    return out


_NEW_TEXT_WORDS = ("new", "content", "text", "source", "patch", "input", "command", "insert")


def _new_texts(value: Any, key: str = "") -> list[str]:
    """The texts a tool's input writes: every string under an argument named for new text (`content`,
    `new_string`, `newString`, `new_str`, `file_text`, `new_source`, a patch), at any depth (MultiEdit's edits)."""
    if isinstance(value, str):
        return [value] if any(w in key.lower() for w in _NEW_TEXT_WORDS) else []
    if isinstance(value, Mapping):
        return [t for k, v in value.items() for t in _new_texts(v, str(k))]
    if isinstance(value, list):
        return [t for v in value for t in _new_texts(v, key)]
    return []


def _git_keys(
    effects: list[dict[str, JSON]], tool_input: Mapping[str, Any], spec: ToolSpec, program: str, declared: bool
) -> list[dict[str, JSON]]:
    """A write into a git configuration file (`~/.gitconfig`, a repository's `config`): judged on the text the
    file will hold, one `write` effect per key whose value git runs (`key`, `value`, `executes`), as the
    shell's `git config` has. Where that text cannot be known whole (a move or copy onto it, an edit of a file
    that cannot be read, a patch, a text that a tool hookd has no table for may append or insert: not
    `declared` by the agent's module), an exec of code not known (asked), and the new texts judged alone."""
    landed = {str(e["to"]) for e in effects if e["op"] in ("move", "copy", "link") and e.get("to")}
    out: list[dict[str, JSON]] = []
    for target in {str(e["path"]): e for e in effects if e["op"] == "write" and is_git_config(str(e["path"]))}.values():
        path = str(target["path"])
        texts = None if path in landed else _texts_after(path, tool_input, spec, declared)
        if texts is None:
            out.append(unjudged_write(path, program, "tool"))
            texts = _new_texts(tool_input)  # each key by its name, whatever its section
        for text in texts:
            out.extend(_keyed(target, path, text))
    return out


def _keyed(target: dict[str, JSON], path: str, text: str) -> list[dict[str, JSON]]:
    keys = executing_keys(text)
    if keys is None:
        return [{**target, "op": "write", "path": path, "to": "", "key": "", "value": "", "executes": True,
                 "known": False}]  # fmt: skip
    return [{**target, "op": "write", "path": path, "to": "", "key": k, "value": v, "executes": True} for k, v in keys]


def _texts_after(path: str, tool_input: Mapping[str, Any], spec: ToolSpec, declared: bool) -> list[str] | None:
    """The whole text a file tool leaves in `path` (both, for a replacement that may take one occurrence or
    every one); None when it cannot be known: a patch, an edit of a file that cannot be read or does not hold
    the text it replaces, a tool whose arguments do not show it."""
    if spec.patches:
        return None
    if spec.content:
        content = tool_input.get(spec.content)
        return [content] if isinstance(content, str) and declared else None
    pairs = _replacements(tool_input, spec)
    if not pairs:
        return None
    exists, old = _read_text(path)
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


def _replacements(tool_input: Mapping[str, Any], spec: ToolSpec) -> list[tuple[str, str]]:
    """The (old, new) texts of an edit, in order: the tool's declared pair, or each entry of a list of edits
    (MultiEdit's `edits`, an MCP `edit_file`'s `oldText`/`newText`); [] when some entry shows no pair."""
    if spec.replace:
        before, after = (tool_input.get(arg) for arg in spec.replace)
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


def _read_text(path: str) -> tuple[bool, str | None]:
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


def _homes(home: str, uid: int) -> tuple[str, ...]:
    """The caller's home as its environment says, and as the password database does: an agent run with a
    `HOME` of its own still writes the user's real `~/.bashrc`, which the user's next login shell runs."""
    recorded = _recorded_home(uid)
    return (home,) if recorded in ("", home) else (home, recorded)


@functools.lru_cache(maxsize=64)
def _recorded_home(uid: int) -> str:
    """The uid's home in the password database, canonical ("" when it has none): looked up once per uid."""
    try:
        recorded = pwd.getpwuid(uid).pw_dir.rstrip("/")
    except (KeyError, OverflowError):
        return ""
    return realpath(recorded) if recorded else ""


_FILE_URL = re.compile(r"\bfile://(?:localhost)?(/[^\s'\"<>`)]*)", re.IGNORECASE)
MAX_FILE_URLS = 16


def _local_reads(
    tool_input: Mapping[str, Any], program: str, *, home: str | None, project: str
) -> list[dict[str, JSON]]:
    """A `file://` URL in a web tool's arguments (its `url`, or a URL in Gemini's `prompt`): a read of that
    file, judged as any file tool's read would be."""
    resolver = PathResolver(home=home or "/", project_dir=project)
    out: list[dict[str, JSON]] = []
    for arg, text in tool_input.items():
        for match in _FILE_URL.finditer(text) if isinstance(text, str) else ():
            if len(out) >= MAX_FILE_URLS:
                return [*out, _unknown("read", program)]
            entry = {"arg": arg, **resolver.resolve(unquote(match.group(1)), project), "access": "read"}
            out.append(
                {**_effect(entry, ToolSpec(ToolKind.READ), program, home=home, project=project), "url": match.group()}
            )
    return out


def _runs_at_start(
    effects: list[dict[str, JSON]], tool_input: Mapping[str, Any], spec: ToolSpec, program: str, homes: tuple[str, ...]
) -> list[dict[str, JSON]]:
    """A write into a file a shell or session runs at start (`~/.bashrc`, `~/.profile`), or the system runs or
    trusts later (`/etc/sudoers.d/`, a `.pth`): code run later, outside the hooks (`deferred`), unless the text
    the tool writes into a shell's file only sets variables."""
    argument = spec.content or (spec.replace[1] if spec.replace else "")
    text = tool_input.get(argument) if argument else None
    later: list[dict[str, JSON]] = []
    for effect in effects:
        path = effect["path"]
        if effect["op"] != "write" or not isinstance(path, str):
            continue
        langs = {startup_language(path, h) for h in homes}
        if langs <= {None}:
            continue
        lang = "sh" if "sh" in langs else "text"  # another program's file (`/etc/sudoers.d/x`): no shell settings
        if lang == "sh" and isinstance(text, str) and runs_nothing(text):
            continue
        code = {"lang": lang, "text": text if isinstance(text, str) else ""}
        later.append({**_unknown("exec", program), "known": isinstance(text, str), "code": code, "deferred": True,
                      "startup": path})  # fmt: skip
    return later


def _unnamed_write(
    tool_input: Mapping[str, Any], program: str, spec: ToolSpec, *, home: str | None, project: str
) -> list[dict[str, JSON]]:
    """A write or edit tool whose arguments hookd does not know (Droid's ApplyPatch): the files of a patch in
    any of its arguments, else one write it cannot name (asked)."""
    resolver = PathResolver(home=home or "/", project_dir=project)
    for arg, text in tool_input.items():
        if isinstance(text, str) and (CODEX_MARK in text or "\n+++ " in text):
            entries = _patch_entries(resolver, arg, text, project)
            if entries:
                return [_effect(e, spec, program, home=home, project=project) for e in entries]
    return [_unknown("write", program)]


def enrich_tool_effects(event: NormalisedEvent) -> NormalisedEvent:
    """Appends the effects of a file, search, patch or web tool call to `effects`; other events pass unchanged."""
    effects = tool_effects(event)
    if not effects:
        return event
    before = event.facts.get("effects")
    return event.with_facts(effects=[*(before if isinstance(before, list) else []), *effects])
