"""Turning bundle bytes into a serving layer, with nothing half-applied: verify (signature, files,
hashes, scope, roots, Python-must-be-signed), extract into a fresh directory, compile every policy in
it, and check its roots against the other active bundles. Only a fully compiled bundle is returned;
the caller swaps it in with one assignment. Free of logging, so `hookd eval` can use it too."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from hookd.bundle.archive import Limits
from hookd.bundle.config import BundlesConfig, BundleSource
from hookd.bundle.format import roots_overlap
from hookd.bundle.load import Bundle, extract, open_bundle
from hookd.bundle.store import BundleStore
from hookd.errors import BundleError, HookdError, one_line
from hookd.policy.layers import Layer, Rank
from hookd.types import Engine

Compile = Callable[[Path, bool], Engine]  # (policy directory, signed) -> engine; raises PolicyLoadError


@dataclass(frozen=True, slots=True)
class Active:
    source: BundleSource
    bundle: Bundle
    layer: Layer
    directory: Path
    data: bytes
    etag: str

    @property
    def revision(self) -> str:
        return self.bundle.revision


def verify_bundle(source: BundleSource, data: bytes, config: BundlesConfig) -> Bundle:
    """The CPU-only part (thread-safe): archive, manifest, signature and hashes."""
    limits = Limits(file_bytes=source.size_limit_bytes, total_bytes=max(source.size_limit_bytes, 4 * len(data)))
    return open_bundle(data, config.key_for(source), limits)


def activate(
    source: BundleSource,
    bundle: Bundle,
    data: bytes,
    etag: str,
    *,
    store: BundleStore,
    compile_dir: Compile,
    others: Iterable[Active],
) -> Active:
    """Extract and compile a verified bundle (on the thread that will evaluate it). Raises BundleError."""
    if source.mode != "shadow":
        check_roots(source.name, bundle, others)
    try:
        directory = extract(bundle, store.directory(source.name))
    except OSError as exc:
        raise BundleError(f"cannot extract the bundle into {store.root}: {exc.strerror or exc}") from None
    try:
        engine = compile_dir(directory, bundle.verified.signed)
    except Exception as exc:  # a compile error, or even a compiler crash, refuses the bundle: never the daemon
        store.sweep_one(directory)
        kind = "" if isinstance(exc, HookdError) else f"{type(exc).__name__}: "
        raise BundleError(f"policies do not compile: {kind}{one_line(str(exc))}") from None
    layer = Layer(
        name=source.name,
        rank=Rank.ORGANISATION,
        engine=engine,
        location=source.location,
        pinned_revision=bundle.revision,
        mode=source.mode,
        replaces=source.replaces,
    )
    return Active(source=source, bundle=bundle, layer=layer, directory=directory, data=data, etag=etag)


def check_roots(name: str, bundle: Bundle, others: Iterable[Active]) -> None:
    for other in others:
        # a shadow bundle is a candidate for another's data: it never serves beside it, so they may overlap
        if other.source.name == name or other.source.mode == "shadow":
            continue
        for mine in bundle.manifest.roots:
            for theirs in other.bundle.manifest.roots:
                if roots_overlap(mine, theirs):
                    raise BundleError(
                        f"roots of bundle {name!r} ({mine!r}) overlap roots of bundle {other.source.name!r} "
                        f"({theirs!r}); bundles must own disjoint parts of data"
                    )


def kept_bundles(
    config: BundlesConfig, store: BundleStore, compile_dir: Compile
) -> tuple[list[Active], dict[str, str]]:
    """The last good bundle of every configured source, verified and compiled again (start-up, before any
    network). Returns the active ones and, by source name, why a kept bundle was refused."""
    active: list[Active] = []
    errors: dict[str, str] = {}
    for source in config.sources:
        try:
            kept = store.load(source.name)
            if kept is None:
                continue
            bundle = verify_bundle(source, kept.data, config)
            active.append(
                activate(source, bundle, kept.data, kept.etag, store=store, compile_dir=compile_dir, others=active)
            )
        except BundleError as exc:
            errors[source.name] = str(exc)
    return active, errors
