"""Inline interpreter code (`python -c`, a here-document to `python3 -`): what it would do, read with
Python's own `ast`. Owned by the policies engineer.

The effects the policies already judge are given back as the commands that do the same, so that the
same rules hold: `shutil.rmtree(p)` is `rm -r -f p`, `os.remove(p)` is `rm p`, `open(p)` is `cat p`,
`open(p, "w")` and `Path(p).write_text` are `tee p`, `os.rename(a, b)` is `mv a b`, and the scripts of
`os.system(…)`, `subprocess.run(…, shell=True)` are shell scripts (a list argv is a command). Code that
builds what it runs (`exec`, `eval`, `compile`, `__import__` of a computed name, `getattr` with a
computed name) or that does not parse is `dynamic`: the policies ask. A value that is not a literal
stands as a dynamic word, so a rule about a target asks too.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

UNKNOWN = "${python_value}"
_MAX_CODE = 64 * 1024

_SHELL_CALLS = frozenset({"os.system", "os.popen", "commands.getoutput", "commands.getstatusoutput", "pty.spawn"})
_SUBPROCESS = frozenset(
    {"subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output", "subprocess.Popen",
     "subprocess.getoutput", "subprocess.getstatusoutput", "asyncio.create_subprocess_shell",
     "asyncio.create_subprocess_exec"}
)  # fmt: skip
_FILE_CALLS: dict[str, list[str]] = {
    "shutil.rmtree": ["rm", "-r", "-f"],
    "os.remove": ["rm"],
    "os.unlink": ["rm"],
    "os.rmdir": ["rmdir"],
    "os.removedirs": ["rmdir"],
    "shutil.move": ["mv"],
    "os.rename": ["mv"],
    "os.replace": ["mv"],
    "os.renames": ["mv"],
    "shutil.copy": ["cp"],
    "shutil.copy2": ["cp"],
    "shutil.copyfile": ["cp"],
    "shutil.copytree": ["cp", "-r"],
    "os.symlink": ["ln", "-s"],
    "os.link": ["ln"],
    "os.truncate": ["truncate", "-s", "0"],
}
_PATH_METHODS: dict[str, list[str]] = {
    "read_text": ["cat"],
    "read_bytes": ["cat"],
    "write_text": ["tee"],
    "write_bytes": ["tee"],
    "unlink": ["rm"],
    "rmdir": ["rmdir"],
    "touch": ["touch"],
    "symlink_to": ["ln", "-s"],
}
_DYNAMIC_CALLS = frozenset({"exec", "eval", "compile", "execfile", "runpy.run_path", "runpy.run_module"})


@dataclass
class Effects:
    commands: list[list[str]] = field(default_factory=list)  # argv lists
    scripts: list[str] = field(default_factory=list)  # shell scripts
    dynamic: bool = False
    parsed: bool = True


def python_effects(code: str) -> Effects:
    effects = Effects()
    if len(code) > _MAX_CODE:
        return Effects(parsed=False, dynamic=True)
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Effects(parsed=False, dynamic=True)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            _call(node, effects)
    return effects


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else node.attr
    if isinstance(node, ast.Call) and _dotted(node.func) in ("__import__", "importlib.import_module") and node.args:
        return _literal(node.args[0])  # `__import__('os').system`
    return ""


_HOME_CALLS = frozenset({"Path.home", "pathlib.Path.home", "os.path.expanduser", "os.getenv", "os.environ.get"})
_SAME_PATH = frozenset({"expanduser", "resolve", "absolute", "expandvars"})  # `p.expanduser()` is p


def _literal(node: ast.expr | None) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    home = _home(node)
    if home:
        return home
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _SAME_PATH
        and not node.args
    ):
        return _literal(node.func.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "joinpath":
        parts = [_literal(node.func.value), *(_literal(a) for a in node.args)]
        if UNKNOWN not in parts:
            return "/".join(p.rstrip("/") for p in parts)
    called = _dotted(node.func) if isinstance(node, ast.Call) else ""
    if isinstance(node, ast.Call) and (
        called in ("os.path.expanduser", "os.path.join", "str") or called.endswith("Path")
    ):
        parts = [_literal(a) for a in node.args]
        if parts and UNKNOWN not in parts:
            return "/".join(p.rstrip("/") for p in parts[:-1]) + ("/" if len(parts) > 1 else "") + parts[-1]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):  # Path(a) / "b"
        left, right = _literal(node.left), _literal(node.right)
        if UNKNOWN not in (left, right):
            return f"{left.rstrip('/')}/{right}"
    return UNKNOWN


def _home(node: ast.expr | None) -> str:
    """`~` for the expressions that give the home directory: `Path.home()`, `os.path.expanduser("~")`,
    `os.getenv("HOME")`, `os.environ["HOME"]`."""
    if isinstance(node, ast.Call):
        name = _dotted(node.func)
        args = [a.value for a in node.args if isinstance(a, ast.Constant)]
        if name in _HOME_CALLS and (name.endswith("home") or args[:1] in (["~"], ["HOME"])):
            return "~"
    if isinstance(node, ast.Subscript) and _dotted(node.value) == "os.environ":
        key = node.slice
        if isinstance(key, ast.Constant) and key.value == "HOME":
            return "~"
    return ""


def _call(node: ast.Call, effects: Effects) -> None:
    name = _dotted(node.func)
    short = name.rsplit(".", 1)[-1]
    first = node.args[0] if node.args else None
    if name in _DYNAMIC_CALLS or (name in ("__import__", "importlib.import_module", "getattr") and _computed(node)):
        effects.dynamic = True
    elif name in _SHELL_CALLS or name.startswith(("os.exec", "os.spawn")):
        _run(node, first, name in _SHELL_CALLS, effects)
    elif name in _SUBPROCESS:
        shell = any(k.arg == "shell" and _truthy(k.value) for k in node.keywords) or name.endswith(("shell", "output"))
        _run(node, first, shell and not isinstance(first, ast.List | ast.Tuple), effects)
    elif name in _FILE_CALLS:
        effects.commands.append([*_FILE_CALLS[name], *(_literal(a) for a in node.args[:2])])
    elif name in ("io.open", "codecs.open", "builtins.open") or (isinstance(node.func, ast.Name) and name == "open"):
        _open(node, first, True, effects)
    elif short == "open":  # Path(p).open(mode)
        _open(node, _receiver(node), False, effects)
    elif short == "urlopen" and _literal(first).lower().startswith("file://"):  # urllib of a local file
        effects.commands.append(["cat", _literal(first)[7:]])
    elif short in _PATH_METHODS and isinstance(node.func, ast.Attribute):
        receiver = _receiver(node)
        if receiver is not None:
            effects.commands.append([*_PATH_METHODS[short], _literal(receiver)])


def _computed(node: ast.Call) -> bool:
    args = node.args[1:2] if _dotted(node.func) == "getattr" else node.args[:1]
    return any(not (isinstance(a, ast.Constant) and isinstance(a.value, str)) for a in args)


def _receiver(node: ast.Call) -> ast.expr | None:
    """`p` of `Path(p).read_text()` (or of `pathlib.Path(p).open()`)."""
    if isinstance(node.func, ast.Attribute):
        value = node.func.value
        if _literal(value) != UNKNOWN:  # `Path(a, b)`, `Path.home().joinpath(".ssh/id_rsa")`, `(Path.home() / "x")`
            return value
        if isinstance(value, ast.Call) and _dotted(value.func).endswith("Path") and value.args:
            return value.args[0]
    return None


def _truthy(node: ast.expr) -> bool:
    return not (isinstance(node, ast.Constant) and not node.value)


def _run(node: ast.Call, first: ast.expr | None, shell: bool, effects: Effects) -> None:
    if first is None:
        return
    if shell:
        script = _literal(first)
        if script == UNKNOWN:
            effects.dynamic = True
        else:
            effects.scripts.append(script)
        return
    if isinstance(first, ast.List | ast.Tuple):
        effects.commands.append([_literal(e) for e in first.elts])
    elif isinstance(first, ast.Constant) and isinstance(first.value, str):
        effects.commands.append([first.value, *(_literal(a) for a in node.args[2:])])  # os.execl(path, arg0, …)
    else:
        effects.dynamic = True


def _open(node: ast.Call, target: ast.expr | None, builtin: bool, effects: Effects) -> None:
    if target is None:
        return
    positional = node.args[1:2] if builtin else node.args[:1]
    mode = positional[0] if positional else None
    mode = next((k.value for k in node.keywords if k.arg == "mode"), mode)
    text = mode.value if isinstance(mode, ast.Constant) and isinstance(mode.value, str) else "r"
    writes = any(m in text for m in "wax+")
    effects.commands.append(["tee" if writes else "cat", _literal(target)])


_PYTHON = re.compile(r"python(\d+(\.\d+)?)?|pypy3?")
_EVAL_OPTIONS = {"perl": ("-e", "-E"), "ruby": ("-e",), "node": ("-e", "--eval", "-p", "--print"), "deno": ("eval",)}


def inline_code(name: str, argv: list[str], stdin: str | None) -> tuple[str, str] | None:
    """(language, code) of an interpreter run with code on its command line or stdin (a here-document,
    an echo piped in): `python -c`, `python -`/`python` with stdin, `perl -e`, `ruby -e`, `node -e`."""
    if _PYTHON.fullmatch(name):
        for k, arg in enumerate(argv[1:], start=1):
            if arg == "-c" and k + 1 < len(argv):
                return "python", argv[k + 1]
            if arg.startswith("-c") and len(arg) > 2:
                return "python", arg[2:]
            if arg in ("-m",) or (not arg.startswith("-")):
                return None  # a module or a script file
            if arg == "-":
                break
        return ("python", stdin) if stdin is not None else None
    for option in _EVAL_OPTIONS.get(name, ()):
        for k, arg in enumerate(argv[1:], start=1):
            if arg == option and k + 1 < len(argv):
                return name, argv[k + 1]
    return None
