"""The effects of programs that fetch URLs (curl, wget, httpie, …: docs/policies.md, "The effect model")."""

from __future__ import annotations

import ipaddress
import os
import re
import socket
import unicodedata
from typing import Any
from urllib.parse import SplitResult, parse_qsl, unquote, urlsplit

from hookd.enrich.effects.catalogue import Program, catalogue
from hookd.enrich.effects.grpc import grpc_requests
from hookd.enrich.effects.ledger import Ledger, Place
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.words import _dynamic


def fetch_effects(
    model: Ledger, program: Program, parsed: Parsed, operands: list[str], place: Place, name: str
) -> None:
    """What a downloader fetches, and the file it writes under the URL's name (`curl -O`, `wget URL`)."""
    if grpc := program.rest_api.get("grpc"):
        grpc_requests(model, grpc, parsed, name)
        return
    method = request_method(program, parsed, operands)
    if program.rest_api.get("method_operand") and _method_word(operands):
        operands = operands[1:]  # httpie's optional METHOD before the URL
    urls = operands[:1] if program.operands == "fetch-first" else operands
    urls += [v for o, v in parsed.options if o == "--url" and v]
    remote = any(o in program.remote_name for o, _ in parsed.options) or (
        "" in program.remote_name and not any(program.option_ops.get(o) == "write-fetched" for o, _ in parsed.options)
    )
    for url in urls:
        if url[:7].lower() == "file://":  # `curl file:///home/u/.ssh/id_rsa`: a read of the local file
            model.add("read", place(url[7:].split("?", 1)[0] or "/"), name, url=url)
            continue
        fetched = model.add("fetch", None, name, url=url, known=not _dynamic(url))
        if method:
            fetched["method"] = method
        if socket := next((v for o, v in parsed.options if o in program.rest_api.get("socket", ()) and v), ""):
            fetched["socket"] = socket  # the server on that socket answers, whatever the URL's host
        if socket and (service := admin_socket(socket)):  # `curl --unix-socket /var/run/docker.sock URL`
            model.add("read", None, name, url=url, admin=service)
        for found in reached_secrets(url):  # it answers with the machine's cloud credentials or a service's secrets
            model.add("read", None, name, **found)
        if served := served_home_file(url, model.home):  # a local server hands out a file of the home
            model.add("read", place(served), name, url=url)
        if remote and "/" in url:
            base = url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
            if base:
                effect = model.add("write", place(base), name)
                if effect["path"]:
                    model.produce(effect["path"], "fetch")


def request_method(program: Program, parsed: Parsed, operands: list[str]) -> str:
    """The HTTP method of a request that is no plain GET (`curl -X PUT`, `curl -d …` a POST, `curl -T F` a PUT,
    `http DELETE URL`: the catalogue's `rest_api`), upper case; empty for a GET."""
    rest = program.rest_api
    given = parsed.options
    method = next((v for o, v in given if o in rest.get("method", ()) and v), "")
    if not method and rest.get("method_operand") and _method_word(operands):
        method = operands[0]
    if not method and any(o in rest.get("put", ()) for o, _ in given):
        method = "PUT"
    if not method and any(o in rest.get("post", ()) for o, _ in given):
        method = "POST"
    return "" if method.upper() in ("", "GET", "HEAD") else method.upper()


_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def _method_word(operands: list[str]) -> bool:
    """httpie's METHOD operand: any upper-case word, or a standard method in any case before a URL (`http put URL`;
    https://httpie.io/docs/cli/http-method: the name is case-insensitive)."""
    word = operands[0] if operands else ""
    return word.isalpha() and (word.isupper() or (word.upper() in _METHODS and len(operands) > 1))


