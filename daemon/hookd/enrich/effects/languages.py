"""What code in another language does that hookd can follow, from languages.json (docs/policies.md, "The
effect model"): the shell commands it runs given as literals (`system("make")`, `` `ls` ``, `.shell ls`), walked
as scripts of their own; the files its file calls name as string literals (`fs.rmSync('dist', {recursive:
true})`, `getline l < "VERSION"`), given back as the commands that do the same (`rm -r -f dist`) so that the
policies judge their canonical paths as any other; and whether anything else in it reaches the system (runs a
command, touches a file through a path built at run time, opens a socket, builds code at run time, calls a
function the language's table does not know to be inert) in a way hookd does not follow: then its exec effect
is not `known`. Python is read with its own parser (pycode.py). A language without an entry is never followed."""

from __future__ import annotations

import ast
import ipaddress
import re
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.packaged import packaged_runs
from hookd.enrich.effects.pycode import python_effects
from hookd.enrich.kernel_code import kernel_parts

# What each file operation is as a command; `--` ends the options, so a literal path that starts with `-` is a path
_AS_COMMAND: Mapping[tuple[str, bool], tuple[str, ...]] = {
    ("read", False): ("cat", "--"),
    ("read", True): ("cat", "--"),
    ("list", False): ("ls", "-d", "--"),
    ("list", True): ("ls", "-d", "--"),
    ("write", False): ("tee", "--"),
    ("write", True): ("tee", "--"),
    ("delete", False): ("rm", "-f", "--"),
    ("delete", True): ("rm", "-r", "-f", "--"),
    ("copy", False): ("cp", "--"),
    ("copy", True): ("cp", "-r", "--"),
    ("move", False): ("mv", "--"),
    ("move", True): ("mv", "--"),
    ("fetch", False): ("curl", "-fsSL", "-o"),  # `-o TO URL`: its targets in that order
    ("fetch", True): ("curl", "-fsSL", "-o"),
}


_SPACE = re.compile(r"\s+")
# Stands for the home directory in a path the code builds from the home's expression (a character no path holds)
HOME_MARK = "\u2302"


@dataclass(frozen=True, slots=True)
class Followed:
    known: bool  # nothing in the code reaches the system beyond `commands` and `files`
    commands: tuple[str, ...] = ()  # the shell command lines it runs, as written
    files: tuple[str, ...] = ()  # its file accesses, each as the command line doing the same (`rm -r -f -- dist`)


@dataclass(frozen=True, slots=True)
class _FileCall:
    op: str
    pattern: re.Pattern[str]  # group `path` (and `to` for copy and move): the string literal it names
    recursive: bool
    recursive_when: re.Pattern[str] | None  # tried on group `opts`: the call's options say it is recursive
    reader: str = ""  # op `include`: the program that reads the file's text as more code (`.read F`: sqlite3 < F)


