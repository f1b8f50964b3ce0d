"""Parse a script into the tree, cached per script text: the linear fast path (`_FastParser`), then
tree-sitter-bash's tree converted (hookd.enrich.shell.sitter) for everything else, bashlex's AST
converted (`_Convert`) where tree-sitter cannot, and the fallback split when all fail."""

from __future__ import annotations

import functools
import re
from typing import Any

import bashlex
import bashlex.ast
import bashlex.errors
import bashlex.heredoc
import bashlex.subst

from hookd.enrich.shell import tree as shell_tree
from hookd.enrich.shell.fallback import _fallback, _heredoc_text
from hookd.enrich.shell.sitter import assigned_text, parse_with_sitter
from hookd.enrich.shell.tree import _EMPTY, _Block, _Decline, _Item, _Pipe, _Redir, _Simple, _TooDeep, _Unsupported
from hookd.enrich.shell.words import (
    _ARRAY_ASSIGN,
    _ASSIGN,
    _DIGITS,
    _FD_DUP,
    _META,
    _PLAIN,
    BRACE_MARK,
    _heredoc_body,
    _heredoc_op,
    _match_close,
    _read_word,
    _scan_substitutions,
    _unquote,
    has_brace_list,
    mark_unsplit,
)

# --------------------------------------------------------------------------------------------------
# Fast path: the common subset of bash in one pass

_RESERVED = frozenset(
    {"if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done",
     "function", "coproc", "in", "{", "}", "!"}
)  # fmt: skip
# `[[ … ]]` is not reserved here: bashlex cannot read it at all, and as a command named `[[` its words
# are what a rule sees (a `&&` inside splits it in two, which runs nothing either way).
_REDIR_OPS = ("&>>", "&>", "<<<", "<<-", "<<", ">>", ">&", ">|", "<&", "<>", ">", "<")


