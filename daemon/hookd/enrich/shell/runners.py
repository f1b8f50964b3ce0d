"""Commands that run other commands: the runner table. Owned by the policies engineer.

A command run by another one is judged as itself. Three shapes, one table each:

* argv runners (`wrappers._WRAPPERS`): the rest of the argv after some options and fixed operands is
  the command (`setsid rm -rf ~`, `chroot / rm …`): peeled off, the command stands in their place;
* script runners (`SCRIPT_RUNNERS` here): an option's value, or the rest of the argv joined, is a
  shell script (`script -c …`, `watch …`, `tmux new-session …`): parsed as one level deeper;
* spawners (`spawned`): other commands inside the argv (`find -exec … ;`, `docker run -v /:/h img
  cmd`, `parallel cmd ::: args`), walked as extra commands with the runner in their `wrappers`.

Operands that come from stdin (`xargs`, `parallel` without `:::`) are unknown: they stand as the
dynamic word `XARGS_INPUT`, so a rule about a target asks rather than guesses.
"""

from __future__ import annotations

import fnmatch
import itertools
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass

from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.engines import engine_subcommand, runs_container
from hookd.enrich.effects.followed import find_roots
from hookd.enrich.effects.sends import this_machines_path
from hookd.enrich.effects.words import system_program
from hookd.enrich.kernel_code import kernel_code_line
from hookd.enrich.shell.containers import container_spawns, engine_api_spawns
from hookd.enrich.shell.dbus_calls import CLIENTS as DBUS_CLIENTS
from hookd.enrich.shell.dbus_calls import systemctl_calls
from hookd.enrich.shell.searches import alternatives, searched_name, selection
from hookd.enrich.shell.tree import Spawn, _Item, _Simple

XARGS_INPUT = "${xargs_input}"


@dataclass(frozen=True, slots=True)
class ScriptRunner:
    script_options: tuple[str, ...] = ()  # `-c SCRIPT`, `--command SCRIPT`, `--command=SCRIPT`
    joined: bool = False  # the operands after the options, joined by spaces, are the script
    short_arg: str = ""  # short options that take a value (skipped before a joined script)
    long_arg: frozenset[str] = frozenset()
    subcommands: frozenset[str] = frozenset()  # when given, only after one of these (tmux)
    env_option: str = ""  # a short option whose value, NAME=VALUE, the script runs with set (tmux's `-e`)


SCRIPT_RUNNERS: dict[str, ScriptRunner] = {
    "script": ScriptRunner(("-c", "--command")),
    "flock": ScriptRunner(("-c", "--command")),
    "runuser": ScriptRunner(("-c", "--command")),
    "watch": ScriptRunner(joined=True, short_arg="nq", long_arg=frozenset({"interval", "equexit"})),
    "tmux": ScriptRunner(joined=True, short_arg="ceFnstxyLST", env_option="-e", subcommands=frozenset(
        {"new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane", "respawnp",
         "respawn-window", "respawnw", "send-keys", "send", "run-shell", "run"}
    )),
}  # fmt: skip

# Programs that run a script from stdin later: its text is parsed when the command line shows it.
DEFERRED = frozenset({"at", "batch", "crontab"})


_IPYTHON = re.compile(r"ipython3?(?:\.\d+)?")  # IPython's terminal: `ipython -c CODE` runs CODE as a cell


def script_of(name: str, argv: list[str]) -> str | None:
    """The shell script a script runner runs, or None; IPython's `-c CODE` as the line its kernel's reading of
    CODE is (its `!` lines, magics and Python: kernel_code, as a notebook cell is read)."""
    if _IPYTHON.fullmatch(name):
        code = next((argv[k + 1] for k, a in enumerate(argv[1:-1], start=1) if a == "-c"), None)
        return kernel_code_line(code) if code is not None else None
    if name == "ssh":
        return _local_ssh_script(argv)
    runner = SCRIPT_RUNNERS.get(name)
    if runner is None:
        return None
    short = [o[1] for o in runner.script_options if len(o) == 2]
    for k, arg in enumerate(argv[1:], start=1):
        clustered = arg[:1] == "-" and arg[1:2] != "-" and arg[-1:] in short  # `script -qc CMD`
        if (arg in runner.script_options or clustered) and k + 1 < len(argv):
            return argv[k + 1]
        for option in runner.script_options:
            if option.startswith("--") and arg.startswith(option + "="):
                return arg[len(option) + 1 :]
    if not runner.joined:
        return None
    k = 1
    if runner.subcommands:
        k = next((j + 1 for j, a in enumerate(argv[1:], start=1) if a in runner.subcommands), 0)
        if k == 0:
            return None
    start, k = k, _skip(argv, k, runner.short_arg, runner.long_arg)
    words = [w for w in argv[k:] if w not in ("Enter", "C-m", "KPEnter")]
    script = " ".join(words)
    return f"{_handed_env(argv[start:k], runner.env_option)}{script}" if script else None


