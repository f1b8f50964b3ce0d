"""What a git subcommand throws away that git cannot give back, from git.json's `discards` (each entry with its
git-scm.com page): a `delete` effect whose `what` says what is lost.

* `uncommitted`: the uncommitted changes of the working tree (`path`: the tree the pathspec names, or the
  directory the command works in; `whole`: every change under the directory it works in, or in the whole
  repository; `head`: the branch is set to the given commit too).
* `untracked`, `untracked-trees`, `ignored`: untracked files, untracked directories, ignored files.
* `history` (`ref`: the remote branch whose commits a forced update may drop; `""` the current branch, `*`
  every branch) and `branch` (`ref`: the remote branch deleted).

Long options come written out (gitops.py); short ones by each subcommand's `same` table, clusters included.
"""

from __future__ import annotations

import os
import re
import struct
from collections.abc import Mapping
from typing import Any

from hookd.enrich.effects.branches import pushed_branch
from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.ledger import Ledger, Place
from hookd.enrich.effects.options import OptionTable, Parsed, parse
from hookd.enrich.effects.words import _fixed_place
from hookd.enrich.effects.worktree import Readings, Unknown, repository_of
from hookd.enrich.facts import is_unresolved as _dynamic
from hookd.enrich.paths import has_glob

_TOP = ":/"  # pathspec magic: the top of the working tree (gitglossary(7), "pathspec")
_CLEANED = frozenset({"untracked", "untracked-trees", "ignored"})  # what `git clean` loses (git.json)
_UNTRACKED = frozenset({"untracked", "untracked-trees"})


def discard_effects(
    sub: str, argv: list[str], sub_index: int, place: Place, model: Ledger, *, moved: bool = True
) -> bool:
    """The effects of `argv` (a git command whose subcommand is at `sub_index`) that lose work for good; one whose
    repository, read as it is on disk, holds nothing it would lose is dropped (worktree.py), unless the repository
    is `moved` (the environment or `-c` names another) or a command before it on the line may have changed the
    index or the work tree, which the disk does not show yet (`git add f && git reset --hard`). True when the
    command discarded, and lost nothing: it leaves no change for a later discard to lose either."""
    if sub == "stash":
        _stash(argv[sub_index + 1 :], argv[1:sub_index], place, model)
        return False
    spec = catalogue().git["discards"].get(sub)
    if spec is None:
        return False
    table = _table(sub, spec)
    parsed = parse(argv[sub_index:], table)
    given = {table.same.get(option, option) for option, _ in parsed.options}  # `switch --force` is --discard-changes
    start = len(model.effects)
    _discards(spec, parsed, given, argv, sub_index, (place, model))
    if len(model.effects) == start:
        return sub == "clean"  # a clean changes nothing but what it deletes (`-n`: nothing; no `-f`: refused)
    judged = not (moved or model.stash_back or model.tree_touched) and sub in _READ_ON_DISK
    to_head = _to_head(sub, parsed, given)
    if (
        not judged
        or not _plain_globals(argv[1:sub_index])
        or not all(_nothing_lost(e, to_head, model.readings) for e in model.effects[start:])
    ):
        _as_removed(model.effects[start:])
        return False
    if model.unordered:  # a command later in the walk may run before it: kept aside until one changes the tree
        model.spared.extend(model.effects[start:])
    del model.effects[start:]
    return True


# bash(1) "Lists", "Pipelines", "Compound Commands": a command ended by `&` runs alongside the next, the commands of
# a pipeline run at once, a loop's body runs again after itself. Read from the text, as a superset: a word in
# quotes counts too, and only makes the discard judged as the line's only change
_OUT_OF_ORDER = re.compile(r"(?<![&>])&(?![&>])|(?<![|>])\|(?!\|)|\b(?:while|until|for|select|coproc)\b")


def out_of_order(script: str) -> bool:
    """Whether a line's commands may run other than one after the other, each once (a script a command of it
    runs, `xargs sh -c …`, `hyperfine --prepare …`, may run many times: EffectModel.command)."""
    return _OUT_OF_ORDER.search(script) is not None


