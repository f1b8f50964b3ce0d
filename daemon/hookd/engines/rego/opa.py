"""The remote Rego engine: the policy set the embedded engine would serve, decided by an OPA server.

Loading (start-up, every reload, `hookd eval`) reads and checks the policy directory in process exactly
as the embedded engine does (regorus parses it, reads each package's `routing`, generates the router),
then pushes its modules, the router and its data.json documents to OPA through the policy and data APIs.
So OPA serves the same convention, a `hookd reload` reloads OPA too, and a policy OPA rejects fails the
load (the old set keeps serving). A decision is one `POST /v1/data/hookd_router/<rule>` with the
normalised input; the verdicts are read as the embedded engine reads them.

The client is opa-python-client's AsyncOpaClient (aiohttp), run on the event loop: no thread, and a
decision past its budget is cancelled instead of holding a worker. HookdOpaClient extends it where its
constructor falls short (docs/opa.md): Unix sockets, a CA bundle, a key file, a bounded keep-alive
pool, no retries (a retry would spend the deadline), and any JSON value as data. Its one fixed timeout
stays as the upper bound; each decision is cut to what is left of the request's deadline.

OPA keeps pushed policies in memory: when it restarts it answers `{}` (undefined) for the router rule,
and the engine pushes the set again and asks once more. When OPA is down or slow the decision raises
EngineError and the pipeline applies the event's fail mode; the next request simply tries again.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

import aiohttp
from opa_client import AsyncOpaClient
from opa_client.errors import PolicyNotFoundError

from hookd.config import OpaConfig
from hookd.engines.inflight import InFlight
from hookd.engines.rego.policyset import (
    ROUTER_PACKAGE,
    PolicySet,
    load_policy_set,
)
from hookd.engines.rego.verdicts import verdicts_from_result
from hookd.errors import EngineError, EngineTimeout, EngineUnavailable, OpaAnswerError, PolicyLoadError, one_line
from hookd.types import JSON, EngineRequest, EngineStatus, PackageInfo, Verdict

OWNED_PREFIX = "hookd/"  # the policy ids hookd pushes; every other policy on the server is left alone
ROUTER_ID = OWNED_PREFIX + "_router.rego"
DEADLINE_MARGIN = 0.05  # seconds kept back from the request deadline to combine, render and reply
PUSH_TIMEOUT = 15.0  # one policy or data upload while loading (OPA compiles on every PUT)

T = TypeVar("T")


class HookdOpaClient(AsyncOpaClient):  # type: ignore[misc]  # opa_client ships no type information
    """AsyncOpaClient with the transport hookd needs. Use as `async with HookdOpaClient(config) as c`."""

    def __init__(self, opa: OpaConfig, *, timeout: float | None = None) -> None:
        url = urlsplit(opa.url)
        https = url.scheme == "https"
        host = url.hostname or "localhost"
        super().__init__(
            host=f"[{host}]" if ":" in host else host,
            port=url.port or (443 if https else 80),
            ssl=https,
            cert=None,  # the TLS context is built below, with the CA bundle the constructor has no place for
            token=read_token(opa) or None,
            retries=0,
            timeout=opa.timeout_ms / 1000 if timeout is None else timeout,
        )
        self.url = opa.url
        self._socket_path = url.path if url.scheme == "unix" else None
        self._opa = opa

    async def _init_session(self) -> None:
        connector: aiohttp.BaseConnector
        if self._socket_path is not None:
            connector = aiohttp.UnixConnector(path=self._socket_path, limit=self._opa.max_connections)
        else:
            context = self._tls_context() if self.ssl else True
            connector = aiohttp.TCPConnector(ssl=context, limit=self._opa.max_connections)
        self._connector = connector
        self._session = aiohttp.ClientSession(
            headers=self.headers, connector=connector, timeout=aiohttp.ClientTimeout(total=self.timeout)
        )

    def _tls_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=self._opa.ca_file or None)
        if self._opa.client_cert:
            context.load_cert_chain(self._opa.client_cert, self._opa.client_key or None)
        return context

    async def query_rule(
        self, input_data: Mapping[str, JSON], package_path: str, rule_name: str | None = None, query_params: None = None
    ) -> dict[str, JSON]:
        """The library's query_rule (the same URL and body, on its session), keeping OPA's error message:
        the library's raise_for_status drops the body, which says which rule failed and why."""
        path = package_path.replace(".", "/") + (f"/{rule_name}" if rule_name else "")
        async with self._request("POST", f"{self.root_url}/data/{path}", json={"input": input_data}) as response:
            if response.status != 200:
                raise OpaAnswerError(response.status, await response.text())
            answer: dict[str, JSON] = await response.json()
            return answer

    async def put_data(self, path: str, value: JSON) -> None:
        """PUT /v1/data/<path>: update_or_create_data takes only objects, a data.json may hold any JSON."""
        async with self._request("PUT", f"{self.root_url}/data/{path}", json=value) as response:
            if response.status != 204:
                raise PolicyLoadError(f"OPA refused data at {path}: {one_line(await response.text())}")

    async def data_or_none(self, path: str) -> tuple[bool, JSON]:
        try:
            body = await self.get_data(path)
        except PolicyNotFoundError:
            return False, None
        return "result" in body, body.get("result")