@dataclass(frozen=True, slots=True)
class _Language:
    parser: str
    runs: tuple[re.Pattern[str], ...]
    files: tuple[_FileCall, ...]
    inert: tuple[re.Pattern[str], ...]
    lexers: tuple[re.Pattern[str], ...]  # a lexer's tokens: group `inert` a comment, the rest (strings) kept
    reaches: re.Pattern[str] | None
    tilde: bool  # its file calls read a leading `~` as the home directory (R's path.expand)
    calls: re.Pattern[str] | None  # a function call (group `name`): known only when the name is in `pure`
    strings: re.Pattern[str] | None  # its string literals, emptied before `reaches` and `calls` are tried
    pure: frozenset[str]
    environment: tuple[re.Pattern[str], ...]  # reads of the environment: group `var` names one, else all of it
    names_only: tuple[re.Pattern[str], ...]  # reads of the variables' names or count only: no value printed
    library: frozenset[str] = frozenset()  # the language's own tables: a call on any other is the host's API
    acts: tuple[str, ...] = ()  # words of a host API call's name that say it acts (runs, loads, touches files)
    home: tuple[re.Pattern[str], ...] = ()  # the home directory's expression joined to a literal (`os.homedir()+'/x'`)
    loops: tuple[re.Pattern[str], ...] = ()  # a loop over literal items: groups `var`, `items`, `block` or `body`
    spreads: tuple[re.Pattern[str], ...] = ()  # a file call given several literal paths: groups `name`, `items`
    listings: tuple[re.Pattern[str], ...] = ()  # a loop over a directory's entries: groups `var`, `items` (the root)
    item: re.Pattern[str] | None = None  # one literal of `items`
    home_calls: tuple[re.Pattern[str], ...] = ()  # a path call joining the home and literals: group `items`
    interpolated: tuple[re.Pattern[str], ...] = ()  # the home interpolated in a double-quoted string
    folds: re.Pattern[str] | None = None  # two string literals joined by the language's operator
    escapes: bool = False  # its `runs` commands are string literals with C's backslash escapes (awk's `\"`)
    argv_runs: tuple[re.Pattern[str], ...] = ()  # a program run with literal arguments: groups `items`, `prog`
    bindings: tuple[re.Pattern[str], ...] = ()  # a name bound to a string literal: groups `var`, `value`
    signals: tuple[re.Pattern[str], ...] = ()  # a signal sent to a process: groups `pid` (an expression), `sig`
    tokens: re.Pattern[str] | None = None  # one token of a lexer that reads all the code: group `code` is code
    packaged: Mapping[str, Any] | None = None  # a package's function called by its namespace (effects/packaged.py)


def _file_call(spec: Mapping[str, Any], literal: str) -> _FileCall:
    pattern = str(spec["pattern"])
    for name in ("path", "to"):
        pattern = pattern.replace("{" + name + "}", literal.replace("NAME", name))
    when = spec.get("recursive_when")
    return _FileCall(
        op=str(spec["op"]),
        pattern=re.compile(pattern),
        recursive=bool(spec.get("recursive", False)),
        recursive_when=re.compile(when) if when else None,
        reader=str(spec.get("reader", "")),
    )


@cache
def _language(lang: str) -> _Language | None:
    spec: Mapping[str, Any] | None = catalogue().languages.get(lang)
    if spec is None:
        return None
    reaches, calls, strings = spec.get("reaches"), spec.get("call"), spec.get("strings")
    join, homes = str(spec.get("join", r"\+")), "|".join(spec.get("home", ())) or "(?!)"
    literal = str(spec.get("literal", ""))
    return _Language(
        parser=str(spec.get("parser", "")),
        runs=tuple(re.compile(pattern) for pattern in spec.get("runs", ())),
        files=tuple(_file_call(call, literal) for call in spec.get("files", ())),
        inert=tuple(re.compile(pattern) for pattern in (*spec.get("inert", ()), *_task_patterns(spec))),
        lexers=tuple(re.compile(pattern) for pattern in spec.get("lexers", ())),
        reaches=re.compile(reaches) if reaches else None,
        tilde=bool(spec.get("expands_tilde", False)),
        calls=re.compile(calls) if calls else None,
        strings=re.compile(strings) if strings else None,
        pure=frozenset(spec.get("pure", ())),
        environment=tuple(re.compile(pattern) for pattern in spec.get("environment", ())),
        names_only=tuple(re.compile(pattern) for pattern in spec.get("environment_names", ())),
        library=frozenset(spec.get("hosted", {}).get("library", ())),
        acts=tuple(spec.get("hosted", {}).get("acts", ())),
        home=tuple(re.compile(rf"(?:{h})\s*(?:{join})\s*(['\"`])(/[^'\"`\\$\n]*)\1") for h in spec.get("home", ())),
        home_calls=tuple(re.compile(c.replace("{home}", f"(?:{homes})")) for c in spec.get("home_calls", ())),
        interpolated=tuple(re.compile(pattern) for pattern in spec.get("home_interpolated", ())),
        folds=re.compile(rf"(['\"])([^'\"\\\n$#]*)\1\s*(?:{join})\s*(['\"])([^'\"\\\n$#]*)\3")
        if "join" in spec
        else None,
        loops=tuple(re.compile(pattern, re.S) for pattern in spec.get("loops", ())),
        spreads=tuple(re.compile(pattern) for pattern in spec.get("spreads", ())),
        listings=tuple(re.compile(pattern, re.S) for pattern in spec.get("listings", ())),
        item=re.compile(literal.replace("NAME", "item")) if literal else None,
        escapes=spec.get("escapes") == "c",
        argv_runs=tuple(re.compile(pattern) for pattern in spec.get("argv_runs", ())),
        bindings=tuple(re.compile(pattern) for pattern in spec.get("bindings", ())),
        signals=tuple(re.compile(pattern) for pattern in spec.get("signals", ())),
        tokens=re.compile(spec["tokens"]) if "tokens" in spec else None,
        packaged=spec.get("packaged"),
    )


