"""What the arguments of a tool hookd has no table for name: an MCP server's file tools (`read_file`,
`write_file`, `move_file`, `read_multiple_files` of the reference filesystem server, an editor's
`search_files`, a browser's `file_upload`) and any agent's tool added after its module was written.

Such a tool's ToolSpec (its dialect's fallback: kind `mcp` or `other`, no path arguments) would leave every
path it touches unjudged. Its spec is inferred instead, from its input alone: an argument whose name says it
holds a path (`path`, `paths`, `filePath`, `source`, `destination`, `directory`, …) is a path argument, and
the words of the tool's own name say what it does to them (read, write, delete, move, copy); a tool whose
name says none of these is taken to both read and write them, so that neither a secret read nor a write into
a protected place slips through a name hookd cannot read. The effects follow from the spec as for any file
tool (enrich/paths.py, enrich/tool_effects.py).
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hookd.enrich.config_commands import parsed_settings
from hookd.enrich.kernel_code import kernel_code_line
from hookd.enrich.sql_comments import uncommented
from hookd.enrich.tool_nesting import expanded, unglued
from hookd.types import JSON, ToolCall, ToolKind, ToolSpec

# Words of an argument's name (snake, kebab or camel case) that make it a path argument.
_PATH_WORDS = frozenset({
    "path", "paths", "file", "files", "filename", "filenames", "filepath", "filepaths", "dir", "dirs",
    "directory", "directories", "folder", "folders", "source", "sources", "src", "destination", "dest", "dst",
    "target", "root", "location", "cwd", "workdir", "notebook", "attachment", "attachments",
})  # fmt: skip
# Words of an argument's name that make it where a move or copy lands.
_TO_WORDS = frozenset({"destination", "dest", "dst", "target", "to", "new", "output", "out"})
# Words of an argument's name that make it a path argument of a tool whose name says it moves or copies: its two
# ends (`{"from": a, "to": b}`, `oldName`/`newName` of a rename), which name no path in any other tool (a mail's `to`).
_END_WORDS = frozenset({"from", "to", "old", "new"})
# Words of a tool's name that say what it does to its paths.
_DELETE = frozenset({"delete", "remove", "rm", "unlink", "rmdir", "trash", "erase", "purge", "wipe"})
_MOVE = frozenset({"move", "rename", "mv"})
_COPY = frozenset({"copy", "cp", "duplicate", "clone"})
_WRITE = frozenset({
    "write", "create", "edit", "update", "modify", "patch", "append", "save", "put", "set", "replace",
    "insert", "apply", "touch", "mkdir", "make", "new", "add", "overwrite", "truncate", "store", "upsert",
    "chmod", "chown", "extract", "unzip", "download", "screenshot", "export",
})  # fmt: skip
# Words of a tool's name that say it brings something from elsewhere: its argument named for the local side
# (`local_path`, `localFilePath`) is where that lands, written (pulsemcp's cloud-storage `get_file` saves it there)
_FETCH = frozenset({"get", "fetch", "retrieve"})
_READ = frozenset({
    "read", "get", "view", "list", "ls", "search", "find", "grep", "glob", "cat", "open", "show", "load",
    "stat", "info", "tree", "head", "tail", "query", "inspect", "describe", "diff", "upload", "attach", "send",
})  # fmt: skip
# SQL that opens a file by name (SQLite's `ATTACH DATABASE 'file' AS x`, which creates it, and `VACUUM INTO
# 'file'`, which writes it: https://www.sqlite.org/lang_attach.html, https://www.sqlite.org/lang_vacuum.html),
# in an argument named for SQL (`query`, `sql`, `statement`) of a database server's tool.
_SQL_FILE = re.compile(
    r"\b(?:ATTACH(?:\s+DATABASE)?(?:\s+IF\s+NOT\s+EXISTS)?|VACUUM(?:\s+\w{1,64})?\s+INTO|COPY\b[^;]{0,4096}?\bTO|INTO\s+(?:OUT|DUMP)FILE"
    r"|EXPORT\s+DATABASE)\s+'((?:[^']|''){1,4096})'",
    re.IGNORECASE,
)
# SQL that reads a file by name: table and scalar functions (DuckDB's read_text, read_blob, read_csv, read_json,
# read_parquet: https://duckdb.org/docs/stable/guides/file_formats/read_file, https://duckdb.org/docs/stable/data/csv/overview;
# SQLite's readfile: https://sqlite.org/cli.html#file_i_o_functions; MySQL's LOAD_FILE; PostgreSQL's pg_read_file),
# a quoted file as a table (DuckDB: `FROM 'x.csv'`), `COPY t FROM 'f'`, `LOAD DATA INFILE 'f'`
_SQL_READ = re.compile(
    r"\b(?:(?:read_\w{1,32}|parquet_scan|sniff_csv|readfile|load_file|pg_read_(?:binary_)?file|lo_import)\s*\(\s*\[?"
    r"|(?:FROM|JOIN|INFILE)\s+)'((?:[^']|''){1,4096})'",
    re.IGNORECASE,
)
# SQL that runs a command: PostgreSQL's `COPY … FROM/TO PROGRAM 'cmd'` (https://www.postgresql.org/docs/current/sql-copy.html),
# DuckDB's shellfs, where a file name ending in `|` is a command whose output is read (or, starting with `|`,
# fed the output: https://duckdb.org/community_extensions/extensions/shellfs)
_SQL_PROGRAM = re.compile(r"\bPROGRAM\s+'((?:[^']|''){1,4096})'", re.IGNORECASE)
_SQL_STRING = re.compile(r"'((?:[^']|''){1,4096})'")
_SQL_WORDS = frozenset({"query", "sql", "statement", "statements", "queries"})
# Words of a tool's name that make it search below the directories it is given (every file there can be read).
_SEARCH = frozenset({"search", "grep", "rg", "ripgrep", "find", "scan"})
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
# A value that is an option with a path (`--output=/x`, `-o=~/x`): handed to a server that builds a command line
# from its arguments (a git ref, a revision), it is an option of that program (argument injection), and what the
# option does to its path is not known (git's `--output=` writes it): taken as a written path, whatever the
# argument's name and the tool's.
_OPTION_PATH = re.compile(r"-{1,2}[A-Za-z][A-Za-z0-9-]{0,63}=([~./].*|[^=]*/.*)", re.DOTALL)
MAX_NAME = 200  # longer argument or tool names are not split into words


def words(name: str) -> frozenset[str]:
    """`filePath`, `file_path`, `file-path` as {"file", "path"} (and the whole name, lower-cased)."""
    if len(name) > MAX_NAME:
        return frozenset()
    return frozenset({name.lower(), *(w.lower() for w in _WORD.findall(name))})


@dataclass(frozen=True, slots=True)
class Inferred:
    """An unknown tool's path arguments and what it does to them: `op` is "read", "write", "delete",
    "move", "copy" or "read+write" (its name says none of these); `to` the arguments a move or copy lands in.
    `input` holds the strings found under each path argument, at any depth (`params.path`: the `path` of the
    object `params`), as the spec's arguments name them; `unknown` the arguments whose value holds something
    that may name a path but cannot be resolved (a string with a NUL, longer than any path, nested past hookd's
    depth): each is an effect whose target is not known, so it is asked, never dropped."""

    spec: ToolSpec
    op: str
    to: frozenset[str]
    input: Mapping[str, JSON]
    unknown: tuple[str, ...] = ()
    searches: bool = False  # its name says it searches: a directory it reads is read below, whole


def _name(tool: ToolCall) -> str:
    return tool.mcp.get("tool", tool.name) if tool.mcp else tool.name


_LIST = frozenset({"list", "ls", "tree"})  # a tool named for listing alone (`directory_tree`) lists names


def _op(tool: ToolCall) -> str:
    said = unglued(words(_name(tool)))  # `operations_deletefile`: delete
    for verbs, op in ((_DELETE, "delete"), (_MOVE, "move"), (_COPY, "copy"), (_WRITE, "write"), (_READ, "read")):
        if said & verbs:
            return op
    return "read+write"


MAX_PATH = 4096  # longer strings name no file the kernel opens, but a server may normalise them into one
MAX_DEPTH = 100  # as wire.MAX_PAYLOAD_DEPTH: no payload nests deeper


@dataclass(slots=True)
class _Found:
    """What a walk of a tool's input found: strings under path-named arguments, by argument (in order)."""

    paths: dict[str, list[JSON]]
    unknown: dict[str, None]
    to: set[str]
    options: set[str]  # arguments named for an option holding a path (always written)
    reads: set[str] = field(default_factory=set)  # SQL's files read (`read_text('x')`): read, whatever the tool's name
    naming: frozenset[str] = _PATH_WORDS  # the words that make an argument a path argument (_END_WORDS too)


