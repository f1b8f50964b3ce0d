"""What a command does beyond its own operand table (docs/policies.md, "The effect model"): the names a glob
expands to that the program reads as options, a container given the host's privileges, a credential piped into
the program that logs in with it, a cgroup's kill or freeze file written, a configuration-management module run
on this machine, the distribution's packages installed with privileges. Each step reads the catalogue's data
(programs.json `privilege_options`, `secret_stdin`, `signal_files`, `task_modules`; package_installs.json)."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import re
import shlex
from collections.abc import Mapping
from typing import Any

from hookd.enrich.effects.bounded import bounded_read
from hookd.enrich.effects.catalogue import DATA, Modules, Program, catalogue
from hookd.enrich.effects.handed import is_command_line
from hookd.enrich.effects.ledger import CommandView, Followups, Ledger, Place
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.processes import lookup_words, running_names
from hookd.enrich.effects.words import _NOTHING, _SECRET_VARIABLE, XARGS_INPUT, _dynamic
from hookd.enrich.paths import has_glob


def options_from_globs(view: CommandView, place: Place) -> CommandView:
    """`tar -cf x.tar *` in a tree holding a file named `--checkpoint-action=exec=sh x.sh`: the shell expands the
    glob to the names it matches on disk, and a name starting with `-` is an option of the program. The command
    is judged with the words it will get (HackTricks, "Wildcards spare tricks")."""
    if not has_glob("".join(view.argv[1:])):
        return view  # no pattern to expand (most commands): the loop below would give the same words
    words: list[str] = []
    for k, word in enumerate(view.argv):
        names = _names_matched(word, place) if k and has_glob(word) and "/" not in word and not _dynamic(word) else []
        words.extend(names or [word])
    if not any(w.startswith("-") and w not in view.argv for w in words):
        return view
    return dataclasses.replace(view, argv=words)


def _names_matched(word: str, place: Place) -> list[str]:
    """The names a glob of the working directory matches now, sorted as the shell sorts them."""
    return sorted(m.rsplit("/", 1)[-1] for m in place(word).get("matches", ()) or ())


def privileged(program: Program, argv: list[str]) -> bool:
    """`docker run --privileged`, `--pid=host`, `--cap-add=SYS_ADMIN`: a container given the host's privileges or
    processes is root on the host (`nsenter -t 1` from inside reaches everything): the catalogue's
    `privilege_options`, as `--opt` or `--opt=value` (a value-taking option's value named in it: `--pid=host`),
    or a verb that has a system service change the machine with polkit's leave (`timedatectl set-time`)."""
    options = program.privilege_options
    words = argv[1:]
    pairs = (f"{w}={v}" for w, v in itertools.pairwise(words))  # `--pid host`
    return (
        bool(options)
        and (any(w in options or w.split("=", 1)[0] in options for w in words) or any(p in options for p in pairs))
    ) or any(_is_host_root(source) for source in mount_sources(program, words))


def changes_nothing(view: CommandView) -> bool:
    """A command that does nothing with the privileges it runs with (gaps38): a program or builtin whose words are
    never files nor code (`true`, `id`, `whoami`; words._NOTHING) given options only. `sudo -n true` only tells
    whether sudo would ask for a password; an operand could set something (`hostname NAME`), and is asked."""
    return (view.name in _NOTHING and all(w.startswith("-") for w in view.argv[1:])) or _sudo_runs_nothing(view)


# sudo(8)'s own modes that run no command: -l/--list (with a command it only prints whether it is allowed), -V,
# --help, -K (no command allowed), and -k/--reset-timestamp when no command follows (with one, the command runs);
# `-h` is left out: with a word after it, it names a host to run the command on
_SUDO_NOTHING = frozenset({"-l", "--list", "-V", "--version", "--help", "-K", "--remove-timestamp"})
_SUDO_RESET = frozenset({"-k", "--reset-timestamp"})
# sudo's getopt table (parse_args.c: "+Aa:BbC:c:D:Eeg:Hh::iKklnPp:R:r:SsT:t:U:u:Vv"): these letters take a value,
# the rest of their group (`-pl`: the prompt "l") or else the next word (`-p l`)
_SUDO_VALUED = frozenset("aCcDgpRrTtUu")
_SUDO_LONG = {  # sudo's long options; True: it takes a value (`--user=root` or `--user root`)
    "--askpass": False, "--auth-type": True, "--background": False, "--bell": False, "--close-from": True,
    "--chdir": True, "--login-class": True, "--preserve-env": False, "--edit": False, "--group": True,
    "--set-home": False, "--help": False, "--host": True, "--login": False, "--remove-timestamp": False,
    "--reset-timestamp": False, "--list": False, "--non-interactive": False, "--preserve-groups": False,
    "--prompt": True, "--chroot": True, "--role": True, "--stdin": False, "--shell": False, "--type": True,
    "--command-timeout": True, "--other-user": True, "--user": True, "--version": False, "--validate": False,
}  # fmt: skip


def _sudo_long(word: str) -> tuple[str, bool]:
    """A long option as getopt_long reads it: its full name (a unique prefix stands for it: `--li` is `--list`)
    and whether it takes the next word as its value."""
    name, eq, _ = word.partition("=")
    known = [full for full in _SUDO_LONG if full.startswith(name)]
    full = name if name in _SUDO_LONG else (known[0] if len(known) == 1 else name)
    return full, _SUDO_LONG.get(full, False) and not eq


def _sudo_options(words: list[str]) -> set[str] | None:
    """The options sudo reads before its command, each as `-x` or `--name`; a valued option's value is consumed
    (the rest of its group or the next word) and never read as a mode. None: an option sudo does not know."""
    given: set[str] = set()
    k = 0
    while k < len(words) and words[k].startswith("-") and words[k] not in ("-", "--"):
        word, k = words[k], k + 1
        if word.startswith("--"):
            name, takes_next = _sudo_long(word)
            if name not in _SUDO_LONG:
                return None
            given.add(name)
            k += takes_next
            continue
        for at, letter in enumerate(word[1:], start=1):
            given.add(f"-{letter}")
            if letter in _SUDO_VALUED or (letter == "h" and at < len(word) - 1):
                k += at == len(word) - 1  # `-u root`: the next word is the value, else the group's rest
                break
    return given


def _sudo_runs_nothing(view: CommandView) -> bool:
    """`sudo -n -l`, `sudo -ll`, `sudo -k`: sudo in a mode that runs nothing as root (sudo(8),
    https://www.sudo.ws/docs/man/sudo.man/#l); `sudo -pl bash` is a prompt "l", no list mode."""
    if "sudo" not in view.peeled:  # (after a launcher that keeps its privileges: `time sudo -l`, `nice sudo -l`)
        return False
    given = _sudo_options(list(view.peeled[view.peeled.index("sudo") + 1 :]))
    return given is not None and bool(given & _SUDO_NOTHING or (given & _SUDO_RESET and not view.argv))


def mount_sources(program: Program, words: list[str]) -> list[str]:
    """The host paths the container binds (`-v SRC:DST[:ro]`, `--volume=SRC:DST`, `--mount type=bind,source=SRC,…`:
    the catalogue's `mount_options`); a named volume's name is no path and is left out."""
    sources: list[str] = []
    for i, word in enumerate(words):
        name, eq, value = word.partition("=")
        if name not in program.mount_options:
            continue
        value = value if eq else (words[i + 1] if i + 1 < len(words) else "")
        if "," in value or value.startswith(("type=", "source=", "src=")):  # --mount's key=value list
            fields = dict(f.partition("=")[::2] for f in value.split(","))
            value = fields.get("source") or fields.get("src") or ""
        else:
            value = value.split(":", 1)[0]
        if value.startswith("/"):
            sources.append(value)
    return sources


def _is_host_root(source: str) -> bool:
    """The host's root bound into a container: its root user reads and writes every file of the host as root
    (`docker run -v /:/host alpine chroot /host`: MITRE T1611, escape to host)."""
    return source.strip("/.") == "" and source.startswith("/")


def used_secret(ledger: Ledger, program: Program, argv: list[str], view: CommandView) -> None:
    """`aws ecr get-login-password | docker login --password-stdin`: the credential the command before printed
    goes through the pipe into a program that authenticates with it (the catalogue's `secret_stdin`); it is
    used, as `ssh -i KEY` uses a key, and reaches no output the model sees."""
    if not ledger.printed or view.stdin in ("", "none") or view.stdin_text is not None:
        return
    if not any(word == option or word.startswith(option + "=") for word in argv[1:] for option in program.secret_stdin):
        return
    used = {id(effect) for effect in ledger.printed if "variables" not in effect}  # a credential, not the environment
    ledger.effects[:] = [effect for effect in ledger.effects if id(effect) not in used]
    ledger.printed = []


def cgroup_signals(ledger: Ledger, start: int) -> None:
    """`echo 1 > …/hookd.service/cgroup.kill`: a write to a cgroup's kill or freeze file stops every process of
    the cgroup its directory names (the catalogue's `signal_files`), as a kill of the unit would. A write to a
    process's own file (`/proc/PID/mem`, `oom_score_adj`: `process_files`) acts on the process PID names, as an
    attach does: the PID word is its target, looked up when the shell runs (`/proc/$(pgrep -f hookd)/mem`)."""
    known = catalogue()
    for effect in [e for e in ledger.effects[start:] if e["op"] == "write"]:
        directory, _, base = (effect["path"] or str(effect.get("raw", ""))).rpartition("/")
        if effect["path"] and base in known.signal_files:
            ledger.add("signal", None, effect["program"], target=directory, match="cgroup")
        elif base in known.process_files and directory.startswith("/proc/") and directory.count("/") == 2:
            target = directory[6:]
            signal = ledger.add("signal", None, effect["program"], target=target, match="pid", acts="process")
            if running := running_names(target):  # a PID spelled as a number: what runs under it now
                signal["running"] = running
            if not effect["path"]:  # `> /proc/$(pgrep -f app)/oom_score_adj`: that process's file, no other
                bounded_read(effect, ledger, known.number_outputs)
    for effect in [e for e in ledger.effects[start:] if e["op"] == "read" and not e["path"]]:
        bounded_read(effect, ledger, known.number_outputs)


def cgroup_members(ledger: Ledger, view: CommandView, start: int) -> None:
    """`pgrep -f hookd | tee …/slow/cgroup.procs`, `echo "$(pidof x)" > …/cgroup.procs`: a PID written into a
    cgroup's member list (the catalogue's `member_files`) moves that process under the cgroup's limits: it acts on
    that process, as an attach does. The PID is the text written: its lookup is the substitution it holds, or
    the commands before the writer in its pipeline; a number stays a number (what runs under it now)."""
    members = catalogue().member_files
    for effect in [e for e in ledger.effects[start:] if e["op"] == "write"]:
        path = str(effect["path"] or effect.get("raw", ""))
        if not path.startswith("/sys/fs/cgroup/") or path.rpartition("/")[2] not in members:
            continue
        text = " ".join(view.argv[1:]) if view.name in ("echo", "printf") else ""
        target = text or (XARGS_INPUT if view.fed else "")
        found: dict[str, Any] = {"lookup": lookup_words(target, view.built, view.fed)}
        if not found["lookup"]:
            found = {"running": running_names(text)} if running_names(text) else {}
        named = text or " ".join(view.fed)  # the reason names the PID as the line spells where it comes from
        ledger.add("signal", None, effect["program"], target=named, match="pid", acts="process", **found)


def module_effects(ledger: Ledger, program: Program, parsed: Parsed, place: Place, follow: Followups) -> None:
    """`ansible localhost -m file -a 'path=~/x state=absent'`: a module run on this machine (a host pattern or
    inventory of this machine's names, or `-c local`) does what its table says to the paths its arguments name:
    a recursive delete under `state=absent`, a write, a read (`fetch`, `slurp`), a command run later (`cron`'s
    `job`). A run on other hosts acts there, not here. A module whose free-form arguments are a command line
    (`command`, `shell`, `raw`: op `command`) hands it to be run, wherever: unknown code, walked as a script."""
    modules = program.task_modules
    given = dict(parsed.options)
    module, args = given.get(modules.option) if modules else None, given.get(modules.args) if modules else None
    if modules is None or not module or args is None:
        return
    keys, op, absent = modules.table.get(module.rpartition(".")[2], ((), "", ""))
    if op == "command" and is_command_line(args):  # as a command line handed to a program hookd does not know
        ledger.add("exec", None, program.name, code={"lang": "sh", "text": args}, known=False, handed=True)
        follow.scripts.append(args)
    if op == "command" or not _this_machine(modules, parsed):
        return
    pairs = dict(w.split("=", 1) for w in _split(args) if "=" in w)
    op = absent if absent and pairs.get("state") == "absent" else op
    for key in [k for k in keys if pairs.get(k)]:
        if op == "exec":
            code = {"lang": "sh", "text": pairs[key]}
            ledger.add("exec", None, program.name, code=code, known=False, deferred=True, key=key)
        else:
            ledger.add(op, place(pairs[key]), program.name, recursive=op == "delete")


def _this_machine(modules: Modules, parsed: Parsed) -> bool:
    hosts = [h for w in [*parsed.operands[:1], *(v for o, v in parsed.options if o in ("-i", "--inventory") and v)]
             for h in w.split(",") if h]  # fmt: skip
    local = any(v == "local" for o, v in parsed.options if o in ("-c", "--connection"))
    return local or (bool(hosts) and all(h in modules.local for h in hosts))


def _split(args: str) -> list[str]:
    try:
        return shlex.split(args)
    except ValueError:
        return args.split()


# The user the line runs as, in the spellings an owner operand takes it (`$USER`, `$(id -u)`, `` `whoami` ``)
_CALLER = re.compile(
    r"\$\{?(?:USER|LOGNAME)\}?|\$\(\s*(?:whoami|id\s+-(?:u|un|nu|g|gn|ng|u\s+-n|g\s+-n))\s*\)"
    r"|`\s*(?:whoami|id\s+-(?:u|un|nu|g|gn|ng))\s*`"
)
_FOLLOWS_LINKS = frozenset({"-L", "-H", "--dereference"})  # with -R: links to directories elsewhere are followed


def given_back(ledger: Ledger, view: CommandView, start: int) -> None:
    """`sudo chown -R "$USER:$(id -g)" .`: files whose owner becomes the user the line runs as (a tree a root
    build or container left root-owned, given back). Its owner changes are marked `owner: "caller"`; a policy
    judges where they are (the paths are canonical: a link's target, not the link). Not with a `--reference` or
    `--from`, nor `-R` with links followed (GNU coreutils, "chown invocation": `-R` acts on links themselves
    unless -L or -H)."""
    if view.name not in ("chown", "chgrp") or any(w.startswith(("--reference", "--from")) for w in view.argv):
        return
    options = {
        o for w in view.argv[1:] if w.startswith("-") for o in ([w] if w.startswith("--") else [f"-{c}" for c in w[1:]])
    }
    if options & _FOLLOWS_LINKS:
        return
    spec = next((w for w in view.argv[1:] if not w.startswith("-")), "")
    parts = [spec] if view.name == "chgrp" else re.split(r"[:.]", spec, maxsplit=1)
    if not any(parts) or not all(not part or _CALLER.fullmatch(part) for part in parts):
        return
    for effect in ledger.effects[start:]:
        if effect["op"] == "chmod" and effect["program"] == view.name:
            effect["owner"] = "caller"


_PACKAGE = re.compile(r"[A-Za-z0-9][A-Za-z0-9+._-]*(?::[a-z0-9-]+)?(?:=[A-Za-z0-9.+~:-]+)?")
_FILE_PACKAGE = (".deb", ".rpm")  # a package file, not a name the configured sources serve
_ENV_VALUE = re.compile(r"[A-Za-z0-9_]*")


@functools.cache
def _package_installs() -> Mapping[str, Any]:
    table: Mapping[str, Any] = json.loads((DATA / "package_installs.json").read_text(encoding="utf-8"))
    return table


def distribution_packages(ledger: Ledger, view: CommandView, start: int) -> None:
    """`sudo apt-get install -y gcc make`, `sudo apt-get update`: the distribution's packages installed from the
    sources the system is configured with (package_installs.json). Its privilege is marked `installs: packages`;
    a package file or URL, a configuration option (`-o`, `-c`), an unsigned source, another wrapper option
    (`sudo -E`, `-u`) or environment (`APT_CONFIG=…`) leaves it as any privilege."""
    table = _package_installs()
    manager = table["managers"].get(view.name)
    if manager is None or not view.sudo or not _plain_wrapper(view, table):
        return
    words = view.argv[1:]
    commands = [w for w in words if not w.startswith("-")]
    if not commands or commands[0] not in manager["commands"]:
        return
    flags = set(manager["flags"])
    if not all(w in flags for w in words if w.startswith("-")):
        return
    if not all(_PACKAGE.fullmatch(w) and not w.endswith(_FILE_PACKAGE) for w in commands[1:]):
        return
    for effect in ledger.effects[start:]:
        if effect["op"] == "privilege" and effect["program"] == view.name:
            effect["installs"] = "packages"


def _plain_wrapper(view: CommandView, table: Mapping[str, Any]) -> bool:
    """Whether the wrapper is `sudo` (or `doas`) with no option that changes the user, the environment or the
    command, and only debconf's settings given (`sudo DEBIAN_FRONTEND=noninteractive apt-get …`)."""
    names, flags = set(table["environment"]), set(table["wrapper_flags"])
    settings = all(k in names and _ENV_VALUE.fullmatch(v) for k, v in view.env.items())
    rest = view.peeled[1:] if view.peeled[:1] in (("sudo",), ("doas",)) else None
    return settings and rest is not None and all(w in flags or w.partition("=")[0] in names for w in rest)


ENVIRON = {"raw": "/proc/self/environ", "path": "/proc/self/environ", "in_project": False}
# grep's options that change nothing of which lines it prints: -i, -E (-G, -s); `-v`, `-A`, `-o`, `-f` do
_GREP_FLAGS = re.compile(r"-[iEGs]+|--(?:ignore-case|extended-regexp|basic-regexp|no-messages)")
_NAME = r"[A-Za-z0-9_]*"
# `^NAME=`, `^(A|B)_proxy=`: the variables whose whole names the pattern spells, each up to its `=`
_NAMES_PATTERN = re.compile(rf"\^({_NAME})(?:\(({_NAME}(?:\|{_NAME})*)\)({_NAME}))?=")
_WORD = re.compile(r"[A-Za-z_]+")  # a part of a name, held by a credential's value only by chance when it holds
# a word of four letters or more


def _plain_word(pattern: str) -> bool:
    """Whether `pattern` is a part of a name holding a word of plain settings' names (`proxy`, `HTTPS_PROXY`) and no
    word that says a credential is there."""
    words = set(pattern.lower().split("_"))
    return bool(
        _WORD.fullmatch(pattern)
        and words & catalogue().plain_environment
        and not _SECRET_VARIABLE.search(pattern.upper())
    )


def filtered_environment(ledger: Ledger, argv: list[str], view: CommandView) -> bool:
    """`env | grep -E '^(http|https|no)_proxy='`: the whole environment the command before printed goes through a
    pipe into grep, which prints only the variables whose whole names its anchored pattern spells (each ended by its
    `=`): judged as printing those (`printenv NAME`: a name that says it holds a credential is asked), and so a word
    of plain settings' names (`grep -i proxy`: the catalogue's `plain_environment`). A prefix (`^NODE_ENV`: whatever
    extends it), another word, option (`-v`, `-A 3`) or a file operand leaves the whole of it."""
    whole = [e for e in ledger.printed if e.get("variables") == []]
    if not whole or view.stdin in ("", "none") or view.stdin_text is not None or view.name not in ("grep", "egrep"):
        return False
    words = argv[1:]
    flags = [w for w in words if w.startswith("-")]
    if len(words) - len(flags) != 1 or not all(_GREP_FLAGS.fullmatch(w) for w in flags):
        return False
    pattern = words[-1] if not words[-1].startswith("-") else ""
    found = _NAMES_PATTERN.fullmatch(pattern)
    if _plain_word(pattern):  # (`grep -i proxy`: the settings whose names hold a word of plain settings' names)
        names: list[str] = []
    elif found is None or (found.group(2) is not None and view.name != "egrep" and not any("E" in w for w in flags)):
        return False
    else:
        head, alternatives, tail = found.group(1), found.group(2), found.group(3) or ""
        names = [head + a + tail for a in alternatives.split("|")] if alternatives is not None else [head]
    secret = [n.upper() for n in names if _SECRET_VARIABLE.fullmatch(n.upper())]
    for effect in whole:
        effect["variables"] = secret
    ledger.effects[:] = [e for e in ledger.effects if secret or all(e is not w for w in whole)]
    return True