def _task_patterns(spec: Mapping[str, Any]) -> list[str]:
    """A language's project tasks (`install.packages(…)`, `Pkg.test()`): what an everyday shell command does
    (`pip install`, `pytest`), which the policies allow there; taken out with the inert constructs."""
    return [str(task["pattern"]) for task in spec.get("tasks", ())]


def follow_code(lang: str, text: str) -> Followed:
    """What `text`, code in `lang`, runs and which files it touches, and whether the rest of it stays inside
    the interpreter."""
    language = _language(lang)
    if language is None:
        return Followed(known=False)
    text = _bound(language, text)
    for home_call in language.home_calls:  # `File.join(Dir.home, ".ssh")` is the literal path `~/.ssh`
        text = home_call.sub(lambda m: _home_call(language, m), text)
    for joined in language.home:  # `os.homedir() + '/.ssh'` is the literal path `~/.ssh` (HOME_MARK)
        text = joined.sub(lambda m: f"{m.group(1)}{HOME_MARK}{m.group(2)}{m.group(1)}", text)
    text = _folded(language, _unrolled(language, _folded(language, _interpolated(language, text))))
    environment = _environment_reads(language, text)
    if language.parser == "python":  # its commands and scripts are walked by the shell builder
        return Followed(known=not python_effects(text).dynamic, files=environment)
    commands: list[str] = []
    rest = text
    for pattern in language.argv_runs:  # `system("rm", "-rf", "x")`: no shell, the literals are the argv
        commands.extend(_argv_command(match) for match in pattern.finditer(rest))
        rest = pattern.sub(" ", rest)  # (first: a backtick inside one of its literals is text, not a command)
    walked, rest = packaged_runs(language.packaged, rest)  # `lintr::lint_package()`: that package's program run
    commands.extend(walked)
    for pattern in language.runs:  # `fed`: a command fed what the code prints (awk's `print … | "sh"`)
        commands.extend(_run_command(match, language.escapes) for match in pattern.finditer(rest))
        rest = pattern.sub(" ", rest)
    for pattern in language.signals:  # `process.kill(pid, 'SIGTERM')`: the `kill` it is, judged as itself
        commands.extend([_signal_command(language, match, commands) for match in pattern.finditer(rest)])
        rest = pattern.sub(" ", rest)
    if language.lexers:  # (first: a comment is no text an inert construct may end in: `COPY t TO 'f' -- TO STDOUT`)
        rest = "\n;\n".join(_uncommented(lexer, rest) for lexer in language.lexers)
    for pattern in language.inert:
        rest = pattern.sub(" ", rest)
    files: list[str] = []
    for call in language.files:
        files.extend(_as_command(call, match, language.tilde) for match in call.pattern.finditer(rest))
        rest = call.pattern.sub(" ", rest)
    for pattern in (*language.names_only, *language.environment):  # followed: given as `printenv VAR` above
        rest = pattern.sub(" ", rest)
    rest = _literals_emptied(language.tokens, rest)  # (awk's `/a|b/` holds no pipe)
    if language.strings is not None:  # (what a string holds runs only through a construct or call outside it)
        rest = language.strings.sub('""', rest)
    known = (language.reaches is None or language.reaches.search(rest) is None) and _calls_pure(language, rest)
    # (each file once: the lexers' readings of one text are joined, so a construct outside every comment is in each)
    files = list(dict.fromkeys(files))
    return Followed(known=known, commands=tuple(c for c in commands if c.strip()), files=(*files, *environment))


