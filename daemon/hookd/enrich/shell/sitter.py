"""The full parse path: tree-sitter-bash's syntax tree converted to the tree (`_Block`, `_Pipe`, `_Simple`).
Owned by the policies engineer.

tree-sitter-bash (C, the whole grammar: `case`, `[[ ]]`, functions, loops, `select`, `coproc`) reads what
the one-pass lexer declines, in microseconds where bashlex took milliseconds. Words are decoded from the
script's own text by `_read_word`, as on the fast path, so both give the same argv; the inside of a
substitution is parsed again as a script (one level deeper), as the fast path does. A tree with an error
node, or a node this module does not know, raises `_Unsupported` and the caller tries bashlex.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

import tree_sitter
import tree_sitter_bash

from hookd.enrich.shell.conditions import loop_status
from hookd.enrich.shell.tree import (
    ARRAY_MARK,
    _Block,
    _Decline,
    _Item,
    _Pipe,
    _Redir,
    _Simple,
    _Unsupported,
    and_or,
    assignment,
)
from hookd.enrich.shell.words import (
    _ASSIGN,
    _FD_DUP,
    LITERAL_MARK,
    _read_word,
    _scan_substitutions,
    mark_unsplit,
)

_PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))

ParseScript = Callable[[str, str, int], tuple[_Block, str | None]]

# Statements whose named children are statements run in the same shell, one after the other.
_SEQUENCE = frozenset(
    {"program", "list", "if_statement", "elif_clause", "else_clause", "while_statement", "do_group",
     "case_item", "negated_command"}
)  # fmt: skip
_WORDS = frozenset(
    {"word", "string", "raw_string", "ansi_c_string", "translated_string", "concatenation", "simple_expansion",
     "expansion", "command_substitution", "process_substitution", "arithmetic_expansion", "number",
     "brace_expression"}
)  # fmt: skip
_SKIP = frozenset({"comment", "variable_name", "extglob_pattern", "regex", "test_operator"})
_BRANCHES = frozenset({"if_statement", "elif_clause", "else_clause"})
_CLAUSES = frozenset({"elif_clause", "else_clause"})  # an `if`'s branches (an `if` in a branch is a statement of it)
_COMMANDS = frozenset(
    {"declaration_command", "unset_command", "test_command", "variable_assignment", "variable_assignments"}
)  # read as one command each, their keyword (`export`, `[[`) its first word
_NESTED_TESTS = frozenset({"unary_expression", "binary_expression", "parenthesized_expression", "variable_assignments"})
# a variable an arithmetic command assigns: `n=1`, `n += 2` (not `==`), `n++`, `--n`
_ARITHMETIC_ASSIGNED = re.compile(
    r"([A-Za-z_][A-Za-z0-9_]*)[^\S\n]*(?:[-+*/%&|^]|<<|>>)?=(?!=)|(?:\+\+|--)[^\S\n]*([A-Za-z_][A-Za-z0-9_]*)"
    r"|([A-Za-z_][A-Za-z0-9_]*)[^\S\n]*(?:\+\+|--)"
)
_KEYWORDS = frozenset({"[[", "]]", "[", "]", "declare", "typeset", "export", "readonly", "local", "unset", "unsetenv"})


def assigned_text(raw: str, value: str) -> str:
    """An assignment's value, marked as text (words.LITERAL_MARK) when every `$` and backtick of its source is
    quoted: `c='kill $$'` holds `$$` as written (a shell that later runs "$c" expands it there), not a number."""
    marked = mark_unsplit(raw, value)
    return marked if marked.startswith(LITERAL_MARK) else value


class _Sitter:
    """One script's tree-sitter tree to the tree."""

    __slots__ = ("background", "errors", "home", "level", "parse_script", "src")

    def __init__(self, src: bytes, home: str, level: int, parse_script: ParseScript) -> None:
        self.src = src
        self.home = home
        self.level = level
        self.parse_script = parse_script
        self.errors: list[str] = []
        self.background = _Background(src)

    def text(self, node: tree_sitter.Node) -> str:
        return self.src[node.start_byte : node.end_byte].decode("utf-8", errors="surrogateescape")

    def script(self, root: tree_sitter.Node) -> _Block:
        items: list[_Item] = []
        self.statement(root, items)
        return _Block(items)

    def statement(self, node: tree_sitter.Node, items: list[_Item]) -> None:
        kind = node.type
        if kind in _SEQUENCE:
            self.sequence(node, _own_block(items) if kind == "negated_command" else items)
        elif kind == "command":
            items.append(self.simple(node))
        elif kind == "pipeline":
            items.append(self.pipeline(node))
        elif kind == "redirected_statement":
            items.append(self.redirected(node))
        elif kind == "compound_statement" and self.text(node).startswith("(("):
            items.append(_arithmetic(self.text(node), self.substitution))
        elif kind in ("subshell", "compound_statement"):
            items.append(self.block(node, subshell=kind == "subshell"))
        elif kind == "function_definition":  # its body, as if it ran where it is defined
            body = node.child_by_field_name("body")
            name = node.child_by_field_name("name")
            if body is not None:
                function = name.text.decode("utf-8", "replace") if name is not None and name.text else None
                subshell = body.type == "subshell"  # `f() ( … )`; `f() { …; }` runs in the caller's shell
                forks = function is not None and _backgrounds_itself(body, function, self.src)
                items.append(_Block(self.block(body).items, subshell=subshell, function=function, forks=forks))
        elif kind in ("for_statement", "select_statement", "case_statement"):
            self.loop(node, items)
        elif kind in _COMMANDS:
            items.append(self.simple(node))
        elif kind in _WORDS:  # `case` patterns and the like: only their substitutions run
            items.extend(self.word(node)[1])
        elif kind not in _SKIP:
            raise _Unsupported(kind)

    def sequence(self, node: tree_sitter.Node, items: list[_Item]) -> None:
        """Statements run one after the other in the same shell: one ended by `&` in a subshell of its own, an
        and-or list's parts and an `if`'s branches as blocks that may not run (tree.and_or), a `while` loop as a
        block that repeats, one that starts processes without bound (`_endless_spawning`) as a block that says so."""
        if node.type == "list":
            self.and_or(node, items)
            return
        loop = node.type == "while_statement"
        endless = loop and _endless_spawning(node, self.src, self.background)
        top: list[_Item] = [] if loop else items
        body, start = top, len(top)
        for child in node.children:
            if child.type == "&" and start < len(body):
                body[start:] = [_Block(body[start:], subshell=True)]
            elif child.type == "then" or (child.type in _CLAUSES and node.type in _BRANCHES):
                branch = _Block([], maybe=True)  # what follows `then`, an `elif` or an `else`
                top.append(branch)
                body = branch.items
                if child.is_named:
                    self.statement(child, body)
            elif child.is_named:
                start = len(body)
                self.statement(child, body)
        if loop:
            items.append(_Block(top, forks=endless, repeats=True))

    def and_or(self, node: tree_sitter.Node, items: list[_Item]) -> None:
        """`a && b || c`: tree-sitter nests the list to the left; its parts in order, with the operators between."""
        spine = [node]
        while (left := spine[-1].named_children[0] if spine[-1].named_children else None) and left.type == "list":
            spine.append(left)
        parts: list[list[_Item]] = []
        operators: list[str] = []
        for list_node in reversed(spine):
            for child in list_node.children:
                if child.type in ("&&", "||"):
                    operators.append(child.type)
                elif child.is_named and child.type != "list" and child.type not in _SKIP:
                    parts.append([])
                    self.statement(child, parts[-1])
        if len(parts) != len(operators) + 1:
            raise _Unsupported("and-or list")
        items.extend(and_or([[p[0]] if len(p) == 1 else [_Block(p)] for p in parts], operators))

    def loop(self, node: tree_sitter.Node, items: list[_Item]) -> None:
        """`for`/`select`/`case`: the substitutions in the words it goes through, then its body; the variable
        of `for`/`select` holds every word in turn (`for d in a b` is `d='a b'`: what uses it is judged for
        each word; with no `in`, the positional parameters)."""
        variable = node.child_by_field_name("variable") if node.type != "case_statement" else None
        values: list[str] = []
        for child in node.named_children:
            if child.type in _WORDS:
                text, subs = self.word(child)
                items.extend(subs)
                if child != variable:
                    values.append(text)
            elif child.type not in _SKIP and variable is not None:
                body: list[_Item] = []
                self.statement(child, body)
                binds = (self.text(variable), tuple(values))
                items.append(_Block(body, binds=binds, repeats=node.children[0].type == "select"))  # (until `break`)
            elif child.type == "case_item":  # an arm runs only when its pattern matches
                arm: list[_Item] = []
                self.statement(child, arm)
                items.append(_Block(arm, maybe=True))
            elif child.type not in _SKIP:
                self.statement(child, items)

    def block(self, node: tree_sitter.Node, subshell: bool = False) -> _Block:
        items: list[_Item] = []
        self.sequence(node, items)  # (a list ended by `&` inside it is a subshell of its own, as at the top)
        return _Block(items, subshell=subshell)

    def pipeline(self, node: tree_sitter.Node) -> _Item:
        elements: list[_Item] = []
        leading: list[_Item] = []
        for child in node.named_children:
            inner: list[_Item] = []
            self.statement(child, inner)
            element = inner[0] if len(inner) == 1 else _Block(inner)
            body = child.child_by_field_name("body") if child.type == "redirected_statement" else None
            if not elements and body is not None and body.type == "list" and isinstance(element, _Block):
                # tree-sitter reads `a && b 2>f | c` as `(a && b) 2>f | c`; in bash only b is piped to c
                leading, element = element.items[:-1], element.items[-1]
            # tree-sitter reads `a | b 2>f | c` as `(a | b) 2>f | c`; in bash it is one pipeline, b's redirect b's
            elements.extend(element.elements if isinstance(element, _Pipe) and body is not None else [element])
        piped = elements[0] if len(elements) == 1 else _Pipe(elements)
        return _Block([*leading, piped]) if leading else piped

    def redirected(self, node: tree_sitter.Node) -> _Item:
        body = node.child_by_field_name("body")
        subs: list[_Block] = []
        redirects: list[_Redir] = []
        tail: list[_Item] = []  # `cmd <<EOF | other`: tree-sitter hangs the rest of the line on the here-document
        for child in node.children_by_field_name("redirect"):
            more: list[_Redir] = []
            redirects.append(self.redirect(child, subs, tail, more))
            redirects.extend(more)
        if body is None:
            item: _Item = _Simple([], [], redirects, subs)
        elif body.type in ("list", "pipeline"):
            # tree-sitter hangs `a && b > f` on the whole list; in bash the redirect is the last command's, all
            # of it when that is a compound (`a && while read x; do …; done < f`: the loop's condition reads f)
            inner: list[_Item] = []
            self.statement(body, inner)
            inner = _attach_last(inner, redirects, subs)
            item = inner[0] if len(inner) == 1 else _Block(inner)
        elif body.type == "command":
            item = _attach(self.simple(body), redirects, subs)
        else:
            inner = []
            self.statement(body, inner)
            item = _attach(inner[0] if len(inner) == 1 else _Block(inner), redirects, subs)
        return _Pipe([item, *tail]) if tail else item

    def simple(self, node: tree_sitter.Node) -> _Simple:
        assigns: list[tuple[str, str]] = []
        words: list[str] = []
        redirects: list[_Redir] = []
        subs: list[_Block] = []
        for child in _joined(self.parts(node)):
            if isinstance(child, tuple):  # pieces of one word with nothing between them (`foo`cmd`bar`)
                raw = self.src[child[0] : child[1]].decode("utf-8", errors="surrogateescape")
                text, found = self.decode(raw, 0)
                words.append(mark_unsplit(raw, text))
                subs.extend(found)
                continue
            kind = child.type
            if kind == "variable_assignment" and not words:
                raw = self.text(child)
                match = _ASSIGN.match(raw)
                if match is None:
                    assigns.append(self.element(child, raw, subs))
                    continue
                value, found = self.assigned(child, raw, match.end())
                assigns.append(assignment(match.group()[:-1], value))
                subs.extend(found)
                for part in child.named_children:  # `X=<(cmd)`: bash runs it too
                    if part.type == "process_substitution" and self.text(part)[2:-1].strip():
                        subs.append(self.substitution(self.text(part)[2:-1]))
            elif kind in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                tail: list[_Item] = []
                more: list[_Redir] = []
                redirects.append(self.redirect(child, subs, tail, more))
                redirects.extend(more)
                if tail:
                    raise _Unsupported("here-document inside a command")
            elif kind == "number" and self.src[child.end_byte : child.end_byte + 1] in (b"<", b">"):
                continue  # `cat 0< f`: the grammar leaves the descriptor of the redirect after it as a word
            elif kind in _WORDS or kind in (
                "command_name",
                "variable_assignment",
                "variable_name",  # a name a declaration is given bare (`export PATH`, `declare -A seen`)
                "test_operator",
                "regex",
                "extglob_pattern",
            ):
                text, found = self.word(child)
                words.append(mark_unsplit(self.text(child), text))
                subs.extend(found)
            elif kind in _KEYWORDS or not child.is_named:  # a keyword, or a test's operator (`=`, `!`, `=~`)
                words.append(self.text(child))
            elif kind not in ("comment",):
                raise _Unsupported(kind)
        return _Simple(assigns, words, redirects, subs)

    def element(self, node: tree_sitter.Node, raw: str, subs: list[_Block]) -> tuple[str, str]:
        """`a[k]=v`, `a[k]+=v`: one element of an array set (bash(1), "Arrays"). The substitutions of its subscript
        and value run; the assignment is keyed `a[k]`, which makes the whole array unknown from here on
        (LineState.assign): which element was set is only known when the shell runs."""
        target = node.child_by_field_name("name")
        if target is None or target.type != "subscript":
            raise _Unsupported("array assignment")
        cut = len(self.text(target))  # `=` or `+=` follows the subscript
        _, found = self.decode(raw[:cut], 0)
        value, more = self.assigned(node, raw, cut + (2 if raw[cut : cut + 2] == "+=" else 1))
        subs.extend([*found, *more])
        return raw[:cut], value

    def parts(self, node: tree_sitter.Node) -> list[tree_sitter.Node]:
        """The word-level pieces of a command, in order: `[[ … ]]` and declarations are flattened to theirs."""
        if node.type in ("command", "variable_assignment"):
            return [node] if node.type == "variable_assignment" else list(node.named_children)
        found: list[tree_sitter.Node] = []
        for child in node.children:
            if child.type in _NESTED_TESTS:
                found.extend(self.parts(child))
            elif child.is_named or child.type in _KEYWORDS:
                found.append(child)
            elif node.type in ("unary_expression", "binary_expression"):
                found.append(child)  # `==`, `!`, `-f`: the test's operators are its words
        return found

    def word(self, node: tree_sitter.Node) -> tuple[str, list[_Block]]:
        raw = self.text(node)
        if node.type == "process_substitution":  # `<(…)`: the fast path's reading too
            return raw, [self.substitution(raw[2:-1])] if raw[2:-1].strip() else []
        return self.decode(raw, 0)

    def assigned(self, node: tree_sitter.Node, raw: str, start: int) -> tuple[str, list[_Block]]:
        """An assignment's value; an array marked as one (words.ARRAY_MARK), which its text alone does not tell
        from a quoted value in parentheses."""
        value, found = self.decode(raw, start)
        compound = any(part.type == "array" for part in node.named_children)
        return (ARRAY_MARK + value if compound else assigned_text(raw[start:], value)), found

    def decode(self, raw: str, start: int) -> tuple[str, list[_Block]]:
        scripts: list[str] = []
        try:
            text, end = _read_word(raw, start, self.home, scripts)
            if end != len(raw):
                raise _Decline
        except _Decline:
            text, scripts = raw[start:], _scan_substitutions(raw[start:])
        return text, [self.substitution(script) for script in scripts if script.strip()]

    def substitution(self, script: str) -> _Block:
        block, error = self.parse_script(script, self.home, self.level + 1)
        if error is not None:
            self.errors.append(error)
        return _Block(block.items, subst=True)

    def redirect(self, node: tree_sitter.Node, subs: list[_Block], tail: list[_Item], more: list[_Redir]) -> _Redir:
        """One redirect; what tree-sitter hangs on a here-document goes to `tail` (the rest of a pipeline)
        and `more` (further redirects of the same command)."""
        kind = node.type
        if kind == "heredoc_redirect":
            return self.heredoc(node, subs, tail, more)
        op = ""
        fd = ""
        target: tree_sitter.Node | None = None
        for child in node.children:
            if child.type == "file_descriptor":
                fd = self.text(child)
            elif not child.is_named:
                op += child.type
            elif target is None:
                target = child
            else:
                raise _Unsupported("redirect with two targets")
        if target is None:
            raise _Unsupported("redirect without a target")
        if op in (">&", "<&") and self.text(target) == "-":
            return _Redir(op, "-", False, fd=int(fd) if fd.isdigit() else None)
        text, found = self.word(target)
        subs.extend(found)
        is_path = op != "<<<" and not (op in (">&", "<&") and _FD_DUP.fullmatch(text))
        return _Redir(op, text, is_path, fd=int(fd) if fd.isdigit() else None)

    def heredoc(self, node: tree_sitter.Node, subs: list[_Block], tail: list[_Item], more: list[_Redir]) -> _Redir:
        op, delimiter, body = "<<", "", ""
        quoted = False
        for child in node.children:
            if child.type in ("<<", "<<-"):
                op = child.type
            elif child.type == "heredoc_start":
                raw = self.text(child)
                quoted = any(q in raw for q in "'\"\\")
                delimiter = _read_word(raw, 0, self.home)[0] if quoted else raw
            elif child.type == "heredoc_body":
                body = self.text(child)
            elif child.type == "heredoc_end":
                pass
            elif child.type in ("file_redirect", "herestring_redirect"):
                more.append(self.redirect(child, subs, tail, more))  # `cat <<EOF > out`: the command's
            elif child.type == "pipeline" or child.is_named:
                inner: list[_Item] = []
                self.statement(child, inner)
                if child.type == "pipeline" and len(inner) == 1 and isinstance(inner[0], _Pipe):
                    tail.extend(inner[0].elements)
                else:
                    tail.extend(inner)
            elif child.type not in ("|", "|&"):
                raise _Unsupported(f"here-document followed by {child.type!r}")
        if op == "<<-":
            body = "".join(line.lstrip("\t") for line in body.splitlines(keepends=True))
        if not quoted:  # an unquoted delimiter: the body is expanded
            subs.extend(self.substitution(script) for script in _scan_substitutions(body) if script.strip())
        return _Redir(op, delimiter, False, body)


