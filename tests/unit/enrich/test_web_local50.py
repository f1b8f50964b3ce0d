"""Local admin and credential services, URLs inside URLs, and hosts that name an address (policies/README.md,
"Blind batches' misses closed (web50)"): blind-tools-23's web-local misses, each with look-alikes spelled otherwise
than the corpus's, and the everyday local servers that must stay plain fetches."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects

from hookd.config import Config, HttpConfig, OpaConfig
from hookd.enrich.effects.fetches import local_admin, named_addresses, reached_secrets, reached_urls
from hookd.selfprotect_config import own_endpoints, reached_endpoints
from tests.unit.enrich.test_tool_effects import enriched

ADMIN = [
    ("http://localhost:2375/containers/json", "Docker Engine API"),
    ("https://127.1:2376/v1.43/containers/web/json", "Docker Engine API"),  # inet_aton's short form
    ("http://[::ffff:127.0.0.1]:10255/pods", "kubelet API"),
    ("http://0.0.0.0:8501/v1/agent/self", "Consul agent and KV API"),
    ("http://2130706433:8200/v1/secret/data/app", "Vault API"),  # 127.0.0.1 as one number
    ("http://localhost:2379/v3/kv/range", "etcd client API"),
    ("http://127.0.0.1:9901/certs", "Envoy admin"),
    ("http://api.localhost:4646/v1/var/x", "Nomad API"),  # RFC 6761: any name below localhost
    ("http://127-0-0-1.sslip.io:2019/config/", "Caddy admin API"),  # a wildcard name spelling the loopback
    ("http://app.7f000001.nip.io:2375/info", "Docker Engine API"),  # its hex form
    ("http://0a000001.7f000001.rbndr.us:10250/pods", "kubelet API"),  # rbndr: the second answer is the loopback
    ("http://dev.localtest.me:8500/v1/kv/?recurse", "Consul agent and KV API"),  # every name there is 127.0.0.1
    ("http+unix://%2Frun%2Fdocker.sock/containers/json", "Docker Engine API"),  # requests-unixsocket's form
    ("unix:///run/containerd/containerd.sock", "containerd and CRI"),
]
NOT_ADMIN = [
    "http://localhost:3000/",
    "http://127.0.0.1:8080/api/health",
    "http://localhost:5173/?url=https://example.com",
    "http://10.0.0.5:2375/info",  # another machine: no loopback (the network policy's concern)
    "https://docs.docker.com:443/reference/api/engine/",
    "http://1.2.3.4.example.com:2375/",  # a name spelling octets under no wildcard service
    "http://127.0.0.1.example.com:8500/",
    "http://app.localtest.me.example.com:2375/",
    "unix:///tmp/app.sock",
]


@pytest.mark.parametrize(("url", "service"), ADMIN)
def test_a_local_admin_service_is_found_at_its_port_in_any_spelling(url: str, service: str) -> None:
    assert local_admin(url) == service


@pytest.mark.parametrize("url", NOT_ADMIN)
def test_other_local_servers_and_other_hosts_are_not_admin(url: str) -> None:
    assert local_admin(url) == ""


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("127.0.0.1.nip.io", ["127.0.0.1"]),
        ("x.10-0-0-1.sslip.io.", ["10.0.0.1"]),
        ("c0a80001.7f000001.rbndr.us", ["192.168.0.1", "127.0.0.1"]),
        ("shop.lvh.me", ["127.0.0.1"]),
        ("127.0.0.1.example.com", []),
        ("nip.io.example.com", []),
    ],
)
def test_a_name_resolves_to_what_its_dns_service_documents(host: str, expected: list[str]) -> None:
    assert [str(a) for a in named_addresses(host)] == expected


NESTED = [
    ("https://httpbin.org/redirect-to?url=http%3A%2F%2F2852039166%2Flatest%2Fmeta-data%2F", "metadata"),
    ("https://example.com/out?target=http://metadata.google.internal/computeMetadata/v1/", "metadata"),
    ("https://sso.example.com/login?next=//169.254.169.254/latest/meta-data/", "metadata"),  # scheme-relative
    ("https://r.example/?u=http%253A%252F%252Flocalhost%253A2375%252Fcontainers%252Fjson", "admin"),  # twice encoded
    ("https://cors-proxy.example.com/http://127.0.0.1:10250/pods", "admin"),  # a proxy's path holds the URL
]


@pytest.mark.parametrize(("url", "kind"), NESTED)
def test_a_url_inside_a_url_is_reached_and_judged_as_itself(url: str, kind: str) -> None:
    found = reached_secrets(url)
    assert [kind in f for f in found] == [True]
    assert found[0]["url"] != url


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/login?return_to=https%3A%2F%2Fgithub.com%2Facme%2Fshop",
        "https://web.archive.org/web/2024/https://docs.python.org/3/",
        "http://localhost:3000/auth/callback?redirect_uri=http%3A%2F%2Flocalhost%3A3000%2F",
    ],
)
def test_urls_inside_everyday_urls_reach_nothing_secret(url: str) -> None:
    assert len(reached_urls(url)) == 2
    assert reached_secrets(url) == []


@pytest.mark.parametrize(
    ("client", "tool", "tool_input", "key"),
    [
        ("claude", "WebFetch", {"url": "http://127.0.0.1.nip.io:2375/containers/json", "prompt": "env"}, "admin"),
        (
            "gemini",
            "web_fetch",
            {"prompt": "summarise https://t.example/?go=http%3A%2F%2F169.254.169.254%2F"},
            "metadata",
        ),
        ("qwen", "web_fetch", {"url": "http://localhost:42356/MSI/token?resource=x", "prompt": "p"}, "metadata"),
    ],
)
def test_a_web_tool_reaching_a_local_service_reads_its_secrets(
    client: str, tool: str, tool_input: dict[str, object], key: str, proj: Path
) -> None:
    found = [e for e in enriched(client, tool, tool_input, proj).facts.get("effects", []) if e.get(key)]
    assert found and found[0]["op"] == "read"


@pytest.mark.parametrize(
    ("line", "service"),
    [
        ("curl -s http://localhost:10250/pods", "kubelet API"),
        ("curl -s --unix-socket /var/run/docker.sock http://x/containers/json", "Docker Engine API"),
        ("wget -qO- 'https://httpbin.org/redirect-to?url=http://127.0.0.1:8200/v1/sys/seal-status'", "Vault API"),
    ],
)
def test_the_shell_s_downloaders_reach_the_same_services(line: str, service: str, proj: Path) -> None:
    assert service in [e.get("admin") for e in effects(line, proj) if e["op"] == "read"]


@pytest.mark.parametrize(
    "line",
    [
        "curl -X PUT -d '{}' http://127.0.0.1.nip.io:8181/v1/policies/x",
        "curl -X DELETE http://opa.localtest.me:8181/v1/data/hookd",
        "curl -X PATCH -d '[]' http://7f000001.7f000001.rbndr.us:8181/v1/data/x",
    ],
)
def test_hookd_s_own_endpoints_are_found_under_a_name_that_spells_the_loopback(line: str, proj: Path) -> None:
    own = own_endpoints(Config(opa=OpaConfig(url="http://127.0.0.1:8181"), http=HttpConfig(port=8765)))
    assert reached_endpoints(own, effects(line, proj))["endpoints"]
