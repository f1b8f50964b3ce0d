"""The shared words of hookd: requests, normalised events, verdicts, decisions, replies, and the seams.

Everything here is plain data (frozen dataclasses and enums) plus the Protocols that the pipeline
talks to. It imports nothing from hookd, so every other module may import it.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, IntEnum
from typing import Any, Protocol, TypeVar, runtime_checkable

JSON = Any  # a value that json.loads can return


class Event(str, Enum):
    """Canonical event names (Gemini CLI's names; other clients map onto them)."""

    SESSION_START = "SessionStart"
    SESSION_END = "SessionEnd"
    BEFORE_AGENT = "BeforeAgent"
    AFTER_AGENT = "AfterAgent"
    BEFORE_MODEL = "BeforeModel"
    AFTER_MODEL = "AfterModel"
    BEFORE_TOOL_SELECTION = "BeforeToolSelection"
    BEFORE_TOOL = "BeforeTool"
    AFTER_TOOL = "AfterTool"
    PRE_COMPRESS = "PreCompress"
    NOTIFICATION = "Notification"
    # An event of one client that has no counterpart in the other (Claude's PermissionRequest,
    # FileChanged, ...): observed and logged; `input.client_event` says which one it is.
    OTHER = "Other"


# What a canonical event allows when hookd cannot decide. Every agent's event table agrees with these
# (tests/unit/dialects/test_registry.py derives them from the registry and compares), so the config reads them
# here and needs no agent module: an event fails closed by default where some agent's event of that kind
# does, and may be set to fail closed only where some agent has an output that blocks on it.
FAIL_CLOSED_BY_DEFAULT = frozenset({Event.BEFORE_AGENT, Event.BEFORE_MODEL, Event.BEFORE_TOOL, Event.AFTER_TOOL})
CAN_FAIL_CLOSED = FAIL_CLOSED_BY_DEFAULT | {Event.AFTER_MODEL}
# One response's chunks, decided where its text is (hookd.enrich.stream; routed by hookd.lane and the shims)
STREAM_EVENTS = frozenset({Event.AFTER_MODEL})


class ToolKind(str, Enum):
    SHELL = "shell"
    READ = "read"
    WRITE = "write"
    EDIT = "edit"
    WEB = "web"
    MCP = "mcp"
    OTHER = "other"


class FailMode(str, Enum):
    CLOSED = "closed"
    OPEN = "open"


class Outcome(IntEnum):
    """The combined decision; a higher value wins (halt > deny > ask > rewrite > allow)."""

    ALLOW = 0
    REWRITE = 1
    ASK = 2
    DENY = 3
    HALT = 4


class VerdictKind(str, Enum):
    HALT = "halt"
    DENY = "deny"
    ASK = "ask"
    REWRITE = "rewrite"
    CONTEXT = "context"
    MESSAGE = "message"


VERDICT_OUTCOME: Mapping[VerdictKind, Outcome] = {
    VerdictKind.HALT: Outcome.HALT,
    VerdictKind.DENY: Outcome.DENY,
    VerdictKind.ASK: Outcome.ASK,
    VerdictKind.REWRITE: Outcome.REWRITE,
}


@dataclass(frozen=True, slots=True)
class Deadline:
    """An absolute point on the monotonic clock; each stage reads what is left."""

    at: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(time.monotonic() + seconds)

    def remaining(self) -> float:
        return self.at - time.monotonic()

    def expired(self) -> bool:
        return self.remaining() <= 0


@dataclass(frozen=True, slots=True)
class Caller:
    """Who sent the request: SO_PEERCRED of the connection, plus what the shim reported."""

    uid: int
    gid: int
    pid: int
    ppid: int = 0


@dataclass(frozen=True, slots=True)
class HookRequest:
    """One framed request from a shim, before the dialect has looked at it."""

    client: str
    event: str
    payload: bytes
    env: Mapping[str, str]
    cwd: str
    caller: Caller
    deadline: Deadline
    received_at: float = field(default_factory=time.monotonic)
    via: str = "socket"  # the transport it came by, as the decision log records it: socket, http, grpc


PathAccess = str  # "read" or "write"


# The agents' names of an edit's (old, new) texts: Claude's, Gemini's, Qwen's; Copilot's, Droid's; OpenCode's, Kilo's
_REPLACE_SPELLINGS = (("old_string", "new_string"), ("old_str", "new_str"), ("oldString", "newString"))


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """What one agent's tool is in hookd's terms: its kind, the arguments that name paths, the
    argument an anchored path is relative to, and the argument holding a shell command's directory.
    Each agent's dialect module has a table of these (its TOOLS); nothing else names agent tools."""

    kind: ToolKind
    paths: tuple[tuple[str, PathAccess], ...] = ()
    relative_to: Mapping[str, str] = field(default_factory=dict)  # path argument -> its anchor argument
    cwd_args: tuple[str, ...] = ()  # a shell tool's working-directory arguments, first one given wins
    # Path arguments (among `paths`) that the tool expands as globs and then reads or writes what they match:
    # "path" (`*`, `?`, `[…]`, `**` against the anchor) or "search" (a search tool's file filter, as ripgrep's
    # --glob takes it: without a `/` it matches a file's name at any depth under the anchor).
    globs: Mapping[str, str] = field(default_factory=dict)
    patches: tuple[str, ...] = ()  # arguments holding a patch (Codex's apply_patch format or a unified diff)
    # What a write or edit makes of its file, where the call shows it whole: the argument holding the new
    # text, or the (old, new) arguments of a replacement (of one occurrence or all: both are judged).
    content: str = ""
    replace: tuple[str, str] | tuple[()] = ()
    lists: tuple[str, ...] = ()  # path arguments whose directory it lists by name (LS): as `ls DIR`, none read

    def replace_pairs(self, given: Mapping[str, object]) -> list[tuple[str, str]]:
        """The (old, new) argument names of this edit call: each agent's spelling of the pair it gives, the declared
        one first (Droid's Edit sent `old_string`, as Claude's is: what a tool takes under it is judged; a guard
        judges each); the declared pair when it gives none."""
        if not self.replace:
            return []
        spellings = (self.replace, *(pair for pair in _REPLACE_SPELLINGS if pair != self.replace))
        return [pair for pair in spellings if any(name in given for name in pair)] or [self.replace]

    def roots(self) -> tuple[str, ...]:
        """The arguments naming the directories the tool walks: its anchors and, for a search tool (one with a file
        filter), each other path argument but the filter: another name for the same root (rg's `path` beside
        `paths`, search_file_content's `path` beside `dir_path`), which the anchored argument is relative to
        when the call gives it instead."""
        anchors = tuple(dict.fromkeys(self.relative_to.values()))
        if "search" not in self.globs.values():
            return anchors
        return (*anchors, *(arg for arg, _ in self.paths if arg not in self.globs and arg not in anchors))


@dataclass(frozen=True, slots=True)
class ToolCall:
    name: str
    kind: ToolKind
    input: Mapping[str, JSON]
    # For MCP tools: {"server", "tool"}, the same for every agent's naming (Gemini's
    # mcp_<server>_<tool> from its mcp_context, mcp__<server>__<tool> elsewhere), so that one policy
    # names a server once.
    mcp: Mapping[str, str] | None = None
    spec: ToolSpec | None = field(default=None, compare=False)  # the dialect's entry for this tool

    def as_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"name": self.name, "kind": self.kind.value, "input": self.input}
        if self.mcp is not None:
            out["mcp"] = dict(self.mcp)
        return out


