from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Interactive(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    INTERACTIVE_UNSPECIFIED: _ClassVar[Interactive]
    INTERACTIVE_YES: _ClassVar[Interactive]
    INTERACTIVE_NO: _ClassVar[Interactive]
INTERACTIVE_UNSPECIFIED: Interactive
INTERACTIVE_YES: Interactive
INTERACTIVE_NO: Interactive

class StatusRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class StatusResponse(_message.Message):
    __slots__ = ("version", "pid", "started_at", "uptime_seconds", "engine", "policy_sets", "counters", "sandbox_layers", "sandbox_note", "hook_socket", "control_socket", "decision_log", "metrics_address", "worker_pids", "worker_restarts", "lane_pid", "lane_requests", "stream_lane_pid", "bundles", "rollout", "otel", "replay", "fleet")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    UPTIME_SECONDS_FIELD_NUMBER: _ClassVar[int]
    ENGINE_FIELD_NUMBER: _ClassVar[int]
    POLICY_SETS_FIELD_NUMBER: _ClassVar[int]
    COUNTERS_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_LAYERS_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_NOTE_FIELD_NUMBER: _ClassVar[int]
    HOOK_SOCKET_FIELD_NUMBER: _ClassVar[int]
    CONTROL_SOCKET_FIELD_NUMBER: _ClassVar[int]
    DECISION_LOG_FIELD_NUMBER: _ClassVar[int]
    METRICS_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    WORKER_PIDS_FIELD_NUMBER: _ClassVar[int]
    WORKER_RESTARTS_FIELD_NUMBER: _ClassVar[int]
    LANE_PID_FIELD_NUMBER: _ClassVar[int]
    LANE_REQUESTS_FIELD_NUMBER: _ClassVar[int]
    STREAM_LANE_PID_FIELD_NUMBER: _ClassVar[int]
    BUNDLES_FIELD_NUMBER: _ClassVar[int]
    ROLLOUT_FIELD_NUMBER: _ClassVar[int]
    OTEL_FIELD_NUMBER: _ClassVar[int]
    REPLAY_FIELD_NUMBER: _ClassVar[int]
    FLEET_FIELD_NUMBER: _ClassVar[int]
    version: str
    pid: int
    started_at: str
    uptime_seconds: float
    engine: str
    policy_sets: _containers.RepeatedCompositeFieldContainer[PolicySet]
    counters: Counters
    sandbox_layers: _containers.RepeatedCompositeFieldContainer[SandboxLayer]
    sandbox_note: str
    hook_socket: str
    control_socket: str
    decision_log: DecisionLogStatus
    metrics_address: str
    worker_pids: _containers.RepeatedScalarFieldContainer[int]
    worker_restarts: int
    lane_pid: int
    lane_requests: int
    stream_lane_pid: int
    bundles: _containers.RepeatedCompositeFieldContainer[BundleStatus]
    rollout: RolloutStatus
    otel: OtelStatus
    replay: ReplayStatus
    fleet: FleetStatus
    def __init__(self, version: _Optional[str] = ..., pid: _Optional[int] = ..., started_at: _Optional[str] = ..., uptime_seconds: _Optional[float] = ..., engine: _Optional[str] = ..., policy_sets: _Optional[_Iterable[_Union[PolicySet, _Mapping]]] = ..., counters: _Optional[_Union[Counters, _Mapping]] = ..., sandbox_layers: _Optional[_Iterable[_Union[SandboxLayer, _Mapping]]] = ..., sandbox_note: _Optional[str] = ..., hook_socket: _Optional[str] = ..., control_socket: _Optional[str] = ..., decision_log: _Optional[_Union[DecisionLogStatus, _Mapping]] = ..., metrics_address: _Optional[str] = ..., worker_pids: _Optional[_Iterable[int]] = ..., worker_restarts: _Optional[int] = ..., lane_pid: _Optional[int] = ..., lane_requests: _Optional[int] = ..., stream_lane_pid: _Optional[int] = ..., bundles: _Optional[_Iterable[_Union[BundleStatus, _Mapping]]] = ..., rollout: _Optional[_Union[RolloutStatus, _Mapping]] = ..., otel: _Optional[_Union[OtelStatus, _Mapping]] = ..., replay: _Optional[_Union[ReplayStatus, _Mapping]] = ..., fleet: _Optional[_Union[FleetStatus, _Mapping]] = ...) -> None: ...

class FleetStatus(_message.Message):
    __slots__ = ("status_url", "last_report_at", "last_report_reason", "last_report_ok", "last_report_error", "reports_sent", "report_failures", "discovery", "overrides_refused")
    STATUS_URL_FIELD_NUMBER: _ClassVar[int]
    LAST_REPORT_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_REPORT_REASON_FIELD_NUMBER: _ClassVar[int]
    LAST_REPORT_OK_FIELD_NUMBER: _ClassVar[int]
    LAST_REPORT_ERROR_FIELD_NUMBER: _ClassVar[int]
    REPORTS_SENT_FIELD_NUMBER: _ClassVar[int]
    REPORT_FAILURES_FIELD_NUMBER: _ClassVar[int]
    DISCOVERY_FIELD_NUMBER: _ClassVar[int]
    OVERRIDES_REFUSED_FIELD_NUMBER: _ClassVar[int]
    status_url: str
    last_report_at: str
    last_report_reason: str
    last_report_ok: bool
    last_report_error: str
    reports_sent: int
    report_failures: int
    discovery: BundleStatus
    overrides_refused: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, status_url: _Optional[str] = ..., last_report_at: _Optional[str] = ..., last_report_reason: _Optional[str] = ..., last_report_ok: _Optional[bool] = ..., last_report_error: _Optional[str] = ..., reports_sent: _Optional[int] = ..., report_failures: _Optional[int] = ..., discovery: _Optional[_Union[BundleStatus, _Mapping]] = ..., overrides_refused: _Optional[_Iterable[str]] = ...) -> None: ...

