"""What a catalogue entry says a program does beyond its operands (docs/policies.md, "The effect model"): a
file it builds from the line's own code (`compiles`), privileges it gives a file (`grants`), settings whose
value it runs later (`sets_code`), what it removes by name (`deletes_named`) or by a REST API's DELETE
(`rest_deletes`)."""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
from collections.abc import Mapping

from hookd.enrich.effects.catalogue import Program, catalogue
from hookd.enrich.effects.env_commands import env_tables_written
from hookd.enrich.effects.farms import farm_links
from hookd.enrich.effects.kernel_params import kernel_parameters
from hookd.enrich.effects.ledger import CommandView, Followups, Ledger, Place
from hookd.enrich.effects.loaded import option_commands
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.words import STDIN_FILES, named_by_options, sets_id


def compiled(ledger: Ledger, program: Program, parsed: Parsed, view: CommandView, place: Place) -> None:
    """`gcc -o FILE SRC…`: FILE is written; built from code the line gave it (stdin, a file it wrote), it is
    code hookd cannot see, so running or loading it later on the line is judged as such (a `flow`)."""
    output = next((v for o, v in parsed.options if o == program.compiles and v), None) if program.compiles else None
    if output is None:
        return
    effect = ledger.add("write", place(output), program.name)
    path = str(effect["path"] or "")
    sources = [w for w in parsed.operands if not w.startswith("-") or w == "-"]
    own = any(
        (w in STDIN_FILES and view.stdin not in ("none", "")) or ledger.made(str(place(w).get("path") or ""))
        for w in sources
    )
    if path and own:
        ledger.produce(path, "write")
        ledger.contents.pop(path, None)


def sets_code(ledger: Ledger, program: Program, argv: list[str], place: Place, follow: Followups) -> None:
    """`npm config set script-shell X`, `npm pkg set scripts.postinstall=CMD`: a setting whose value another
    run of the program executes later, outside the hooks: a program named there is asked (deferred); a
    command line is judged as itself now (the same text runs later)."""
    for words, keys, file, kind, args_option in program.sets_code:
        after = _after_words(argv, words)
        if after is None:
            continue
        pairs = [w.partition("=") for w in after if not w.startswith("-")]
        first = next((k for k, w in enumerate(after) if not w.startswith("-")), len(after))
        if pairs and not pairs[0][1] and first + 1 < len(after):  # KEY VALUE (the value may be `--require x`)
            pairs = [(pairs[0][0], "=", after[first + 1])]
        if any(k.startswith("--") for k in keys):
            pairs = _option_settings(after, keys, args_option)
        for key, _, value in pairs:
            if value and any(fnmatch.fnmatchcase(key, k) for k in keys):
                where = place(file.replace("~", ledger.home, 1)) if file else None
                ledger.add("write", where, program.name, key=key, value=value)
                if kind == "program":
                    ledger.add("exec", None, program.name, code={"lang": "sh", "text": value}, deferred=True)
                elif kind.startswith("environment:"):  # `npm config set node-options '--require x.js'`
                    _loads_later(ledger, program.name, kind.partition(":")[2], value)
                    continue
                follow.scripts.append(value)


def _option_settings(after: list[str], keys: tuple[str, ...], args_option: str) -> list[tuple[str, str, str]]:
    """Settings given as options (`--exec-command=/bin/sh --exec-arg=-c --exec-arg=CMD`, each `--opt=V` or
    `--opt V`): each key option set to its value, followed by the values of `args_option` (its arguments)."""
    given: list[tuple[str, str]] = []
    k = 0
    while k < len(after):
        option, eq, value = after[k].partition("=")
        if option in keys or option == args_option:
            if not eq and k + 1 < len(after):
                k, value = k + 1, after[k + 1]
            given.append((option, value))
        k += 1
    arguments = [v for o, v in given if o == args_option and args_option]
    return [(o, "=", shlex.join([v, *arguments])) for o, v in given if o in keys and o != args_option and v]


def _loads_later(ledger: Ledger, name: str, variable: str, value: str) -> None:
    """A setting the program hands its later runs as the environment `variable` (npm's `node-options` is
    NODE_OPTIONS for every script it runs): the files those options load then run, outside the hooks."""
    entry = catalogue().environment.get(variable)
    if entry is not None and entry.loads == "options" and named_by_options(value.strip("\"'"), entry.options):
        ledger.add("exec", None, name, code={"lang": entry.lang, "text": ""}, known=False, deferred=True)
    for command in option_commands(value, entry.commands if entry is not None else ()):  # `-XX:OnError=cmd`
        ledger.add("exec", None, name, code={"lang": "sh", "text": command}, deferred=True)