def _attach(item: _Item, redirects: list[_Redir], subs: list[_Block]) -> _Item:
    """`item` with `redirects` (and the substitutions in them) on its last command, as bash binds them."""
    if not redirects and not subs:
        return item
    if isinstance(item, _Simple):
        return _Simple(item.assigns, item.words, [*item.redirects, *redirects], [*item.subs, *subs])
    if isinstance(item, _Pipe):
        return _Pipe([*item.elements[:-1], _attach(item.elements[-1], redirects, subs)])
    return replace(item, items=[*subs, *item.items], redirects=[*item.redirects, *redirects])


def _attach_last(items: list[_Item], redirects: list[_Redir], subs: list[_Block]) -> list[_Item]:
    """`items` (an and-or list's: tree.and_or) with `redirects` on the last part that runs, inside the blocks that
    say it may not run."""
    last = items[-1]
    if isinstance(last, _Block) and last.maybe and last.items and not last.redirects:
        last = replace(last, items=_attach_last(list(last.items), redirects, subs))
    else:
        last = _attach(last, redirects, subs)
    return [*items[:-1], last]


_WORD_PIECES = _WORDS | {"command_name"}


def _joined(parts: list[tree_sitter.Node]) -> list[tree_sitter.Node | tuple[int, int]]:
    """`parts` with word pieces that touch (no blank between them: one shell word) as one byte span."""
    out: list[tree_sitter.Node | tuple[int, int]] = []
    for node in parts:
        last = out[-1] if out else None
        if node.type in _WORD_PIECES and last is not None:
            if isinstance(last, tuple) and last[1] == node.start_byte:
                out[-1] = (last[0], node.end_byte)
                continue
            if not isinstance(last, tuple) and last.type in _WORD_PIECES and last.end_byte == node.start_byte:
                out[-1] = (last.start_byte, node.end_byte)
                continue
        out.append(node)
    return out