@dataclass(frozen=True, slots=True)
class NormalisedEvent:
    """One hook event in hookd's own terms; `facts` holds what the enrichers added."""

    client: str  # the agent's registry name (hookd.dialects.registry)
    event: Event
    payload: Mapping[str, JSON]
    tool: ToolCall | None
    session_id: str
    cwd: str
    project_dir: str
    caller: Caller
    env: Mapping[str, str] = field(default_factory=dict)
    facts: Mapping[str, JSON] = field(default_factory=dict)
    client_event: str = ""  # the event's name in the client's own terms ("PreToolUse"); "" = event.value

    def with_facts(self, **facts: JSON) -> NormalisedEvent:
        return self.with_all_facts({**self.facts, **facts})

    def with_all_facts(self, facts: Mapping[str, JSON]) -> NormalisedEvent:
        """The event with `facts` instead of its own."""
        # Every field named: dataclasses.replace() costs twice this, and each enricher calls it on every decision.
        return NormalisedEvent(
            client=self.client,
            event=self.event,
            payload=self.payload,
            tool=self.tool,
            session_id=self.session_id,
            cwd=self.cwd,
            project_dir=self.project_dir,
            caller=self.caller,
            env=self.env,
            facts=facts,
            client_event=self.client_event,
        )

    def input_document(self) -> dict[str, JSON]:
        """The `input` every policy sees, the same shape for every client (docs/policies.md)."""
        tool = self.tool
        return {
            "client": self.client,
            "event": self.event.value,
            "client_event": self.client_event or self.event.value,
            "tool": tool.as_json() if tool is not None else None,
            "session": {
                "id": self.session_id,
                "transcript_path": self.payload.get("transcript_path", ""),
            },
            "cwd": self.cwd,
            "project_dir": self.project_dir,
            "caller": {"uid": self.caller.uid, "pid": self.caller.pid},
            **self.facts,
            "raw": self.payload,
        }


