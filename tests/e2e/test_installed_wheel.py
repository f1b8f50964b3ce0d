"""End to end: hookd as a user gets it, with no checkout. The sdist is built from a copy of the files a
release is made of, the wheel from that sdist, and the wheel is installed into a new virtualenv in a
temporary directory with its dependencies: what the wheel declares and what those declare in turn, each as
requirements.lock pins it (hash-checked), and nothing else (no test tools). Then, from that venv
only, with a throw-away HOME: `hookd test` runs the default policies' tests (their Rego tests and cases,
and corpus files of each kind: tests/integration/test_cli.py runs the whole corpus on the same code, and the
wheel is checked to carry every file of the checkout it is built from), `hookd shim build`
builds the native shim, `hookd serve` serves the default policies, `hookd install` registers the shim
for Gemini CLI and Claude Code, and the real Gemini CLI (offline, scripted model) gets one BeforeTool
deny (an `rm -rf` outside the project) and one allow (a write inside it).

The same wheel is also installed as a user installs a command-line tool, with `pipx install` and with `uv
tool install` (both pinned in the test extras, from PyPI; never runtime dependencies), each into a fresh
location outside the checkout (its own PIPX_HOME / UV_TOOL_DIR and bin dir, a throw-away HOME), its
dependencies from a wheelhouse of those same pins (hash-checked when it is made; no index). That tool's
`hookd serve` serves the default policies, `hookd install --client gemini` registers the shim the tool
installed, and the registered command, run as Gemini CLI runs it (`bash -c`), gets the deny of an `rm -rf /`
and the allow of an `ls`.
"""

from __future__ import annotations

import email.parser
import importlib.metadata
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from confine import confined, run_confined, shared_netns
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from hookd import wire
from support import ROOT, gemini_payload, require, send_frame

# Building and installing a release: minutes on a busy machine; all on one xdist worker, so that the release is
# built once (tests/e2e/conftest.py, ONE_WORKER).
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

RELEASE_FILES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "daemon", "policies", "client_shim")
SCRIPT = Path(__file__).resolve().parent / "fixtures" / "installed.responses"
BASE_PYTHON = os.path.realpath(sys.executable)  # the interpreter behind the dev venv
TIMEOUT = 120.0
LOCK_ENTRY = re.compile(r"^(?P<name>[A-Za-z0-9._-]+)==.*?(?=^[A-Za-z0-9._-]+==|\Z)", re.M | re.S)  # with its hashes
OFFLINE = {  # the non-hook settings of the offline recipe (tests/e2e/test_gemini_cli.py explains them)
    "general": {"enableAutoUpdate": False},
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
    "model": {"name": "gemini-3-flash-preview"},
}


@dataclass
class Installed:
    root: Path  # everything of this test lives below it
    venv: Path
    wheel: Path
    env: dict[str, str]  # HOME and XDG dirs in `root`, no GEMINI_/HOOKD_ variables

    def hookd(self, *args: str, check: bool = True, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(self.venv / "bin" / "hookd"), *args],
            env=self.env, cwd=self.root, capture_output=True, text=True, timeout=timeout, check=False,
        )  # fmt: skip
        if check:
            assert done.returncode == 0, f"hookd {' '.join(args)} exited {done.returncode}\n{done.stdout}{done.stderr}"
        return done


def run(cmd: list[str], cwd: Path | None = None) -> str:
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, f"{cmd} exited {done.returncode}\n{done.stdout}{done.stderr}"
    return done.stdout


def build_release(workdir: Path) -> tuple[Path, Path]:
    """The sdist from a copy of the release files, then the wheel from the sdist (as pip does from PyPI)."""
    source, dist = workdir / "src", workdir / "dist"
    source.mkdir()
    for name in RELEASE_FILES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(path, source / name)
    build = "import sys; from setuptools import build_meta as b; print(b.build_sdist(sys.argv[1]))"
    sdist = dist / run([sys.executable, "-c", build, str(dist)], cwd=source).strip().splitlines()[-1]
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(dist), str(sdist)])  # fmt: skip
    (wheel,) = dist.glob("hookd-*.whl")
    return sdist, wheel


