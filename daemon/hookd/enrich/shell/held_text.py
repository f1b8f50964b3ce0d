"""Variables that hold quoted text, and the words that use them.

`c='awk "{print $1}" f'` gives `c` its text as written: the `$` inside is a character, not an expansion. Bash
expands a parameter once ("Shell Expansions": the value is not expanded again), so `bash -c "$c"` hands the
inner shell exactly that text, and `eval "$c"` parses it anew. The line's state keeps such a value among the
values known only when the line runs (`ShellState.built`, so every reading that needs a plain value still finds
none); the HeldText type marks it as known text, and a word that is exactly one quoted use of it becomes that
text, marked as quoted text (words.LITERAL_MARK) for the readings that know what a quoted `$` is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from hookd.enrich.shell.words import LITERAL_MARK, UNSPLIT_MARK

_HELD_CHARS = 4096  # as ShellState keeps of a value built at run time: a longer one is not known whole
_QUOTED_USE = re.compile(r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\}|\{!([A-Za-z_][A-Za-z0-9_]*)\})")


class HeldText(str):
    """A value assigned from quoted text, kept whole: its `$` and backticks are characters."""

    __slots__ = ()


def held(value: str) -> str:
    """What the state keeps of a value known only when the line runs (`value` as the parser marked it)."""
    if value.startswith(LITERAL_MARK) and len(value) - len(LITERAL_MARK) <= _HELD_CHARS:
        return HeldText(value[len(LITERAL_MARK) :])
    return value.removeprefix(LITERAL_MARK)[:_HELD_CHARS]


def with_held_texts(words: list[str], built: Mapping[str, str], variables: Mapping[str, str], source: str) -> list[str]:
    """`words` where a word is exactly `"$name"`, `"${name}"` or `"${!ref}"` (ref holding the name) of a variable
    holding quoted text: that text, marked as quoted text. An unquoted use (split and globbed by the shell) and a
    use among other text are left to the expansion, which does not know them. So is a variable the line's text
    (`source`) names other than by one assignment and its expansions (`_assigned_once`)."""
    if not built:
        return words
    return [_held_word(word, built, variables, source) for word in words]


def _held_word(word: str, built: Mapping[str, str], variables: Mapping[str, str], source: str) -> str:
    if not word.startswith(UNSPLIT_MARK) or (use := _QUOTED_USE.fullmatch(word, len(UNSPLIT_MARK))) is None:
        return word
    name = use.group(1) or use.group(2) or variables.get(use.group(3), "")  # `${!v}`: the variable v names
    text = built.get(name)
    if not isinstance(text, HeldText) or name in variables or not _assigned_once(name, source):
        return word
    return LITERAL_MARK + text


def _assigned_once(name: str, source: str) -> bool:
    """Whether the line names `name` only in one assignment (`name=…`) and in expansions of it. The walk follows
    assignments in the order of the text, but a value may also change by routes it does not follow in order: a
    loop's later pass, a trap's action that runs between commands, a command in the background, a pipeline's last
    command under `lastpipe`, an assignment before a function or a special builtin, a case attribute, a
    reference (`declare -n r=name`). Any other mention of the name as a word of its own (one after `$`, `{`, `!`
    or `#` is an expansion; one after `-` an option, `-vname` read by the walk) leaves the value unknown, which
    the rules ask about."""
    mentions = [m.span() for m in re.finditer(rf"(?<![-A-Za-z0-9_$!#{{]){re.escape(name)}(?![A-Za-z0-9_])", source)]
    if len(mentions) != 1:
        return False
    start, end = mentions[0]
    return source[end : end + 1] == "=" or source[max(0, start - 3) : start] == "-v "  # (`printf -v name …`)


def unheld(built: dict[str, str], names: Iterable[str] | None = None) -> None:
    """The variables `names` (None: all) changed by other than an assignment of quoted text (`read`, `local`,
    a function's return, `. FILE`): what the state keeps of them is no longer known text."""
    for name in built if names is None else names:
        if isinstance(value := built.get(name), HeldText):
            built[name] = str(value)