class _FastParser:
    """Simple commands (any quoting, `$VAR`, `$(…)`, backticks, `<(…)`) joined by pipes, `&&`, `||`,
    `;`, `&` and newlines, with redirects and here-documents, in one pass. Raises _Decline for
    anything else: subshells, groups, `if`/`for`/`while`/`case`, functions, comments, arithmetic,
    and substitutions whose inside does not parse."""

    __slots__ = (
        "assigns",
        "heredocs",
        "home",
        "i",
        "items",
        "level",
        "operators",
        "pending",
        "pipe",
        "redirects",
        "s",
        "subs",
        "words",
    )

    def __init__(self, s: str, home: str, level: int = 0) -> None:
        self.s = s
        self.home = home
        self.level = level  # how deep in substitutions this script is
        self.i = 0
        self.items: list[_Item] = []
        self.operators: list[str] = []  # the operator after each of `items` (tree.sequence)
        self.pipe: list[_Item] = []
        self.assigns: list[tuple[str, str]] = []
        self.words: list[str] = []
        self.redirects: list[_Redir] = []
        self.subs: list[_Block] = []
        self.pending = False  # after `|`, `&&`, `||`: another command must follow
        self.heredocs: list[tuple[str, bool, bool, list[_Block], _Redir]] = []  # waiting for the next line

    def parse(self) -> _Block:
        s = self.s
        n = len(s)
        while True:
            i = self.i
            while i < n and (s[i] in " \t" or (s[i] == "\\" and s[i + 1 : i + 2] == "\n")):
                i += 2 if s[i] == "\\" else 1
            self.i = i
            if i >= n:
                break
            c = s[i]
            if c in "<>" and s[i + 1 : i + 2] == "(":
                self._word()  # a process substitution
            elif c in "<>" or (c == "&" and s[i + 1 : i + 2] == ">"):
                self._redirect()
            elif c in "|&;\n":
                self._operator(c)
            elif c in "()#":
                raise _Decline  # subshells, functions, comments
            else:
                self._word()
        if self.heredocs:
            raise _Decline  # no line for the body
        if self.words or self.assigns or self.redirects:
            self._close_command()
        elif self.pending:
            raise _Decline  # ends in `|`, `&&` or `||`
        if self.pipe:
            self.items.append(self.pipe[0] if len(self.pipe) == 1 else _Pipe(self.pipe))
            self.operators.append(";")
        return _Block(shell_tree.sequence(self.items, self.operators))

    def _close_command(self) -> None:
        self.pipe.append(_Simple(self.assigns, self.words, self.redirects, self.subs))
        self.assigns, self.words, self.redirects, self.subs = [], [], [], []
        self.pending = False

    def _operator(self, c: str) -> None:
        two = self.s[self.i : self.i + 2]
        if two in (";;", ";&"):
            raise _Decline  # `case`
        op = two if two in ("||", "|&", "&&") else c
        self.i += len(op)
        if self.words or self.assigns or self.redirects:
            self._close_command()
            if op in ("|", "|&"):
                self.pending = True
            else:
                self.items.append(self.pipe[0] if len(self.pipe) == 1 else _Pipe(self.pipe))
                self.operators.append(op)
                self.pipe = []
                self.pending = op in ("&&", "||")
        elif op != "\n":
            raise _Decline  # an operator without a command before it
        if op == "\n" and self.heredocs:
            self._heredoc_bodies()

    def _heredoc_bodies(self) -> None:
        for delimiter, quoted, strip_tabs, subs, redirect in self.heredocs:
            body, self.i = _heredoc_body(self.s, self.i, delimiter, strip_tabs)
            redirect.body = body
            if not quoted:  # an unquoted delimiter: the body is expanded
                subs.extend(self._substitution(script) for script in _scan_substitutions(body) if script.strip())
        self.heredocs = []

    def _substitution(self, script: str) -> _Block:
        block, error = _parse_script(script, self.home, self.level + 1)
        if error is not None:
            raise _Decline  # the full parser reports it
        return _Block(block.items, subst=True)

    def _operand(self, start: int) -> tuple[str, int]:
        """The word at `start` (`<(…)` included), its substitutions added to the command's."""
        s = self.s
        scripts: list[str] = []
        if s.startswith(("<(", ">("), start):
            end = _match_close(s, start + 2) + 1
            if end < len(s) and s[end] not in _META:
                raise _Decline
            text = s[start:end]
            scripts.append(s[start + 2 : end - 1])
        else:
            plain = _PLAIN.match(s, start)  # the common case: nothing to decode
            if plain is not None and (plain.end() == len(s) or s[plain.end()] in _META):
                word = plain.group()
                return (BRACE_MARK + word if "{" in word and has_brace_list(word) else word), plain.end()
            text, end = _read_word(s, start, self.home, scripts)
        for script in scripts:
            if script.strip():  # `$()`, ``: nothing runs
                self.subs.append(self._substitution(script))
        return text, end

    def _redirect(self, fd: int | None = None) -> None:
        s, i = self.s, self.i
        op = next(op for op in _REDIR_OPS if s.startswith(op, i))
        if op in ("<<", "<<-"):
            delimiter, quoted, strip_tabs, self.i = _heredoc_op(s, i)
            redirect = _Redir(op, delimiter, False)
            self.heredocs.append((delimiter, quoted, strip_tabs, self.subs, redirect))
            self.redirects.append(redirect)
            return
        i += len(op)
        while i < len(s) and s[i] in " \t":
            i += 1
        if i >= len(s) or s[i] == "#" or (s[i] in _META and not (s[i] in "<>" and s[i + 1 : i + 2] == "(")):
            raise _Decline  # no target
        if op in (">&", "<&") and s[i] == "-":  # `>&-` closes the fd; what follows is another word
            self.redirects.append(_Redir(op, "-", False, fd=fd))
            self.i = i + 1
            return
        target, self.i = self._operand(i)
        is_path = op != "<<<" and not (op in (">&", "<&") and _FD_DUP.fullmatch(target))
        self.redirects.append(_Redir(op, target, is_path, fd=fd))

    def _word(self) -> None:
        s, start = self.s, self.i
        assignment = _ASSIGN.match(s, start) if not self.words else None
        if assignment is not None:
            value, self.i = self._operand(assignment.end())
            value = assigned_text(s[assignment.end() : self.i], value)
            self.assigns.append(shell_tree.assignment(assignment.group()[:-1], value))
            return
        text, self.i = self._operand(start)
        if self.i < len(s) and s[self.i] in "<>" and _DIGITS.fullmatch(s, start, self.i):
            self._redirect(int(s[start : self.i]))  # `2>file`: the digits are the fd
            return
        if not self.words:
            raw = s[start : self.i]
            if raw in _RESERVED or _ARRAY_ASSIGN.match(raw):
                raise _Decline
        self.words.append(mark_unsplit(s[start : self.i], text))


