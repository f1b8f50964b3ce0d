"""The words of the effect model: which programs print the environment or do nothing with their words,
what marks a secret variable, a URL, a decoder; and the small functions over argvs and effects that
hookd.enrich.effects.model uses."""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from hookd.enrich.effects.catalogue import Catalogue, Program, ShellSetup, StartupFiles, catalogue
from hookd.enrich.effects.directed import directed_startup
from hookd.enrich.effects.options import Parsed
from hookd.enrich.facts import in_home_cache, is_scratch, is_unresolved, static_dir, under

XARGS_INPUT = "${xargs_input}"  # hookd.enrich.shell.runners.XARGS_INPUT (imported from there it would be a cycle)

SHELLS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "posh", "source", "."},
)
# socat(1) "ADDRESS TYPES" that name a file, and what socat does with it
SOCAT_FILES = {"OPEN": ("read", "write"), "GOPEN": ("read", "write"), "FILE": ("read", "write"), "CREATE": ("write",)}
STDIN_FILES = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
# Programs whose operands are words, not files: nothing is guessed about them.
_INERT = frozenset(
    {"echo", "printf", "which", "type", "whereis", "basename", "dirname", "test", "[", "[[", "true", "false", "sleep",
     "date", "seq", "yes", "expr", "id", "whoami", "hostname", "uname", "pwd", "cd", "pushd", "popd", "export", "unset",
     "alias", "unalias", "set", "shopt", "read", "wait", "jobs", "exit", "return", "local", "declare", "typeset",
     "readonly", "let", "history", "hash", "umask", "ulimit", "trap", "shift", "getopts", "command", "builtin", "exec",
     "eval", "mktemp", "nproc", "tput", "clear", "printenv", "env", "git", "man", "help", "info", "apropos", "whatis",
     "ps", "pgrep", "top", "htop", "free", "df", "uptime", "lsof", "ss", "netstat", "ping", "dig", "nslookup", "host",
     "npm", "pnpm", "yarn", "pip", "pip3", "cargo", "go", "make", "docker", "kubectl", "gh", "brew", "apt", "apt-get",
     "dnf", "yum", "pacman", "apk", "snap", "node", "deno", "bun", "tsc", "jest", "pytest",
     "ruff", "mypy", "black", "prettier", "eslint", "hookd", "systemctl", "journalctl", "service", "mkdir", "cmake",
     "ninja", "bazel", "mvn", "gradle", "java", "javac", "rustc", "gcc", "g++", "cc", "clang", "ld", "as",
     "uv", "poetry", "tmux", "screen", "watch", "time", "timeout", "nice", "nohup", "xargs", "tr", "wc", "sort",
     "uniq", "tee"}
)  # fmt: skip
# Programs and builtins whose words are never files nor code (the catalogue is not consulted for them).
_NOTHING = frozenset(
    {"echo", "printf", "which", "type", "true", "false", "test", "[", "[[", "pwd", "cd", "pushd", "popd", "sleep",
     "id", "whoami", "hostname", "uname", "seq", "yes", "expr", "basename", "dirname", "nproc", "clear", "tput",
     "jobs", "wait", "exit", "return", "shift", "let", "unalias", "hash", "umask", "ulimit", "history", "shopt",
     "read", "getopts", "mktemp", "df", "free", "uptime", "export", "unset", "local", "declare", "typeset",
     "readonly", ":"}
)  # fmt: skip


def system_program(word: str) -> str:
    """A program word naming one of the system's own programs by its path (`/usr/bin/printf`, `/bin/echo`) as its
    name: they print what the builtins of that name print. Not a `./printf` or `~/bin/echo`, which may be anything."""
    for directory in ("/bin/", "/usr/bin/"):
        if word.startswith(directory) and "/" not in word[len(directory) :]:
            return word[len(directory) :]
    return word