def _literals_emptied(tokens: re.Pattern[str] | None, text: str) -> str:
    """`text` with every token but code (strings, regular expression constants, comments) emptied, when the
    language's lexer (`tokens`) reads all of it; else as it is: a lexer that lost its place (a `/` that may divide)
    could take code for text."""
    out: list[str] = []
    pos = 0
    while tokens is not None and pos < len(text):
        token = tokens.match(text, pos)
        if token is None:
            return text
        out.append(token.group() if token.group("code") is not None else '""')
        pos = token.end()
    return "".join(out) if tokens is not None else text


UNKNOWN_PID = "${inline_pid}"  # a pid the code computes from what hookd does not follow (an argument, a value)


def _signal_command(language: _Language, match: re.Match[str], ran: list[str]) -> str:
    """The `kill` a signal call of inline code sends (`Process.kill(:TERM, File.read("x.pid").to_i)`): its signal,
    and its pid as the code gets it, a number, or the text of a file it reads (`$(cat x.pid)`, as a shell's `kill
    $(cat x.pid)` is looked up), or the output of the commands it ran (`kill "STOP", @p` after `qx(pgrep hookd)`,
    as pycode's `os.kill` is read), else a pid not known."""
    pid, sig = match.group("pid").strip(), (match.groupdict().get("sig") or "TERM").strip("'\": ")
    sig = sig.upper().removeprefix("SIG") if not sig.isdigit() else sig
    files = [m.group("path") for call in language.files if call.op == "read" for m in call.pattern.finditer(pid)]
    computed = f"$({'; '.join(ran)})" if ran else UNKNOWN_PID
    target = pid if pid.isdigit() else f"$(cat {_path_word(files[0], language.tilde)})" if files else computed
    return f"kill -s {shlex.quote(sig or 'TERM')} {target}" if not sig.isdigit() else f"kill -{sig} {target}"


def _uncommented(lexer: re.Pattern[str], text: str) -> str:
    """`text` with the comments one lexer reads taken out: its tokens are matched from left to right, so a comment
    marker inside a string literal it reads stays text. Several lexers (databases that read the same text apart:
    `1--1` is a comment in PostgreSQL, a subtraction in MySQL) each give their text, all of which is judged."""
    return lexer.sub(lambda m: " " if m.group("inert") is not None else m.group(0), text)


_UNROLLED = 16  # the items of a literal loop whose body is read once per item
_UNROLLED_TEXT = 16 * 1024  # the longest code whose loops are written out (the patterns scan it per loop)


def _unrolled(language: _Language, text: str) -> str:
    """Loops over literal items (`for (const d of ['dist', 'coverage']) fs.rmSync(d, …)`, `for my $d ("a", "b")
    {…}`) written out as their body once per item, the loop variable that literal; a file call given several
    literal paths (`remove_tree("blib", "_build")`) written as one call per path: the file calls then name
    literals. A loop or call with any item that is not a literal is left as it is."""
    if language.item is None or len(text) > _UNROLLED_TEXT:  # (longer code stays as it is: asked if it reaches)
        return text
    for pattern in language.loops:
        text = pattern.sub(lambda m: _loop_text(language, m), text)
    for pattern in language.spreads:
        text = pattern.sub(lambda m: _spread_text(language, m), text)
    for pattern in language.listings:  # each entry's name is `*`: joined to its root, the root's glob
        text = pattern.sub(lambda m: _loop_text(language, m, entry=True), text)
    return text