def _walk(value: JSON, arg: str, named: bool, to: bool, depth: int, found: _Found) -> None:
    """Collects every string below a path-named argument, through lists and objects to any depth; an object's
    member is named `arg.key`. A number, true, false or null names no file; a string that cannot be a path as
    written (NUL, over MAX_PATH) is unknown."""
    if depth > MAX_DEPTH:
        if named:
            found.unknown[arg] = None
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            said = words(key)
            inner = f"{arg}.{key}" if arg else key
            _walk(item, inner, named or bool(said & found.naming), to or bool(said & _TO_WORDS), depth + 1, found)
        return
    if isinstance(value, list):
        for item in value:
            _walk(item, arg, named, to, depth + 1, found)
        return
    if isinstance(value, str) and value[:1] == "-" and len(value) <= MAX_PATH and "\x00" not in value:
        option = _OPTION_PATH.fullmatch(value)
        if option:
            key = f"{arg}({value.split('=', 1)[0]})"
            found.paths.setdefault(key, []).append(option.group(1))
            found.options.add(key)
            return
    if not named or not isinstance(value, str) or not value or "\n" in value:  # a text of lines is no path
        return
    if "\x00" in value or len(value) > MAX_PATH:
        found.unknown[arg] = None
        return
    found.paths.setdefault(arg, []).append(value)
    if to:
        found.to.add(arg)