@dataclass(frozen=True, slots=True)
class Verdict:
    """One policy's answer. `patch` carries the payload of a rewrite (keys: tool_input, llm_request,
    llm_response, tool_config, tail_tool_call) or the extras of a deny/halt (clear_context,
    llm_response)."""

    kind: VerdictKind
    policy_id: str
    rule_id: str
    message: str = ""
    patch: Mapping[str, JSON] = field(default_factory=dict)
    layer: str = ""  # the policy layer that produced it (policy/layers.py); "" outside layers
    rank: int = 0  # the layer's precedence: 0 = organisation (highest), 1 = user, 2 = project

    def as_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {
            "kind": self.kind.value,
            "policy": self.policy_id,
            "rule": self.rule_id,
            "message": self.message,
        }
        if self.patch:
            out["patch"] = dict(self.patch)
        if self.layer:
            out["layer"] = self.layer
        return out


@dataclass(frozen=True, slots=True)
class Decision:
    """Verdicts combined: the winning outcome, its reasons, and everything that concatenates."""

    outcome: Outcome
    reasons: tuple[str, ...] = ()
    contexts: tuple[str, ...] = ()
    messages: tuple[str, ...] = ()
    rewrite: Mapping[str, JSON] = field(default_factory=dict)
    extras: Mapping[str, JSON] = field(default_factory=dict)
    verdicts: tuple[Verdict, ...] = ()
    notes: tuple[str, ...] = ()
    decision_id: str = ""  # set by the pipeline before render; quoted in every reason shown

    def with_id(self, decision_id: str) -> Decision:
        """The decision with its id (every field named: dataclasses.replace() costs twice this, on every decision)."""
        return Decision(
            outcome=self.outcome,
            reasons=self.reasons,
            contexts=self.contexts,
            messages=self.messages,
            rewrite=self.rewrite,
            extras=self.extras,
            verdicts=self.verdicts,
            notes=self.notes,
            decision_id=decision_id,
        )

    @property
    def reason(self) -> str:
        """The reasons joined, with ` (decision <id>)` after them when the decision has an id."""
        return self.explain("")

    def explain(self, default: str) -> str:
        """The reasons joined (or `default` when there are none), with ` (decision <id>)` appended when the
        decision has an id, so that a user can quote the id to an admin who finds it in the decision log."""
        text = "; ".join(self.reasons) or default
        if text and self.decision_id:
            return f"{text} (decision {self.decision_id})"
        return text


