"""The aliases of the configuration files git reads (git-config(1) FILES, `alias.*`): a subcommand git does not
have runs what an alias of its name stands for (`git config alias.wipe 'reset --hard'`, then `git wipe`). Read
as text, as git would: the system's `/etc/gitconfig`, `$XDG_CONFIG_HOME/git/config` (`~/.config/git/config`),
`~/.gitconfig`, the repository's `config` (a linked worktree's `.git` file followed to its git directory and
that one's common directory), and what each includes (`include.path`, `includeIf.*.path`, whatever the
condition), a bounded number of regular files. The last definition read wins, as in git. The remotes' URLs are
read the same way (`remote_urls`: a fetch or push runs an `ext::` URL's command)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from hookd.enrich.holdings import head

MAX_TEXT = 1 << 20  # a configuration file read past this is not read (its aliases unknown: see `configured`)
MAX_FILES = 32  # configuration files one lookup reads, includes with them
MAX_DEPTH = 4  # includes of includes
_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$')
_KEY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$")
UNREAD = "!"  # a definition not read (a file too long, too many files): a shell command not known


def configured(name: str, work_dir: str, home: str, xdg: str | None = None, extra: tuple[str, ...] = ()) -> list[str]:
    """What `alias.<name>` stands for in the configuration git reads working in `work_dir`: every definition
    found (the one git uses is among them), none when no file defines it. A file too long to read, or more files
    than are read, adds UNREAD."""
    wanted = name.lower()

    def alias(section: str, subsection: str | None, key: str) -> bool:
        return section == "alias" and (key == wanted if subsection is None else subsection.lower() == wanted)

    return configured_values(alias, work_dir, home, xdg, extra)


def remote_urls(work_dir: str, home: str, xdg: str | None = None) -> list[str]:
    """Every URL the configuration git reads in `work_dir` gives a remote (`remote.<name>.url`, `.pushurl`) or a
    submodule (`submodule.<name>.url`), and the work tree's `.gitmodules` gives a submodule (what `submodule
    update --init` and `sync` copy into the configuration and then fetch, git-submodule(1); a clone's own file):
    the places a fetch, pull or push there may contact (UNREAD as above)."""

    def url(section: str, subsection: str | None, key: str) -> bool:
        return section in ("remote", "submodule") and subsection is not None and key in ("url", "pushurl")

    return [*configured_values(url, work_dir, home, xdg), *_gitmodules_urls(work_dir)]


def _gitmodules_urls(work_dir: str) -> list[str]:
    dot_git = _dot_git(work_dir)
    text = head(os.path.join(os.path.dirname(dot_git), ".gitmodules"), MAX_TEXT + 1, follow=True) if dot_git else None
    if text is None:
        return []
    if len(text) > MAX_TEXT:
        return [UNREAD]
    return _values_and_includes(text, lambda section, sub, key: section == "submodule" and key == "url")[0]


def configured_values(
    wanted: Callable[[str, str | None, str], bool],
    work_dir: str,
    home: str,
    xdg: str | None = None,
    extra: tuple[str, ...] = (),
) -> list[str]:
    """The values of the keys `wanted` selects (by section, subsection, key; lowercase but the subsection) in the
    configuration files git reads working in `work_dir`, with their includes, and the files the line included
    (`extra`: `git config include.path F` earlier, `git -c include.path=F`); UNREAD ends a partial reading."""
    files = [*_system_and_user(home, xdg), *_repository_configs(work_dir), *extra]
    found: list[str] = []
    pending = [(path, 0) for path in reversed(files)]
    read = 0
    while pending:
        path, depth = pending.pop()
        read += 1
        if read > MAX_FILES:
            return [*found, UNREAD]
        text = head(path, MAX_TEXT + 1, follow=True)
        if text is None:
            continue
        if len(text) > MAX_TEXT:
            return [*found, UNREAD]
        values, includes = _values_and_includes(text, wanted)
        found.extend(values)
        if depth < MAX_DEPTH:  # an include is read where it stands; after the file's own keys here (superset)
            pending.extend((_expand(p, home, os.path.dirname(path)), depth + 1) for p in reversed(includes))
    return found


def _system_and_user(home: str, xdg: str | None) -> list[str]:
    config_home = xdg if xdg and xdg.startswith("/") else f"{home}/.config"
    return ["/etc/gitconfig", f"{config_home}/git/config", f"{home}/.gitconfig"]


def _repository_configs(work_dir: str) -> list[str]:
    """The `config` of the git directory holding `work_dir`: a `.git` directory's, or where a `.git` file points
    (`gitdir: …`) with its `commondir`'s."""
    dot_git = _dot_git(work_dir)
    if dot_git is None:
        return []
    if os.path.isdir(dot_git):
        return _with_common(dot_git)
    text = head(dot_git, 4096, follow=True) or ""
    pointed = text.strip().removeprefix("gitdir:").strip()
    return (
        _with_common(os.path.join(os.path.dirname(dot_git), pointed)) if text.startswith("gitdir:") and pointed else []
    )


def _dot_git(work_dir: str) -> str | None:
    """The `.git` (a directory, or a file pointing to one) of the work tree holding `work_dir`."""
    here = os.path.abspath(work_dir)
    while True:
        dot_git = os.path.join(here, ".git")
        if os.path.isdir(dot_git) or os.path.isfile(dot_git):
            return dot_git
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _with_common(git_dir: str) -> list[str]:
    common = (head(os.path.join(git_dir, "commondir"), 4096, follow=True) or "").strip()
    shared = [os.path.join(git_dir, common, "config")] if common else []
    return [*shared, os.path.join(git_dir, "config"), os.path.join(git_dir, "config.worktree")]


def _values_and_includes(text: str, wanted: Callable[[str, str | None, str], bool]) -> tuple[list[str], list[str]]:
    """The values `text` gives the keys `wanted` selects (`[alias] x = …`, `[alias "x"] command = …`), and the
    paths it includes."""
    section, subsection = "", None
    values: list[str] = []
    includes: list[str] = []
    for joined in _joined_lines(text):
        line = joined
        if header := _SECTION.match(joined):
            section, subsection, line = header.group(1).lower(), header.group(2), header.group(3)
        key = _KEY.match(line)
        if not key or line.lstrip().startswith(("#", ";")):
            continue
        name, given = key.group(1).lower(), _value(key.group(2) or "")
        if wanted(section, subsection, name):
            values.append(given)
        elif section in ("include", "includeif") and name == "path" and given:
            includes.append(given)
    return values, includes


def _joined_lines(text: str) -> list[str]:
    """The lines of a configuration, a line ending in a backslash joined with the next (git-config(1) Syntax)."""
    lines: list[str] = []
    carried = ""
    for line in text.splitlines():
        if line.endswith("\\") and not line.endswith("\\\\"):
            carried += line[:-1]
            continue
        lines.append(carried + line)
        carried = ""
    return [*lines, carried] if carried else lines


def _value(raw: str) -> str:
    """A value as git reads it: double quotes removed (what they hold kept whole), `\\"`, `\\\\`, `\\n`, `\\t`
    unescaped, a comment (`#`, `;`) outside quotes dropped, blanks around it trimmed."""
    out: list[str] = []
    quoted = False
    chars = iter(raw)
    for char in chars:
        if char == "\\":
            following = next(chars, "")
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(following, following))
        elif char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
    return "".join(out).strip()


def _expand(value: str, home: str, base: str) -> str:
    if value == "~" or value.startswith("~/"):
        return home + value[1:]
    return value if value.startswith("/") else os.path.join(base, value)