class MonitorCount(_message.Message):
    __slots__ = ("layer", "decision", "count")
    LAYER_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    layer: str
    decision: str
    count: int
    def __init__(self, layer: _Optional[str] = ..., decision: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class RolloutStatus(_message.Message):
    __slots__ = ("monitor", "shadow", "shadow_evaluated", "disagreements", "skipped", "errors", "cpu_budget_percent")
    class DisagreementsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class SkippedEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    MONITOR_FIELD_NUMBER: _ClassVar[int]
    SHADOW_FIELD_NUMBER: _ClassVar[int]
    SHADOW_EVALUATED_FIELD_NUMBER: _ClassVar[int]
    DISAGREEMENTS_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    CPU_BUDGET_PERCENT_FIELD_NUMBER: _ClassVar[int]
    monitor: _containers.RepeatedCompositeFieldContainer[MonitorCount]
    shadow: str
    shadow_evaluated: int
    disagreements: _containers.ScalarMap[str, int]
    skipped: _containers.ScalarMap[str, int]
    errors: int
    cpu_budget_percent: int
    def __init__(self, monitor: _Optional[_Iterable[_Union[MonitorCount, _Mapping]]] = ..., shadow: _Optional[str] = ..., shadow_evaluated: _Optional[int] = ..., disagreements: _Optional[_Mapping[str, int]] = ..., skipped: _Optional[_Mapping[str, int]] = ..., errors: _Optional[int] = ..., cpu_budget_percent: _Optional[int] = ...) -> None: ...

class ReplayStatus(_message.Message):
    __slots__ = ("path", "written", "dropped", "write_errors", "deleted", "segments", "bytes")
    PATH_FIELD_NUMBER: _ClassVar[int]
    WRITTEN_FIELD_NUMBER: _ClassVar[int]
    DROPPED_FIELD_NUMBER: _ClassVar[int]
    WRITE_ERRORS_FIELD_NUMBER: _ClassVar[int]
    DELETED_FIELD_NUMBER: _ClassVar[int]
    SEGMENTS_FIELD_NUMBER: _ClassVar[int]
    BYTES_FIELD_NUMBER: _ClassVar[int]
    path: str
    written: int
    dropped: int
    write_errors: int
    deleted: int
    segments: int
    bytes: int
    def __init__(self, path: _Optional[str] = ..., written: _Optional[int] = ..., dropped: _Optional[int] = ..., write_errors: _Optional[int] = ..., deleted: _Optional[int] = ..., segments: _Optional[int] = ..., bytes: _Optional[int] = ...) -> None: ...

class OtelStatus(_message.Message):
    __slots__ = ("endpoint", "exported", "dropped", "failed_exports", "buffered", "last_error")
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    EXPORTED_FIELD_NUMBER: _ClassVar[int]
    DROPPED_FIELD_NUMBER: _ClassVar[int]
    FAILED_EXPORTS_FIELD_NUMBER: _ClassVar[int]
    BUFFERED_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_FIELD_NUMBER: _ClassVar[int]
    endpoint: str
    exported: int
    dropped: int
    failed_exports: int
    buffered: int
    last_error: str
    def __init__(self, endpoint: _Optional[str] = ..., exported: _Optional[int] = ..., dropped: _Optional[int] = ..., failed_exports: _Optional[int] = ..., buffered: _Optional[int] = ..., last_error: _Optional[str] = ...) -> None: ...

class BundleStatus(_message.Message):
    __slots__ = ("name", "location", "revision", "active_since", "last_success", "last_error", "last_error_at", "next_poll", "consecutive_failures", "downloads", "not_modified", "activations", "refusals", "fetch_failures", "long_polling", "last_activation_ms")
    NAME_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_SINCE_FIELD_NUMBER: _ClassVar[int]
    LAST_SUCCESS_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_AT_FIELD_NUMBER: _ClassVar[int]
    NEXT_POLL_FIELD_NUMBER: _ClassVar[int]
    CONSECUTIVE_FAILURES_FIELD_NUMBER: _ClassVar[int]
    DOWNLOADS_FIELD_NUMBER: _ClassVar[int]
    NOT_MODIFIED_FIELD_NUMBER: _ClassVar[int]
    ACTIVATIONS_FIELD_NUMBER: _ClassVar[int]
    REFUSALS_FIELD_NUMBER: _ClassVar[int]
    FETCH_FAILURES_FIELD_NUMBER: _ClassVar[int]
    LONG_POLLING_FIELD_NUMBER: _ClassVar[int]
    LAST_ACTIVATION_MS_FIELD_NUMBER: _ClassVar[int]
    name: str
    location: str
    revision: str
    active_since: str
    last_success: str
    last_error: str
    last_error_at: str
    next_poll: str
    consecutive_failures: int
    downloads: int
    not_modified: int
    activations: int
    refusals: int
    fetch_failures: int
    long_polling: bool
    last_activation_ms: float
    def __init__(self, name: _Optional[str] = ..., location: _Optional[str] = ..., revision: _Optional[str] = ..., active_since: _Optional[str] = ..., last_success: _Optional[str] = ..., last_error: _Optional[str] = ..., last_error_at: _Optional[str] = ..., next_poll: _Optional[str] = ..., consecutive_failures: _Optional[int] = ..., downloads: _Optional[int] = ..., not_modified: _Optional[int] = ..., activations: _Optional[int] = ..., refusals: _Optional[int] = ..., fetch_failures: _Optional[int] = ..., long_polling: _Optional[bool] = ..., last_activation_ms: _Optional[float] = ...) -> None: ...

class PolicySet(_message.Message):
    __slots__ = ("name", "path", "revision", "packages", "loaded_at", "mode", "replaces")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    PACKAGES_FIELD_NUMBER: _ClassVar[int]
    LOADED_AT_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    REPLACES_FIELD_NUMBER: _ClassVar[int]
    name: str
    path: str
    revision: str
    packages: _containers.RepeatedScalarFieldContainer[str]
    loaded_at: str
    mode: str
    replaces: str
    def __init__(self, name: _Optional[str] = ..., path: _Optional[str] = ..., revision: _Optional[str] = ..., packages: _Optional[_Iterable[str]] = ..., loaded_at: _Optional[str] = ..., mode: _Optional[str] = ..., replaces: _Optional[str] = ...) -> None: ...

class Counters(_message.Message):
    __slots__ = ("requests", "decisions", "errors", "reloads", "reload_failures")
    class DecisionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class ErrorsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    RELOADS_FIELD_NUMBER: _ClassVar[int]
    RELOAD_FAILURES_FIELD_NUMBER: _ClassVar[int]
    requests: int
    decisions: _containers.ScalarMap[str, int]
    errors: _containers.ScalarMap[str, int]
    reloads: int
    reload_failures: int
    def __init__(self, requests: _Optional[int] = ..., decisions: _Optional[_Mapping[str, int]] = ..., errors: _Optional[_Mapping[str, int]] = ..., reloads: _Optional[int] = ..., reload_failures: _Optional[int] = ...) -> None: ...

class SandboxLayer(_message.Message):
    __slots__ = ("name", "active", "detail")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    name: str
    active: bool
    detail: str
    def __init__(self, name: _Optional[str] = ..., active: _Optional[bool] = ..., detail: _Optional[str] = ...) -> None: ...

class DecisionLogStatus(_message.Message):
    __slots__ = ("path", "written", "dropped", "write_errors", "seq", "head", "subscribers", "shipping")
    PATH_FIELD_NUMBER: _ClassVar[int]
    WRITTEN_FIELD_NUMBER: _ClassVar[int]
    DROPPED_FIELD_NUMBER: _ClassVar[int]
    WRITE_ERRORS_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    HEAD_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBERS_FIELD_NUMBER: _ClassVar[int]
    SHIPPING_FIELD_NUMBER: _ClassVar[int]
    path: str
    written: int
    dropped: int
    write_errors: int
    seq: int
    head: str
    subscribers: int
    shipping: LogShipping
    def __init__(self, path: _Optional[str] = ..., written: _Optional[int] = ..., dropped: _Optional[int] = ..., write_errors: _Optional[int] = ..., seq: _Optional[int] = ..., head: _Optional[str] = ..., subscribers: _Optional[int] = ..., shipping: _Optional[_Union[LogShipping, _Mapping]] = ...) -> None: ...

class LogShipping(_message.Message):
    __slots__ = ("url", "sent", "dropped", "buffered", "failures", "last_error", "last_success")
    URL_FIELD_NUMBER: _ClassVar[int]
    SENT_FIELD_NUMBER: _ClassVar[int]
    DROPPED_FIELD_NUMBER: _ClassVar[int]
    BUFFERED_FIELD_NUMBER: _ClassVar[int]
    FAILURES_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_FIELD_NUMBER: _ClassVar[int]
    LAST_SUCCESS_FIELD_NUMBER: _ClassVar[int]
    url: str
    sent: int
    dropped: int
    buffered: int
    failures: int
    last_error: str
    last_success: str
    def __init__(self, url: _Optional[str] = ..., sent: _Optional[int] = ..., dropped: _Optional[int] = ..., buffered: _Optional[int] = ..., failures: _Optional[int] = ..., last_error: _Optional[str] = ..., last_success: _Optional[str] = ...) -> None: ...

class ReloadRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ReloadResponse(_message.Message):
    __slots__ = ("ok", "error", "previous_revision", "policy_set")
    OK_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_REVISION_FIELD_NUMBER: _ClassVar[int]
    POLICY_SET_FIELD_NUMBER: _ClassVar[int]
    ok: bool
    error: str
    previous_revision: str
    policy_set: PolicySet
    def __init__(self, ok: _Optional[bool] = ..., error: _Optional[str] = ..., previous_revision: _Optional[str] = ..., policy_set: _Optional[_Union[PolicySet, _Mapping]] = ...) -> None: ...

class ListPoliciesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListPoliciesResponse(_message.Message):
    __slots__ = ("policy_sets", "packages")
    POLICY_SETS_FIELD_NUMBER: _ClassVar[int]
    PACKAGES_FIELD_NUMBER: _ClassVar[int]
    policy_sets: _containers.RepeatedCompositeFieldContainer[PolicySet]
    packages: _containers.RepeatedCompositeFieldContainer[PolicyPackage]
    def __init__(self, policy_sets: _Optional[_Iterable[_Union[PolicySet, _Mapping]]] = ..., packages: _Optional[_Iterable[_Union[PolicyPackage, _Mapping]]] = ...) -> None: ...

class PolicyPackage(_message.Message):
    __slots__ = ("name", "policy_set", "rules", "routing")
    NAME_FIELD_NUMBER: _ClassVar[int]
    POLICY_SET_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    ROUTING_FIELD_NUMBER: _ClassVar[int]
    name: str
    policy_set: str
    rules: _containers.RepeatedCompositeFieldContainer[Rule]
    routing: Routing
    def __init__(self, name: _Optional[str] = ..., policy_set: _Optional[str] = ..., rules: _Optional[_Iterable[_Union[Rule, _Mapping]]] = ..., routing: _Optional[_Union[Routing, _Mapping]] = ...) -> None: ...

class Rule(_message.Message):
    __slots__ = ("name", "kind")
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    name: str
    kind: str
    def __init__(self, name: _Optional[str] = ..., kind: _Optional[str] = ...) -> None: ...

class Routing(_message.Message):
    __slots__ = ("events", "kinds", "tools")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedScalarFieldContainer[str]
    kinds: _containers.RepeatedScalarFieldContainer[str]
    tools: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, events: _Optional[_Iterable[str]] = ..., kinds: _Optional[_Iterable[str]] = ..., tools: _Optional[_Iterable[str]] = ...) -> None: ...