# ssh(1)'s options that take a value (its SYNOPSIS)
_SSH_VALUES = "BbcDEeFIiJLlmOoPpQRSWw"


def _local_ssh_script(argv: list[str]) -> str | None:
    """`ssh localhost CMD`: ssh runs CMD through the login shell of the host it names; when that host is this
    machine (sends.this_machines_path), CMD is run here, outside the agent's hooks, and is walked as a script."""
    k = _skip(argv, 1, _SSH_VALUES, frozenset())
    if k >= len(argv) - 1:
        return None
    host = argv[k].split("://", 1)[1].split("/", 1)[0] if "://" in argv[k] else argv[k]  # ssh://[user@]host[:port]
    return " ".join(argv[k + 1 :]) if this_machines_path(host + ":", "/") is not None else None


def _handed_env(options: list[str], option: str) -> str:
    """The assignments a runner's environment option hands its script, spelled as the script's own prefix:
    `tmux new-session -e NAME=VALUE CMD` starts CMD with NAME set (tmux(1), new-session and new-window `-e`)."""
    if not option:
        return ""
    values = [options[j + 1] for j, w in enumerate(options[:-1]) if w == option]
    values += [w[len(option) :] for w in options if w.startswith(option) and len(w) > len(option)]
    pairs = (v.partition("=") for v in values)
    return "".join(f"{n}={shlex.quote(v)} " for n, eq, v in pairs if eq and re.fullmatch(r"[A-Za-z_]\w*", n))


def handed(name: str, argv: list[str]) -> frozenset[str]:
    """The words a command hands a command it runs, judged where the walk reaches that command, not again as
    code handed to the runner: a spawner's (`find -exec CMD`, `parallel CMD`) and a script runner's script
    (`watch -n 5 'ls -la'`, `script -qc CMD`, `tmux new -d CMD`: walked one level deeper)."""
    words = {w for spawn in spawned(name, argv) for w in spawn.argv[1:]}
    script = script_of(name, argv)
    if script is not None:
        words.update(w for w in argv[1:] if w == script or w in script.split(" "))
    return frozenset(words)


def _skip(argv: list[str], i: int, short_arg: str, long_arg: frozenset[str]) -> int:
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return i + 1
        if len(arg) < 2 or arg[0] != "-":
            return i
        i += 1
        if arg.startswith("--"):
            i += 1 if "=" not in arg and arg[2:] in long_arg else 0
        elif arg[-1] in short_arg:
            i += 1
    return i


# --------------------------------------------------------------------------------------------------
# Spawners


_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def spawned(name: str, argv: list[str]) -> list[Spawn]:
    if name == "find":
        return _find(argv)
    if (engine := catalogue().get(name)) and runs_container(engine, argv):  # (the catalogue's `container_runs`)
        return container_spawns(name, engine_subcommand(argv))
    if name == "parallel":
        return _parallel(argv)
    if name in ("fd", "fdfind"):
        return _fd(argv)
    if name == "curl" and any(w == "--unix-socket" or w.startswith("--unix-socket=") for w in argv):
        return engine_api_spawns(argv)
    return [Spawn(words, name) for words in systemctl_calls(name, argv)] if name in DBUS_CLIENTS else []


