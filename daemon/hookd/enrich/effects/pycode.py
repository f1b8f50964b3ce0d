"""Inline Python code (`python -c`, a here-document to `python3 -`): what it would do, read with Python's own
`ast` and the call tables of languages.json (`python.calls`, docs/policies.md "The effect model").

The effects the policies judge are given back as the commands that do the same, so that the same rules hold:
`shutil.rmtree(p)` is `rm -r -f p`, `os.remove(p)` is `rm p`, `open(p)` is `cat p`, `open(p, "w")` and
`Path(p).write_text` are `tee p`, `os.rename(a, b)` is `mv a b`, and the scripts of `os.system(…)`,
`subprocess.run(…, shell=True)` are shell scripts (a list argv is a command); the shell builder walks them.
Code that builds what it runs (`exec`, `eval`, `compile`, `__import__` of a computed name, `getattr` with a
computed name) or that does not parse is `dynamic`: hookd cannot follow it (its exec effect is not `known`).
A value that is not a literal stands as a dynamic word, so a rule about a target asks too.
"""

from __future__ import annotations

import ast
import copy
import shlex
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.pybindings import Inlined, bindings, writes_namespaces
from hookd.enrich.effects.pyflags import OPENS, open_mode

UNKNOWN = "${python_value}"
_MAX_CODE = 64 * 1024


class _Calls:
    """Python's calls that reach the system, from languages.json (`python.calls`), read once."""

    def __init__(self, calls: Mapping[str, Any]) -> None:
        self.shell = frozenset(calls["shell"])
        self.shell_prefixes = tuple(calls["shell_prefixes"])
        self.subprocess = frozenset(calls["subprocess"])
        self.argv = frozenset(calls.get("argv", ()))  # each positional argument a word: `session.run("rm", "-rf", d)`
        self.files: Mapping[str, list[str]] = calls["files"]
        self.path_methods: Mapping[str, list[str]] = calls["path_methods"]
        self.dynamic = frozenset(calls["dynamic"])
        self.network = frozenset(calls.get("network", ()))


_CALLS = _Calls(catalogue().languages["python"]["calls"])


@dataclass
class Effects:
    commands: list[list[str]] = field(default_factory=list)  # argv lists
    scripts: list[str] = field(default_factory=list)  # shell scripts
    dynamic: bool = False
    parsed: bool = True
    kills: list[str] = field(default_factory=list)  # the pids `os.kill` is given (a literal, or "" computed)
    forks: bool = False  # it starts processes without bound (`while True: os.fork()`)