# git-scm.com: these only read the index and the work tree (or refresh the index's stat data), or write refs,
# objects and configuration other than the current branch's; any other subcommand may change what a later
# discard loses (`add`, `stash pop`, `apply`, `checkout BRANCH`, `pull`, `mv`, `commit -a`)
_KEEPS_TREE = frozenset(
    {"status", "diff", "log", "show", "fetch", "rev-parse", "describe", "shortlog", "ls-files", "ls-tree",
     "ls-remote", "cat-file", "show-ref", "for-each-ref", "merge-base", "blame", "grep", "whatchanged", "version",
     "help", "rev-list", "branch", "tag", "remote", "reflog"}
)  # fmt: skip


def note_tree(sub: str, words: list[str], settled: bool, model: Ledger) -> None:
    """A git subcommand (its words after it) that may leave the index or the work tree other than a later discard
    reads them on disk: any but one that does not change them, or a discard found to lose nothing (`git reset
    --hard origin/main && git clean -fd`: the tree is then a commit's, with nothing untracked)."""
    if not settled and (sub not in _KEEPS_TREE or (sub == "fetch" and _fetch_moves_head(words))):
        model.touch_tree()


_UPDATE_HEAD_OK = "--update-head-ok"


def _fetch_moves_head(words: list[str]) -> bool:
    """A fetch that may update the checked-out branch, and so HEAD's tree under an index that no longer matches it
    (git-fetch(1) `-u`/`--update-head-ok`; git refuses otherwise): the option, by any abbreviation or in a cluster
    of short options, or a refspec after the remote whose destination is not a remote-tracking ref (the branch
    checked out may be it). Read as a superset: a word an option takes may count as the remote or a refspec."""
    operands = [word for word in words if not word.startswith("-")]
    for word in words:
        if word == "--":
            break
        head = word.partition("=")[0]
        if head.startswith("--") and len(head) > 2 and _UPDATE_HEAD_OK.startswith(head):
            return True
        if word.startswith("-") and not word.startswith("--") and "u" in word:
            return True
    for refspec in operands[1:]:
        destination = refspec.rpartition(":")[2] if ":" in refspec else ""
        if destination and not (destination.startswith("refs/remotes/") and ".." not in destination):
            return True
    return False


def _discards(
    spec: Mapping[str, Any], parsed: Parsed, given: set[str], argv: list[str], sub_index: int, at: tuple[Place, Ledger]
) -> None:
    place, model = at
    base = work_dir(argv[1:sub_index])
    if "push" in spec:
        _push(spec["push"], parsed, given, model, pushed_branch(place, base, model))
        return
    for whole in spec.get("whole", ()):
        named = _named(whole, given, parsed.options)
        if named & set(whole["options"]) and set(whole.get("with", ())) <= named:
            extra: dict[str, Any] = {"head": True} if whole.get("head") else {}
            model.add("delete", place(base), "git", recursive=True, what=whole["what"], whole=True, **extra)
            return
    pathspecs = spec.get("pathspecs")
    if pathspecs is not None and _applies(pathspecs, given):
        _pathspecs(pathspecs, parsed, argv[sub_index:], given, base, place, model)
        return
    removes = spec.get("removes")  # `git rm -r DIR`: its committed files leave the work tree, recoverable
    if removes is not None and _applies(removes, given):
        _pathspecs({**removes, "what": ""}, parsed, argv[sub_index:], given, base, place, model)


def _named(whole: Mapping[str, Any], given: set[str], options: list[tuple[str, str | None]]) -> set[str]:
    """The options given, where an option `values` lists counts only with one of them (`git reflog expire
    --expire=now`: every entry expired, not only the old ones); none under an option of `unless`."""
    if given & set(whole.get("unless", ())):  # (`--dry-run`: nothing changes)
        return set()
    values: Mapping[str, list[str]] = whole.get("values", {})
    valued = {o for o, v in options if o in values and v is not None and v.lower() in values[o]}
    return (given - set(values)) | valued


_HEAD = frozenset({"HEAD", "@"})
# (git.json's `discards`) judged against the repository on disk (worktree.py): what each loses is some of the work
# tree's difference from the index, the index's from HEAD (gitstore.py reads HEAD's tree), and untracked files
_READ_ON_DISK = frozenset({"clean", "reset", "restore", "checkout", "switch"})