class EvaluateRequest(_message.Message):
    __slots__ = ("client", "event", "payload", "env", "cwd", "interactive")
    class EnvEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    ENV_FIELD_NUMBER: _ClassVar[int]
    CWD_FIELD_NUMBER: _ClassVar[int]
    INTERACTIVE_FIELD_NUMBER: _ClassVar[int]
    client: str
    event: str
    payload: bytes
    env: _containers.ScalarMap[str, str]
    cwd: str
    interactive: Interactive
    def __init__(self, client: _Optional[str] = ..., event: _Optional[str] = ..., payload: _Optional[bytes] = ..., env: _Optional[_Mapping[str, str]] = ..., cwd: _Optional[str] = ..., interactive: _Optional[_Union[Interactive, str]] = ...) -> None: ...

class Verdict(_message.Message):
    __slots__ = ("kind", "policy", "rule", "message", "patch_json")
    KIND_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    RULE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    PATCH_JSON_FIELD_NUMBER: _ClassVar[int]
    kind: str
    policy: str
    rule: str
    message: str
    patch_json: str
    def __init__(self, kind: _Optional[str] = ..., policy: _Optional[str] = ..., rule: _Optional[str] = ..., message: _Optional[str] = ..., patch_json: _Optional[str] = ...) -> None: ...

