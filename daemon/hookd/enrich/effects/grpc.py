"""The request a gRPC client sends (grpcurl, grpc_cli, evans: programs.json's `rest_api.grpc`). A call is an HTTP/2
POST to `/Service/Method` (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md: "Method → POST"), so it
is a fetch with method POST of the server's address, through the Unix socket the address names (`grpcurl -unix
PATH`, `grpc_cli call unix:PATH …`); a listing of the server's services or a description of one of its symbols
(`grpcurl … list`, `describe`, `grpc_cli ls`) asks its reflection service only and changes nothing (`listing`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookd.enrich.effects.ledger import Ledger
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.words import _dynamic

_UNIX = ("unix://", "unix:", "unix-abstract:")  # gRPC's name syntax (doc/naming.md): a Unix socket's address


def grpc_requests(model: Ledger, grpc: Mapping[str, Any], parsed: Parsed, name: str) -> None:
    """The fetch of the server a gRPC client's words name, with its socket and whether it only lists."""
    operands = list(parsed.operands)
    words = set(operands[:3])  # the verb: grpcurl's after the address, grpc_cli's first, evans' after `cli`
    if grpc.get("verb_first"):
        operands = operands[1:]
    given = dict(parsed.options)
    address = _address(grpc, given, operands)
    if not address or address in grpc.get("verbs", ()):
        return  # no server (`grpcurl -protoset x.protoset list` reads its files only)
    unix = next((address[len(p) :] for p in _UNIX if address.startswith(p)), "")
    if any(_set(w, o) for w in parsed.spelled for o in grpc.get("unix", ())):
        unix = address
    fetched = model.add(
        "fetch", None, name, url="grpc://" + ("localhost" if unix else address), known=not _dynamic(address)
    )
    fetched["grpc"] = True
    if unix:
        fetched["socket"] = unix
    if words & set(grpc.get("listing", ())) and not words & set(grpc.get("calls", ())):
        fetched["listing"] = True  # the reflection service answers: nothing is changed
    else:
        fetched["method"] = "POST"


def _address(grpc: Mapping[str, Any], given: Mapping[str, str | None], operands: list[str]) -> str:
    """The server's address: an operand (grpcurl's first, grpc_cli's after its verb), or its host and port options
    (evans' `--host`, `--port` with their defaults)."""
    host_option, port_option = grpc.get("host", ["", ""])
    if host_option:
        host = given.get(host_option) or str(grpc.get("default_host", "localhost"))
        return f"{host}:{given.get(port_option) or grpc.get('default_port', '')}"
    return operands[0] if operands else ""


def _set(word: str, flag: str) -> bool:
    """A Go boolean flag set: `-unix`, `-unix=true` (https://pkg.go.dev/flag: `-flag=false` turns it off)."""
    return word == flag or (word.startswith(flag + "=") and word[len(flag) + 1 :].lower() not in ("false", "0", "f"))