def _to_head(sub: str, parsed: Parsed, given: set[str]) -> bool:
    """The files the discard writes are the current commit's or the index's: no file of another commit comes to
    overwrite an untracked one of its name (`reset --hard origin/main`, `checkout main -- .`, `restore --source`)."""
    if sub == "reset":
        return all(word in _HEAD for word in parsed.operands)
    if sub == "restore":
        return "--source" not in given
    if sub == "checkout":
        return not parsed.operands or parsed.operands[0] in _HEAD or _reads_as_path(parsed.operands[0])
    return sub == "clean"


# git's options before the subcommand that leave the repository where the work dir's `.git` says (git(1)): `-C` is
# followed by the work dir itself (_work_dir)
_PLAIN_GLOBALS = frozenset({"--no-pager", "-P", "--no-optional-locks", "--no-replace-objects", "--literal-pathspecs"})


def _plain_globals(globals_: list[str]) -> bool:
    words = iter(globals_)
    for word in words:
        if word == "-C":
            next(words, None)
        elif not (word.startswith("-C") or word in _PLAIN_GLOBALS):
            return False
    return True


def _nothing_lost(effect: dict[str, Any], to_head: bool, readings: Readings) -> bool:
    """The discard's tree, as it is on disk, holds nothing of what it would lose: no changed tracked file for
    `uncommitted` (and, for a reset to another commit, no untracked file either, which git overwrites when the
    commit has a file of its name), no untracked file for what `git clean` takes. Each repository and tree is
    read once a line (`readings`)."""
    path, what = str(effect.get("path") or ""), effect.get("what")
    if effect["op"] != "delete" or not path or not effect.get("known", True) or effect.get("pattern"):
        return False
    if str(effect.get("raw") or "").startswith(":"):
        return False  # pathspec magic (`:(icase)`, `:!x`): what it matches is not the path it spells
    try:
        found = repository_of(path)
        if found is None or not (os.path.isdir(path) or os.path.isfile(path) or os.path.islink(path)):
            return False
        top, git_dir = found
        if what == "uncommitted":
            below = top if effect.get("whole") else path
            clean = readings.nothing("uncommitted", top, git_dir, below)
            return clean and (to_head or readings.nothing("untracked", top, git_dir, top))
        return what in _CLEANED and readings.nothing("untracked", top, git_dir, path)
    except (Unknown, OSError, ValueError, IndexError, struct.error, RecursionError):
        return False  # (UnicodeError is a ValueError) whatever is not read with certainty is a loss


def _table(sub: str, spec: Mapping[str, Any]) -> OptionTable:
    longs = catalogue().git["subcommand_long_options"].get(sub, [])
    value = frozenset(spec.get("long_value", ())) - frozenset(spec.get("optional_value", ()))
    return OptionTable(
        short_value=frozenset(spec.get("short_value", "")),
        long_value=value,
        long_flags=frozenset(longs) - value,
        same=dict(spec.get("same", {})),
    )


def work_dir(globals_: list[str]) -> str:
    """The directory the command works in, relative to where it runs: `-C DIR` (each relative to the one before)
    and `--work-tree`."""
    base = "."
    for k, word in enumerate(globals_):
        value = None
        if word in ("-C", "--work-tree") and k + 1 < len(globals_):
            value = globals_[k + 1]
        elif word.startswith("--work-tree="):
            value = word.partition("=")[2]
        elif word.startswith("-C") and len(word) > 2:
            value = word[2:]
        if value:
            base = value if value.startswith(("/", "~")) or base == "." else f"{base}/{value}"
    return base


def _applies(rule: Mapping[str, Any], given: set[str]) -> bool:
    if rule.get("needs") and not given & set(rule["needs"]):
        return False
    return not (given & set(rule.get("unless", ())) and not given & set(rule.get("but", ())))