def _sql_texts(tool_input: Mapping[str, JSON]) -> list[tuple[str, str]]:
    """The arguments named for SQL (`query`, `sql`, `statement`) and their text as each database's lexer leaves it
    outside its comments (sql_comments: `-- it's` holds no string literal's quote)."""
    return [
        (arg, reading)
        for arg, text in tool_input.items()
        if isinstance(text, str) and words(arg) & _SQL_WORDS and len(text) <= MAX_SQL
        for reading in uncommented(text)
    ]


def _sql_files(tool_input: Mapping[str, JSON], found: _Found) -> None:
    """The files the SQL in an argument named for it opens for writing (`ATTACH 'x'`, `VACUUM INTO 'x'`, `COPY …
    TO 'x'`) and for reading (`read_text('x')`, `FROM 'x.csv'`); a command it runs is no file (sql_commands)."""
    for arg, text in _sql_texts(tool_input):
        for pattern, key in ((_SQL_FILE, f"{arg}(sql)"), (_SQL_READ, f"{arg}(sql-read)")):
            for match in pattern.finditer(text):
                name = match.group(1).replace("''", "'")
                if _is_sql_command(name) or text[: match.start()].rstrip().upper().endswith("PROGRAM"):
                    continue
                if name not in found.paths.setdefault(key, []):  # (each lexer's reading names it)
                    found.paths[key].append(name)
                (found.options if pattern is _SQL_FILE else found.reads).add(key)


def _is_sql_command(name: str) -> bool:
    return name.rstrip().endswith("|") or name.lstrip().startswith("|")


