"""Text the running shell evaluates later as code, walked where the line writes it (as a trap's action is).

* A value given to a variable the shell itself reads as code or as a prompt (the catalogue's `environment` table
  for `bash`/`sh`: `PS4` is expanded before each command `set -x` traces, `PROMPT_COMMAND` runs before a prompt):
  `PS4='+$(curl …)'; set -x; ls` runs the substitution (bash(1), "Shell Variables").
* A subscript in a value the shell may evaluate arithmetically: a variable's value in an arithmetic context is
  itself an expression, and an array subscript in it is expanded, command substitution included (bash(1),
  "ARITHMETIC EVALUATION"; https://mywiki.wooledge.org/ArithmeticExpression): `x='a[$(rm -rf ~)]'; echo $((x))`,
  `[[ $x -gt 0 ]]`, `declare -i n; n=$x`, `let 'n=a[$(…)]'` all run it. Where the value is used is not followed:
  nobody writes a substitution into a subscript as text for another reason.
"""

from __future__ import annotations

import re

from hookd.enrich.effects.catalogue import catalogue

_SUBSCRIPT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\[[^\]]*(?:\$\(|`)")
_THIS_SHELL = frozenset({"bash", "sh"})
_ARITHMETIC_WORDS = frozenset({"let"})  # a builtin whose arguments are arithmetic expressions


def _quoted(text: str) -> str:
    """`: "TEXT"`: the text expanded as a double-quoted word, so only its substitutions run."""
    return ': "' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def evaluated_values(assigns: list[tuple[str, str]]) -> list[str]:
    """The scripts that assignments in the running shell make it run later (see the module doc)."""
    found: list[str] = []
    for name, value in assigns:
        if not value:
            continue
        entry = catalogue().environment.get(name)
        if entry is not None and entry.lang == "sh" and not _THIS_SHELL.isdisjoint(entry.programs):
            if entry.loads == "code":
                found.append(value)
            elif entry.loads == "prompt":
                found.append(_quoted(value))
        if "[" in value and _SUBSCRIPT.search(value):
            found.append(_quoted(value))
    return found


def evaluated_words(words: list[str]) -> list[str]:
    """The scripts a builtin's arithmetic arguments run through their subscripts (`let 'n=a[$(…)]'`)."""
    if not words or words[0] not in _ARITHMETIC_WORDS:
        return []
    return [_quoted(w) for w in words[1:] if "[" in w and _SUBSCRIPT.search(w)]
