"""`routing.stream_text`: a streamed chunk whose text holds none of the strings every AfterModel package needs is
answered allow without evaluating them (hookd.policy.stream_cues, hookd.pipeline), and that answer and its record
are exactly what evaluating them gives."""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from hookd.assembly import build_pipeline, enrichers
from hookd.audit.mask import Masker
from hookd.audit.record import Pending, build_record
from hookd.audit.streams import StreamRecords
from hookd.config import Config
from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.enrich.stream import MemoryTexts, ResponseStreams
from hookd.errors import PolicyLoadError
from hookd.pipeline import Pipeline
from hookd.policy.layers import Layer, Rank, layered
from hookd.policy.stream_cues import StreamCues, stream_cues
from hookd.types import Caller, Deadline, Engine, Event, Handled, HookRequest, NormalisedEvent, PackageInfo
from support import ROOT

POLICIES = ROOT / "policies"
SECRETS = [
    "-----BEGIN OPENSSH PRIVATE KEY-----",
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_" + "a1B2" * 9,
    "xoxb-1234567890-abcdefghij",
]


def package(name: str, **routing: Sequence[str]) -> PackageInfo:
    return PackageInfo(name, {"halt": "Set"}, {key: frozenset(value) for key, value in routing.items()})


class TestCuesOfAPolicySet:
    def test_the_union_of_every_streamed_packages_strings(self) -> None:
        cues = stream_cues([
            package("a", events=["AfterModel"], stream_text=["AKIA", "xox"]),
            package("b", stream_text=["PRIVATE KEY-----"]),  # every event: AfterModel too
            package("c", events=["BeforeTool"]),  # not streamed: no say
            package("d", kinds=["shell"]),  # a streamed chunk is no tool call
        ])  # fmt: skip
        assert cues == StreamCues(("AKIA", "PRIVATE KEY-----", "xox"), 16)

    def test_no_streamed_package_means_every_chunk_is_evaluated(self) -> None:
        """An engine that lists no packages (an isolated engine before its workers load) skips nothing."""
        assert stream_cues([]) is None
        assert stream_cues([package("c", events=["BeforeTool"])]) is None

    def test_one_streamed_package_without_a_declaration_means_every_chunk_is_evaluated(self) -> None:
        declared = package("a", events=["AfterModel"], stream_text=["AKIA"])
        assert stream_cues([declared, package("b", events=["AfterModel", "BeforeTool"])]) is None
        assert stream_cues([declared, package("py", events=["AfterModel"])]) is None  # a Python policy's routing

    def test_the_default_model_secrets_declares_its_patterns_literals(self) -> None:
        engine = RegoEmbeddedEngine.load(POLICIES)
        patterns = json.loads((POLICIES / "model_secrets" / "data.json").read_text())["patterns"]
        cues = stream_cues(engine.packages)
        assert cues is not None and set(cues.strings) == {lit for p in patterns for lit in p["literals"]}

    def test_stream_text_must_be_a_list_of_strings(self, tmp_path: Path) -> None:
        routing = 'routing := {"events": ["AfterModel"], "stream_text": "AKIA"}'
        (tmp_path / "p.rego").write_text(f'package hookd.p\n{routing}\nhalt contains "x" if false\n')
        with pytest.raises(PolicyLoadError, match=r"routing\.stream_text must be a list of strings"):
            RegoEmbeddedEngine.load(tmp_path)


def chunks_of(text: str, rng: random.Random) -> list[str]:
    cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(1, 12))))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def after_model(text: str, session: str, final: bool = False) -> NormalisedEvent:
    candidate: dict[str, object] = {"content": {"role": "model", "parts": [{"text": text}]}}
    if final:
        candidate["finishReason"] = "STOP"
    return NormalisedEvent(
        client="gemini", event=Event.AFTER_MODEL, payload={"llm_request": {"q": session},
        "llm_response": {"candidates": [candidate]}}, tool=None, session_id=session, cwd="/p", project_dir="/p",
        caller=Caller(1000, 1000, 1),
    )  # fmt: skip