def read_token(opa: OpaConfig) -> str:
    if not opa.token_file:
        return opa.token
    try:
        lines = Path(opa.token_file).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise PolicyLoadError(f"opa.token_file {opa.token_file}: cannot read: {exc.strerror}") from None
    return lines[0].strip() if lines else ""


@dataclass(frozen=True, slots=True)
class Upload:
    """What hookd pushes for one policy set: policy id -> Rego source, data path -> value."""

    modules: Mapping[str, str]
    data: Mapping[str, JSON]

    @classmethod
    def of(cls, policies: PolicySet, *, extra: Sequence[tuple[str, str]] = ()) -> Upload:
        modules = {OWNED_PREFIX + str(m.path): m.source for m in policies.modules}
        modules.update({OWNED_PREFIX + name: source for name, source in extra})
        modules[ROUTER_ID] = policies.router_source
        data: dict[str, JSON] = {}
        for document in policies.data:
            items = document.value.items() if not document.path else [("/".join(document.path), document.value)]
            data.update(items)
        return cls(modules, data)


async def push(client: HookdOpaClient, upload: Upload) -> None:
    """Make OPA hold exactly this policy set under hookd's ids. Raises PolicyLoadError when OPA rejects it,
    after putting back what OPA held before (an upload is several calls: none must stay half-applied)."""
    held = [pid for pid in await client.get_policies_list() if pid.startswith(OWNED_PREFIX)]
    before = {pid: (await client.get_policy(pid))["result"]["raw"] for pid in held}
    data_before = {path: await client.data_or_none(path) for path in upload.data}
    try:
        for path, value in upload.data.items():
            await client.put_data(path, value)
        await _apply(client, upload.modules, set(held) - set(upload.modules))
    except Exception as exc:
        with contextlib.suppress(Exception):
            await _restore(client, before, set(upload.modules) - set(before), data_before)
        if isinstance(exc, PolicyLoadError) or _unreachable(exc):
            raise
        raise PolicyLoadError(f"OPA at {client.url} refused the policies: {one_line(str(exc))}") from None


async def _apply(client: HookdOpaClient, puts: Mapping[str, str], deletes: Iterable[str] = ()) -> None:
    """PUT and DELETE modules. OPA compiles every change against what it holds, so a module that calls a
    function of one not uploaded yet, or the removal of one that another still calls, is refused: retry the
    refused changes while each round makes progress."""
    pending: dict[str, str | None] = {**dict.fromkeys(deletes), **puts}
    while pending:
        failed: dict[str, str | None] = {}
        errors: list[str] = []
        for pid, source in pending.items():
            try:
                if source is None:
                    await client.delete_policy(pid)
                else:
                    await client.update_policy_from_string(source, pid, rego_compat=False)
            except (aiohttp.ClientConnectionError, TimeoutError):
                raise
            except Exception as exc:  # RegoParseError, DeletePolicyError: OPA's compile errors
                failed[pid] = source
                errors.append(f"{pid.removeprefix(OWNED_PREFIX)}: {one_line(str(exc))}")
        if len(failed) == len(pending):
            raise PolicyLoadError(f"OPA at {client.url} refused the policies: {'; '.join(errors)}")
        pending = failed


async def _restore(
    client: HookdOpaClient, before: Mapping[str, str], added: set[str], data: Mapping[str, tuple[bool, JSON]]
) -> None:
    for path, (existed, value) in data.items():
        if existed:
            await client.put_data(path, value)
        else:
            with contextlib.suppress(Exception):
                await client.delete_data(path)
    await _apply(client, before, added)


def run_blocking(opa: OpaConfig, action: Callable[[HookdOpaClient], Awaitable[T]]) -> T:
    """Run `action` with a fresh client on a private event loop: loading is synchronous, and may be called
    from inside the daemon's running loop (a reload), where asyncio.run cannot run: then in its own thread."""
    outcome: list[T] = []
    failure: list[BaseException] = []

    async def main() -> None:
        async with HookdOpaClient(opa, timeout=max(PUSH_TIMEOUT, opa.timeout_ms / 1000)) as client:
            outcome.append(await action(client))

    def target() -> None:
        try:
            asyncio.run(main())
        except BaseException as exc:
            failure.append(exc)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(main())
        return outcome[0]
    thread = threading.Thread(target=target, name="hookd-opa-load", daemon=True)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return outcome[0]