def grants(ledger: Ledger, program: Program, parsed: Parsed, place: Place) -> None:
    """`chmod u+s FILE`, `install -m 4755 SRC DEST`, `setcap cap_setuid+ep FILE`: the file then runs with its
    owner's privileges or with capabilities, whoever starts it: a privilege granted (`grants`)."""
    if program.grants == "capabilities":  # setcap CAPS FILE [CAPS FILE …]; -r removes, -v verifies
        if any(o in ("-r", "-v") for o, _ in parsed.options):
            return
        for caps, word in zip(parsed.operands[0::2], parsed.operands[1::2], strict=False):
            ledger.add("privilege", place(word), program.name, grants="capabilities", escalates=escalates(caps))
        return
    mode = next((v for o, v in parsed.options if o == "--mode" and v), None)
    files = parsed.operands
    if mode is None and program.first == "none":  # chmod MODE FILE…
        mode, files = (parsed.operands or [""])[0], parsed.operands[1:]
    if not mode or not sets_id(mode):
        return
    grant = "setuid"
    for word in files:
        ledger.add("privilege", place(word), program.name, grants=grant)


# capabilities(7)'s that open no way to root nor to others' files: binding a port below 1024, broadcasting,
# locking memory, timers that wake the system, blocking suspend (https://man7.org/linux/man-pages/man7/capabilities.7.html;
# the escalating ones: https://www.thehacker.recipes/infra/privilege-escalation/unix/capabilities)
_CONFINED_CAPS = frozenset({
    "cap_net_bind_service", "cap_net_broadcast", "cap_ipc_lock", "cap_wake_alarm", "cap_block_suspend",
})  # fmt: skip
_CAP_NAME = re.compile(r"cap_[a-z_]+", re.I)


def escalates(caps: str) -> bool:
    """Whether setcap's capability text gives more than `_CONFINED_CAPS` (`cap_net_bind_service=+ep`: no;
    `cap_setuid+ep`, `=ep` (every capability), `all+ep`: yes); text made at run time counts as escalating."""
    names = {n.lower() for n in _CAP_NAME.findall(caps)}
    clauses = [c for c in re.split(r"\s+", caps.strip()) if c]
    bare = any(not _CAP_NAME.search(c.split("=", 1)[0].split("+", 1)[0].split("-", 1)[0]) for c in clauses)
    return bare or "$" in caps or "`" in caps or not names or not names <= _CONFINED_CAPS


def named_changes(ledger: Ledger, program: Program, parsed: Parsed, view: CommandView, place: Place) -> None:
    """What a command changes by the names its words give, not by the files it is handed: packages, the
    environment an installer writes, the service manager's environment and unit files."""
    deletes_named(ledger, program, view.argv)
    environment_written(ledger, program, parsed, view.argv, place)
    manager_environment(ledger, program, parsed, {**view.variables, **view.env})
    env_tables_written(ledger, program, parsed, place)
    unit_files_written(ledger, program, parsed, place)
    stores_cleared(ledger, program, parsed)
    removed_below(ledger, program, parsed, place)
    farm_links(ledger, program, parsed, place)
    kernel_parameters(ledger, program, parsed, place)


_MAX_ENTRIES = 256


def removed_below(ledger: Ledger, program: Program, parsed: Parsed, place: Place) -> None:
    """`pyenv uninstall 3.11.9`, `uv python uninstall 3.11`: a manager removes, by the names it is given, entries
    of a directory of its own (programs.json `removes_below`): each entry the name selects, as the directory is at
    decision time, is deleted whole (`--all`, or an entry whose `match` is `all`, `pipx uninstall-all`: every
    entry); a name that selects none removes nothing."""
    for words, directory, match in program.removes_below:
        if parsed.operands[: len(words)] != list(words):
            continue
        base = ledger.home + directory[1:] if directory.startswith("~/") else directory
        try:
            entries = sorted(os.listdir(base))[:_MAX_ENTRIES]
        except OSError:
            continue
        everything = match == "all" or any(o == "--all" for o, _ in parsed.options)
        names = parsed.operands[len(words) :]
        for entry in entries:
            if everything or any(_selects(entry, name, match) for name in names):
                ledger.add("delete", place(f"{base}/{entry}"), program.name, recursive=True)


