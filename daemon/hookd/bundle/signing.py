"""OPA's bundle signatures: `.signatures.json` = {"signatures": [one compact JWT]} whose payload lists
every other file with its hash; verification follows OPA's rules (bundle/verify.go): the JWT verifies
with the configured key, the listed files are exactly the bundle's files, every hash matches, and the
payload's scope equals the configured scope.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookd.bundle.format import SIGNATURES, file_hash
from hookd.errors import BundleError

ALGORITHMS = (
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "HS256", "HS384", "HS512",
)  # fmt: skip
DEFAULT_KEY_ID = "default"


@dataclass(frozen=True, slots=True)
class Key:
    """A verification (or signing) key: PEM text for RS*/PS*/ES*, the shared secret for HS*."""

    algorithm: str
    material: str
    key_id: str = DEFAULT_KEY_ID
    scope: str = ""

    @classmethod
    def from_file(cls, path: Path, algorithm: str, *, key_id: str = DEFAULT_KEY_ID, scope: str = "") -> Key:
        try:
            material = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise BundleError(f"cannot read key {path}: {exc}") from None
        return cls(check_algorithm(algorithm), material, key_id, scope)


def check_algorithm(algorithm: str) -> str:
    if algorithm not in ALGORITHMS:
        raise BundleError(f"unsupported signing algorithm {algorithm!r} (one of {', '.join(ALGORITHMS)})")
    return algorithm


def _is_hmac(algorithm: str) -> bool:
    return algorithm.startswith("HS")


def _signing_key(key: Key) -> Any:
    if _is_hmac(key.algorithm):
        return key.material.encode()
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    try:
        return load_pem_private_key(key.material.encode(), password=None)
    except (ValueError, TypeError) as exc:
        raise BundleError(f"the signing key is not an unencrypted PEM private key: {exc}") from None


def _verification_key(key: Key) -> Any:
    """Like OPA: a PEM public key (PKIX or PKCS#1), a certificate, or a private key (its public half)."""
    if _is_hmac(key.algorithm):
        return key.material.encode()
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import load_pem_private_key, load_pem_public_key

    pem = key.material.encode()
    try:
        if b"CERTIFICATE" in pem:
            return x509.load_pem_x509_certificate(pem).public_key()
        if b"PRIVATE KEY" in pem:
            return load_pem_private_key(pem, password=None).public_key()
        return load_pem_public_key(pem)
    except (ValueError, TypeError) as exc:
        raise BundleError(f"verification key {key.key_id!r} is not a usable PEM key: {exc}") from None


def sign(files: Mapping[str, bytes], key: Key, *, claims: Mapping[str, Any] | None = None) -> bytes:
    """The `.signatures.json` for `files` (every file of the bundle but the signatures file)."""
    import jwt

    check_algorithm(key.algorithm)
    entries = [
        {"name": name, "hash": file_hash(name, content), "algorithm": "SHA-256"}
        for name, content in sorted(files.items())
        if name != SIGNATURES
    ]
    payload: dict[str, Any] = {"files": entries, **(claims or {})}
    if key.scope:
        payload["scope"] = key.scope
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pyjwt warns about short HMAC secrets; the operator chose the key
        try:
            token = jwt.encode(payload, _signing_key(key), algorithm=key.algorithm, headers={"kid": key.key_id})
        except (jwt.PyJWTError, ValueError, TypeError) as exc:
            raise BundleError(f"cannot sign with {key.algorithm}: {exc}") from None
    return json.dumps({"signatures": [token]}, indent=2).encode() + b"\n"


@dataclass(frozen=True, slots=True)
class Verified:
    signed: bool  # a signature was present and verified
    key_id: str = ""
    claims: Mapping[str, Any] | None = None


def verify(files: Mapping[str, bytes], key: Key | None) -> Verified:
    """Verify a bundle's files by OPA's truth table; raises BundleError with the reason."""
    raw = files.get(SIGNATURES)
    if raw is None:
        if key is not None:
            raise BundleError("bundle is not signed (no .signatures.json) but a verification key is configured")
        return Verified(signed=False)
    if key is None:
        raise BundleError("bundle is signed (.signatures.json) but no verification key is configured for it")
    token = _one_token(raw)
    payload = _verified_payload(token, key)
    listed = _listed_files(payload)
    present = {name for name in files if name != SIGNATURES}
    missing, extra = sorted(set(listed) - present), sorted(present - set(listed))
    if extra:
        raise BundleError(f"file(s) {extra} are in the bundle but not in its signature")
    if missing:
        raise BundleError(f"file(s) {missing} are in the bundle signature but not in the bundle")
    for name, (digest, algorithm) in sorted(listed.items()):
        actual = file_hash(name, files[name], algorithm)
        if actual != digest.lower():
            raise BundleError(f"{name}: digest mismatch (signed {digest}, got {actual})")
    scope = payload.get("scope", "")
    if scope != key.scope:
        raise BundleError(f"signature scope {scope!r} does not match the configured scope {key.scope!r}")
    return Verified(signed=True, key_id=key.key_id, claims=payload)


def _one_token(raw: bytes) -> str:
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise BundleError(f".signatures.json is not valid JSON: {exc}") from None
    tokens = value.get("signatures") if isinstance(value, dict) else None
    if not isinstance(tokens, list) or len(tokens) != 1 or not isinstance(tokens[0], str):
        raise BundleError(".signatures.json must hold exactly one JWT in 'signatures'")
    return tokens[0]


def _verified_payload(token: str, key: Key) -> dict[str, Any]:
    import jwt

    options: Any = {"verify_exp": False, "verify_iat": False, "verify_nbf": False, "verify_aud": False,
                    "verify_iss": False, "require": []}  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            header = jwt.get_unverified_header(token)
            if header.get("alg") != key.algorithm:
                raise BundleError(f"signature uses {header.get('alg')!r}, the key {key.key_id!r} is {key.algorithm}")
            payload = jwt.decode(token, _verification_key(key), algorithms=[key.algorithm], options=options)
        except jwt.PyJWTError as exc:
            raise BundleError(f"signature does not verify with key {key.key_id!r}: {exc}") from None
    if not isinstance(payload, dict):
        raise BundleError("signature payload is not an object")
    return payload


def _listed_files(payload: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    entries = payload.get("files")
    if not isinstance(entries, list):
        raise BundleError("signature payload has no 'files' list")
    listed: dict[str, tuple[str, str]] = {}
    for entry in entries:
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("name"), str)
            or not isinstance(entry.get("hash"), str)
        ):
            raise BundleError("signature payload lists a file without name or hash")
        algorithm = entry.get("algorithm") or ""
        if not algorithm:
            raise BundleError(f"no hashing algorithm given for {entry['name']} in the signature")
        listed[entry["name"].removeprefix("/")] = (entry["hash"], str(algorithm))
    return listed
