"""A Compose file's services as the commands they run (https://docs.docker.com/reference/compose-file/services/):
each service's entrypoint and command as one shell line, with the host paths its volumes bind, a leading `~` being
the home (Compose expands it) and a relative path the first file's directory's ("Paths are evaluated relative to
the base file": https://docs.docker.com/compose/how-tos/multiple-compose-files/merge/). Judged when a tool writes
the file (enrich/tool_effects.py) and when the shell's `docker compose up`/`run` starts the project's services
(projectcode.project_lines): both as the `docker run` each service amounts to (`service_runs`), whose command the
shell builder walks with its paths through the bind mounts (hookd.enrich.shell.runners)."""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from hookd.enrich.config_commands import parsed_settings
from hookd.enrich.tool_args import compose_words

MAX_SERVICES = 16

# One service of a Compose file: its command line (as the shell would run it) and its bind mounts (host, target)
Service = tuple[str, list[tuple[str, str]]]


def compose_services(texts: Sequence[str], home: str, base: str) -> list[Service] | None:
    """Each service's entrypoint and command as one shell line (a list is the argv, a string split as Compose
    splits it) and its bind mounts, host paths absolute (`~` the home, a relative path below `base`, the first
    file's directory); the files
    merged as Compose merges them (https://docs.docker.com/compose/how-tos/multiple-compose-files/merge/: a later
    file's keys of a service replace the earlier's, its volumes add to them). A service with bind mounts and no
    command runs its image's own. None: more services than MAX_SERVICES (not all read)."""
    merged = _merged(texts)
    if merged is None:
        return None
    out: list[Service] = []
    for service in merged.values():
        words = [*compose_words(service.get("entrypoint")), *compose_words(service.get("command"))]
        mounts = [m for v in service["volumes"] if (m := _mount(v, home, base))]
        if words or mounts:
            out.append((shlex.join(words), mounts))
    return out


def service_runs(texts: Sequence[str], home: str, base: str) -> list[str] | None:
    """Each service as the `docker run` line with its bind mounts that it amounts to (None: not all read)."""
    services = compose_services(texts, home, base)
    return (
        None
        if services is None
        else [
            shlex.join(["docker", "run", "--rm", *(f"--volume={h}:{t}" for h, t in mounts), "compose-service", *words])
            for line, mounts in services
            for words in [shlex.split(line)]
        ]
    )


def _merged(texts: Sequence[str]) -> dict[str, dict[str, Any]] | None:
    merged: dict[str, dict[str, Any]] = {}
    for text in texts:
        parsed = parsed_settings(text)
        services = parsed.get("services") if isinstance(parsed, Mapping) else None
        for name, service in services.items() if isinstance(services, Mapping) else ():
            if not isinstance(service, Mapping):
                continue
            if str(name) not in merged and len(merged) >= MAX_SERVICES:
                return None
            before = merged.setdefault(str(name), {"volumes": []})
            listed = service.get("volumes")
            before.update({**service, "volumes": before["volumes"] + (listed if isinstance(listed, list) else [])})
    return merged


def _mount(value: Any, home: str, base: str) -> tuple[str, str] | None:
    if isinstance(value, Mapping):
        source, target = value.get("source"), value.get("target")
    elif isinstance(value, str) and ":" in value:
        source, _, rest = value.partition(":")
        target = rest.partition(":")[0]
    else:
        return None
    if not isinstance(source, str) or not isinstance(target, str) or not target.startswith("/"):
        return None
    if source == "~" or source.startswith("~/"):
        source = home + source[1:]
    elif not source.startswith("/"):
        if not source.startswith("."):
            return None  # a named volume, not a host path
        source = os.path.join(base, source)
    return os.path.normpath(source), os.path.normpath(target)