# --------------------------------------------------------------------------------------------------
# Full path: bashlex's AST to the tree


def _makeheredoc(tokenizer: Any, redirnode: Any, lineno: int, killleading: bool) -> str:
    """bashlex 0.18's `heredoc.makeheredoc`, fixed: it compared the body's lines with the delimiter as
    written, so `<<'EOF'` (what agents write most) never found its end and failed to parse."""
    delimiter = _unquote(redirnode.output.word)
    document = []
    startpos = tokenizer._shell_input_line_index
    fullline = tokenizer.readline(False)
    while fullline:
        if killleading:
            fullline = fullline.lstrip("\t")
            if not fullline:
                break
        if fullline[:-1] == delimiter and fullline[len(delimiter) : len(delimiter) + 1] == "\n":
            document.append(fullline[:-1])
            break
        document.append(fullline)
        fullline = tokenizer.readline(False)
    if not fullline:
        raise bashlex.errors.ParsingError(
            f"here-document at line {lineno} delimited by end-of-file (wanted {delimiter!r})",
            tokenizer._shell_input_line,
            tokenizer._shell_input_line_index,
        )
    text = "".join(document)
    endpos = tokenizer._shell_input_line_index - 1
    redirnode.heredoc = bashlex.ast.node(kind="heredoc", value=text, pos=(startpos, endpos))
    if redirnode.pos[1] + 1 == startpos:
        redirnode.pos = (redirnode.pos[0], endpos)
    return text


bashlex.heredoc.makeheredoc = _makeheredoc

_bashlex_paramexpand = bashlex.subst._paramexpand


def _paramexpand(parserobj: Any, string: str, sindex: int) -> Any:
    """bashlex 0.18's `subst._paramexpand`, guarded: for a `${` without a `}` (`'${'x` is valid bash)
    it returned index 0 and the caller re-read the word from its start forever, eating memory."""
    if string.startswith("${", sindex) and string.find("}", sindex + 2) < 0:
        raise bashlex.errors.ParsingError("bad substitution: no closing '}'", string, sindex)
    return _bashlex_paramexpand(parserobj, string, sindex)


bashlex.subst._paramexpand = _paramexpand