@dataclass
class Release:
    root: Path
    sdist: Path
    wheel: Path
    pins: Path  # the wheel's dependencies as requirements.lock pins them (runtime_pins)


@pytest.fixture(scope="module")
def release() -> Iterator[Release]:
    root = Path(tempfile.mkdtemp(prefix="hkdwheel", dir="/tmp"))
    try:
        sdist, wheel = build_release(root)
        assert tarfile.is_tarfile(sdist)
        yield Release(root, sdist, wheel, runtime_pins(wheel, root / "runtime.lock"))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def fresh_env(root: Path) -> dict[str, str]:
    """A throw-away HOME and runtime dir under `root`; no agent's or hookd's variables."""
    home = root / "home"
    home.mkdir()
    (root / "xdg-run").mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI_", "HOOKD_", "XDG_", "CLAUDE_"))}
    return env | {"HOME": str(home), "XDG_RUNTIME_DIR": str(root / "xdg-run")}


def runtime_pins(wheel: Path, out: Path) -> Path:
    """The entries of requirements.lock (each with its hashes) that the wheel needs, written to `out`: what
    its METADATA declares, then what each of those declares in turn (read from the test venv, which the same
    lock installed), extras and markers followed. The test tools the lock also pins are not part of a
    user's install (and are most of its size)."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        declared = email.parser.Parser().parsestr(archive.read(name).decode()).get_all("Requires-Dist") or []
    needed: set[tuple[str, str]] = set()  # (package, extra)
    todo = [(Requirement(text), "") for text in declared]
    while todo:
        requirement, extra = todo.pop()
        if requirement.marker and not requirement.marker.evaluate({"extra": extra}):
            continue
        package = canonicalize_name(requirement.name)
        for wanted in ("", *requirement.extras):
            if (package, wanted) not in needed:
                needed.add((package, wanted))
                todo += [(Requirement(text), wanted) for text in importlib.metadata.requires(package) or []]
    lock = (ROOT / "requirements.lock").read_text()
    entries = {canonicalize_name(m["name"]): m[0] for m in LOCK_ENTRY.finditer(lock)}
    packages = sorted({package for package, _ in needed})
    missing = [package for package in packages if package not in entries]
    assert not missing, f"the wheel needs packages requirements.lock does not pin: {missing}"
    out.write_text("".join(entries[package] for package in packages))
    return out


@pytest.fixture(scope="module")
def installed(release: Release) -> Installed:
    root = release.root / "pip"
    root.mkdir()
    venv = root / "venv"
    run([BASE_PYTHON, "-m", "venv", str(venv)])
    pip = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check", "install", "--quiet"]
    run([*pip, "--require-hashes", "--no-deps", "-r", str(release.pins)])
    run([*pip, "--no-deps", str(release.wheel)])
    run([str(venv / "bin" / "python"), "-m", "pip", "check"])  # every dependency the wheel declares is there
    return Installed(root, venv, release.wheel, fresh_env(root))


def test_the_release_carries_policies_and_shims(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    shipped_files = ("policies/destructive_shell/policy.rego", "client_shim/hookd_shim.py", "client_shim/hookd_shim.c",
                     "client_shim/hookd_quiet.c")  # fmt: skip
    for shipped in shipped_files:
        assert f"hookd/_data/{shipped}" in names
    from hookd import __version__

    assert installed.wheel.name.startswith(f"hookd-{__version__}-")
    assert installed.hookd("--version").stdout.strip() == f"hookd {__version__}"


def test_the_checkout_only_bench_is_not_offered(installed: Installed) -> None:
    """`hookd bench` runs the checkout's bench/: the installed CLI neither lists nor accepts it."""
    assert "bench" not in installed.hookd("--help").stdout
    done = installed.hookd("bench", "--calls", "1", check=False)
    assert done.returncode == 2 and "invalid choice: 'bench'" in done.stderr, done.stderr


