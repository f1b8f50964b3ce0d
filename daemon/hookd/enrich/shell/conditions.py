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
# an integer as test(1) reads it (decimal) and as arithmetic does (a leading 0 octal, 0x hex): at most 18 digits
_DECIMAL = re.compile(r"[+-]?[0-9]{1,18}")
_NUMBER = r"([+-]?(?:0[xX][0-9a-fA-F]{1,15}|[0-9]{1,18}))"
_ARITHMETIC = re.compile(rf"\(\(\s*{_NUMBER}\s*(?:(==|!=|<=|>=|<|>)\s*{_NUMBER}\s*)?\)\)")
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


def loop_status(loop: tree_sitter.Node, src: bytes) -> int | None:
    """The exit status of a `while`/`until` loop's condition list: its last command's (bash(1), "while")."""
    conditions = [c for c in loop.children_by_field_name("condition") if c.is_named]  # (not the `;` between)
    return constant_status(conditions[-1], src) if conditions else None


def constant_status(node: tree_sitter.Node, src: bytes) -> int | None:
    """The exit status of the condition `node` when its text alone decides it (0 true, 1 false), else None."""
    text = src[node.start_byte : node.end_byte].decode(errors="replace").strip().rstrip(";").strip()
    if _EXPANDS.search(text):
        return None
    inner = node.named_children[-1] if node.named_children else None
    if node.type == "negated_command":
        status = constant_status(inner, src) if inner is not None else None
        return None if status is None else int(status == 0)
    if node.type == "list" and len(node.children) == 3:
        return _listed(node, src)
    if node.type == "compound_statement" and text.startswith("(("):
        return _arithmetic(text)
    if node.type in ("subshell", "compound_statement", "pipeline") and inner is not None:
        return constant_status(inner, src)  # `(true)`, `{ true; }`, `: | :` (its last command's, without pipefail)
    if node.type == "redirected_statement":
        body = node.child_by_field_name("body")
        return constant_status(body, src) if body is not None else None
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
    first, second = _arithmetic_integer(left), _arithmetic_integer(right or "0")
    if first is None or second is None:
        return None
    return int(first == 0) if compare is None else int(not _ARITHMETIC_COMPARE[compare](first, second))


def _arithmetic_integer(text: str) -> int | None:
    """bash(1), ARITHMETIC EVALUATION: a leading 0x is hexadecimal, a leading 0 octal (08 is an error)."""
    digits = text.lstrip("+-")
    sign = -1 if text.startswith("-") else 1
    if digits[:2] in ("0x", "0X"):
        return sign * int(digits[2:], 16)
    if len(digits) > 1 and digits.startswith("0"):
        return sign * int(digits, 8) if set(digits) <= set("01234567") else None
    return sign * int(digits)


def _command(text: str) -> int | None:
    try:
        words = shlex.split(text)
    except ValueError:
        return None
    while words[:1] in (["command"], ["builtin"]):  # the builtin itself, as it runs (bash(1), SHELL BUILTINS)
        words = words[1:]
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
    if compare is None:
        return None
    if double:  # `[[ … -eq … ]]` evaluates its operands as arithmetic
        matched = [re.fullmatch(_NUMBER, w) for w in (left, right)]
        first, second = (_arithmetic_integer(w) if m else None for w, m in zip((left, right), matched, strict=True))
    else:
        first, second = (int(w) if _DECIMAL.fullmatch(w) else None for w in (left, right))
    if first is None or second is None:
        return None
    return int(not compare(first, second))