def _bound(language: _Language, text: str) -> str:
    """A name bound once to a string literal (`const p = "package.json"`) is that literal where the code uses it
    after the binding (`Bun.file(p)`, `execSync("rm -rf " + p)`), so that the file calls and the commands name
    literals; a name assigned more than once is left as it is."""
    if len(text) > _UNROLLED_TEXT:
        return text
    for pattern in language.bindings:
        for match in list(pattern.finditer(text)):
            name = re.escape(match.group("var"))
            assigned = re.compile(rf"(?<![\w$.]){name}\s*(?:[-+*/%&|^]|\?\?|&&|\|\|)?=(?!=)")
            if len(assigned.findall(text)) == 1:
                used = re.compile(rf"(?<![\w$.'\"`]){name}(?![\w$'\"`:])")
                at = text.find(match.group(0)) + len(match.group(0))
                text = text[:at] + used.sub(match.group("value").replace("\\", r"\\"), text[at:])
    return text


def _literal_items(language: _Language, items: str) -> list[str] | None:
    """Each item of a comma-separated list as it is written (quotes kept), or None when one is not a literal."""
    assert language.item is not None
    found = [m.group(0) for m in language.item.finditer(items + ")")]
    left = language.item.sub("", items + ")")[:-1]
    return found if found and len(found) <= _UNROLLED and not left.strip(" \t\n,") else None


def _loop_text(language: _Language, match: re.Match[str], *, entry: bool = False) -> str:
    items = _literal_items(language, match.group("items"))
    body = match.group("block") if match.groupdict().get("block") is not None else match.group("body")
    if items is None or body is None or (entry and len(items) != 1):
        return match.group(0)
    if entry:  # `readdirSync('dist')`: the variable is each entry's name, written as the glob `*`
        items = [f"{items[0][0]}*{items[0][0]}"]
    variable = re.compile(rf"(?<![\w$@.]){re.escape(match.group('var'))}(?![\w$])")
    return ";\n".join(variable.sub(lambda _m, item=item: item, body) for item in items)


def _spread_text(language: _Language, match: re.Match[str]) -> str:
    items = _literal_items(language, match.group("items"))
    if items is None:
        return match.group(0)
    return "; ".join(f"{match.group('name')}({item})" for item in items)


def _home_call(language: _Language, match: re.Match[str]) -> str:
    items = _literal_items(language, match.group("items"))
    if items is None:
        return match.group(0)
    return '"' + "/".join([HOME_MARK, *(item[1:-1].strip("/") for item in items)]) + '"'


_DOUBLE_QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def _interpolated(language: _Language, text: str) -> str:
    """`"$ENV{HOME}/x"`, `"#{Dir.home}/x"`: the home interpolated at the start of a double-quoted string is the
    literal path `~/x` (HOME_MARK); anywhere else in it, the home's own text (`"rm -rf ⌂/x"` for a command)."""
    if not language.interpolated:
        return text

    def one(match: re.Match[str]) -> str:
        quoted = match.group(0)
        for pattern in language.interpolated:
            quoted = pattern.sub(HOME_MARK, quoted)
        return quoted

    return _DOUBLE_QUOTED.sub(one, text)


def _folded(language: _Language, text: str) -> str:
    """Two string literals joined by the language's operator (`"rm -rf " .. "⌂/x"`) are one literal."""
    if language.folds is None:
        return text
    for _ in range(_UNROLLED):
        folded = language.folds.sub(_fold, text)
        if folded == text:
            return text
        text = folded
    return text


def _fold(match: re.Match[str]) -> str:
    quote = match.group(1) if match.group(1) not in match.group(4) else match.group(3)
    if quote in match.group(2) or quote in match.group(4):
        return match.group(0)
    return f"{quote}{match.group(2)}{match.group(4)}{quote}"


