"""What a git command runs, reads and writes, from git.json: configuration given for one command (`-c`,
`--config-env`, `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, `GIT_CONFIG_PARAMETERS`) whose
key runs a command (core.pager, core.sshCommand, core.fsmonitor, alias.*=!…, filter.*.clean, …: git-config(1)),
environment variables git runs (`GIT_SSH_COMMAND`, `GIT_EDITOR`, …), options whose value is a command
(`rebase --exec`, `clone --upload-pack`), subcommands that run their words (`bisect run`, `submodule foreach`),
`git config` writing an executing key into a config file, `git diff --no-index` and `git show REV:PATH` reading
files, `git clone` fetching, and the long options of a subcommand written out (`reset --har` is `--hard`)."""

from __future__ import annotations

import functools
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hookd.enrich.effects.branches import note_switch
from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.discards import discard_effects, note_tree, work_dir
from hookd.enrich.effects.files import MAX_GUESSED
from hookd.enrich.effects.forced_adds import forced_tree_adds
from hookd.enrich.effects.gitaliases import UNREAD, configured, remote_urls
from hookd.enrich.effects.gitremotes import CONTACTS, own_tool, stored_url_runs, transported
from hookd.enrich.effects.ledger import Ledger, Place
from hookd.enrich.effects.options import OptionTable, parse
from hookd.enrich.facts import is_unresolved as _dynamic

_SCOPE = ("GIT_", "PAGER", "EDITOR", "VISUAL", "SSH_")
# Subcommands with nothing for git_effects when no configuration comes with them: no long options it writes
# out, no option whose value runs, no file it reads or writes here. (An alias of one of these names runs
# only with `-c alias.…`, which comes before the subcommand.)
_PLAIN = frozenset(
    {"status", "rev-parse", "describe", "tag", "shortlog", "show-ref",
     "merge-base", "symbolic-ref", "for-each-ref", "mv", "init", "version", "help", "whatchanged"}
)  # fmt: skip
_BOOLEAN = frozenset({"true", "false", "yes", "no", "on", "off", "1", "0", ""})
_INCLUDE_IF = re.compile(r"includeif\..+\.path")


def _is_include(key: str) -> bool:
    return key.lower() == "include.path" or _INCLUDE_IF.fullmatch(key.lower()) is not None


def _home_path(value: str, home: str, base: str = "/") -> str:
    """An include's file as git finds it: `~/` is the home, a relative name the including file's directory."""
    path = home + value[1:] if value.startswith("~/") else value
    return os.path.normpath(os.path.join(base, path))


_PARAMETER = re.compile(r"'((?:[^'\\]|\\.)*)'(?:=('(?:[^'\\]|\\.)*'))?")


@dataclass(slots=True)
class GitRun:
    scripts: list[str] = field(default_factory=list)
    argv: list[str] = field(default_factory=list)  # the argv with the subcommand's long options written out


def executing(key: str) -> bool:
    """Whether a config key's value is a command git runs (git.json: executing_keys, executing_patterns)."""
    data = catalogue().git
    key = key.lower()
    if key in data["executing_keys"]:
        return True
    parts = key.split(".")
    for pattern in data["executing_patterns"]:
        want = pattern.split(".")
        if want[0] != parts[0]:
            continue
        if len(want) == 2 and len(parts) >= 2:
            return True
        if len(want) == 3 and len(parts) >= 3 and parts[-1] == want[2]:
            return True
    return False


_SHELL_SYNTAX = re.compile(r"""[|;&<>$`'"\\(){}!*?\[\]]""")
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_.+-]+$")


def alias_runs(value: str) -> bool:
    """An alias runs a shell command (`!…`) or git with options that run one (`-c core.pager=…`); any other is a
    git subcommand with its arguments (git-config(1), alias.*)."""
    words = value.split()
    return value.lstrip().startswith("!") or "-c" in words or "--config-env" in value or "--exec-path" in value


