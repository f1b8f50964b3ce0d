"""The text a shell line leaves in a file it edits in place, where hookd can compute it: the line is one in-place
editor (`sed -i 's/…/…/'`, `yq -i '.k = "v"'`, `vim -es -c '%s/…/…/' -c wq`) or a filter whose output replaces the
file (`jq '.k = "v"' F > T && mv T F`, `jq … F | sponge F`), and every change the line makes to the file is that
edit. An agent's settings file changed so is judged by its keys as a file tool's write is (selfprotect._keeps,
"Agents' config files by their keys"); None where the text cannot be computed (any other script, option or line),
which keeps the file guarded whole.

Sources: GNU sed's manual (https://www.gnu.org/software/sed/manual/sed.html: `s` command, BRE/ERE syntax, `&` and
`\\N` in the replacement, the script applied to each line), Vim's `:help :substitute` and `:help -s-ex`
(https://vimhelp.org/change.txt.html#%3Asubstitute), jq's manual (https://jqlang.org/manual/: `=`, `|=`, `+=`,
`del`), yq's (https://mikefarah.gitbook.io/yq/commands/evaluate: `-i`, `-o`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hookd.selfprotect_rewrites import rewritten
from hookd.types import NormalisedEvent, ToolKind

# the ops that change a file, as the effect model names them
_CHANGES = frozenset({"write", "delete", "move", "chmod", "copy", "link"})
Edit = Callable[[str], str | None]


def shell_texts(commands: Sequence[Mapping[str, Any]], effects: Sequence[Mapping[str, Any]], path: str, old: str | None,
                cwd: str) -> list[str] | None:  # fmt: skip
    """The texts the line may leave in `path` (`old` its text now), or None when they cannot be computed."""
    argvs = [[str(w) for w in c.get("argv") or []] for c in commands]
    if old is None or not argvs or not all(argvs):
        return None
    mine = [e for e in effects if e.get("op") in _CHANGES and path in (e.get("path"), e.get("to"))]
    names = [os.path.basename(a[0]) for a in argvs]
    outs = [[str(r.get("path")) for r in c.get("redirects") or [] if r.get("path") != "/dev/null"] for c in commands]
    if len(mine) == 1 and isinstance(text := mine[0].get("text"), str):  # `printf '…' >> F`: the text the line shows
        return _written(commands, path, old, text, cwd)
    if len(mine) == 1 and mine[0].get("op") == "write" and (new := rewritten(effects, path, old, cwd)) is not None:
        return [new]  # `python3 -c "…json.load(open(p))…json.dump(d, open(p, 'w'))"`: the keys it sets
    if len(argvs) == 1 and not outs[0]:
        edit, target = _in_place(names[0], argvs[0][1:])
        ok = all(e.get("op") == "write" for e in mine)
    elif len(argvs) == 2 and names[0] in ("jq", "yq") and names[1] in ("mv", "sponge") and not outs[1]:
        edit, target = _filter(names[0], argvs[0][1:])
        ok = _replaced_by_output(names[1], argvs[1][1:], outs[0], cwd)
    else:
        return None
    last = argvs[-1][-1] if len(argvs) == 2 else target  # the file mv or sponge writes, else the one edited
    if edit is None or not ok or not mine or {_at(cwd, target), _at(cwd, last)} != {path}:
        return None
    new = edit(old)
    return None if new is None else [new]


def _written(commands: Sequence[Mapping[str, Any]], path: str, old: str, text: str, cwd: str) -> list[str] | None:
    """The text one redirect (`>`, `>>`) or `tee` [`-a`] of a known text leaves in `path`: that text, or the file's
    with it added at the end."""
    ways = [str(r.get("op")) for c in commands for r in c.get("redirects") or [] if r.get("path") == path]
    for command in commands:
        argv = [str(w) for w in command.get("argv") or []]
        if argv[:1] == ["tee"] and any(_at(cwd, w) == path for w in argv[1:] if not w.startswith("-")):
            options = [w for w in argv[1:] if w.startswith("-")]
            ways.append(">>" if options in (["-a"], ["--append"]) else ">" if not options else "?")
    if len(ways) != 1 or ways[0] not in (">", ">>", ">|"):
        return None
    return [old + text if ways[0] == ">>" else text]


def _at(cwd: str, name: str) -> str:
    return os.path.normpath(os.path.join(cwd, name))


def _replaced_by_output(name: str, args: list[str], outputs: list[str], cwd: str) -> bool:
    """`mv T F` of the filter's only output file T, or `sponge F` fed by the filter: the file's new text is that
    output (the target is compared by the caller)."""
    if name == "sponge":
        return len(args) == 1 and not outputs
    if len(args) != 2 or args[0].startswith("-") or len(outputs) != 1:
        return False
    return os.path.normpath(os.path.join(cwd, args[0])) == os.path.normpath(outputs[0])


def _in_place(name: str, args: list[str]) -> tuple[Edit | None, str]:
    if name == "sed":
        return _sed(args)
    if name in ("vim", "vi", "ex", "nvim"):
        return _vim(args)
    if name == "yq" and any(a in ("-i", "--inplace") for a in args):
        return _filter(name, [a for a in args if a not in ("-i", "--inplace")])
    return None, ""


# --- jq and yq: assignments of literals to paths, and del(path) ---

_FORMATS = {"-oj": "json", "-o=json": "json", "--output-format=json": "json", "-oy": "yaml", "-o=yaml": "yaml"}


def _filter(name: str, args: list[str]) -> tuple[Edit | None, str]:
    """jq's or yq's FILTER FILE (jq: `--indent N`, `--tab`; yq: the output format given as JSON)."""
    words, output = list(args), "json" if name == "jq" else ""
    while words and words[0].startswith("-"):
        word = words.pop(0)
        if (name == "jq" and word == "--tab") or (name == "jq" and word == "--indent" and words and words.pop(0)):
            continue
        if name == "yq" and word in ("-o", "--output-format") and words:
            output = words.pop(0)
        elif name == "yq" and word in _FORMATS:
            output = _FORMATS[word]
        else:
            return None, ""
    if len(words) != 2 or output not in ("json", "j"):
        return None, ""
    steps = _steps(words[0])
    if steps is None:
        return None, ""
    return (lambda text: _run_steps(steps, text)), words[1]


_KEY = re.compile(r'\.(?:([A-Za-z_][A-Za-z0-9_]*)|"((?:[^"\\]|\\.)*)"|\["((?:[^"\\]|\\.)*)"\])')
Step = tuple[str, list[str], Any]


def _path(text: str, at: int) -> tuple[list[str], int]:
    keys: list[str] = []
    while (found := _KEY.match(text, at)) is not None:
        plain, quoted, bracket = found.groups()
        keys.append(plain if plain is not None else json.loads(f'"{quoted if quoted is not None else bracket}"'))
        at = found.end()
    return keys, at


def _steps(text: str) -> list[Step] | None:
    """`PATH = JSON`, `PATH |= JSON`, `PATH += JSON`, `del(PATH)`, joined by `|`; None for anything else."""
    steps: list[Step] = []
    at, decoder = 0, json.JSONDecoder()
    while True:
        at = _blank(text, at)
        if text.startswith("del(", at):
            keys, at = _path(text, _blank(text, at + 4))
            at = _blank(text, at)
            if not keys or not text.startswith(")", at):
                return None
            steps.append(("del", keys, None))
            at += 1
        else:
            keys, at = _path(text, at)
            at = _blank(text, at)
            op = next((o for o in ("|=", "+=", "=") if text.startswith(o, at)), None)
            if not keys or op is None:
                return None
            try:
                value, at = decoder.raw_decode(text, _blank(text, at + len(op)))
            except ValueError:
                return None
            steps.append((op, keys, value))
        at = _blank(text, at)
        if at == len(text):
            return steps
        if text[at] != "|":
            return None
        at += 1


def _blank(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _run_steps(steps: list[Step], text: str) -> str | None:
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    for op, keys, value in steps:
        parent = doc
        for key in keys[:-1]:
            if not isinstance(parent, dict):
                return None
            parent = parent.setdefault(key, {}) if op != "del" else parent.get(key)
        if op == "del":
            if isinstance(parent, dict):
                parent.pop(keys[-1], None)
            continue
        if not isinstance(parent, dict):
            return None
        now = parent.get(keys[-1])
        parent[keys[-1]] = _added(now, value) if op == "+=" else value
        if parent[keys[-1]] is _NOT_ADDED:
            return None
    return json.dumps(doc, indent=2) + "\n"


_NOT_ADDED = object()


def _added(now: Any, value: Any) -> Any:
    """jq's `+` for the kinds it adds (null is the identity)."""
    if now is None:
        return value
    if isinstance(now, list) and isinstance(value, list):
        return now + value
    if isinstance(now, dict) and isinstance(value, dict):
        return {**now, **value}
    if type(now) is type(value) and isinstance(now, (str, int, float)) and not isinstance(now, bool):
        return now + value
    return _NOT_ADDED