def _run_command(match: re.Match[str], escapes: bool = False) -> str:
    """The command line a `runs` match stands for: its `cmd` (its escapes decoded where the literal has C's),
    or its `fed` command reading what the code prints (as the output of a program whose text hookd does not know)."""
    fed = match.groupdict().get("fed")
    command = "cat | " + fed if fed is not None else match.group("cmd")
    if escapes and fed is None:
        command = _C_ESCAPE.sub(_c_escaped, command)
    return _HOME_WORD.sub("~", command).replace(HOME_MARK, "$HOME")  # a path the code built on the home


# awk's escapes in a string (https://pubs.opengroup.org/onlinepubs/9699919799/utilities/awk.html, "Lexical
# Conventions"): C's, `\\ddd` octal; gawk's and mawk's `\\xhh` (https://www.gnu.org/software/gawk/manual/html_node/
# Escape-Sequences.html); a backslash before any other character is that character (gawk; POSIX leaves it undefined,
# and the reading that hands the shell more is the one judged)
_C_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)", re.S)
_C_CONTROL = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def _c_escaped(match: re.Match[str]) -> str:
    code = match.group(1)
    if code[0] == "x" and len(code) > 1:
        return chr(int(code[1:], 16))
    return chr(int(code, 8) & 0xFF) if code[0].isdigit() and code[0] < "8" else _C_CONTROL.get(code, code)


_ARGV_LITERAL = re.compile(r"'((?:[^'\\]|\\.)*)'|\"([^\"\\]*)\"")
_SINGLE_QUOTED_ESCAPE = re.compile(r"\\(['\\])")  # a single-quoted literal's only escapes (Ruby, Perl)


def _argv_command(match: re.Match[str]) -> str:
    """The command line of a program run with literal arguments (`spawnSync('rm', ['-rf', 'x'])`): its words as
    the shell would hand them over, each quoted."""
    text = " ".join(match.group(g) or "" for g in ("prog", "items") if g in match.re.groupindex)
    words = [
        _SINGLE_QUOTED_ESCAPE.sub(r"\1", m.group(1)) if m.group(1) is not None else m.group(2)
        for m in _ARGV_LITERAL.finditer(text)
    ]
    return " ".join(_argv_word(word) for word in words)


def _argv_word(word: str) -> str:
    """One argument as a shell word: quoted, but a path the code built on the home (HOME_MARK) on `"$HOME"`."""
    if word.startswith(HOME_MARK):
        rest = word[len(HOME_MARK) :]
        return '"$HOME"' + (shlex.quote(rest) if rest else "")
    return shlex.quote(word)


_HOME_WORD = re.compile(rf"(?<![^\s=]){HOME_MARK}(?=/|\s|$)")


def _environment_reads(language: _Language, text: str) -> tuple[str, ...]:
    """The code's reads of the process environment as the commands that print the same: `printenv VAR` for a
    variable it names (`process.env.GITHUB_TOKEN`), `env` for all of it (`JSON.stringify(process.env)`)."""
    names: set[str] = set()
    for pattern in language.names_only:  # `Object.keys(process.env)`: the names, not their values
        text = pattern.sub(" ", text)
    for pattern in language.environment:
        for match in pattern.finditer(text):
            names.add(match.groupdict().get("var") or "")
    return tuple(f"printenv {name}" if name else "env" for name in sorted(names))


def _as_command(call: _FileCall, match: re.Match[str], tilde: bool) -> str:
    groups = match.groupdict()
    options = groups.get("opts") or ""
    recursive = call.recursive or bool(call.recursive_when and call.recursive_when.search(options))
    targets = [groups["path"]] + ([groups["to"]] if groups.get("to") is not None else [])
    if call.op == "include":  # the file is more code of the same language: its reader fed it (code_files.py)
        return f"{shlex.quote(call.reader)} < {_path_word(targets[0], tilde)}"
    if call.op == "fetch":
        targets.reverse()
    words = [shlex.quote(word) for word in _AS_COMMAND[(call.op, recursive)]]
    return " ".join(words + [_path_word(target, tilde) for target in targets])


