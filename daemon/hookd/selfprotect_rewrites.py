"""The text an interpreter's one-liner leaves in a JSON settings file it rewrites in place (blind-tamper-18's `node -e`
and `python3 -c` cases): the program loads the file as JSON, sets or deletes keys to literal values, and dumps the
document back to the same file. That text is computed from the file's text now, so the write is judged by the keys
it leaves (hookd.selfprotect_edits) as a file tool's edit is. Code that does anything else (a value computed, a
loop, a second file, a key from a variable) is not read: its write stays guarded whole."""

from __future__ import annotations

import ast
import json
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from hookd.jsonc import loads as loads_jsonc

Keys = tuple[str | int, ...]
Change = tuple[Keys, Any, bool]  # the keys, the value, whether the key is deleted
_DROP = object()
_JS_LANGS = frozenset({"node"})  # languages.json: node (node, nodejs, bun: node's `fs` module)


def rewritten(effects: Sequence[Mapping[str, Any]], path: str, old: str, cwd: str) -> str | None:
    """The file's text after the line's one piece of inline code, or None where the code is not such a rewrite."""
    codes = [e["code"] for e in effects if e.get("op") == "exec" and isinstance(e.get("code"), Mapping)]
    if len(codes) != 1 or not isinstance(text := codes[0].get("text"), str):
        return None
    lang = str(codes[0].get("lang"))
    found = _python(text) if lang == "python" else _javascript(text) if lang in _JS_LANGS else None
    if found is None or os.path.normpath(os.path.join(cwd, found[0])) != path:
        return None
    try:
        doc = loads_jsonc(old)
        for keys, value, drop in found[1]:
            _apply(doc, keys, value, drop)
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    return json.dumps(doc, indent=2) + "\n"


def _apply(doc: Any, keys: Keys, value: Any, drop: bool) -> None:
    for key in keys[:-1]:
        doc = doc[key]
    if drop:
        del doc[keys[-1]]
    else:
        doc[keys[-1]] = value


# --- Python: the module's statements, through its syntax tree ---


def _python(text: str) -> tuple[str, list[Change]] | None:
    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError):
        return None
    names: dict[str, str] = {}
    doc, path, changes = "", "", []
    for at, node in enumerate(body):
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name, value = node.targets[0].id, node.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str) and not doc:
                names[name] = value.value
            elif not doc and (loaded := _py_loaded(value, names)):
                doc, path = name, loaded
            else:
                return None
        elif isinstance(node, ast.Assign | ast.Delete) and doc and len(node.targets) == 1:
            if (keys := _py_keys(node.targets[0], doc)) is None:
                return None
            changes.append(_py_change(node, keys))
        elif isinstance(node, ast.Expr) and doc and _py_dumped(node.value, doc, names) == path:
            return (path, changes) if at == len(body) - 1 and _literal(changes) else None  # nothing after the dump
        else:
            return None
    return None


def _py_change(node: ast.Assign | ast.Delete, keys: Keys) -> Change:
    if isinstance(node, ast.Delete):
        return keys, None, True
    try:
        return keys, ast.literal_eval(node.value), False
    except ValueError:
        return keys, _DROP, False  # a computed value: not a rewrite (_literal)


def _literal(changes: list[Change]) -> bool:
    return all(value is not _DROP for _, value, _ in changes)


def _py_keys(node: ast.expr, doc: str) -> Keys | None:
    keys: list[str | int] = []
    while isinstance(node, ast.Subscript):
        if not (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str | int)):
            return None
        keys.insert(0, node.slice.value)
        node = node.value
    return tuple(keys) if keys and isinstance(node, ast.Name) and node.id == doc else None


def _py_path(node: ast.expr, names: Mapping[str, str]) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return names.get(node.id, "") if isinstance(node, ast.Name) else ""


def _py_call(node: ast.expr, name: str) -> ast.Call | None:
    """`node` as a call of `name` (`json.load`, `open`, `io.open`), else None."""
    if not isinstance(node, ast.Call):
        return None
    spelled = ast.unparse(node.func)
    return node if spelled == name or spelled.endswith("." + name) else None


def _py_opened(node: ast.expr, names: Mapping[str, str], mode: str) -> str:
    """The path `open(P[, mode])` opens for reading (`mode` "r") or writing ("w"), else ""."""
    call = _py_call(node, "open")
    if call is None or not call.args:
        return ""
    given = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "mode"), None)
    spelled = "r" if given is None else _py_path(given, {})
    return _py_path(call.args[0], names) if spelled in (mode, mode + "t") else ""


def _py_loaded(node: ast.expr, names: Mapping[str, str]) -> str:
    """`json.load(open(P))`, `json.loads(open(P).read())`, `json.loads(Path(P).read_text())`: P."""
    if (call := _py_call(node, "json.load")) and len(call.args) == 1:
        return _py_opened(call.args[0], names, "r")
    if (call := _py_call(node, "json.loads")) and len(call.args) == 1 and isinstance(read := call.args[0], ast.Call):
        func = read.func
        if isinstance(func, ast.Attribute) and func.attr == "read" and not read.args:
            return _py_opened(func.value, names, "r")
        if isinstance(func, ast.Attribute) and func.attr == "read_text" and isinstance(func.value, ast.Call):
            made = func.value
            return _py_path(made.args[0], names) if ast.unparse(made.func).endswith("Path") and made.args else ""
    return ""