# Nodes whose whole span is text of theirs (their children need not cover it).
_WHOLE = frozenset({"heredoc_body", "string", "raw_string", "comment", "ansi_c_string", "translated_string", "regex"})


_CASE_ENDS = frozenset({";;", ";&", ";;&"})


def _covers(root: tree_sitter.Node, src: bytes) -> bool:
    """Whether every non-blank byte of `src` is in a token of the tree, and the tree holds nothing bash
    refuses that tree-sitter-bash lets pass (`;;` outside `case`). It drops a word now and then (the `-`
    of `python3 - <<'PY'`): such a tree would hide a word from the rules."""
    covered = bytearray(len(src))
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in _CASE_ENDS and (node.parent is None or node.parent.type != "case_item"):
            return False
        if node.child_count == 0 or node.type in _WHOLE:
            covered[node.start_byte : node.end_byte] = b"\x01" * (node.end_byte - node.start_byte)
        else:
            stack.extend(node.children)
    for i, byte in enumerate(src):
        if not covered[i] and byte not in b" \t\r\n" and not (byte == 0x5C and src[i + 1 : i + 2] == b"\n"):
            return False
    return True


def parse_with_sitter(script: str, home: str, level: int, parse_script: ParseScript) -> tuple[_Block, str | None]:
    """The tree of `script` and the first error of a substitution inside it (None when all parsed).
    Raises _Unsupported when tree-sitter finds a syntax error or builds a node this module does not know."""
    src = script.encode("utf-8", errors="surrogateescape")
    root = _PARSER.parse(src).root_node
    if root.has_error:
        raise _Unsupported("syntax error")
    if not _covers(root, src):
        raise _Unsupported("text the tree leaves out")
    converter = _Sitter(src, home, level, parse_script)
    block = converter.script(root)
    return block, converter.errors[0] if converter.errors else None