class EvaluateResponse(_message.Message):
    __slots__ = ("decision", "stdout", "stderr", "exit_code", "verdicts", "notes", "decision_id", "revision")
    DECISION_FIELD_NUMBER: _ClassVar[int]
    STDOUT_FIELD_NUMBER: _ClassVar[int]
    STDERR_FIELD_NUMBER: _ClassVar[int]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    VERDICTS_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    decision: str
    stdout: bytes
    stderr: bytes
    exit_code: int
    verdicts: _containers.RepeatedCompositeFieldContainer[Verdict]
    notes: _containers.RepeatedScalarFieldContainer[str]
    decision_id: str
    revision: str
    def __init__(self, decision: _Optional[str] = ..., stdout: _Optional[bytes] = ..., stderr: _Optional[bytes] = ..., exit_code: _Optional[int] = ..., verdicts: _Optional[_Iterable[_Union[Verdict, _Mapping]]] = ..., notes: _Optional[_Iterable[str]] = ..., decision_id: _Optional[str] = ..., revision: _Optional[str] = ...) -> None: ...

class StreamDecisionsRequest(_message.Message):
    __slots__ = ("events", "decisions", "tools", "clients", "session_id")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    CLIENTS_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedScalarFieldContainer[str]
    decisions: _containers.RepeatedScalarFieldContainer[str]
    tools: _containers.RepeatedScalarFieldContainer[str]
    clients: _containers.RepeatedScalarFieldContainer[str]
    session_id: str
    def __init__(self, events: _Optional[_Iterable[str]] = ..., decisions: _Optional[_Iterable[str]] = ..., tools: _Optional[_Iterable[str]] = ..., clients: _Optional[_Iterable[str]] = ..., session_id: _Optional[str] = ...) -> None: ...

