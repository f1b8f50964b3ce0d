"""The composition root of the hot path: the only module that names concrete dialects, enrichers
and engines. Kept free of logging and transport imports so that `hookd eval`, `hookd test` and the
per-call bench baseline load no more than deciding needs."""

from __future__ import annotations

from collections.abc import Sequence

from hookd.agentproc import session_is_interactive
from hookd.config import Config
from hookd.dialects.gemini import GeminiDialect
from hookd.engines.rego_embedded import RegoEmbeddedEngine
from hookd.enrich.paths import enrich_paths
from hookd.enrich.shell import enrich_shell
from hookd.pipeline import AskPolicy, EngineHolder, InteractiveProbe, Pipeline
from hookd.types import Enricher, Outcome

ENRICHERS: Sequence[Enricher] = (enrich_shell, enrich_paths)


def build_pipeline(
    config: Config, engine: RegoEmbeddedEngine | None = None, probe: InteractiveProbe = session_is_interactive
) -> tuple[Pipeline, EngineHolder]:
    holder = EngineHolder(engine or RegoEmbeddedEngine.load(config.daemon.policies))
    ask = AskPolicy(
        headless_fallback=Outcome.DENY if config.ask.headless_fallback == "deny" else Outcome.ALLOW,
        unknown_is_headless=config.ask.unknown_is_headless,
    )
    pipeline = Pipeline(
        dialects={"gemini": GeminiDialect()},
        enrichers=ENRICHERS,
        engines=holder,
        fail_modes=config.shim.fail_modes,
        ask=ask,
        probe=probe,
    )
    return pipeline, holder