def _selects(entry: str, name: str, match: str) -> bool:
    """Whether a request names an installation: its exact name, or (`version`) a version of which the entry's
    (`cpython-3.11.9-linux-x86_64-gnu`: 3.11.9) is the same or a patch release (`3.11`, `cpython@3.11`)."""
    if entry == name or match != "version":
        return entry == name
    requested = name.rpartition("@")[2].lstrip("abcdefghijklmnopqrstuvwxyz-")
    version = entry.split("-")[1] if entry.count("-") >= 1 else ""
    return bool(re.fullmatch(r"[0-9]+(?:\.[0-9]+)*", requested)) and (
        version == requested or version.startswith(requested + ".")
    )


def stores_cleared(ledger: Ledger, program: Program, parsed: Parsed) -> None:
    """`journalctl --vacuum-time=1s`: under these options the program deletes the oldest files of the stores it
    keeps (programs.json `clears_stores`), whatever its operands name."""
    given = {option for option, _ in parsed.options}
    for option, stores in program.clears_stores.items():
        for store in stores if option in given else ():
            ledger.add("delete", {"raw": store, "path": store, "in_project": False}, program.name, recursive=True)


def deletes_named(ledger: Ledger, program: Program, argv: list[str]) -> None:
    """`pip uninstall hookd`, `gh repo delete o/r`: what a command removes by name, not by path (`what`, `name`);
    `pipx inject hookd X`, `pipx runpip hookd install X` (not `… list`): what it changes by name (a `write` of
    the package's environment)."""
    for words, what, op, when in program.deletes_named:
        after = _after_words(argv, words)
        if after is not None and (not when or not when.isdisjoint(after)):
            for name in [w for w in after if not w.startswith("-")] or [""]:
                named = requirement_name(name) if what == "package" else name
                ledger.add(op, None, program.name, what=what, name=named)


def environment_written(ledger: Ledger, program: Program, parsed: Parsed, argv: list[str], place: Place) -> None:
    """`pip --python ENV/bin/python install X`, `uv pip install -p PY X`, `ENV/bin/pip install X`: the packages
    land in the environment of the interpreter named (or of the one the program was run from), which is written
    whole; a bare `pip install X` changes whichever environment is active, which the line does not name."""
    for words, options, own in program.environment_writes:
        if parsed.operands[: len(words)] != list(words):
            continue
        named = [v for o, v in parsed.options if o in options and v]
        if own and "/" in argv[0]:
            named.append(argv[0])
        for interpreter in named:
            path = str(place(interpreter).get("path") or "")
            if path:
                ledger.add("write", place(environment_of(path)), program.name, recursive=True)


def environment_of(interpreter: str) -> str:
    """The environment a program's path belongs to: `ENV` for `ENV/bin/NAME` (`Scripts` on Windows), else the path
    itself (an environment's directory named directly: `uv pip install --python .venv`)."""
    parent, _, _ = interpreter.rpartition("/")
    directory, _, leaf = parent.rpartition("/")
    return directory if leaf in ("bin", "Scripts") and directory else interpreter


# the user manager's environment is the one environment.d(5) sets at its start; a variable set in it later
# reaches the units it starts from then on, as one set there would: judged as that file's text
_MANAGER_ENVIRONMENT = "/.config/environment.d/"


def manager_environment(ledger: Ledger, program: Program, parsed: Parsed, variables: Mapping[str, str]) -> None:
    """`systemctl --user set-environment LD_AUDIT=…`, `dbus-update-activation-environment --systemd A=B`,
    `launchctl setenv HOOKD_CONFIG F`: variables every unit the service manager starts later gets (hookd's daemon
    when it next starts, by its socket or at login), written as the text of a file of its environment. A name
    alone (`import-environment LD_PRELOAD`) hands on the value the line gave it."""
    operands = [command_named(parsed.operands[0], program), *parsed.operands[1:]] if parsed.operands else []
    for words, form in program.manager_environment:
        if operands[: len(words)] != list(words):
            continue
        given = operands[len(words) :]
        if form == "pairs":
            given = [f"{k}={v}" for k, v in zip(given[::2], given[1::2], strict=False)]
        given = [f"{w}={variables[w]}" if "=" not in w and w in variables else w for w in given]
        assigned = [w for w in given if "=" in w and not w.startswith("=")]
        if assigned:
            path = f"{ledger.home}{_MANAGER_ENVIRONMENT}{program.name}-{'-'.join(words) or 'environment'}.conf"
            pairs = (w.partition("=") for w in assigned)
            ledger.contents[path] = "".join(f"{k}={shlex.quote(v)}\n" for k, _, v in pairs)
            ledger.add("write", {"raw": path, "path": path, "in_project": False}, program.name, manager=True)