@lru_cache(maxsize=64)
def python_effects(code: str) -> Effects:
    """What `code` does, as commands and scripts (cached: the effect model and the shell builder both ask)."""
    effects = Effects()
    if len(code) > _MAX_CODE:
        return Effects(parsed=False, dynamic=True)
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Effects(parsed=False, dynamic=True)
    aliases = _aliases(tree)
    tree = _Unrolled(bindings(tree)).visit(_Canonical(aliases).visit(tree))
    effects.dynamic = _passed_as_value(tree, aliases)
    for _ in range(2):  # a path built from a name that holds one (`d / "x"`), then a name holding that
        tree = Inlined({n: b.path for n, b in _names(tree).items() if not b.below}).visit(tree)
    bound = _names(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            _call(node, effects, bound)
    _code_in_strings(tree, effects)
    _signals(effects)
    effects.forks = any(_spawns_without_end(node) for node in ast.walk(tree) if isinstance(node, ast.While))
    return effects


# What starts a process and returns at once (os(3), subprocess, multiprocessing, pty), and what waits for one, stops
# it or ends the loop around it (https://docs.python.org/3/library/os.html#process-management)
_STARTS = frozenset({"os.fork", "os.forkpty", "pty.fork", "subprocess.Popen", "multiprocessing.Process"})
_ENDS = frozenset({"wait", "waitpid", "wait4", "waitid", "join", "communicate", "kill", "terminate", "exit", "_exit"})


def _spawns_without_end(loop: ast.While) -> bool:
    """`while True: os.fork()`, `while 1: subprocess.Popen(["sleep", "99"])`: a loop its test never ends that
    starts a process each turn and never waits for it, stops it or leaves (break, return, raise, exit): processes
    without bound, as the shell's fork bomb."""
    if not isinstance(loop.test, ast.Constant) or not loop.test.value:
        return False
    inside = list(ast.walk(loop))
    if any(isinstance(node, (ast.Break, ast.Return, ast.Raise)) for node in inside):
        return False
    called = [_dotted(node.func) for node in inside if isinstance(node, ast.Call)]
    return any(name in _STARTS for name in called) and not any(name.rsplit(".", 1)[-1] in _ENDS for name in called)


def _signals(effects: Effects) -> None:
    """`os.kill(pid, sig)`, `os.killpg(…)`: a `kill` of that pid. A pid the code computes comes from what the
    code itself ran or read (`subprocess.check_output(["pgrep", "-f", "hookd"])`, `open(".../x.pid")`): it is
    given as the substitution of those commands, as `kill $(pgrep -f hookd)` is, so the process they look up is
    the target (the effect model's `lookup`)."""
    ran = "; ".join(shlex.join(c) for c in effects.commands if c and c[0] != "kill")
    for pid in effects.kills:
        effects.commands.append(["kill", pid if pid.isdigit() else f"$({ran})" if ran else UNKNOWN])


def _code_in_strings(tree: ast.AST, effects: Effects) -> None:
    """A string literal that is itself Python code reaching the system is judged as the code it is, whatever
    call takes it (`code.InteractiveInterpreter().runsource(S)`, `timeit.timeit(S)`, `cProfile.run(S)`,
    `pdb.run(S)`: the standard library compiles strings in many places besides exec and eval). Each string is
    read once (nested ones by the recursion, on shorter text), within the size bound of the whole code."""
    for node in ast.walk(tree):
        text = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""
        if len(text) < 8 or "(" not in text:
            continue
        inner = python_effects(text)
        if inner.parsed and (inner.commands or inner.scripts or inner.dynamic):
            effects.commands.extend(inner.commands)
            effects.scripts.extend(inner.scripts)
            effects.dynamic = effects.dynamic or inner.dynamic


def _aliases(tree: ast.AST) -> dict[str, str]:
    """The names that stand for a module or one of its members, each by its full dotted name: `import shutil as
    sh` (sh is shutil), `from os import system` (system is os.system), `from os import path as op`, and a name
    assigned once a reference to one (`run = subprocess.call`, `o = __import__('os')`, `s = getattr(os,
    'system')`). Only a name bound once in the whole code is trusted, as `_names` trusts paths."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.asname: a.name for a in node.names if a.asname}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found |= {a.asname or a.name: f"{node.module}.{a.name}" for a in node.names if a.name != "*"}
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            reference = _dotted(node.value)
            if reference and reference != UNKNOWN:
                found[node.targets[0].id] = reference
    bound_times = bindings(tree)
    return {name: dotted for name, dotted in found.items() if dotted and bound_times[name] == 1}


class _Canonical(ast.NodeTransformer):
    """Each read of an alias replaced by the dotted reference it stands for (`sh.rmtree` → `shutil.rmtree`),
    followed through aliases of aliases, so that the call tables see the names they list."""

    def __init__(self, aliases: Mapping[str, str]) -> None:
        self.aliases = aliases

    def visit_Name(self, node: ast.Name) -> ast.expr:
        dotted, seen = node.id, set()
        while isinstance(dotted, str) and dotted.split(".", 1)[0] in self.aliases and dotted not in seen:
            seen.add(dotted)
            head, _, tail = dotted.partition(".")
            dotted = self.aliases[head] + (f".{tail}" if tail else "")
        if dotted == node.id or not isinstance(node.ctx, ast.Load):
            return node
        try:
            return ast.copy_location(ast.parse(dotted, mode="eval").body, node)
        except SyntaxError:
            return node


def _reaches(name: str) -> bool:
    """A function of the call tables: one that runs a command, touches a file or builds code."""
    tables = (_CALLS.shell, _CALLS.subprocess, _CALLS.files, _CALLS.dynamic)
    return any(name in table for table in tables) or name.startswith(_CALLS.shell_prefixes)


def _passed_as_value(tree: ast.AST, aliases: Mapping[str, str]) -> bool:
    """Whether the code uses a function of the call tables other than by calling it where it names it
    (`map(os.remove, names)`, `functools.partial(os.system, …)`, `os.system.__call__(…)`): what it is called
    with is not followed. An alias assigned once (`run = subprocess.call`) is followed through `_Canonical`."""
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    named = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name) and node.targets[0].id in aliases
    }  # fmt: skip
    for node in ast.walk(tree):
        if isinstance(node, ast.Name | ast.Attribute) and id(node) not in called | named and _reaches(_dotted(node)):
            return True
    return False


_UNROLLED = 16  # the items of a literal loop whose body is read once per item


class _Unrolled(ast.NodeTransformer):
    """A loop over a literal list of strings (`for d in ("build", "dist"): shutil.rmtree(d)`, `[os.remove(f) for f
    in ["a.o", "b.o"]]`) read as its body once per item, the loop variable that item: the calls then name
    literals. Only a variable no other binding touches, and at most _UNROLLED items."""

    def __init__(self, bindings: Counter[str]) -> None:
        self.bindings = bindings

    def _items(self, target: ast.expr, found: ast.expr) -> tuple[str, list[str]] | None:
        if not isinstance(target, ast.Name) or self.bindings[target.id] != 1:
            return None
        if not isinstance(found, ast.List | ast.Tuple | ast.Set) or not 0 < len(found.elts) <= _UNROLLED:
            return None
        items = [e.value for e in found.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return (target.id, items) if len(items) == len(found.elts) else None

    def _listed(self, target: ast.expr, found: ast.expr) -> tuple[str, str] | None:
        """`for d in os.listdir(root)` / `os.scandir(root)`: (d, root) when root is a literal."""
        if not isinstance(target, ast.Name) or self.bindings[target.id] != 1 or not isinstance(found, ast.Call):
            return None
        if _dotted(found.func) not in ("os.listdir", "os.scandir") or len(found.args) > 1:
            return None
        root = _literal(found.args[0]) if found.args else "."
        return None if root == UNKNOWN else (target.id, root.rstrip("/") or "/")

    def visit_For(self, node: ast.For) -> Any:
        self.generic_visit(node)
        listed = self._listed(node.target, node.iter)
        if listed is not None:
            node.body = [_Entries(*listed).visit(statement) for statement in node.body]
            return node
        loop = self._items(node.target, node.iter)
        if loop is None or node.orelse:
            return node
        name, items = loop
        return [_substituted(statement, name, item) for item in items for statement in node.body]

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp) -> ast.expr:
        self.generic_visit(node)
        one = len(node.generators) == 1
        listed = self._listed(node.generators[0].target, node.generators[0].iter) if one else None
        if listed is not None:
            node.elt = _Entries(*listed).visit(node.elt)
            return node
        loop = self._items(node.generators[0].target, node.generators[0].iter) if one else None
        if loop is None:
            return node
        name, items = loop
        return ast.copy_location(ast.List([_substituted(node.elt, name, item) for item in items], ast.Load()), node)

    visit_ListComp = visit_SetComp = visit_GeneratorExp = _comprehension


class _Entries(ast.NodeTransformer):
    """Inside a loop over the entries of `root` (os.listdir, os.scandir): `os.path.join(root, d)` and a
    DirEntry's `d.path` are `root/*`, every entry, as the shell's glob would name them."""

    def __init__(self, name: str, root: str) -> None:
        self.name, self.root = name, root

    def _is_entry(self, node: ast.expr) -> bool:
        return isinstance(node, ast.Name) and node.id == self.name

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        joined = _dotted(node.func) == "os.path.join" and len(node.args) == 2 and self._is_entry(node.args[1])
        if joined and _literal(node.args[0]).rstrip("/") == self.root:
            return ast.copy_location(ast.Constant(f"{self.root}/*"), node)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        self.generic_visit(node)
        if node.attr == "path" and self._is_entry(node.value):
            return ast.copy_location(ast.Constant(f"{self.root}/*"), node)
        return node


def _substituted(node: ast.AST, name: str, item: str) -> Any:
    """A copy of `node` with each read of `name` the literal `item`."""

    class Substitute(ast.NodeTransformer):
        def visit_Name(self, read: ast.Name) -> ast.expr:
            is_read = read.id == name and isinstance(read.ctx, ast.Load)
            return ast.copy_location(ast.Constant(item), read) if is_read else read

    return Substitute().visit(copy.deepcopy(node))


# `for p in root.rglob(…)`: p is each path found below root, as `find root` finds them
_FINDERS = frozenset({"glob", "rglob", "iterdir"})
# the glob module's functions: each name they give matches the pattern (relative to the cwd, `**` with recursive)
_GLOB_FUNCTIONS = frozenset({"glob.glob", "glob.iglob"})


@dataclass(frozen=True)
class _Bound:
    """What a name holds: a path (`p = Path("README.md")`), or each path a finder yields (`for p in
    root.rglob("*")`: `path` is the pattern, `below` the root when it is every file under it)."""

    path: str
    below: str = ""


def _names(tree: ast.AST) -> dict[str, _Bound]:
    """The names bound once to a known path, and the loop variables (`for`, comprehensions) bound to what a
    Path finder yields: `root.rglob(…)` every file below root, `root.glob("*.o")` the names it matches,
    `root.iterdir()` every entry. A name is trusted only when that is its one binding in the whole code: any
    other (a second assignment, a `for` or `with` target, unpacking, `:=`, a parameter, an import, `del`, …)
    makes what it holds known at run time only, as does code that writes a namespace as an object."""
    if writes_namespaces(tree):
        return {}
    bound: dict[str, _Bound] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = _literal(node.value)
            if value != UNKNOWN:
                bound[node.targets[0].id] = _Bound(value)
            continue
        if not isinstance(node, ast.For | ast.comprehension) or not isinstance(node.target, ast.Name):
            continue
        found = node.iter
        if isinstance(found, ast.Call) and _dotted(found.func) in _GLOB_FUNCTIONS and found.args:
            pattern = _literal(found.args[0])  # `for f in glob.glob("~/d/**/*", recursive=True)`: what it matches
            every = "**" in pattern
            bound[node.target.id] = _Bound(pattern, (pattern.split("**", 1)[0].rstrip("/") or ".") if every else "")
        elif isinstance(found, ast.Call) and isinstance(found.func, ast.Attribute) and found.func.attr in _FINDERS:
            root = _literal(found.func.value).rstrip("/") or "/"
            pattern = _literal(found.args[0]) if found.args else "*"
            every = found.func.attr == "rglob" or "**" in pattern
            bound[node.target.id] = _Bound(
                f"{root}/**/{pattern}" if every else f"{root}/{pattern}", root if every else ""
            )
    bound_times = bindings(tree)
    return {name: b for name, b in bound.items() if bound_times[name] == 1}  # rebound: not known


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else node.attr
    if isinstance(node, ast.Call) and _imports(_dotted(node.func)) and node.args:
        return _literal(node.args[0])  # `__import__('os').system`, `builtins.__import__('os')`
    if isinstance(node, ast.Call) and _dotted(node.func) == "getattr" and len(node.args) >= 2:
        owner, member = _dotted(node.args[0]), node.args[1]  # `getattr(os, 'system')` is os.system
        if owner and isinstance(member, ast.Constant) and isinstance(member.value, str):
            return f"{owner}.{member.value}"
    return ""


def _imports(name: str) -> bool:
    """The functions that import a module by its name: `__import__` (also as `builtins.__import__`,
    `__builtins__.__import__`) and `importlib.import_module`."""
    return name in ("__import__", "importlib.import_module") or name.endswith((".__import__", ".import_module"))


_HOME_CALLS = frozenset({"Path.home", "pathlib.Path.home", "os.path.expanduser", "os.getenv", "os.environ.get"})
_SAME_PATH = frozenset({"expanduser", "resolve", "absolute", "expandvars"})  # `p.expanduser()` is p


def _literal(node: ast.expr | None) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    found = _home(node) or _method_path(node)
    if found:
        return found
    called = _dotted(node.func) if isinstance(node, ast.Call) else ""
    if isinstance(node, ast.Call) and called in ("tempfile.mkdtemp", "tempfile.gettempdir"):  # named as `$(mktemp -d)`
        given = next((k.value for k in node.keywords if k.arg == "dir"), node.args[2] if len(node.args) > 2 else None)
        where = _literal(given) if given is not None else "/tmp"  # (https://docs.python.org/3/library/tempfile.html)
        return where if called.endswith("gettempdir") or where == UNKNOWN else f"{where.rstrip('/')}/tmp.mktemp"
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


def _method_path(node: ast.expr | None) -> str:
    """The path of `p.expanduser()`, `p.resolve()` (p itself) and `p.joinpath(a, b)`, or "" when not known."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return ""
    if node.func.attr in _SAME_PATH and not node.args:
        inner = _literal(node.func.value)
        return "" if inner == UNKNOWN else inner
    if node.func.attr == "joinpath":
        joined = [_literal(node.func.value), *(_literal(a) for a in node.args)]
        return "" if UNKNOWN in joined else "/".join(p.rstrip("/") for p in joined)
    return ""


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


# calls that act on another process, given its pid first: a signal (`os.kill`; `os.pidfd_open`, whose descriptor
# `signal.pidfd_send_signal` signals), its limits (`resource.prlimit`), its scheduling or CPUs: each is judged as
# `kill PID` is, so a pid the code looked up names the process it acts on
_SCHEDULING = frozenset({"os.sched_setscheduler", "os.sched_setaffinity", "os.sched_setparam"})
_ACTS_ON_PID = _SCHEDULING | {"os.kill", "os.killpg", "os.pidfd_open", "resource.prlimit"}


def _call(node: ast.Call, effects: Effects, bound: Mapping[str, _Bound]) -> None:
    name = _dotted(node.func)
    short = name.rsplit(".", 1)[-1]
    first = node.args[0] if node.args else None
    if name in _CALLS.dynamic or ((_imports(name) or name == "getattr") and _computed(node)) or name in _CHDIR:
        effects.dynamic = True  # (a directory changed: every relative path after it is somewhere else)
    elif name in _CALLS.shell or name.startswith(_CALLS.shell_prefixes):
        _run(node, first, name in _CALLS.shell, effects, bound)
    elif name in _CALLS.subprocess or name in _CALLS.argv:
        shell = any(k.arg == "shell" and _truthy(k.value) for k in node.keywords) or name.endswith(("shell", "output"))
        first = ast.List(list(node.args), ast.Load()) if name in _CALLS.argv else first  # each argument a word
        _run(node, first, shell and not isinstance(first, ast.List | ast.Tuple), effects, bound)
    elif name in _ACTS_ON_PID or name in _PERMISSIONS or (short == "chmod" and _receiver(node) is not None):
        (_kill if name in _ACTS_ON_PID else _permissions)(node, name, effects)
    elif name in _CALLS.files:
        _file_call(node, _CALLS.files[name], effects, bound)
    elif name in OPENS or (isinstance(node.func, ast.Name) and name == "open"):
        _open(node, first, True, effects, bound)
    elif short == "open":  # Path(p).open(mode); `p = Path.home() / "x"; p.open("a")`: what the name holds
        opened = node.func.value if isinstance(node.func, ast.Attribute) else None
        name_held = opened if isinstance(opened, ast.Name) and opened.id in bound else None
        _open(node, _receiver(node) or name_held, False, effects, bound)
    elif short == "urlopen" or name in _CALLS.network:
        _connect(first, effects)
    elif short in _CALLS.path_methods and isinstance(node.func, ast.Attribute):
        receiver = _receiver(node)
        owner = node.func.value
        target = [_literal(first)] if _CALLS.path_methods[short][0] in ("mv", "ln") else []  # p.rename(to)
        if receiver is not None:
            effects.commands.append([*_CALLS.path_methods[short], _literal(receiver), *target])
        elif isinstance(owner, ast.Name) and owner.id in bound:  # `for p in root.rglob("*"): p.unlink()`
            command, held = _CALLS.path_methods[short], bound[owner.id]
            # every file below a root removed is the root's content gone, as `rm -r -f root/*` would
            removes = command[0] == "rm" and held.below and held.path.endswith("/**/*")
            effects.commands.append(["rm", "-r", "-f", held.below] if removes else [*command, held.path])
        elif _is_path_value(owner) and not target:  # a path from elsewhere: known at run time only
            effects.commands.append([*_CALLS.path_methods[short], UNKNOWN])  # (`df.rename(…)` is no path)


# calls that change the process's directory (https://docs.python.org/3/library/os.html#os.chdir, contextlib.chdir)
_CHDIR = frozenset({"os.chdir", "os.fchdir", "contextlib.chdir"})


def _kill(node: ast.Call, _name: str, effects: Effects) -> None:
    first = node.args[0] if node.args else None
    value = first.value if isinstance(first, ast.Constant) else None
    effects.kills.append(str(value) if isinstance(value, int) else "")


# https://docs.python.org/3/library/os.html#os.chmod, #os.chown, https://docs.python.org/3/library/shutil.html#shutil.chown
_PERMISSIONS = frozenset({"os.chmod", "os.lchmod", "os.chown", "os.lchown", "shutil.chown"})


def _permissions(node: ast.Call, name: str, effects: Effects) -> None:
    """`os.chmod(p, 0o777)` is `chmod 777 p`, `os.chown(p, uid, gid)` `chown uid:gid p`, `Path(p).chmod(m)` the
    same on its receiver; a mode or owner computed at run time stands as an unknown word."""
    receiver = _receiver(node) if name.rsplit(".", 1)[-1] == "chmod" and not name.startswith("os.") else None
    path, rest = (receiver, node.args) if receiver is not None else (node.args[0] if node.args else None, node.args[1:])
    values = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, int) else None for a in rest]
    if name.endswith("chmod"):
        mode = oct(values[0])[2:] if values and values[0] is not None else UNKNOWN
        effects.commands.append(["chmod", mode, _literal(path)])
    else:
        owner = ":".join(str(v) for v in values[:2]) if values[:2] and None not in values[:2] else UNKNOWN
        effects.commands.append(["chown", owner, _literal(path)])