def plain_value(key: str, value: str) -> bool:
    """A value of an executing key that runs only what git ships or a viewer or editor (git.json's plain_values,
    with the option words its `option_words` allows that program: `nano -w`, `code --wait`, `cache --timeout=300`;
    not `vim -S x.vim`), or that names a tool (git.json's
    naming_keys: `diff.tool vscode` picks a tool; its command is `difftool.<tool>.cmd`, judged when set)."""
    data = catalogue().git
    if key.lower() in data.get("naming_keys", {}).get("keys", {}):
        return _TOOL_NAME.match(value) is not None
    if key.lower().startswith("url.") and key.lower().endswith(("insteadof", "pushinsteadof")):
        return same_host_rewrite(key[4 : key.rfind(".")], value)
    if value in data["plain_values"]["values"]:
        return True
    first, *rest = value.split() or [""]
    allowed = data["plain_values"].get("option_words", {}).get("words", {}).get(first)
    return (
        allowed is not None
        and all(re.fullmatch(allowed, word) for word in rest)
        and _SHELL_SYNTAX.search(value) is None
    )


# A URL's transport and host: `https://u@h/…`, `ssh://h:22/…`, scp's `u@h:path`; a shorthand (`gh:`) has no host
_URL = re.compile(r"^(?:([a-z][a-z0-9+.-]*)://)?(?:[^@/:]*@)?([^/:@]*)(:?)", re.IGNORECASE)


def same_host_rewrite(base: str, value: str) -> bool:
    """`url.<base>.insteadOf <value>`: URLs starting with `value` are fetched from and pushed to `base` instead.
    Plain when `base` is spoken by git itself (git.json's `url_rewrites`: not `ext::`, a remote helper's
    `x::`, nor a local path) on the same host as `value` (`git@github.com:` for `https://github.com/`), or when
    `value` is a shorthand of the user's (`gh:`, no host of its own); a rewrite onto another host sends the
    repositories' pushes there, and a helper or `ext::` runs a program."""
    if "::" in base:
        return False
    to, where = _URL.match(base), _URL.match(value)
    if to is None or where is None or not to.group(2) or (to.group(1) is None and not to.group(3)):
        return False  # no host (a local path) or a helper: not a transport git speaks to a host
    transport = (to.group(1) or "ssh").lower()
    if transport not in catalogue().git["url_rewrites"]["transports"]:
        return False
    shorthand = where.group(1) is None and "@" not in value and "." not in where.group(2)
    return shorthand or where.group(2).lower() == to.group(2).lower()


def value_runs(key: str, value: str) -> bool:
    """Whether git runs something hookd cannot judge from `key = value` (an executing key, not a plain value)."""
    if key.lower().startswith("alias."):
        return alias_runs(value)
    if stored_url_runs(key, value):
        return True
    return executing(key) and not plain_value(key, value) and not own_tool(key, value)


def _config_pairs(argv: list[str], env: Mapping[str, str]) -> tuple[list[tuple[str, str]], int]:
    """The (key, value) pairs given to this git command, and the index of its subcommand."""
    pairs: list[tuple[str, str]] = []
    data = catalogue().git
    value_options = set(data["global_value_options"])
    i = 1
    while i < len(argv):
        word = argv[i]
        if not word.startswith("-"):
            break
        head, eq, value = word.partition("=")
        if head in value_options and not eq:
            value = argv[i + 1] if i + 1 < len(argv) else ""
            i += 1
        if head == "-c":
            key, _, val = value.partition("=")
            pairs.append((key, val))
        elif head == "--config-env":
            key, _, var = value.partition("=")
            pairs.append((key, env.get(var, "${" + var + "}")))
        elif head == "--exec-path" and eq:
            pairs.append(("exec-path", value))
        i += 1
    count = env.get("GIT_CONFIG_COUNT", "")
    if count.isdigit():
        for n in range(min(int(count), 64)):
            counted = env.get(f"GIT_CONFIG_KEY_{n}")
            if counted is not None:
                pairs.append((counted, env.get(f"GIT_CONFIG_VALUE_{n}", "")))
    parameters = env.get("GIT_CONFIG_PARAMETERS")
    if parameters:
        for match in _PARAMETER.finditer(parameters):
            key, value = match.group(1), str(match.group(2) or "''")[1:-1]
            if "=" in key and match.group(2) is None:
                key, _, value = key.partition("=")
            pairs.append((key, value))
    return pairs, i


