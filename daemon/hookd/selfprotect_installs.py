"""An agent's own program replaced by a release the line pins (blind-tamper-14, policies/README.md).

Each agent runs hookd's hooks only from the release that brought its hooks in. A global install of the agent's
npm package at a version (`npm install -g @google/gemini-cli@0.1.9`, `pnpm add -g @anthropic-ai/claude-code@0.2.9`)
or the agent's own installer given one (`claude install 1.0.20`, `opencode upgrade 0.1.48`: AgentSpec
`version_commands`) puts that release where every later session starts; hookd cannot tell from the line whether
it runs hooks at all. Such an install is a later start of the agent (`input.hookd.starts` with `pinned`), which
self_protection asks about. A dist-tag (`@latest`, `stable`) or no target at all updates along the release line
the hooks are on, and passes.
"""

from __future__ import annotations

import json
import os
import re
import tarfile
from collections.abc import Iterator, Mapping
from typing import Any

from hookd.dialects.launch import package_of
from hookd.dialects.registry import AGENTS
from hookd.dialects.spec import AgentSpec
from hookd.types import JSON

# A package manager's global install words (npm install/i/add/update, pnpm add/update, bun add, `yarn global add`).
_INSTALL_WORDS = frozenset({"install", "i", "add", "update", "up", "upgrade"})
_MANAGERS = frozenset({"npm", "pnpm", "bun", "yarn"})
_VERSION_START = frozenset("0123456789^~<>=v")
# npm's configuration keys that take a value (npm's config definitions: `--location global`, `--prefix DIR`); any
# other `--key` is a flag, which takes a following `true`/`false` as its value as nopt does
_VALUED = frozenset({
    "location", "prefix", "registry", "tag", "loglevel", "cache", "userconfig", "globalconfig", "workspace", "omit",
    "include", "install-strategy", "before", "otp", "scope", "access", "auth-type", "node-options", "script-shell",
    "shell", "editor", "ca", "cafile", "cert", "key", "proxy", "https-proxy", "noproxy", "fetch-retries",
    "fetch-timeout", "lockfile-version", "filter", "dir", "C", "w",
})  # fmt: skip
_FALSE = frozenset({"false", "0", "no", ""})
_BOOLEAN_WORDS = frozenset({"true", "false"})
# A registry tarball's address: `…/@scope/name/-/name-1.2.3.tgz` (npm's registry API: the `dist.tarball` field)
_TARBALL = re.compile(r"/((?:@[^/]+/)?[^/]+)/-/[^/]+?-(\d[^/]*)\.tgz$")


def pinned_installs(commands: list[dict[str, Any]], cwd: str = "") -> list[JSON]:
    """Each agent a line's commands install at a version it names, or may install from a local package (a tarball,
    a directory, `npm link`: its programs are named inside it), as a later start ({"program", "agent", "why",
    "later", "pinned"}); `cwd`: where the line starts."""
    found: list[JSON] = []
    for command in commands:
        name = str(command.get("name") or "")
        if name not in _MANAGERS and not any(name in spec.process_names for spec in AGENTS.values()):
            continue  # neither a package manager nor an agent's own installer: `_pins` and `local_agents` find none
        argv = [str(w) for w in command.get("argv") or []]
        env = command.get("env") if isinstance(command.get("env"), dict) else {}
        environment = {str(k): str(v) for k, v in (env or {}).items()}
        for spec, target in _pins(name, argv, AGENTS, environment):
            why = f"it installs {spec.title} at {target}, a release hookd cannot tell runs its hooks"
            found.append({"program": name, "agent": spec.title, "why": why, "later": True, "pinned": True})
        here = str(command.get("cwd") or cwd)
        for source, agent in local_agents(name, argv, here, environment):
            why = f"it puts the programs of {source} on PATH, which may replace {agent}'s own"
            found.append({"program": name, "agent": agent, "why": why, "later": True, "pinned": True})
    return found