def command_named(word: str, program: Program) -> str:
    """The command `word` names: itself, or the one of the program's `abbreviated_commands` it is a prefix of (an
    alias or a whole name is matched first, an ambiguous prefix names none)."""
    if word in program.abbreviated_commands or not program.abbreviated_commands:
        return word
    named = [c for c in program.abbreviated_commands if c.startswith(word)]
    return named[0] if len(named) == 1 and word else word


def unit_files_written(ledger: Ledger, program: Program, parsed: Parsed, place: Place) -> None:
    """`systemctl [--user] edit UNIT` writes the unit's drop-in (`override.conf`, `--drop-in=NAME`; `--full`: the
    unit file itself) whatever editor it runs; `systemctl link PATH` puts a link to PATH, under PATH's name, in the
    manager's unit directory (systemctl(1)), and so does `enable PATH`/`reenable PATH` (`path-link`: a unit named
    by a path, not by its name). The directory: the user manager's with `--user`, `/etc/systemd/user`
    with `--global`, the system's otherwise; `--runtime`'s under /run is not known here."""
    verb = parsed.operands[0] if parsed.operands else ""
    kind = program.unit_files.get(verb)
    if not kind:
        return
    given = {o for o, _ in parsed.options}
    directory = "/etc/systemd/user" if "--global" in given else "/etc/systemd/system"
    if "--user" in given:
        directory = ledger.home + "/.config/systemd/user"
    for word in parsed.operands[1:]:
        name = word.rstrip("/").rpartition("/")[2]
        if kind == "path-link" and "/" not in word:  # (`enable x.service`: a unit by name, no file put anywhere)
            continue
        if kind in ("link", "path-link"):
            ledger.add("link", place(word), program.name, to=place(f"{directory}/{name}"))
            continue
        unit = name if "." in name else f"{name}.service"
        drop_in = next((v for o, v in parsed.options if o == "--drop-in" and v), "override")
        file = f"{unit}" if "--full" in given else f"{unit}.d/{drop_in.removesuffix('.conf')}.conf"
        known = None if "--runtime" not in given else False  # below /run: a directory not known here
        ledger.add("write", place(f"{directory}/{file}"), program.name, known=known)


# PEP 508: a requirement begins with the project's name; extras, a version specifier, `@ URL` or a marker follow
# (https://peps.python.org/pep-0508/); uv's tool commands take `NAME@VERSION` the same way
_REQUIREMENT_NAME = re.compile(r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)")
# a wheel's or an sdist's file name begins with its distribution name and a `-` before the version
# (https://packaging.python.org/en/latest/specifications/binary-distribution-format/, source-distribution-format/)
_ARCHIVE = re.compile(r"([A-Za-z0-9](?:[A-Za-z0-9._]*[A-Za-z0-9])?)-[0-9][^/]*\.(?:whl|tar\.gz|zip)")


def requirement_name(word: str) -> str:
    """The project a package manager's operand names: `hookd==0.3.1`, `hookd[http]>=1`, `hookd@0.3.0`,
    `hookd @ https://…` are hookd, and so is a path or URL of its wheel or sdist (`dist/hookd-0.3.0-py3-none-any.whl`)
    or a VCS URL of its repository (pip's `#egg=`); any other word is kept as it is."""
    archive = _ARCHIVE.fullmatch(word.rpartition("/")[2])
    if archive:
        return archive.group(1)
    if word.startswith(("git+", "hg+", "svn+", "bzr+")) or "#egg=" in word:  # a VCS URL: `#egg=`, else the repository
        url, _, fragment = word.partition("#")
        egg = next((v for k, _, v in (p.partition("=") for p in fragment.split("&")) if k == "egg"), "")
        return egg or url.rstrip("/").rpartition("/")[2].partition("@")[0].removesuffix(".git") or word
    if "/" in word or word.startswith("."):
        return word
    found = _REQUIREMENT_NAME.match(word)
    return found.group(1) if found else word


def _after_words(argv: list[str], words: tuple[str, ...]) -> list[str] | None:
    """The words after `words`, when argv's operands start with them (`npm config set …`), else None."""
    operands = [k for k, w in enumerate(argv[1:], start=1) if not w.startswith("-")]
    if len(operands) < len(words) or [argv[k] for k in operands[: len(words)]] != list(words):
        return None
    return argv[operands[len(words) - 1] + 1 :]