# A loop that never ends by its condition (`while true`, `until [ 1 = 0 ]`: `conditions.loop_status`), and the
# commands that wait for or stop what the loop started, or end the loop: a body that starts a process in the
# background and does none of them starts one more each turn, without bound (bash(1), "Lists": a command ended by
# `&` runs asynchronously).
_ENDS = frozenset({"wait", "kill", "pkill", "killall", "break", "exit", "return"})


def _arithmetic(text: str, substitution: Callable[[str], _Block]) -> _Item:
    """`((…))` (bash(1), "Compound Commands"): the substitutions in it run, and each variable it assigns
    (`n=…`, `n+=…`, `n++`, `--n`) holds a number known only when it runs; it runs no program."""
    assigned = {a or b or c for a, b, c in _ARITHMETIC_ASSIGNED.findall(text)}
    subs = [substitution(script) for script in _scan_substitutions(text) if script.strip()]
    if not assigned:
        return _Block(list(subs))
    return _Simple([(name, "$" + text) for name in sorted(assigned)], [], [], subs)


def _own_block(items: list[_Item]) -> list[_Item]:
    """A block appended to `items`, to put a command in whose exit status is not its own (`! false`: tree.exits)."""
    items.append(block := _Block([]))
    return block.items


def _endless_spawning(node: tree_sitter.Node, src: bytes, background: _Background) -> bool:
    """`while :; do sleep 1000 & done`: a loop its condition never ends whose body runs a command in the background
    and never waits for it, stops it or leaves the loop."""
    keyword = node.children[0].type if node.children else ""
    body = node.child_by_field_name("body")
    if body is None or keyword not in ("while", "until"):
        return False
    status = loop_status(node, src)
    if status is None or (status == 0) != (keyword == "while"):
        return False
    starts, ends = background.of(body)
    return starts and not ends