_FD_EXEC = frozenset({"-x", "--exec", "-X", "--exec-batch"})
_FD_VALUES = frozenset(
    {"-e", "--extension", "-t", "--type", "-d", "--max-depth", "--min-depth", "--exact-depth", "-E", "--exclude",
     "-S", "--size", "-c", "--color", "-j", "--threads", "--changed-within", "--changed-before", "-o", "--owner",
     "--base-directory", "--search-path", "--max-results", "--ignore-file", "--path-separator", "--batch-size",
     "--format"}
)  # fmt: skip
_FD_PLACEHOLDERS = ("{}", "{/}", "{//}", "{.}", "{/.}")


def _fd(argv: list[str]) -> list[Spawn]:
    """`fd [PATTERN] [PATH…] -x/-X cmd`: cmd runs on what fd finds below each PATH (`{}` and its variants stand
    for it, else it is appended), as `find -exec` does (https://github.com/sharkdp/fd#command-execution)."""
    positional: list[str] = []
    command: list[str] = []
    k = 1
    while k < len(argv):
        word = argv[k]
        if word in _FD_EXEC or word.startswith(("--exec=", "--exec-batch=")):
            end = next((j for j in range(k + 1, len(argv)) if argv[j] == ";"), len(argv))
            command = argv[k + 1 : end]
            k = end + 1
            continue
        if word in _FD_VALUES or word == "--search-path":
            k += 2
            continue
        if not word.startswith("-"):
            positional.append(word)
        k += 1
    if not command:
        return []
    roots = positional[1:] or ["."]
    pattern = positional[0] if positional and positional[0] not in (".", "", "^") else ""
    literal = pattern and not any(c in pattern for c in "^$[]()|*+?{}\\")
    spawns = []
    for root in roots[:8]:  # what it finds: a name holding a literal pattern, else any file below the root
        found = f"{root.rstrip('/') or '/'}/" + (f"**/*{pattern}*" if literal else "**/*" if pattern else "*")
        placed = [_fd_fill(w, found) for w in command]
        if placed == command:  # no placeholder: fd appends the path
            placed = [*command, found]
        spawns.append(Spawn(placed, "fd", sweep=True))
    return spawns


def _fd_fill(word: str, found: str) -> str:
    for token in _FD_PLACEHOLDERS:
        word = word.replace(token, found)
    return word


def _find(argv: list[str]) -> list[Spawn]:
    """`find ROOT… … -name PAT -exec cmd {} ;`: `{}` stands for ROOT/**/PAT (or ROOT/*), what it finds below
    each start point; and for the start point itself where find selects it (find(1): the start points are
    depth 0): with `-maxdepth 0` only them, else a start point other than `.`/`..` whose name matches and
    that no `-type` other than d or `-mindepth` leaves out (`find build -exec rm -rf {} +` removes build)."""
    roots = find_roots(argv)[0]
    pattern = "*"
    for k, arg in enumerate(argv):
        if arg in ("-name", "-iname") and k + 1 < len(argv):
            pattern = searched_name(arg, argv[k + 1]) or argv[k + 1]
    first = next((k for k, w in enumerate(argv) if w in _FIND_EXEC), len(argv))
    chosen = selection(["find", *argv[1:first]])  # its tests read whole (`-iname`, `-path '*.env'`), when they are
    only_starts = _find_value(argv, "-maxdepth") == "0"
    starts_too = only_starts or (
        _find_value(argv, "-mindepth") in (None, "0") and _find_value(argv, "-type") in (None, "d")
    )
    stand_ins: list[tuple[str, bool]] = []  # (what `{}` is, whether it stands for a search's selection)
    selected = alternatives(chosen) if chosen is not None else []  # (each pattern of a union: a `{}` of its own)
    for n, root in enumerate(roots or ["."]):
        name = root.rstrip("/").rsplit("/", 1)[-1]
        if starts_too and (only_starts or (name not in ("", ".", "..") and fnmatch.fnmatchcase(name, pattern))):
            stand_ins.append((root, False))  # the start point itself: that path, no selection below it
        if not only_starts:
            below = f"{root.rstrip('/') or '/'}/{pattern}" if pattern == "*" else f"{root.rstrip('/')}/**/{pattern}"
            stand_ins.extend((s, True) for s in (selected if selected and n == 0 else [below]))
    spawns = []
    k = 0
    while k < len(argv):
        if argv[k] in _FIND_EXEC:
            end = next((j for j in range(k + 1, len(argv)) if argv[j] in (";", "+")), len(argv))
            for found, sweeps in stand_ins:
                command = [found if w == "{}" else w.replace("{}", found) for w in argv[k + 1 : end]]
                if command:
                    spawns.append(
                        Spawn(command, "find", sweep=sweeps, selects=found if sweeps and found in selected else "")
                    )
            k = end
        k += 1
    return spawns