def rest_deletes(ledger: Ledger, program: Program, parsed: Parsed) -> None:
    """A REST client's DELETE to a code forge's or a hosting platform's API (`gh api -X DELETE repos/o/r`, `curl -X
    DELETE https://api.github.com/repos/o/r/git/refs/heads/main`, `http DELETE …`, `curl -X DELETE
    https://api.hetzner.cloud/v1/servers/4711`): a hosted resource removed, the
    repository itself (`what: repository`, as `gh repo delete`) when the endpoint is one (forge_apis)."""
    rest = program.rest_api
    operands = parsed.operands
    words = list(rest.get("words", ()))
    if operands[: len(words)] != words:
        return
    operands = operands[len(words) :]
    if rest.get("method_operand"):
        method, operands = (operands[0], operands[1:]) if operands else ("", [])
    else:
        method = next((v for o, v in parsed.options if o in rest.get("method", ()) and v), "")
    if method.upper() == "PATCH" and _forced(parsed):
        _forced_branches(ledger, program, operands[:1] if words else operands, str(rest.get("base", "")))
    if method.upper() != "DELETE":
        return
    for word in operands[:1] if words else operands:
        endpoint = _forge_endpoint(word, str(rest.get("base", "")))
        if endpoint is not None:
            what = "repository" if _is_repository(endpoint) else "hosted"
            name = "/".join(endpoint.strip("/").split("/")[1:3]) if what == "repository" else endpoint
            ledger.add("delete", None, program.name, what=what, name=name)


_FORCE_FIELD = re.compile(r"""^force=true$|"force"\s*:\s*true""")


def _forced(parsed: Parsed) -> bool:
    """A field or body that sets `force: true` (`gh api -F force=true`, `curl -d '{"force":true}'`)."""
    given = [value for _, value in parsed.options if value] + parsed.operands  # (a field table may not know `-F`)
    return any(_FORCE_FIELD.search(value) for value in given)


def _forced_branches(ledger: Ledger, program: Program, operands: list[str], base: str) -> None:
    """`gh api -X PATCH repos/o/r/git/refs/heads/main -F force=true`: the branch moved even when the commit is not
    a descendant (https://docs.github.com/en/rest/git/refs#update-a-reference), the history after it lost there,
    as `git push --force origin X:main` loses it: the same `history` delete, of that branch (forge_apis)."""
    for word in operands:
        endpoint = _forge_endpoint(word, base) or ""
        for pattern in catalogue().forge_apis.get("branch_refs", ()):
            found = re.match(pattern, endpoint.split("?", 1)[0])
            if found:
                ledger.add("delete", None, program.name, what="history", ref=found.group(1), url=word)


def _forge_endpoint(word: str, base: str) -> str | None:
    """The endpoint path of a forge API's URL (or of an endpoint given to a forge's own client), else None."""
    forges = catalogue().forge_apis
    if base and "://" not in word:
        return word.lstrip("/")
    for prefix in forges.get("prefixes", ()):
        if word.startswith(prefix):
            return word[len(prefix) :]
    enterprise = str(forges.get("enterprise", "") or "")
    at = word.find(enterprise) if enterprise and word.startswith("https://") else -1
    return word[at + len(enterprise) :] if at > 0 else None


def _is_repository(endpoint: str) -> bool:
    path = endpoint.split("?", 1)[0]
    return any(re.match(pattern, path) for pattern in catalogue().forge_apis.get("repository", ()))


def served(ledger: Ledger, program: Program, parsed: Parsed, place: Place) -> None:
    """A file server (`python3 -m http.server --directory ~`, `php -S 0:80 -t DIR`, `npx serve DIR`, ngrok's
    `file://DIR`): every file
    below the directory it serves is read by whoever connects: a read of the whole tree (the home's secrets
    with it)."""
    spec = program.serves
    if not spec or spec.get("subcommand", "") not in ("", *parsed.operands[:1]):
        return
    if spec.get("when") and not any(o == spec["when"] for o, _ in parsed.options):
        return
    named = [v for o, v in parsed.options if o in spec.get("options", ()) and v]
    if spec.get("file_urls"):  # `ngrok http file:///home/u`: the directory a file URL names; none, nothing served
        named += [w[len("file://") :] or "/" for w in parsed.operands if w.startswith("file://")]
        if not named:
            return
    at = int(spec.get("operand_at", 0))  # `rclone serve http DIR`: after the subcommand and the protocol
    if spec.get("operand") and len(parsed.operands) > at:
        named.append(parsed.operands[at])
    for directory in named[-1:] or [str(spec.get("default", "."))]:
        ledger.add("read", place(directory), program.name, recursive=True, served=True)