def _pathspecs(
    rule: Mapping[str, Any], parsed: Parsed, words: list[str], given: set[str], base: str, place: Place, model: Ledger
) -> None:
    what = rule["what"]
    for option, wider in rule.get("widen", {}).items():
        if option in given:
            what = wider["what"]
    operands = parsed.operands
    if "--" in words:
        after = len(words) - words.index("--") - 1
        operands = operands[len(operands) - after :] if rule.get("tree_first") else operands
    elif rule.get("tree_first") and operands and not _reads_as_path(operands[0]):
        operands = operands[1:]  # `git checkout main a.txt`: main is the tree-ish
    if "--pathspec-from-file" in given:  # what is lost is named in a file hookd does not read
        effect = model.add("delete", None, "git", recursive=True, known=False, what=what, whole=False)
        _inside(effect, base, place, model)
        return
    if not operands:
        if rule.get("default") == "whole":
            model.add("delete", place(base), "git", recursive=True, what=what, whole=True)
        return
    here = str(place(base).get("path") or "")
    tree = bool(given & set(rule.get("recursive_with", ())))  # `git rm -r DIR`: a tree, there yet or not
    for word in operands:
        _pathspec(word, base, here, what, place, model, tree)


def _pathspec(word: str, base: str, here: str, what: str, place: Place, model: Ledger, tree: bool = False) -> None:
    """One pathspec: the tree it names, recursive when it names a directory or a pattern, `whole` when that
    tree holds the directory the command works in (`.`, `..`, `*`, `:/`)."""
    top = word.startswith(_TOP)
    text = word[len(_TOP) :] if top else word
    if top and not text.strip("*/"):
        model.add("delete", place(base), "git", recursive=True, what=what, whole=True)
        return
    fixed, pattern = _split_glob(text)
    relative = fixed if fixed.startswith(("/", "~")) or base == "." else f"{base}/{fixed}"
    placed = place(relative or base)
    path = str(placed.get("path") or "")
    directory = tree or bool(pattern) or text.endswith(("/", "/.", "/..")) or text in (".", "..") or os.path.isdir(path)
    covers = (
        bool(path) and not _dynamic(word) and bool(here) and (here == path or here.startswith(path.rstrip("/") + "/"))
    )
    whole = covers and (not pattern or not pattern.strip("*/"))
    if what in _CLEANED and not (pattern or directory or whole or word.startswith(":")) and _one_file(path, word):
        model.add("delete", placed, "git")  # at most this one file goes, as `rm FILE` would take it
        return
    if what in _UNTRACKED and directory and not (pattern or whole or word.startswith(":")) and not covers and path:
        # a directory the pathspec names, below the tree the command works in (not through a link: git removes the
        # link): what goes is the untracked files there, judged by what the disk holds, then as `rm -r DIR` takes
        # them (`_as_removed`; git-clean(1): only paths matching the pathspec are affected); ignored files (`-x`,
        # `.env`, local config the directory hides) stay a loss
        linked = os.path.islink(os.path.join(here, fixed.rstrip("/"))) if here and fixed else False
        model.add("delete", placed, "git", recursive=True, what=what, whole=False, named=not linked)
        return
    extra: dict[str, Any] = {"pattern": word} if pattern else {}
    effect = model.add("delete", placed, "git", recursive=directory or whole, what=what, whole=whole, **extra)
    if not effect["known"]:
        _inside(effect, base, place, model)


def _as_removed(effects: list[dict[str, Any]]) -> None:
    """A clean of a directory its pathspec names (`named`) that still loses untracked files is a plain recursive
    delete of that directory, as `rm -r DIR`: the rules judge its path."""
    for effect in effects:
        if effect.pop("named", False):
            effect.pop("what", None)
            effect.pop("whole", None)


def _one_file(path: str, word: str) -> bool:
    """Whether a clean's pathspec names one existing regular file: git removes that file if it is untracked
    (or ignored, with `-x`) and nothing else; `-d` only widens what a directory loses (git-clean(1), `-d`:
    "If a <pathspec> is specified, -d is irrelevant")."""
    return bool(path) and not _dynamic(word) and os.path.isfile(path)


def _inside(effect: dict[str, Any], base: str, place: Place, model: Ledger) -> None:
    """A pathspec built at run time still names paths of the work tree (git refuses one outside it): it lies
    where the directory the command works in lies (`fixed`)."""
    path = str(place(base).get("path") or "")
    effect["fixed"] = (
        "elsewhere" if _dynamic(base) or not path else _fixed_place(f"{base}/x", f"{path}/x", model.project)
    )


