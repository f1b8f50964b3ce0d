"""Build the `input.shell` command objects from the tree: wrappers peeled, words placed as paths against
the directory the command runs in (followed through `cd`), inline scripts parsed recursively. The shell state
the line builds up (variables, arrays, links, `mktemp` paths, `cd`) and placing words by it: `state.LineState`."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from functools import partial
from typing import Any

from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.code_files import files_printed
from hookd.enrich.effects.ledger import selected
from hookd.enrich.effects.listings import loop_listing
from hookd.enrich.effects.processes import piped_words
from hookd.enrich.patches import PATCH_PROGRAMS, as_commands, redirected_text, shell_patch
from hookd.enrich.paths import expand_tilde, has_glob
from hookd.enrich.shell import choices, traps
from hookd.enrich.shell import state as shell_state
from hookd.enrich.shell.builder_state import BuilderState
from hookd.enrich.shell.evaluated import evaluated_values, evaluated_words
from hookd.enrich.shell.expand import expand_words, expanded_text
from hookd.enrich.shell.fallback import _fallback, _reads_duplicate
from hookd.enrich.shell.inline import inline_code, python_effects
from hookd.enrich.shell.line_builtins import _COPROC_DESCRIPTORS
from hookd.enrich.shell.outputs import cd_words, quoted_words, unmarked
from hookd.enrich.shell.parser import _parse_script
from hookd.enrich.shell.runners import operands, output, runs_stdin, script_of, setting, spawned
from hookd.enrich.shell.searches import fed_searches, listed_words, loop_selects, search_word, searched_operands
from hookd.enrich.shell.state import _Cwd
from hookd.enrich.shell.stdin import (
    descriptor_script,
    duplicated,
    held,
    heredoc_text,
    listed_into,
    printed_text,
    reads_code,
    set_at_run_time,
    socket_text,
    substituted_script,
)
from hookd.enrich.shell.tree import (
    _Block,
    _Item,
    _Pipe,
    _Simple,
    _TooDeep,
    gathers,
    one_command,
    opened,
    pipes_into_itself,
    with_assigns,
)
from hookd.enrich.shell.views import launched_in
from hookd.enrich.shell.words import LITERAL_MARK, _dynamic
from hookd.enrich.shell.wrappers import (
    _INLINE,
    _SHELLS,
    CHDIR,
    _basename,
    _inline_script,
    _peel,
    raises_privilege,
    xargs_run,
)


class _Builder(BuilderState):
    def run_script(self, script: str, depth: int, cwd: _Cwd, sudo: bool) -> None:
        home = self.home
        if "HOME" in self.state.variables or _NAMES_HOME.search(script):
            home = "$HOME"  # the line may set HOME: `~` and $HOME are read as it (`HOME=~/.ssh; cat ~/id_rsa`)
            self.state.variables.setdefault("HOME", self.home)
        try:
            block, error = _parse_script(script, home)
        except _TooDeep:
            block, error = _fallback(script, home), "substitutions nested too deeply to parse"
        if error is not None:
            self.fail(error if depth == 0 else f"depth {depth}: {error}")
        self.walk(block, depth, cwd, None, [], sudo)
        if depth == 0:
            for name, body in list(self._functions.items()):
                if name not in self._called:  # never called on the line: judged as if run, arguments unknown
                    self._called.add(name)
                    self._call(body, None, depth, cwd, sudo, (None, "none"))
            for value, at, where, privileged in list(self._unused_aliases.values()):  # never used: as if run
                self._nested(value, at, where, privileged)
            self._unused_aliases.clear()

    def _call(
        self,
        body: _Block,
        args: list[str] | None,
        depth: int,
        cwd: _Cwd,
        sudo: bool,
        feed: tuple[str | None, str],
        redirects: list[dict[str, Any]] | None = None,
    ) -> str:
        """A function's body, run with its arguments as the positional parameters (`$1`, `$@`); a body of one command
        reads what the call reads (`feed`: its stdin's text and origin) and prints what it prints, into the call's
        redirections (`f 'k=v' >> .npmrc`, `f(){ printf "$@"; }`); its standard output is the call's."""
        single = one_command(_Block(body.items, subshell=False, redirects=body.redirects))
        inherited = list(redirects or [])
        with self.state.call_frame(args):
            if single is not None:
                return self._simple(single, depth, cwd, None, inherited, sudo, feed[0], (), feed[1])
            block = _Block(body.items, subshell=False, redirects=body.redirects)
            self.walk(block, depth, cwd, None, inherited, sudo)
            self._printed = None
            return "unknown"

    def walk(
        self,
        item: _Item,
        depth: int,
        cwd: _Cwd,
        slot: tuple[int, int] | None,
        inherited: list[dict[str, Any]],
        sudo: bool,
    ) -> str:
        """Walks one item; returns what its standard output is (the last command's, EffectModel's `origin`)."""
        origin = "unknown"
        if isinstance(item, _Simple):
            origin = self._simple(item, depth, cwd, slot, inherited, sudo)
        elif isinstance(item, _Pipe):
            number = self._next_pipeline()
            self.state.scope()  # each command of a pipeline runs in a subshell ("Pipelines")
            piped: tuple[str | None, str] = (None, "none")  # what the next part reads, and its origin
            fed: list[str] = []
            self._search_fed = None

            def part(position: int, element: _Item, here: _Cwd) -> None:
                nonlocal piped
                stdin, origin = piped
                self._printed = None
                single = one_command(element)  # `(exec X)`, `{ X; }`: X reads the pipe and writes to it
                if single is not None:
                    self._fed = tuple(fed)
                    origin = self._simple(single, depth, here, (number, position), inherited, sudo, stdin, (), origin)
                else:
                    self._block_fed = tuple(fed)  # `pgrep x | while read p; do kill "$p"; done`
                    self._block_search = self._search_fed  # `find . | while read f`: what it selects
                    where, piped_in = (here, (number, position)), (stdin, origin, tuple(fed))
                    gathered, origin = self._gathered(element, depth, where, inherited, sudo, piped_in)
                    self._block_fed, self._block_search = (), None
                stdin, self._search_fed = (self._printed if single is not None else gathered), None
                if single is not None or self._reader:
                    words = expand_words(single.words, self.state.variables, self.home) if single else self._reader
                    assigns = {k: unmarked(v) for k, v in single.assigns} if single else {}
                    fed[:] = piped_words(fed, program := _peel(words, assigns)[0])  # past `env -i …`
                    self._search_fed = search_word(program)  # `find . -name .env | xargs cat`
                piped = (stdin, "text" if stdin is not None else origin)

            for position, element in enumerate(item.elements[:-1]):
                part(position, element, cwd.copy())
            self.state.restore()
            # the last part runs in this shell under `shopt -s lastpipe`: what it sets is not known after it
            last = len(item.elements) - 1
            choices.uncertain(self.state, lambda: part(last, item.elements[last], cwd), cwd, False)
            origin = piped[1]
        else:
            origin = self._block(item, depth, cwd, slot, inherited, sudo)
        return origin

    def _block(
        self,
        item: _Block,
        depth: int,
        cwd: _Cwd,
        slot: tuple[int, int] | None,
        inherited: list[dict[str, Any]],
        sudo: bool,
    ) -> str:
        origin = "unknown"
        if item.forks or (item.function is not None and pipes_into_itself(item, item.function)):  # without bound
            self.model.ledger.add("fork", None, item.function or "while", known=True)
        if item.function is not None and item.function not in self._functions:
            self._functions[item.function] = item  # run where it is called, or at the end if never
            return origin
        if item.subst:
            depth, slot, inherited, cwd = depth + 1, None, [], cwd.copy()
        elif item.subshell:
            cwd = cwd.copy()
        if item.redirects:
            inherited = [*(self.state.redirect(r, cwd) for r in item.redirects), *inherited]
        binds = item.binds or shell_state.lines_read(self.state, item, cwd, self.model.ledger.contents)  # `< list`
        words = expand_words(list(binds[1]), self.state.variables, self.home) if binds is not None else []
        scoped = item.subst or item.subshell  # what it sets stays inside
        self.state.scope(scoped)
        outputs = [origin]

        listed: list[Any] = []
        if binds is item.binds and binds and listed_words(binds[1]) and loop_listing(self.model.ledger.listed):
            selects = loop_selects(self.state, binds[1][0], cwd, self.home)  # `for f in $(git ls-files …)`
            listed = loop_listing(self.model.ledger.listed, selects)

        piped = list(self.model.ledger.listed)

        def body() -> None:
            walks: Iterable[None] = (None,)
            self.model.ledger.listed = list(piped)  # each pass reads what the pipe lists (`ls | while read f`)
            if listed and binds:  # `for f in $(git ls-files …)`: each a name it listed, as `… | while read f`
                self.model.ledger.read_listing = list(listed)
                self.state.variables.update(listed_into([binds[0]]))
            elif binds is not None:  # `for d in a b; do …`, `while read d`: the body runs with d as each (loop_walks)
                walks = shell_state.loop_walks(self.state, binds[0], words, cwd)
            for _walk in walks:
                for inner in item.items[1:] if binds is not item.binds else item.items:  # (the `read` done above)
                    outputs.append(self.walk(inner, depth, cwd, slot, inherited, sudo))

        # a `for` over words whose number is not known (`$(…)`, a glob, `"$@"`: none, or many) repeats as `while` does
        looped = item.binds is not None and binds is item.binds
        counted = not looped or (bool(words) and not any(_dynamic(w) or has_glob(w) for w in words))
        if (runs := choices.known_run(item, self._functions, self._aliases, self.state)) is False:  # `true || X`
            choices.unrun(self.state, body, cwd)  # (judged, sets nothing)
        elif (item.maybe and runs is None) or item.repeats or not counted:
            first = next((i for i in item.items if not (isinstance(i, _Block) and i.subst)), None)  # (`< <(…)`'s)
            condition = first.words if isinstance(first, _Simple) else []
            getopts = condition[:1] == ["getopts"]  # `while getopts …`
            read = set_at_run_time("read", condition) if condition[:1] == ["read"] else []  # `… | while read f`:
            own = (*((binds[0],) if binds else ()), *(("OPTIND",) if getopts else ()), *read)  # set on each pass
            choices.uncertain(self.state, body, cwd, item.repeats or not counted, own)
        else:
            body()
        self.state.restore(scoped)
        return outputs[-1]

    def _gathered(
        self,
        element: _Item,
        depth: int,
        where: tuple[_Cwd, tuple[int, int]],
        inherited: list[dict[str, Any]],
        sudo: bool,
        piped_in: tuple[str | None, str, tuple[str, ...]],
    ) -> tuple[str | None, str]:
        """Walks a pipeline's element that is not one command: what it prints, and what its output is (`origin`).
        A group or subshell of commands reads the pipe in its first command that is no builtin that only sets
        (`… | (cd d && xargs rm)`, `… | { set -- -s; curl "$@"; }`), and prints the texts of its commands in turn
        when each prints known text or nothing (`(echo a; echo b) | sh`); with nothing else printing in it, its
        output is its reader's. Unknown for anything else (a loop runs its body any number of times)."""
        cwd, slot = where
        self._reader, ledger = [], self.model.ledger
        carried = (ledger.listed, ledger.printing, ledger.trees)
        items = (
            opened(element.items) if isinstance(element, _Block) and gathers(element) and not element.repeats else None
        )
        expand = partial(expand_words, variables=self.state.variables, home=self.home)
        reader = next((k for k, i in enumerate(items) if not setting(i, expand)), None) if items is not None else None
        outer, self._gathering = self._gathering, ((depth, []) if items is not None else None)
        origin = "unknown"
        try:
            for k, item in enumerate(items if reader is not None and items is not None else [element]):
                if k == reader:  # what the pipe carries, past `set -- …` and `cd d` (`… | (cd d; while read f …)`)
                    ledger.listed, ledger.printing, ledger.trees = carried
                if k != reader or not isinstance(item, _Simple):
                    self.walk(item, depth, cwd, slot, inherited, sudo)
                    continue
                self._fed = piped_in[2]
                origin = self._simple(item, depth, cwd, slot, inherited, sudo, piped_in[0], (), piped_in[1])
                self._reader = expand_words(item.words, self.state.variables, self.home)  # (`set --` is in force)
            texts = self._gathering[1] if self._gathering is not None else [None]
        finally:
            self._gathering = outer
        if reader is None or sum(t != "" for t in texts) > 1:
            origin = "unknown"
        return (None if None in texts else "".join(t or "" for t in texts)), origin

    def _next_pipeline(self) -> int:
        self._pipelines += 1
        return self._pipelines - 1

    def _simple(
        self,
        simple: _Simple,
        depth: int,
        cwd: _Cwd,
        slot: tuple[int, int] | None,
        inherited: list[dict[str, Any]],
        sudo: bool,
        stdin: str | None = None,
        runners: tuple[str, ...] = (),
        origin: str = "none",
    ) -> str:
        """Walks one command; returns what its standard output is (EffectModel's `origin`). A command naming a
        variable that holds one of a few known values (`$out` after an `if` set it) is walked once per value."""
        walk = partial(self._command, simple, depth, cwd, slot, inherited, sudo, stdin, runners, origin)
        if not (combos := choices.combinations(self.state, simple)):
            return walk()
        fed = self._fed

        def again() -> str:
            self._fed = fed  # (what the pipe hands it, each time)
            return walk()

        return choices.each_value(self.state, combos, cwd, again)

    def _command(
        self,
        simple: _Simple,
        depth: int,
        cwd: _Cwd,
        slot: tuple[int, int] | None,
        inherited: list[dict[str, Any]],
        sudo: bool,
        stdin: str | None,
        runners: tuple[str, ...],
        origin: str,
    ) -> str:
        slot = slot or (self._next_pipeline(), 0)
        fed, self._fed = self._fed, ()  # (the substitutions walked below have their own)
        env = {key: unmarked(value) for key, value in simple.assigns}
        variables: dict[str, str] = self.state.variables
        simple = self._held_texts(simple)  # `"$c"` of `c='…$x…'`: its text
        joined = " ".join(simple.words)
        if "PWD" in joined:  # `$PWD`, `~+`: where the command runs; `$OLDPWD`, `~-`: before the line's last `cd`
            variables = {**variables, **shell_state.directories(self.state, cwd)}
        words = expand_words(simple.words, variables, self.home)
        if self.state.walk.past(len(words) + len(simple.redirects)):  # the rest is not known: the rules ask
            return "unknown"
        if not words:
            assigns = [(key, self._value(value, variables, cwd)) for key, value in simple.assigns]
            self.state.assign(assigns, cwd)
            self._assigned.update((key, unmarked(value)) for key, value in assigns)
        self._evaluated(simple.assigns, words, depth, cwd, sudo)
        # an element set is a word to bashlex, an assignment to tree-sitter (sitter's `element`)
        bindings = [f"{k}={unmarked(v)}" for k, v in simple.assigns] if not words else words[:1] * (len(words) == 1)
        for rebound in filter(None, map(_REBOUND.match, bindings)):
            table, alias, value = rebound.groups()
            self._aliases[alias] = value if table == "BASH_ALIASES" else shlex.quote(value)
        if words and words[0] in self._aliases and not runners:
            words = self._unaliased(words, depth, cwd, sudo)
        for name in _PROMPT_EXPANDED.findall(expanded_text(simple.words)) if "@P}" in joined else ():
            self._prompt(name, depth, cwd, sudo)
        argv, wrappers = _peel(list(words), env)
        redirects = [self.state.redirect(r, cwd) for r in simple.redirects]  # opened where the shell is, not DIR:
        if CHDIR in env:  # `env -C DIR cmd`: as `(cd DIR && cmd)`
            cwd = cwd.copy()
            self.state.chdir("cd", ["cd", env.pop(CHDIR)], cwd, env)
        if "xargs" in wrappers:
            argv, wrappers = xargs_run(  # its items: the pipe's, or `-a FILE`'s, and the search that feeds it
                words,
                argv,
                wrappers,
                env,
                (self._xargs_items(words, redirects, cwd, stdin), fed_searches(self._search_fed)),
            )
            stdin = None  # xargs read the pipe; what it runs reads /dev/null (xargs(1))
        found = searched_operands(argv, self.home)
        self._searched.update(found)
        wrappers = [*runners, *wrappers]
        name = _basename(argv[0]) if argv else ""
        printed_script = self._script_printed(name, argv, variables) if stdin is None else None
        if printed_script is not None:  # `bash <(printf '%s\n' …)`: the script is the text the pipe carries
            argv, stdin, origin = [argv[0], "/dev/stdin", *argv[2:]], printed_script, "text"
        privileged = sudo or any(raises_privilege(w) for w in wrappers)
        if inherited:
            redirects.extend(dict(r) for r in inherited)
        with launched_in(self.state, words, argv, wrappers, cwd.path) as view:
            command = {
                "argv": argv,
                "name": name,
                "env": env,
                "sudo": privileged,
                "wrappers": wrappers,
                "pipeline": slot[0],
                "position": slot[1],
                "depth": depth,
                "redirects": redirects,
                "args": self.state.args(operands(argv), cwd),
                "cwd": cwd.path if cwd.known else "",  # after `cd`, `env -C`, `sudo -D` (analysis keeps another one)
                **({"view": view} if view else {}),  # (a launcher's binds: its paths the host's, as a container's)
            }
            self.commands.append(command)
            made = {self.walk(sub, depth, cwd, None, [], sudo) for sub in simple.subs} if simple.subs else set()
            substituted = next((kind for kind in ("fetch", "decode") if kind in made), "") if made else ""
            self._fed = fed
            start = len(self.model.effects)
            out = self._after(command, simple, words, env, depth, cwd, (sudo, privileged), stdin, (origin, substituted))
        if found:  # `rm -r $(find d -name x)`: a change of what the search selects, as `find d -name x -exec rm`
            selected(self.model.effects, start, set(found.values()))
        self._traps_again()
        return out

    def _after(
        self,
        command: dict[str, Any],
        simple: _Simple,
        words: list[str],
        env: dict[str, str],
        depth: int,
        cwd: _Cwd,
        privileges: tuple[bool, bool],
        stdin: str | None,
        origins: tuple[str, str],
    ) -> str:
        """A command's effects, what it runs, the shell state it changes; `origins`: its stdin's, its substitutions'."""
        privileged = privileges[1]
        origin, substituted = origins
        fed = self._fed  # (a function's body of one command is fed what its call is)
        name, argv, wrappers = command["name"], command["argv"], command["wrappers"]
        own = words[1:] if words[:1] in (["builtin"], ["command"]) else words  # `builtin exec`, $'\x65xec'
        if own[:1] == ["exec"] and all(_FD_NAME.match(w) for w in own[1:]):
            self._held.extend(held(simple.redirects))  # `exec 3<<<'…'`: it waits on a descriptor for a later `<&3`
            self.state.assign([(w[1:-1], _COPROC_DESCRIPTORS[0]) for w in own[1:]])  # `>&$fd`: that descriptor
        heredoc = (written := heredoc_text(simple.redirects)) or duplicated(simple.redirects, self._held)
        if own[:1] != ["exec"] and heredoc is None:  # (`exec 5<>/dev/tcp/…` holds it for a later `<&5`)
            heredoc = socket_text(simple.redirects, duplex=reads_code(name, argv) and _reads_duplicate(simple))
        stdin = heredoc or stdin
        if heredoc is not None:
            origin = "text"
        marked = quoted_words(simple.words)
        literal = self._literal = marked | self._frame_literal  # (`f(){ printf "$@"; }; f 'a $b'`: "$@" is the text)
        echoed = printed_text(name, argv, self._literal, stdin)  # also `nohup printf …`
        piped = None if echoed is not None else files_printed(argv, lambda w: self._path(w, cwd), self.model.ledger)
        peeled = tuple(words[: len(words) - len(argv)]) if wrappers and len(words) > len(argv) else ()
        follow = self._effects(command, env, cwd, privileges, stdin, (origin, substituted), (echoed, peeled))
        for script in follow.scripts:
            self._nested(script, depth, cwd.copy(), privileged)
        self._inner(command, depth, cwd, privileged, (stdin, literal))
        if follow.code is not None and "inline" not in command:  # (a written script run: Python's walked too)
            command["inline"] = self._code(follow.code, depth, cwd, privileged)
        if stdin is None and origin not in ("none", "text") and reads_code(name, argv):
            self.model.stdin_code(name, origin)
        if (linker := catalogue().get(name)) is not None and (linker.operands == "link" or linker.link_options):
            self.state.link(argv, cwd, linker.link_options)
        if name in ("cd", "pushd", "popd"):  # a target a substitution prints, put as it (`cd "$(pwd)/src"`)
            meanings = (self._functions, self._aliases, env, self.state.variables)
            self.state.chdir(name, cd_words(argv, cwd, meanings), cwd, env)
        out = echoed if echoed is not None else piped  # (`$(cat f)` stays unknown: only a pipe reads the text)
        if name in self._functions and name not in wrappers and depth < self.max_depth:
            self._called.add(name)
            body = with_assigns(self._functions[name], simple.assigns)  # `X=v f`: X is in f's commands' env
            here = cwd.copy() if body.subshell else cwd  # `f() { cd d; }` runs in the caller's shell
            self._fed = fed
            outer, self._frame_literal = self._frame_literal, self._literal & frozenset(argv[1:])
            with self.state.command_frame(None, True, self._given(command), cwd):  # `X=v f`: $X is v in f
                follow.origin = self._call(
                    body, argv[1:], depth + 1, here, privileged, (stdin, origin), command["redirects"]
                )
            out, self._frame_literal = self._printed, outer
        default_ifs = "IFS" not in env and "IFS" not in self.state.variables  # `read` splits the line at $IFS
        given = written if default_ifs else None  # a here-string or here-document only (read once, above)
        self._shell_state(name, argv, depth, cwd, privileged, given)
        self._printed = out
        if self._gathering is not None and self._gathering[0] == depth:
            cdpath = "CDPATH" in env or "CDPATH" in self.state.variables  # `cd d` prints where it went
            self._gathering[1].append(output(argv, echoed, cdpath) if name not in self._functions else None)
        return follow.origin

    def _path(self, word: str, cwd: _Cwd) -> str:
        return str(self.state.place(word, cwd).get("path") or "")

    def _unaliased(self, words: list[str], depth: int, cwd: _Cwd, sudo: bool) -> list[str]:
        """The words of a command whose first word is an alias (or a `hash -p` name) the line defined: a value
        of plain words takes its place (`rm -rf ~/Documents`); one with shell syntax runs as written with the
        words after it, walked as its own script, as does one that begins with assignments (`alias k='X=1 kilo'`:
        they are the environment of the command the alias names)."""
        value = self._aliases[words[0]]
        self._unused_aliases.pop(words[0], None)
        try:
            replaced = shlex.split(value)
        except ValueError:
            replaced = []
        if replaced and not _SHELL_SYNTAX.search(value) and not _ASSIGNMENT.match(replaced[0]):
            home = [self.home + w[1:] if w == "~" or w.startswith("~/") else w for w in replaced]
            return [*home, *words[1:]]
        if depth < self.max_depth:
            self._nested(value + " " + shlex.join(words[1:]), depth, cwd.copy(), sudo)
        return words

    def _script_printed(self, name: str, argv: list[str], variables: dict[str, str]) -> str | None:
        """The script a shell reads from a file that is printed text: `bash <(printf …)`, `bash /dev/fd/3`."""
        home = variables.get("HOME", self.home)
        return substituted_script(name, argv, home) or descriptor_script(name, argv, self._held)

    def _evaluated(self, assigns: list[tuple[str, str]], words: list[str], depth: int, cwd: _Cwd, sudo: bool) -> None:
        """What the shell runs when it evaluates a value later: `PS4='$(…)'`, `x='a[$(…)]'`, `let …` (evaluated.py)."""
        later = evaluated_values([(k, unmarked(v)) for k, v in assigns]) + evaluated_words(list(map(unmarked, words)))
        for text in later:
            self._nested(text, depth, cwd.copy(), sudo)

    def _prompt(self, name: str, depth: int, cwd: _Cwd, sudo: bool) -> None:
        """`${x@P}`: x expanded as a prompt string is, so the substitutions in it run (bash(1), "Parameter
        transformation"); its value as the line wrote it is walked, an unknown value is code built at run time."""
        value = self._assigned.get(name)
        if value is None:
            code = {"lang": "sh", "text": ""}
            self.model.ledger.add("exec", None, "bash", code=code, known=False, built=True, raw="${" + name + "@P}")
            return
        if _dynamic(value):
            self._nested(': "' + value.replace("\\", "\\\\").replace('"', '\\"') + '"', depth, cwd.copy(), sudo)

    def _inner(
        self, command: dict[str, Any], depth: int, cwd: _Cwd, privileged: bool, fed: tuple[str | None, frozenset[str]]
    ) -> None:
        """What this command runs in turn: inline scripts, scripts of script runners and on stdin (`fed`'s first),
        inline code, and the commands of spawners (find -exec, docker run, parallel): a word of theirs the line
        quoted (`fed`'s second) is its text."""
        (name, argv), (stdin, literal) = (command["name"], command["argv"]), fed
        if name == "trap" and (inline := _inline_script(name, argv)) is not None:
            self._trap(argv, inline[0], depth, cwd, privileged)
        elif (inline := _inline_script(name, argv) if name in _INLINE else None) is not None:
            text, same_shell, as_root, positional = inline
            with self.state.command_frame(positional, same_shell, self._given(command), cwd):
                self._nested(text, depth, cwd if same_shell else cwd.copy(), privileged or as_root)
        if (script := script_of(name, argv)) is None and stdin is not None and runs_stdin(name, argv, _SHELLS):
            script = stdin
        if script is not None:
            self._nested(script, depth, cwd.copy(), privileged)
        if (code := inline_code(name, argv, stdin)) is not None:
            command["inline"] = self._code(code, depth, cwd, privileged)
        for spawn in spawned(name, argv):
            words = [LITERAL_MARK + w if w in literal else expand_tilde(w, self.home) for w in spawn.argv]
            start = len(self.model.effects)
            if spawn.selects:  # matched on disk as find matches (a leading dot too), not as the shell globs
                self._searched[spawn.selects] = spawn.selects
            runs, root = _Simple([], words, [], []), privileged or spawn.root  # a root daemon's container: as root
            here = _Cwd(expand_tilde(spawn.workdir, self.home)) if spawn.workdir else cwd  # (`docker run -w /h`)
            with shell_state.in_container(self.state, spawn.mounts):  # its paths are the host's through its mounts
                self._simple(runs, depth, here, None, [], root, None, (spawn.runner,))
            self.model.ledger.spawned(start, spawn.sweep, spawn.runner if spawn.root else "", spawn.image, spawn.mounts)
        patch = None
        if name in PATCH_PROGRAMS:
            patch_text = stdin if stdin is not None else redirected_text(command["redirects"], self._patch_reads)
            patch = shell_patch(name, argv, patch_text, cwd.path, self._patch_reads)
        if patch is not None:  # what a patch writes, as the commands that write it (enrich/patches.py)
            for words, added in as_commands(patch):  # a `tee` reads what the patch adds to its file
                origin = "text" if added is not None else "none"
                here = cwd.copy()
                self._simple(_Simple([], words, [], []), depth + 1, here, None, [], privileged, added, (name,), origin)
                self.commands[-1]["patch"] = {"known": patch.known}

    def _trap(self, argv: list[str], action: str, depth: int, cwd: _Cwd, privileged: bool) -> None:
        """A trap's action, walked where it is set without setting anything yet (traps.py); what it sets is unknown
        from here on when it may run between later commands."""
        tables = (self.state.variables, self.state.built)
        before = (dict(tables[0]), dict(tables[1]))
        self.state.scope()
        self._nested(action, depth, cwd.copy(), privileged)
        sets = traps.changed(before, tables)
        self.state.restore()
        if traps.between_commands(argv):
            self.state.volatile.update(sets)
            self.state.forget(sorted(sets))
        reads = traps.reads_of(action)
        self._traps.append(traps.Trap(action, depth, cwd.copy(), privileged, reads, traps.values_of(reads, tables)))

    def _traps_again(self) -> None:
        """Each trap's action walked again when a variable it reads has changed since (it may run with that value)."""
        if not self._traps or self._in_trap:
            return
        self._in_trap = True
        try:
            for trap in self._traps:
                now = traps.values_of(trap.reads, (self.state.variables, self.state.built))
                if now != trap.seen:
                    trap.seen = now
                    self.state.scope()
                    self._nested(trap.action, trap.depth, trap.cwd.copy(), trap.privileged)
                    self.state.restore()
        finally:
            self._in_trap = False

    def _nested(self, script: str, depth: int, cwd: _Cwd, privileged: bool) -> None:
        if depth >= self.max_depth:
            self.fail(f"shell scripts nested deeper than {self.max_depth} levels were not parsed")
        else:  # a script a file or stdin holds has a BASH_SOURCE of its own; one handed on may run many times
            self.model.ledger.unordered = True  # (`watch 'CMD'`, `xargs sh -c 'CMD'`: discards.out_of_order)
            shell_state.in_own_source(self.state, lambda: self.run_script(script, depth + 1, cwd, privileged))

    def _code(self, code: tuple[str, str], depth: int, cwd: _Cwd, privileged: bool) -> dict[str, Any]:
        """`inline` of a command that runs code in an interpreter; Python's effects become commands."""
        language, text = code
        if language != "python":
            return {"language": language, "parsed": False, "dynamic": True, "code": text[:4096]}
        effects = python_effects(text)
        if effects.forks:  # `while True: os.fork()`: processes without bound, as a fork bomb
            self.model.ledger.add("fork", None, "python", known=True)
        if depth < self.max_depth:
            for argv in effects.commands:
                words = [expand_tilde(w, self.home) for w in expand_words(argv, {}, self.home)]  # `~` of a path
                self._simple(_Simple([], words, [], []), depth + 1, cwd.copy(), None, [], privileged, None, ("python",))
            for script in effects.scripts:
                self._nested(script, depth, cwd.copy(), privileged)
        return {"language": language, "parsed": effects.parsed, "dynamic": effects.dynamic, "code": text[:4096]}


_FD_NAME = re.compile(r"^\{[A-Za-z_][A-Za-z0-9_]*\}$")  # `exec {fd}<<<…`: bash picks the number
# `BASH_ALIASES[w]='rm -rf'`, `BASH_CMDS[ls]=/bin/rm`: an alias, a hashed program, set as an array element
_REBOUND = re.compile(r"^(BASH_ALIASES|BASH_CMDS)\[['\"]?([^\]'\"]+)['\"]?\]=(.*)$", re.S)

_PROMPT_EXPANDED = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)@P\}")  # `${x@P}`: x expanded as a prompt
_SHELL_SYNTAX = re.compile(r"[|;&<>()`$\n]")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")  # an alias is expanded before assignments are read
_NAMES_HOME = re.compile(r"(?<![\w${])HOME(?![\w}])")  # HOME named other than as `$HOME`: it may be set
