"""What a `find` selects, read from its words: the glob that stands for the names it prints (`ROOT/**/PAT`),
wherever those names go (a substitution's operand, `-exec`'s `{}`, what xargs is fed). A content search that prints
only the names of the files it searches (`grep -rl PAT ROOT`, `rg --files ROOT`) stands for the find that prints
every name it can (`find ROOT -type f`): which of them hold PAT is only known when it runs."""

from __future__ import annotations

import re
import shlex
from functools import lru_cache
from typing import Any, Protocol

from hookd.enrich.braces import expand_braces
from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.listings import listing_find

# What `find` selects can be read from its words only with these: tests that narrow it (each with its value) and
# actions that print the names and nothing else. An `-o`, `!`, `(`, `-printf`, `-exec`, `-L` is none of them.
_SEARCH_TESTS = frozenset(
    {"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-type", "-xtype", "-maxdepth", "-mindepth",
     "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-size", "-newer", "-user", "-group", "-perm"}
)  # fmt: skip
_SEARCH_FLAGS = frozenset({"-print", "-print0", "-empty", "-depth", "-xdev", "-mount"})
_PATTERN_CHARS = re.compile(r"[*?\[\\]")
_NAMES_ONLY = re.compile(r"%[pP]\\[n0]")  # a `-printf` format that prints each name and nothing else