def _file_call(node: ast.Call, command: list[str], effects: Effects, bound: Mapping[str, _Bound]) -> None:
    """`shutil.rmtree(p)`, `os.remove(f)`: the paths given, a loop variable standing for what its finder yields
    (every file below a root removed is the root's content gone, as `rm -r -f root` would)."""
    first = node.args[0] if node.args else None
    held = bound.get(first.id) if isinstance(first, ast.Name) else None
    if held is not None and command[0] == "rm" and held.below and held.path.endswith("/**/*"):
        effects.commands.append(["rm", "-r", "-f", held.below])
        return
    paths = [bound[a.id].path if isinstance(a, ast.Name) and a.id in bound else _literal(a) for a in node.args[:2]]
    if any(w in _SLOTS for w in command):  # `tar -x -f {0} -C {1}`: the arguments where the command takes them
        given = [*paths, ".", "."]  # a directory not given is the current one (`shutil.unpack_archive(f)`)
        effects.commands.append([given[_SLOTS.index(w)] if w in _SLOTS else w for w in command])
        return
    effects.commands.append([*command, *paths])


_SLOTS = ("{0}", "{1}")


def _connect(first: ast.expr | None, effects: Effects) -> None:
    """A connection opened (`urlopen`, `requests.post`, …): urllib of a `file:` URL reads that file; any other is
    a fetch of its URL, with which what the code read may be sent."""
    url = _literal(first) if first is not None else UNKNOWN
    if url.lower().startswith("file://"):
        effects.commands.append(["cat", url[7:]])
    else:
        effects.commands.append(["curl", "-fsS", url if url.lower().startswith(("http://", "https://")) else UNKNOWN])