def test_the_wheel_carries_every_file_of_the_checkout(installed: Installed) -> None:
    """Each tracked file of the package, the policies and the shims (what a run of the whole corpus from the
    install would miss first: a data file left out of the package data)."""
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    tracked = run(["git", "ls-files", "-z", "daemon/hookd", "policies", "client_shim"], cwd=ROOT).split("\0")
    package = ROOT / "daemon" / "hookd"
    paths = [ROOT / name for name in tracked if name]
    wanted = {f"hookd/_data/{p.relative_to(ROOT)}" for p in paths if not p.is_relative_to(package)}
    wanted |= {f"hookd/{p.relative_to(package)}" for p in paths if p.is_relative_to(package)}
    missing = sorted(wanted - names)
    assert len(wanted) > 300 and not missing, missing


# A part of the corpus (the policies' own cases and a corpus file of each kind): the whole of it runs in
# tests/integration/test_cli.py on the same code. The limit only keeps a stuck run from hanging the suite.
@pytest.mark.timeout(900)
def test_default_policy_tests_run_from_the_install(installed: Installed) -> None:
    files = ("red-team", "blind-shell-22", "blind-tools-21", "blind-tamper-18", "blind-benign-20")
    done = installed.hookd("test", *(f"--corpus={name}" for name in files), timeout=840)
    passed = int(done.stdout.strip().splitlines()[-1].split()[0])
    summary = r" passed, 0 failed(, \d+ known gaps)?(, \d+ outside the aims)?$"  # policies/README.md
    assert passed > 100 and re.search(summary, done.stdout.strip()), done.stdout


def test_install_registers_shims_that_exist(installed: Installed) -> None:
    """Claude Code, with the Python shim: the command is the venv's shipped shim under the base interpreter."""
    installed.hookd("install", "--client", "claude", "--shim", "python")
    settings = json.loads((Path(installed.env["HOME"]) / ".claude" / "settings.json").read_text())
    (hook,) = [h for d in settings["hooks"]["PreToolUse"] for h in d["hooks"] if h.get("command")]
    shim = Path(hook["args"][2])
    assert shim.is_file() and shim.is_relative_to(installed.venv), hook
    assert not shim.is_relative_to(ROOT)
    installed.hookd("uninstall", "--client", "claude")