def git_effects(
    argv: list[str], env: Mapping[str, str], variables: Mapping[str, str], place: Place, model: Ledger
) -> GitRun:
    note_switch(argv, place, model)
    if not env and not variables and len(argv) > 1 and argv[1] in _PLAIN:
        note_tree(argv[1], argv[2:], False, model)
        return GitRun(argv=argv)  # `git status`, `git log`: no configuration given, nothing run or read here
    data = catalogue().git
    scope: Mapping[str, str] = env
    if variables:  # what the line exported or set earlier (`export GIT_SSH_COMMAND=…; git fetch`)
        scope = {**{k: v for k, v in variables.items() if k.startswith(_SCOPE)}, **env}
    pairs, sub_index = _config_pairs(argv, scope)
    run = GitRun(argv=list(argv))
    if scope:
        for name in data["executing_env"]:
            if name in scope:
                _runs(f"${name}", scope[name], run, model)
    config = {**model.git_config, **{k.lower(): v for k, v in pairs}}  # the line's `git config alias.x …` too
    given = _given_runs(pairs, run, place, model)
    if sub_index >= len(argv):
        return run
    sub = argv[sub_index]
    xdg = env.get("XDG_CONFIG_HOME") or variables.get("XDG_CONFIG_HOME")
    _aliased(config.get(f"alias.{sub.lower()}"), argv, sub_index, (place, run, model), (xdg, given))
    if sub in data["subcommand_long_options"]:
        run.argv = _spelled(argv, sub_index)
        argv[:] = run.argv  # the command's argv as the policies read it
    if sub == "clean" and config.get("clean.requireforce", "true").lower() in ("false", "no", "off", "0"):
        argv.append("--force")  # clean.requireForce=false: `git clean -d` deletes as `-f` would
    rest = argv[sub_index + 1 :]
    _subcommand_runs(sub, rest, run, model)
    _contacted(sub, str(place(work_dir(argv[1:sub_index])).get("path") or "."), model.home, xdg, (run, model))
    run.scripts.extend(_files(sub, rest, place, model))
    tree = place(work_dir(argv[1:sub_index]))
    _tree_updated(sub, rest, tree, model)
    _stashed(sub, rest, tree, place, model)
    _worktree_removed(sub, rest, place, model)
    _worktree_added(sub, rest, place, model)
    moved = bool(pairs) or any(name.startswith("GIT_") for name in scope) or any(k.startswith("core.") for k in config)
    settled = discard_effects(sub, argv, sub_index, place, model, moved=moved)
    note_tree(sub, argv[sub_index + 1 :], settled, model)
    model.stash_back = model.stash_back or any("stash" in word for word in argv[sub_index:])
    return run


def _given_runs(pairs: list[tuple[str, str]], run: GitRun, place: Place, model: Ledger) -> tuple[str, ...]:
    """What the keys given to this command run; the files whose aliases it reads beyond the configuration's."""
    given: tuple[str, ...] = tuple(model.included)
    for key, value in pairs:
        if key == "exec-path":
            model.add("exec", place(value), "git", code={"lang": "sh", "text": ""}, known=False, flow="exec-path")
        elif _is_include(key):  # a file read as configuration: what its keys run is judged after the walk
            # (gitconfig_text.plain_includes); its aliases with the subcommand's (git takes an absolute one only)
            model.add("exec", None, "git", code={"lang": "sh", "text": ""}, known=False, key=key, included=value)
            given += (_home_path(value, model.home),) if value.startswith(("/", "~/")) else ()
        elif executing(key) and not key.lower().startswith("alias."):  # an alias runs only when it is the subcommand
            _runs(key, value, run, model)
        elif stored_url_runs(key, value):  # `-c remote.x.url=ext::…`: what a contact of that remote runs
            _runs(key, transport_command(transported(value)), run, model)
    return given


def _alias(alias: str, argv: list[str], sub_index: int, into: tuple[Place, GitRun, Ledger]) -> None:
    """A git alias given for this command (git-config(1) `alias.*`): `!cmd` runs cmd; otherwise the subcommand
    is what the alias stands for (`-c alias.x='reset --hard' x` runs `git reset --hard`)."""
    place, run, model = into
    if alias.startswith("!"):
        _runs(f"alias.{argv[sub_index]}", alias[1:], run, model)
    elif _alias_words(alias):
        expanded = [*argv[:sub_index], *_alias_words(alias), *argv[sub_index + 1 :]]
        discard_effects(expanded[sub_index], _spelled(expanded, sub_index), sub_index, place, model)