def _is_path_value(owner: ast.expr) -> bool:
    """A receiver that can be a path: a name or an attribute (`p.unlink()`, `self.path.write_text(…)`), not a
    literal or a call whose result hookd knows is no path (`"x".touch` never parses as a path anyway)."""
    return isinstance(owner, ast.Name | ast.Attribute | ast.Subscript)


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


def _run(node: ast.Call, first: ast.expr | None, shell: bool, effects: Effects, bound: Mapping[str, _Bound]) -> None:
    if first is None:
        return
    where = next((k.value for k in node.keywords if k.arg == "cwd"), None)
    if where is not None:  # `subprocess.run(…, cwd=D)`: the command runs in D, as `cd D && …` does
        _run_in(node, first, shell, _value(where, bound), effects, bound)
        return
    if shell:
        script = _literal(first)
        if script == UNKNOWN:
            effects.dynamic = True
        else:
            effects.scripts.append(script)
        return
    if isinstance(first, ast.List | ast.Tuple):
        effects.commands.append([_value(e, bound) for e in first.elts])
    elif isinstance(first, ast.Constant) and isinstance(first.value, str):
        given = node.args[1] if len(node.args) > 1 else None
        if isinstance(given, ast.List | ast.Tuple):  # os.execv(path, argv), os.posix_spawn(path, argv, env)
            effects.commands.append([first.value, *(_literal(a) for a in given.elts[1:])])
        else:
            effects.commands.append([first.value, *(_literal(a) for a in node.args[2:])])  # os.execl(path, arg0, …)
    else:
        effects.dynamic = True