@dataclass(frozen=True, slots=True)
class Reply:
    """Exactly what the shim writes back: stdout bytes, stderr bytes, exit code."""

    stdout: bytes = b""
    stderr: bytes = b""
    exit_code: int = 0
    notes: tuple[str, ...] = ()  # how the dialect mapped verdicts; logged, never sent
    # For the control plane's Decide only (hookd.decide): the outcome and the decision record's id.
    decision: str = ""
    decision_id: str = ""


@dataclass(frozen=True, slots=True)
class EngineRequest:
    event: NormalisedEvent
    document: Mapping[str, JSON]
    deadline: Deadline


@dataclass(frozen=True, slots=True)
class Handled:
    """Everything one request produced, for the reply and the log. `policy_set` is the set that served it
    (its revisions go into the decision log record, read off the hot path; its `status()` must work
    after its engines closed; its monitor and shadow layers see the request after the reply);
    `engine_error` says the policies could not be evaluated and the event's fail
    mode answered."""

    event: NormalisedEvent
    decision: Decision
    reply: Reply
    latency_ms: float
    policy_set: PolicySet | None = None
    engine_error: bool = False

    @property
    def decision_id(self) -> str:
        return self.decision.decision_id


@dataclass(frozen=True, slots=True)
class ReloadResult:
    """What a reload did: whether the new policy set serves, and the revisions before and after."""

    ok: bool
    error: str
    previous: str  # the revision before the reload
    revision: str  # the revision serving now


class Dialect(Protocol):
    client: str
    # True when the agent itself answers an `ask` safely in a headless session (Claude Code denies
    # it under -p), so the pipeline passes the ask through instead of applying ask.headless_fallback.
    handles_headless_ask: bool

    def parse(self, request: HookRequest) -> NormalisedEvent: ...  # raises DialectError

    def render(self, event: NormalisedEvent, decision: Decision) -> Reply: ...  # total

    def fail_reply(self, event: Event, reason: str) -> Reply: ...  # the event's fail-closed output


@runtime_checkable
class RepeatingDialect(Dialect, Protocol):
    """A dialect whose events carry a field that repeats byte for byte from call to call (a streamed
    response's request on every chunk): the parse step reads it once (hookd.dialects.repeated)."""

    repeated: Mapping[str, tuple[str, str]]  # the client's event name -> (the field, the field after it)

    def parse_payload(self, request: HookRequest, payload: dict[str, JSON]) -> NormalisedEvent: ...


@dataclass(frozen=True, slots=True)
class PackageInfo:
    """One policy package as ListPolicies shows it: a Rego package under `data.hookd`, or a Python policy."""

    name: str  # dotted, under hookd: "hookd.destructive_shell"
    rules: Mapping[str, str]  # rule name -> its kind ("Set", "Func", "python", …)
    routing: Mapping[str, frozenset[str]] = field(default_factory=dict)
    layer: str = ""  # the policy layer that serves it (policy/layers.py); "" outside layers

    def applies(self, event: str, kind: str | None, tool: str | None) -> bool:
        for key, value in (("events", event), ("kinds", kind), ("tools", tool)):
            allowed = self.routing.get(key)
            if allowed is not None and value not in allowed:
                return False
        return True


@dataclass(frozen=True, slots=True)
class LayerStatus:
    """One policy layer of a layered engine, for status and ListPolicies."""

    name: str
    rank: str  # "organisation", "user", "project"
    location: str
    project_root: str
    revision: str
    engine: EngineStatus
    mode: str = "enforce"  # "monitor" and "shadow" layers never decide (hookd.rollout)
    replaces: str = ""  # a shadow layer: the enforced layer it stands in for