def test_quiet_answers_as_a_search_of_the_whole_text_would() -> None:
    """Chunk by chunk, interleaved responses, texts cut at their bound, a reload's new cues mid-stream and chunks
    that never asked (a policy set without cues): `quiet` is `not any(cue in text)` every time."""
    rng = random.Random(30)
    streams = ResponseStreams(MemoryTexts(max_text=64, max_responses=4))
    cues = [StreamCues.of(["AKIA", "_", "PRIVATE KEY-----"]), StreamCues.of(["xox"]), StreamCues.of([""])]
    alphabet = ["a", "b", " ", "\n", "AK", "IA", "_", "xo", "x", "PRIVATE ", "KEY-----", "é", "\U0001f600"]
    asked = 0
    for _ in range(3000):
        session = rng.choice("abcdef")
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
        enriched = streams(after_model(text, session, final=rng.random() < 0.03))
        stream = enriched.facts["stream"]
        assert isinstance(stream, dict) and isinstance(stream["text"], str)
        if rng.random() < 0.1:
            continue  # a chunk no `quiet` saw (served by a policy set without cues)
        chosen = cues[0] if rng.random() < 0.9 else rng.choice(cues)
        assert streams.quiet(enriched, chosen) is not any(c in stream["text"] for c in chosen.strings)
        asked += 1
    assert asked > 2000


def decide(pipeline: Pipeline, text: str, session: str, final: bool = False) -> Handled:
    candidate: dict[str, object] = {"content": {"role": "model", "parts": [{"text": text}]}, "index": 0}
    if final:
        candidate["finishReason"] = "STOP"
    payload = {"session_id": session, "hook_event_name": "AfterModel", "llm_request": {"contents": [session]},
               "llm_response": {"candidates": [candidate]}}  # fmt: skip
    request = HookRequest(
        "gemini", "AfterModel", json.dumps(payload, separators=(",", ":")).encode(), {}, "/p",
        Caller(1000, 1000, 1), Deadline.after(30),
    )  # fmt: skip
    handled = pipeline.decide(request)
    assert isinstance(handled, Handled)
    return handled


class Counted:
    """The calls to an engine's evaluate."""

    def __init__(self, engine: RegoEmbeddedEngine) -> None:
        self.calls = 0
        original = engine.evaluate

        def evaluate(request: object) -> object:
            self.calls += 1
            return original(request)  # type: ignore[arg-type]

        engine.evaluate = evaluate  # type: ignore[method-assign,assignment]


def pipeline_of(engine: Engine, *, fast: bool = True) -> Pipeline:
    config = Config()
    pipeline, _ = build_pipeline(config, engine, steps=enrichers(config, MemoryTexts()))
    if not fast:
        pipeline._quiet = lambda engine, event: False  # type: ignore[assignment]
    return pipeline


def outcomes(pipeline: Pipeline, chunks: Sequence[str], session: str) -> list[str]:
    return [
        decide(pipeline, chunk, session, final=i == len(chunks) - 1).decision.outcome.name
        for i, chunk in enumerate(chunks)
    ]


def test_a_token_whose_literal_came_chunks_before_still_halts_the_chunk_that_completes_it() -> None:
    """`ghp_`, completed by the chunk `_`, is 29 characters before the chunk that completes the token (its
    30th): farther back than the longest cue's length, and the chunks between hold no cue."""
    engine = RegoEmbeddedEngine.load(POLICIES)
    counted = Counted(engine)
    chunks = ["Here is the token ghp", "_", "a1B2c3D4e5", "F6g7H8i9j0", "K1l2M3n4o", "5 done"]
    assert outcomes(pipeline_of(engine), chunks, "s") == ["ALLOW", "ALLOW", "ALLOW", "ALLOW", "ALLOW", "HALT"]
    assert counted.calls == 5  # the first chunk held no cue; from `_` on every chunk was evaluated
    key = ["-----BEGIN OPENSSH PRI", "VATE KEY", "----", "-\nb3BlbnNzaC1rZXktdjEAAAAA"]
    assert outcomes(pipeline_of(engine), key, "t") == ["ALLOW", "ALLOW", "ALLOW", "HALT"]


def test_without_a_cue_nothing_is_evaluated_and_with_one_everything_is() -> None:
    engine = RegoEmbeddedEngine.load(POLICIES)
    counted = Counted(engine)
    pipeline = pipeline_of(engine)
    assert outcomes(pipeline, ["word and more "] * 20, "s") == ["ALLOW"] * 20
    assert counted.calls == 0
    assert outcomes(pipeline, ["AKIA is a prefix "] + ["word "] * 9, "t") == ["ALLOW"] * 10
    assert counted.calls == 10  # the text holds AKIA from its first chunk on


def bundle_layer(tmp_path: Path, routing: str) -> Layer:
    """An organisation bundle with an AfterModel rule of its own: halt when the text says "forbidden"."""
    directory = tmp_path / "bundle"
    directory.mkdir()
    (directory / "words.rego").write_text(
        "package hookd.org_words\n"
        f"routing := {routing}\n"
        'halt contains {"id": "word", "reason": "forbidden"} if contains(input.stream.text, "forbidden")\n'
    )
    return Layer("org", Rank.ORGANISATION, RegoEmbeddedEngine.load(directory))


