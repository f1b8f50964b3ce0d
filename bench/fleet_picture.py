"""Draw docs/fleet-dashboard.png from a `bench/fleet_dashboard.py --json FILE` run: each panel of
deploy/grafana/hookd-fleet.json at its own gridPos (24 columns; a row unit is drawn as Grafana's 30 px), with
its own title and type, showing what a real Prometheus answered to the panel's own PromQL over that run:
a stat shows the instant value, a bar chart and a table the instant series, a time series the range query.
It is a picture of the dashboard's queries answered by real data, not a screenshot of Grafana (which is not
run here).

matplotlib is a development tool here, not a dependency of hookd: install it anywhere and point PYTHONPATH
at it, e.g. `pip install --target /tmp/mpl matplotlib`, then
  PYTHONPATH=/tmp/mpl .cache/venv/bin/python bench/fleet_picture.py bench/results/fleet-dashboard.json \\
      docs/fleet-dashboard.png
"""

from __future__ import annotations

import datetime
import json
import re
import sys
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

BACKGROUND, PANEL, TEXT, GRID = "#111217", "#181b1f", "#ccccdc", "#2c3235"
COLOURS = ["#73bf69", "#f2cc0c", "#5794f2", "#ff9830", "#f2495c", "#b877d9", "#8ab8ff"]
COLUMNS, ROW_PX, WIDTH_PX = 24, 30, 1800


def label(metric: dict[str, str], legend: str = "") -> str:
    """The panel's legendFormat (`{{label}}` filled in) when it has one, else the series' labels."""
    if legend:
        return re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: metric.get(m.group(1), ""), legend)
    shown = {k: v for k, v in metric.items() if k != "__name__"}
    return ", ".join(f"{k}={v}" for k, v in sorted(shown.items())) or "value"


def style(ax: Any, title: str) -> None:
    ax.set_facecolor(PANEL)
    ax.set_title(title, color=TEXT, fontsize=9, loc="left")
    ax.tick_params(colors=TEXT, labelsize=7)
    for spine in ax.spines.values():
        spine.set_color(GRID)


def stat(ax: Any, panel: dict[str, Any]) -> None:
    series = [s for t in panel["targets"] for s in t["instant"]]
    value = sum(float(s["value"][1]) for s in series)
    ax.set_xticks([])
    ax.set_yticks([])
    text = f"{value:.3g}" if value < 1000 else f"{value:,.0f}"
    ax.text(0.5, 0.45, text, color=COLOURS[0], fontsize=26, ha="center", va="center", transform=ax.transAxes)


def barchart(ax: Any, panel: dict[str, Any]) -> None:
    series = [s for t in panel["targets"] for s in t["instant"]]
    values = [float(s["value"][1]) for s in series]
    ax.set_axisbelow(True)
    ax.grid(axis="x", color=GRID)
    ax.barh(range(len(values)), values, color=COLOURS[2], height=0.6)
    ax.set_yticks([])
    for i, s in enumerate(series):
        ax.text(0, i, f"  {label(s['metric'])}: {float(s['value'][1]):.4g}", color="#ffffff", fontsize=7, va="center")
    ax.invert_yaxis()


def table(ax: Any, panel: dict[str, Any]) -> None:
    series = [s for t in panel["targets"] for s in t["instant"]]
    ax.set_xticks([])
    ax.set_yticks([])
    keys = sorted({k for s in series for k in s["metric"] if k != "__name__"})
    rows = [[s["metric"].get(k, "") for k in keys] + [s["value"][1]] for s in series]
    if not rows:
        return
    drawn = ax.table(cellText=rows, colLabels=[*keys, "value"], loc="upper center", cellLoc="left")
    drawn.auto_set_font_size(False)
    drawn.set_fontsize(6)
    for cell in drawn.get_celld().values():
        cell.set_facecolor(PANEL)
        cell.set_edgecolor(GRID)
        cell.get_text().set_color(TEXT)


def timeseries(ax: Any, panel: dict[str, Any], start: float) -> None:
    n = 0
    for target in panel["targets"]:
        for series in target.get("range", []):
            points = [(float(t) - start, float(v)) for t, v in series["values"] if v not in ("NaN", "+Inf", "-Inf")]
            if points:
                xs, ys = zip(*points, strict=True)
                name = label(series["metric"], target.get("legendFormat", ""))
                ax.plot(xs, ys, color=COLOURS[n % len(COLOURS)], linewidth=1.2, label=name)
                n += 1
    ax.grid(color=GRID)
    ax.set_xlabel("seconds into the run", color=TEXT, fontsize=7)
    if n:
        ax.legend(fontsize=6, facecolor=PANEL, labelcolor=TEXT, edgecolor=GRID, loc="upper left")


def main() -> None:
    source, out = Path(sys.argv[1]), Path(sys.argv[2])
    run = json.loads(source.read_text())
    panels = run["panels"]
    board = json.loads((Path(__file__).resolve().parents[1] / "deploy" / "grafana" / "hookd-fleet.json").read_text())
    for panel, drawn in zip(panels, board["panels"], strict=True):
        for target, query in zip(panel["targets"], drawn["targets"], strict=True):
            target.setdefault("legendFormat", query.get("legendFormat", ""))
    rows = max(p["gridPos"]["y"] + p["gridPos"]["h"] for p in panels)
    height_px = rows * ROW_PX + 60
    fig = plt.figure(figsize=(WIDTH_PX / 100, height_px / 100), dpi=100, facecolor=BACKGROUND)
    when = datetime.datetime.fromtimestamp(run["end"], datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    fig.suptitle(
        f"hookd fleet (deploy/grafana/hookd-fleet.json): each panel's PromQL answered by Prometheus over a "
        f"{run['daemons']}-daemon run, {when}",
        color=TEXT, fontsize=11, x=0.01, ha="left",
    )  # fmt: skip
    top = 50 / height_px
    for panel in panels:
        grid = panel["gridPos"]
        left, width = grid["x"] / COLUMNS, grid["w"] / COLUMNS
        bottom = 1 - top - (grid["y"] + grid["h"]) * ROW_PX / height_px
        pad = 0.028 if panel["type"] == "timeseries" else 0.006  # room for the value axis' labels
        box = (left + pad, bottom + 0.03, width - pad - 0.006, grid["h"] * ROW_PX / height_px - 0.05)
        ax = fig.add_axes(box)
        style(ax, panel["title"])
        kind = panel["type"]
        if kind == "stat":
            stat(ax, panel)
        elif kind == "barchart":
            barchart(ax, panel)
        elif kind == "table":
            table(ax, panel)
        else:
            timeseries(ax, panel, run["start"])
    fig.savefig(out, facecolor=BACKGROUND)
    print(f"{out}: {len(panels)} panels")


if __name__ == "__main__":
    main()