@dataclass(frozen=True, slots=True)
class EngineStatus:
    """What an engine serves, as the status, ListPolicies, reload and the decision log read it."""

    engine: str  # "rego", "opa", "python"; parts joined with "+" ("rego+python")
    revision: str
    policy_dir: str = ""
    packages: tuple[str, ...] = ()
    revisions: Mapping[str, str] = field(default_factory=dict)  # per policy layer; empty outside layers
    layers: tuple[LayerStatus, ...] = ()
    parts: tuple[EngineStatus, ...] = ()  # of a composite or layered engine
    sandbox_layers: tuple[Mapping[str, JSON], ...] = ()  # a Python engine's isolation layers, as reported

    def all_sandbox_layers(self) -> list[dict[str, JSON]]:
        """The Python workers' isolation layers, its parts' included; [] without Python."""
        if self.sandbox_layers:
            return [dict(layer) for layer in self.sandbox_layers]
        return [layer for part in self.parts for layer in part.all_sandbox_layers()]


# An engine's answer to one request: the verdicts, when it answered in the call (in process, no I/O), or one
# awaitable for them, when the answer is another process's (an OPA server, Python or isolated Rego workers).
# Whoever gets an awaitable awaits it: the hot path stays synchronous up to the one remote step, so an
# in-process engine is answered in the callback that read the request, with no task scheduled (a Task and its
# loop step cost 25-30 us of a cold decision's CPU: hookd.transport.hook_server). Two methods, one sync and one
# async, would be two hot paths to keep deciding alike; a coroutine for every engine would put that cost back.
Answer = Sequence[Verdict] | Awaitable[Sequence[Verdict]]
T = TypeVar("T")


async def settled(value: T | Awaitable[T]) -> T:
    """`value`, awaited when it is an awaitable: for the callers that await anyway (dry runs, offline tools)."""
    return await value if isinstance(value, Awaitable) else value


class Engine(Protocol):
    """The whole contract of a policy engine: nothing else of an engine is read by its callers."""

    name: str
    remote: bool  # its work happens (at least partly) in other processes: its answers are awaitables
    # The top-level input keys its policies can read, None when any: a fact none of them reads is not enriched
    # (hookd.types.FactEnricher), and the embedded engine converts only those keys for regorus.
    reads: frozenset[str] | None

    async def ready(self) -> None: ...  # an engine built with wait=False can serve; raises PolicyLoadError

    # Raises EngineError, in the call or from the awaitable; an awaitable is awaited exactly once.
    def evaluate(self, request: EngineRequest) -> Answer: ...

    async def aclose(self) -> None: ...

    def status(self) -> EngineStatus: ...  # still answers after aclose()

    @property
    def packages(self) -> Sequence[PackageInfo]: ...


def reads_of(engines: Sequence[Engine]) -> frozenset[str] | None:
    """The input keys any of the engines' policies read; None when one of them may read any."""
    keys: set[str] = set()
    for engine in engines:
        if engine.reads is None:
            return None
        keys |= engine.reads
    return frozenset(keys)


Enricher = Callable[[NormalisedEvent], NormalisedEvent]
_E = TypeVar("_E")


def passes_chunks(step: _E) -> _E:
    """Declare that an enricher returns a streamed chunk's event (an event of STREAM_EVENTS: no tool call) as it
    got it: the pipeline does not run it on one (a chunk's CPU is spent for every chunk a model streams; issue 30).
    tests/unit/test_pipeline.py holds every declared step of the daemon's enrichers to it."""
    setattr(step, "passes_chunks", True)  # noqa: B010  # an attribute of a function or an instance
    return step


def passes_streamed_chunks(step: Enricher) -> bool:
    """Whether `step` (or, a FactEnricher, the enricher it wraps) was declared with `passes_chunks`."""
    wrapped = step.enrich if isinstance(step, FactEnricher) else step
    return getattr(wrapped, "passes_chunks", False) is True


