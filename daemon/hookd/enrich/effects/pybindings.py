"""How Python code binds names (hookd.enrich.effects.pycode): a name is trusted to hold what one binding gave it
only when the code binds it once, by every form Python has, and reaches no namespace as an object."""

from __future__ import annotations

import ast
from collections import Counter


def bindings(tree: ast.AST) -> Counter[str]:
    """How many times the code binds (or unbinds) each name, by every form Python has."""
    return Counter(name for node in ast.walk(tree) for name in _bound_by(node))


def _bound_by(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id] if isinstance(node.ctx, ast.Store | ast.Del) else []
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.alias):  # `import a.b` binds a
        return [(node.asname or node.name).split(".", 1)[0]]
    if isinstance(node, ast.Global | ast.Nonlocal):
        return list(node.names)
    if isinstance(node, ast.MatchMapping):
        return [node.rest] if node.rest else []
    named = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.ExceptHandler | ast.MatchAs | ast.MatchStar
    return [node.name] if isinstance(node, named) and node.name else []


# What reaches a namespace as an object, where a name can be bound without a binding the code shows
_NAMESPACE_NAMES = frozenset({"globals", "locals", "vars", "setattr", "delattr", "__main__", "__builtins__"})
_NAMESPACE_ATTRS = frozenset({"__dict__", "f_globals", "f_locals", "modules", "__setattr__", "__setitem__"})


def writes_namespaces(tree: ast.AST) -> bool:
    """Whether the code reaches a namespace other than by binding a name: `globals()`, `vars()`, `setattr`,
    `sys.modules`, a frame's locals, `from m import *` (which binds names the code does not show)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in _NAMESPACE_NAMES:
            return True
        if isinstance(node, ast.Attribute) and node.attr in _NAMESPACE_ATTRS:
            return True
        if isinstance(node, ast.alias) and node.name == "*":
            return True
    return False


class Inlined(ast.NodeTransformer):
    """Each read of a name that holds a known path (`d = Path.home() / ".config"`, bound once: `paths`) replaced by
    that path's literal where a path is built from it: an operand of `/` (`(d / "x.conf").write_text(…)`) and an
    argument of `os.path.join`, `Path(…)` or `joinpath` (`os.path.join(d, "x")`), so that the path built is known
    as the one written with literals is (blind-tamper-13)."""

    def __init__(self, paths: dict[str, str]) -> None:
        self.paths = paths

    def _literal(self, node: ast.expr) -> ast.expr:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in self.paths:
            return ast.copy_location(ast.Constant(self.paths[node.id]), node)
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        if isinstance(node.op, ast.Div):
            node.left, node.right = self._literal(node.left), self._literal(node.right)
        return node

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name in ("join", "joinpath") or name.endswith("Path"):
            node.args = [self._literal(a) for a in node.args]
        if name == "joinpath" and isinstance(func, ast.Attribute):
            func.value = self._literal(func.value)
        return node
