"""Which top-level keys of `input` a set of Rego modules can read, found in their syntax trees (regorus's
`get_ast_as_json`), so that the engine converts only those for regorus and enrichment can leave out the facts
no policy reads.

Sound by construction, not by listing what a rule may do: every occurrence of the variable `input` is counted,
and the answer is a set of keys only when each of them is a reference by a constant name (`input.paths`,
`input["effects"]`, `import input.tool as t`, `with input.tool as …`). Any other use (`input[k]`,
`object.get(input, …)`, `walk(input, …)`, `some k, v in input`, `import input`, a variable that shadows it)
makes it None: every key. An over-approximation only ever hands a policy more than it reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from hookd.types import PackageInfo

_STRINGS = ("String", "RawString")
_INPUT_WORD = re.compile(r"(?<![\w.])input(?!\w)")


def module_reads(tree: Any, source: str) -> frozenset[str] | None:
    """The keys one module reads (`input_keys`); None also when its source names `input` and its tree shows no
    use of it at all: a syntax tree that no longer reads as this module expects never hides a read."""
    keys = input_keys([tree])
    return None if keys == frozenset() and _INPUT_WORD.search(source) else keys


def input_keys(trees: Iterable[Any]) -> frozenset[str] | None:
    """The top-level input keys the modules (their ASTs) read; None when a module reads `input` otherwise."""
    keys: set[str] = set()
    roots = keyed = 0
    stack: list[Any] = list(trees)
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        if _is_input(node):
            roots += 1
        for kind in ("RefDot", "RefBrack"):
            ref = node.get(kind)
            if isinstance(ref, dict) and _is_input(ref.get("refr")) and (key := _constant_key(kind, ref)) is not None:
                keys.add(key)
                keyed += 1
        if (key := _object_get_key(node.get("Call"))) is not None:
            keys.add(key)
            keyed += 1
        stack.extend(node.values())
    return frozenset(keys) if roots == keyed else None


def union_of(reads: Iterable[frozenset[str] | None]) -> frozenset[str] | None:
    """The keys any of the modules reads (a rule may call another package's): None when one reads any."""
    keys: set[str] = set()
    for read in reads:
        if read is None:
            return None
        keys |= read
    return frozenset(keys)


def route_inputs(applying: Sequence[PackageInfo], reads: frozenset[str] | None) -> frozenset[str] | None:
    """The input keys the packages read: those each declares, and for a package that declares none, those the
    modules were found to read (`reads`); None (all of them) when that is not known."""
    declared = [p.routing["input"] for p in applying if "input" in p.routing]
    if len(declared) < len(applying):  # a package that declares none reads what the modules were found to
        if reads is None:
            return None
        declared.append(reads)
    return frozenset().union(*declared) if applying else None


def _is_input(node: Any) -> bool:
    return _is_var(node, "input")


def _is_var(node: Any, name: str) -> bool:
    var = node.get("Var") if isinstance(node, dict) else None
    return isinstance(var, dict) and var.get("value") == name


def _field(ref: dict[str, Any]) -> str | None:
    field = ref.get("field")
    return field[-1] if isinstance(field, list) and field and isinstance(field[-1], str) else None


def _string(node: Any) -> str | None:
    """The value of a string literal node; None for anything else."""
    for literal in _STRINGS:
        value = node.get(literal) if isinstance(node, dict) else None
        if isinstance(value, dict) and isinstance(value.get("value"), str):
            return str(value["value"])
    return None


def _object_get_key(call: Any) -> str | None:
    """The key of `object.get(input, "<key>", …)` or `object.get(input, ["<key>", …], …)`; else None."""
    if not isinstance(call, dict):
        return None
    fcn, params = call.get("fcn"), call.get("params")
    ref = fcn.get("RefDot") if isinstance(fcn, dict) else None
    if not isinstance(ref, dict) or not _is_var(ref.get("refr"), "object") or _field(ref) != "get":
        return None
    if not isinstance(params, list) or len(params) != 3 or not _is_input(params[0]):
        return None
    path = params[1]
    items = path.get("Array", {}).get("items") if isinstance(path, dict) else None
    return _string(items[0] if isinstance(items, list) and items else path)


def _constant_key(kind: str, ref: dict[str, Any]) -> str | None:
    """The key of `input.<key>` or `input["<key>"]`; None for an index computed at evaluation."""
    return _field(ref) if kind == "RefDot" else _string(ref.get("index"))