def _find_value(argv: list[str], option: str) -> str | None:
    """The value of find's last `option` (`-maxdepth 0`), None when it has none."""
    at = max((k for k, w in enumerate(argv[:-1]) if w == option), default=-1)
    return argv[at + 1] if at >= 0 else None


def _parallel(argv: list[str]) -> list[Spawn]:
    """`parallel [opts] cmd args ::: inputs`: cmd with the inputs (in place of `{}`, else appended);
    without `:::` the inputs come from stdin and are unknown."""
    k = _skip(argv, 1, "jSadEIn", frozenset({"jobs", "sshlogin", "arg-file", "delimiter", "eof", "replace"}))
    rest = argv[k:]
    separators = (":::", "::::", ":::+")
    mark = next((j for j, w in enumerate(rest) if w in separators), None)
    command = rest if mark is None else rest[:mark]
    inputs = [XARGS_INPUT] if mark is None else [w for w in rest[mark:] if w not in separators]
    if not command:
        return []
    if any("{}" in w for w in command):
        return [Spawn([w.replace("{}", value) for w in command], "parallel") for value in inputs[:16]]
    return [Spawn(command + inputs, "parallel")]


# --------------------------------------------------------------------------------------------------
# Scripts on stdin


def runs_stdin(name: str, argv: list[str], shells: frozenset[str]) -> bool:
    """Whether the command runs the text on its stdin as a shell script: a shell without `-c` and without
    a script file (or with `-s`), `source`/`.` of /dev/stdin, `at`/`batch` without `-f`, `crontab` installing
    from `-` or stdin."""
    options = [a for a in argv[1:] if a.startswith("-") and a != "-"]
    operands = [a for a in argv[1:] if not a.startswith("-") or a == "-"]
    if name in shells:
        flags = "".join(o[1:] for o in options if not o.startswith("--"))
        return "c" not in flags and ("s" in flags or not operands or operands[0] in _STDIN_FILES)
    if name in ("source", "."):  # `source /dev/stdin <<< …`: the current shell reads its stdin as the script
        return bool(operands) and operands[0] in _STDIN_FILES
    if name in ("at", "batch"):
        return not any(o.startswith("-f") for o in options)
    if name == "crontab":
        return not any(o in ("-l", "-r", "-e") for o in options) and (not operands or operands[-1] == "-")
    return False


_STDIN_FILES = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|0?[0-7]{1,3}|u[0-9A-Fa-f]{1,4}|[abefnrtv\\'\"])")
_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
}
_FORMAT = re.compile(r"%(%|[-+ #0]*\d*(?:\.\d+)?[sbdi])|%")


def _unescape(text: str) -> str:
    """printf's and `echo -e`'s backslash escapes decoded (`\x72` is `r`, `\155` is `m`)."""

    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] == "x":
            return chr(int(code[1:], 16))
        if code[0] == "u":
            return chr(int(code[1:], 16))
        if code[0] in "01234567":
            return chr(int(code, 8) & 0xFF)
        return _SIMPLE_ESCAPES.get(code, code)

    return _ESCAPE.sub(one, text)


def _dynamic_text(word: str) -> bool:
    return "$" in word or "`" in word