def searched(word: str) -> str | None:
    """An operand that is one substitution of a search of one root (`$(find ROOT -name PAT)`, `` `find …` ``, or
    git's listing of its working tree, `$(git ls-files 'src/*.ts')`: `tracked`): the names it prints, ROOT/**/PAT as
    find -exec's `{}` stands for them (a `-path` by its last, literal segment);
    ROOT/**/* where no test narrows the names (`find . -type f`); None for any other word and for a search whose
    selection its words do not show (an `-o`, `!`, `-printf`, `-exec`, `-L`, an expansion, more roots): such an
    operand stays unknown."""
    if word.startswith("$(") and word.endswith(")"):
        inner = word[2:-1]
    elif len(word) > 2 and word[0] == word[-1] == "`":
        inner = word[1:-1]
    else:
        return None
    if "$" in inner or "`" in inner:
        return None
    lexer = shlex.shlex(inner, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        argv = list(lexer)
    except ValueError:
        return None
    if argv[:1] != ["find"] and (listing := listing_find(argv)) is not None:
        argv = listing
    return selection(argv, every=True) if argv[:1] == ["find"] else tracked(argv)


@lru_cache(maxsize=1)
def _listers() -> tuple[str, ...]:
    """The names of the programs whose output can be such a listing (a cheap test before any parse)."""
    return tuple(name for name, program in catalogue().programs.items() if program.lists_names)


def selection(argv: list[str], *, every: bool = False) -> str | None:
    """What `find ARGV…` selects, read from its words (see `searched`): ROOT/**/PAT (ROOT/**/{PAT,PAT2} for a union
    of narrowed `-o` branches), or None; with `every`, ROOT/**/* where no test narrows the names (what it prints:
    -exec's `{}` stands for the root's entries, runners.py)."""
    if argv[:1] != ["find"]:
        return None
    at = next((k for k, w in enumerate(argv[1:], start=1) if w.startswith("-") or w in ("(", "!")), len(argv))
    roots: list[str] = argv[1:at]
    names: list[str] = []  # of the name tests (`-name`, `-iname`): the last segment of each path selected
    paths: list[str] = []  # of the path tests: a segment somewhere on each path selected
    branches: list[tuple[list[str], list[str]]] = []  # each branch of an `-o`: its name and path tests
    k = at
    while k < len(argv):
        word = argv[k]
        if word in ("-o", "-or"):  # `-name x -o -print`: a branch no name test narrows selects every name
            branches.append((names, paths))
            names, paths = [], []
            k += 1
        elif word in ("(", ")"):  # `\( -name a -o -name b \)`: the tests besides narrow no name (else over-read)
            k += 1
        elif word == "-printf" and k + 1 < len(argv) and _NAMES_ONLY.fullmatch(argv[k + 1]):
            k += 2  # (`-printf '%p\n'` prints the names as `-print` does)
        elif word in _SEARCH_TESTS and k + 1 < len(argv):
            name = searched_name(word, argv[k + 1])
            if name is None:
                return None
            (names if word in ("-name", "-iname") else paths).extend([name] if name else [])
            k += 2
        elif word in _SEARCH_FLAGS:
            k += 1
        else:
            return None
    branches.append((names, paths))
    root = roots[0] if len(roots) == 1 else "." if not roots else ""
    if not root or root[0] in "();|&<>!":
        return None
    base = f"{root.rstrip('/') or '/'}/**/"
    if any(not (n or p) for n, p in branches):  # `find . -type f`, or one branch selects all: every name below ROOT
        return f"{base}*" if every or len(branches) > 1 else None
    # every test holds of what is selected, in whatever order they are written: the name its last segment, a
    # path test's segment on the way (`-path '*hookd*' -name cgroup.freeze`: ROOT/**/*hookd*/**/cgroup.freeze)
    chosen = list(dict.fromkeys((f"{p[0]}/**/" if n and p and p[0] != n[0] else "") + (n or p)[0] for n, p in branches))
    if len(chosen) == 1:
        return base + chosen[0]
    # a union of narrowed branches (`-name '*.py' -o -name .env`): each alternative of one brace glob, which the
    # disk is matched on as the shell expands it (hookd.enrich.braces); a pattern that is itself braced is unknown
    return None if any(c in p for p in chosen for c in "{},") else base + "{" + ",".join(chosen) + "}"


# `git ls-files` prints the paths of the working tree's files that its pathspec selects, below the directory it runs
# in and relative to it (git-ls-files(1): https://git-scm.com/docs/git-ls-files); a pathspec's `*` matches `/` too
# (gitglossary(7), "pathspec": https://git-scm.com/docs/gitglossary), so `src/*.ts` is every `.ts` below src. Its
# options that only choose which files (tracked, modified, untracked, ignored, deleted) and print their names:
_LS_FILES_NAMES = frozenset(
    {"-z", "-c", "--cached", "-m", "--modified", "-o", "--others", "-d", "--deleted", "-i", "--ignored", "-k",
     "--killed", "--exclude-standard", "--directory", "--no-empty-directory", "--deduplicate", "--recurse-submodules",
     "--error-unmatch", "--sparse"}
)  # fmt: skip
_SUFFIX_ONLY = re.compile(r"\*[^*?\[\]\\{}]+")  # `*.ts`: every name with that ending, at any depth as git matches it


def tracked(argv: list[str]) -> str | None:
    """What `git ls-files ARGV… PATHSPEC` prints as a find's stand-in (`DIR/**/*SUFFIX`), or None:
    another git command, an option that prints more than names (`--stage`, `--format`, `-t`, `--eol`) or changes
    where the names are from (`--full-name`, `--with-tree`, `-x`/`-X`), git's own options before `ls-files` (`-C`),
    more than one pathspec, pathspec magic (`:(…)`), an absolute or climbing one, or one whose last part is not a
    wildcard and an ending (a literal `src/a.ts`, `x*.ts`, whose `*` may take in directories) stay unknown."""
    if argv[:2] != ["git", "ls-files"]:
        return None
    pathspecs: list[str] = []
    for k, word in enumerate(argv[2:], start=2):
        if word == "--":
            pathspecs += argv[k + 1 :]
            break
        if word.startswith("-") and word not in _LS_FILES_NAMES:
            return None
        if not word.startswith("-"):
            pathspecs.append(word)
    if not pathspecs:  # every file: the glob would take in `.git`'s, which git never lists (left unknown)
        return None
    read = [r for r in map(_pathspec, pathspecs) if r is not None]
    if len(read) < len(pathspecs) or len({ending for _, ending in read}) != 1:
        return None
    # several with one ending (`'src/*.py' 'tests/*.py'`, benign44): below the directories they share, `./**/*.py`
    shared: list[str] = []
    for names in zip(*(root.split("/") for root, _ in read), strict=False):
        if len(set(names)) > 1:
            break
        shared.append(names[0])
    return f"{'/'.join(n for n in shared if n != '.') or '.'}/**/{read[0][1]}"


def _pathspec(spec: str) -> tuple[str, str] | None:
    """(the literal directory, the wildcard ending) of one pathspec (`src/*.ts`: `src`, `*.ts`), or None."""
    spec = spec.removeprefix("./")
    parts = spec.split("/")
    if spec.startswith((":", "/")) or ".." in parts or not _SUFFIX_ONLY.fullmatch(parts[-1]):
        return None
    literal = next((k for k, part in enumerate(parts) if _PATTERN_CHARS.search(part) or "{" in part), len(parts))
    return "/".join(parts[:literal]) or ".", parts[-1]


def listed_words(words: tuple[str, ...]) -> bool:
    """A `for` loop's words that are one unquoted substitution (`for f in $(git ls-files '*.py')`): the names its
    command prints, split at blanks. What its last command listed, hookd.enrich.shell.build gives the loop's variable
    (the substitution is walked just before the loop, so the ledger's `listed` is its last command's)."""
    if len(words) != 1:
        return False
    word = words[0]
    inner = word[2:-1] if word.startswith("$(") and word.endswith(")") else word[1:-1] if word[:1] == "`" else ""
    if _SEQUENCE.search(inner):  # `$(echo ~/.ssh/id; rg --files)` prints what every command prints, not one listing
        return False
    return len(word) > 2 and word[-1:] in ")`" and bool(inner.strip()) and "$(" not in inner and "`" not in inner


_SEQUENCE = re.compile(r"[;&\n(){}]|\|\|")  # (a pipe prints its last command's output: still one listing)


def searched_operands(argv: list[str], home: str) -> dict[str, str]:
    """Each operand that is a substitution of a search of one root (`python check.py $(find build -name x)`), with
    the stand-in for what it prints (`searched`): its effects are of what the search selects, not of a word only
    known at run time, while the disk shows all the search selects (LineState.searched; else it stays unknown)."""
    found: dict[str, str] = {}
    for word in argv[1:] if any(_may_list(w) for w in argv[1:]) else ():
        stand_in = searched(word) if _may_list(word) else None
        if stand_in is not None and "{" not in stand_in:  # (a union: unknown, its names are several patterns)
            found[word] = home + stand_in[1:] if stand_in.startswith("~/") else stand_in
    return found


def _may_list(word: str) -> bool:
    if "find" in word or "ls-files" in word:
        return True
    return (word[:2] == "$(" or word[:1] == "`") and any(n in word for n in _listers())


def searched_name(test: str, value: str) -> str | None:
    """The name pattern a test selects by ("" for a test of something else), None when it cannot be read. A test
    that ignores case (`-iname .ENV`) gives the pattern that matches every case of it (`.[eE][nN][vV]`); a path
    pattern gives its last, literal segment, or (`-path '*.env'`: find's `*` matches `/` too) the whole of a
    pattern that is `*` and a name."""
    fold = test in ("-iname", "-ipath", "-iwholename")
    if test in ("-name", "-iname"):
        name = value if value and "/" not in value else None
    elif test in ("-path", "-wholename", "-ipath", "-iwholename"):
        last = value.rsplit("/", 1)[-1]
        name = last if "/" in value and last and not _PATTERN_CHARS.search(last) else None
        if name is None and value.startswith("*") and len(value) > 1 and "/" not in value:
            name = value
    else:
        return ""
    return any_case(name) if fold and name is not None else name


def any_case(pattern: str) -> str | None:
    """A glob that matches `pattern` in any case (each letter as `[xX]`, both cases added inside a bracket
    expression); None for a pattern with an escape, which this does not read."""
    if "\\" in pattern:
        return None
    out: list[str] = []
    k = 0
    while k < len(pattern):
        ch = pattern[k]
        close = pattern.find("]", k + 2) if ch == "[" else -1
        if close > 0:
            inner = pattern[k + 1 : close]
            negated = inner[:1] in ("!", "^")
            body = inner[1:] if negated else inner
            letters = "".join(c.swapcase() for c in body if c.isalpha() and c.swapcase() not in body)
            out.append("[" + inner[:1] * negated + body + letters + "]")
            k = close + 1
            continue
        out.append(f"[{ch.lower()}{ch.upper()}]" if ch.isalpha() and ch.lower() != ch.upper() else ch)
        k += 1
    return "".join(out)


def alternatives(stand_in: str) -> list[str]:
    """Each pattern a stand-in stands for (`./**/{*.py,.env}`: `./**/*.py`, `./**/.env`): a path is placed per
    alternative, never as the braced whole (which names no file)."""
    return expand_braces(stand_in) or [stand_in] if "{" in stand_in else [stand_in]


def fed_searches(word: str | None) -> tuple[str, ...]:
    """What xargs appends for the search that feeds it (`search_word`): the word, or for a union of narrowed
    branches (`find . -name '*.py' -o -name .env | xargs cat`) one search of ROOT per name it selects; nothing where
    an alternative is more than a name (its names stay unknown: XARGS_INPUT)."""
    stand_in = searched(word) if word else None
    if word is None or stand_in is None or "{" not in stand_in:
        return (word,) if word else ()
    found: list[str] = []
    for alternative in alternatives(stand_in):
        root, _, name = alternative.partition("/**/")
        if not name or "/" in name:
            return ()
        found.append("$(" + shlex.join(["find", root, "-name", name]) + ")")
    return tuple(found)


def search_word(argv: list[str]) -> str | None:
    """`find ARGV…` as the substitution of it (`$(find …)`) when what it selects is read from its words: what a
    command fed its output by xargs stands for (`find . -name .env | xargs cat`), as `searched` reads it; a names-only
    content search as its `listing_find` (`grep -rl KEY . | xargs cat`: every file below `.`)."""
    if not argv or (argv[0].rsplit("/", 1)[-1] != "find" and (argv := listing_find(argv) or []) == []):
        return None
    word = "$(" + shlex.join(["find", *argv[1:]]) + ")"
    return word if searched(word) is not None else None


class _Searching(Protocol):  # LineState (state.py imports this module's users: no import of it here)
    def searched(self, stand_in: str, cwd: Any) -> dict[str, Any] | None: ...


def loop_selects(state: _Searching, word: str | None, cwd: Any, home: str) -> dict[str, Any] | None:
    """What a search's substitution `word` selects (`$(find . -type f)`), placed where a loop over it runs with the
    paths it matches on disk now; None for no search, or a disk not read to the end."""
    stand_in = searched_operands(["", word], home).get(word) if word else None
    return state.searched(stand_in, cwd) if stand_in else None
