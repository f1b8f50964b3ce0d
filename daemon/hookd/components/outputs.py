"""What leaves the daemon besides replies, as components: the decision log, the log shipper and the
OpenTelemetry export, the Prometheus endpoint, discovery and the fleet's status reports."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hookd.audit.ship import Shipper
from hookd.audit.writer import DecisionLog
from hookd.config import ShipConfig
from hookd.fleet.discovery import Discovery
from hookd.fleet.status import FleetStatus
from hookd.runtime.metrics import MetricsEndpoint

if TYPE_CHECKING:
    from hookd.rollout.otel import OtelExport  # the OpenTelemetry SDK: imported only when it is configured


class Recording:
    """The decision log: started before anything that decides, it writes what is queued when it stops."""

    name = "decision log"

    def __init__(self, decision_log: DecisionLog) -> None:
        self.log = decision_log

    def start(self) -> None:
        self.log.start()

    async def stop(self) -> None:
        await self.log.close()

    def status(self) -> Mapping[str, Any]:
        log = self.log
        return {
            "path": str(log.path),
            "written": log.written,
            "dropped": log.sink.dropped,
            "write_errors": log.write_errors,
            "seq": log.seq,
            "head": log.head,
            "subscribers": log.subscribers,
        }

    def counters(self) -> Mapping[str, float]:
        log = self.log
        return {
            "hookd_decision_log_written": float(log.written),
            "hookd_decision_log_dropped": float(log.sink.dropped),
            "hookd_decision_log_write_errors": float(log.write_errors),
        }


class Exporters:
    """The log shipper ([log.ship]) and the OpenTelemetry export ([otel]): both outlets of the decision
    log, both closed after it wrote its last record (one last bounded upload or export each)."""

    name = "log shipping and otel"

    def __init__(self, shipper: Shipper | None, otel: Callable[[], OtelExport] | None, log: DecisionLog) -> None:
        """`otel`: makes the export when [otel] is configured (at start: it reads the revision served)."""
        self.shipper = shipper
        self._make_otel = otel
        self._log = log
        self.otel: OtelExport | None = None

    def start(self) -> None:
        if self.shipper is not None:
            self.shipper.start()
        if self._make_otel is not None:
            self.otel = self._make_otel()
            self._log.outlets.append(self.otel.offer)

    async def stop(self) -> None:
        if self.otel is not None:
            await asyncio.to_thread(self.otel.close)
        if self.shipper is not None:
            await self.shipper.close()

    async def reship(self, ship: ShipConfig) -> None:
        """[log.ship] changed (discovery, docs/fleet.md): the shipper takes the new target (what it holds goes
        there), or starts, or stops after one last bounded upload."""
        old = self.shipper
        if old is not None and ship.url:
            old.config = ship
            return
        self.shipper = self._log.shipper = Shipper(ship) if ship.url else None
        if self.shipper is not None:
            self.shipper.start()
        if old is not None:
            await old.close()

    async def reexport(self, otel: Callable[[], OtelExport] | None) -> None:
        """[otel] changed (discovery): a new export takes every record from now on; the old one exports what
        it holds (bounded by its timeout) and stops, on a thread."""
        old, self.otel, self._make_otel = self.otel, None, otel
        if old is not None:
            self._log.outlets.remove(old.offer)
        if otel is not None:
            self.otel = otel()
            self._log.outlets.append(self.otel.offer)
        if old is not None:
            await asyncio.to_thread(old.close)

    def status(self) -> Mapping[str, Any]:
        shipper = self.shipper
        shipping = None
        if shipper is not None:
            shipping = {
                "url": shipper.config.url,
                "sent": shipper.sent,
                "dropped": shipper.dropped,
                "buffered": shipper.buffered,
                "failures": shipper.failures,
                "last_error": shipper.last_error,
                "last_success": shipper.last_success,
            }
        return {"shipping": shipping, "otel": self.otel.status() if self.otel is not None else None}

    def counters(self) -> Mapping[str, float]:
        counters: dict[str, float] = {}
        if self.shipper is not None:
            shipper = self.shipper
            counters |= {
                "hookd_log_ship_sent": shipper.sent,
                "hookd_log_ship_dropped": shipper.dropped,
                "hookd_log_ship_failures": shipper.failures,
            }
        if self.otel is not None:
            export = self.otel.processor
            counters |= {
                "hookd_otel_exported": export.exported,
                "hookd_otel_dropped": export.dropped,
                "hookd_otel_failed_exports": export.failed_exports,
            }
        return {name: float(value) for name, value in counters.items()}

    def gauges(self) -> dict[str, float]:
        gauges = {"hookd_log_ship_buffered": float(self.shipper.buffered)} if self.shipper is not None else {}
        if self.otel is not None:
            gauges["hookd_otel_buffered"] = float(self.otel.processor.buffered)
        return gauges


class Metrics:
    """The Prometheus endpoint ([metrics] listen), when configured."""

    name = "metrics"

    def __init__(self, endpoint: MetricsEndpoint | None) -> None:
        self.endpoint = endpoint

    def start(self) -> None:
        if self.endpoint is not None:
            self.endpoint.start()

    def stop(self) -> None:
        if self.endpoint is not None:
            self.endpoint.stop()

    def status(self) -> Mapping[str, Any]:
        return {"address": self.endpoint.address if self.endpoint is not None else ""}

    def counters(self) -> Mapping[str, float]:
        return {}


class Fleet:
    """Discovery ([discovery]) and the status reports and fleet metrics ([status], [otel]; docs/fleet.md):
    reports start last, so that the first one tells what started."""

    name = "fleet"

    def __init__(self, discovery: Discovery | None, reports: FleetStatus | None) -> None:
        self.discovery = discovery
        self.reports = reports

    def start(self) -> None:
        if self.discovery is not None:
            self.discovery.start()
        if self.reports is not None:
            self.reports.start()

    async def stop(self) -> None:
        if self.reports is not None:
            await self.reports.close()
        if self.discovery is not None:
            await self.discovery.stop()

    def status(self) -> Mapping[str, Any]:
        reports = self.reports
        return {
            "discovery": self.discovery.snapshot() if self.discovery is not None else None,
            "reports": {"sent": reports.sent, "failures": reports.failures, "last_error": reports.last_error}
            if reports is not None
            else None,
        }

    def counters(self) -> Mapping[str, float]:
        return {}  # the fleet's own counts go out in its reports and OTLP metrics (docs/fleet.md)