def _unreachable(exc: BaseException) -> bool:
    return isinstance(exc, aiohttp.ClientConnectionError | TimeoutError | ConnectionError)


class RegoOpaEngine:
    """Rego decided by OPA. Build with `RegoOpaEngine.load(policy_dir, config.opa)`."""

    name = "opa"
    remote = True

    def __init__(self, policies: PolicySet, opa: OpaConfig, *, synced: bool) -> None:
        self._packages = policies.packages  # not the PolicySet: its regorus engine is only needed to load
        self._router = policies.router
        self.reads = policies.reads
        self._upload = Upload.of(policies)
        self._opa = opa
        self._synced = synced
        self._calls = InFlight()
        self._client: HookdOpaClient | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        self._sync_lock = asyncio.Lock()
        self.policy_dir = policies.policy_dir
        self.revision = policies.revision

    @classmethod
    def load(cls, policy_dir: Path, opa: OpaConfig) -> RegoOpaEngine:
        """Raises PolicyLoadError when the policies are bad or OPA refuses them. An OPA that cannot be
        reached does not fail the load: the engine pushes when OPA answers (until then, fail modes)."""
        policies = load_policy_set(policy_dir)
        upload = Upload.of(policies)
        try:
            run_blocking(opa, lambda client: push(client, upload))
        except PolicyLoadError:
            raise
        except Exception as exc:
            if not _unreachable(exc):
                raise PolicyLoadError(f"OPA at {opa.url}: {type(exc).__name__}: {one_line(str(exc))}") from None
            return cls(policies, opa, synced=False)
        return cls(policies, opa, synced=True)

    @property
    def packages(self) -> tuple[PackageInfo, ...]:
        return self._packages

    async def ready(self) -> None:
        return None

    def evaluate(self, request: EngineRequest) -> Sequence[Verdict] | Awaitable[Sequence[Verdict]]:
        """No package applies: answered in the call; else OPA's answer, awaited."""
        rule = self._router.rule_for(request.document)
        return self._asked(rule, request) if rule else []

    async def _asked(self, rule: str, request: EngineRequest) -> Sequence[Verdict]:
        budget = min(self._opa.timeout_ms / 1000, request.deadline.remaining() - DEADLINE_MARGIN)
        if budget <= 0:
            raise EngineTimeout("no time left before the deadline to ask OPA")
        self._calls.enter()
        try:
            async with asyncio.timeout(budget):
                return await self._decide(rule, request.document)
        except TimeoutError as exc:
            raise EngineTimeout(f"OPA at {self._opa.url} did not answer within {budget * 1000:.0f} ms") from exc
        except OpaAnswerError as exc:
            raise EngineError(f"OPA at {self._opa.url} answered {exc}") from exc
        except (aiohttp.ClientError, OSError) as exc:
            why = one_line(str(exc)) or type(exc).__name__
            raise EngineUnavailable(f"OPA at {self._opa.url} is unreachable: {why}") from exc
        except PolicyLoadError as exc:  # OPA refused the set when it was pushed again
            raise EngineUnavailable(str(exc)) from exc
        finally:
            self._calls.leave()

    async def _decide(self, rule: str, document: Mapping[str, JSON]) -> list[Verdict]:
        client = await self._session()
        if not self._synced:
            await self._sync(client)
        answer = await client.query_rule(document, ROUTER_PACKAGE, rule)
        if "result" not in answer:
            # The router rule is always defined where hookd pushed it: OPA restarted, or lost hookd's modules.
            self._synced = False
            await self._sync(client)
            answer = await client.query_rule(document, ROUTER_PACKAGE, rule)
        result = answer.get("result")
        if not isinstance(result, dict):
            raise EngineError(f"OPA answered {type(result).__name__} for {ROUTER_PACKAGE}.{rule}, expected an object")
        return verdicts_from_result(result)

    async def _session(self) -> HookdOpaClient:
        """One keep-alive client per event loop (aiohttp sessions belong to the loop that made them)."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            client = HookdOpaClient(self._opa)
            await client.__aenter__()
            self._client, self._client_loop, self._sync_lock = client, loop, asyncio.Lock()
        return self._client

    async def _sync(self, client: HookdOpaClient) -> None:
        async with self._sync_lock:
            if not self._synced:
                await push(client, self._upload)
                self._synced = True

    async def aclose(self) -> None:
        """After a reload: let the decisions in flight finish (each is bounded by timeout_ms), then close."""
        await self._calls.finished(self._opa.timeout_ms / 1000)
        client, self._client = self._client, None
        if client is not None and self._client_loop is asyncio.get_running_loop():
            await client.close_connection()

    def status(self) -> EngineStatus:
        return EngineStatus(
            self.name,
            self.revision,
            str(self.policy_dir),
            tuple(p.name for p in self._packages),
        )
