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
from hookd.engines.rego_embedded import RegoEmbeddedEngine
from hookd.enrich.paths import enrich_paths
from hookd.enrich.shell import enrich_shell
from hookd.pipeline import AskPolicy, EngineHolder, InteractiveProbe, Pipeline
from hookd.types import Engine, Enricher, Outcome

ENRICHERS: Sequence[Enricher] = (enrich_shell, enrich_paths)


def load_engine(config: Config, policies: Path | None = None) -> Engine:
    """The engine that serves a policy set: the one place that turns config into engines, used at
    start-up, by every reload and by `hookd eval`. Raises PolicyLoadError (the old set keeps serving)."""
    return RegoEmbeddedEngine.load(policies or config.daemon.policies)


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
