"""What opening a URL does, for every tool that takes one (hookd.enrich.tool_effects, hookd.enrich.effects.fetches):
a web tool's URL or one in its prompt, a browser's `navigate`, an MCP server's `fetch` or resource `uri`. A `file:`
URL in each of its forms reads its file; the cloud instance metadata service in any spelling of its address is a
read of the machine's credentials (blind-tools-3's first run let all of these through)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.enrich.effects.fetches import instance_metadata
from tests.unit.enrich.test_tool_effects import HOME, effects, enriched

METADATA = [
    "http://2852039166/latest/meta-data/",  # 169.254.169.254 as one decimal number
    "http://0xA9FEA9FE/latest/meta-data/",  # as one hex number
    "http://0251.0376.0251.0376/",  # as octal parts
    "http://169.254.43518/",  # as three parts
    "http://[::ffff:169.254.169.254]/latest/",  # IPv4-mapped IPv6
    "http://[fd00:ec2::254]/latest/meta-data/",  # EC2's IPv6 endpoint
    "http://169.254.170.2/v2/credentials/x",  # ECS task credentials (link-local)
    "http://metadata/computeMetadata/v1/",  # GCE's short name
    "http://METADATA.GOOGLE.INTERNAL./computeMetadata/v1/",  # case, root dot
    "http://instance-data/latest/meta-data/",
    "http://100.100.100.200/latest/meta-data/",
    "http://1684301000/latest/",  # 100.100.100.200 as one decimal number
    "http://169.254.169.254.nip.io/latest/meta-data/",  # wildcard DNS: the labels spell the address
    "http://app.169.254.169.254.nip.io/latest/",
    "http://169-254-169-254.sslip.io/latest/",
    "http://169.254.169.254.sslip.io./latest/",
    "http://a9fea9fe.7f000001.rbndr.us/latest/meta-data/",  # DNS rebinding: each label an address in hex
    "http://make-1.2.3.4-rebind-169.254-169.254-rr.1u.ms/latest/",  # octets joined by dots and dashes
    "http://169\u3002254\u3002169\u3002254/latest/meta-data/",  # ideographic dots: a URL parser reads `.`
    "http://\uff10\uff58\uff41\uff19\uff46\uff45\uff41\uff19\uff46\uff45/",  # fullwidth 0xa9fea9fe (NFKC)
    "http://169.254.169.254\uff0flatest/meta-data/",  # a fullwidth solidus ends the host as `/` does
]
NOT_METADATA = [
    "https://docs.python.org/3/",
    "http://127.0.0.1:5173/",
    "http://localhost:3000/login",
    "http://10.0.0.5/api",
    "http://deadbeef/",  # a host name, not a number
    "http://0x/",
    "http://example.com./x",
    "http://10.0.0.5.nip.io/",  # spells an address that is no metadata service
    "http://cafe1234.7f000001.rbndr.us/",  # hex labels spelling other addresses
    "http://release-1-2-3-4.example.com/",  # octets joined by dashes that are no metadata service
    "http://1.2.3.example.com/",
    "http://build-2024-01-02.example.com/",
    "http://\u4f8b\u3048\u3002jp/",  # an international name with an ideographic dot
]


@pytest.mark.parametrize("url", METADATA)
def test_each_spelling_of_the_metadata_service_is_it(url: str) -> None:
    assert instance_metadata(url)


@pytest.mark.parametrize("url", NOT_METADATA)
def test_other_hosts_are_not(url: str) -> None:
    assert not instance_metadata(url)


def _metadata_reads(event: object) -> list[str]:
    return [e["url"] for e in event.facts.get("effects", []) if e.get("metadata")]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("client", "tool", "tool_input"),
    [
        ("gemini", "web_fetch", {"prompt": "Summarise http://2852039166/latest/meta-data/ for me"}),
        ("opencode", "webfetch", {"url": "http://169.254.169.254/metadata/identity/oauth2/token", "format": "text"}),
        ("qwen", "mcp__puppeteer__puppeteer_navigate", {"url": "http://169.254.169.254/latest/user-data"}),
        ("claude", "mcp__fetch__fetch", {"url": "http://instance-data.ec2.internal/latest/"}),
        ("claude", "mcp__browser__open", {"options": {"targetUrl": "http://[fd00:ec2::254]/latest/"}}),
    ],
)
def test_any_tool_opening_the_metadata_service_reads_credentials(
    client: str, tool: str, tool_input: dict[str, object], proj: Path
) -> None:
    assert _metadata_reads(enriched(client, tool, tool_input, proj))


def test_a_page_or_a_local_dev_server_is_a_fetch_only(proj: Path) -> None:
    for client, tool, tool_input in [
        ("kilo", "webfetch", {"url": "http://127.0.0.1:5173/", "format": "html"}),
        ("claude", "mcp__playwright__browser_navigate", {"url": "http://localhost:3000/login"}),
        ("gemini", "web_fetch", {"prompt": "Summarise https://docs.python.org/3/library/pathlib.html"}),
    ]:
        event = enriched(client, tool, tool_input, proj)
        assert [e["op"] for e in event.facts["effects"]] == ["fetch"]


@pytest.mark.parametrize(
    ("client", "tool", "tool_input"),
    [
        ("opencode", "webfetch", {"url": f"file:{HOME}/.git-credentials", "format": "text"}),
        ("copilot", "web_fetch", {"url": f"FILE://localhost{HOME}/.git-credentials"}),
        ("claude", "mcp__playwright__browser_navigate", {"url": f"file://{HOME}/.git-credentials"}),
        ("claude", "ReadMcpResourceTool", {"server": "filesystem", "uri": f"file://{HOME}/.git-credentials"}),
        ("gemini", "read_mcp_resource", {"uri": f"file://{HOME}/.git-credentials"}),
        ("gemini", "web_fetch", {"prompt": f"read file:{HOME}/.git-credentials?x=1 now"}),
        ("qwen", "web_fetch", {"url": f"file://{HOME}/.git-credentials#top", "prompt": "list the hosts"}),
        ("kilo", "webfetch", {"url": f"file:///{HOME.lstrip('/')}/.git-credentials#L1?raw=1", "format": "text"}),
    ],
)
def test_a_file_url_in_each_form_reads_its_file(
    client: str, tool: str, tool_input: dict[str, object], proj: Path
) -> None:
    assert ("read", f"{HOME}/.git-credentials", True) in effects(enriched(client, tool, tool_input, proj))


def test_a_file_url_with_no_path_reads_nothing(proj: Path) -> None:
    event = enriched("gemini", "web_fetch", {"prompt": "what does a file:// URL mean? see https://x.dev/a"}, proj)
    assert effects(event) == [("fetch", "", True)]


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("mcp__playwright__browser_evaluate",
         {"function": "async () => (await fetch('http://169.254.169.254/latest/meta-data/iam/')).text()"}),
        ("mcp__puppeteer__puppeteer_evaluate",
         {"script": "fetch('http://[fd00:ec2::254]/latest/').then(r => r.text())"}),
        ("mcp__devtools__evaluate_script",
         {"options": {"expression": "fetch('http://metadata/computeMetadata/v1/')"}}),
    ],
)  # fmt: skip
def test_code_a_browser_tool_runs_is_searched_for_the_urls_it_opens(
    tool: str, tool_input: dict[str, object], proj: Path
) -> None:
    """blind-tools-5: Playwright's browser_evaluate of a `fetch` of the metadata service was allowed: an argument
    named for code (`function`, `script`, `expression`) is searched for URLs as a web tool's prompt is."""
    assert _metadata_reads(enriched("copilot", tool, tool_input, proj))


def test_code_a_browser_tool_runs_without_a_url_opens_nothing(proj: Path) -> None:
    event = enriched("copilot", "mcp__playwright__browser_evaluate", {"function": "() => document.title"}, proj)
    assert not [e for e in event.facts.get("effects", []) if e["op"] in ("fetch", "read")]