class _Convert:
    """bashlex nodes of one script to the tree; words are decoded from the script's own text."""

    __slots__ = ("errors", "heredocs", "home", "level", "src")

    def __init__(self, src: str, home: str, level: int = 0) -> None:
        self.src = src
        self.home = home
        self.level = level
        self.errors: list[str] = []
        # The spans of here-document bodies seen so far. Inside `"$(cat <<'EOF' … EOF)"` bashlex
        # takes a `$(…)` or backtick of the body for a substitution of the enclosing word.
        self.heredocs: list[tuple[int, int]] = []

    def script(self, parts: list[Any]) -> _Block:
        items: list[_Item] = []
        for part in parts:
            self._item(part, items)
        return _Block(items)

    def _item(self, node: Any, items: list[_Item]) -> None:
        kind = node.kind
        if kind == "for":
            self._for(node, items)
        elif kind == "list":
            self._list(node, items)
        elif kind in ("if", "while", "until"):
            self._flow(node, items)
        elif kind == "pipeline":
            self._pipeline(node, items)
        elif kind == "command":
            items.append(self._simple(node))
        elif kind == "compound":
            items.append(self._compound(node))
        elif kind == "function":  # its body, run where it is called (hookd.enrich.shell.build)
            body: list[_Item] = []
            for part in node.parts[1:]:
                self._item(part, body)
            name = next((getattr(p, "word", None) for p in node.parts if p.kind == "word"), None)
            items.append(_Block(body, subshell=True, function=name if isinstance(name, str) else None))
        elif kind == "word":  # the words of `for x in …`
            items.extend(self._subs(node))
        elif kind not in ("reservedword", "operator", "pipe"):
            raise _Unsupported(kind)

    def _flow(self, node: Any, items: list[_Item]) -> None:
        """`if`: the condition runs, each branch after `then`, `elif`, `else` may not; `while`, `until`: a loop."""
        if node.kind != "if":
            loop: list[_Item] = []
            for part in node.parts:
                self._item(part, loop)
            items.append(_Block(loop, repeats=True))
            return
        body = items
        for part in node.parts:
            if part.kind == "reservedword" and part.word in ("then", "elif", "else"):
                body = []
                items.append(_Block(body, maybe=True))
            else:
                self._item(part, body)

    def _list(self, node: Any, items: list[_Item]) -> None:
        """Commands joined by `&&`, `||`, `;`, `&` (tree.sequence)."""
        pipelines: list[_Item] = []
        operators: list[str] = []
        for part in node.parts:
            if part.kind == "operator":
                if pipelines and len(operators) < len(pipelines):
                    operators.append(part.op)
                continue
            inner: list[_Item] = []
            self._item(part, inner)
            if len(operators) < len(pipelines):
                operators.append(";")
            pipelines.append(inner[0] if len(inner) == 1 else _Block(inner))
        operators.extend([";"] * (len(pipelines) - len(operators)))
        items.extend(shell_tree.sequence(pipelines, operators))

    def _for(self, node: Any, items: list[_Item]) -> None:
        """`for x in WORDS; do BODY; done`: the substitutions in WORDS, then BODY with x holding every word
        (as hookd.enrich.shell.sitter reads it)."""
        words = [p for p in node.parts if p.kind == "word"]
        values: list[str] = []
        body: list[_Item] = []
        for part in node.parts:
            if part.kind == "word":
                items.extend(self._subs(part))
                if part is not words[0]:
                    values.append(self._word(part))
            elif part.kind not in ("reservedword", "operator"):
                self._item(part, body)
        if not words:
            items.extend(body)
            return
        items.append(_Block(body, binds=(str(words[0].word), tuple(values))))

    def _pipeline(self, node: Any, items: list[_Item]) -> None:
        elements: list[_Item] = []
        for part in node.parts:
            if part.kind not in ("pipe", "reservedword"):
                inner: list[_Item] = []
                self._item(part, inner)
                elements.append(inner[0] if len(inner) == 1 else _Block(inner))
        piped: list[_Item] = elements[:1] if len(elements) == 1 else [_Pipe(elements)] if elements else []
        negated = any(p.kind == "reservedword" and p.word == "!" for p in node.parts)
        items.extend([_Block(piped)] if negated else piped)  # `! false`: not its command's status (tree.exits)

    def _compound(self, node: Any) -> _Block:
        items: list[_Item] = []
        subshell = False
        for part in node.list:
            if part.kind == "reservedword":
                subshell = subshell or part.word == "("
            else:
                self._item(part, items)
        before: list[_Block] = []
        redirects = [self._redirect(r, before) for r in getattr(node, "redirects", None) or ()]
        return _Block([*before, *items], subshell=subshell, redirects=redirects)

    def _simple(self, node: Any) -> _Simple:
        assigns: list[tuple[str, str]] = []
        words: list[str] = []
        redirects: list[_Redir] = []
        subs: list[_Block] = []
        for part in node.parts:
            kind = part.kind
            # bashlex takes `NAME=value` after a redirect (`2>&1 A=1 cmd`) for a word; bash does not
            if not words and (
                kind == "assignment" or (kind == "word" and _ASSIGN.match(self.src, part.pos[0], part.pos[1]))
            ):
                assigns.append(self._assign(part))
                subs.extend(self._assign_subs(part))
            elif kind in ("word", "assignment"):
                words.append(mark_unsplit(self.src[part.pos[0] : part.pos[1]], self._word(part)))
                subs.extend(self._subs(part))
            elif kind == "redirect":
                redirects.append(self._redirect(part, subs))
            else:
                raise _Unsupported(kind)
        return _Simple(assigns, words, redirects, subs)

    def _word(self, node: Any) -> str:
        raw = self.src[node.pos[0] : node.pos[1]]
        try:
            text, end = _read_word(raw, 0, self.home, [])
            if end == len(raw):
                return text
        except _Decline:
            pass
        text = str(node.word)
        parts = getattr(node, "parts", None) or ()
        if parts:  # bashlex's own quote removal; expand as _read_word would
            first = parts[0]
            if first.kind == "tilde" and first.pos[0] == node.pos[0] and (text == "~" or text.startswith("~/")):
                text = self.home + text[1:]
            elif first.kind == "parameter" and getattr(first, "value", None) == "HOME":
                for prefix in ("${HOME}", "$HOME"):
                    if first.pos[0] - node.pos[0] <= 1 and text.startswith(prefix):
                        text = self.home + text[len(prefix) :]
                        break
        return text

    def _assign(self, node: Any) -> tuple[str, str]:
        raw = self.src[node.pos[0] : node.pos[1]]
        match = _ASSIGN.match(raw)
        if match is not None:
            try:
                value, end = _read_word(raw, match.end(), self.home, [])
                if end == len(raw):
                    return shell_tree.assignment(match.group()[:-1], assigned_text(raw[match.end() :], value))
            except _Decline:
                pass
        name, _, value = str(node.word).partition("=")
        return shell_tree.assignment(name, value)

    def _assign_subs(self, node: Any) -> list[_Block]:
        """The substitutions an assignment's value runs, read from its text as the word reader does (bashlex
        also takes a `$(…)` inside single quotes for one)."""
        raw = self.src[node.pos[0] : node.pos[1]]
        match = _ASSIGN.match(raw)
        scripts: list[str] = []
        try:
            if match is None or _read_word(raw, match.end(), self.home, scripts)[1] != len(raw):
                return self._subs(node)
        except _Decline:
            return self._subs(node)
        return [self._substitution_block(script) for script in scripts if script.strip()]

    def _substitution_block(self, script: str) -> _Block:
        block, error = _parse_script(script, self.home, self.level + 1)
        if error is not None:
            self.errors.append(error)
        return _Block(block.items, subst=True)

    def _subs(self, node: Any) -> list[_Block]:
        found: list[_Block] = []
        for part in getattr(node, "parts", None) or ():
            if any(start <= part.pos[0] < end for start, end in self.heredocs):
                continue  # the body is text (or, with an unquoted delimiter, scanned by _redirect)
            if part.kind in ("commandsubstitution", "processsubstitution"):
                inner: list[_Item] = []
                self._item(part.command, inner)
                if inner:
                    found.append(_Block(inner, subst=True))
            elif part.kind == "parameter":  # `${x:-$(…)}`: bashlex leaves the inside unparsed
                value = getattr(part, "value", None)
                if isinstance(value, str) and ("$(" in value or "`" in value):
                    found.extend(self._scan(value))
        return found

    def _scan(self, text: str) -> list[_Block]:
        return [self._substitution_block(script) for script in _scan_substitutions(text) if script.strip()]

    def _redirect(self, node: Any, subs: list[_Block]) -> _Redir:
        op = str(node.type)
        output = getattr(node, "output", None)
        if op in ("<<", "<<-"):
            if output is None or not hasattr(output, "pos"):
                return _Redir(op, None, False)
            heredoc = getattr(node, "heredoc", None)
            if heredoc is not None:
                self.heredocs.append(heredoc.pos)
            delimiter = self.src[output.pos[0] : output.pos[1]]
            if heredoc is not None and not any(q in delimiter for q in "'\"\\"):
                body = getattr(heredoc, "value", None)
                if isinstance(body, str) and ("$(" in body or "`" in body):
                    subs.extend(self._scan(body))  # an unquoted delimiter: the body is expanded
            word = self._word(output)
            return _Redir(op, word, False, _heredoc_text(getattr(heredoc, "value", None), word))
        if output is None:
            return _Redir(op, None, False)
        if isinstance(output, int | str):
            fd = getattr(node, "input", None)
            return _Redir(op, str(output), False, fd=fd if isinstance(fd, int) else None)
        target = self._word(output)
        subs.extend(self._subs(output))
        is_path = op != "<<<" and not (op in (">&", "<&") and _FD_DUP.fullmatch(target))
        fd = getattr(node, "input", None)
        return _Redir(op, target, is_path, fd=fd if isinstance(fd, int) else None)