_SECRET_HINT = re.compile(r"[./~]")  # an operand that may be a path
_ENVIRONMENT_PRINTERS = frozenset(
    {"env", "printenv", "set", "export", "declare", "typeset", "echo", "printf", "ps", "jq", "gojq", "jaq"}
)
# A variable whose name says it holds a credential (`$GITHUB_TOKEN`, `printenv AWS_SECRET_ACCESS_KEY`)
_SECRET_VARIABLE = re.compile(
    r"(?:^|\$\{?)([A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIAL|AUTH)[A-Z0-9_]*)"
)
_DECODERS = frozenset(
    {
        "base64",
        "base32",
        "basenc",
        "xxd",
        "openssl",
        "gpg",
        "uudecode",
        "gunzip",
        "zcat",
        "rev",
        "tr",
        "xz",
        "unxz",
        "bzip2",
        "bunzip2",
        "zstd",
    }
)
_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://|^[\w.-]+@[\w.-]+:|^[\w-]+(\.[\w-]+)+(:\d+)?(/|$)")


def _stdout_trees(effects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The trees a command read whole, when it wrote no file: what it read went to its stdout (`tar cz .`)."""
    if any(e["op"] == "write" for e in effects):
        return []
    return [
        {"raw": e.get("raw", e["path"]), "path": e["path"], "in_project": e["class"] in ("project", "project-root")}
        for e in effects
        if e["op"] == "read" and e["recursive"] and e["path"]
    ]


def _dynamic(text: str) -> bool:
    """A word whose value is only known when the shell runs it (as hookd.enrich.shell.words._dynamic)."""
    return is_unresolved(text) or "<(" in text or ">(" in text


def _code_operands(program: Program, parsed: Parsed) -> list[str]:
    """The operands that may be code (`sed SCRIPT`, `awk PROGRAM`): none when an option gave the code."""
    return [] if _code_by_option(program, parsed) else parsed.operands


def _code_by_option(program: Program, parsed: Parsed) -> bool:
    """The code came by an option (`sed -e SCRIPT`, `awk -f FILE`): no operand is code then."""
    return any(o in program.code_options for o, _ in parsed.options)


def _file_operands(program: Program, parsed: Parsed) -> list[str]:
    """The operands that name files: not a pattern given first (`grep PATTERN`), nor code (`awk PROGRAM`)."""
    operands = parsed.operands
    if program.pattern_first and operands and not any(o in program.pattern_options for o, _ in parsed.options):
        operands = operands[1:]
    if program.code_operand and not _code_by_option(program, parsed):
        operands = operands[:1] if program.name == "sqlite3" else operands[1:]
    return program.without_code_words(operands)


def _short_spellings(argv: list[str]) -> set[str]:
    """Every short option letter of argv's clusters, spelled `-x` (for tables that name `-r` beside `--recursive`)."""
    found: set[str] = set()
    for word in argv[1:]:
        if len(word) > 1 and word[0] == "-" and word[1] != "-":
            found.update("-" + c for c in word[1:] if c.isalpha())
        elif word.startswith("--"):
            found.add(word.split("=", 1)[0])
    return found


def _has_words(argv: list[str], words: tuple[str, ...]) -> bool:
    """`words` appear in argv in this order (options between them allowed)."""
    k = 0
    for word in argv[1:]:
        if k < len(words) and _spells(word, words[k]):
            k += 1
    return k == len(words)


def _option_value_in(argv: list[str], values: frozenset[str]) -> bool:
    """Some option of argv has one of `values` as its value (`-o name`, `-oname`, `--output=name`)."""
    for k, word in enumerate(argv[1:], start=1):
        if not word.startswith("-"):
            continue
        attached = word.split("=", 1)[1] if "=" in word else word[2:] if not word.startswith("--") else ""
        following = argv[k + 1] if k + 1 < len(argv) else ""
        if attached in values or (not attached and following in values):
            return True
    return False


def _spells(word: str, wanted: str) -> bool:
    """`word` is `wanted`, or a cluster of short options holding it (`-wa` holds `-w`)."""
    if word == wanted:
        return True
    short = len(wanted) == 2 and wanted[0] == "-" and wanted[1] != "-"
    return short and len(word) > 2 and word[0] == "-" and word[1] != "-" and word[1:].isalpha() and wanted[1] in word


def _uploaded_file(value: str, *, option: str = "") -> str:
    """The file an upload option or request item sends, "" when none: `@file` (curl -d), `name=@file` and
    `name=<file` (curl -F), `name@file` (curl --data-urlencode), httpie's `@file`, `field@file`,
    `field=@file`, `field:=@file`; curl's `;type=…` parameters cut, `@-` (stdin) and plain text such as
    `user@example.com` given to `-d` or `email=me@x.com` to httpie are not files."""
    at = min((i for i in (value.find("@"), value.find("<")) if i >= 0), default=-1)
    if at < 0:
        return ""
    name, mark = value[:at], value[at]
    if name:
        field = name.removesuffix(":=").removesuffix("=")
        bare = "=" not in field and ":" not in field and "/" not in field
        if option in ("--form", "-F"):
            allowed = name.endswith("=") and bare
        elif option == "--data-urlencode":
            allowed = mark == "@" and bare and not name.endswith("=")
        elif option:  # curl -d and the like: a file only when the value starts with `@`
            allowed = False
        else:  # httpie's request items
            allowed = bare and mark == "@"
        if not allowed:
            return ""
    elif mark != "@":
        return ""
    sent = value[at + 1 :].split(";", 1)[0]
    return "" if sent in ("", "-") else sent


def _fixed_place(raw: str, path: str, project: str) -> str:
    """Where a target built at run time can lie, from the text before its first expansion: `project`
    (`build/$X`, `./out/$N`), `scratch` (`/tmp/$X`), or `elsewhere` (`$D/x`, `~/.ss$(…)/…`, `/etc/$X`)."""
    if raw[:1] in ("$", "`") or ".." in raw or not path.startswith("/"):
        return "elsewhere"
    directory = static_dir(path) or "/"
    if under(directory, project):
        return "project"
    return "scratch" if is_scratch(directory + "/x") else "elsewhere"


# ps(1)'s options that take a value (`-o FORMAT`, `-p PID`, `-C NAME`): their value is no BSD option cluster
_PS_VALUE_OPTIONS = frozenset(
    {"-o", "-O", "-p", "-q", "-u", "-U", "-g", "-G", "-t", "-C", "-s", "-k", "--sort", "--user", "--User", "--group",
     "--Group", "--pid", "--ppid", "--quick-pid", "--sid", "--tty", "--format", "--cols", "--columns", "--rows",
     "--lines", "--width"}
)  # fmt: skip


def _ps_environment(words: list[str]) -> bool:
    """`ps e`, `ps eww`, `ps auxe`: a BSD option cluster (no dash) holding `e` shows each process's
    environment after its command (https://man7.org/linux/man-pages/man1/ps.1.html); `ps -e` is every process."""
    return any(
        w.isalpha() and "e" in w and (k == 0 or words[k - 1] not in _PS_VALUE_OPTIONS) for k, w in enumerate(words)
    )


# jq's `env` and `$ENV` are the whole environment as an object (https://jqlang.org/manual/, "$ENV, env"; gojq and
# jaq implement jq's language); `env.NAME` and `$ENV.NAME` are one variable of it
_JQ = frozenset({"jq", "gojq", "jaq"})
_JQ_ENVIRONMENT = re.compile(r"(?<![\w$.])(?:env|\$ENV)(?![\w.\[])")
_JQ_VARIABLE = re.compile(r"(?<![\w$.])(?:env|\$ENV)\.([A-Za-z_][A-Za-z0-9_]*)")


def printed_environment(name: str, argv: list[str], literal: frozenset[str] = frozenset()) -> list[str] | None:
    """The whole environment printed (`env`, `printenv`, `export -p`, `declare -x`, `set`: []), or the
    variables whose names say they hold a secret (`printenv GITHUB_TOKEN`, `echo $AWS_SECRET_ACCESS_KEY`);
    None when neither. A `$` of a `literal` word (single-quoted, escaped: POSIX 2.2.2) is text the shell keeps."""
    words = argv[1:]
    # `set` prints the variables only with no argument at all (`set -e`, `set -- a b` set options, parameters)
    whole = (name in ("env", "printenv") and not [w for w in words if not w.startswith("-")]) or (
        name == "set" and not words
    )
    named = [w for w in words if not w.startswith("-")]  # `declare -p PATH` prints PATH only
    printing = any(w in ("-p", "-x", "-px") for w in words)
    whole = whole or (name in ("export", "declare", "typeset") and printing and not named)
    whole = whole or (name == "ps" and _ps_environment(words))
    whole = whole or (name in _JQ and any(_JQ_ENVIRONMENT.search(w) for w in words if not w.startswith("-")))
    if name == "set" and words:
        return None  # it sets options or the positional parameters, and prints nothing
    # a variable's value is printed where a `$` names it; a bare name only by the programs that take names
    by_name = name == "printenv" or (name in ("export", "declare", "typeset") and printing)
    secret = [m for w in words if by_name or ("$" in w and w not in literal) for m in _SECRET_VARIABLE.findall(w)]
    if name in _JQ:  # `jq -n '$ENV.GITHUB_TOKEN'`
        secret += [n for w in words for n in _JQ_VARIABLE.findall(w) if _SECRET_VARIABLE.fullmatch(n)]
    return secret if whole or secret else None


# A word of fish's `set` or csh's `setenv` that expands no command (fish's substitution is `(…)`, `$(…)`).
_SET_WORD = r"""(?:'[^'\n]*'|"[^"\n`()\\]*"|[^\s;&|<>`()'"\\])++"""
# A line setting a variable in fish (`set -gx EDITOR nvim`: https://fishshell.com/docs/current/cmds/set.html) or
# csh (`setenv EDITOR vim`), its name and its words.
_SET_LINE = rf"[ \t]*(?:set(?:[ \t]+-[A-Za-z-]+)*+|setenv)[ \t]+([A-Za-z_][A-Za-z0-9_]*)((?:[ \t]+{_SET_WORD})*+)[ \t]*"
# A line that only sets a variable (`export PATH="$HOME/bin:$PATH"`, `set -gx EDITOR nvim`), a comment or a blank
# line: nothing runs. Matched line by line: one pattern over the whole text, with its optional line ends, tried
# exponentially many ways to split a text that fails at its end (24 lines of `A=b` then `(` took 30 s); options and
# words possessive: an option (`--a`) read as one dash or two, or as a word, once split a line 3^n ways (20: 2 s).
# fish's `fish_add_path [-agmpPUv] DIR…` puts its directories on PATH (https://fishshell.com/docs/current/cmds/fish_add_path.html)
_ADD_PATH_LINE = rf"[ \t]*fish_add_path(?:[ \t]+-[A-Za-z-]+)*+((?:[ \t]+{_SET_WORD})++)[ \t]*"
_SETTING_LINE = re.compile(
    r"[ \t]*(?:#[^\n]*|(?:export[ \t]+)?[A-Za-z_][A-Za-z0-9_]*=(?:[^;&|<>`$\n]|\$(?!\())*)?"
    rf"|{_SET_LINE}|{_ADD_PATH_LINE}"
)
_SET_ASSIGNMENT = re.compile(rf"^{_SET_LINE}$", re.MULTILINE)
_PATH_ADDED = re.compile(rf"^{_ADD_PATH_LINE}$", re.MULTILINE)


# one command substitution, `$(…)`, `` `…` `` or `<(…)`, quoted or not, holding one plain command
_ONE_SUBSTITUTION = re.compile(
    r"""^\s*"?(?:\$\((?P<a>[^()$`|;&<>"']*)\)|`(?P<b>[^()$`|;&<>"']*)`|<\((?P<c>[^()$`|;&<>"']*)\))"?\s*$"""
)
_SHELL_NAMES = frozenset({"bash", "zsh", "fish", "sh", "ksh", "-"})
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")  # a program looked up on PATH


def prints_own_code(text: str) -> bool:
    """`$(pyenv init -)`, `<(kubectl completion bash)`: one substitution of a program named plainly (looked up on
    PATH, not a file of the line) that prints the shell code of its own setup (the catalogue's `prints_shell`: the
    words that ask for it, then options, or a shell's name where the entry says so). `eval` or `source` of it runs
    the tool's installed code, not code the line made."""
    match = _ONE_SUBSTITUTION.match(text)
    if match is None:
        return False
    inner = match.group("a") or match.group("b") or match.group("c") or ""
    argv = inner.split()
    program = catalogue().get(argv[0]) if argv and "/" not in argv[0] and "=" not in argv[0] else None
    if program is None:
        return False
    return any(argv[1 : 1 + len(s.words)] == list(s.words) and _setup_words(s, argv[1 + len(s.words) :]) for s in
               program.prints_shell)  # fmt: skip


def _setup_words(setup: ShellSetup, rest: list[str]) -> bool:
    """The words after those asking for the setup code leave it the tool's own: options (only the entry's own
    when it registers programs), a shell's name, the plain names of the programs it registers."""
    if not setup.names:
        return all(w.startswith("-") or (setup.shell and w in _SHELL_NAMES) for w in rest)
    return all(
        w in setup.options if w.startswith("-") else (setup.shell and w in _SHELL_NAMES) or _PLAIN_NAME.fullmatch(w)
        for w in rest
    )


def shadows(path: str, home: str, landing: Iterable[str | None] = ()) -> str | None:
    """A program written into a directory searched before the system's (the catalogue's `bin_dirs`: ~/.local/bin,
    ~/go/bin, /usr/local/bin) under the name of one the system or the catalogue has: every later shell runs it
    instead. `landing`: the names a copy or move into the directory itself puts there (None: not known, a
    directory's contents). Returns what happens, None when nothing is shadowed. (`may_run_at_start` must hold
    wherever this does: a test here widens it.)"""
    searched = _searched(catalogue().bin_dirs, home)
    directory, _, name = path.rpartition("/")
    if directory in catalogue().system_programs and name and (catalogue().get(name) is not None or _installed(name)):
        # `update-alternatives --install /usr/bin/git …`, `ln -sf x /usr/bin/git`: the system's own program replaced
        return f"{path} is the system's {name}: what is put there runs instead of it for every later caller"
    if path in searched:
        directory, names = path, list(landing)
    elif directory in searched:
        names = [name]
    else:
        return None
    for landed in names:
        if landed is None or _known(landed):
            what = landed or "a program"
            return f"{directory} is searched before the system's programs: {what} there runs instead in every shell"
    return None


@functools.lru_cache(maxsize=16)
def _searched(bin_dirs: tuple[tuple[str, ...], tuple[str, ...]], home: str) -> frozenset[str]:
    """The directories searched before the system's programs under `home`: derived once per home, not per write."""
    home_dirs, system_dirs = bin_dirs
    return frozenset({f"{home}/{d}" for d in home_dirs} | set(system_dirs))


def _known(name: str) -> bool:
    """A program the catalogue has, one hookd guards by name (an agent, hookd's own), or one the system has."""
    return name in catalogue().guarded_names or catalogue().get(name) is not None or _installed(name)


def _installed(name: str) -> bool:
    return any(os.path.exists(f"{directory}/{name}") for directory in catalogue().system_programs)


def is_startup_file(path: str, home: str) -> bool:
    """A file a shell, a session or the system runs or trusts later: one of the catalogue's `startup_files` (a
    shell's or a session's: its text is shell code) or `runs_later` (`/etc/sudoers.d/`, `/etc/ld.so.preload`,
    `*/site-packages/*.pth`, `~/.vimrc`: another program's text)."""
    return startup_language(path, home) is not None


def startup_language(path: str, home: str) -> str | None:
    """`sh` for a file a shell or a session runs when it starts, `""` for one another program runs or trusts
    later, None for any other path (`may_run_at_start` must hold wherever this is not None)."""
    return next(iter(startup_languages(path, (home,))))


def startup_languages(path: str, homes: Sequence[str]) -> set[str | None]:
    """`{startup_language(path, home) for home in homes}`, what does not depend on the home tested once (a shell's
    file in the directory a startup file of the home names is one too: zsh's ZDOTDIR, effects/directed.py)."""
    if not homes:
        return set()
    known = catalogue()
    if _anywhere(known.startup_files, path):
        return {"sh"}
    directory, _, base = path.rpartition("/")
    later = _anywhere(known.runs_later, path)
    return {
        "sh"
        if base in known.startup_files.names and (directory == home or directed_startup(path, home))
        else ""
        if later or (directory == home and base in known.runs_later.names)
        else None
        for home in homes
    }


def may_run_at_start(path: str, homes: Sequence[str]) -> bool:
    """False only where no home's `startup_language(path, home)` is known and no home's `shadows(path, home)`
    holds: their tests over every home at once, from tables derived once per catalogue and homes, so that a
    write of an ordinary file runs neither (true of every path either may hold for, and of a few more)."""
    gate = _at_start(catalogue(), tuple(homes))
    directory, _, base = path.rpartition("/")
    return (
        (base in gate.names and (directory in gate.homes or any(directed_startup(path, h) for h in gate.homes)))
        or path in gate.searched
        or directory in gate.searched
        or path.endswith(gate.below)
        or (path + "/").startswith(gate.system)
        or gate.inside.search(path) is not None
        or gate.globs.match(path) is not None
    )


@dataclass(frozen=True, slots=True)
class _AtStart:
    """What `startup_language` and `shadows` test, over both startup tables and every home."""

    homes: frozenset[str]
    names: frozenset[str]
    searched: frozenset[str]
    below: tuple[str, ...]
    system: tuple[str, ...]
    inside: re.Pattern[str]
    globs: re.Pattern[str]


@functools.lru_cache(maxsize=64)  # one a caller's homes, as the protected places are derived once a home
def _at_start(known: Catalogue, homes: tuple[str, ...]) -> _AtStart:
    tables = (known.startup_files, known.runs_later)
    below = tuple(sorted({b for files in tables for b in files.below}))
    home_dirs, system_dirs = known.bin_dirs
    return _AtStart(
        homes=frozenset(homes),
        names=frozenset(n for files in tables for n in files.names),
        # (the system's own program directories too: a program replaced there runs instead, `shadows`)
        searched=frozenset(
            {f"{home}/{d}" for home in homes for d in home_dirs} | {*system_dirs, *known.system_programs}
        ),
        below=below,
        system=tuple(sorted({s for files in tables for s in files.system})),
        inside=_inside_any(below),
        globs=_any_glob(tuple(p for files in tables for p in files.patterns)),
    )


def _anywhere(files: StartupFiles, path: str) -> bool:
    """`path` is one of `files` wherever the home is: a path ending as one of its locations or with one as a
    directory in it, a system file or directory (from the root), or a path a glob matches."""
    if path.endswith(files.below) or _inside_any(files.below).search(path) is not None:
        return True
    return (path + "/").startswith(files.system) or _any_glob(files.patterns).match(path) is not None


@functools.lru_cache(maxsize=4)
def _inside_any(below: tuple[str, ...]) -> re.Pattern[str]:
    """Matches a path with one of `below` as a directory in it (`/etc/profile.d/`): derived once, not per call
    (a write's effect asks on every call)."""
    return re.compile("|".join(re.escape("/" + suffix.strip("/") + "/") for suffix in below) or "(?!)")


@functools.lru_cache(maxsize=4)
def _any_glob(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern for the catalogue's globs over a whole path (`*/site-packages/*.pth`), derived once."""
    return re.compile("|".join(fnmatch.translate(p) for p in patterns) or "(?!)")


def runs_nothing(text: str) -> bool:
    """`text`, written into a startup file, only sets variables (or is blank or comments), none of them one that
    runs code (PROMPT_COMMAND, a file to load: LD_PRELOAD, BASH_ENV) or a search path that takes programs from
    scratch space or a relative directory (`export PATH=/tmp/x:$PATH`), from the catalogue's `environment` and
    `search_paths`."""
    if not all(_SETTING_LINE.fullmatch(line) for line in text.split("\n")):
        return False
    known = catalogue()
    # fish's and csh's list of words is a search path's list of entries (`set -gx PATH /tmp/x $PATH`)
    sets = [(name, ":".join(words.split())) for name, words in _SET_ASSIGNMENT.findall(text)]
    sets += [("PATH", ":".join(words.split())) for words in _PATH_ADDED.findall(text)]
    for name, value in [*_ASSIGNMENT.findall(text), *sets]:
        entry = known.environment.get(name)
        if entry is not None and entry.loads in ("code", "file"):
            return False
        if entry is not None and entry.loads == "options" and named_by_options(value.strip("\"'"), entry.options):
            return False  # `JAVA_TOOL_OPTIONS=-javaagent:/tmp/a.jar`, `NODE_OPTIONS='-r x.js'`: loaded by each
        if entry is not None and named_by_options(value.strip("\"'"), entry.commands):
            return False  # `JAVA_TOOL_OPTIONS=-XX:OnError=cmd`: the JVM runs cmd
        if name in known.search_paths and any(_planted(part) for part in path_entries(value)):
            return False
    return True


def assignments(text: str) -> dict[str, str]:
    """The variables a startup file's text of settings sets, each with its value as written (quotes taken off):
    `export X="$HOME/y"`, `X=y`, fish's `set -gx X y`, csh's `setenv X y`."""
    sets = [(name, " ".join(words.split())) for name, words in _SET_ASSIGNMENT.findall(text)]
    return {name: value.strip().strip("\"'") for name, value in [*_ASSIGNMENT.findall(text), *sets]}


# The extensions of code a program loads and runs (scripts of shells, interpreters and editors, build scripts)
CODE_LANGS = {
    "js": "node", "mjs": "node", "cjs": "node", "ts": "node", "py": "python", "lua": "lua", "vim": "vim",
    "sh": "sh", "bash": "sh", "zsh": "sh", "fish": "fish", "ksh": "sh", "gradle": "groovy", "groovy": "groovy",
    "kts": "kotlin", "rb": "ruby", "pl": "perl", "el": "elisp", "php": "php", "tcl": "tcl", "ps1": "powershell",
    "nu": "nushell", "R": "r", "r": "r", "ipy": "ipython",
}  # fmt: skip


HOME_CODE_WHEN = "code a program runs later from its own files"


def home_code_lang(path: str, home: str, project: str, text: str | None) -> str | None:
    """The language of code written to `path` in a dot-directory (or a dotfile) of the home, outside the project,
    scratch space and `~/.cache`, for some program to load later (its init, startup or plugin file): by the
    file's extension, or a `#!` first line; None for any other file."""
    rest = path[len(home) + 1 :] if path.startswith(home + "/") else ""
    if not rest.startswith(".") or rest.startswith(".cache/") or under(path, project) or is_scratch(path):
        return None
    base = path.rpartition("/")[2]
    lang = CODE_LANGS.get(base.rpartition(".")[2]) if "." in base.lstrip(".") else None
    if lang is None and text is not None and text.lstrip("+ ").startswith("#!"):
        return "sh"
    return lang


def named_by_options(value: str, options: frozenset[str]) -> list[str]:
    """The files `options` name in an interpreter's options held by a variable: `--require x.js`,
    `--require=x.js`, `-r x.js`, `-rx.rb`, and a JVM's `-javaagent:/x.jar=opts`, `-agentpath:/x.so`."""
    words, named = value.split(), []
    for k, word in enumerate(words):
        option, eq, attached = word.partition("=")
        joined, colon, rest = word.partition(":")
        if option in options:
            if eq:
                named.append(attached)
            elif k + 1 < len(words):
                named.append(words[k + 1])
        elif colon and joined in options:
            named.append(rest.partition("=")[0])
        elif len(word) > 2 and word[:2] in options and not word.startswith("--"):
            named.append(word[2:])
    return named


_ASSIGNMENT = re.compile(r"^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=([^\n]*)$", re.MULTILINE)
_SCRATCH_ROOTS = ("/tmp", "/var/tmp", "/dev/shm")


def planted_path(value: str | None) -> bool:
    """A PATH value with an entry anything can fill (scratch space, relative, empty: `/tmp/x:$PATH`, `.:$PATH`) or
    one only known at run time (`$d:$PATH`; the home's and the PATH before it are known)."""
    entries = path_entries(value) if value is not None else []
    return any(_planted(e) or (e.startswith("$") and not e.startswith(_KNOWN_ENTRIES)) for e in entries)


_KNOWN_ENTRIES = ("$HOME/", "${HOME}/", "$PATH", "${PATH}")


def path_entries(value: str) -> list[str]:
    """A search path's entries: its value split at the colons outside a `${…}` (`${GOPATH:-$HOME/go}/bin:$PATH`
    is two entries, the first the default's colon holds), quotes taken off."""
    entries, depth, start, text = [], 0, 0, value.strip("\"'")
    for k, char in enumerate(text):
        if char == "{" and text[k - 1 : k] == "$":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif char == ":" and not depth:
            entries.append(text[start:k])
            start = k + 1
    return [*entries, text[start:]]


_DEFAULTED = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*:?[-=]([^{}]*)\}(.*)", re.DOTALL)


def _planted(entry: str) -> bool:
    """A search path's entry that anyone or anything can fill: scratch space, or relative (`.`, ``: the current
    directory); for `${GOPATH:-$HOME/go}/bin`, its default as well (`${X:-/tmp/x}` is scratch space when X is
    unset)."""
    entry = entry.strip("\"'")
    if (default := _DEFAULTED.fullmatch(entry)) and _planted(default[1] + default[2]):
        return True
    if not entry.startswith(("/", "$", "~")):
        return True
    home = _HOME_WORD.match(entry)  # the home's caches are scratch: any call may leave code there unseen
    if home and in_home_cache("/~" + entry[home.end() :], "/~"):
        return True
    return any(entry == root or entry.startswith(root + "/") for root in _SCRATCH_ROOTS)


_HOME_WORD = re.compile(r"~(?=/)|\$HOME\b|\$\{HOME\}")


def reads_script_from_stdin(argv: list[str]) -> bool:
    """A shell or interpreter given no script operand (`zsh < <(curl …)`, `python3 < <(…)`): stdin is its code."""
    program = catalogue().get(argv[0].rsplit("/", 1)[-1]) if argv else None
    if program is None or not program.script_operand:
        return False
    return all(word.startswith("-") for word in argv[1:]) and not any(w in ("-c", "-e", "-m") for w in argv[1:])


# a clause giving `s` to the user (`u+s`, `a+s`, `+s`, `ug=rwxs`); `g+s` alone is set-group-ID, on the
# directories it is mostly given to a group's new files (chmod(1) "SETUID AND SETGID BITS")
_SYMBOLIC_SETUID = re.compile(r"(?:^|,)(?:[goa]*u[ugoa]*|a[ugoa]*|)[+=][rwxXtugo]*s")


def sets_id(mode: str) -> bool:
    """A chmod mode that sets the set-user-ID bit: `u+s`, `+s`, `a+xs`, `4755`, `06755` (the file then runs
    as its owner, whoever starts it)."""
    if mode.isdigit():
        return len(mode) >= 4 and int(mode[-4]) & 4 != 0
    return _SYMBOLIC_SETUID.search(mode) is not None