def sql_commands(tool_input: Mapping[str, JSON]) -> list[str]:
    """The command lines the SQL of a tool's arguments runs (`COPY … FROM PROGRAM 'cmd'`, shellfs' `'cmd |'`)."""
    found = []
    for _arg, text in _sql_texts(tool_input):
        found += [m.group(1).replace("''", "'") for m in _SQL_PROGRAM.finditer(text)]
        found += [n.strip().strip("|") for m in _SQL_STRING.finditer(text) if _is_sql_command(n := m.group(1))]
    return list(dict.fromkeys(command.strip() for command in found if command.strip()))


MAX_SQL = 1 << 20
# Words of a tool's name (its server's too) that make it a database's: its SQL argument is run by that database.
_DATABASE_WORDS = frozenset({
    "sql", "sqlite", "sqlite3", "postgres", "postgresql", "pg", "psql", "mysql", "mariadb", "duckdb", "motherduck",
    "db", "database", "supabase", "neon", "clickhouse", "bigquery", "snowflake",
})  # fmt: skip


def sql_line(tool: str, tool_input: Mapping[str, Any]) -> str | None:
    """The client command line a database server's tool amounts to (a SQL argument, `query`, `sql`, of a tool
    whose name names a database: `mcp__postgres__query`, `read_query` of the SQLite server): `sqlite3 -cmd SQL`
    for SQLite, `psql -c SQL` for any other, so that what the SQL reaches (`COPY … TO PROGRAM`, `load_extension`,
    a file it reads or writes) is judged as that client's inline code is."""
    said = words(tool)
    if not said & _DATABASE_WORDS:
        return None
    sql = next((v for k, v in tool_input.items() if isinstance(v, str) and v.strip() and words(k) & _SQL_WORDS), None)
    if sql is None:
        return None
    return shlex.join(["sqlite3", "-cmd", sql] if said & {"sqlite", "sqlite3"} else ["psql", "-c", sql])


def inferred(tool: ToolCall) -> Inferred | None:
    """The inferred spec of a tool hookd has no path table for (kind mcp or other), or None: for a tool
    whose spec names its paths, or one with no argument that names a path."""
    spec = tool.spec
    if spec is None or spec.paths or spec.patches or tool.kind not in (ToolKind.MCP, ToolKind.OTHER):
        return None
    op = _op(tool)
    found = _Found({}, {}, set(), set(), naming=_PATH_WORDS | _END_WORDS if op in ("move", "copy") else _PATH_WORDS)
    _walk(expanded(tool.input), "", False, False, 0, found)  # a call inside a call, a base-and-member pair
    _sql_files(tool.input, found)
    args = list(dict.fromkeys([*found.paths, *found.unknown]))
    if not args:
        return None
    to = frozenset(a for a in args if a in found.to) if op in ("move", "copy") else frozenset()
    if op == "read" and words(_name(tool)) & _FETCH:  # `get_file`'s `local_file_path`: where the object lands
        to = frozenset(a for a in args if "local" in words(a.rpartition(".")[2]))
    access = "read" if op == "read" else "write"
    paths = tuple(
        (a, "write" if a in to or a in found.options else "read" if a in found.reads else access) for a in args
    )
    content = next(
        (k for k, v in tool.input.items() if k in ("content", "text", "file_text") and isinstance(v, str)), ""
    )
    kind = ToolKind.READ if op == "read" and not found.options and not to else ToolKind.WRITE
    said = words(_name(tool))
    lists = tuple(args) if op == "read" and said & _LIST and not said & (_READ - _LIST) else ()
    spec = ToolSpec(kind, paths, content=content if access == "write" else "", lists=lists)
    searches = op == "read" and bool(words(_name(tool)) & _SEARCH)
    return Inferred(spec, op, to, dict(found.paths), tuple(found.unknown), searches)


def unknown_entries(guess: Inferred) -> list[dict[str, JSON]]:
    """An `input.paths` entry whose target is not known (asked) for each path argument of an inferred tool
    that holds something that cannot be resolved."""
    access = dict(guess.spec.paths)
    return [
        {"arg": arg, "raw": "", "path": "", "in_project": False, "access": access[arg], "known": False}
        for arg in guess.unknown
    ]