# --------------------------------------------------------------------------------------------------
# Parse, cached

# bashlex is pure Python (~60 µs a character on long lists); longer scripts that the fast path cannot
# read get the fallback and a parse error rather than a parse of a second or more.
_MAX_FULL_PARSE = 16 * 1024
_MAX_NESTING = 24  # substitutions inside substitutions
_CACHE_MAX_LEN = 8 * 1024
# What reads the scripts the fast path declines: "tree-sitter" (then bashlex where it fails), or "bashlex"
# alone (the differential test compares the two).
FULL_PARSER = "tree-sitter"


def _one_line(exc: BaseException, script: str = "") -> str:
    lines = str(exc).strip().splitlines()
    message = lines[0] if lines else ""
    if not isinstance(exc, bashlex.errors.ParsingError):
        message = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    # bashlex 0.18's end-of-input token keeps the first script that met it: its error named that one's length
    return re.sub(r"^unexpected EOF \(position \d+\)$", f"unexpected EOF (position {len(script)})", message)[:200]


def _parse_uncached(script: str, home: str, level: int = 0, starred: bool = False) -> tuple[_Block, str | None]:
    """The tree of one script and the parser's error (None when it parsed); `starred`: its extended patterns were
    read as `*` already (once: the second reading is the last). Raises _TooDeep."""
    if level > _MAX_NESTING:
        raise _TooDeep
    if not script.strip():
        return _EMPTY, None
    try:
        return _FastParser(script, home, level).parse(), None
    except _TooDeep:
        raise
    except RecursionError:
        raise _TooDeep from None
    except Exception:  # _Decline; or a bug in the fast path, which must not hide the command
        pass  # tree-sitter tries
    if len(script) > _MAX_FULL_PARSE:
        return _fallback(script, home), f"command too long to parse ({len(script)} characters)"
    if FULL_PARSER == "tree-sitter":
        parsed = _parse_sitter(script, home, level)
        if parsed is not None:
            return parsed
    try:
        converter = _Convert(script, home, level)
        block = converter.script(bashlex.parse(script))
    except _TooDeep:
        raise
    except RecursionError:
        raise _TooDeep from None
    except Exception as exc:  # bashlex raises many kinds (ParsingError, NotImplementedError, …)
        plain = script if starred or "(" not in script else _EXTGLOB.sub(_as_star, script)
        if plain != script:  # neither parser reads extglob: each group read as `*`, a superset of what it matches
            return _parse_uncached(plain, home, level, True)
        return _fallback(script, home), _one_line(exc, script)
    return block, converter.errors[0] if converter.errors else None


