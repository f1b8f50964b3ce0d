"""The composition root of the hot path: the only module that names concrete dialects, enrichers
and engines. Kept free of logging and transport imports so that `hookd eval`, `hookd test` and the
per-call bench baseline load no more than deciding needs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hookd.agentproc import session_is_interactive
from hookd.config import Config
from hookd.dialects.claude import ClaudeDialect
from hookd.dialects.gemini import GeminiDialect
from hookd.engines.composite import CompositeEngine
from hookd.engines.rego_embedded import RegoEmbeddedEngine
from hookd.enrich.paths import enrich_paths
from hookd.enrich.shell import enrich_shell
from hookd.pipeline import AskPolicy, EngineHolder, InteractiveProbe, Pipeline
from hookd.policy.python_sources import Source, load_python_set
from hookd.types import Engine, Enricher, Outcome

ENRICHERS: Sequence[Enricher] = (enrich_shell, enrich_paths)


def engine_for_dir(
    config: Config, path: Path, *, source: Source = "local", signed: bool = False, wait: bool = True
) -> Engine:
    """The engine of ONE policy directory: its Rego, plus its Python policies (in sandboxed workers) when it
    has any. `source` and `signed` carry the trust rule: Python from a local directory must be owned by the
    daemon's uid and not group/other-writable; Python from a bundle runs only when the bundle is signed.
    With `wait=False` the Python workers are only started: `await ready(engine)` before serving it.
    Raises PolicyLoadError."""
    rego = rego_engine(config, path)
    python_set = load_python_set(path, source=source, signed=signed)
    if python_set is None:
        return rego
    from hookd.engines.python_workers import start_engine  # only policy sets with Python pay for its imports

    return CompositeEngine([rego, start_engine(config, python_set, wait=wait)])


def rego_engine(config: Config, path: Path) -> Engine:
    """The Rego part, as daemon.engine says: regorus in process, or an OPA server (docs/opa.md)."""
    if config.daemon.engine == "opa":
        from hookd.engines.rego_opa import RegoOpaEngine  # opa_client and aiohttp: only when configured

        return RegoOpaEngine.load(path, config.opa)
    return RegoEmbeddedEngine.load(path)


def load_engine(config: Config, policies: Path | None = None, *, wait: bool = True) -> Engine:
    """The engine that serves a policy set: the one place that turns config into engines, used at
    start-up, by every reload and by `hookd eval`. Raises PolicyLoadError (the old set keeps serving)."""
    return engine_for_dir(config, policies or config.daemon.policies, wait=wait)


async def ready(engine: Engine) -> None:
    """Wait until an engine built with `wait=False` can serve (raises PolicyLoadError, and closes it, if not)."""
    waiting = getattr(engine, "ready", None)
    if waiting is not None:
        await waiting()


def build_pipeline(
    config: Config, engine: Engine | None = None, probe: InteractiveProbe = session_is_interactive
) -> tuple[Pipeline, EngineHolder]:
    holder = EngineHolder(engine or load_engine(config))
    ask = AskPolicy(
        headless_fallback=Outcome.DENY if config.ask.headless_fallback == "deny" else Outcome.ALLOW,
        unknown_is_headless=config.ask.unknown_is_headless,
    )
    pipeline = Pipeline(
        dialects={"gemini": GeminiDialect(), "claude": ClaudeDialect()},
        enrichers=ENRICHERS,
        engines=holder,
        fail_modes=config.shim.fail_modes,
        ask=ask,
        probe=probe,
    )
    return pipeline, holder
