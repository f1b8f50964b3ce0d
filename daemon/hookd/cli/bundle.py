"""`hookd bundle build | sign | verify | inspect` (docs/bundles.md)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from hookd.config import Config
from hookd.errors import BundleError


def register(sub: Any) -> None:
    bundle = sub.add_parser("bundle", help="build, sign, verify and inspect policy bundles (OPA's format)")
    cmds = bundle.add_subparsers(dest="bundle_command", required=True, metavar="SUBCOMMAND")

    build = cmds.add_parser("build", help="a policy directory into a bundle tarball")
    build.add_argument("dir")
    build.add_argument("-o", "--output", default="bundle.tar.gz")
    build.add_argument("-r", "--revision", help="the manifest's revision (default: keep the directory's .manifest)")
    build.add_argument("--root", action="append", dest="roots", help="a manifest root (repeat); default: keep, or ''")
    _signing_args(build, required=False)
    build.set_defaults(run=cmd_build)

    sign = cmds.add_parser("sign", help="(re)sign a bundle tarball")
    sign.add_argument("bundle")
    sign.add_argument("-o", "--output", help="where to write the signed bundle (default: in place)")
    _signing_args(sign, required=True)
    sign.set_defaults(run=cmd_sign)

    verify = cmds.add_parser("verify", help="check a bundle as the daemon would before activating it")
    verify.add_argument("bundle")
    verify.add_argument("--verification-key", help="PEM public key file, or the HMAC secret (file or text)")
    verify.add_argument("--signing-alg", default="RS256")
    verify.add_argument("--key-id", default="default")
    verify.add_argument("--scope", default="")
    verify.set_defaults(run=cmd_verify)

    inspect = cmds.add_parser("inspect", help="show a bundle's manifest, files and signature (not verified)")
    inspect.add_argument("bundle")
    inspect.add_argument("--json", action="store_true")
    inspect.set_defaults(run=cmd_inspect)


def _signing_args(parser: argparse.ArgumentParser, *, required: bool) -> None:
    parser.add_argument("--signing-key", required=required, help="PEM private key file, or the HMAC secret")
    parser.add_argument("--signing-alg", default="RS256", help="RS256 (default), ES256, HS256, …")
    parser.add_argument("--key-id", default="default", help="the JWT's kid (default: default, as opa)")
    parser.add_argument("--scope", default="", help="the signature's scope claim")


def _key(material: str | None, algorithm: str, key_id: str, scope: str) -> Any:
    from hookd.bundle.signing import Key, check_algorithm

    if not material:
        return None
    check_algorithm(algorithm)
    path = Path(material)
    if path.is_file():
        return Key.from_file(path, algorithm, key_id=key_id, scope=scope)
    if not algorithm.startswith("HS"):
        raise BundleError(f"key file {material} does not exist")
    return Key(algorithm, material, key_id, scope)


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise BundleError(f"cannot read {path}: {exc.strerror}") from None


def _write(path: str, data: bytes) -> None:
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, target)


def cmd_build(args: argparse.Namespace, config: Config) -> int:
    from hookd.bundle.build import build

    key = _key(args.signing_key, args.signing_alg, args.key_id, args.scope)
    data = build(Path(args.dir), revision=args.revision, roots=args.roots, key=key)
    _write(args.output, data)
    print(f"built {args.output} ({len(data)} bytes{', signed ' + key.algorithm if key else ', unsigned'})")
    return 0


def cmd_sign(args: argparse.Namespace, config: Config) -> int:
    from hookd.bundle.build import sign_tarball

    key = _key(args.signing_key, args.signing_alg, args.key_id, args.scope)
    _write(args.output or args.bundle, sign_tarball(_read(args.bundle), key))
    print(f"signed {args.output or args.bundle} with {key.algorithm} (kid {key.key_id})")
    return 0


def cmd_verify(args: argparse.Namespace, config: Config) -> int:
    from hookd.bundle.load import open_bundle

    key = _key(args.verification_key, args.signing_alg, args.key_id, args.scope)
    try:
        bundle = open_bundle(_read(args.bundle), key)
    except BundleError as exc:
        print(f"hookd: {args.bundle}: refused: {exc}", file=sys.stderr)
        return 1
    how = f"signature verified ({key.algorithm}, kid {key.key_id})" if bundle.verified.signed else "unsigned"
    print(f"{args.bundle}: ok, revision {bundle.revision!r}, {len(bundle.files)} files, {how}")
    return 0


def cmd_inspect(args: argparse.Namespace, config: Config) -> int:
    from hookd.bundle.archive import read_tarball
    from hookd.bundle.format import MANIFEST, SIGNATURES, Manifest, file_hash

    files = read_tarball(_read(args.bundle))
    manifest = Manifest.parse(files[MANIFEST]) if MANIFEST in files else Manifest()
    info: dict[str, Any] = {
        "revision": manifest.revision,
        "roots": list(manifest.roots),
        "metadata": dict(manifest.metadata),
        "files": [{"name": n, "size": len(c), "sha256": file_hash(n, c)} for n, c in sorted(files.items())],
        "signature": _unverified_signature(files.get(SIGNATURES)),
    }
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    print(f"revision: {info['revision']!r}\nroots:    {info['roots']}")
    if info["metadata"]:
        print(f"metadata: {json.dumps(info['metadata'], sort_keys=True)}")
    print("files:")
    for entry in info["files"]:
        print(f"  {entry['sha256'][:16]}  {entry['size']:>8}  {entry['name']}")
    signature = info["signature"]
    print("signature: " + (json.dumps(signature, sort_keys=True) if signature else "none (unsigned)"))
    return 0


def _unverified_signature(raw: bytes | None) -> dict[str, Any] | None:
    if raw is None:
        return None
    import jwt

    try:
        token = json.loads(raw)["signatures"][0]
        header = jwt.get_unverified_header(token)
        payload = jwt.decode(token, options={"verify_signature": False})
    except (ValueError, KeyError, IndexError, TypeError, jwt.PyJWTError) as exc:
        return {"error": f"unreadable .signatures.json: {exc}"}
    return {"alg": header.get("alg"), "kid": header.get("kid"), "scope": payload.get("scope", ""),
            "files": len(payload.get("files", []))}  # fmt: skip
