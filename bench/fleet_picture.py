"""Draw docs/fleet-dashboard.png from a kept `bench/fleet.py --keep` run: the fleet dashboard's panels
(deploy/grafana/hookd-fleet.json) over that run's real data, not a Grafana screenshot:

  revisions across the fleet   daemons serving each revision of `acme` over time (each daemon's
                               `bundle_activated` log lines)
  bundle server requests       nginx's access log per second, by answer (200, 304, others; the gap is the outage)
  daemons reporting            distinct `service.instance.id` exporting `hookd.fleet.up` to the collector
  denials by rule and agent    `hookd.decisions.by_rule` as the collector last received it, summed over daemons

matplotlib is a development tool here, not a dependency of hookd: install it anywhere and point PYTHONPATH
at it, e.g. `pip install --target /tmp/mpl matplotlib`, then
  PYTHONPATH=/tmp/mpl .cache/venv/bin/python bench/fleet_picture.py /tmp/hookd-fleet-XXXX docs/fleet-dashboard.png
"""

from __future__ import annotations

import collections
import datetime
import json
import sys
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

BACKGROUND, PANEL, TEXT, GRID = "#111217", "#181b1f", "#ccccdc", "#2c3235"
COLOURS = ["#73bf69", "#f2cc0c", "#5794f2", "#ff9830", "#f2495c", "#b877d9", "#8ab8ff"]


def lines(path: Path) -> list[dict[str, Any]]:
    out = []
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
    return out


def revisions_over_time(work: Path) -> tuple[list[float], dict[str, list[int]]]:
    changes = []  # (time, daemon, revision)
    for log in sorted((work / "homes").glob("*/daemon.log")):
        for event in lines(log):
            if event.get("event") == "bundle_activated" and event.get("source") == "acme":
                at = datetime.datetime.fromisoformat(event["timestamp"]).timestamp()
                changes.append((at, log.parent.name, str(event["revision"])))
    changes.sort()
    serving: dict[str, str] = {}
    times: list[float] = []
    counts: dict[str, list[int]] = {rev: [] for rev in sorted({c[2] for c in changes})}
    for at, daemon, revision in changes:
        serving[daemon] = revision
        times.append(at)
        tally = collections.Counter(serving.values())
        for rev, series in counts.items():
            series.append(tally.get(rev, 0))
    return times, counts


def requests_per_second(work: Path) -> dict[str, dict[int, int]]:
    by_status: dict[str, dict[int, int]] = {"200": {}, "304": {}, "other": {}}
    access = work / "nginx" / "access.log"
    for line in access.read_text().splitlines() if access.exists() else []:
        at, status, _sent, _uri = line.split(" ", 3)
        key = status if status in by_status else "other"
        second = int(float(at))
        by_status[key][second] = by_status[key].get(second, 0) + 1
    return by_status


def reporting(work: Path) -> tuple[dict[int, set[str]], collections.Counter[tuple[str, str]]]:
    per_bucket: dict[int, set[str]] = collections.defaultdict(set)
    denials: dict[tuple[str, str, str], float] = {}  # (instance, agent, rule) -> last cumulative value
    for export in lines(work / "metrics.json"):
        for resource in export.get("resourceMetrics", []):
            attrs = {a["key"]: a["value"].get("stringValue", "") for a in resource["resource"].get("attributes", [])}
            instance = attrs.get("service.instance.id", "")
            for scope in resource.get("scopeMetrics", []):
                for metric in scope.get("metrics", []):
                    points = (metric.get("gauge") or metric.get("sum") or {}).get("dataPoints", [])
                    for point in points:
                        if metric["name"] == "hookd.fleet.up":
                            per_bucket[int(point["timeUnixNano"]) // 10**9 // 10 * 10].add(instance)
                        if metric["name"] == "hookd.decisions.by_rule":
                            labels = {a["key"]: a["value"].get("stringValue", "") for a in point["attributes"]}
                            if labels.get("decision") in ("deny", "halt"):
                                key = (instance, labels.get("agent", ""), labels.get("rule", ""))
                                denials[key] = float(point.get("asInt") or point.get("asDouble") or 0)
    total: collections.Counter[tuple[str, str]] = collections.Counter()
    for (_, agent, rule), value in denials.items():
        total[(agent, rule)] += int(value)
    return per_bucket, total


def style(ax: Any, title: str) -> None:
    ax.set_facecolor(PANEL)
    ax.set_title(title, color=TEXT, loc="left", fontsize=11)
    ax.tick_params(colors=TEXT, labelsize=8)
    ax.grid(color=GRID, linewidth=0.6)
    for spine in ax.spines.values():
        spine.set_color(GRID)


def main() -> None:
    work, out = Path(sys.argv[1]), Path(sys.argv[2])
    times, counts = revisions_over_time(work)
    requests = requests_per_second(work)
    per_bucket, denials = reporting(work)
    start = min([*times, *[s for d in requests.values() for s in d]] or [0])
    fig, axes = plt.subplots(2, 2, figsize=(14, 7.5), facecolor=BACKGROUND)
    fig.suptitle(
        f"hookd fleet — bench/fleet.py, {len({p.parent.name for p in (work / 'homes').glob('*/daemon.log')})} daemons",
        color=TEXT, x=0.01, ha="left", fontsize=13,
    )  # fmt: skip

    ax = axes[0][0]
    style(ax, "Revisions across the fleet (bundle acme): daemons serving each")
    for i, (rev, series) in enumerate(counts.items()):
        ax.step([t - start for t in times], series, where="post", label=rev, color=COLOURS[i % len(COLOURS)])
    ax.set_xlabel("s since the first daemon started", color=TEXT, fontsize=8)
    ax.legend(facecolor=PANEL, labelcolor=TEXT, fontsize=8)

    ax = axes[0][1]
    style(ax, "Bundle server (nginx): requests per second by answer")
    span = [s for seconds in requests.values() for s in seconds]
    for i, (status, seconds) in enumerate(requests.items()):
        if seconds:  # every second of the run, 0 where nginx answered nothing (it was down)
            xs = range(int(min(span)), int(max(span)) + 1)
            ax.plot([x - start for x in xs], [seconds.get(x, 0) for x in xs], label=status, color=COLOURS[i], lw=0.8)
    ax.set_xlabel("s since the first daemon started", color=TEXT, fontsize=8)
    ax.legend(facecolor=PANEL, labelcolor=TEXT, fontsize=8)

    ax = axes[1][0]
    style(ax, "Daemons reporting (hookd.fleet.up at the collector, per 10 s)")
    xs = sorted(per_bucket)
    ax.bar([x - start for x in xs], [len(per_bucket[x]) for x in xs], width=8, color=COLOURS[2])
    ax.set_xlabel("s since the first daemon started", color=TEXT, fontsize=8)

    ax = axes[1][1]
    style(ax, "Denials by rule and agent (hookd.decisions.by_rule)")
    top = denials.most_common(8)
    ax.barh([f"{agent} {rule}" for (agent, rule), _ in top], [n for _, n in top], color=COLOURS[4])
    ax.invert_yaxis()

    fig.tight_layout()
    fig.savefig(out, dpi=90, facecolor=BACKGROUND)
    print(out)


if __name__ == "__main__":
    main()
