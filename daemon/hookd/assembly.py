"""The composition root of the hot path: the only module that names concrete dialects, enrichers
and engines. Kept free of logging and transport imports so that `hookd eval`, `hookd test` and the
per-call bench baseline load no more than deciding needs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from hookd.agentproc import session_is_interactive
from hookd.audit.ids import DecisionIds
from hookd.bundle.activate import Active, Compile, kept_bundles
from hookd.bundle.store import BundleStore
from hookd.config import Config, bundled_policies_dir
from hookd.dialects.registry import AGENTS
from hookd.engines.composite import CompositeEngine
from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.enrich import first_test
from hookd.enrich.carried_secrets import enrich_carried_secrets
from hookd.enrich.paths import enrich_paths
from hookd.enrich.plain_env_write import plain_env_write_effects
from hookd.enrich.plain_write import plain_write_effects
from hookd.enrich.shell import enrich_shell as full_shell
from hookd.enrich.stream import MemoryTexts, ResponseStreams
from hookd.enrich.tool_effects import enrich_tool_effects as full_tool_effects
from hookd.pipeline import AskPolicy, IdFactory, InteractiveProbe, Pipeline
from hookd.policy.holder import PolicySetHolder
from hookd.policy.layers import ENFORCE, MONITOR, SHADOW, USER_LAYER, Layer, Rank, layered
from hookd.policy.python_sources import Source, load_python_set
from hookd.selfprotect_first import ProtectedPlaces
from hookd.types import Engine, Enricher, FactEnricher, Outcome, PolicySet, passes_chunks

# The commonest shapes of call get the full analysis' facts from a first test, in a handful of functions; the rest
# gets the full analysis (hookd.enrich.first_test; tests/unit/enrich/test_first_test.py holds the facts the same);
# so does a call that reaches no protected place (hookd.selfprotect_first; tests/unit/test_selfprotect_first.py)
enrich_shell = first_test.first_tested(full_shell, first_test.plain_shell)
enrich_tool_effects = first_test.first_tested(
    full_tool_effects, first_test.plain_read_effects, plain_write_effects, plain_env_write_effects
)

# What acts on tool calls only (and the protected places on Event.OTHER's vetoes): a streamed chunk, which is no
# tool call, skips it (tests/unit/test_pipeline.py holds each to that)
for _step in (enrich_shell, enrich_paths, enrich_tool_effects, enrich_carried_secrets, ProtectedPlaces):
    passes_chunks(_step)


def in_process(config: Config) -> Config:
    """`config` with every Rego policy evaluated in process: for `hookd eval`, `hookd test` and `hookd replay`,
    which decide for one caller and have no other session to stall."""
    return replace(config, daemon=replace(config.daemon, isolate_policies=False))


def enrichers(config: Config | None = None, texts: MemoryTexts | None = None) -> Sequence[Enricher]:
    """The enrichment steps, in order. The streams enricher keeps the text of each response being streamed
    (bounded) in this process (`texts`: going on from those given): the chunks of a response are all decided
    in one process (hookd.lane). The self-protection step derives its protected set from `config` (the
    running one; the defaults without it). The file tools' effects and the protected places are made only
    when the serving policies read them (hookd.types.FactEnricher); the shell facts are made always (the
    router and the input caps read them)."""
    streams = ResponseStreams(texts)
    tool_effects = FactEnricher(enrich_tool_effects, frozenset({"effects"}))
    carried = FactEnricher(enrich_carried_secrets, frozenset({"carried_secrets"}))
    protected = FactEnricher(ProtectedPlaces(config or Config()), frozenset({"hookd"}), _PROTECTED_USES)
    return (enrich_shell, enrich_paths, tool_effects, carried, protected, streams)


_PROTECTED_USES = frozenset({"shell", "paths", "effects"})  # what hookd.selfprotect reads of the other facts


def engine_for_dir(
    config: Config,
    path: Path,
    *,
    source: Source = "local",
    signed: bool = False,
    wait: bool = True,
    observed: bool = False,
) -> Engine:
    """The engine of ONE policy directory (a local layer, or an extracted bundle): its Rego, plus its Python
    policies (in sandboxed workers) when it has any. `source` and `signed` carry the trust rule: Python from
    a local directory must be owned by the daemon's uid and not group/other-writable; Python from a bundle
    runs only when the bundle is signed (bundle verification refuses an unsigned one first). With
    `wait=False` the Python workers are only started: `await engine.ready()` before serving it.
    `observed`: a monitor or shadow layer's, never evaluated on the event loop (even the bundled policies).
    Raises PolicyLoadError."""
    rego = rego_engine(config, path, wait=wait, observed=observed)
    python_set = load_python_set(path, source=source, signed=signed)
    if python_set is None:
        return rego
    from hookd.engines.python.engine import start_engine  # only policy sets with Python pay for its imports

    return CompositeEngine([rego, start_engine(config, python_set, wait=wait)])


def rego_engine(config: Config, path: Path, *, wait: bool = True, observed: bool = False) -> Engine:
    """The Rego part, as daemon.engine says: regorus, or an OPA server (docs/opa.md). regorus evaluates in
    process only the policies hookd ships (their cost is bounded by the `[limits]` caps and the lane:
    docs/reliability.md); any other directory, with `[daemon] isolate_policies`, in sandboxed workers that a
    request's deadline can kill, since nothing bounds what its rules cost; so are a monitor or shadow layer's
    (`observed`), which never run on the event loop."""
    if config.daemon.engine == "opa":
        from hookd.engines.rego.opa import RegoOpaEngine  # opa_client and aiohttp: only when configured

        return RegoOpaEngine.load(path, config.opa)
    bundled = path.resolve() == bundled_policies_dir().resolve()
    if not config.daemon.isolate_policies or (bundled and not observed):
        return RegoEmbeddedEngine.load(path)
    from hookd.engines.python.channel import WorkerSettings
    from hookd.engines.rego.isolated import RegoIsolatedEngine

    return RegoIsolatedEngine.start(path, WorkerSettings.from_config(config), wait=wait)


def local_layers(config: Config, policies: Path | None = None, *, wait: bool = True) -> list[Layer]:
    """The user's policy directory and every opted-in project's policy directory, each compiled."""
    user = policies or config.daemon.policies
    mode, project_mode = config.layers.mode, config.layers.project_mode
    engine = engine_for_dir(config, user, wait=wait, observed=mode != ENFORCE)
    layers = [Layer(USER_LAYER, Rank.USER, engine, location=str(user), mode=mode)]
    for root in config.layers.projects:
        directory = Path(root) / config.layers.project_policy_dir
        if directory.is_dir():
            layer_mode = MONITOR if root in config.layers.monitor_projects else project_mode
            engine = engine_for_dir(config, directory, wait=wait, observed=layer_mode != ENFORCE)
            layers.append(
                Layer(
                    f"project:{root}",
                    Rank.PROJECT,
                    engine,
                    location=str(directory),
                    project_root=root,
                    mode=layer_mode,
                )
            )
    if config.rollout.shadow_policies:
        layers.append(shadow_layer(config, Path(config.rollout.shadow_policies), wait=wait))
    return layers


def shadow_layer(config: Config, directory: Path, *, wait: bool = True) -> Layer:
    """The local candidate policy directory (`[rollout] shadow_policies`): compared, never enforced."""
    replaces = config.rollout.shadow_replaces
    rank = (
        Rank.ORGANISATION if replaces and replaces != USER_LAYER and not replaces.startswith("project:") else Rank.USER
    )
    if replaces.startswith("project:"):
        rank = Rank.PROJECT
    engine = engine_for_dir(config, directory, wait=wait, observed=True)
    return Layer("shadow", rank, engine, location=str(directory), mode=SHADOW, replaces=replaces)


def load_policy_set(
    config: Config, policies: Path | None = None, *, bundles: Sequence[Layer] | None = None, wait: bool = True
) -> PolicySet:
    """The whole policy set: the one place that turns config into engines, used at start-up, by every
    reload and activation and by `hookd eval`. Organisation bundles (`bundles`, else the last good ones
    kept in the state directory) over the user's policy directory over opted-in projects'. With
    `wait=False`, `await policy_set.ready()` before serving it. Raises PolicyLoadError (the old set keeps
    serving)."""
    if bundles is None:
        bundles = [active.layer for active in kept_bundles_of(config)[0]]
    return layered([*bundles, *local_layers(config, policies, wait=wait)])


def load_engine(
    config: Config, policies: Path | None = None, *, bundles: Sequence[Layer] | None = None, wait: bool = True
) -> Engine:
    """The engine of `load_policy_set` (for callers that only evaluate)."""
    return load_policy_set(config, policies, bundles=bundles, wait=wait).engine


def kept_bundles_of(config: Config) -> tuple[list[Active], dict[str, str]]:
    """The kept bundles of the configured sources, verified and compiled (see bundle.activate)."""
    if not config.bundles.sources:
        return [], {}
    store = BundleStore(config.daemon.state_dir / "bundles")
    return kept_bundles(config.bundles, store, bundle_compiler(config))


def bundle_compiler(config: Config, *, wait: bool = True) -> Compile:
    """Compiles an extracted bundle; with `wait=False` its Python workers start in the background and the
    bundle manager awaits their `ready()` before the swap."""
    return lambda path, signed: engine_for_dir(config, path, source="bundle", signed=signed, wait=wait)


def build_pipeline(
    config: Config,
    engine: Engine | PolicySet | None = None,
    probe: InteractiveProbe = session_is_interactive,
    ids: IdFactory | None = None,
    bundles: Sequence[Layer] = (),
    steps: Sequence[Enricher] | None = None,
) -> tuple[Pipeline, PolicySetHolder]:
    """The pipeline over `engine` (an engine or a whole policy set; else the configured policy set), and the
    holder of what it serves; `bundles` are the organisation layers among `engine`'s; `steps` the enrichers
    when pipelines are to share their state (a stream's text), else new ones."""
    holder = PolicySetHolder(load_policy_set(config) if engine is None else engine, bundles=bundles)
    ask = AskPolicy(
        headless_fallback=Outcome.DENY if config.ask.headless_fallback == "deny" else Outcome.ALLOW,
        unknown_is_headless=config.ask.unknown_is_headless,
    )
    pipeline = Pipeline(
        dialects={name: spec.dialect for name, spec in AGENTS.items()},
        enrichers=enrichers(config) if steps is None else steps,
        policy_set=holder,
        fail_modes=config.shim.fail_modes,
        ask=ask,
        probe=probe,
        ids=ids or DecisionIds(),
        input_limits=config.limits,
    )
    return pipeline, holder
