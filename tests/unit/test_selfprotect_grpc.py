"""gaps50b: a gRPC client's call to hookd (grpcurl, grpc_cli, evans: hookd.enrich.effects.grpc) is a request to it,
judged as curl's `--unix-socket` request to hookd's sockets is: through the control socket (hookd's gRPC API), its
backend, or to the engine's server or the hook port on loopback, denied; built at run time, asked. A listing of
services or a description by reflection (`list`, `describe`, `ls`) changes nothing and passes, as any call to
another server does (hookd.selfprotect_config.reached_endpoints)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects

from hookd.config import Config, HttpConfig, OpaConfig
from hookd.selfprotect_config import own_endpoints, reached_endpoints

_CONFIG = Config(opa=OpaConfig(url="http://127.0.0.1:8181"), http=HttpConfig(port=8765))
_OWN = own_endpoints(_CONFIG)
_CONTROL = str(_CONFIG.control_socket)
_BACKEND = str(_CONFIG.control_socket.with_name("grpc.sock"))


@pytest.mark.parametrize(
    "line",
    [
        f"grpcurl -plaintext -unix {_CONTROL} hookd.v1.Control/Reload",
        f'grpcurl -unix -plaintext -d \'{{"mode": "monitor"}}\' {_CONTROL} hookd.v1.Control/SetMode',
        f"grpcurl -unix=true -plaintext {_BACKEND} hookd.v1.Control/Reload",
        f"grpc_cli call unix:{_CONTROL} hookd.v1.Control.Reload ''",
        f"grpc_cli call unix://{_CONTROL} hookd.v1.Control.Reload ''",
        "grpcurl -plaintext -d '{}' 127.0.0.1:8181 opa.Api/Put",
        "grpcurl -plaintext localhost:8765 hookd.v1.Hooks/Decide",
        "evans --host localhost --port 8765 -r cli call hookd.v1.Hooks.Decide",
        "evans --port 8181 -r repl",
    ],
)
def test_a_grpc_call_to_hookd_is_a_request_to_it(line: str, tmp_path: Path) -> None:
    hits = reached_endpoints(_OWN, effects(line, tmp_path))["endpoints"]
    assert hits and not hits[0].get("ask"), hits


@pytest.mark.parametrize(
    "line",
    [
        f"grpcurl -plaintext -unix {_CONTROL} list",  # the reflection service: nothing changed
        f"grpcurl -plaintext -unix {_CONTROL} describe hookd.v1.Control",
        f"grpc_cli ls unix:{_CONTROL}",
        "evans --host localhost --port 8765 -r cli list",
        "grpcurl -plaintext localhost:50051 list",
        'grpcurl -plaintext -d \'{"name": "x"}\' localhost:50051 helloworld.Greeter/SayHello',
        "grpcurl -plaintext -unix /tmp/app.sock app.v1.Api/Ping",
        "grpc_cli call localhost:50051 helloworld.Greeter.SayHello \"name: 'x'\"",
        "evans -r repl",  # 127.0.0.1:50051
        "grpcurl -protoset app.protoset list",  # no server: the files only
    ],
)
def test_a_listing_or_another_servers_call_passes(line: str, tmp_path: Path) -> None:
    assert not reached_endpoints(_OWN, effects(line, tmp_path)), effects(line, tmp_path)


def test_a_server_built_at_run_time_is_asked(tmp_path: Path) -> None:
    hits = reached_endpoints(_OWN, effects('grpcurl -plaintext "localhost:$PORT" hookd.v1.Hooks/Decide', tmp_path))
    assert hits["endpoints"][0]["ask"]