def printed(words: list[str], quoted: frozenset[str] = frozenset()) -> str | None:
    """The text `echo`/`printf` writes, when its words are known (the next command in a pipe reads it):
    escapes decoded as printf and `echo -e` do, `%s`/`%b`/`%d` filled from the arguments. A word in `quoted`
    is known whatever `$` it holds: they were quoted on the line (`echo 'echo $HOME' | sh`). `printf '%s\\0'
    ARGS` (each argument one NUL-ended item, for `xargs -0`) keeps an argument built at run time as written: its
    value is one item whatever it is (a substitution's output holds no NUL), so the known items around it stay known.
    The system's `/usr/bin/printf` and `/bin/echo` print what the builtins do."""
    words = [system_program(words[0]), *words[1:]] if words else words
    if words[:2] == ["printf", "%s\\0"] and len(words) > 2:
        return "".join(w + "\0" for w in words[2:])
    if not words or words[0] not in ("echo", "printf") or any(_dynamic_text(w) and w not in quoted for w in words):
        return None
    if words[0] == "printf":
        args = words[1:]
        if args[:1] == ["--"]:
            args = args[1:]
        if not args or args[0] == "-v":
            return None
        return _format(args[0], args[1:])
    args = words[1:]
    escapes = False
    while args and len(args[0]) > 1 and args[0][0] == "-" and set(args[0][1:]) <= set("neE"):
        escapes = "e" in args[0] or escapes
        args = args[1:]
    text = " ".join(args)
    return _unescape(text) if escapes else text


def _format(template: str, args: list[str]) -> str | None:
    """`printf FORMAT ARGS…` for the conversions whose output is the argument's text; None for others."""
    out: list[str] = []
    remaining = list(args)
    while True:
        failed = False

        def fill(match: re.Match[str]) -> str:
            nonlocal failed
            spec = match.group(1)
            if spec is None:
                failed = True
                return ""
            if spec == "%":
                return "%"
            value = remaining.pop(0) if remaining else ""
            return _unescape(value) if spec.endswith("b") else value

        out.append(_fill_raw(template, fill))
        if failed:
            return None
        if not remaining or not _FORMAT.search(template):
            return "".join(out)


def _fill_raw(template: str, fill: Callable[[re.Match[str]], str]) -> str:
    """printf reads its format once, left to right: a `%` an escape prints (`\\045s`) is a character of the
    output, not a conversion, so the conversions are found in the format as written and only the text between
    them is unescaped."""
    out: list[str] = []
    at = 0
    for match in _FORMAT.finditer(template):
        out.append(_unescape(template[at : match.start()]))
        out.append(fill(match))
        at = match.end()
    out.append(_unescape(template[at:]))
    return "".join(out)


def xargs_operands(
    words: list[str], argv: list[str], stdin: str | None = None, search: tuple[str, ...] = ()
) -> list[str]:
    """The command xargs runs, with its operands from stdin: the items of `stdin` when the line shows them
    (`echo a b | xargs rm`; split at NULs with `-0`/`--null`, at the `-d` delimiter, else at blanks), else
    XARGS_INPUT; in place of the -I token (its first item), else appended. Appended, `search` too: the
    substitutions of the search that feeds it (`find . -name .env | xargs cat`, searches.fed_searches)."""
    token = None
    delimiter: str | None = None  # None: blanks and newlines (GNU xargs' default)
    start = next((k for k, w in enumerate(words) if w.rsplit("/", 1)[-1] == "xargs"), 0)  # not `env -i`'s words
    for k, word in enumerate(words[start:], start):
        if words[k:] == argv:
            break
        if word in ("-I", "--replace") and k + 1 < len(words):
            token = words[k + 1] if word == "-I" else "{}"
        elif word.startswith("-I") and len(word) > 2:
            token = word[2:]
        elif word.startswith("--replace="):
            token = word.split("=", 1)[1] or "{}"
        elif word in ("-i",):
            token = "{}"
        elif word == "--null" or (_XARGS_FLAGS.fullmatch(word) and "0" in word):
            delimiter = "\0"
        elif word in ("-d", "--delimiter") and k + 1 < len(words):
            delimiter = _unescape(words[k + 1])[:1] or None
        elif word.startswith("--delimiter="):
            delimiter = _unescape(word.split("=", 1)[1])[:1] or None
        elif word.startswith("-d") and len(word) > 2:
            delimiter = _unescape(word[2:])[:1] or None
    given = _items(stdin, delimiter) if stdin is not None and stdin.strip("\0 \t\n") else None
    if token:
        first = stdin.strip().splitlines()[0].strip() if delimiter is None and stdin else (given or [""])[0]
        line = first if given else XARGS_INPUT  # -I reads whole lines (or delimited items)
        return [w.replace(token, line) for w in argv]
    if not argv:
        return argv
    return [*argv, *given] if given else [*argv, XARGS_INPUT, *search]