def local_agents(name: str, argv: list[str], cwd: str, env: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """(a local package, the agent whose program it may replace) for each package a global install or a link puts
    on PATH from this machine (`npm install -g ./x.tgz`, `npm install -g ~/src/fork`, `npm link` in a checkout,
    `npm link ../dir`, which links that folder globally first): its `bin` names, read from its `package.json` (in the
    tarball, or the folder), are the programs it installs; one that cannot be read may be any agent's."""
    if name not in _MANAGERS:
        return
    words, is_global = _npm_config(argv[1:], env)
    linking = bool(words) and words[0] in _LINK_WORDS
    if not linking and not _global_install(name, words, is_global):
        return
    sources = [w for w in words[1:] if _local(w)]
    if linking and len(words) == 1:
        sources = [cwd or "."]
    programs = {n.rsplit(".", 1)[0]: spec.title for spec in AGENTS.values() for n in spec.process_names}
    for source in sources:
        path = source.removeprefix("file:")
        path = path if path.startswith("/") or not cwd else f"{cwd.rstrip('/')}/{path}"
        bins = package_bins(path)
        hit = next((programs[b] for b in sorted(bins) if b in programs), None) if bins is not None else "an agent"
        if hit is not None:
            yield source, hit


_LINK_WORDS = frozenset({"link", "ln"})


def _local(word: str) -> bool:
    """A package spec naming a file or folder of this machine (npm-package-arg: a path, `file:`, a tarball)."""
    return word.startswith((".", "/", "~", "file:")) or word.endswith((".tgz", ".tar.gz", ".tar"))


MAX_MANIFEST = 256 * 1024  # bytes of a package.json read


def package_bins(path: str) -> set[str] | None:
    """The program names a local package installs (package.json `bin`: a string names the package's own, an object
    each key), from a folder or an npm tarball (`package/package.json`); None when they cannot be read (no such
    package, a `directories.bin`, whose files are not listed)."""
    text = _manifest(path)
    try:
        manifest = json.loads(text) if text is not None else None
    except ValueError:
        return None
    if not isinstance(manifest, dict) or "bin" in manifest.get("directories", {}):
        return None
    bins = manifest.get("bin")
    if isinstance(bins, str):
        return {str(manifest.get("name", "")).rpartition("/")[2]}
    return {str(k).rpartition("/")[2] for k in bins} if isinstance(bins, dict) else set()


MAX_TARBALL = 64 * 1024 * 1024  # a larger tarball is not opened: its programs are not known
MAX_MEMBERS = 64  # npm pack writes package/package.json among the first entries


def _manifest(path: str) -> str | None:
    if os.path.isdir(path):
        return _read(os.path.join(path, "package.json"))
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > MAX_TARBALL:
            return None
        with tarfile.open(path, "r:*") as archive:
            for _, member in zip(range(MAX_MEMBERS), archive, strict=False):
                if member.name.count("/") == 1 and member.name.endswith("/package.json"):
                    data = archive.extractfile(member) if member.isfile() and member.size <= MAX_MANIFEST else None
                    return data.read(MAX_MANIFEST).decode("utf-8", "replace") if data is not None else None
    except (OSError, tarfile.TarError, EOFError):
        return None
    return None


def _read(path: str) -> str | None:
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_MANIFEST + 1)
    except OSError:
        return None
    return data.decode("utf-8", "replace") if len(data) <= MAX_MANIFEST else None


def _pins(
    name: str, argv: list[str], agents: Mapping[str, AgentSpec], env: Mapping[str, str] | None = None
) -> Iterator[tuple[AgentSpec, str]]:
    words, is_global = _npm_config(argv[1:], env or {})
    for spec in agents.values():
        if name in spec.process_names and words[:1] and words[0] in spec.version_commands:
            target = words[1] if len(words) > 1 else ""
            if _is_version(target):
                yield spec, target
    if name not in _MANAGERS or not _global_install(name, words, is_global):
        return
    for word in words:
        package, version = _package_version(word)
        owner = next((s for s in agents.values() if package in s.packages), None)
        if owner is not None and _is_version(version):
            yield owner, word


def _package_version(word: str) -> tuple[str, str]:
    """The package a spec installs and its version: an alias unwrapped (`old@npm:PKG@1.0`: PKG at 1.0), a
    registry tarball read (`…/PKG/-/NAME-1.0.tgz`)."""
    spec = word.split("@npm:", 1)[1] if "@npm:" in word else word.removeprefix("npm:")
    if tarball := _TARBALL.search(spec):
        return tarball[1], tarball[2]
    package = package_of(spec)
    return package, spec[len(package) + 1 :]


def _npm_config(args: list[str], env: Mapping[str, str]) -> tuple[list[str], bool]:
    """The positional words and whether the install is global, as npm's config reader takes them: the environment's
    `npm_config_global`/`npm_config_location` (any case) first, then each option in order (`-g`, a short group
    holding `g` as nopt expands it: `-gf`; `--global`, `--global=true`, `--global false`, `--no-global`;
    `--location global`, `--location=global`); a valued option's value is no positional word."""
    lowered = {k.lower(): v.strip().lower() for k, v in env.items()}
    is_global = lowered.get("npm_config_global", "") not in _FALSE or lowered.get("npm_config_location") == "global"
    words: list[str] = []
    k = 0
    while k < len(args):
        word, k = args[k], k + 1
        if not word.startswith("-") or word == "-":
            words.append(word)
            continue
        if not word.startswith("--"):
            is_global = is_global or "g" in word[1:]
            k += word[1:] in _VALUED and k < len(args)
            continue
        key, eq, value = word[2:].partition("=")
        if not eq and k < len(args) and (key in _VALUED or args[k] in _BOOLEAN_WORDS):
            value, k = args[k], k + 1  # `--location global`; nopt's `--global false`
        elif not eq:
            value = "true"
        if key == "global":
            is_global = value.lower() not in _FALSE
        elif key == "no-global":
            is_global = False
        elif key == "location":
            is_global = value.lower() == "global"
    return words, is_global


def _global_install(name: str, words: list[str], is_global: bool) -> bool:
    if name == "yarn":
        return words[:1] == ["global"] and words[1:2] == ["add"]
    return bool(words) and words[0] in _INSTALL_WORDS and is_global


def _is_version(target: str) -> bool:
    """A release number or range (`1.0.20`, `v0.1.48`, `^0.1`), not a dist-tag (`latest`, `stable`, `next`)."""
    return bool(target) and target[0] in _VERSION_START and any(c.isdigit() for c in target)
