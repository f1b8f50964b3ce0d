"""bench/gemini_rotate.py's evidence: the rotor gives call n turn n % (1 + sockets), turn 0 asking nobody and
turn k reaching the k-th socket's stream lane, each turn's time is read from the interval its call ends, and the
native socket floor answers the shim as the Python one does."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from support import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from gemini_rotate import C_FLAGS, NATIVE_FLOOR_SOURCE, ROTOR_SOURCE, by_turn
from gemini_stream import Run
from load import compiled
from run import floor_server


@pytest.fixture(scope="module")
def rotor(tmp_path_factory: pytest.TempPathFactory) -> Path:
    binary = compiled(ROTOR_SOURCE, tmp_path_factory.mktemp("rotor") / "hookd-rotor", [C_FLAGS])
    if binary is None:
        pytest.fail("no C compiler for bench/rotor_shim.c")
    return binary


def listening(directory: Path, seen: list[str], name: str) -> socket.socket:
    """A stream lane's socket (where the shim sends AfterModel) that notes each frame's first bytes."""
    directory.mkdir(mode=0o700)  # the shim asks only a runtime directory no one else can write
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(directory / "stream.sock"))
    server.listen()
    server.settimeout(10)

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(10)
                seen.append(name + ":" + conn.recv(4).decode())
                conn.shutdown(socket.SHUT_RDWR)

    threading.Thread(target=serve, daemon=True).start()
    return server


def test_each_call_takes_the_next_turn(rotor: Path, tmp_path: Path) -> None:
    seen: list[str] = []
    servers = [listening(tmp_path / name, seen, name) for name in ("a", "b")]
    counter = tmp_path / "calls"
    argv = [str(rotor), str(counter), "gemini", "AfterModel", str(tmp_path / "a" / "hook.sock"),
            str(tmp_path / "b" / "hook.sock")]  # fmt: skip
    try:
        for call in range(6):
            subprocess.run(argv, input=b'{"hook_event_name": "AfterModel"}', timeout=10, check=True,
                           capture_output=True)  # fmt: skip
            assert counter.read_text() == f"{call + 1}\n"
    finally:
        for server in servers:
            server.close()
    assert seen == ["a:HKDQ", "b:HKDQ", "a:HKDQ", "b:HKDQ"]  # calls 1, 2, 4, 5; calls 0 and 3 asked nobody


def test_a_turn_is_read_from_the_interval_its_call_ends() -> None:
    turns, chunks = 3, 61
    # call c's hook ends interval c - 1; the floor's turn takes 4 ms, turn k 4 + k ms, and the box drifts
    intervals = [4.0 + (call % turns) + call * 0.01 for call in range(1, chunks)]
    run = Run(seconds=1.0, intervals=intervals, agent_cpu=0.0, daemon_cpu={7: 0.02})
    samples = by_turn(run, ["socket", "native"], {"native": 7})
    assert samples["socket"]["over_floor_ms"] == pytest.approx(1.0, abs=0.02)
    assert samples["native"]["over_floor_ms"] == pytest.approx(2.0, abs=0.02)
    assert samples["native"]["over_socket_ms"] == pytest.approx(1.0, abs=0.02)
    assert samples["native"]["daemon_cpu_ms"] == pytest.approx(1.0)  # 20 ms over the 20 calls it answered


def test_the_native_socket_floor_answers_the_shim_as_the_python_floor_does(rotor: Path, tmp_path: Path) -> None:
    native = compiled(NATIVE_FLOOR_SOURCE, tmp_path / "floor-server-c", [C_FLAGS])
    assert native is not None, "no C compiler for bench/floor_server.c"
    replies = []
    for name, command in (("py", None), ("c", [str(native)])):
        where = tmp_path / name
        where.mkdir(mode=0o700)
        with floor_server(where / "stream.sock", command):
            for size in (10, 200_000):  # one read, and a frame the server gathers from many
                counter = tmp_path / f"calls-{name}-{size}"
                counter.write_text("1\n")  # call 1: turn 1, the first socket
                payload = b'{"hook_event_name": "AfterModel", "llm_request": "' + b"x" * size + b'"}'
                done = subprocess.run([str(rotor), str(counter), "gemini", "AfterModel", str(where / "hook.sock")],
                                      input=payload, timeout=10, capture_output=True, check=False)  # fmt: skip
                replies.append((name, size, done.returncode, done.stdout, done.stderr))
    assert [r[2:] for r in replies if r[0] == "c"] == [r[2:] for r in replies if r[0] == "py"]
    assert all(r[2] == 0 and b"hookd" not in r[4] for r in replies), replies  # answered, not the fail mode