def instance_metadata(url: str) -> bool:
    """`url` names a cloud instance metadata service: a link-local address (169.254.169.254, fe80::…) in any
    form a client resolves (`2852039166`, `0xA9FEA9FE`, `0251.0376.0251.0376`, `[::ffff:169.254.169.254]`), or a
    host of the catalogue's `metadata_hosts` (`metadata.google.internal.` with its root dot, any case), or any host
    asked for a path of the metadata protocol (`metadata_hosts.protocol_paths`: `/latest/meta-data/`)."""
    split = _split(_as_a_browser_reads(url))
    if split is None:
        return False
    host = (split.hostname or "").rstrip(".").lower()
    hosts = catalogue().metadata_hosts
    if host in hosts or unquote(split.path).lower().startswith(catalogue().metadata_paths):
        return True  # a host of the list, or the metadata protocol's own path at any host (a DNS alias of one)
    address = _address(host)
    if address is None and any(a.is_link_local or str(a) in hosts for a in _spelled_addresses(host)):
        return True
    if _is_local(host, address):
        return _local_metadata(split)
    if address is None:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_link_local or str(address) in hosts


def _local_metadata(split: SplitResult) -> bool:
    """A metadata service served on the machine itself (Azure Arc's IMDS on localhost:40342, Service Fabric's
    token endpoint): a loopback host at one of the catalogue's ports, or at any port on one of its credential
    paths (`/metadata/identity/oauth2/token`, `/latest/meta-data/iam/security-credentials/`)."""
    ports, paths = catalogue().metadata_local
    try:
        port = split.port
    except ValueError:
        port = None
    return port in ports or unquote(split.path).lower().startswith(paths)


def loopback(host: str) -> bool:
    """`host` is this machine: `localhost` (and a name below it, RFC 6761), or a loopback or unspecified address
    in any spelling a resolver reads (`127.1`, `2130706433`, `::1`, `::ffff:127.0.0.1`, `0.0.0.0`)."""
    host = host.strip("[]").rstrip(".").lower()
    return _is_local(host, _address(host))


def _is_local(host: str, address: ipaddress.IPv4Address | ipaddress.IPv6Address | None) -> bool:
    if address is None and any(a.is_loopback or a.is_unspecified for a in named_addresses(host)):
        return True  # `127.0.0.1.nip.io`, `7f000001.rbndr.us`, `app.localtest.me`, `x.localhost`
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address is not None and (address.is_loopback or address.is_unspecified)


def named_addresses(host: str) -> list[ipaddress.IPv4Address]:
    """The addresses a name resolves to by its DNS service's documented rule (the catalogue's `address_names`):
    the address it spells under a wildcard service (`127-0-0-1.sslip.io`, `a9fea9fe.7f000001.rbndr.us`: both of
    rbndr's), or the loopback under a name whose every label is the loopback (`app.localtest.me`, RFC 6761's
    `localhost`)."""
    spelling, loopbacks = catalogue().address_names
    host = host.rstrip(".").lower()
    if any(host == n or host.endswith("." + n) for n in loopbacks):
        return [ipaddress.IPv4Address("127.0.0.1")]
    return _spelled_addresses(host) if any(host.endswith("." + n) for n in spelling) else []


def admin_socket(path: str) -> str:
    """The local admin service (Docker's API, containerd) listening on the Unix socket `path`, or ``."""
    return catalogue().admin_sockets.get(os.path.normpath(path) if path.startswith("/") else path, "")


def local_admin(url: str) -> str:
    """The local admin or credential service `url` reaches (the catalogue's `local_admin`: Docker's Engine API on
    2375, the kubelet on 10250, Consul on 8500, …), or ``: a loopback host in any spelling at its documented port,
    or its Unix socket named as the host (`http+unix://%2Fvar%2Frun%2Fdocker.sock/…`, `unix:///run/…sock`)."""
    split = _split(_as_a_browser_reads(url))
    if split is None:
        return ""
    if "unix" in split.scheme.lower():
        return admin_socket(unquote(split.netloc) or unquote(split.path).split(":", 1)[0])
    try:
        port = split.port
    except ValueError:
        return ""
    host = (split.hostname or "").rstrip(".").lower()
    return catalogue().admin_ports.get(port or 0, "") if port and _is_local(host, _address(host)) else ""


