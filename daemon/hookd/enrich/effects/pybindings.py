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