def test_gemini_deny_and_allow_through_the_installed_daemon(installed: Installed) -> None:
    gemini = os.environ.get("HOOKD_GEMINI_BIN", "")
    require(bool(gemini) and os.access(gemini, os.X_OK), "Gemini CLI 0.61.0 (HOOKD_GEMINI_BIN)")
    require(shutil.which("cc") is not None, "a C compiler (cc)")
    home = Path(installed.env["HOME"])
    built = installed.hookd("shim", "build")
    native = home / ".local" / "share" / "hookd" / "bin" / "hookd-shim"
    assert os.access(native, os.X_OK), built.stdout
    assert (native.parent / "libhookd-quiet.so").is_file(), built.stdout  # the native quiet chunk, beside it

    socket = Path(installed.env["XDG_RUNTIME_DIR"]) / "hookd" / "hook.sock"
    log_path = installed.root / "daemon.log"
    # The project and the victim not below /tmp: the default policies let an agent clean its scratch space there.
    require(os.access("/run", os.W_OK), "a writable /run (the suite runs as root in CI)")
    outside = Path(tempfile.mkdtemp(prefix="hkdwheel", dir="/run"))  # a tmpfs, neither scratch nor system
    with log_path.open("wb") as log:
        daemon = subprocess.Popen([str(installed.venv / "bin" / "hookd"), "serve"], env=installed.env,
                                  stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)  # fmt: skip
    try:
        wait_for(lambda: '"serving"' in log_path.read_text() or daemon.poll() is not None, "the daemon to serve")
        assert daemon.poll() is None, log_path.read_text()
        serving = log_path.read_text()
        assert "hookd.destructive_shell" in serving, serving  # the default policies, from the wheel

        installed.hookd("install", "--client", "gemini")
        user_file = home / ".gemini" / "settings.json"
        settings = json.loads(user_file.read_text())
        (command,) = [h["command"] for d in settings["hooks"]["BeforeTool"] for h in d["hooks"]]
        assert command.startswith(f"{native} gemini BeforeTool --socket {socket} "), command
        user_file.write_text(json.dumps(settings | OFFLINE, indent=2))
        project, victim = outside / "project", outside / "victim"
        (project / ".gemini").mkdir(parents=True)
        (project / ".gemini" / "settings.json").write_text(json.dumps(OFFLINE))
        victim.mkdir()
        (victim / "keep.txt").write_text("still here\n")

        stdout, stderr = run_gemini(gemini, installed.env, project)
        report = f"--- stdout\n{stdout}\n--- stderr\n{stderr}\n--- daemon\n{log_path.read_text()}"
        assert (victim / "keep.txt").is_file(), report
        assert (project / "ok.txt").read_text() == "fine", report
        records = decisions(home / ".local" / "state" / "hookd" / "decisions.log")
        before_tool = [(r["tool"], r["decision"]) for r in records if r["event"] == "BeforeTool"]
        assert before_tool == [("run_shell_command", "deny"), ("write_file", "allow")], report
        denied = next(r for r in records if r["event"] == "BeforeTool" and r["decision"] == "deny")
        assert [v["rule"] for v in denied["verdicts"]] == ["rm-rf-outside-project"], denied

        # A heavy request (over [limits] lane_command_tokens): the installed daemon's lane decides it.
        wait_for(lambda: '"lane_serving"' in log_path.read_text(), "the lane to serve")
        command = "rm -rf " + " ".join(str(victim / f"d{i}") for i in range(40))
        payload = gemini_payload("BeforeTool", tool_name="run_shell_command", tool_input={"command": command})
        header = {"client": "gemini", "event": "BeforeTool", "cwd": str(project), "ppid": 0, "env": {}}
        reply = wire.decode_reply(send_frame(socket, wire.encode_request(header, json.dumps(payload).encode())))
        heavy = json.loads(reply.stdout)
        assert heavy["decision"] == "deny" and "rm-rf-outside-project" in heavy["reason"], heavy
        assert int(heavy["reason"].rsplit("(decision ", 1)[1][:16], 16) % 64 == 1, heavy  # the lane's id slot
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=30)
        shutil.rmtree(outside, ignore_errors=True)


def run_gemini(gemini: str, env: dict[str, str], project: Path) -> tuple[str, str]:
    tmp = project.parent / "gemini-tmp"
    tmp.mkdir(exist_ok=True)
    run_env = {"PATH": env.get("PATH", "/usr/bin:/bin"), "HOME": env["HOME"], "GEMINI_API_KEY": "fake",
               "TMPDIR": str(tmp)}  # fmt: skip
    # Confined (tests/confine.py): it writes only in its HOME and beside its project, and reaches no network.
    argv = confined([gemini, "-p", "Clean up and write ok.txt.", "--fake-responses", str(SCRIPT), "--yolo"],
                    world=[Path(env["HOME"]), project.parent], netns=shared_netns())  # fmt: skip
    _, stdout, stderr = run_confined(argv, cwd=project, env=run_env, timeout=TIMEOUT)
    return stdout, stderr


def decisions(path: Path) -> list[dict[str, Any]]:
    """The decision records, once the log has stopped growing (it is written just after each reply)."""
    sizes = [-1]

    def settled() -> bool:
        sizes.append(path.stat().st_size if path.exists() else 0)
        return sizes[-1] == sizes[-2]

    wait_for(settled, "the decision log to settle")
    return [r for r in map(json.loads, path.read_text().splitlines()) if r.get("type") == "decision"]


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.05)


TOOLS = Path(sys.executable).parent  # pipx and uv, installed into the test venv from requirements.lock


@pytest.fixture(scope="module")
def wheelhouse(release: Release) -> Path:
    """Every wheel of the release's dependencies as requirements.lock pins them, hash-checked (from pip's cache,
    else PyPI)."""
    house = release.root / "wheelhouse"
    run([sys.executable, "-m", "pip", "--disable-pip-version-check", "download", "--quiet", "--require-hashes",
         "--no-deps", "-r", str(release.pins), "-d", str(house)])  # fmt: skip
    return house