def reached_secrets(url: str) -> list[dict[str, Any]]:
    """What reading `url` and each URL inside it (a redirector's or a proxy's `?url=`, a path holding a URL) hands
    out: the cloud metadata service's credentials (`metadata`), a local admin service's secrets (`admin`)."""
    out: list[dict[str, Any]] = []
    for place in reached_urls(url):
        if instance_metadata(place):
            out.append({"url": place, "metadata": True})
        elif service := local_admin(place):
            out.append({"url": place, "admin": service})
    return out


def reached_urls(url: str, depth: int = 0) -> list[str]:
    """`url` and the URLs it carries after its host, percent-encoded or not (a redirector's `?url=`, `?next=//h/`,
    a CORS proxy's `/https://…` path): a redirect or a proxy makes the call reach each of them too."""
    split = _split(url)
    if split is None or depth > 3:
        return [url]
    tail = url[url.find(split.netloc) + len(split.netloc) :] if split.netloc else ""
    inner = [m.group() for m in _NESTED_URL.finditer(_unquoted(tail))]
    inner += ["http:" + v for _, v in parse_qsl(split.query) if v.startswith("//") and not v.startswith("///")]
    return [url, *(u for i in inner[:8] for u in reached_urls(i, depth + 1))]


_NESTED_URL = re.compile(r"[a-z][a-z0-9+.-]{0,20}://[^\s&\"'<>`]+", re.IGNORECASE)


def _unquoted(text: str) -> str:
    for _ in range(3):  # a URL encoded once per hop it is passed through
        if "%" not in text or (plain := unquote(text)) == text:
            break
        text = plain
    return text


def served_home_file(url: str, home: str) -> str:
    """The file of the home a server on this machine hands out at `url`, whose path names it whole after the
    server's own prefix (a Jupyter server rooted at `/`: `/files/home/u/.aws/credentials`,
    `/api/contents/home/u/.ssh/id_rsa`; a static server of `/`), or ``: what the fetch reads is that file."""
    if not home or home == "/" or home.rstrip("/") not in unquote(url):  # (the common case: no home in the URL)
        return ""
    split = _split(_as_a_browser_reads(url))
    if split is None or not loopback(split.hostname or ""):
        return ""
    path = unquote(split.path)
    at = path.find(home.rstrip("/") + "/")
    return os.path.normpath(path[at:]) if at >= 0 else ""


def _split(url: str) -> SplitResult | None:
    try:
        return urlsplit(url if "://" in url else "http://" + url)
    except ValueError:
        return None


def _spelled_addresses(host: str) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses a host name spells, which wildcard and rebinding DNS services resolve to: four octets in
    a row, whether dots or dashes join them (`169.254.169.254.nip.io`, `169-254-169-254.sslip.io`, 1u.ms's
    `make-1.2.3.4-rebind-169.254-169.254-rr.1u.ms`), or a label of eight hex digits (rbndr.us's
    `a9fea9fe.7f000001.rbndr.us`)."""
    words = _SEPARATORS.split(host)[:64]
    spelled = [".".join(words[i : i + 4]) for i in range(len(words) - 3)]
    out = [ipaddress.IPv4Address(int(label, 16)) for label in host.split(".")[:16] if _HEX_ADDRESS.fullmatch(label)]
    for text in spelled:
        try:
            out.append(ipaddress.IPv4Address(text))
        except ValueError:
            continue
    return out


_SEPARATORS = re.compile(r"[.-]")
_HEX_ADDRESS = re.compile(r"[0-9a-fA-F]{8}")


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address a host names, read as the C library's resolver reads a numeric host (inet_aton: one to four
    parts, each decimal, octal or hex), which is what curl, wget and Node's URL parser connect to."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if not host or len(host) > 64 or host.strip("0123456789abcdefx.") or host.startswith("."):
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


# The dots a URL parser reads as `.` in a host (UTS #46, as WHATWG URL maps them): ideographic, fullwidth, halfwidth
_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})


def _as_a_browser_reads(url: str) -> str:
    """`url` with the compatibility forms a URL parser folds undone (fullwidth digits and letters, ideographic
    and fullwidth dots, a fullwidth solidus): NFKC, as WHATWG URL's host parsing does, then its ideographic dots."""
    return url if url.isascii() else unicodedata.normalize("NFKC", url).translate(_DOTS)
