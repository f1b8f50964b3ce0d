"""A dev container's lifecycle commands as the container runs them: devcontainer.json's `mounts` and
`workspaceMount` bind host paths into the container (https://containers.dev/implementors/json_reference/,
"mounts", "workspaceMount", "Variables in devcontainer.json"), so a command that changes a path below a mount's
target changes the host path bound there. Each command but `initializeCommand` (run on the host) is judged as the
`docker run` with those mounts it amounts to, whose command the shell analysis walks with its paths through the
mounts (hookd.enrich.shell.containers), as a Compose service's is (hookd.enrich.effects.compose)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Mapping
from typing import Any

from hookd.enrich.config_commands import parsed_settings

_NAMES = frozenset({"devcontainer.json", ".devcontainer.json"})
_HOME = re.compile(r"\$\{(?:localEnv|env):HOME(?::[^}]*)?\}")
_HOST_KEYS = ("initializeCommand",)  # run on the host, before the container exists


def container_lines(target: str, texts: list[str], lines: list[str], home: str) -> list[str]:
    """`lines`, the commands of a written devcontainer.json (`target`; `texts`: what the file holds after the
    write), each that runs in the container put as `docker run --volume=HOST:TARGET … sh -c LINE`; any other
    file's lines, and a container that binds no host path, as they are."""
    if target.rpartition("/")[2] not in _NAMES:
        return lines
    docs = [doc for text in texts if isinstance(doc := parsed_settings(text), Mapping)]
    workspace = target.rpartition("/")[0]
    workspace = workspace.rpartition("/")[0] if workspace.endswith("/.devcontainer") else workspace
    places = {"localWorkspaceFolder": workspace, "localWorkspaceFolderBasename": workspace.rpartition("/")[2]}
    mounts = list(dict.fromkeys(m for doc in docs for m in _mounts(doc, home, places)))
    if not mounts:
        return lines
    on_host = {line for doc in docs for key in _HOST_KEYS for line in _commands(doc.get(key))}
    user = next((str(d[k]) for d in docs for k in ("containerUser", "remoteUser") if isinstance(d.get(k), str)), "")
    volumes = [f"--volume={host}:{inside}" for host, inside in mounts]
    run = ["docker", "run", "--rm", *volumes, *([f"--user={user}"] if user else []), "devcontainer", "sh", "-c"]
    return [line if line in on_host else shlex.join([*run, line]) for line in lines]


def _mounts(doc: Mapping[str, Any], home: str, places: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """The host paths a dev container binds and where: each of `mounts` (Docker's `--mount` string, or an object
    with `source`, `target`, `type`) and `workspaceMount`, of type bind, its source a path once its variables are
    filled in (`${localEnv:HOME}` the home, `${localWorkspaceFolder}` the project's folder)."""
    given = doc.get("mounts")
    for each in [*(given if isinstance(given, list) else []), doc.get("workspaceMount")]:
        mount = dict(part.partition("=")[::2] for part in each.split(",")) if isinstance(each, str) else each
        if not isinstance(mount, Mapping) or mount.get("type", "bind") != "bind":
            continue
        source, inside = mount.get("source") or mount.get("src"), mount.get("target") or mount.get("dst")
        if isinstance(source, str) and isinstance(inside, str):
            host = _HOME.sub(home, re.sub(r"\$\{(\w+)\}", lambda m: places.get(m.group(1), m.group(0)), source))
            if host.startswith("/") and inside.startswith("/"):
                yield host, inside


def _commands(value: Any) -> Iterator[str]:
    """A lifecycle command's lines as config_commands reads them: a string, an argv, or an object of either."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        yield shlex.join(str(w) for w in value)
    elif isinstance(value, Mapping):
        for each in value.values():
            yield from _commands(each)