def _reads_as_path(word: str) -> bool:
    """A word that git would only take as a path, never as a branch or commit."""
    return word in (".", "..") or word.startswith(("./", "../", _TOP, "/")) or word.endswith("/") or has_glob(word)


def _split_glob(text: str) -> tuple[str, str]:
    """`src/*.py` -> (`src`, `*.py`): the directory before the first pattern character, and the rest."""
    if not has_glob(text):
        return text, ""
    cut = min(i for i, c in enumerate(text) if c in "*?[")
    head = text[:cut]
    slash = head.rfind("/")
    return (head[:slash] if slash > 0 else "/" if slash == 0 else ""), text[slash + 1 :]


def _push(rule: Mapping[str, Any], parsed: Parsed, given: set[str], model: Ledger, current: str) -> None:
    """Forced updates (`--force`, `+ref`, `--mirror`) and deletes (`--delete`, `:ref`, `--prune`) of remote branches."""
    remote, refspecs = (parsed.operands[0], parsed.operands[1:]) if parsed.operands else ("", [])
    forced = bool(given & set(rule["force"]))
    every = bool(given & set(rule["every_branch"]))
    url = remote if remote and not _dynamic(remote) else ""
    if given & set(rule["forced_always"]) or (forced and every):
        model.add("delete", None, "git", what="history", ref="*", url=url)
        return
    if forced and not refspecs:  # the current branch (branches.py)
        model.add("delete", None, "git", what="history", ref=current, url=url)
    if given & set(rule["prune"]) and (every or not refspecs or any("*" in r for r in refspecs)):
        model.add("delete", None, "git", what="branch", ref="*", url=url)  # those it has no local branch for
    deletes = bool(given & set(rule["delete"]))
    for refspec in refspecs:
        source, colon, destination = refspec.partition(":")
        ref = _branch(destination if colon else source, rule)
        if deletes or (colon and not source):
            if ref or not colon:
                model.add("delete", None, "git", what="branch", ref=ref, url=url)
        elif forced or source.startswith(rule["forced_ref_prefix"]):
            model.add("delete", None, "git", what="history", ref=ref, url=url)


def _branch(ref: str, rule: Mapping[str, Any]) -> str:
    """The branch a refspec's destination names: `+main` and `refs/heads/main` are main; HEAD and @ are the
    current branch (`""`)."""
    name = ref.removeprefix(rule["forced_ref_prefix"]).removeprefix(rule["branch_prefix"])
    return "" if name in rule["current"] else name


_STASHING = frozenset(("push", "save"))


def _stash(rest: list[str], globals_: list[str], place: Place, model: Ledger) -> None:
    """git-stash(1): `git stash` (push, save) puts every uncommitted change aside, `drop` and `clear` throw stashes
    away for good. A drop after a stash on the same line, or a clear, loses every uncommitted change as `reset
    --hard` does (`git stash -u && git stash drop`); a drop of an older stash alone is a named loss, not judged;
    one of a stash named at run time loses `stashes`, any or all of them."""
    values = {k + 1 for k, w in enumerate(rest) if w in ("-m", "--message", "--pathspec-from-file")}
    words = [w for k, w in enumerate(rest) if not w.startswith("-") and k not in values]
    action = words[0] if words else "push"
    if action in _STASHING:  # with pathspecs (`git stash push -- src/x`) only those are put aside
        model.stashed = "--" not in rest and len(words) <= 1
    elif action == "clear" or (action == "drop" and model.stashed and words[1:] in ([], ["stash@{0}"], ["0"])):
        model.add("delete", place(work_dir(globals_)), "git", recursive=True, what="uncommitted", whole=True)
    elif action == "drop" and any(map(_dynamic, words[1:])):
        # the stash is named at run time (`git stash list --format=%gd | xargs -n1 git stash drop`, a loop's `$s`):
        # which one is not known, and where it repeats over a listing every stash goes, as `clear` drops them
        model.add("delete", place(work_dir(globals_)), "git", recursive=True, what="stashes", whole=True)