def named_paths(tool_input: Mapping[str, JSON], spec: ToolSpec) -> int:
    """How many paths the spec's arguments name (a list counts each): for an inferred spec, pass its
    Inferred.input."""
    values = (tool_input.get(arg) for arg, _access in spec.paths)
    return sum(len(value) if isinstance(value, list) else 1 for value in values if value is not None)


# Words of an argument's name that make it a URL the tool opens (`url`, `uri`, `targetUrl`, `resource_uri`, …).
_URL_WORDS = frozenset({"url", "urls", "uri", "uris", "href", "link", "links", "endpoint"})
MAX_URL_DEPTH = 8


def url_texts(value: Any, *, web: bool, named: bool = False, depth: int = 0) -> list[tuple[str, bool]]:
    """The texts of a tool's input that may name URLs it opens, each with whether it is one whole (an argument
    named for a URL: `url`, `uri`, `href`, at any depth, in a list too) or a text to search (every other string
    of a web tool: Gemini's `prompt`)."""
    if isinstance(value, str):
        return [(value, True)] if named else [(value, False)] if web else []
    if depth > MAX_URL_DEPTH:
        return []
    if isinstance(value, Mapping):
        out: list[tuple[str, bool]] = []
        for key, item in value.items():
            code, url = _named_for(str(key))
            if isinstance(item, str):  # the common case, without a call: a file tool's `file_path`, `content`
                if named or url:
                    out.append((item, True))
                elif web or code:
                    out.append((item, False))
                continue
            out.extend(url_texts(item, web=web or code, named=named or url, depth=depth + 1))
        return out
    if isinstance(value, list):
        return [t for item in value for t in url_texts(item, web=web, named=named, depth=depth + 1)]
    return []


# Words of an argument's name that make it code the tool runs (a browser's `evaluate` `function`, a page
# `script`, an `expression`): any URL in it may be opened, so its text is searched as a web tool's prompt is.
_CODE_WORDS = frozenset({"function", "script", "code", "expression", "js", "javascript", "eval"})


def _named_for(key: str) -> tuple[bool, bool]:
    """(`_code_named`, `_url_named`) of an argument's name: the few names a tool's input uses, split once each."""
    if len(key) > MAX_NAME:
        return _code_named(key), _url_named(key)
    return _named_for_short(key)


@functools.lru_cache(maxsize=1024)
def _named_for_short(key: str) -> tuple[bool, bool]:
    return _code_named(key), _url_named(key)


def _code_named(key: str) -> bool:
    return len(key) <= MAX_NAME and bool(words(key) & _CODE_WORDS)


def _url_named(key: str) -> bool:
    lowered = key.lower()  # the words are split only for a name that may hold one (most are `file_path`, …)
    return any(w in lowered for w in ("ur", "href", "link", "endpoint")) and bool(words(key) & _URL_WORDS)


def command_line(value: Any) -> str | None:
    """The command line an argument holds: a string, or an argv given as a list of words (mcp-shell-server's
    `command: ["rm", "-rf", DIR]`, run without a shell), quoted so that each word stays one word."""
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, list) and value and all(isinstance(w, str) for w in value) and value[0].strip():
        return shlex.join(value)
    return None


# The arguments holding what a run tool's command reads on its standard input (mcp-server-commands' `stdin`: a
# script for `bash`, `python`), or what is typed into a process the tool started before (Desktop Commander's
# `interact_with_process` `input`: the next lines of the shell or interpreter running there).
_STDIN_ARGS = ("stdin", "input")


_COMMAND_ARGS = ("command", "cmd", "commandLine", "command_line", "script")


def _kernel_code(key: str) -> bool:
    """An argument holding a notebook kernel's code: named for code (`code`, `source_code`), or for a cell's
    text (`cell_content`, `cell_source`: Jupyter servers' `append_execute_cell`, `insert_execute_code_cell`);
    not `cell_type`, whose value `code` only says what the cell is."""
    named = words(key) if len(key) <= MAX_NAME else frozenset()
    return "code" in named or ("cell" in named and bool(named & _CELL_TEXT))