# --- sed -i: `s` commands only ---


def _sed(args: list[str]) -> tuple[Edit | None, str]:
    scripts: list[str] = []
    files: list[str] = []
    extended = in_place = False
    words = list(args)
    while words:
        word = words.pop(0)
        if word in ("-E", "-r", "--regexp-extended"):
            extended = True
        elif word.startswith(("-i", "--in-place")):
            in_place = True
        elif word in ("-e", "--expression") and words:
            scripts.append(words.pop(0))
        elif word.startswith("--expression="):
            scripts.append(word.partition("=")[2])
        elif word.startswith("-") and word != "-":
            return None, ""
        else:
            files.append(word)
    if not scripts and files:
        scripts.append(files.pop(0))
    found: list[Sub] = []
    for script in scripts:
        subs = _substitutions(script, extended)
        if subs is None:
            return None, ""
        found += subs
    if not in_place or len(files) != 1 or not found:
        return None, ""
    return (lambda text: _each_line(text, found)), files[0]


Sub = tuple["re.Pattern[str]", Callable[["re.Match[str]"], str], int]


def _substitutions(script: str, extended: bool) -> list[Sub] | None:
    """Each `s/RE/REPL/[g]` of a script of such commands, split by `;` or newlines."""
    subs: list[Sub] = []
    at = 0
    while True:
        while at < len(script) and script[at] in " \t\n;":
            at += 1
        if at == len(script):
            return subs
        if script[at] != "s" or at + 1 >= len(script):
            return None
        delim = script[at + 1]
        parts, at = _delimited(script, at + 2, delim, 2)
        flag = ""
        while at < len(script) and script[at] == "g":
            flag, at = "g", at + 1
        if parts is None or delim in "\\\n" or (at < len(script) and script[at] not in " \t\n;"):
            return None
        pattern = _regex(parts[0], delim, extended)
        replace = _replacement(parts[1], delim)
        if pattern is None or replace is None:
            return None
        subs.append((pattern, replace, 0 if flag else 1))


