"""The guard's own endpoints (gaps49): a request that changes the policies or data of the OPA server the config
names, and a signal to what holds the HTTP hook port, are found from the config and the call's effects
(hookd.selfprotect_config.reached_endpoints, handed as input.hookd.endpoints); a GET, a query, other ports are not."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects

from hookd.config import Config, HttpConfig, OpaConfig
from hookd.selfprotect_config import own_endpoints, reached_endpoints

_OWN = own_endpoints(Config(opa=OpaConfig(url="http://127.0.0.1:8181"), http=HttpConfig(port=8765)))


@pytest.mark.parametrize(
    "line",
    [
        "curl -s -X PUT --data-binary 'package x' http://127.0.0.1:8181/v1/policies/destructive_shell",
        "curl -s -X PATCH -d '[]' localhost:8181/v1/data/hookd",
        "curl --request=DELETE 'http://[::1]:8181/v1/policies/self_protection'",
        "curl -T empty.rego http://localhost:8181/v1/policies/x",
        "wget -qO- --method=PUT --body-data='{}' http://127.0.0.1:8181/v1/data",
        "http PUT localhost:8181/v1/data/hookd x=1",
        "fuser -k 8765/tcp",
        "fuser -km -TERM 8765/tcp",
    ],
)
def test_a_change_of_the_engine_or_a_stop_of_the_hook_port_is_found(line: str, tmp_path: Path) -> None:
    assert reached_endpoints(_OWN, effects(line, tmp_path))["endpoints"]


@pytest.mark.parametrize(
    "line",
    [
        "curl -s http://localhost:8181/v1/data/x",
        "curl -s -d '{\"input\": {}}' http://localhost:8181/v1/data/hookd/decide",
        "curl -X PUT -d '{}' http://127.0.0.1:8182/v1/data/x",
        "curl -X PUT -d '{}' https://opa.example.com/v1/policies/x",
        "fuser 8765/tcp",
        "fuser -k 3000/tcp",
    ],
)
def test_a_read_a_query_or_another_port_is_not(line: str, tmp_path: Path) -> None:
    assert reached_endpoints(_OWN, effects(line, tmp_path)) == {}


def test_the_config_moves_them() -> None:
    moved = own_endpoints(Config(opa=OpaConfig(url="http://opa.internal:9000"), http=HttpConfig(port=9001)))
    put = [{"op": "fetch", "url": "http://opa.internal:9000/v1/policies/p", "method": "PUT"}]
    assert reached_endpoints(moved, put)["endpoints"]
    assert not reached_endpoints(_OWN, put)
    assert reached_endpoints(moved, [{"op": "signal", "target": "9001/tcp", "program": "fuser"}])