class DecisionRecord(_message.Message):
    __slots__ = ("id", "time", "seq", "client", "event", "tool", "decision", "verdicts", "latency_ms", "uid", "pid", "session_id", "revisions", "via", "json", "dropped_before")
    class RevisionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    VERDICTS_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    UID_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    REVISIONS_FIELD_NUMBER: _ClassVar[int]
    VIA_FIELD_NUMBER: _ClassVar[int]
    JSON_FIELD_NUMBER: _ClassVar[int]
    DROPPED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    id: str
    time: str
    seq: int
    client: str
    event: str
    tool: str
    decision: str
    verdicts: _containers.RepeatedCompositeFieldContainer[Verdict]
    latency_ms: float
    uid: int
    pid: int
    session_id: str
    revisions: _containers.ScalarMap[str, str]
    via: str
    json: str
    dropped_before: int
    def __init__(self, id: _Optional[str] = ..., time: _Optional[str] = ..., seq: _Optional[int] = ..., client: _Optional[str] = ..., event: _Optional[str] = ..., tool: _Optional[str] = ..., decision: _Optional[str] = ..., verdicts: _Optional[_Iterable[_Union[Verdict, _Mapping]]] = ..., latency_ms: _Optional[float] = ..., uid: _Optional[int] = ..., pid: _Optional[int] = ..., session_id: _Optional[str] = ..., revisions: _Optional[_Mapping[str, str]] = ..., via: _Optional[str] = ..., json: _Optional[str] = ..., dropped_before: _Optional[int] = ...) -> None: ...