_CELL_TEXT = frozenset({"content", "contents", "source", "text", "body"})


def run_line(tool_input: Mapping[str, Any]) -> str | None:
    """The command line the input of a tool named for running amounts to: the line (or argv) of its command
    argument, or a notebook kernel's code (`_kernel_code`); reading the text of its stdin argument as a quoted
    here-document (a shell's or an interpreter's script), or, with no command, that text itself (typed into a
    process already running: a shell's next lines; text no shell parses runs nothing there). None: no command."""
    line = _command_at(tool_input, 0)
    code = next((v for a, v in tool_input.items() if isinstance(v, str) and v.strip() and _kernel_code(a)), None)
    if line is None and code is not None:
        line = kernel_code_line(code)
    fed = next((v for a in _STDIN_ARGS if isinstance(v := tool_input.get(a), str) and v.strip()), None)
    if fed is None or line is None:
        return line if fed is None else typed_line(fed)
    mark, lines = "HOOKD_STDIN", set(fed.splitlines())
    while mark in lines:
        mark += "_"
    return f"{line} <<'{mark}'\n{fed.removesuffix(chr(10))}\n{mark}"


def typed_line(text: str) -> str:
    """Text typed into a process a tool started before, whose program the call does not show: a shell's next
    lines, and also what a Python or IPython prompt makes of it (`kernel_code_line`: its `!` lines, its Python when
    it parses)."""
    kernel = kernel_code_line(text)
    return f"{text}\n{kernel}" if kernel.strip() else text


def cell_line(tool_input: Mapping[str, Any]) -> str | None:
    """The kernel code a tool puts into a notebook cell (a Jupyter server's `insert_cell`, `overwrite_cell_source`:
    an argument named for a cell's text, `_kernel_code`), judged as the code the cell runs when the notebook runs;
    None for a tool with no such argument, or a cell it says is markdown or raw."""
    if tool_input.get("cell_type") in ("markdown", "raw"):
        return None
    code = next((v for a, v in tool_input.items() if isinstance(v, str) and v.strip() and _cell_text(a)), None)
    return (kernel_code_line(code) or None) if code is not None else None


def _cell_text(key: str) -> bool:
    named = words(key) if len(key) <= MAX_NAME else frozenset()
    return "cell" in named and bool(named & _CELL_TEXT)


def _command_at(tool_input: Mapping[str, Any], depth: int) -> str | None:
    """The line (or argv) of the first command argument, at the input's top or in an object below it (wcgw's
    `BashCommand` `action_json: {command: …}`), at most _COMMAND_DEPTH objects down."""
    line = next((v for a in _COMMAND_ARGS if (v := command_line(tool_input.get(a))) is not None), None)
    if line is not None or depth >= _COMMAND_DEPTH:
        return line
    below = (_command_at(v, depth + 1) for v in tool_input.values() if isinstance(v, Mapping))
    return next((v for v in below if v is not None), None)


_COMMAND_DEPTH = 3


def named_command(tool_input: Mapping[str, Any]) -> str | None:
    """The line of an argument whose name says it holds a command line to run (`cli_command`, `shellCmd`,
    `commandLine`), whatever the tool's name (the AWS API server's `call_aws`); a bare `command` of a tool not named
    for running stays a text (a note's)."""
    return next((v for a, x in tool_input.items() if _names_a_line(a) and (v := command_line(x))), None)


def _names_a_line(key: str) -> bool:
    named = words(key)
    return "cmdline" in named or bool(named & _COMMAND_WORDS and named & _LINE_WORDS)


_COMMAND_WORDS = frozenset({"command", "cmd"})
_LINE_WORDS = frozenset({"line", "cli", "shell", "bash", "sh", "terminal", "console"})  # what runs it


NamedLine = Callable[[str, Mapping[str, JSON]], str | None]  # the line a tool's name and arguments amount to
# Words of a tool's name that make it run a command line it is given (Desktop Commander's `start_process`, a
# shell server's `run_command`, `execute_command`, `terminal`).
_RUN_WORDS = frozenset({"run", "exec", "execute", "start", "process", "shell", "terminal", "command", "spawn", "bash"})


