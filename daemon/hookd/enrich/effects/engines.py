"""The container engines' command lines (docker(1), podman(1), nerdctl, finch: the catalogue's `container_runs`):
which subcommand a line runs, past the engine's own options."""

from __future__ import annotations

from hookd.enrich.effects.program import Program

# The engines' own options before the subcommand that take a value (docker(1) `-H`, `--context`, `--config`,
# `-l`, `--tls*`; podman(1) `--url`, `--connection`, `--root`, `--runroot`; nerdctl's `-n`, `--address`)
_ENGINE_VALUE_OPTIONS = frozenset(
    {"-H", "--host", "-c", "--context", "--config", "-l", "--log-level", "--tlscacert", "--tlscert", "--tlskey",
     "--url", "--connection", "--identity", "--root", "--runroot", "--storage-driver", "--cgroup-manager",
     "-n", "--namespace", "-a", "--address", "--snapshotter", "--data-root", "--cni-path", "--cni-netconfpath"}
)  # fmt: skip


def engine_subcommand(argv: list[str]) -> list[str]:
    """The argv from the subcommand on (`docker -H unix:///var/run/docker.sock run …` is `docker run …`):
    the engine's own options skipped, and the `container` group word (`docker container run`)."""
    k = 1
    while k < len(argv) and argv[k].startswith("-") and argv[k] != "-":
        k += 2 if argv[k] in _ENGINE_VALUE_OPTIONS else 1
    if argv[k : k + 1] == ["container"]:
        k += 1
    return [argv[0], *argv[k:]]


def runs_container(program: Program, argv: list[str]) -> bool:
    """`docker run -v $(pwd):/work alpine ls /work`: the words past the engine's options are the container's (its
    image, its command: walked with its mounts, shell.containers), not files the engine opens on the host."""
    return bool(program.container_runs) and engine_subcommand(argv)[1:2] in ([w] for w in program.container_runs)
