"""Test support for bundles: a real HTTP bundle server on 127.0.0.1 (ETags, 304, long polling, failure
on demand), keys made on the spot, and small policy directories."""

from __future__ import annotations

import hashlib
import http.server
import ipaddress
import json
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from support import RunningDaemon, start_daemon, wait_for_socket

LONG_POLL_TYPE = "application/vnd.openpolicyagent.bundles"


@dataclass
class KeyPair:
    algorithm: str
    private: str  # PEM, or the HMAC secret
    public: str

    def write(self, directory: Path) -> tuple[Path, Path]:
        directory.mkdir(parents=True, exist_ok=True)
        private, public = directory / f"{self.algorithm}.key", directory / f"{self.algorithm}.pub"
        private.write_text(self.private)
        public.write_text(self.public)
        return private, public


def make_key(algorithm: str = "RS256") -> KeyPair:
    if algorithm.startswith("HS"):
        secret = hashlib.sha256(f"{algorithm}-{time.monotonic_ns()}".encode()).hexdigest()
        return KeyPair(algorithm, secret, secret)
    curves = {"ES256": ec.SECP256R1(), "ES384": ec.SECP384R1(), "ES512": ec.SECP521R1()}
    key = (
        rsa.generate_private_key(65537, 2048)
        if algorithm.startswith(("RS", "PS"))
        else ec.generate_private_key(curves[algorithm])
    )
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return KeyPair(algorithm, private, public)


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 (its own CA) and its key, as PEM files."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "hookd test bundle server")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )  # fmt: skip
    directory.mkdir(parents=True, exist_ok=True)
    cert_path, key_path = directory / "server.crt", directory / "server.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


def policy_dir(root: Path, package: str, body: str, data: str | None = None) -> Path:
    """A policy directory holding one Rego module `package hookd.<package>` (and a data.json)."""
    directory = root / package
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "policy.rego").write_text(f"package hookd.{package}\n\n{body}\n")
    if data is not None:
        (directory / "data.json").write_text(data)
    return root


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    status: int
    at: float


@dataclass
class BundleServer:
    """Serves `files` (path -> bytes) with strong ETags (sha256), 304 on a matching If-None-Match and
    OPA's long polling; `fail` makes every request answer that HTTP status (0: serve normally)."""

    files: dict[str, bytes] = field(default_factory=dict)
    fail: int = 0
    requests: list[Request] = field(default_factory=list)
    tls: tuple[Path, Path] | None = None  # (certificate, key): serve https
    in_flight: int = 0

    def __post_init__(self) -> None:
        self._changed = threading.Condition()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                server.handle(self)

            def log_message(self, format: str, *args: object) -> None:
                return

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        if self.tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*self.tls)
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    def url(self, path: str) -> str:
        scheme = "https" if self.tls else "http"
        return f"{scheme}://127.0.0.1:{self.port}/{path.lstrip('/')}"

    def publish(self, path: str, data: bytes) -> None:
        with self._changed:
            self.files[path.lstrip("/")] = data
            self._changed.notify_all()

    def count(self, status: int) -> int:
        return sum(1 for r in self.requests if r.status == status)

    def handle(self, handler: http.server.BaseHTTPRequestHandler) -> None:
        path = handler.path.lstrip("/")
        headers = {k.lower(): v for k, v in handler.headers.items()}
        self.in_flight += 1  # requests being answered or held (long polls)
        try:
            status = self._answer(handler, path, headers)
        finally:
            self.in_flight -= 1
        self.requests.append(Request(path, headers, status, time.monotonic()))

    def _answer(self, handler: http.server.BaseHTTPRequestHandler, path: str, headers: dict[str, str]) -> int:
        if self.fail:
            return _send(handler, self.fail, b"failing on demand", {})
        wait = _wait_seconds(headers.get("prefer", ""))
        deadline = time.monotonic() + wait
        with self._changed:
            while True:
                data = self.files.get(path)
                if data is None:
                    return _send(handler, 404, b"no such bundle", {})
                etag = '"' + hashlib.sha256(data).hexdigest()[:32] + '"'
                if headers.get("if-none-match") != etag:
                    content_type = LONG_POLL_TYPE if wait else "application/gzip"
                    return _send(handler, 200, data, {"ETag": etag, "Content-Type": content_type})
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    extra = {"Content-Type": LONG_POLL_TYPE} if wait else {}
                    return _send(handler, 304, b"", {"ETag": etag, **extra})
                self._changed.wait(remaining)

    def close(self) -> None:
        with self._changed:
            self._changed.notify_all()
        self.httpd.shutdown()
        self.httpd.server_close()


def _wait_seconds(prefer: str) -> float:
    for part in prefer.replace(",", ";").split(";"):
        key, _, value = part.strip().partition("=")
        if key == "wait" and value.isdigit():
            return float(value)
    return 0.0


def _send(handler: http.server.BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str]) -> int:
    handler.send_response(status)
    for key, value in headers.items():
        handler.send_header(key, value)
    if status != 304:
        handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    if status != 304:
        handler.wfile.write(body)
    return status


def events(daemon: RunningDaemon) -> list[dict[str, Any]]:
    out = []
    for line in daemon.log().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def wait_for(daemon: RunningDaemon, what: Callable[[list[dict[str, Any]]], Any], timeout: float = 60) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = what(events(daemon))
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"not seen within {timeout}s; daemon log:\n{daemon.log()[-4000:]}")


def named(event: str, **fields: Any) -> Callable[[list[dict[str, Any]]], list[dict[str, Any]]]:
    return lambda evs: [e for e in evs if e.get("event") == event and all(e.get(k) == v for k, v in fields.items())]


SLACK = "[daemon]\nrequest_timeout_ms = 30000\n"  # decisions are checked for what they say, never for speed


def start(tmp_path: Path, policies: Path | None = None, *, config: str = "", **kwargs: Any) -> RunningDaemon:
    """start_daemon with generous deadlines (sockets, requests): bundle tests share the box with others."""
    daemon = start_daemon(tmp_path, *([policies] if policies else []), config=SLACK + config, wait=False, **kwargs)
    wait_for_socket(daemon, timeout=90)
    return daemon
