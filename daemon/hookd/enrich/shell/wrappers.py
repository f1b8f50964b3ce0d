"""Wrappers peeled off a command (`sudo`, `env`, `command`, `timeout`, …) and the inline scripts of
`bash -c`, `eval`, `su -c`."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.code import is_url_script, names_fetched_source
from hookd.enrich.effects.launchers import launched
from hookd.enrich.effects.words import SHELLS
from hookd.enrich.shell.fish import fish_as_sh
from hookd.enrich.shell.runners import xargs_operands
from hookd.enrich.shell.words import _ASSIGN
from hookd.enrich.shell.zsh_globs import zsh_text

# --------------------------------------------------------------------------------------------------
# Wrappers


def _skip_options(argv: list[str], i: int, short_arg: str = "", long_arg: frozenset[str] = frozenset()) -> int:
    """The index of the first operand at or after `i`: skips `-x` clusters (a letter of `short_arg`
    takes the rest of its cluster or the next word), `--long[=v]` (one in `long_arg` without `=`
    takes the next word) and a final `--`."""
    n = len(argv)
    while i < n:
        arg = argv[i]
        if arg == "--":
            return i + 1
        if len(arg) < 2 or arg[0] != "-":
            return i
        i += 1
        if arg[1] == "-":
            if "=" not in arg and arg[2:] in long_arg:
                i += 1
            continue
        for k in range(1, len(arg)):
            if arg[k] in short_arg:
                if k == len(arg) - 1:
                    i += 1
                break
    return i


def _take_assignments(argv: list[str], i: int, env: dict[str, str], assign: re.Pattern[str] = _ASSIGN) -> int:
    while i < len(argv):
        match = assign.match(argv[i])
        if match is None:
            break
        env[argv[i][: match.end() - 1].rstrip("+")] = argv[i][match.end() :]
        i += 1
    return i


def _split_string(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


_SUDO_LONG_ARG = frozenset(
    {"user", "group", "prompt", "chdir", "chroot", "role", "type", "other-user", "close-from",
     "command-timeout", "host"}
)  # fmt: skip


def _peel_sudo(argv: list[str], i: int, env: dict[str, str]) -> int | None:
    end = _skip_options(argv, i, "CDgpRrTtUu", _SUDO_LONG_ARG)
    directory = _option_value(argv[i:end], "CDgpRrTtUu", "D", "chdir")
    if directory is not None:  # `sudo -D DIR cmd`, `--chdir=DIR` (sudo(8)): cmd runs in DIR, as env -C's
        env[CHDIR] = directory
    return _take_assignments(argv, end, env)


def _option_value(words: list[str], short_arg: str, letter: str, long: str) -> str | None:
    """The value the last `-LETTER` or `--LONG` among a wrapper's option words gives, read as `_skip_options`
    reads them (a letter of `short_arg` takes the rest of its cluster or the next word)."""
    value: str | None = None
    for k, word in enumerate(words):
        if word.startswith(f"--{long}="):
            value = word.partition("=")[2]
        elif word == f"--{long}":
            value = words[k + 1] if k + 1 < len(words) else ""
        elif word[:1] == "-" and word[1:2] != "-":
            at = next((j for j in range(1, len(word)) if word[j] in short_arg), 0)
            if at and word[at] == letter:
                value = word[at + 1 :] or (words[k + 1] if k + 1 < len(words) else "")
    return value


CHDIR = "-C"  # the key, in a command's env, of the directory a wrapper runs it in (no variable has this name)


def _env_option(arg: str) -> tuple[str, str | None, int]:
    """(option letter among u/C/S or "", its value if attached, words used) of one `env` option."""
    if arg[1] == "-":
        key, eq, given = arg[2:].partition("=")
        letter = {"unset": "u", "chdir": "C", "split-string": "S"}.get(key, "")
        return (letter, given, 1) if eq else (letter, None, 2 if letter else 1)
    for k in range(1, len(arg)):
        if arg[k] in "uCS":
            value = arg[k + 1 :]
            return (arg[k], value, 1) if value else (arg[k], None, 2)
    return "", None, 1


def _peel_env(argv: list[str], i: int, env: dict[str, str]) -> int | None:
    while i < len(argv):
        arg = argv[i]
        if arg in ("-", "--"):
            i += 1
            if arg == "--":
                break
            continue
        if len(arg) < 2 or arg[0] != "-":
            break
        letter, value, width = _env_option(arg)
        if letter == "S":  # `env -S 'a b'` splits the string into words: go on with those
            if value is None:
                value = argv[i + 1] if i + 1 < len(argv) else ""
            argv[i : i + width] = _split_string(value)
        else:
            if letter == "C":  # `env -C DIR cmd`: cmd runs in DIR (hookd.enrich.shell.build follows it)
                env[CHDIR] = value if value is not None else (argv[i + 1] if i + 1 < len(argv) else "")
            i += width
    return _take_assignments(argv, i, env, _ENV_ASSIGN)


# env(1): every operand before the command that holds `=` is NAME=VALUE, whatever NAME is: a name no shell can
# assign (`BASH_FUNC_ls%%=() {…}`, the form bash imports a function from) is still put in the environment
_ENV_ASSIGN = re.compile(r"[^=]+=")


def _peel_command(argv: list[str], i: int, env: dict[str, str]) -> int | None:
    for arg in argv[i:]:
        if arg == "--" or len(arg) < 2 or arg[0] != "-":
            break
        if "v" in arg or "V" in arg:
            return None  # `command -v rm` looks rm up; it does not run it
    return _skip_options(argv, i)


def _peel_timeout(argv: list[str], i: int, env: dict[str, str]) -> int | None:
    i = _skip_options(argv, i, "sk", frozenset({"signal", "kill-after"}))
    return i + 1 if i < len(argv) else i  # the duration


def _options(short_arg: str = "", *long_arg: str) -> Callable[[list[str], int, dict[str, str]], int | None]:
    longs = frozenset(long_arg)
    return lambda argv, i, env: _skip_options(argv, i, short_arg, longs)


def _then_operands(count: int, short_arg: str = "", *long_arg: str) -> Peel:
    """Options, then `count` fixed operands (a lock file, a new root, a priority), then the command; not a
    runner when a script option (`-c`) takes the place of the command (runners.SCRIPT_RUNNERS)."""
    longs = frozenset(long_arg)

    def peel(argv: list[str], i: int, env: dict[str, str]) -> int | None:
        i = _skip_options(argv, i, short_arg, longs) + count
        if i >= len(argv) or argv[i] in ("-c", "--command") or argv[i].startswith("--command="):
            return None
        return _skip_options(argv, i, short_arg, longs) if argv[i].startswith("-") else i

    return peel


def _unless_pid(peel: Peel) -> Peel:
    """chrt(1), taskset(1): with `-p`/`--pid` they act on an existing process (its PID the last operand) and
    launch no command: not a runner then."""

    def unless(argv: list[str], i: int, env: dict[str, str]) -> int | None:
        for word in argv[i:]:
            if word == "--" or not word.startswith("-") or len(word) < 2:
                break
            if word == "--pid" or (word[1] != "-" and "p" in word[1:]):
                return None
        return peel(argv, i, env)

    return unless


def _peel_busybox(argv: list[str], i: int, env: dict[str, str]) -> int | None:
    return i if i < len(argv) and not argv[i].startswith("-") else None  # the applet is the program


Peel = Callable[[list[str], int, dict[str, str]], int | None]
# firejail(1) `--private`: "mount new /root and /home/user directories in temporary filesystems": the command
# sees an empty home (`--private=DIR`: DIR as its home), so nothing of the caller's ~/.config or ~/.claude
PRIVATE_HOME = "a new empty home"


def _options_handing(
    short_arg: str, *long_arg: str, assigns: tuple[str, ...] = (), homes: tuple[str, ...] = ()
) -> Peel:
    """Options, as `_options`, of which those in `assigns` hand the command a variable (systemd-run's `-E NAME=V`,
    `--setenv=NAME=V`, systemd-run(1); firejail's `--env=NAME=V`, firejail(1)) and those in `homes` give it
    another home (firejail's `--private[=DIR]`): `env` gains them as the command's own assignments."""
    longs = frozenset(long_arg)

    def peel(argv: list[str], i: int, env: dict[str, str]) -> int | None:
        end = _skip_options(argv, i, short_arg, longs)
        k = i
        while k < end:
            option, value, width = _option_given(argv, k, end, short_arg, longs)
            if option in assigns and value is not None and (match := _ASSIGN.match(value)):
                env[value[: match.end() - 1].rstrip("+")] = value[match.end() :]
            elif option in homes:
                env["HOME"] = value or PRIVATE_HOME
            k += width
        return end

    return peel


def _option_given(
    argv: list[str], k: int, end: int, short_arg: str, longs: frozenset[str]
) -> tuple[str, str | None, int]:
    """The option at argv[k], its value and how many words they take: `--opt=V`, `--opt V` (an option of
    `longs`), `-XV`, `-X V` (a letter of `short_arg`); a flag has none."""
    word = argv[k]
    option, eq, value = word.partition("=") if word.startswith("--") else (word[:2], "", word[2:])
    if eq or (value and not word.startswith("--")):
        return option, value, 1
    takes = option[2:] in longs if word.startswith("--") else option[1:] in short_arg
    if takes and k + 1 < end:
        return option, argv[k + 1], 2
    return option, None, 1


# The argv runners: name -> how to find the command it runs (the index of its program word), or None when
# this use does not run one. A new runner is one line here (docs/policies.md, "The runner table").
_WRAPPERS: dict[str, Peel] = {
    "sudo": _peel_sudo,
    "doas": _options("uC"),
    "env": _peel_env,
    "nohup": _options(),
    "nice": _options("n", "adjustment"),
    "time": _options("fo", "format", "output"),
    "timeout": _peel_timeout,
    "xargs": _options(
        "adEILnPs",
        *("arg-file", "delimiter", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"),
    ),
    "command": _peel_command,
    "builtin": _options(),
    "exec": _options("a"),
    "stdbuf": _options("ioe", "input", "output", "error"),
    "ionice": _options("cnpPu", "class", "classdata", "pid", "pgid", "uid"),
    "setsid": _options(),
    "unbuffer": _options(),
    "fakeroot": _options("lsi"),
    "nocache": _options(),
    "catchsegv": _options(),
    "proxychains": _options("f"),
    "proxychains4": _options("f"),
    "torsocks": _options("uapP"),
    "busybox": _peel_busybox,
    "chroot": _then_operands(1, "", "userspec", "groups"),
    "flock": _then_operands(1, "wEc", "timeout", "wait", "conflict-exit-code"),
    "chrt": _unless_pid(_then_operands(1, "T", "sched-runtime", "sched-deadline", "sched-period")),
    "taskset": _unless_pid(_then_operands(1)),
    "systemd-run": _options_handing(
        "pEMHsu", *("property", "setenv", "machine", "host", "unit", "description", "slice", "uid", "gid", "nice",
                   "working-directory", "on-calendar", "on-active", "on-boot", "on-startup", "on-unit-active",
                   "on-unit-inactive", "timer-property", "path-property", "socket-property", "service-type"),
        assigns=("-E", "--setenv"),
    ),
    "strace": _options("abeEIoOpPsSuUX"),
    "ltrace": _options("aAeEFlnopsuwxX", "align", "output", "library", "config"),
    "setpriv": _options(
        "", *("reuid", "regid", "ruid", "rgid", "euid", "egid", "groups", "inh-caps", "ambient-caps",
              "bounding-set", "securebits", "selinux-label", "apparmor-profile", "landlock-access",
              "landlock-rule", "pdeathsig")
    ),
    "runuser": _then_operands(0, "ugGw", "user", "group", "supp-group", "whitelist-environment"),
    "screen": _options("Scteph"),  # (`-X CMD…`: a command of screen's own, its first word: `stuff`, `setenv`)
    "firejail": _options_handing("", assigns=("--env",), homes=("--private",)),
    "unshare": _options("S", "setuid", "setgid", "root", "wd", "map-user", "map-group"),
    "nsenter": _options("tSGwr", "target", "setuid", "setgid", "wd", "root"),
}  # fmt: skip
_SUDO = frozenset({"sudo", "doas"})
# wrappers that act on a running process when given no command (their catalogue entry's `pid_options`)
_ACTS_ALONE = frozenset({"strace", "ltrace", "ionice", "prlimit", "choom", "taskset", "chrt", "renice"})
# The shells whose `-c` string, a script on stdin, is walked as sh's: every shell the effect model knows
# (effects/words.SHELLS). fish (https://fishshell.com/docs/current/cmds/fish.html: `-c`/`--command` runs the string),
# csh/tcsh, yash and posh write a simple command as words the same way, so what it runs is seen; before blind-shell-20
# a closed list here left out `tcsh -fc 'rm -rf ~/x'` and `yash -c …`, which then ran unseen
_SHELLS = SHELLS - {"source", "."}
_INLINE = _SHELLS | {"eval", "su", "trap"}


def raises_privilege(wrapper: str) -> bool:
    """sudo, doas, pkexec, run0, …: a wrapper the catalogue knows to run its command with other privileges."""
    program = catalogue().get(wrapper)
    return program is not None and program.privilege


def _basename(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def _peel(argv: list[str], env: dict[str, str]) -> tuple[list[str], list[str]]:
    """The real program's argv and the wrappers peeled off it; `env` gains their assignments. A wrapper left
    with nothing to run is the program itself, acting on its options (`strace -p PID`, `ionice -p PID`)."""
    wrappers: list[str] = []
    i = 0
    while i < len(argv):
        name = _basename(argv[i])
        peel = _WRAPPERS.get(name)
        after = launched(name, argv, i + 1) if peel is None else peel(argv, i + 1, env)
        if after is None or (after >= len(argv) and name in _ACTS_ALONE) or _fetches(name, argv, after):
            break
        wrappers.append(name)
        i = after
        if peel is None and i < len(argv):  # `npx prettier@3 …`, `npx @biomejs/biome …`: the package's program
            argv = [*argv[:i], package_program(argv[i]), *argv[i + 1 :]]
    return argv[i:], wrappers


# A package runner's package spec (`name@version`, `@scope/name[@version]`: npm's package-spec,
# https://docs.npmjs.com/cli/v10/using-npm/package-spec): no program on disk has that name; the package's is the
# name without scope and version (`npx rimraf@5 ~/d` runs rimraf).
_PACKAGE_SPEC = re.compile(r"(?:@[\w.-]+/)?([\w.-]+)(?:@[^\s/@]+)?")


def package_program(word: str) -> str:
    found = _PACKAGE_SPEC.fullmatch(word) if "@" in word else None
    return found.group(1) if found else word


def _fetches(name: str, argv: list[str], after: int) -> bool:
    """A launcher that downloads what it is given as a URL and runs it (`npx -y https://…/x.tgz`: the catalogue's
    `url_scripts`) is the program itself: the effect model judges it as fetched code, not the URL as a program."""
    program = catalogue().get(name)
    if program is None:
        return False
    if names_fetched_source(program, argv[1:after]):  # `uvx --from git+https://… cli`: the source is fetched
        return True
    return after < len(argv) and is_url_script(argv[after]) and bool(program.url_scripts)


def _trap_action(argv: list[str]) -> tuple[str, bool, bool] | None:
    """`trap ACTION SIGNAL…`: ACTION, unless it is `-` or absent (one operand is a signal reset), as bash."""
    words = argv[1:]
    while words and words[0] in ("-p", "-l", "-P"):
        words = words[1:]
    if words[:1] == ["--"]:
        words = words[1:]
    if len(words) < 2 or words[0] == "-":
        return None
    return words[0], True, False


def _as_sh(shell: str, text: str) -> str:
    """A shell's `-c` text as sh's: fish's where it can be spelled so, zsh's with its glob qualifiers read."""
    if shell == "fish":
        return fish_as_sh(text) or text
    return zsh_text(text) if shell == "zsh" else text


def _inline_script(name: str, argv: list[str]) -> tuple[str, bool, bool, list[str] | None] | None:
    """(script, runs in the same shell, runs as root, its positional parameters) for `bash -c`, `eval`, `su -c`
    and `trap` (its action runs later, in this shell: judged as if run here). A shell's `-c SCRIPT NAME ARG…`
    runs SCRIPT with NAME as `$0` and the ARGs as `$1`, `$2`, … and `"$@"` (POSIX sh, "-c"), as
    `find … -exec sh -c 'rm "$1"' _ {} +` hands each file; None: not known (`su -c`)."""
    if name == "trap":
        action = _trap_action(argv)
        return None if action is None else (*action, None)
    if name == "eval":
        words = argv[2:] if argv[1:2] == ["--"] else argv[1:]
        return (" ".join(words), True, False, None) if words else None
    if name == "su":
        for k, arg in enumerate(argv[1:], start=1):
            if arg in ("-c", "--command") and k + 1 < len(argv):
                return argv[k + 1], False, True, None
            if arg.startswith("--command="):
                return arg[len("--command=") :], False, True, None
        return None
    if name not in _SHELLS:
        return None
    has_c = False
    k = 1
    while k < len(argv):
        arg = argv[k]
        if arg in ("-", "--"):
            k += 1
            break
        if arg.startswith("--"):
            k += 2 if arg in ("--rcfile", "--init-file") else 1
            continue
        if len(arg) > 1 and arg[0] in "-+":
            has_c = has_c or (arg[0] == "-" and "c" in arg)
            k += 2 if ("o" in arg or "O" in arg) else 1
            continue
        break
    if has_c and k < len(argv):  # fish's text spelled as sh's where it can be (shell/fish.py), zsh's qualifiers read
        return _as_sh(name, argv[k]), False, False, argv[k + 2 :]
    return None


def xargs_command(words: list[str], env: dict[str, str]) -> list[str] | None:
    """The words of the command xargs runs (after xargs' options; `echo` when it names none), None when the
    words hold no xargs."""
    at = next((k for k, w in enumerate(words) if _basename(w) == "xargs"), None)
    if at is None:
        return None
    start = _WRAPPERS["xargs"](words, at + 1, env)
    if start is None:
        return None
    return words[start:] or ["echo"]


def xargs_run(
    words: list[str], argv: list[str], wrappers: list[str], env: dict[str, str], fed: tuple[str | None, tuple[str, ...]]
) -> tuple[list[str], list[str]]:
    """The command xargs runs with the items it reads (hookd.enrich.shell.runners.xargs_operands; `fed`: the
    pipe's text and the search that feeds it), and the wrappers: where the items are known, a launcher among
    them is peeled too (`printf … | xargs -0 nice`), as where they are not (`… | xargs nice rm`)."""
    own = xargs_command(words, env)  # xargs's command, launchers and all
    argv = xargs_operands(words, argv if own is None else own, *fed)
    if argv:  # (items unknown too: `… | xargs nice rm -rf` runs rm whatever the items are)
        argv, launchers = _peel(argv, env)
        wrappers = [*wrappers[: wrappers.index("xargs") + 1], *launchers]
    return argv, wrappers