def _delimited(text: str, at: int, delim: str, count: int) -> tuple[list[str] | None, int]:
    parts: list[str] = []
    current = ""
    while len(parts) < count:
        if at >= len(text):
            return None, at
        char = text[at]
        if char == "\\" and at + 1 < len(text):
            current += text[at : at + 2]
            at += 2
            continue
        if char == delim:
            parts.append(current)
            current = ""
        else:
            current += char
        at += 1
    return parts, at


# BRE's escaped operators and ERE's plain ones, as Python writes them (GNU sed's extensions included)
_BRE_OPERATORS = {"(": "(", ")": ")", "{": "{", "}": "}", "+": "+", "?": "?", "|": "|"}
_CLASSES = frozenset("wWsSb")


def _regex(text: str, delim: str, extended: bool) -> re.Pattern[str] | None:
    if not text or re.search(r"\[(?:\^)?\]?[^\]]*(?:\\|\[[:=.])", text) or "(?" in text:
        return None  # POSIX classes, and a backslash inside brackets (literal in POSIX): not Python's
    out, at = "", 0
    while at < len(text):
        char = text[at]
        if char == "\\":
            if at + 1 >= len(text):
                return None
            nxt = text[at + 1]
            at += 2
            if nxt == delim or nxt in ".*[]^$\\/&":
                out += re.escape(nxt)
            elif nxt in _CLASSES or nxt.isdigit():
                out += "\\" + nxt
            elif nxt == "n":
                out += "\\n"
            elif not extended and nxt in _BRE_OPERATORS:
                out += _BRE_OPERATORS[nxt]
            elif extended and nxt in "(){}+?|":
                out += "\\" + nxt
            else:
                return None
            continue
        # BRE's `^` and `$` anchor only at the ends, its `*` first is a plain star; ERE's and Python's everywhere
        plain = not extended and (char in "(){}+?|" or (char == "^" and at) or (char == "$" and at < len(text) - 1))
        out += re.escape(char) if plain or (not extended and char == "*" and not at) else char
        at += 1
    try:
        return re.compile(out)
    except re.error:
        return None


