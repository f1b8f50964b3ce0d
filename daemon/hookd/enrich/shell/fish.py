"""fish's `-c` text in the syntax the sh parsers read, where the two languages differ only in spelling
(https://fishshell.com/docs/current/language.html, fish-for-bash-users.html): a command substitution `(cmd)` is
sh's `$(cmd)`; blocks close with `end` (`for X in …; …; end`, `while …; end`, `if …; else if …; else; end`,
`begin; …; end`) where sh writes `do … done`, `then … fi`, `{ …; }`; `and`/`or` run the next command on the last one's
status (kept as the command itself: it may run); single quotes take `\\'` and `\\\\`; double quotes expand no
backticks. Text with syntax only fish has (`function`, `switch`, a list index `$x[1]`) gives None: it stays read as
before, where the sh parser's error asks."""

from __future__ import annotations

import shlex

# what each block opener needs after its header, and what closes it in sh
_HEADERS = {"for": "do", "while": "do", "if": "then"}
_CLOSERS = {"for": "done", "while": "done", "if": "fi", "begin": "}"}
_ONLY_FISH = frozenset({"function", "switch", "case"})
_BREAKS = frozenset({";", "\n", "|", "&"})
# fish's builtins that compute from their arguments and stdin only, touching no file and running nothing
# (https://fishshell.com/docs/current/cmds/string.html, math.html, count.html, contains.html, set_color.html):
# spelled as `echo`, which the effect model knows to print its operands; their substitutions still run
_PURE = frozenset({"string", "math", "count", "contains", "set_color"})


def fish_as_sh(text: str) -> str | None:
    """The sh spelling of a fish line, or None where it uses syntax only fish has."""
    reader = _Reader(text)
    try:
        while reader.at < len(text):
            reader.step()
        reader.flush()
    except _OnlyFish:
        return None
    if reader.blocks or reader.pending or reader.parens:
        return None
    return "".join(reader.out)


class _OnlyFish(Exception):
    """Syntax only fish has: the line stays as it was."""


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        self.out: list[str] = []
        self.blocks: list[str] = []  # the open blocks' keywords, innermost last
        self.pending = ""  # `do` or `then` owed after the header being read
        self.parens = 0
        self.word = ""
        self.command_start = True  # whether the word being read stands where a command starts
        self.opened = False  # whether the last word opened a group or an else branch

    def step(self) -> None:
        text, at = self.text, self.at
        char = text[at]
        if char in "'\"":
            self._quoted(char)
        elif char == "\\" and at + 1 < len(text):
            self.word += text[at : at + 2]
            self.at += 2
        elif char == "$" and at + 1 < len(text) and (text[at + 1].isalnum() or text[at + 1] == "_"):
            end = at + 1
            while end < len(text) and (text[end].isalnum() or text[end] == "_"):
                end += 1
            if end < len(text) and text[end] == "[":  # a list index
                raise _OnlyFish
            self.word += text[at:end]
            self.at = end
        elif char == "(" or text.startswith("$(", at):
            self.at += 1 if char == "(" else 2
            self.word += "$("
            self.parens += 1
        elif char == ")" and self.parens:
            self.flush()
            self.out.append(")")
            self.parens -= 1
            self.at += 1
        elif (char.isspace() and char != "\n") or char in _BREAKS:
            self._break(char)
        else:
            self.word += char
            self.at += 1

    def _quoted(self, quote: str) -> None:
        if quote == "'":
            end, value = _single(self.text, self.at + 1)
            self.word += shlex.quote(value) if value else "''"
        else:
            end = _double_end(self.text, self.at + 1)
            self.word += self.text[self.at : end].replace("`", "\\`")
        if end < 0:
            raise _OnlyFish
        self.at = end

    def _break(self, char: str) -> None:
        self.flush()
        if self.out and self.out[-1] == "else" and self.text[self.at :].lstrip().startswith("if "):
            self.out[-1] = "elif"  # one block, one `end`, in both languages
            self.at = self.text.index("if", self.at) + 2
            self.command_start = False
            self.pending = "then"
            return
        if char in ";\n" and self.opened:
            self.out.append(" ")
        elif char in _BREAKS:
            self.out.append(f"; {self.pending} " if self.pending and char in ";\n" else char)
            self.pending = "" if char in ";\n" else self.pending
            self.command_start = True
        else:
            self.out.append(char)
        self.at += 1

    def flush(self) -> None:
        current, starts = self.word, self.command_start
        self.word = ""
        if current:
            self.command_start = False
            self.opened = starts and current in ("else", "begin")  # sh takes no `;` right after `else` or `{`
            self.out.append(self._keyword(current) if starts else current)

    def _keyword(self, word: str) -> str:
        if word in _ONLY_FISH or (word == "else" and self.blocks[-1:] != ["if"]) or (word == "end" and not self.blocks):
            raise _OnlyFish
        if word in ("and", "or", "not", "begin", "else"):  # the next word starts the command they run
            self.command_start = True
        if word in _HEADERS:
            self.blocks.append(word)
            self.pending = _HEADERS[word]
        elif word == "begin":
            self.blocks.append(word)
        elif word == "end":
            return _CLOSERS[self.blocks.pop()]
        return _SPELLED.get(word, word)


# fish's words as sh spells them: `and`/`or` keep the command they run (it may run), pure builtins print
_SPELLED = {"and": "", "or": "", "not": "!", "begin": "{"} | dict.fromkeys(_PURE, "echo")


def _single(text: str, at: int) -> tuple[int, str]:
    """fish's single-quoted text: `\\'` and `\\\\` are escapes, nothing else is (the end after the quote, the value)."""
    value = ""
    while at < len(text):
        char = text[at]
        if char == "\\" and at + 1 < len(text) and text[at + 1] in "'\\":
            value += text[at + 1]
            at += 2
            continue
        if char == "'":
            return at + 1, value
        value += char
        at += 1
    return -1, ""


def _double_end(text: str, at: int) -> int:
    while at < len(text):
        if text[at] == "\\":
            at += 2
            continue
        if text[at] == '"':
            return at + 1
        at += 1
    return -1
