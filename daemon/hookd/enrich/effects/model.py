"""The effects of one shell command, from the catalogue (docs/policies.md, "The effect model").

`EffectModel` is fed every command the shell builder walks, in order, and keeps what the line has done so
far (the files it wrote or downloaded, and their text when known), so that a later command that runs one
of them is judged with it: a FLOW within the line. For each command it appends effect objects to
`effects` and returns what else the command runs: shell scripts to parse as one level deeper, and code in
another language to show as `inline`. Linear in the words: one pass over each argv, lookups in dicts.

It composes its parts, each owning one job and recording into one `Ledger` (ledger.py: the effect list and
the line's memory): `FileEffects` (files.py: what a program does to its operands and option values),
`CodeRuns` (code.py: the code it runs), and the git, tar and fetch analyses (gitops.py, tar.py, fetches.py).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

from hookd.enrich.effects import beyond, option_files, stdin_files
from hookd.enrich.effects.beyond import cgroup_signals, module_effects, options_from_globs, privileged, used_secret
from hookd.enrich.effects.catalogue import Program, catalogue
from hookd.enrich.effects.code import CodeRuns, implicit_code, left_empty, property_command, url_scripts
from hookd.enrich.effects.code_files import code_from_files
from hookd.enrich.effects.configtext import placed_text, quiet_setting
from hookd.enrich.effects.emptied import emptied_writes
from hookd.enrich.effects.entries import compiled, grants, named_changes, rest_deletes, served, sets_code
from hookd.enrich.effects.env_files import environment_set, sets_kept, shell_text, unseen_environment
from hookd.enrich.effects.files import FileEffects, option_execs
from hookd.enrich.effects.filters import names_from_pipe
from hookd.enrich.effects.gitops import git_effects
from hookd.enrich.effects.gitremotes import transports_allowed_later
from hookd.enrich.effects.handed import WALKED_BY_THE_SHELL, is_command_line, launched_words
from hookd.enrich.effects.hosted_stores import hosted_store_deletes
from hookd.enrich.effects.languages import code_runs_nothing
from hookd.enrich.effects.later_lines import scheduled_later
from hookd.enrich.effects.ledger import CommandView, Followups, Ledger, Place, prints_nothing
from hookd.enrich.effects.loaded import configured_code, file_commands, loaded_files, option_commands
from hookd.enrich.effects.options import Parsed, parse
from hookd.enrich.effects.overwrites import filled_from_devices, yields_filler
from hookd.enrich.effects.retention import retention_prunes, worktree_sweeps
from hookd.enrich.effects.revealed import decrypted, prints_sensitive_output, reveals_credential
from hookd.enrich.effects.sends import batch_puts, carried_trees, network_sends, socket_redirect
from hookd.enrich.effects.signals import signals
from hookd.enrich.effects.source_sets import sources_redirected, startup_sources_redirected
from hookd.enrich.effects.state_dirs import files_written
from hookd.enrich.effects.tmpfiles import applied_configs, configured_later, is_tmpfiles_config
from hookd.enrich.effects.traced import traced_memory
from hookd.enrich.effects.untabled import (
    WALKED_INLINE,
    _module_argv,
    fed_text,
    handed_words,
    piped,
    runs_without_table,
    unread,
    untabled_code,
)
from hookd.enrich.effects.words import (
    _DECODERS,
    _ENVIRONMENT_PRINTERS,
    _NOTHING,
    HOME_CODE_WHEN,
    SHELLS,
    _dynamic,
    _has_words,
    _option_value_in,
    _planted,
    _stdout_trees,
    home_code_lang,
    may_run_at_start,
    named_by_options,
    planted_path,
    printed_environment,
    prints_own_code,
    reads_script_from_stdin,
    shadows,
    startup_language,
    system_program,
)

__all__ = ["CommandView", "EffectModel", "Followups", "Place"]

_PROGRAM_GLOB = re.compile(r"[*?]|\[[^\]]+\]")  # a program word the shell expands as a pattern


def _own_setup(view: CommandView, path: str) -> bool:
    """A write into `path` that is the output of a program printing the shell code of its own setup (the
    catalogue's `prints_shell`, as `eval "$(pyenv init -)"` takes it), redirected there by the command itself
    with no environment of its own to change what it prints, nor a PATH the line set to find another program of
    that name in a place anything can fill (words.planted_path): the tool's installed code, not code of the line."""
    redirected = any(">" in str(r.get("op") or "") and r.get("path") == path for r in view.redirects)
    own = not view.env and not any(planted_path(v) for v in (view.variables.get("PATH"), view.built.get("PATH")))
    return redirected and own and prints_own_code("$(" + " ".join(view.argv) + ")")


class EffectModel:
    """Composes the parts that judge one command (files, code, git, tar, fetches), all recording into one Ledger."""

    __slots__ = ("_opened_by_shell", "code", "files", "ledger")

    def __init__(self, *, home: str, project: str) -> None:
        self.ledger = Ledger(home=home, project=project)
        self.code = CodeRuns(self.ledger)
        self.files = FileEffects(self.ledger)
        self._opened_by_shell: set[int] = set()  # the effects of a command's redirections (ids in the ledger)

    @property
    def effects(self) -> list[dict[str, Any]]:
        return self.ledger.effects

    def stdin_code(self, name: str, origin: str) -> None:
        self.code.stdin_code(name, origin)

    def _sent(self, program: Program, parsed: Parsed, name: str, view: CommandView) -> None:
        """A network program sending its stdin (`curl -T -`, `nc host port`, `ssh host …`), when the command
        before it wrote a whole tree there (`tar c . | curl -T - URL`): the tree is read and sent."""
        if view.stdin != "tree" or not self.ledger.trees:
            return
        sends = (
            program.network
            or program.remote_command
            or any(value in ("-", "@-") or (value or "").endswith("=@-") for _, value in parsed.options)
        )
        if sends and (program.network or program.operands in ("fetch", "fetch-first") or program.remote_command):
            for placed in self.ledger.trees:
                self.ledger.add("read", placed, name, recursive=True, sent=True)

    # ----------------------------------------------------------------------------------------------
    # One command

    def command(self, view: CommandView, place: Place) -> Followups:
        start = len(self.ledger.effects)
        paths = (view.env.get("PATH"), view.variables.get("PATH"), view.built.get("PATH"))
        self.code.own_path, self.code.literal = not any(planted_path(value) for value in paths), view.literal
        expanded = option_files.options_from_files(options_from_globs(view, place), place, self.ledger)
        kept = self.ledger.bind_descriptors(list(view.redirects), lasting=not view.argv)
        follow = self._command(expanded, place)
        emptied_writes(self.ledger, expanded, start)  # `sort -o F /dev/null`, `sed -i d F`: nothing of its own
        self.ledger.descriptors = kept
        if expanded is not view:  # what the file names make it run, they chose, not the line
            for effect in self.ledger.effects[start:]:
                if effect["op"] == "exec":
                    effect.update(known=False, built=True)
        loaded_files(self.ledger, view, place, follow, start)  # `go run /tmp/m.go`: a file the line wrote
        sources_redirected(self.ledger, view, start)  # `pip config set global.index-url URL`: later installs'
        if view.name != "git" and _may_change_tree(view, self.ledger.effects[start:], follow):
            self.ledger.touch_tree()  # what a later git discard loses is no longer what the disk shows
        if follow.scripts or follow.code or view.peeled or view.handed:  # what it runs may run many times
            self.ledger.unordered = True
        if len(self.ledger.effects) == start:
            return follow  # nothing done here that runs at start or with privileges
        self._startup_files(start, view, follow)
        startup_sources_redirected(self.ledger, view, start)  # `export PIP_INDEX_URL=URL` in `~/.bashrc`
        transports_allowed_later(self.ledger, view, start)  # `export GIT_ALLOW_PROTOCOL=ext:…` there
        configured_code(self.ledger, view, place, start)
        powers = catalogue().power_files  # `echo o > /proc/sysrq-trigger`: every process ends
        for effect in [e for e in self.ledger.effects[start:] if e["op"] == "write" and e["path"] in powers]:
            self.ledger.add("signal", None, effect["program"], target="system", match="power")
        cgroup_signals(self.ledger, start)
        beyond.cgroup_members(self.ledger, view, start)
        if view.root:  # what it does, it does with other privileges
            beyond.given_back(self.ledger, view, start)
            beyond.distribution_packages(self.ledger, view, start)
            for effect in self.ledger.effects[start:]:
                # the redirections are opened by the shell that starts sudo, with the caller's rights
                # (https://www.gnu.org/software/bash/manual/bash.html#Redirections: done before the command runs)
                if id(effect) not in self._opened_by_shell:
                    effect["privileged"] = True
        return follow

    def _startup_files(self, start: int, view: CommandView, follow: Followups) -> None:
        """A write into a file a shell or session runs when it starts (`>> ~/.bashrc`, `/etc/profile.d/x.sh`): its
        commands run later, outside the hooks (deferred, and judged as a script when the line shows the text);
        a text of variable settings only (`export PATH=…`) runs nothing."""
        for effect in self.ledger.effects[start:]:
            if effect["op"] != "write" or left_empty(self.ledger, effect["path"]):
                continue  # tests of a write (_shadowed, _home_code: at once for another op); an empty one runs none
            path = effect["path"]
            written = self._written_text(effect, view) if path else None
            if path and (found := environment_set(path, written or "")):
                sets_kept(self.ledger, effect, found, view.name)  # a file that hands later sessions variables
            elif path and written is None and (when := unseen_environment(path, self.ledger.project)):
                self.ledger.add("exec", None, view.name, code={"lang": "text", "text": ""}, known=False,
                                deferred=True, startup=path, when=when)  # fmt: skip
            if path and is_tmpfiles_config(path):
                configured_later(self.ledger, path, written)
            if not path or not may_run_at_start(path, (self.ledger.home,)):  # neither a startup file nor a hijack
                _home_code(self.ledger, effect, view)
                continue
            lang = startup_language(path, self.ledger.home)
            shadowed = _shadowed(effect, self.ledger.effects[start:], self.ledger.home) if lang is None else None
            if shadowed:  # `cp x ~/.local/bin/git`: a program before the system's, run in every later shell
                self.ledger.add("exec", None, view.name, code={"lang": "text", "text": ""}, known=False,
                                deferred=True, startup=path, when=shadowed)  # fmt: skip
                return
            if lang is None:
                _home_code(self.ledger, effect, view)
                continue
            text = self._written_text(effect, view)
            if text is not None and quiet_setting(effect, path, text, lang, self.ledger.home):
                continue
            if text is None and lang == "sh" and _own_setup(view, path):
                continue  # `register-python-argcomplete pytest >> ~/.bashrc`: what `eval "$(…)"` of it would run
            # another program's file (`/etc/sudoers.d/x`, a `.pth`): what it runs or grants is not shell code
            self.ledger.add("exec", None, view.name, code={"lang": lang or "text", "text": text or ""},
                            known=text is not None, deferred=True, startup=path)  # fmt: skip
            if text and lang == "sh":
                follow.scripts.append(text)
            elif text:  # a unit's `ExecStart=`, a D-Bus service's `Exec=`: its command lines, judged as themselves
                follow.scripts.extend(file_commands(text))
            return

    def _written_text(self, effect: dict[str, Any], view: CommandView) -> str | None:
        """The text the write `effect` puts in its file, where the line shows it: what the shell wrote there, the
        text a link or copy placed, what echo, printf, tee or cat were given."""
        text = self.ledger.contents.get(effect["path"]) or placed_text(effect, self.ledger.effects)
        if text is None and view.name in ("echo", "printf", "tee", "cat") and view.stdin_text is not None:
            text = view.stdin_text
        if text is None and view.name in ("echo", "printf"):  # its words, `$` kept: judged as written
            text = " ".join(w for w in view.argv[1:] if w not in ("-n", "-e", "-E", "--"))
        return text

    def _built_program(self, view: CommandView) -> None:
        """`$(curl …)`, `eval "$(curl …)"`: what runs is what its substitution prints (`eval "$(pyenv init -)"`:
        the tool's own setup code, known); `/???/?m`: the first file the pattern matches, the others its words."""
        word, code = view.argv[0], {"lang": "sh", "text": ""}
        if _dynamic(word) and self.code.own_path and prints_own_code(word):
            self.ledger.add("exec", None, word, code=code, raw=word)
            return
        made: dict[str, Any] = {"flow": view.substituted, "through": "substitution"} if view.substituted else {}
        self.ledger.add("exec", None, word, known=False, code=code, built=True, raw=word, **made)

    def _command(self, view: CommandView, place: Place) -> Followups:
        self.ledger.next_command(view)
        self.ledger.printed, self.ledger.printing = self.ledger.printing, []
        trees, self.ledger.trees, start = self.ledger.trees, [], len(self.ledger.effects)
        follow = Followups()
        name, argv = view.name, view.argv
        if view.sudo and not beyond.changes_nothing(view):
            self.ledger.add("privilege", None, name or "sudo")
        for redirect in view.redirects:
            self._redirect(redirect, name, view)
        if not argv:  # assignments, or a function's call: what the pipe carries goes on to the commands it runs
            self.ledger.trees = trees
            return follow
        piped(self.ledger, view, follow)
        if view.env:
            self._loaded_by_environment(view, place, follow)
        if " " in argv[0] and is_command_line(argv[0]):  # `devbox run 'rm -rf ~'`: a launcher's shell line
            follow.scripts.append(" ".join([argv[0], shlex.join(argv[1:])]).strip())
            return follow
        if _dynamic(argv[0]) or _PROGRAM_GLOB.search(argv[0]):
            self._built_program(view)
            return follow
        if not beyond.filtered_environment(self.ledger, argv, view) and name in _ENVIRONMENT_PRINTERS:
            self._environment(name, argv, view.literal)
        if name in _NOTHING and system_program(argv[0]) == name:
            return follow  # its words are not files, and it runs nothing it is handed (`./echo` may be anything)
        program = catalogue().get(name)
        if name == "git":
            git = git_effects(argv, view.env, view.variables, place, self.ledger)
            self._prints_secret(program, argv, place)
            follow.scripts.extend(git.scripts)
            return follow
        if "/" in argv[0] and (program is None or name not in SHELLS):
            self.code.run_file(place(argv[0]), name, "sh", follow)
        if program is None:
            self._unknown(view, place, follow, (trees, start))
            fed_text(self.ledger, view, follow)
            unread(self.files, None, None, view, (place, start))
            return follow
        parsed = parse(argv, program.table)
        used_secret(self.ledger, program, argv, view)
        self._hooks(program, parsed, view, (place, follow))
        self._operands(program, parsed, argv, view, place, follow)
        compiled(self.ledger, program, parsed, view, place)
        sets_code(self.ledger, program, argv, place, follow)
        self._program_effects(program, parsed, argv, place, view, start)
        implicit_code(self.ledger, program, parsed, place, follow, argv)
        url_scripts(self.ledger, program, parsed, view.env)
        module_effects(self.ledger, program, parsed, place, follow)
        property_command(program, argv, follow)
        unread(self.files, program, parsed, view, (place, start))
        follow.origin = self._origin(program, parsed, name, view, start)
        self.ledger.trees, mine = trees, self.ledger.trees
        self._sent(program, parsed, name, view)
        self.ledger.trees = mine
        mine += _stdout_trees(self.ledger.effects[start:]) + carried_trees(
            trees, self.ledger.effects[start:], program, view
        )
        if mine:
            follow.origin = "tree"
        return follow

    def _hooks(self, program: Program, parsed: Parsed, view: CommandView, given: tuple[Place, Followups]) -> None:
        """What it runs that it is handed, or reads from a file as its code (`psql -f F`, `psql < F`); a network
        program's (`ncat -e /bin/sh host port`) is fed the connection."""
        place, follow = given
        handed_from = len(self.ledger.effects)
        self.code.hooks(program, parsed, view, follow)
        code_from_files(self.code, program, parsed, view, (place, follow))
        if runs_without_table(program) and view.name not in SHELLS and view.name not in WALKED_INLINE:
            untabled_code(self.ledger, view, follow)
        if program.network:
            for effect in self.ledger.effects[handed_from:]:
                if effect["op"] == "exec" and effect["code"].get("lang") == "sh":
                    effect.update(flow="fetch", through="stdin")

    def _unknown(self, view: CommandView, place: Place, follow: Followups, fed: tuple[list[Any], int]) -> None:
        """A program the catalogue does not know: a command line it is handed is unknown code (asked, and walked
        as a script), words it may run as a command are walked as one, operands that may be paths may be read; a
        credential its words say it prints is printed (revealed.py); tmpfiles.d lines it is named are applied;
        what it prints may be all a pipe fed it (`fed`: the trees, `tar c . | tr a-z n-za-m | nc h 9`)."""
        argv, name = view.argv, view.name
        self._prints_secret(None, argv, place)
        applied_configs(self.ledger, argv, place, view.stdin_text)
        if name not in WALKED_BY_THE_SHELL:
            handed_words(self.ledger, argv, name, follow)
            launched = launched_words(argv)
            if launched:  # `op run -- rm -rf ~`: the words it may run, walked as their own command
                follow.scripts.append(shlex.join(launched))
        self.files.guess(argv, name, place)
        self.ledger.trees += carried_trees(fed[0], self.ledger.effects[fed[1] :], None, view)
        follow.origin = "tree" if self.ledger.trees else follow.origin

    def _loaded_by_environment(self, view: CommandView, place: Place, follow: Followups) -> None:
        """Variables the program (or the loader, or the shell it is) reads as code or as a file of code
        (`LD_PRELOAD=x.so`, `BASH_ENV=f bash -c …`, `PROMPT_COMMAND=… bash -i`, `PS4='$(…)' bash -x`):
        the catalogue's `environment` table."""
        for variable, value in view.env.items():
            entry = catalogue().environment.get(variable)
            if entry is None or not value or (entry.programs and view.name not in entry.programs):
                continue
            if entry.loads == "options":  # `NODE_OPTIONS='--require x.js'`: each file they name is loaded
                for word in named_by_options(value, entry.options):
                    self.code.run_file(place(word), view.name, entry.lang, follow)
                for command in option_commands(value, entry.commands):  # `-XX:OnError=…`: the JVM runs it
                    self.ledger.add("exec", None, view.name, code={"lang": "sh", "text": command})
                    follow.scripts.append(command)
                continue
            if entry.loads == "file":
                for word in value.replace(":", " ").split() if entry.lang == "elf" else [value]:
                    if word.startswith(("<(", ">(")):
                        self.ledger.add(
                            "exec", None, view.name, code={"lang": entry.lang, "text": ""}, known=False,
                            flow=view.substituted or "substitution", through="substitution", variable=variable,
                        )  # fmt: skip
                    elif entry.lang == "elf" and _planted_library(self.ledger, place(word)):
                        # a library from scratch space the line did not make: anything may have put it there
                        self.ledger.add("exec", place(word), view.name, code={"lang": "elf", "text": ""}, known=False,
                                        planted=True, variable=variable)  # fmt: skip
                    else:  # `BASH_ENV=f bash -c …`: the shell sources f first
                        self.code.run_file(place(word), view.name, entry.lang, follow, sourced=True)
            elif entry.loads == "code" and entry.lang != "sh":  # `PERL5DB='system(…)'`: perl code, read as such
                self.code.run_code(view.name, value, entry.lang, follow)
            else:  # shell code, a prompt the shell expands (its substitutions run), a function bash imports
                text = shell_text(entry.loads, variable, value)
                known = not _dynamic(text.split(" ", 1)[0])
                self.ledger.add("exec", None, view.name, code={"lang": "sh", "text": text}, known=known)
                follow.scripts.append(text)

    def _program_effects(
        self, program: Program, parsed: Parsed, argv: list[str], place: Place, view: CommandView, start: int
    ) -> None:
        """What it does whatever its operands: privileges, signals, power, jobs scheduled, secrets printed, builds;
        what its writes leave of the files they replace (the command's effects from `start`)."""
        piped = view.stdin not in ("", "none") and view.stdin_text is None
        names_from_pipe(self.ledger.printed, program, parsed, piped)
        if program.privilege or privileged(program, argv):
            self.ledger.add("privilege", None, program.name)
        if program.grants:
            grants(self.ledger, program, parsed, place)
        signals(self.ledger, program, parsed, view)
        for pid in parsed.operands if program.reads_memory else ():  # as a read of /proc/PID/mem takes it
            self.ledger.add("read", place(f"/proc/{pid}/mem"), program.name)
        traced_memory(self.ledger, program, parsed, place)
        files_written(self.ledger, program, parsed, view, place)
        installs = any(
            parsed.operands[: len(w)] == list(w) and parsed.operands[len(w) :] for w in program.installs_code
        )
        if installs or scheduled_later(program, parsed, view, self.ledger.home, place):
            # what runs later is outside this session's hooks (`at`, `gh extension install X`): asked, known or not
            self.ledger.add("exec", None, program.name, code={"lang": "sh", "text": ""}, known=False, deferred=True)
        network_sends(self.ledger, program, parsed)
        batch_puts(self.ledger, program, view, place)
        if program.host_copy and parsed.operands[:1] == [program.host_copy]:
            self._host_copy(parsed.operands[1:], program.name, place)
        if program.builds:  # `pip install DIR`: the package's own code runs
            self.code.package_dirs(program, parsed, place)
        self._prints_secret(program, argv, place)
        for word in decrypted(program, parsed) if program.decrypts else ():
            self.ledger.printing.append(self.ledger.add("read", place(word), program.name, secret_output=True))
        if program.clear_outputs and prints_sensitive_output(program, parsed):
            self.ledger.printing.append(self.ledger.add("read", None, program.name, secret_output=True))
        named_changes(self.ledger, program, parsed, view, place)
        if program.rest_api:
            rest_deletes(self.ledger, program, parsed)
        if program.hosted:
            hosted_store_deletes(self.ledger, program, parsed, view, place)
        retention_prunes(self.ledger, program, parsed, view)  # (none without the program's `retention`)
        served(self.ledger, program, parsed, place)  # (none without the program's `serves`)
        worktree_sweeps(self.ledger, program, parsed, place)
        filled_from_devices(self.ledger, view, start, program.operands == "write" and not parsed.options)

    def _prints_secret(self, program: Program | None, argv: list[str], place: Place) -> None:
        """`gh auth token`, `git credential fill`: its output is a credential, read from the store it names; one
        its words say it prints (`--show-secrets`, `fly auth token`: revealed.py), from a store no table names."""
        if reveals_credential(program, argv):
            name = program.name if program else argv[0].rsplit("/", 1)[-1]
            self.ledger.printing.append(self.ledger.add("read", None, name, secret_output=True))
        if program is None:
            return
        for words, store, unless in program.prints_secret:
            if _has_words(argv, words) and not (unless and _option_value_in(argv, unless)):
                path = program.in_workdir(argv, store.replace("~", self.ledger.home, 1))
                placed = place(path) if store else None
                self.ledger.printing.append(self.ledger.add("read", placed, program.name, secret_output=True))

    def _host_copy(self, operands: list[str], name: str, place: Place) -> None:
        """`docker cp SRC… DEST`, `kubectl cp`: a host path (one not written `CONTAINER:PATH`) is read as a
        source and written, with what lands below it, as the destination."""
        if len(operands) < 2:
            return
        for k, word in enumerate(operands):
            if (":" in word and not word.startswith(("/", "./", "../", "~"))) or word == "-":
                continue  # a container's path, or stdin/stdout as a tar stream
            if k < len(operands) - 1:
                self.ledger.add("read", place(word), name, recursive=True)
            else:
                self.ledger.add("write", place(word), name, recursive=True)

    def _environment(self, name: str, argv: list[str], literal: frozenset[str]) -> None:
        variables = printed_environment(name, argv, literal)
        if variables is not None:  # asked (`guess`): debugging prints it too; the whole of it goes down a pipe
            effect = self.ledger.add("read", dict(beyond.ENVIRON), name, guess=True, variables=variables)
            self.ledger.printing += [effect] * (not variables)

    def _origin(self, program: Program, parsed: Parsed, name: str, view: CommandView, start: int) -> str:
        if program.operands in ("fetch", "fetch-first") or program.network:
            writes = any(program.option_ops.get(o) == "write-fetched" and v != "-" for o, v in parsed.options)
            return "unknown" if writes else "fetch"
        if yields_filler(self.ledger, view, start):  # (decoded or not, random bytes are no one's code or file)
            return "filler"
        if name in _DECODERS:
            return "decode"
        if view.stdin in ("fetch", "decode"):  # a filter of a download is the download still (`| tee x | sh`)
            return view.stdin
        return "unknown"

    def _redirect(self, redirect: Mapping[str, Any], name: str, view: CommandView) -> None:
        op = str(redirect.get("op") or "")
        if str(redirect.get("target") or "").startswith(("<(", ">(")):
            # a pipe from (or to) commands that are judged themselves; code, when a shell reads it as its script
            if op == "<" and reads_script_from_stdin(view.argv):
                self.code.stdin_code(name, view.substituted or "unknown")
            return
        if redirect.get("path") is None:
            return
        placed = {"raw": redirect.get("target"), "path": redirect.get("path"), "in_project": redirect.get("in_project")}
        if socket_redirect(self.ledger, placed, name or "shell"):  # a connection, no file: nothing written or read
            return
        before = len(self.ledger.effects)
        if ">" in op:
            effect = self.ledger.add("write", placed, name or "shell")
            if ">>" not in op and prints_nothing(view):  # `: > f`, `true > f`, `> f`: f's content is lost
                self.ledger.add("delete", placed, name or "shell", emptied=True)
            if (writer := catalogue().get(name)) and writer.output:
                effect["text_of"] = writer.output  # `ssh-keyscan HOST >> ~/.ssh/known_hosts`: what it prints
            if str(placed["path"]).startswith("/dev/") and effect["known"]:
                self.ledger.add("device", placed, name or "shell")
            self._produce(effect, view, name)
        if "<" in op and op not in ("<<", "<<-", "<<<"):
            self.ledger.add("read", placed, name or "shell")
        if view.sudo:  # `sudo cmd > f`: the caller's shell opens f; in `sudo sh -c 'cmd > f'` root's shell does
            self._opened_by_shell.update(id(e) for e in self.ledger.effects[before:])

    def _produce(self, effect: Mapping[str, Any], view: CommandView, name: str) -> None:
        path = str(effect.get("path") or "")
        if not path:
            return
        if (name in ("echo", "printf") and view.stdin_text is not None) or (
            name in ("cat", "tee") and view.stdin in ("text",) and view.stdin_text is not None
        ):
            self.ledger.produce(path, "write")
            self.ledger.contents[path] = view.stdin_text
        else:
            kind = view.stdin if view.stdin in ("fetch", "decode") else "write"
            catalogued = catalogue().get(name)
            if catalogued is not None and (catalogued.operands == "fetch" or catalogued.network):
                kind = "fetch"
            elif name in _DECODERS:
                kind = "decode"
            self.ledger.produce(path, kind)
            self.ledger.contents.pop(path, None)

    # ----------------------------------------------------------------------------------------------
    # What a program does with its operands

    def _operands(
        self, program: Program, parsed: Parsed, argv: list[str], view: CommandView, place: Place, follow: Followups
    ) -> None:
        name = program.name if program.name in SHELLS else view.name
        if program.launcher is not None:
            option_execs(self.files, program, parsed, name, view, place)
            return  # what it launches is walked as its own command
        if program.script_operand:
            self.code.script(program, stdin_files.after_verb(program, parsed), view, place, follow)
            if any(o == "-m" for o, _ in parsed.options):
                if (module := _module_argv(argv)) and module[0] in program.modules:  # `-m pip uninstall x`: pip's
                    follow.scripts.append(shlex.join(_module_command(program.modules[module[0]], module, argv[0])))
                else:  # `python3 -m a_module .env`: what a module no table has does with its operands is not known
                    self.files.guess([name, *parsed.operands], name, place)
            writes = program.writes_operands_in_place(parsed.options)
            if writes or any(o in program.reads_in_loop for o, _ in parsed.options):
                by_option = any(h.kind == "option" and h.option == o for h in program.runs for o, _ in parsed.options)
                for word in parsed.operands[0 if by_option else 1 :]:  # `perl -pi -e CODE FILES`, `perl -ne …`
                    self.ledger.add("write" if writes else "read", place(word), name)
            return
        if program.find:
            self.files.find(argv, place, name, view, program.option_ops)
            return
        self.files.files(program, parsed, argv, name, view, place)


def _may_change_tree(view: CommandView, done: list[dict[str, Any]], follow: Followups) -> bool:
    """A command after which a repository's work tree or index may be other than the disk shows before it: any
    but a builtin that returns at once (`_AT_ONCE`), given no file to open and no wrapper. One that writes or runs
    more code may change files; any other may block or wait (`sleep 900; git reset --hard`, `read x`, `cat fifo`,
    `flock l true`): the discard runs when the person may have edited the files since."""
    if follow.scripts or follow.code or done or view.peeled:  # (a FIFO blocks whoever opens it: `: < fifo`)
        return True
    return bool(view.argv) and not (view.name in _AT_ONCE and system_program(view.argv[0]) == view.name)  # `./echo`


# bash(1) "SHELL BUILTIN COMMANDS" that neither read input nor wait on anything (not `read`, `wait`, `sleep`)
_AT_ONCE = frozenset(
    {":", "true", "false", "echo", "printf", "test", "[", "[[", "pwd", "cd", "pushd", "popd", "export", "unset",
     "local", "declare", "typeset", "readonly", "set", "shift", "let", "shopt", "umask", "alias", "unalias", "type",
     "hash", "getopts"}
)  # fmt: skip


def _planted_library(ledger: Ledger, placed: Mapping[str, Any]) -> bool:
    """A library in scratch space (`/tmp`, `/var/tmp`, `/dev/shm`, outside the project) that the line did not
    write: anything may have put it there."""
    path = str(placed.get("path") or "")
    kind = ledger.classify(placed, path) if path else ""
    if kind != "scratch" and (kind in ("", "project", "project-root") or not _planted(path)):
        return False
    return not any(e["op"] == "write" and e["path"] == path for e in ledger.effects)  # not built on the line


def _home_code(ledger: Ledger, effect: dict[str, Any], view: CommandView) -> None:
    """Code written into a home's dot-directory for some program to load later (`> ~/.ipython/…/startup/x.py`,
    `cp x.lua ~/.config/nvim/plugin/`): deferred, outside the hooks."""
    path = str(effect["path"] or "")
    if effect["op"] != "write" or not path.startswith(ledger.home + "/."):
        return
    text = ledger.contents.get(path)
    if text is None and view.name in ("echo", "printf", "tee", "cat") and view.stdin_text is not None:
        text = view.stdin_text
    lang = home_code_lang(path, ledger.home, ledger.project, text)
    for other in ledger.effects if lang is None and effect.get("target_of") else []:
        if other["op"] in ("copy", "move") and other["to"] == path and other["path"]:  # `cp x.js ~/.app/dir/`
            named = path + "/" + str(other["path"]).rpartition("/")[2]
            lang = lang or home_code_lang(named, ledger.home, ledger.project, None)
    if lang is not None and not (text is not None and code_runs_nothing(lang, text)):
        ledger.add("exec", None, view.name, code={"lang": lang, "text": text or ""}, known=text is not None,
                        deferred=True, startup=path, when=HOME_CODE_WHEN)  # fmt: skip


def _module_command(program: str, module: list[str], interpreter: str) -> list[str]:
    """The command a module run stands for: `ENV/bin/python -m pip install X` is pip run by that interpreter
    (`pip --python ENV/bin/python install X`, pip 22.3's option), whose environment it changes."""
    if program == "pip" and "/" in interpreter:
        return [program, "--python", interpreter, *module[1:]]
    return [program, *module[1:]]


def _shadowed(effect: Mapping[str, Any], line: list[dict[str, Any]], home: str) -> str | None:
    """A write that puts a program before the system's under a system program's name (words.shadows), with the
    names a copy, move or link into a searched directory puts there, from its sources among `line`."""
    if effect["op"] != "write" or not effect["path"]:
        return None
    path = str(effect["path"])
    sources = [e for e in line if e.get("to") == path and e["op"] in ("copy", "move", "link")]
    sources += [e for e in line if e.get("member") and str(e["path"]).rpartition("/")[0] == path]  # `tar -C D lab`
    # a directory copied in (or a tree with no source: a mount) puts names unseen; a file keeps its own
    landing = [None if e.get("recursive") and e["op"] == "copy" else str(e["path"]).rsplit("/", 1)[-1] for e in sources]
    return shadows(path, home, landing or [None] * bool(effect.get("recursive")))
