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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Protocol

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
    for node in _nodes(list(trees)):
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
    return frozenset(keys) if roots == keyed else None


def union_of(reads: Iterable[frozenset[str] | None]) -> frozenset[str] | None:
    """The keys any of the modules reads (a rule may call another package's): None when one reads any."""
    keys: set[str] = set()
    for read in reads:
        if read is None:
            return None
        keys |= read
    return frozenset(keys)


def route_inputs(
    applying: Sequence[PackageInfo],
    reads: frozenset[str] | None,
    by_package: Mapping[str, frozenset[str] | None] | None = None,
) -> frozenset[str] | None:
    """The input keys the packages read: those each declares, and for a package that declares none, those the
    modules were found to read (`reads`; `by_package`'s for a package that calls no other's, package_reads);
    None (all of them) when that is not known."""
    declared = [p.routing["input"] for p in applying if "input" in p.routing]
    undeclared = [p for p in applying if "input" not in p.routing]
    if undeclared:  # a package that declares none reads what the modules were found to
        found = applying_reads(undeclared, reads, by_package)
        if found is None:
            return None
        declared.append(found)
    return frozenset().union(*declared) if applying else None


def _nodes(stack: list[Any]) -> Iterator[dict[str, Any]]:
    """Every object of the syntax trees on `stack`, walked (not recursed: a deep tree costs no stack)."""
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            yield node
            stack.extend(node.values())


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


def calls_only_itself(tree: Any, package: str, roots: AbstractSet[str]) -> bool:
    """Whether every use of `data` in a module (its syntax tree) names its own package (`data.<package>…`) or a
    document under no package's root (`roots`: data.json's `data.secret_reads`): then no rule of another package
    runs for it, and its package reads only the keys its own modules read. Any other use (another package,
    `data[k]`, `import data`) is False."""
    outer: dict[int, dict[str, Any]] = {}  # each node's `.field` reference (`{"RefDot": …}`), by the node's id
    uses: list[Any] = []
    for node in _nodes([tree]):
        if _is_var(node, "data"):
            uses.append(node)
        ref = node.get("RefDot")
        if isinstance(ref, dict) and isinstance(ref.get("refr"), dict):
            outer[id(ref["refr"])] = node
    own = package.split(".")
    for use in uses:
        names: list[str | None] = []
        reference = outer.get(id(use))
        while reference is not None and len(names) < len(own):
            names.append(_field(reference["RefDot"]))
            reference = outer.get(id(reference))
        if not names or names[0] is None or (names[0] in roots and names != own):
            return False
    return True


class _Module(Protocol):
    @property
    def package(self) -> str: ...
    @property
    def reads(self) -> frozenset[str] | None: ...
    @property
    def calls_only_itself(self) -> bool: ...


class _Gate(Protocol):
    @property
    def package(self) -> str: ...
    @property
    def keys(self) -> frozenset[str]: ...


def package_reads(
    modules: Sequence[_Module], gates: Sequence[_Gate], reads: frozenset[str] | None
) -> dict[str, frozenset[str] | None]:
    """The input keys each package reads: its own modules' and its gates' where none of its modules names another
    package (`calls_only_itself`), else `reads` (every module's). Packages nested in one another (`hookd.a` and
    `hookd.a.b`: `data.hookd.a.b` names both) all get `reads`."""
    names = {module.package for module in modules}
    nested = any(other.startswith(name + ".") for name in names for other in names)
    by_package: dict[str, frozenset[str] | None] = {}
    for name in names:
        own = [module for module in modules if module.package == name]
        if nested or not all(module.calls_only_itself for module in own):
            by_package[name] = reads
            continue
        gated = [gate.keys for gate in gates if gate.package == name]
        by_package[name] = union_of([*(module.reads for module in own), *gated])
    return by_package


def applying_reads(
    applying: Sequence[PackageInfo],
    reads: frozenset[str] | None,
    by_package: Mapping[str, frozenset[str] | None] | None,
) -> frozenset[str] | None:
    """The input keys the packages of one route read (`by_package`'s, a package it lacks `reads`), else `reads`."""
    if by_package is None:
        return reads
    return union_of(by_package.get(package.name, reads) for package in applying)