def command_lines(tool: str, tool_input: Mapping[str, JSON], named: NamedLine = lambda _t, _i: None) -> list[str]:
    """The command lines a tool hookd has no table for runs: the commands its SQL runs (sql_commands), and the
    line of a container tool (container_line), of a tool named for running (run_line), of a database server's tool
    (sql_line) or else of a tool named for a program's subcommand (`named`: the caller's cli_tools.cli_line, which
    reads the effect model's catalogue, above this module)."""
    line = container_line(tool, tool_input)
    line = line if line is not None else run_line(tool_input) if words(tool) & _RUN_WORDS else None
    line = line if line is not None else cell_line(tool_input)  # a cell put in a notebook runs when it is run
    line = line if line is not None else named_command(tool_input)  # `call_aws`'s `cli_command`
    line = line if line is not None else sql_line(tool, tool_input)
    line = line if line is not None else named(tool, tool_input)  # `git_reset`, a package manager's `install`
    return [*sql_commands(tool_input), *compose_lines(tool_input), *([line] if line is not None else [])]


def compose_lines(tool_input: Mapping[str, JSON]) -> list[str]:
    """The `docker run` lines of a Compose file a tool is given as text (docker-mcp's `deploy-compose`
    `compose_yaml`): each service with an image, its volumes (short `host:dir` or long `{source, target}`),
    `privileged`, entrypoint and command, as container_line makes them (https://docs.docker.com/reference/compose-file/services/)."""
    out: list[str] = []
    for text in (v for v in tool_input.values() if isinstance(v, str) and "services" in v):
        parsed = parsed_settings(text)
        services = parsed.get("services") if isinstance(parsed, Mapping) else None
        for service in list(services.values())[:_MAX_SERVICES] if isinstance(services, Mapping) else ():
            if not isinstance(service, Mapping):
                continue
            command = [*compose_words(service.get("entrypoint")), *compose_words(service.get("command"))]
            listed = service.get("volumes")
            volumes = [_short_volume(v) for v in listed] if isinstance(listed, list) else []
            given = {"image": service.get("image"), "volumes": [v for v in volumes if v],
                     "privileged": service.get("privileged"), "command": command}  # fmt: skip
            line = container_line("container", given)
            out.extend([line] if line is not None else [])
    return out


_MAX_SERVICES = 16


def compose_words(value: Any) -> list[str]:
    """A Compose command or entrypoint: a string split as a shell would, or a list of words."""
    if isinstance(value, list):
        return [w for w in value if isinstance(w, str)]
    if not isinstance(value, str):
        return []
    try:
        return shlex.split(value)
    except ValueError:
        return [value]