def _run_in(
    node: ast.Call, first: ast.expr, shell: bool, where: str, effects: Effects, bound: Mapping[str, _Bound]
) -> None:
    """A command run in the directory `where` (a literal, a path on the home: `~`), as a script `cd D && …`."""
    ran = Effects()
    _run(_without_cwd(node), first, shell, ran, bound)
    if where == UNKNOWN or ran.dynamic:
        effects.dynamic = True
        return
    lines = [*ran.scripts, *(shlex.join(argv) for argv in ran.commands)]
    quoted = "~" + shlex.quote(where[1:]) if where.startswith("~/") else "~" if where == "~" else shlex.quote(where)
    effects.scripts.extend(f"cd {quoted} && {line}" for line in lines)


def _without_cwd(node: ast.Call) -> ast.Call:
    return ast.Call(node.func, node.args, [k for k in node.keywords if k.arg != "cwd"])


def _open(
    node: ast.Call, target: ast.expr | None, builtin: bool, effects: Effects, bound: Mapping[str, _Bound]
) -> None:
    if target is None:
        return
    positional = node.args[1:2] if builtin else node.args[:1]
    mode = positional[0] if positional else None
    mode = next((k.value for k in node.keywords if k.arg == "mode"), mode)
    text = open_mode(mode)
    writes = any(m in text for m in "wax+")
    effects.commands.append(["tee" if writes else "cat", _value(target, bound)])


def _value(node: ast.expr | None, bound: Mapping[str, _Bound]) -> str:
    """A literal's text, or what a name bound once holds (`p = "package.json"; open(p)`, each path `for p in
    glob.glob("src/**/*.py")` yields, as the pattern): else a value known only when the code runs."""
    if isinstance(node, ast.Name) and node.id in bound:
        return bound[node.id].path
    return _literal(node)