MAX_ALIAS_DEPTH = 4  # an alias standing for another alias


def _aliased(
    given: str | None,
    argv: list[str],
    sub_index: int,
    into: tuple[Place, GitRun, Ledger],
    files: tuple[str | None, tuple[str, ...]],
) -> None:
    """The alias the subcommand names: one given for this command (`-c alias.x=…`, which git reads last), else
    those of the configuration files."""
    if given is not None:
        _alias(given, argv, sub_index, into)
    else:
        _configured_aliases(argv, sub_index, into, (*files, 0))


def _configured_aliases(
    argv: list[str], sub_index: int, into: tuple[Place, GitRun, Ledger], lookup: tuple[str | None, tuple[str, ...], int]
) -> None:
    """A subcommand git does not have runs the alias of its name in the configuration files git reads
    (gitaliases.py): each definition judged as the `-c alias.…` one is, and one that names another alias is
    followed (MAX_ALIAS_DEPTH deep; deeper: code not known)."""
    place, _, model = into
    xdg, extra, depth = lookup
    sub = argv[sub_index]
    if sub in _git_commands() or _dynamic(sub):
        return
    if depth >= MAX_ALIAS_DEPTH:
        model.add("exec", None, "git", code={"lang": "sh", "text": ""}, known=False, key=f"alias.{sub}")
        return
    work = str(place(work_dir(argv[1:sub_index])).get("path") or ".")
    for value in configured(sub, work, model.home, xdg, extra):
        if value == UNREAD:
            model.add("exec", None, "git", code={"lang": "sh", "text": ""}, known=False, key=f"alias.{sub}")
            continue
        _alias(value, argv, sub_index, into)
        words = _alias_words(value)
        if words and not value.startswith("!"):
            expanded = [*argv[:sub_index], *words, *argv[sub_index + 1 :]]
            _configured_aliases(expanded, sub_index, into, (xdg, extra, depth + 1))


@functools.cache
def _git_commands() -> frozenset[str]:
    return frozenset(catalogue().git["commands"])


def _alias_words(alias: str) -> list[str]:
    """The words a git alias stands for (git-config(1) `alias.*`: split as the shell would, without running it)."""
    try:
        return shlex.split(alias)
    except ValueError:
        return []


def _spelled(argv: list[str], sub_index: int) -> list[str]:
    """`argv` with its subcommand's long options written out (`reset --har` is `--hard`)."""
    longs = catalogue().git["subcommand_long_options"].get(argv[sub_index])
    if longs is None:
        return argv
    return [*argv[:sub_index], *parse(argv[sub_index:], OptionTable(long_flags=frozenset(longs))).spelled]


def _subcommand_runs(sub: str, rest: list[str], run: GitRun, model: Ledger) -> None:
    """Options of the subcommand whose value is a command (`rebase --exec`), and `bisect run`-style words."""
    data = catalogue().git
    for option in data["subcommand_runs"].get(sub, {}):
        for k, word in enumerate(rest):
            if word == option and k + 1 < len(rest):
                _runs(f"git {sub} {option}", rest[k + 1], run, model)
            elif word.startswith(option + "=") and option.startswith("--"):
                _runs(f"git {sub} {option}", word[len(option) + 1 :], run, model)
            elif len(option) == 2 and word.startswith(option) and len(word) > 2 and not word.startswith("--"):
                _runs(f"git {sub} {option}", word[2:], run, model)
    for both in data["subcommand_argv"]:
        first, second = both.split(" ")
        if sub == first and rest[:1] == [second] and len(rest) > 1:
            _runs(f"git {both}", " ".join(rest[1:]), run, model)
    for word in rest:  # `git clone 'ext::sh -c cmd% args' DIR`, `git remote add x 'ext::…'`: a command git runs
        if command := transported(word):
            _runs(f"git {sub} {word[: len(word) - len(command)]}", transport_command(command), run, model)