def _path_word(path: str, tilde: bool) -> str:
    """The path as a shell word: quoted, but with a leading `~` left for the shell when the language expands it
    or the code built the path on the home directory (HOME_MARK)."""
    if path.startswith(HOME_MARK):
        return "~/" + shlex.quote(path[2:]) if len(path) > 2 else "~"
    if tilde and path == "~":
        return "~"
    if tilde and path.startswith("~/"):
        return "~/" + (shlex.quote(path[2:]) if len(path) > 2 else "")
    return shlex.quote(path)


def _calls_pure(language: _Language, rest: str) -> bool:
    """Every function the rest of the code calls is one the language's table knows touches nothing."""
    if language.calls is None:
        return True
    names = (_SPACE.sub("", m.group("name")) for m in language.calls.finditer(rest))
    return all(name.lower() in language.pure or _host_call_runs_nothing(language, name) for name in names)


def _host_call_runs_nothing(language: _Language, name: str) -> bool:
    """A call on a table of the program that embeds the language (`mp.osd_message`, `wezterm.font`), whose
    name's words say nothing of acting (`hosted.acts`: `mp.commandv`, `utils.subprocess` act)."""
    root, dot, rest = name.partition(".")
    if not language.acts or not dot or root in language.library:
        return False
    words = [w.lower() for w in _NAME_WORDS.findall(rest)]
    return not any(act in word for word in words for act in language.acts)


_NAME_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def code_runs_nothing(lang: str, text: str) -> bool:
    """`text`, code in `lang`, is followed whole by its language's table of calls and does nothing hookd can see:
    no command, no file, nothing that reaches the system (a terminal's or player's script that sets fonts and
    shows messages). Python is judged by its statements alone (python_sets_only): its calls are the shell
    builder's."""
    if lang == "python":
        return python_sets_only(text)
    if lang == "ipython":  # IPython's syntax read as its kernel reads it: no shell line, and Python that only sets
        shell, python = kernel_parts(text)
        return not shell and (not python.strip() or python_sets_only(python))
    language = _language(lang)
    if language is None or language.calls is None:
        return False
    followed = follow_code(lang, text)
    return followed.known and not followed.commands and not followed.files


def python_sets_only(text: str) -> bool:
    """`text` is Python that only imports modules and sets names or attributes to plain values: an IPython or
    Jupyter configuration's `c = get_config()` and `c.TerminalInteractiveShell.editing_mode = 'vi'`, a startup
    file's imports. A call, a loop, a definition, or a string value that may be code or a path (IPython's
    `exec_lines`, a `shell_command`) is not: what runs it later runs it outside the hooks."""
    try:
        tree = ast.parse(text[:MAX_PLAIN_PYTHON]) if len(text) <= MAX_PLAIN_PYTHON else None
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return tree is not None and all(_sets_only(node) for node in tree.body)


MAX_PLAIN_PYTHON = 64 * 1024
# A string value that is a word, a number or a setting's name (`vi`, `Linux`, `0.0.0.0`), never a path, URL or code
_PLAIN_STRING = re.compile(r"[\w .,:@+=%-]{0,256}")


def _sets_only(node: ast.stmt) -> bool:
    if isinstance(node, ast.Pass):
        return True
    if isinstance(node, (ast.Import, ast.ImportFrom)):  # a module's code runs when imported: the standard library's
        return all(_standard_module(node, alias) for alias in node.names)
    if isinstance(node, ast.Expr):  # a docstring
        return isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    if isinstance(node, ast.Assign):
        return all(_settable(t) or _left_off(t, node.value) for t in node.targets) and _plain_value(node.value)
    if isinstance(node, ast.AnnAssign):  # a module's annotation is evaluated: a name or a literal only
        plain_annotation = isinstance(node.annotation, (ast.Name, ast.Constant))
        return plain_annotation and _settable(node.target) and (node.value is None or _plain_value(node.value))
    return False