def _short_volume(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and isinstance(value.get("source"), str) and isinstance(value.get("target"), str):
        return f"{value['source']}:{value['target']}"
    return ""


_CONTAINER_WORDS = frozenset({"container", "containers"})
# A container engine's name with its run or create word (`docker_run`, `podman_create`) names a container tool too
_ENGINE_WORDS = frozenset({"docker", "podman", "nerdctl"})
_START_WORDS = frozenset({"run", "create"})


def container_line(tool: str, tool_input: Mapping[str, Any]) -> str | None:
    """The `docker run` line a container tool's input amounts to (ckreiling's mcp-server-docker `run_container`,
    `create_container`, a tool named for the engine's own subcommand, `docker_run`: the Docker SDK's
    `containers.run` arguments): its volumes (`host:dir[:mode]`, or the
    SDK's `{host: {"bind": dir, "mode": m}}` and `{host: dir}`), `privileged`, image and command, so that what the
    command does through the mounts is judged as `docker run`'s is (a created container runs it when started).
    None: not a container tool, or no image."""
    given = _engine_fields(tool_input)
    image, said = given.get("image"), words(tool)
    named = bool(said & _CONTAINER_WORDS) or bool(said & _ENGINE_WORDS and said & _START_WORDS)
    if not named or not isinstance(image, str) or not image.strip():
        return None
    argv = ["docker", "run"]
    for volume in [*_volumes(given.get("volumes")), *_volumes(given.get("binds")), *_mounts(given.get("mounts"))]:
        argv += ["-v", volume]
    if given.get("privileged") is True:
        argv.append("--privileged")
    argv.append(image)
    argv += [*compose_words(given.get("entrypoint")), *compose_words(given.get("command", given.get("cmd")))]
    return shlex.join(argv)


def _engine_fields(tool_input: Mapping[str, Any]) -> dict[str, Any]:
    """A container tool's arguments by lowercased name, the Docker Engine API's `HostConfig` (`Binds`, `Mounts`,
    `Privileged`) read as top-level ones: the SDK's `volumes`/`command` and the Engine API's container-create body
    (`Image`, `Cmd`, `Entrypoint`: https://hex.pm/packages/ex_docker_engine_api/1.43.1/files/lib/docker_engine_api/model/container_config.ex;
    `HostConfig.Binds`, `.Mounts`: https://hex.pm/packages/ex_docker_engine_api/1.43.0/files/lib/docker_engine_api/model/host_config.ex)
    name the same things."""
    host = next((v for k, v in tool_input.items() if k.lower() in ("hostconfig", "host_config")), None)
    fields = {k.lower(): v for k, v in (host.items() if isinstance(host, Mapping) else ())}
    return fields | {k.lower(): v for k, v in tool_input.items()}


def _mounts(value: Any) -> list[str]:
    """The Engine API's `Mounts` of type bind (`{Type, Source, Target}`), as `host:dir`."""
    out = []
    for mount in value if isinstance(value, list) else ():
        spec = {str(k).lower(): v for k, v in mount.items()} if isinstance(mount, Mapping) else {}
        source, target = spec.get("source"), spec.get("target", spec.get("destination"))
        if spec.get("type", "bind") == "bind" and isinstance(source, str) and isinstance(target, str):
            out.append(f"{source}:{target}")
    return out


def _volumes(value: Any) -> list[str]:
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str) and v]
    if not isinstance(value, Mapping):
        return []
    out = []
    for host, bound in value.items():
        spec = bound if isinstance(bound, Mapping) else {"bind": bound}
        bind, mode = spec.get("bind"), spec.get("mode")
        if isinstance(host, str) and isinstance(bind, str):
            out.append(f"{host}:{bind}" + (f":{mode}" if isinstance(mode, str) and mode else ""))
    return out


_NEW_TEXT_WORDS = ("new", "content", "text", "source", "patch", "input", "command", "insert", "repl")


def new_texts(value: Any, key: str = "") -> list[str]:
    """The texts a tool's input writes: every string under an argument named for new text (`content`,
    `new_string`, `newString`, `new_str`, `file_text`, `new_source`, a patch), at any depth (MultiEdit's edits)."""
    if isinstance(value, str):
        return [value] if _names_new_text(key) else []
    if isinstance(value, Mapping):
        regex = any("regex" in str(k).lower() for k in value)  # its replacement is a template: `\n` a newline
        texts = [(str(k), t) for k, v in value.items() for t in new_texts(v, str(k))]
        return [_template(t) if regex and "repl" in k.lower() else t for k, t in texts]
    if isinstance(value, list):
        return [t for v in value for t in new_texts(v, key)]
    return []


def _template(text: str) -> str:
    r"""A regular expression's replacement as the text it inserts: Python's re.sub (Serena's `replace_regex`) reads
    `\n`, `\t` and `\\` in it as a newline, a tab and a backslash (https://docs.python.org/3/library/re.html#re.sub)."""
    return re.sub(r"\\([nt\\])", lambda m: {"n": "\n", "t": "\t"}.get(m[1], "\\"), text)


@functools.lru_cache(maxsize=512)
def _names_new_text(key: str) -> bool:
    """An argument's name that says it holds new text (decided once per name: a call asks it of every string)."""
    lowered = key.lower()
    return any(w in lowered for w in _NEW_TEXT_WORDS)