def _replacement(text: str, delim: str) -> Callable[[re.Match[str]], str] | None:
    pieces: list[str | int] = []
    at = 0
    while at < len(text):
        char = text[at]
        if char == "&":
            pieces.append(0)
        elif char == "\\" and at + 1 < len(text):
            nxt = text[at + 1]
            at += 1
            if nxt.isdigit():
                pieces.append(int(nxt))
            elif nxt == "n":
                pieces.append("\n")
            elif nxt in ("&", "\\", delim, "/"):
                pieces.append(nxt)
            else:  # \L, \U, \E and the rest change case or mean more than a character: not computed
                return None
        else:
            pieces.append(char)
        at += 1
    return lambda m: "".join(p if isinstance(p, str) else m.group(p) or "" for p in pieces)


def _each_line(text: str, subs: list[Sub]) -> str | None:
    """sed's cycle: each line without its newline, every command in turn."""
    lines = text.split("\n")
    try:
        for index in range(len(lines)):
            for pattern, replace, count in subs:
                lines[index] = pattern.sub(replace, lines[index], count=count)
    except (IndexError, re.error):  # a group the expression does not have
        return None
    return "\n".join(lines)


# --- vim -es / ex -s: `%s` of literal text, then a write ---

_VIM_QUIET = frozenset({"-e", "-s", "-es", "-E", "-Es", "-N", "-n", "--noplugin", "-X"})
_VIM_SPECIAL = frozenset("\\.*[]~^$&")
_VIM_ENDS = frozenset({"w", "wq", "x", "q", "q!", "qa", "qa!", "wq!", "x!", "wqa", "xa", "update"})


def _vim(args: list[str]) -> tuple[Edit | None, str]:
    commands: list[str] = []
    files: list[str] = []
    words = list(args)
    while words:
        word = words.pop(0)
        if word in _VIM_QUIET:
            continue
        if word in ("-u", "-i") and words and words.pop(0) == "NONE":
            continue
        if word == "-c" and words:
            commands.append(words.pop(0))
        elif word.startswith("+") and len(word) > 1:
            commands.append(word[1:])
        elif word.startswith("-"):
            return None, ""
        else:
            files.append(word)
    subs: list[tuple[str, str, int]] = []
    for command in commands:
        found = _vim_substitution(command.strip())
        if found is None and command.strip().lstrip(":") not in _VIM_ENDS:
            return None, ""
        subs += [found] if found is not None else []
    if len(files) != 1 or not subs:
        return None, ""
    return (lambda text: _literal_lines(text, subs)), files[0]


def _vim_substitution(command: str) -> tuple[str, str, int] | None:
    """`%s/OLD/NEW/[g]` with OLD and NEW plain text (no pattern character, no `&` or `~` in NEW)."""
    command = command.lstrip(":")
    if not command.startswith("%s") or len(command) < 3 or command[2].isalnum() or command[2] in ' \\"|':
        return None
    parts, at = _delimited(command, 3, command[2], 2)
    rest = command[at:]
    if parts is None or rest not in ("", "g") or not parts[0] or any(c in _VIM_SPECIAL for c in "".join(parts)):
        return None
    return parts[0], parts[1], 0 if rest else 1


def _literal_lines(text: str, subs: list[tuple[str, str, int]]) -> str:
    lines = text.split("\n")
    for old, new, count in subs:
        lines = [line.replace(old, new, count or -1) for line in lines]
    return "\n".join(lines)


def event_texts(event: NormalisedEvent, path: str, old: str | None) -> list[str] | None:
    """shell_texts for a shell call's facts (None for any other call)."""
    shell = event.facts.get("shell")
    commands = shell.get("commands") if isinstance(shell, dict) else None
    effects = event.facts.get("effects")
    if event.tool is None or event.tool.kind is not ToolKind.SHELL or not isinstance(commands, list):
        return None
    return shell_texts(_dicts(commands), _dicts(effects if isinstance(effects, list) else []), path, old, event.cwd)


def _dicts(values: list[Any]) -> list[Mapping[str, Any]]:
    return [v for v in values if isinstance(v, Mapping)]
