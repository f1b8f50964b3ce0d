"""The two shims, Python and native, run the way an agent runs them (through `bash -c`)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from support import SHIM, SHIM_PYTHON, require

KINDS = ("python", "native")
NAMES = {"python": "hookd_shim.py", "native": "hookd-shim"}  # the program name in their usage errors


def build_native(out_dir: Path) -> Path:
    """Build the C shim into out_dir with `hookd shim build`'s own code; skip (fail in CI) without cc."""
    from hookd.errors import ShimBuildError
    from hookd.shims.build import build, find_compiler

    try:
        find_compiler()
    except ShimBuildError:
        require(False, "a C compiler (cc) for the native shim")
    return build(out_dir).path


@dataclass(frozen=True)
class Shim:
    kind: str
    program: tuple[str, ...]

    @classmethod
    def python(cls, interpreter: str = SHIM_PYTHON, script: Path = SHIM) -> Shim:
        return cls("python", (interpreter, "-I", "-S", str(script)))

    @classmethod
    def native(cls, binary: Path) -> Shim:
        return cls("native", (str(binary),))

    @property
    def name(self) -> str:
        return NAMES[self.kind]

    def argv(
        self,
        event: str,
        socket: Path | str | None = None,
        *,
        client: str = "gemini",
        deadline_ms: int | str | None = 3000,
        fail: str | None = None,
    ) -> list[str]:
        args = [*self.program, client, event]
        if socket is not None:
            args += ["--socket", str(socket)]
        if deadline_ms is not None:
            args += ["--deadline-ms", str(deadline_ms)]
        if fail:
            args += ["--fail", fail]
        return args

    def run(
        self,
        socket: Path | str | None,
        event: str,
        payload: bytes | Mapping[str, object] = b"{}",
        *,
        client: str = "gemini",
        deadline_ms: int | str | None = 3000,
        fail: str | None = None,
        args: Sequence[str] | None = None,
        wrapper: Sequence[str] = (),
        redirect: str = "",
        shell_prefix: str = "",
        stdin_open: bool = False,
        extra_env: Mapping[str, str | bytes] | None = None,
        cwd: Path | bytes | None = None,
        timeout: float = 30,
    ) -> subprocess.CompletedProcess[bytes]:
        """Run through `bash -c`. `args` replaces everything after the program; `redirect` is appended to
        the command (`<&-`, `>&-`); `stdin_open` keeps stdin open until the shim exits."""
        data = payload if isinstance(payload, bytes) else json.dumps(payload, separators=(",", ":")).encode()
        argv = (
            [*self.program, *args]
            if args is not None
            else self.argv(event, socket, client=client, deadline_ms=deadline_ms, fail=fail)
        )
        command = shell_prefix + shlex.join([*wrapper, *argv]) + (" " + redirect if redirect else "")
        env: dict[str, str | bytes] = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", "/root"),
            **(extra_env or {}),
        }
        if not stdin_open:
            return subprocess.run(
                ["bash", "-c", command], input=data, capture_output=True, timeout=timeout, env=env, cwd=cwd, check=False
            )
        with subprocess.Popen(
            ["bash", "-c", command],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
        ) as proc:
            assert proc.stdin and proc.stdout and proc.stderr
            proc.stdin.write(data)
            proc.stdin.flush()
            try:
                proc.wait(timeout)
            finally:
                proc.stdin.close()
            return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.read(), proc.stderr.read())
