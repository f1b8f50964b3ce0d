"""The fallback: a shlex split of the text, when no parser can read the script (the error is reported)."""

from __future__ import annotations

import re
import shlex

from hookd.enrich.shell.tree import _Block, _Item, _Pipe, _Redir, _Simple, assignment
from hookd.enrich.shell.words import _ASSIGN, _FD_DUP, _NAME

# --------------------------------------------------------------------------------------------------
# Fallback: a shlex split, when the parser cannot read the script

_MAX_SHLEX = 256 * 1024  # beyond this the fallback splits with a regular expression
_FALLBACK_PUNCTUATION = "();<>|&`\n"
_FALLBACK_SKIP = frozenset(
    {"!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "esac", "function"}
)
_CRUDE_TOKEN = re.compile(r"\|\||&&|\|&|[|;&\n()`]|[^\s|;&()`]+")


def _fallback_tokens(script: str) -> list[str]:
    if len(script) > _MAX_SHLEX:
        return _CRUDE_TOKEN.findall(script)
    try:
        lexer = shlex.shlex(script, posix=True, punctuation_chars=_FALLBACK_PUNCTUATION)
        lexer.whitespace = " \t\r"
        lexer.whitespace_split = True
        lexer.commenters = ""
        return list(lexer)
    except ValueError:  # unbalanced quotes
        return _CRUDE_TOKEN.findall(script)


def _token_kind(token: str) -> str:
    if token in ("|", "|&"):
        return "pipe"
    if not token or any(c not in _FALLBACK_PUNCTUATION for c in token):
        return "word"
    if token == ">|" or (token.startswith(("<", ">", "&>")) and not any(c in token for c in "();|`\n")):
        return "redirect"
    return "separator"


def _expand_home(token: str, home: str) -> str:
    if token == "~" or token.startswith("~/"):
        return home + token[1:]
    if token.startswith("${HOME}"):
        return home + token[7:]
    if token.startswith("$HOME") and not _NAME.match(token, 5) and not token[5:6].isdigit():
        return home + token[5:]
    return token


def _fallback_simple(tokens: list[str], home: str) -> _Simple | None:
    k = 0
    while k < len(tokens) and tokens[k] in _FALLBACK_SKIP:
        k += 1
    assigns: list[tuple[str, str]] = []
    words: list[str] = []
    redirects: list[_Redir] = []
    while k < len(tokens):
        token = tokens[k]
        k += 1
        if _token_kind(token) == "redirect":
            target = None
            if k < len(tokens) and _token_kind(tokens[k]) == "word":
                target = _expand_home(tokens[k], home)
                k += 1
            is_path = (
                target is not None
                and not token.startswith("<<")
                and not (token in (">&", "<&") and _FD_DUP.fullmatch(target))
            )
            redirects.append(_Redir(token, target, is_path))
        elif not words and _ASSIGN.match(token):
            name, _, value = token.partition("=")
            assigns.append(assignment(name, _expand_home(value, home)))
        else:
            words.append(_expand_home(token, home))
    if not (assigns or words or redirects):
        return None
    return _Simple(assigns, words, redirects, [])


def _fallback(script: str, home: str) -> _Block:
    """Best effort for what the parser could not read: a shlex split, cut into commands at `|`, `&&`,
    `||`, `;`, `&`, newlines, parentheses and backticks (so the inside of `$(…)` shows up too)."""
    items: list[_Item] = []
    pipe: list[_Item] = []
    current: list[str] = []

    def close_command() -> None:
        simple = _fallback_simple(current, home)
        if simple is not None:
            pipe.append(simple)
        current.clear()

    for token in _fallback_tokens(script):
        kind = _token_kind(token)
        if kind in ("word", "redirect"):
            current.append(token)
            continue
        close_command()
        if kind == "separator" and pipe:
            items.append(pipe[0] if len(pipe) == 1 else _Pipe(list(pipe)))
            pipe.clear()
    close_command()
    if pipe:
        items.append(pipe[0] if len(pipe) == 1 else _Pipe(list(pipe)))
    return _Block(items)


def _heredoc_text(value: object, delimiter: str) -> str | None:
    """bashlex's here-document value without its closing delimiter line, as the fast path gives it."""
    if not isinstance(value, str):
        return None
    head, _, last = value.rpartition("\n")
    if last.lstrip("\t") == delimiter:
        return head + "\n" if head or value.startswith("\n") else ""
    return value


def _reads_duplicate(simple: _Simple) -> bool:
    """Its stdin is another of its descriptors duplicated (`0>&1`, `0<&2`, `<&1`)."""
    return any(r.op in ("<&", ">&") and r.fd in (0, None) and r.target in ("1", "2") for r in simple.redirects)
