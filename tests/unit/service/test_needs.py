"""What the unit must allow, computed from the config (hookd.service.needs)."""

from __future__ import annotations

from pathlib import Path

from hookd.config import parse_config
from hookd.service.needs import service_needs


def needs_of(raw: dict[str, object], tmp_path: Path) -> tuple[set[str], set[Path], bool]:
    raw = {"daemon": {"runtime_dir": str(tmp_path / "run"), "state_dir": str(tmp_path / "state"),
                      "policies": str(tmp_path / "policies")},
           "log": {"path": str(tmp_path / "state" / "decisions.log")}} | raw  # fmt: skip
    needs = service_needs(parse_config(raw))
    return set(needs.families), set(needs.writes), needs.remote


def test_default_needs_unix_sockets_only(tmp_path: Path) -> None:
    families, writes, remote = needs_of({}, tmp_path)
    assert families == {"AF_UNIX"} and not remote
    assert writes == {tmp_path / "run", tmp_path / "state"}


def test_http_needs_inet_and_netlink(tmp_path: Path) -> None:
    families, _, remote = needs_of({"http": {"enabled": True}}, tmp_path)
    assert families == {"AF_UNIX", "AF_INET", "AF_NETLINK"} and not remote


def test_remote_shipping_needs_both_inet_families(tmp_path: Path) -> None:
    families, _, remote = needs_of({"log": {"path": str(tmp_path / "l.log"), "ship": {"url": "https://x.example/l"}}},
                                   tmp_path)  # fmt: skip
    assert families == {"AF_UNIX", "AF_INET", "AF_INET6"} and remote


def test_python_policies_need_a_scratch_dir(tmp_path: Path) -> None:
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "p.py").write_text("")
    needs = service_needs(parse_config({"daemon": {"runtime_dir": str(tmp_path / "run"),
                                                   "policies": str(tmp_path / "policies")}}))  # fmt: skip
    assert needs.python
    assert not any(Path(w) == Path("/tmp") for w in needs.writes)
    assert service_needs(parse_config({"daemon": {"policies": str(tmp_path / "policies")}}), as_root=True).python


def test_status_otel_and_discovery_need_the_network(tmp_path: Path) -> None:
    base = {"daemon": {"runtime_dir": str(tmp_path / "run"), "state_dir": str(tmp_path / "state")}}
    status = service_needs(parse_config({**base, "status": {"url": "https://fleet.example/status"}}))
    assert status.remote and "AF_INET6" in status.families
    otel = service_needs(parse_config({**base, "otel": {"endpoint": "http://127.0.0.1:4317"}}))
    assert otel.families == ("AF_UNIX", "AF_INET") and not otel.remote
    keys = {"org": {"algorithm": "HS256", "key": "s" * 32}}
    local = {**base, "keys": keys, "discovery": {"url": "http://127.0.0.1:8080/d.tar.gz", "key": "org"}}
    discovery = service_needs(parse_config(local))  # discovery may point anywhere later
    assert discovery.remote and "AF_INET6" in discovery.families
    assert tmp_path / "state" in discovery.writes
