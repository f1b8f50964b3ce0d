"""hookd's exception tree. Every error carries a one-line, user-facing message.

HookdError
├── ConfigError        a config file or value is wrong (names the key)
├── FrameError         a wire frame breaks the protocol or its limits (carries a reply code)
├── DialectError       a payload the client dialect cannot read (bad JSON, unknown event, …)
├── InputTooLarge      a shell command over a `[limits]` cap; the pipeline answers the input-limit verdict
├── EngineError        a policy engine could not answer; the pipeline alone turns it into the event's fail mode
│   ├── EngineTimeout      the answer did not come within the request's deadline or the engine's timeout
│   ├── EngineUnavailable  the engine cannot be reached (OPA down or refusing)
│   ├── PolicyError        one policy broke (raised, crashed its worker, returned a malformed verdict): it fails
│   │                      closed wherever a deny can block
│   ├── PartialAnswer      some policies answered and some failed: the answers and the errors, in order (the
│   │                      pipeline keeps the answers and turns each error into its verdict)
│   └── PolicyLoadError    policies did not load or compile (at start or a reload the old set keeps serving;
│                          raised while deciding, it fails like any engine error)
├── SandboxFrameError  a frame between the daemon and a sandboxed Python policy worker breaks its limits
├── WorkerGone         a sandboxed Python policy worker died, hung up or did not start (the engine turns it into
│                      an EngineError or a restart)
├── SandboxUnavailable a sandbox layer the kernel does not offer (the sandbox reports it and applies the rest)
│   ├── SeccompUnavailable
│   └── LandlockUnavailable
├── OpaAnswerError     OPA answered a query with an error status (the OPA engine raises it as an EngineError)
├── HttpError          an HTTP hook request refused before a decision (carries the HTTP status)
├── StrictJsonError    a document that is not strict JSON (NaN, Infinity, too deep; also a ValueError)
├── BundleError        a policy bundle is malformed, unsigned where it must be signed, or fails verification
├── DaemonError        the daemon cannot start (live daemon already running, bad runtime dir)
├── ControlError       the daemon could not be reached over the control socket, or refused or failed a call
├── SettingsError      an agent's settings file (or hookd's config) hookd must not or cannot change
├── ShimBuildError     the native shim could not be built or is not there
├── ServiceError       a systemd unit could not be written, removed or asked about
└── Unavailable        this process cannot serve the request as it must (a worker cut off from its daemon's
    │                  decision log); the hook server answers an error frame and the shim its fail mode
    └── LaneRefused    the lane process, deciding a heavy request, answered an error or was not there (its code)
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hookd.types import Engine, EngineRequest, Verdict

Results = Sequence["Verdict | EngineError"]


class HookdError(Exception):
    """Base of every error hookd raises on purpose."""


class ConfigError(HookdError):
    pass


class FrameError(HookdError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class DialectError(HookdError):
    pass


class InputTooLarge(HookdError):
    pass


class EngineError(HookdError):
    """`policy` names the policy that failed, where one did; `layer` and `rank` the layer it belongs to, once
    a layered engine has tagged it (the verdict the pipeline makes of it carries them)."""

    def __init__(self, message: str = "", *, policy: str = "") -> None:
        super().__init__(message)
        self.policy = policy
        self.layer: str | None = None
        self.rank = 0


class EngineTimeout(EngineError):
    pass


class EngineUnavailable(EngineError):
    pass


class PolicyLoadError(EngineError):
    pass


class PolicyError(EngineError):
    def __init__(self, message: str, *, policy: str, rule: str) -> None:
        super().__init__(message, policy=policy)
        self.rule = rule


class PartialAnswer(EngineError):
    """What an engine answered where some of its policies failed: verdicts and errors in the order the
    policies came, so that one broken policy never loses another's deny, rewrite or context."""

    def __init__(self, results: Sequence[Verdict | EngineError]) -> None:
        failures = [one_line(str(r)) for r in results if isinstance(r, EngineError)]
        super().__init__("; ".join(failures))
        self.results = tuple(results)


def verdicts_or_partial(results: Sequence[Verdict | EngineError]) -> list[Verdict]:
    """`results` when every policy answered; a PartialAnswer of them when one failed."""
    verdicts = [r for r in results if not isinstance(r, EngineError)]
    if len(verdicts) < len(results):
        raise PartialAnswer(results)
    return verdicts


def results_of(part: Engine, request: EngineRequest) -> Results | Awaitable[Results]:
    """What one part of a policy set (a composite's engine, a layer) answered, a PartialAnswer's results kept
    so that its broken policy never drops the other parts' answers; an awaitable where the part's answer is one."""
    try:
        answer = part.evaluate(request)
    except PartialAnswer as exc:
        return exc.results
    return _results_awaited(answer) if isinstance(answer, Awaitable) else answer


async def _results_awaited(answer: Awaitable[Sequence[Verdict]]) -> Results:
    try:
        return await answer
    except PartialAnswer as exc:
        return exc.results


class SandboxFrameError(HookdError):
    """Raised on both sides of the channel to a sandboxed policy worker (hookd.sandbox.frames)."""


class WorkerGone(HookdError):
    pass


class SandboxUnavailable(HookdError):
    pass


class SeccompUnavailable(SandboxUnavailable):
    pass


class LandlockUnavailable(SandboxUnavailable):
    pass


class OpaAnswerError(HookdError):
    """OPA answered a query with an error status: an evaluation error (HTTP 500), a bad request, no access."""

    def __init__(self, status: int, body: str) -> None:
        try:
            detail = json.loads(body)
            message = f"{detail.get('code', '')}: {detail.get('message', '')}"
        except (ValueError, AttributeError):
            message = body
        super().__init__(f"HTTP {status} {one_line(message)}")
        self.status = status


class HttpError(HookdError):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class StrictJsonError(HookdError, ValueError):
    """Not strict JSON: the message says why in one line."""


class DaemonError(HookdError):
    pass


class ControlError(HookdError):
    """The daemon could not be reached, or refused or failed the call. The message is one line."""


class SettingsError(HookdError):
    """A settings file hookd must not or cannot change; the message is one line and names the file."""


class ShimBuildError(HookdError):
    """The native shim could not be built or is not there; the message is one line."""


class ServiceError(HookdError):
    """A unit could not be written, removed or asked about; the message is one line."""


class BundleError(HookdError):
    pass


class Unavailable(HookdError):
    pass


class LaneRefused(Unavailable):
    """The lane process answered an error frame (or could not be reached): its code goes to the agent."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def one_line(text: str, limit: int = 300) -> str:
    """Collapse an error text to one line (regorus errors can carry backtraces)."""
    text = text.split("\nStack backtrace:", 1)[0]
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
