"""What bundles cost: activating one (verify, extract, compile, swap) and polling one that has not
changed (a 304), measured in-process on the shipped default policies built into a signed bundle.

  activation  verify (signature + every hash) in the worker thread's function, then extract, compile and
              compose the layered engine, as BundleManager.offer does; wall ms per activation
  poll-304    one fetch() of an unchanged bundle from a local HTTP server (If-None-Match → 304): wall and
              CPU µs of the daemon side (the request in the fetch thread)

Run: .cache/venv/bin/python bench/bundles.py [--n 30] [--polls 300] [--json FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import http.server
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from hookd.assembly import bundle_compiler, local_layers
from hookd.bundle.activate import activate, verify_bundle
from hookd.bundle.build import build
from hookd.bundle.config import BundlesConfig, BundleSource, KeyConfig
from hookd.bundle.signing import Key
from hookd.bundle.sources import fetch
from hookd.bundle.store import BundleStore
from hookd.config import Config
from hookd.policy.layers import LayeredEngine

ROOT = Path(__file__).resolve().parents[1]


def keys(tmp: Path) -> tuple[Key, Path]:
    key = rsa.generate_private_key(65537, 2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public = tmp / "pub.pem"
    public.write_bytes(
        key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    return Key("RS256", private.decode()), public


def bench_activation(n: int, tmp: Path) -> dict[str, Any]:
    signing, public = keys(tmp)
    data = build(ROOT / "policies", revision="bench", key=signing)
    source = BundleSource(name="bench", file=tmp / "b.tar.gz", key="org")
    config = BundlesConfig(sources=(source,), keys={"org": KeyConfig("org", key_file=public)})
    store, compile_dir = BundleStore(tmp / "state"), bundle_compiler(Config())
    local = local_layers(Config(), ROOT / "tests" / "fixtures" / "policies")
    verify_ms, total_ms = [], []
    for _ in range(n):
        started = time.perf_counter()
        bundle = verify_bundle(source, data, config)
        verified = time.perf_counter()
        active = activate(source, bundle, data, "", store=store, compile_dir=compile_dir, others=[])
        LayeredEngine([active.layer, *local])
        total_ms.append((time.perf_counter() - started) * 1000)
        verify_ms.append((verified - started) * 1000)
        store.sweep_one(active.directory)
    return {
        "bundle_bytes": len(data),
        "files": len(bundle.files),
        "activation_ms_median": round(statistics.median(total_ms), 2),
        "activation_ms_max": round(max(total_ms), 2),
        "verify_ms_median": round(statistics.median(verify_ms), 2),
    }


def bench_poll(polls: int) -> dict[str, Any]:
    body = b"x" * 20_000
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            if self.headers.get("If-None-Match") == etag:
                self.send_response(304)
                self.send_header("ETag", etag)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("ETag", etag)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    source = BundleSource(name="p", url=f"http://127.0.0.1:{server.server_address[1]}/b.tar.gz")
    assert fetch(source, "", 0).data == body
    wall, cpu = [], []
    for _ in range(polls):
        w, c = time.perf_counter(), time.thread_time()
        assert fetch(source, etag, 0).data is None
        cpu.append((time.thread_time() - c) * 1e6)
        wall.append((time.perf_counter() - w) * 1e6)
    server.shutdown()
    return {
        "poll_304_wall_us_median": round(statistics.median(wall)),
        "poll_304_cpu_us_median": round(statistics.median(cpu)),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--polls", type=int, default=300)
    parser.add_argument("--json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        result = {**bench_activation(args.n, Path(tmp)), **bench_poll(args.polls)}
    print(json.dumps(result, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