def _contacted(sub: str, work: str, home: str, xdg: str | None, into: tuple[GitRun, Ledger]) -> None:
    """A command that contacts remotes runs the command transports the configuration holds for them (stored by
    an earlier `git remote add`, in this session or another): each judged as the command it is."""
    if sub not in CONTACTS:
        return
    run, model = into
    for url in remote_urls(work, home, xdg):
        if url == UNREAD:
            model.add("exec", None, "git", code={"lang": "sh", "text": ""}, known=False, key=f"git {sub}")
        elif command := transported(url):
            _runs(f"git {sub} remote.url", transport_command(command), run, model)


_TRANSPORT_ESCAPES = {" ": " ", "%": "%", "s": "upload-pack", "S": "git-upload-pack"}


def transport_command(text: str) -> str:
    """The command line of an `ext::` URL (git-remote-ext(1)): words split at unescaped spaces, `% ` a space
    within a word, `%%` a percent sign, `%s`/`%S` the service's name."""
    words: list[str] = []
    word, k = "", 0
    while k < len(text):
        if text[k] == "%" and k + 1 < len(text):
            word, k = word + _TRANSPORT_ESCAPES.get(text[k + 1], text[k : k + 2]), k + 2
            continue
        if text[k] == " ":
            words, word = [*words, word] if word else words, ""
        else:
            word += text[k]
        k += 1
    return shlex.join([*words, word] if word else words)


def _runs(where: str, value: str, run: GitRun, model: Ledger) -> None:
    if where.lower() == "core.fsmonitor" and value.lower() in _BOOLEAN:
        return
    if where.lower() == "core.hookspath":
        if value not in ("/dev/null", ""):
            model.add("exec", None, "git", code={"lang": "sh", "text": ""}, known=False, flow="hooks", key=where)
        return
    if where.lower() in ("credential.helper",) and value and not value.startswith(("!", "/")):
        return  # a named helper (`store`, `cache`, `osxkeychain`) is git's own
    text = value[1:] if value.startswith("!") else value
    if not text.strip():
        return
    model.add("exec", None, "git", code={"lang": "sh", "text": text}, known=not _dynamic(text), key=where)
    run.scripts.append(text)


def _staged(rest: list[str], place: Place, model: Ledger) -> None:
    """`git add [-f] FILE`: the file's content goes into the repository, and from there to every remote it is
    pushed to (a secret published: an ignored `.env` added with `-f`, committed, pushed); each file named is
    read (`staged`), asked when it is a secret (https://git-scm.com/docs/git-add)."""
    ended, count = False, 0
    for word in rest:
        if word == "--" and not ended:
            ended = True
        elif (ended or not word.startswith("-")) and word not in (".", "..", ":/"):
            count += 1
            if count > MAX_GUESSED:  # past this, one file whose name is not known (asked): the cost stays bounded
                model.add("read", {"raw": "${many_paths}", "path": ""}, "git", guess=True, staged=True)
                return
            model.add("read", place(word), "git", guess=True, staged=True)


def _searched(sub: str, rest: list[str], place: Place, model: Ledger) -> None:
    """ls-files and ls-tree list the tree below the cwd; grep prints the lines it matches (every file below read).
    Names printed by `git grep -l` are not read as a listing (review46: a read of them would be judged as the
    tree's, which holds `.env` files the rules do not look for): what xargs is fed stays unknown."""
    model.add("read" if sub == "grep" else "list", place("."), "git", recursive=True)


def _files(sub: str, rest: list[str], place: Place, model: Ledger) -> list[str]:
    """The files the subcommand reads or writes here; the command lines a plain executing value runs later (judged
    as themselves: `git config core.pager 'rm -rf ~'` is no tool of the project's)."""
    options = [w for w in rest if w.startswith("-")]
    operands = [w for w in rest if not w.startswith("-")]
    if sub == "config":
        return _config_write(rest, options, operands, place, model)
    if sub == "add":
        _staged(rest, place, model)
        forced_tree_adds(rest, place, model)
    elif sub == "diff" and "--no-index" in options:
        for word in operands[-2:]:
            model.add("read", place(word), "git")
    elif sub in ("show", "cat-file", "archive", "log", "blame"):
        for word in operands:
            if ":" in word and not word.startswith(":"):
                model.add("read", place(word.split(":", 1)[1]), "git", history=True)
        _patched(sub, rest, options, place, model)
    elif sub == "diff":
        _patched(sub, rest, options, place, model)
    elif sub in ("ls-files", "ls-tree", "grep"):
        _searched(sub, rest, place, model)
    elif sub == "clone" and operands:
        _clone(rest, operands, place, model)
    elif sub in ("apply", "am") and operands:
        for word in operands:
            model.add("read", place(word), "git")
    return []


