"""A loop's condition whose exit status its text alone decides: `true`, `[ 1 = 0 ]`, `[[ 1 -eq 1 ]]`, `((1))`,
`! false`, `test x && :`. Anything the shell would expand (a `$`, a backquote, a glob in a pattern) or a program
not among the builtins read here leaves the status unknown (None): a loop is endless only when its condition is
known to be."""

from __future__ import annotations

import operator
import re
import shlex
from collections.abc import Callable

import tree_sitter

_TRUE = frozenset({"true", ":", "/bin/true", "/usr/bin/true"})
_FALSE = frozenset({"false", "/bin/false", "/usr/bin/false"})
_TEST = frozenset({"test", "[", "/usr/bin/test", "/usr/bin/[", "/bin/test", "/bin/["})
_EXPANDS = re.compile(r"[$`\\]|<\(|>\(")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_ARITHMETIC = re.compile(r"\(\(\s*([+-]?[0-9]+)\s*(?:(==|!=|<=|>=|<|>)\s*([+-]?[0-9]+)\s*)?\)\)")
_Compare = Callable[[int, int], bool]
_COMPARE: dict[str, _Compare] = {
    "-eq": operator.eq,
    "-ne": operator.ne,
    "-lt": operator.lt,
    "-le": operator.le,
    "-gt": operator.gt,
    "-ge": operator.ge,
}
_ARITHMETIC_COMPARE: dict[str, _Compare] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
_GLOB = re.compile(r"[*?\[]")


def constant_status(node: tree_sitter.Node, src: bytes) -> int | None:
    """The exit status of the condition `node` when its text alone decides it (0 true, 1 false), else None."""
    text = src[node.start_byte : node.end_byte].decode(errors="replace").strip().rstrip(";").strip()
    if _EXPANDS.search(text):
        return None
    if node.type == "negated_command":
        inner = node.named_children[-1] if node.named_children else None
        status = constant_status(inner, src) if inner is not None else None
        return None if status is None else int(status == 0)
    if node.type == "list" and len(node.children) == 3:
        return _listed(node, src)
    if node.type == "compound_statement":
        return _arithmetic(text)
    if node.type in ("command", "test_command"):
        return _command(text)
    return None


def _listed(node: tree_sitter.Node, src: bytes) -> int | None:
    left, joiner, right = node.children
    first = constant_status(left, src)
    if first is None or joiner.type not in ("&&", "||"):
        return None
    if (joiner.type == "&&") == (first != 0):
        return first  # `false && x`, `true || x`: the right side never runs
    return constant_status(right, src)


def _arithmetic(text: str) -> int | None:
    """`((1))`, `((2 > 1))`: integer literals only."""
    match = _ARITHMETIC.fullmatch(text)
    if match is None:
        return None
    left, compare, right = match.groups()
    if compare is None:
        return int(int(left) == 0)
    return int(not _ARITHMETIC_COMPARE[compare](int(left), int(right)))


def _command(text: str) -> int | None:
    try:
        words = shlex.split(text)
    except ValueError:
        return None
    if not words:
        return None
    if words[0] in _TRUE and len(words) == 1:
        return 0
    if words[0] in _FALSE and len(words) == 1:
        return 1
    if words[0] == "[[" and words[-1] == "]]":
        return _test(words[1:-1], double=True)
    if words[0] in _TEST:
        bracket = words[0].endswith("[")
        if bracket and words[-1] != "]":
            return None
        return _test(words[1:-1] if bracket else words[1:], double=False)
    return None


def _test(args: list[str], double: bool) -> int | None:
    """test(1) of literal strings and integers, by its number of arguments."""
    if args[:1] == ["!"]:
        status = _test(args[1:], double)
        return None if status is None else int(status == 0)
    if not args:
        return 1
    if len(args) == 1:
        return int(args[0] == "")
    if len(args) == 2 and args[0] in ("-n", "-z"):
        return int((args[1] == "") == (args[0] == "-n"))
    if len(args) == 3:
        return _binary(args[0], args[1], args[2], double)
    return None


def _binary(left: str, operator: str, right: str, double: bool) -> int | None:
    if operator in ("=", "==", "!="):
        if double and _GLOB.search(right):
            return None  # `[[ x == x* ]]` matches a pattern
        return int((left == right) == (operator == "!="))
    compare = _COMPARE.get(operator)
    if compare is None or not (_INTEGER.fullmatch(left) and _INTEGER.fullmatch(right)):
        return None
    return int(not compare(int(left), int(right)))