def xargs_arg_file(words: list[str]) -> str | None:
    """The file xargs reads its items from (`-a FILE`, `-aFILE`, `--arg-file[=]FILE` or an abbreviation of it as GNU
    getopt takes one: `--arg=FILE`), None when it reads stdin; the words from xargs on, up to the command."""
    start = next((k for k, w in enumerate(words) if w.rsplit("/", 1)[-1] == "xargs"), len(words))
    for k, word in enumerate(words[start + 1 :], start + 1):
        name, equals, value = word.partition("=")
        if word == "-a" or (len(name) > 3 and "--arg-file".startswith(name) and not equals):
            return words[k + 1] if k + 1 < len(words) else None
        if word.startswith("-a") and not word.startswith("--"):
            return word[2:]
        if len(name) > 3 and "--arg-file".startswith(name):
            return value
        if not word.startswith("-") and words[k - 1] not in _XARGS_VALUED:
            return None
    return None


_XARGS_VALUED = frozenset(
    {"-d", "-E", "-I", "-L", "-n", "-P", "-s", "--delimiter", "--max-args", "--max-procs", "--max-chars",
     "--process-slot-var"}
)  # fmt: skip
_XARGS_FLAGS = re.compile(r"-[0rtpx]+")  # xargs' short options that take no value, in a cluster


def _items(stdin: str, delimiter: str | None) -> list[str]:
    """The items xargs reads: between delimiters (the last one's empty remainder is no item), else the
    blank-separated words."""
    if delimiter is None:
        return stdin.split()
    items = stdin.split(delimiter)
    return items[:-1] if items and not items[-1] else items


def operands(argv: list[str]) -> list[str]:
    """The words after the program that are not options (all of them after `--`)."""
    found: list[str] = []
    after_dashes = False
    for arg in argv[1:]:
        if not after_dashes:
            if arg == "--":
                after_dashes = True
                continue
            if arg.startswith("-") and arg != "-":
                continue
        found.append(arg)
    return found


_SILENT = frozenset({":", "true", "false", "shift", "unset"})
_DECLARING = frozenset({"export", "local", "declare", "typeset", "readonly"})


def output(argv: list[str], text: str | None, cdpath: bool = False) -> str | None:
    """What a command prints on its standard output, all of it (`text`: `printed`'s, which leaves out the newline
    `echo` ends with), when known: also "" for a command that prints nothing. None when not known."""
    program = system_program(argv[0]) if argv else ""
    if text is not None and program == "printf":
        return text
    if text is not None and program == "echo":  # its options as `printed` reads them: `-n` leaves the newline out
        return text if any("n" in flags for flags in itertools.takewhile(_ECHO_FLAGS.match, argv[1:])) else text + "\n"
    return "" if prints_nothing(argv, cdpath) else None


_ECHO_FLAGS = re.compile(r"^-[neE]+$")


def prints_nothing(argv: list[str], cdpath: bool = False) -> bool:
    """Whether a command prints nothing on its standard output whatever its words hold: an assignment alone,
    `:`, `set -- …`, `shift`, `export X=…`, `cd DIR` (bash manual, "Bourne Shell Builtins" and "Bash Builtins":
    `set`, `export` and `declare` without operands, `-p` or `set -o` print; `cd -` and a `cd` found through
    CDPATH print the directory)."""
    if not argv:
        return True
    name, args = argv[0], argv[1:]
    if name in _SILENT:
        return True
    if name == "set":
        return bool(args) and args[-1] not in ("-o", "+o")
    if name in _DECLARING:
        return bool(args) and not any(a.startswith("-") and set(a[1:]) & set("pfF") for a in args)
    return name == "cd" and len(args) == 1 and args[0] != "-" and not cdpath


def setting(item: _Item, expand: Callable[[list[str]], list[str]] = list) -> bool:
    """A command that only sets the shell's state, reading nothing and printing nothing whatever its words: an
    assignment, `set -- …`, `shift`, `export X=…`, `cd DIR` (`prints_nothing`), its words as the shell expands
    them (`c=cd; … | ($c src && xargs …)`)."""
    return isinstance(item, _Simple) and not item.redirects and prints_nothing(expand(item.words))