@dataclass(frozen=True, slots=True)
class FactEnricher:
    """An enricher whose `facts` (top-level input keys) only policies read: the pipeline leaves it out when the
    serving engine's policies read none of them and no later enricher it runs `uses` them (what it reads of
    the facts before it)."""

    enrich: Enricher
    facts: frozenset[str]
    uses: frozenset[str] = frozenset()

    def __call__(self, event: NormalisedEvent) -> NormalisedEvent:
        return self.enrich(event)


USER_LAYER = "default"  # the user's policy directory (daemon.policies); bundles go by their names
ENFORCE, MONITOR, SHADOW = "enforce", "monitor", "shadow"
MODES = (ENFORCE, MONITOR, SHADOW)


class Rank(IntEnum):
    ORGANISATION = 0
    USER = 1
    PROJECT = 2


@dataclass(frozen=True, slots=True)
class Layer:
    """One policy layer: an organisation bundle, the user's policy directory or an opted-in project's."""

    name: str  # a bundle's name, "default" (the user's policy directory), or "project:/abs/root"
    rank: Rank
    engine: Engine
    location: str = ""  # a directory, URL or file, for status
    project_root: str = ""  # a project layer applies only to events whose project_dir is within it
    pinned_revision: str = ""  # a bundle's manifest revision (what OPA and the decision log name)
    mode: str = ENFORCE  # "monitor": evaluated and recorded, never enforced; "shadow": a candidate (hookd.rollout)
    replaces: str = ""  # a shadow layer: the enforced layer it stands in for ("" = added to the enforced ones)

    def applies(self, project_dir: str) -> bool:
        root = self.project_root
        return not root or project_dir == root or project_dir.startswith(root.rstrip("/") + "/")

    def revision(self) -> str:
        return self.pinned_revision or self.engine.status().revision


@dataclass(frozen=True, slots=True, eq=False)
class PolicySet:
    """What is active: the policy layers in precedence order (their modes, revisions and packages) and the
    engine that evaluates the enforced ones. Built by hookd.policy.layers (`layered`, `policy_set_of`) and
    served whole by the holder: the pipeline evaluates `engine`, the rollout observes `monitored` and
    `shadows`, status and the decision log read `status()`."""

    layers: tuple[Layer, ...]
    engine: Engine  # evaluates the enforced layers, ranked and tagged; its status covers every layer
    observed: tuple[Layer, ...] = field(init=False)  # monitor and shadow layers: never take part in `engine`

    def __post_init__(self) -> None:
        object.__setattr__(self, "observed", tuple(layer for layer in self.layers if layer.mode != ENFORCE))

    @property
    def monitored(self) -> tuple[Layer, ...]:
        return tuple(layer for layer in self.observed if layer.mode == MONITOR)

    @property
    def shadows(self) -> tuple[Layer, ...]:
        return tuple(layer for layer in self.observed if layer.mode == SHADOW)

    @property
    def packages(self) -> Sequence[PackageInfo]:
        """Every loaded package, tagged with its layer, highest layer first."""
        return self.engine.packages

    def status(self) -> EngineStatus:
        """Revision, packages, per-layer revisions and modes, engine parts: answers after `close()`."""
        return self.engine.status()

    async def ready(self) -> None:
        """Wait until every layer can serve (engines that start asynchronously, like Python workers)."""
        for layer in self.layers:
            await layer.engine.ready()

    async def close(self, keep: PolicySet | None = None) -> None:
        """Close the engines of every layer, but those `keep` serves too (layers are shared between
        consecutive sets: a bundle swap keeps the local layers, a local reload the bundles)."""
        kept = {id(layer.engine) for layer in keep.layers} if keep is not None else set()
        for layer in self.layers:
            if id(layer.engine) not in kept:
                await layer.engine.aclose()