# Subcommands that bring other commits' files into the working tree (git-pull(1), git-merge(1), git-rebase(1),
# git-cherry-pick(1), git-revert(1), git-am(1): "updates the working tree"; git-reset(1) --hard, --merge, --keep;
# git-stash(1) pop and apply): the tree below the repository is written, whatever each file becomes
_UPDATES_TREE = frozenset({"pull", "merge", "rebase", "cherry-pick", "revert", "am"})
_RESET_TREE = frozenset({"--hard", "--merge", "--keep"})


# git-checkout(1), git-switch(1): the options that name a new branch (its name is no commit to check out)
_NEW_BRANCH = frozenset({"-b", "-B", "-c", "-C", "--orphan", "--create", "--force-create"})


def _tree_updated(sub: str, rest: list[str], tree: Mapping[str, Any] | None, model: Ledger) -> None:
    stash = sub == "stash" and rest[:1] in (["pop"], ["apply"])
    if sub in _UPDATES_TREE or stash or (sub == "reset" and _RESET_TREE & set(rest)) or _switches(sub, rest):
        model.add("write", tree, "git", recursive=True)


def _switches(sub: str, rest: list[str]) -> bool:
    """`git checkout REV`, `git switch BRANCH`: the work tree becomes another commit's (a new branch named alone
    keeps it as it is)."""
    if sub not in ("checkout", "switch"):
        return False
    named = {k + 1 for k, word in enumerate(rest) if word in _NEW_BRANCH}
    return any(not word.startswith("-") for k, word in enumerate(rest) if k not in named)


# git-stash(1) push (what `git stash` alone, and `save`, do): the changes stashed are reverted in the working tree,
# only the paths its pathspecs name when it has them (those after `--`, or any operand: `save`'s is its message)
_STASH_VALUES = frozenset({"-m", "--message", "--pathspec-from-file"})


def _stashed(sub: str, rest: list[str], tree: Mapping[str, Any] | None, place: Place, model: Ledger) -> None:
    verb = rest[0] if rest and not rest[0].startswith("-") else "push"
    if sub != "stash" or verb not in ("push", "save"):
        return
    words = rest[1:] if rest[:1] == [verb] else rest
    pathspecs = _stash_pathspecs(words) if verb == "push" else []
    for word in pathspecs:
        model.add("write", place(word), "git", recursive=True)
    if not pathspecs:
        model.add("write", tree, "git", recursive=True)


def _stash_pathspecs(words: list[str]) -> list[str]:
    if "--" in words:
        return words[words.index("--") + 1 :]
    found: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in _STASH_VALUES:
            skip = True
        elif not word.startswith("-"):
            found.append(word)
    return found


# git-worktree(1) `add <path> [<commit-ish>]`: a new working tree checked out at <path> (-b, -B and --reason take a
# value): every file below it is written, the agents' project settings a commit holds among them
_WORKTREE_VALUES = frozenset({"-b", "-B", "--reason"})


def _worktree_added(sub: str, rest: list[str], place: Place, model: Ledger) -> None:
    if sub != "worktree" or rest[:1] != ["add"]:
        return
    paths = _stash_pathspecs([w if w not in _WORKTREE_VALUES else "-m" for w in rest[1:] if w != "--"])
    if paths:
        model.add("write", place(paths[0]), "git", recursive=True)


def _worktree_removed(sub: str, rest: list[str], place: Place, model: Ledger) -> None:
    """git-worktree(1) `remove`: a worktree with modified or untracked files is removed only with --force (twice
    when locked): its files are deleted, with what was not committed; without it git refuses, and nothing is lost."""
    ended = rest.index("--") if "--" in rest else len(rest)
    if sub != "worktree" or rest[:1] != ["remove"] or not {"-f", "--force"} & set(rest[:ended]):
        return
    for word in [w for w in rest[1:ended] if not w.startswith("-")] + rest[ended + 1 :]:
        model.add("delete", place(word), "git", recursive=True)


