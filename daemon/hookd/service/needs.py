"""What the configured daemon does that a sandboxing service manager must allow: the directories it
writes, the socket families it opens, and whether it starts sandboxed Python policy workers (which
make user, network and mount namespaces and install Landlock and seccomp filters).

Computed from the config alone, so that the unit hookd writes allows exactly this and nothing more;
`hookd service install` must run again when the config changes (`hookd doctor` says when it has to).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from hookd.config import Config

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})


@dataclass(frozen=True, slots=True)
class Needs:
    writes: tuple[Path, ...]  # directories written below (sorted, none inside another)
    families: tuple[str, ...]  # AF_UNIX always; AF_INET/AF_INET6 for network endpoints; AF_NETLINK for HTTP peers
    remote: bool  # talks to hosts other than loopback (bundle servers, log shipping, a remote OPA)
    python: bool  # may start Python policy workers
    temp: Path  # $TMPDIR (temp_dir)

    @property
    def network(self) -> bool:
        return self.families != ("AF_UNIX",)


def temp_dir(config: Config, python: bool, as_root: bool = False) -> Path:
    """$TMPDIR under a unit, where /tmp is read-only (ProtectSystem=strict): Python's tempfile writes a
    probe file there at start-up (the config's defaults ask it), and Python workers make their scratch
    dirs there unless `[python] scratch_dir` says otherwise. The runtime dir's tmp/, except for a root
    daemon with Python policies: it starts its workers as `nobody`, who cannot pass a 0700 runtime dir,
    so /tmp."""
    default_scratch = config.python.scratch_dir == Path(tempfile.gettempdir())
    if python and as_root and default_scratch:
        return Path("/tmp")
    return config.daemon.runtime_dir / "tmp"


def service_needs(config: Config, as_root: bool = False) -> Needs:
    from hookd.policy.python_sources import discover_python

    policies = config.daemon.policies
    python = bool(config.bundles.sources or config.layers.projects) or (
        policies.is_dir() and bool(discover_python(policies))
    )
    writes = {config.daemon.runtime_dir, config.log.path.parent, temp_dir(config, python, as_root)}
    if config.bundles.sources or config.discovery is not None:
        writes.add(config.daemon.state_dir)  # the kept bundles and discovery bundle
    if config.http.enabled:
        writes.add(config.http.token_file.parent)  # the token, created at first start
    if python and config.python.scratch_dir != Path(tempfile.gettempdir()):
        writes.add(config.python.scratch_dir)  # configured: the workers' scratch dirs
    host = f"[{config.http.host}]" if ":" in config.http.host else config.http.host
    endpoints = [f"http://{host}:{config.http.port}"] if config.http.enabled else []
    if config.metrics.listen:
        endpoints.append(f"http://{config.metrics.listen}")
    if config.log.ship.url:
        endpoints.append(config.log.ship.url)
    endpoints += [source.url for source in config.bundles.sources if source.url]
    endpoints += [url for url in (config.status.url, config.otel.endpoint) if url]
    if config.discovery is not None and config.discovery.url:
        endpoints.append(config.discovery.url)
    if config.daemon.engine == "opa" and not config.opa.url.startswith("unix:"):
        endpoints.append(config.opa.url)
    hosts = {urlsplit(url).hostname or "" for url in endpoints}
    # discovery may name any host later (bundles, status, logs): the network as a whole, not only loopback
    anywhere = config.discovery is not None
    families = ["AF_UNIX"]
    if hosts or anywhere:
        families += ["AF_INET", "AF_INET6"] if anywhere or hosts - {"127.0.0.1", "localhost"} else ["AF_INET"]
    if config.http.enabled:
        families.append("AF_NETLINK")  # the HTTP endpoint finds a caller's uid over sock_diag
    return Needs(
        writes=_outermost(writes),
        families=tuple(families),
        remote=anywhere or bool(hosts - LOOPBACK_HOSTS),
        python=python,
        temp=temp_dir(config, python, as_root),
    )


def _outermost(paths: set[Path]) -> tuple[Path, ...]:
    ordered = sorted(paths, key=lambda p: (len(p.parts), str(p)))
    kept: list[Path] = []
    for path in ordered:
        if not any(path.is_relative_to(parent) for parent in kept):
            kept.append(path)
    return tuple(sorted(kept))