class DecideRequest(_message.Message):
    __slots__ = ("client", "event", "payload", "env", "cwd", "ppid")
    class EnvEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    ENV_FIELD_NUMBER: _ClassVar[int]
    CWD_FIELD_NUMBER: _ClassVar[int]
    PPID_FIELD_NUMBER: _ClassVar[int]
    client: str
    event: str
    payload: bytes
    env: _containers.ScalarMap[str, str]
    cwd: str
    ppid: int
    def __init__(self, client: _Optional[str] = ..., event: _Optional[str] = ..., payload: _Optional[bytes] = ..., env: _Optional[_Mapping[str, str]] = ..., cwd: _Optional[str] = ..., ppid: _Optional[int] = ...) -> None: ...

class DecideResponse(_message.Message):
    __slots__ = ("stdout", "stderr", "exit_code", "decision", "decision_id")
    STDOUT_FIELD_NUMBER: _ClassVar[int]
    STDERR_FIELD_NUMBER: _ClassVar[int]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    stdout: bytes
    stderr: bytes
    exit_code: int
    decision: str
    decision_id: str
    def __init__(self, stdout: _Optional[bytes] = ..., stderr: _Optional[bytes] = ..., exit_code: _Optional[int] = ..., decision: _Optional[str] = ..., decision_id: _Optional[str] = ...) -> None: ...