# git-log(1) and git-show(1) "Common diff options": these print each commit's patch, the files' content; `show`
# and `diff` print it unless one of _NO_PATCH asks for names or counts only.
_PATCH = ("-p", "-u", "--patch", "--patch-with-stat", "--patch-with-raw", "-U", "--unified", "-L", "--cc")
_NO_PATCH = frozenset(("--stat", "--shortstat", "--numstat", "--name-only", "--name-status", "--no-patch", "-s",
                       "--summary", "--raw", "--dirstat", "--quiet", "--oneline"))  # fmt: skip


def _patched(sub: str, rest: list[str], options: list[str], place: Place, model: Ledger) -> None:
    """`git log -p -- .env`, `git show HEAD -- .env`: the patches printed hold the content of the files the
    pathspecs name (those after `--`, or any operand without it: a revision read as a path names nothing)."""
    if sub == "log":
        if not any(o == p or (o.startswith(p) and p in ("-U", "-L", "--unified")) for o in options for p in _PATCH):
            return
    elif sub not in ("show", "diff") or any(o.split("=", 1)[0] in _NO_PATCH for o in options):
        return
    words = rest[rest.index("--") + 1 :] if "--" in rest else [w for w in rest if not w.startswith("-")]
    for word in words:
        if word and ":" not in word:
            model.add("read", place(word), "git", history=True)


def _config_write(rest: list[str], options: list[str], operands: list[str], place: Place, model: Ledger) -> list[str]:
    reading = {"--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch", "--show-origin", "--name-only"}
    if any(o in reading for o in options) or operands[:1] in (["get"], ["list"]):
        return []
    unsets = operands[:1] == ["unset"] or any(o in ("--unset", "--unset-all", "--remove-section") for o in options)
    setting = operands[:1] == ["set"]
    if operands[:1] in (["set"], ["unset"]):
        operands = operands[1:]
    file = ".git/config"
    for k, word in enumerate(rest):
        if word == "--global":
            file = model.home + "/.gitconfig"
        elif word == "--system":
            file = "/etc/gitconfig"
        elif word in ("--file", "-f") and k + 1 < len(rest):
            file = rest[k + 1]
            operands = [o for o in operands if o != file]
        elif word.startswith("--file="):
            file = word[len("--file=") :]
    if not operands or (len(operands) == 1 and not unsets and not setting):
        return []  # `git config KEY`: git-config(1)'s older spelling of `git config get KEY`, a read
    key = operands[0]
    value = operands[1] if len(operands) > 1 else ""
    runs = not unsets and value_runs(key, value)
    if key.lower().startswith("alias."):  # set for every later git command of the line (git-config(1), alias.*)
        model.git_config[key.lower()] = value
        if unsets:
            del model.git_config[key.lower()]
    written = model.add("write", place(file), "git", key=key, executes=runs, value=value)
    if _is_include(key) and not unsets and written["path"] and not _dynamic(value):
        model.included.append(_home_path(value, model.home, written["path"].rpartition("/")[0]))
    plain = not unsets and executing(key) and key.lower() != "core.hookspath" and own_tool(key, value)
    return [value] if plain else []


def _clone(rest: list[str], operands: list[str], place: Place, model: Ledger) -> None:
    """`git clone URL [DIR]`: a fetch, and a directory the line made from it (what runs from it is a flow);
    `-c key=value` writes the clone's config."""
    url = operands[0]
    model.add("fetch", None, "git", url=url, known=not _dynamic(url))
    name = url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1].removesuffix(".git")
    target = operands[1] if len(operands) > 1 else name
    effect = model.add("write", place(target), "git", recursive=True)
    if effect["path"]:
        model.produce(effect["path"], "fetch")
    for k, word in enumerate(rest):
        if word in ("-c", "--config") and k + 1 < len(rest):
            key, _, value = rest[k + 1].partition("=")
            if executing(key):
                model.add("write", place(target + "/.git/config"), "git", key=key, executes=True, value=value)