def test_a_bundle_package_with_streamed_rules_and_no_declaration_is_always_evaluated(tmp_path: Path) -> None:
    org = bundle_layer(tmp_path, '{"events": ["AfterModel"]}')
    user = Layer("default", Rank.USER, RegoEmbeddedEngine.load(POLICIES))
    policy_set = layered([org, user])
    assert stream_cues(policy_set.engine.packages) is None
    pipeline = pipeline_of(policy_set.engine)
    assert outcomes(pipeline, ["all fine ", "this is forb", "idden ", "end"], "s") == ["ALLOW", "ALLOW", "HALT", "HALT"]


def test_a_bundles_declaration_cannot_leave_out_another_packages_rules(tmp_path: Path) -> None:
    """The bundle declares only its own word: the user's model_secrets is still evaluated on its literals."""
    org = bundle_layer(tmp_path, '{"events": ["AfterModel"], "stream_text": ["forbidden"]}')
    user = Layer("default", Rank.USER, RegoEmbeddedEngine.load(POLICIES))
    pipeline = pipeline_of(layered([org, user]).engine)
    assert outcomes(pipeline, ["key: AKIAIOSF", "ODNN7EXAMPLE", "."], "s") == ["ALLOW", "HALT", "HALT"]
    assert outcomes(pipeline, ["it is forbid", "den", "."], "t") == ["ALLOW", "HALT", "HALT"]


def random_text(rng: random.Random) -> str:
    words = ["the", "model", "writes", "AKI", "xo", "KEY", "PRIVATE", "-----", "gh", "p", "\n", "é", "a_b", "x"]
    text = " ".join(rng.choice(words) for _ in range(rng.randint(3, 25)))
    if rng.random() < 0.7:
        where = rng.randint(0, len(text))
        text = text[:where] + rng.choice(SECRETS) + text[where:]
    return text


def reply(handled: Handled) -> bytes:
    return handled.reply.stdout.replace(handled.decision_id.encode(), b"ID")


def records(handled: Sequence[Handled]) -> list[object]:
    """The decision records the stream lane writes of these decisions, without ids, times and latencies."""
    folded = StreamRecords()
    written = [record for h in handled for record in folded.fold(Pending(h, 0.0, "socket"))] + folded.close()
    out = []
    for pending in written:
        record = {k: v for k, v in build_record(pending, Masker()).items() if k not in ("time", "latency_ms")}
        line = json.dumps(record, sort_keys=True)
        for h in handled:
            line = line.replace(h.decision_id, "ID")
        out.append(json.loads(line))
    return out


def test_decisions_and_records_are_the_same_with_and_without_the_fast_path() -> None:
    """Random text with secrets inserted, each cut in two at every offset and into random chunks, through the
    default policies: every chunk's decision, and the response's records, the same as evaluating every chunk."""
    rng = random.Random(28)
    engine = RegoEmbeddedEngine.load(POLICIES)
    counted = Counted(engine)
    fast, every = pipeline_of(engine), pipeline_of(engine, fast=False)
    compared = 0
    for n in range(40):
        text = random_text(rng)
        splits = [[text[:k], text[k:]] for k in range(1, len(text))] + [chunks_of(text, rng) for _ in range(5)]
        for m, chunks in enumerate(splits):
            session = f"s{n}.{m}"
            these = [decide(fast, c, session, i == len(chunks) - 1) for i, c in enumerate(chunks)]
            those = [decide(every, c, session, i == len(chunks) - 1) for i, c in enumerate(chunks)]
            assert [h.decision.outcome for h in these] == [h.decision.outcome for h in those], chunks
            assert [reply(h) for h in these] == [reply(h) for h in those]
            assert records(these) == records(those)
            compared += len(chunks)
    assert compared > 5000
    assert 0 < counted.calls - compared < compared  # `every` evaluated each chunk, `fast` some and not all


def test_a_copy_of_the_default_policies_without_the_declaration_is_evaluated_for_every_chunk(tmp_path: Path) -> None:
    copy = tmp_path / "policies"
    shutil.copytree(POLICIES, copy)
    rego = copy / "model_secrets" / "policy.rego"
    source = rego.read_text()
    rego.write_text(source[: source.index('\t"stream_text"')] + "}\n" + source[source.index("halt contains") :])
    engine = RegoEmbeddedEngine.load(copy)
    assert stream_cues(engine.packages) is None
    counted = Counted(engine)
    assert outcomes(pipeline_of(engine), ["word "] * 5, "s") == ["ALLOW"] * 5
    assert counted.calls == 5