def _standard_module(node: ast.Import | ast.ImportFrom, alias: ast.alias) -> bool:
    """An import of the standard library (sys.stdlib_module_names), not `*`: a module beside the file or planted
    on the path (`import payload`, where IPython puts the working directory first) is code that runs."""
    module = node.module if isinstance(node, ast.ImportFrom) else alias.name
    level = node.level if isinstance(node, ast.ImportFrom) else 0
    top = (module or "").split(".", 1)[0]
    return level == 0 and alias.name != "*" and (top in sys.stdlib_module_names or top == "__future__")


def _settable(target: ast.expr) -> bool:
    """A name or a dotted attribute of one (`c.ServerApp.port`) whose last name's words say no program, code or
    exposure: a setting named for what it runs (`browser`, `exec_lines`, `code_to_run`, `kernel_manager_class`,
    `extensions`) or lets in (`ip`, `token`, `password`, `allow_origin`) decides that, whatever its value."""
    last = target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else ""
    while isinstance(target, ast.Attribute):
        target = target.value
    return isinstance(target, ast.Name) and not set(last.lower().split("_")) & _RUNS_OR_LETS_IN


# The words of a configuration trait's name that say it names what runs or who gets in: IPython's exec_lines,
# exec_files, code_to_run, file_to_run and extensions (https://gist.github.com/phelps-matthew/4d8668ac1edd4ee6283f9e7a5f7aedd5),
# a Jupyter server's ip, token, password and open_browser (https://huggingface.co/spaces/Pyboxs/jupy-lab/blob/main/jupyter_config.py),
# and the traitlets conventions around them (`*_class` loads a class by its dotted name, `*_command`, `*_cmd`)
_RUNS_OR_LETS_IN = frozenset({
    "class", "classes", "command", "cmd", "browser", "exec", "run", "file", "files", "extension", "extensions",
    "startup", "script", "scripts", "hook", "hooks", "program", "shell", "editor", "pager", "plugin", "plugins",
    "module", "modules", "ip", "host", "token", "password", "allow", "origin", "xsrf", "remote", "root", "dir", "path",
})  # fmt: skip


# Of those words, the ones naming an address a server listens on, and the ones that name who gets in or where
# code is found, which no value makes plain (an empty token lets everyone in)
_ADDRESS = frozenset({"ip", "host"})
_GRANTS = frozenset({"token", "password", "allow", "origin", "xsrf", "remote", "root", "dir", "path", "file", "files"})


def _left_off(target: ast.expr, value: ast.expr) -> bool:
    """A setting named for what runs or lets in whose value runs and exposes nothing (gaps38): an address of this
    machine's loopback only (`c.ServerApp.ip = '127.0.0.1'`: no other host reaches it), or a program or code setting
    switched off (`open_browser = False`, `exec_lines = []`). Never a token's, password's or path's."""
    last = target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else ""
    hits = set(last.lower().split("_")) & _RUNS_OR_LETS_IN
    if not isinstance(value, (ast.Constant, ast.List, ast.Tuple)) or hits & _GRANTS:
        return False
    if hits <= _ADDRESS:
        return isinstance(value, ast.Constant) and _loopback(value.value)
    off = isinstance(value, ast.Constant) and value.value in (False, None, "")
    return not hits & _ADDRESS and (off or (isinstance(value, (ast.List, ast.Tuple)) and not value.elts))


def _loopback(value: object) -> bool:
    if value == "localhost":
        return True
    try:
        return isinstance(value, str) and ipaddress.ip_address(value).is_loopback
    except ValueError:
        return False


def _plain_value(value: ast.expr) -> bool:
    """A literal whose strings are plain words (_PLAIN_STRING), or IPython's and Jupyter's `get_config()`."""
    if isinstance(value, ast.Call):
        return isinstance(value.func, ast.Name) and value.func.id == "get_config" and not value.args
    try:
        ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return False
    strings = [n.value for n in ast.walk(value) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return all(_PLAIN_STRING.fullmatch(s) for s in strings)