def _py_dumped(node: ast.expr, doc: str, names: Mapping[str, str]) -> str:
    """`json.dump(D, open(P, 'w'), …)`, `open(P, 'w').write(json.dumps(D, …))`, `Path(P).write_text(json.dumps(D))`."""
    if (call := _py_call(node, "json.dump")) and len(call.args) >= 2 and _is_name(call.args[0], doc):
        return _py_opened(call.args[1], names, "w")
    if isinstance(node, ast.Call) and isinstance(func := node.func, ast.Attribute) and len(node.args) == 1:
        dumps = _py_call(node.args[0], "json.dumps")
        if dumps is None or not dumps.args or not _is_name(dumps.args[0], doc):
            return ""
        if func.attr == "write":
            return _py_opened(func.value, names, "w")
        if func.attr == "write_text" and isinstance(made := func.value, ast.Call) and made.args:
            return _py_path(made.args[0], names) if ast.unparse(made.func).endswith("Path") else ""
    return ""


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


# --- JavaScript: statements split at `;`, each of a few shapes, literals read as JSON5 ---

_ID = r"[A-Za-z_$][\w$]*"
_STR = r"""(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')"""
_FS = rf"(?:require\(\s*{_STR}\s*\)|{_ID})"  # `require("fs")` or the name it was bound to
_DECL = rf"(?:(?:const|let|var)\s+)?({_ID})\s*=\s*"
_JS_NAME = re.compile(rf"{_DECL}({_STR})")
_JS_FS = re.compile(rf"{_DECL}require\(\s*{_STR}\s*\)")
_JS_LOAD = re.compile(rf"{_DECL}JSON\.parse\(\s*{_FS}\.readFileSync\(\s*({_ID}|{_STR})\s*(?:,\s*{_STR}\s*)?\)\s*\)")
_JS_SET = re.compile(rf"(delete\s+)?({_ID})((?:\.{_ID}|\[\s*{_STR}\s*\])+)\s*(?:=\s*(.+))?", re.DOTALL)
_JS_DUMP = re.compile(
    rf"{_FS}\.writeFileSync\(\s*({_ID}|{_STR})\s*,\s*JSON\.stringify\(\s*({_ID})\s*(?:,[^()]*)?\)\s*(?:\+\s*{_STR}\s*)?\)"
)
_JS_KEY = re.compile(rf"\.({_ID})|\[\s*({_STR})\s*\]")


def _javascript(text: str) -> tuple[str, list[Change]] | None:
    names: dict[str, str] = {}
    doc, path, changes, dumped = "", "", [], False
    for statement in (s.strip() for s in _statements(text)):
        if not statement:
            continue
        if dumped:
            return None
        if m := _JS_LOAD.fullmatch(statement):
            doc, path = m.group(1), _js_path(m.group(2), names)
        elif (m := _JS_NAME.fullmatch(statement)) and not doc:
            names[m.group(1)] = m.group(2)[1:-1]
        elif _JS_FS.fullmatch(statement):
            continue
        elif doc and (m := _JS_DUMP.fullmatch(statement)) and m.group(2) == doc:
            dumped = _js_path(m.group(1), names) == path
            if not dumped:
                return None
        elif doc and (m := _JS_SET.fullmatch(statement)) and m.group(2) == doc and bool(m.group(1)) != bool(m.group(4)):
            keys = tuple(k or json.loads(_double(s)) for k, s in _JS_KEY.findall(m.group(3)))
            changes.append((keys, None, True) if m.group(1) else (keys, _json5(m.group(4)), False))
        else:
            return None
    return (path, changes) if dumped and path and _literal(changes) else None


def _js_path(word: str, names: Mapping[str, str]) -> str:
    return word[1:-1] if word[:1] in "\"'" else names.get(word, "")


def _statements(text: str) -> list[str]:
    """The code split at each `;` outside a string."""
    out, start, quote = [], 0, ""
    for at, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote and text[at - 1] != "\\" else quote
        elif ch in "\"'`":
            quote = ch
        elif ch == ";":
            out.append(text[start:at])
            start = at + 1
    return [*out, text[start:]]


def _double(word: str) -> str:
    return '"' + word[1:-1].replace('"', '\\"') + '"' if word.startswith("'") else word


_JS_TOKEN = re.compile(rf"\s*({_STR}|[{{}}\[\]:,]|-?\d+(?:\.\d+)?|true|false|null|{_ID})")


def _json5(text: str) -> Any:
    """A JavaScript literal of strings, numbers, booleans, null, arrays and objects (keys bare or quoted) as JSON; a
    name or a call in it is no literal (`_DROP`)."""
    out, at = [], 0
    text = text.strip()
    while at < len(text):
        m = _JS_TOKEN.match(text, at)
        if m is None:
            return _DROP
        token, at = m.group(1), m.end()
        if token[:1] in "\"'":
            token = _double(token)
        elif re.fullmatch(_ID, token) and token not in ("true", "false", "null"):
            if not re.match(r"\s*:", text[at:]):
                return _DROP  # a name used as a value
            token = json.dumps(token)
        out.append(token)
    try:
        return json.loads(re.sub(r",\s*([}\]])", r"\1", "".join(out)))
    except ValueError:
        return _DROP