# bash's extended patterns (`!(cache)`, `*.@(jpg|png)`: "Pattern Matching", shopt extglob) in a word, or as an argument;
# only names and pattern characters inside, none of zsh's glob qualifiers that run code (`*(e-cmd-)`, `*(+fn)`)
_EXTGLOB = re.compile(r"(?:(?<=[^\s;&|()<>])|(?<=[^\s;&|()<>][ \t]))[?*+@!]\(([\w.|*?\[\]/-]*)\)")
_RUNS_CODE = re.compile(r"e\W")


def _as_star(group: re.Match[str]) -> str:
    return group.group(0) if _RUNS_CODE.search(group.group(1)) else "*"


def _parse_sitter(script: str, home: str, level: int) -> tuple[_Block, str | None] | None:
    """tree-sitter-bash's reading, or None where bashlex is to try (hookd.enrich.shell.sitter)."""
    try:
        return parse_with_sitter(script, home, level, _parse_script)
    except _TooDeep:
        raise
    except RecursionError:
        raise _TooDeep from None
    except Exception:  # _Unsupported (a syntax error, a node it does not convert), or a bug
        return None


_parse_cached = functools.lru_cache(maxsize=512)(_parse_uncached)


def _parse_script(script: str, home: str, level: int = 0) -> tuple[_Block, str | None]:
    if len(script) <= _CACHE_MAX_LEN:
        return _parse_cached(script, home, level)
    return _parse_uncached(script, home, level)
