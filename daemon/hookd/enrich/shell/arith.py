"""Arithmetic expansion, `$((EXPR))`, where its value is known from the line (bash(1), "ARITHMETIC
EVALUATION"): integer literals (decimal, 0x hexadecimal, a leading 0 octal), variables set earlier on it to an
integer (`i` or `$i`), `+ - * / %` and parentheses. bash's integers are 64-bit and `/` and `%` truncate toward
zero, as C's do. Anything else (a comparison, an assignment, a variable not known, a quotient by zero) leaves
the expansion as written: unknown, as before."""

from __future__ import annotations

import ast
import re

_EXPANSION = re.compile(r"\$\(\(((?:[^()]|\([^()]*\))*)\)\)")
_TOKEN = re.compile(r"\s*(?:(0[xX][0-9A-Fa-f]+|0[0-7]*|[1-9][0-9]*)|\$?\{?([A-Za-z_][A-Za-z0-9_]*)\}?|([-+*/%()]))")
_LIMIT = 1 << 63
_MAX_TEXT = 256  # an expression longer than this is left unknown


def arithmetic(word: str, variables: dict[str, str]) -> str:
    """`word` with each `$((EXPR))` whose value is known replaced by that value."""
    return _EXPANSION.sub(lambda match: _value(match, variables), word)


def _value(match: re.Match[str], variables: dict[str, str]) -> str:
    python = _as_python(match.group(1), variables)
    if python is None:
        return match.group(0)
    try:
        value = _evaluate(ast.parse(python, mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError, RecursionError):
        return match.group(0)
    return match.group(0) if value is None else str(value)


def _as_python(text: str, variables: dict[str, str]) -> str | None:
    """The expression with its literals as decimal numbers and its variables' values put in; None when a part
    is not a literal, a known integer variable or an operator `+ - * / % ( )`."""
    if len(text) > _MAX_TEXT:
        return None
    out, at, text = [], 0, text.rstrip()
    while at < len(text):
        token = _TOKEN.match(text, at)
        if token is None or token.end() == at:
            return None
        literal, name, operator = token.groups()
        if literal is not None:
            out.append(str(int(literal, 16 if literal[:2].lower() == "0x" else 8 if literal[:1] == "0" else 10)))
        elif name is not None:
            known = variables.get(name, "").strip()
            if not re.fullmatch(r"-?[0-9]+", known):
                return None
            out.append(f"({int(known)})")
        else:
            out.append(operator)
        at = token.end()
    return " ".join(out) or None


def _evaluate(node: ast.expr) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _evaluate(node.operand)
        return None if operand is None else -operand if isinstance(node.op, ast.USub) else operand
    if not isinstance(node, ast.BinOp):
        return None
    left, right = _evaluate(node.left), _evaluate(node.right)
    if left is None or right is None or not (abs(left) < _LIMIT and abs(right) < _LIMIT):
        return None
    if isinstance(node.op, ast.Add):
        return left + right
    if isinstance(node.op, ast.Sub):
        return left - right
    if isinstance(node.op, ast.Mult):
        return left * right
    if isinstance(node.op, (ast.Div, ast.Mod)):
        quotient = abs(left) // abs(right) * (1 if (left < 0) == (right < 0) else -1)  # C's: toward zero
        return quotient if isinstance(node.op, ast.Div) else left - right * quotient
    return None