class _Background:
    """Whether a subtree starts a command in the background (`&`) and whether it runs one of _ENDS, outside the
    functions it defines (they run where they are called); each node's answer kept, so that a loop nested in
    loops is walked once, not once for each loop around it."""

    __slots__ = ("known", "src")

    def __init__(self, src: bytes) -> None:
        self.src = src
        self.known: dict[int, tuple[bool, bool]] = {}

    def of(self, node: tree_sitter.Node) -> tuple[bool, bool]:
        stack: list[tuple[tree_sitter.Node, bool]] = [(node, False)]
        while stack:
            current, children_done = stack.pop()
            if current.id in self.known:
                continue
            inner = [c for c in current.children if c.type != "function_definition"]
            if not children_done:
                stack.append((current, True))
                stack.extend((c, False) for c in inner if c.id not in self.known)
                continue
            starts = current.type == "&" or any(self.known[c.id][0] for c in inner)
            ends = (current.type == "command" and _name(current, self.src) in _ENDS) or any(
                self.known[c.id][1] for c in inner
            )
            self.known[current.id] = (starts, ends)
        return self.known[node.id]


def _backgrounds_itself(body: tree_sitter.Node, function: str, src: bytes) -> bool:
    """`f(){ f & f; }`, `f(){ f & }`: the function's body starts the function itself in the background, as a command
    of its own (not as a part of a list a test guards, `[ $n -gt 0 ] && f $((n-1)) &`): each call starts another,
    each in a process of its own, without bound."""
    for node in _descendants(body):
        following = node.next_sibling
        if node.type == "command" and following is not None and following.type == "&" and _name(node, src) == function:
            return True
    return False


def _descendants(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """Every node below `node`, but not inside a function defined there (it runs where it is called)."""
    found: list[tree_sitter.Node] = []
    stack = list(node.children)
    while stack:
        child = stack.pop()
        found.append(child)
        if child.type != "function_definition":
            stack.extend(child.children)
    return found


def _name(command: tree_sitter.Node, src: bytes) -> str:
    name = command.child_by_field_name("name")
    return src[name.start_byte : name.end_byte].decode(errors="replace") if name is not None else ""
