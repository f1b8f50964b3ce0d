"""The native shim: build `client_shim/hookd_shim.c` with the machine's C compiler, and find it again.

`hookd shim build` compiles it into the user's data directory, ``$XDG_DATA_HOME/hookd/bin/hookd-shim``
(default ``~/.local/share/hookd/bin/hookd-shim``), or into ``--out DIR``; `hookd install --shim
native|auto` registers that binary as the hook command. The C shim needs libc only; it is linked
statically when the C library allows it (no dynamic loader at start-up: the fastest start), else
dynamically. The binary appears atomically: it is compiled into a temporary directory beside the
target, smoke-tested (run without arguments, it must print its usage and exit 1) and renamed over the
target, so a hook that runs meanwhile finds the old binary or the new one, never half of one.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hookd.errors import ShimBuildError

SHIM_NAME = "hookd-shim"
QUIET_LIBRARY = "libhookd-quiet.so"  # the stream lane's native quiet chunk (hookd.transport.native_quiet)
COMPILERS = ("cc", "gcc", "clang")
CFLAGS = ("-O2", "-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra")
COMPILE_TIMEOUT_S = 120
QUIET_ABI = 2  # the library's calls' version (`HQ_ABI` in client_shim/hookd_quiet.c)
HARDENING = ("-fstack-protector-strong", "-D_FORTIFY_SOURCE=2", "-Wl,-z,relro,-z,now")  # where the cc takes them


@dataclass(frozen=True)
class BuiltShim:
    path: Path
    compiler: str
    static: bool
    quiet: Path | None = None  # the native quiet chunk's library, when it built


def source_path() -> Path:
    from hookd.runtime.resources import c_shim_source

    return c_shim_source()


def data_bin_dir() -> Path:
    """``$XDG_DATA_HOME/hookd/bin`` (an XDG path that is not absolute is ignored, as the spec says)."""
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return Path(os.path.abspath(base / "hookd" / "bin"))


def quiet_source() -> Path:
    return source_path().with_name("hookd_quiet.c")


def quiet_abi() -> str:
    """What a library built from this checkout's source answers to `hq_abi()`: its calls' version and the
    source's hash (a library built from other source, or by hand, answers otherwise and is not loaded)."""
    digest = hashlib.sha256(quiet_source().read_bytes()).hexdigest()[:32]
    return f"hookd-quiet/{QUIET_ABI}/{digest}"


def native_shim_path() -> Path:
    return data_bin_dir() / SHIM_NAME


def is_usable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def find_compiler(cc: str | None = None) -> list[str]:
    """The compiler command: `cc` if given, else $CC, else the first of cc, gcc, clang on PATH."""
    if cc:
        candidates = [cc]
    else:
        env_cc = os.environ.get("CC", "").strip()
        candidates = ([env_cc] if env_cc else []) + list(COMPILERS)
    for candidate in candidates:
        words = shlex.split(candidate)
        found = shutil.which(words[0]) if words else None
        if found:
            return [found, *words[1:]]
    if cc:
        raise ShimBuildError(f"no C compiler {cc!r} found: pass --cc a compiler on PATH or a path to one")
    tried = ", ".join(candidates)
    raise ShimBuildError(f"no C compiler found (tried {tried}): install one (cc, gcc or clang) or pass --cc")


def build(out_dir: Path | None = None, cc: str | None = None) -> BuiltShim:
    """Compile the C shim into ``out_dir/hookd-shim`` (default: the data directory); static if possible."""
    source = source_path()
    if not source.is_file():
        raise ShimBuildError(f"the C shim source is missing at {source}")
    compiler = find_compiler(cc)
    target_dir = Path(os.path.abspath(out_dir)) if out_dir else data_bin_dir()
    try:
        target_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=f".{SHIM_NAME}-build.", dir=target_dir) as tmp:
            binary = Path(tmp) / SHIM_NAME
            static = _compile(compiler, source, binary)
            binary.chmod(0o755)
            os.replace(binary, target_dir / SHIM_NAME)
            quiet = build_quiet(compiler, Path(tmp), target_dir)
    except OSError as exc:
        raise ShimBuildError(f"cannot write the native shim into {target_dir}: {exc.strerror or exc}") from exc
    return BuiltShim(path=target_dir / SHIM_NAME, compiler=compiler[0], static=static, quiet=quiet)


def build_quiet(compiler: list[str], tmp: Path, target_dir: Path) -> Path | None:
    """The stream lane's native quiet chunk (`client_shim/hookd_quiet.c`, libc and its threads only) into
    ``target_dir``, renamed over the old one once it is whole; None when it does not compile (it is optional:
    the stream lane then answers every chunk in Python)."""
    source = quiet_source()
    if not source.is_file():
        return None
    library = tmp / QUIET_LIBRARY
    abi = quiet_abi().rsplit("/", 1)[1]
    command = [*compiler, *CFLAGS, "-shared", "-fPIC", "-pthread", f'-DHQ_SOURCE_HASH="{abi}"']
    if not any(_compiles([*command, *extra, "-o", str(library), str(source)]) for extra in (HARDENING, ())):
        return None
    library.chmod(0o644)
    os.replace(library, target_dir / QUIET_LIBRARY)
    return target_dir / QUIET_LIBRARY


def _compiles(command: list[str]) -> bool:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _compile(compiler: list[str], source: Path, binary: Path) -> bool:
    """Static first, then dynamic; return whether the binary is static. Raise with the first error line."""
    error = ""
    for static in (True, False):
        command = [*compiler, *CFLAGS, *(["-static"] if static else []), "-o", str(binary), str(source)]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ShimBuildError(f"running the C compiler {compiler[0]} failed: {exc}") from exc
        if done.returncode == 0 and _runs(binary):
            return static
        error = error or _first_error(done.stderr) or f"{compiler[0]} exited with {done.returncode}"
    raise ShimBuildError(f"compiling the native shim with {compiler[0]} failed: {error}")


def _runs(binary: Path) -> bool:
    """Smoke test: without arguments the shim prints its usage and exits 1."""
    try:
        done = subprocess.run([str(binary)], capture_output=True, timeout=10, stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 1 and done.stderr.startswith(f"usage: {SHIM_NAME} ".encode())


def _first_error(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()]
    return (errors or lines or [""])[0]


def choose(kind: str) -> tuple[Path | None, str | None]:
    """The shim `hookd install --shim KIND` registers: (the native binary, or None for the Python shim,
    and a line to print when `auto` fell back to Python)."""
    if kind == "python":
        return None, None
    native = native_shim_path()
    if is_usable(native):
        return native, None
    if kind == "native":
        raise ShimBuildError(f"the native shim is not built ({native} is missing): run `hookd shim build` first")
    return None, (
        f"hookd: no native shim at {native}, so the Python shim is installed; "
        "`hookd shim build` builds the native one (no interpreter start-up per hook), then install again"
    )