def install_with(tool: str, release: Release, wheelhouse: Path, root: Path, env: dict[str, str]) -> Path:
    """`hookd` as `tool` installs it into `root`; returns the command it put on the user's bin dir."""
    bin_dir = root / "bin"
    if tool == "pipx":
        env |= {"PIPX_HOME": str(root / "pipx"), "PIPX_BIN_DIR": str(bin_dir), "PIPX_MAN_DIR": str(root / "man")}
        argv = [str(TOOLS / "pipx"), "install", "--python", BASE_PYTHON,
                "--pip-args", f"--no-index --find-links {wheelhouse}", str(release.wheel)]  # fmt: skip
    else:
        env |= {"UV_TOOL_DIR": str(root / "uv-tools"), "UV_TOOL_BIN_DIR": str(bin_dir),
                "UV_CACHE_DIR": str(root / "uv-cache"), "UV_PYTHON_DOWNLOADS": "never"}  # fmt: skip
        argv = [str(TOOLS / "uv"), "tool", "install", "--python", BASE_PYTHON, "--no-index",
                "--find-links", str(wheelhouse), str(release.wheel)]  # fmt: skip
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600, check=False, cwd=root)
    assert done.returncode == 0, f"{tool} install exited {done.returncode}\n{done.stdout}{done.stderr}"
    return bin_dir / "hookd"


@pytest.mark.parametrize("tool", ["pipx", "uv"])
def test_tool_install_serves_and_registers_a_working_shim(tool: str, release: Release, wheelhouse: Path) -> None:
    require((TOOLS / tool).is_file(), f"{tool} (the test extras, requirements.lock)")
    root = release.root / tool
    root.mkdir()
    env = fresh_env(root)
    hookd = install_with(tool, release, wheelhouse, root, env)
    assert hookd.is_file() and not hookd.resolve().is_relative_to(ROOT), hookd
    from hookd import __version__

    version = subprocess.run([str(hookd), "--version"], env=env, capture_output=True, text=True, timeout=60,
                             check=False)  # fmt: skip
    assert version.stdout.strip() == f"hookd {__version__}", version

    log_path = root / "daemon.log"
    with log_path.open("wb") as log:
        daemon = subprocess.Popen([str(hookd), "serve"], env=env, stdout=log, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL)  # fmt: skip
    try:
        wait_for(lambda: '"serving"' in log_path.read_text() or daemon.poll() is not None, "the daemon to serve")
        assert daemon.poll() is None and "hookd.destructive_shell" in log_path.read_text(), log_path.read_text()
        done = subprocess.run([str(hookd), "install", "--client", "gemini", "--shim", "python"], env=env,
                              capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
        settings = json.loads((root / "home" / ".gemini" / "settings.json").read_text())
        (command,) = [h["command"] for d in settings["hooks"]["BeforeTool"] for h in d["hooks"]]
        shim = Path(shlex.split(command)[3])
        assert shim.name == "hookd_shim.py" and shim.resolve().is_relative_to(root), command  # the tool's own copy
        answers = []
        for shell in ("rm -rf /", "ls"):
            payload = gemini_payload("BeforeTool", tool_name="run_shell_command", tool_input={"command": shell})
            answer = subprocess.run(["bash", "-c", command], input=json.dumps(payload), env=env, capture_output=True,
                                    text=True, timeout=60, check=False)  # fmt: skip
            assert answer.returncode == 0 and not answer.stderr, answer
            answers.append(json.loads(answer.stdout)["decision"] if answer.stdout else "")
        assert answers == ["deny", ""]  # an allow is an empty answer for Gemini CLI
        records = decisions(root / "home" / ".local" / "state" / "hookd" / "decisions.log")
        assert [r["decision"] for r in records if r["event"] == "BeforeTool"] == ["deny", "allow"], records
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=30)
