"""Containers as the host sees them: `docker run -v HOST:INSIDE … IMAGE CMD` (and podman's, nerdctl's, the
Engine API's ContainerCreate through its socket) is CMD run with the paths below each bind mount's target taken as
the host paths bound there, in the working directory `-w` names through them, as root under a root daemon."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from hookd.enrich.shell.tree import Spawn

_CONTAINER_VALUE_OPTIONS = frozenset(
    {"-v", "--volume", "--mount", "-e", "--env", "--env-file", "-w", "--workdir", "-u", "--user", "--name", "-p",
     "--publish", "--network", "--net", "-l", "--label", "--entrypoint", "-m", "--memory", "--cpus", "--platform",
     "--pull", "-h", "--hostname", "--add-host", "--device", "--cap-add", "--cap-drop", "--security-opt", "--tmpfs",
     "--ulimit", "--restart", "--log-driver", "--log-opt", "--ipc", "--pid", "--gpus", "--shm-size", "--stop-signal",
     "-a", "--attach", "--cidfile", "--dns", "--expose", "--group-add", "--runtime", "--userns", "--uts",
     "--volumes-from", "--health-cmd", "--init-path", "--label-file", "--cgroupns"}
)  # fmt: skip


# The container engines' API sockets (Docker, Podman's Docker-compatible service, containerd's nerdctl)
_ENGINE_SOCKETS = ("docker.sock", "podman.sock", "nerdctl.sock")
_CREATE = re.compile(r"/containers/create(?:\?|$)")
_BODY_OPTIONS = frozenset({"-d", "--data", "--data-raw", "--data-binary", "--json"})


def engine_api_spawns(argv: list[str]) -> list[Spawn]:
    """`curl --unix-socket /var/run/docker.sock -d '{…}' http://x/containers/create`: the Engine API's
    ContainerCreate (https://docs.docker.com/reference/api/engine/, HostConfig.Binds and Mounts) makes the
    container `docker create -v HOST:INSIDE IMAGE CMD` does; its command, with paths below each bind mount
    taken as the host paths they are, is walked as that one's (`container_spawns`). A body in a file is not read."""
    socket, body, urls = "", "", []
    for k, word in enumerate(argv[1:], start=1):
        option, eq, value = word.partition("=")
        given = value if eq else (argv[k + 1] if k + 1 < len(argv) else "")
        if option == "--unix-socket":
            socket = given
        elif option in _BODY_OPTIONS and not given.startswith("@"):
            body = given
        elif word.startswith(("http://", "https://")):
            urls.append(word)
    if not socket.endswith(_ENGINE_SOCKETS) or not any(_CREATE.search(url) for url in urls):
        return []
    try:
        spec = json.loads(body)
    except ValueError:
        return []
    return _created(spec) if isinstance(spec, dict) else []


def _created(spec: dict[str, Any]) -> list[Spawn]:
    given = spec.get("HostConfig")
    host: dict[str, Any] = given if isinstance(given, dict) else {}
    mounts: list[tuple[str, str]] = []
    for bind in host.get("Binds") or ():
        source, _, inside = str(bind).partition(":")
        if source.startswith("/") and inside:
            mounts.append((inside.split(":")[0].rstrip("/") or "/", source))
    for mount in host.get("Mounts") or ():
        if (
            isinstance(mount, dict)
            and mount.get("Type", "bind") == "bind"
            and mount.get("Source")
            and mount.get("Target")
        ):
            mounts.append((str(mount["Target"]).rstrip("/") or "/", str(mount["Source"])))
    command = [str(w) for key in ("Entrypoint", "Cmd") for w in _words(spec.get(key))]
    if not mounts or not command:
        return []
    return [Spawn([on_host(w, mounts) for w in command], "docker", tuple(mounts), root=True)]


def _words(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(w) for w in value]
    return value.split() if isinstance(value, str) else []


def container_spawns(name: str, argv: list[str]) -> list[Spawn]:
    """`docker run -v HOST:INSIDE … IMAGE CMD…`: CMD with paths under INSIDE taken as the HOST paths they
    are; only with host mounts (without, the command sees only the container)."""
    mounts: list[tuple[str, str]] = []
    user, workdir = "0", ""
    k = 2
    while k < len(argv):
        arg = argv[k]
        if not arg.startswith("-") or arg == "-":
            break
        option, eq, value = arg.partition("=")
        if option in _CONTAINER_VALUE_OPTIONS:
            if not eq:
                k += 1
                value = argv[k] if k < len(argv) else ""
            if option in ("-u", "--user"):
                user = value.partition(":")[0]
            if option in ("-w", "--workdir"):
                workdir = value
            if option in ("-v", "--volume"):
                host, _, inside = value.partition(":")
                if host.startswith(("/", "~", ".", "$")) and inside:
                    mounts.append((inside.split(":")[0].rstrip("/") or "/", host))
            elif option == "--mount":
                parts = dict(p.partition("=")[::2] for p in value.split(","))
                host, inside = parts.get("source", parts.get("src", "")), parts.get("target", parts.get("dst", ""))
                if host and inside:
                    mounts.append((inside.rstrip("/") or "/", host))
        k += 1
    command = argv[k + 1 :]  # after the image
    if not mounts:
        return []
    root = name in _ROOT_DAEMONS and user in ("0", "root")  # the daemon's containers run as root unless told
    # the image's own entrypoint and command run (words that start with an option are its entrypoint's arguments,
    # `curlimages/curl -s …`): code the line does not show, judged by the mounts
    if not command or command[0].startswith("-"):
        image = argv[k] if k < len(argv) else ""
        return [Spawn(["true"], name, tuple(mounts), root=root, image=image or "?")]
    here = on_host(workdir, mounts) if workdir.startswith("/") else ""  # `-w /h` under `-v ~:/h`: the home
    return [Spawn([on_host(w, mounts) for w in command], name, tuple(mounts), root=root, workdir=here)]


# Engines whose containers are made by a daemon running as root (docker(1), nerdctl's rootful default): the
# container's root writes the host's files through a bind mount (https://docs.docker.com/engine/security/,
# "Docker daemon attack surface"); rootless podman's root is the caller mapped.
_ROOT_DAEMONS = frozenset({"docker", "nerdctl"})


def on_host(path: str, mounts: Sequence[tuple[str, str]]) -> str:
    """`path` in a container put at the host path its longest-matching bind mount binds there; else as it is."""
    for inside, host in sorted(mounts, key=lambda m: -len(m[0])):
        if path == inside or path.startswith(inside.rstrip("/") + "/"):
            return host.rstrip("/") + (path[len(inside.rstrip("/")) :] if inside != "/" else path) or "/"
    return path
