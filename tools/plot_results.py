#!/usr/bin/env python3
"""Plots for the docs, drawn with matplotlib from the result JSON (see tools/results_to_docs.py).

Two kinds of figure, written as PNG at twice the resolution they are shown at (sharp on
high-density screens; an <img> that the page can scale down when the window is narrow):

* ``bars(problem, path)``: one problem of a run. Left panel: each version's share of the roof
  (% of the measured copy bandwidth, or of the library's rate), right panel: its speedup over
  the problem's baseline (the naive version). One bar per version, in run order.
* ``sweep(family, problems, device, path)``: GB/s (or TFLOP/s) against problem size, one line per
  version, for the problems of one table ("add", "ops", ...) in a ``--sweep`` run.
* ``library_ratios(rows, path, identifier)``: README's plot, an SVG: per chapter and precision, our
  best version's throughput over the library's (rows from results_to_docs.headline_rows). The
  file is the same bytes for the same rows and matplotlib version (no date, fixed ids), and its
  metadata carries ``identifier``, a digest of the rows, which ``results_to_docs.py --check``
  compares without needing matplotlib.

Importing this module fails with ImportError when matplotlib is missing; results_to_docs.py
then builds the pages without plots and says so. Run it alone to draw the plots of one file:

    python3 tools/plot_results.py docs/results/elementwise.json OUTDIR
"""
import json
import math
import pathlib
import re
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402  (after use())
from matplotlib.ticker import FuncFormatter  # noqa: E402

# Pixels per inch of the files, and the share of them shown per CSS pixel (2: high-density).
DPI = 200
SCALE = 2

matplotlib.rcParams.update({
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans", "Liberation Sans", "Arial", "Helvetica"],
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titleweight": "bold",
    "axes.titlesize": 11,
})

#: Bar colour per kind of row (who wrote the code).
KIND_COLORS = {
    "ours": "#3a6fb0",      # the tutorial's ladder
    "library": "#7a7a7a",   # cuBLAS, CUB, cuDNN, cudaMemcpy
    "solution": "#3f9b5a",  # the exercise's reference solution
    "exercise": "#e08a2c",  # the student's kernel
}
WRONG_COLOR = "#c0392b"
ROOF_COLOR = "#c0392b"


def version():
    """matplotlib's version (recorded on the pages)."""
    return matplotlib.__version__


def _finite(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _timed(row):
    return not row.get("skipped") and _finite(row.get("median_ms")) and row["median_ms"] > 0


def _throughput(row, metric):
    value = row.get("gbps" if metric == "gbps" else "tflops")
    return value if _finite(value) else None


def _save(fig, path):
    """Writes the figure as PNG (only if its bytes changed); returns the width to show it at, in
    CSS pixels (half its pixel width)."""
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    data = buf.getvalue()
    path = pathlib.Path(path)
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)
    width = int.from_bytes(data[16:20], "big")  # the PNG header's IHDR width
    return max(1, width // SCALE)


def _label(row):
    kind = row.get("kind", "ours")
    name = str(row.get("version", "?"))
    return name if kind in ("ours", name) else f"{name} ({kind})"


def bars(problem, path):
    """Two-panel bar chart of one problem: % of roof, and speedup over the baseline.

    Returns the width (CSS pixels) to show the figure at, or 0 when no row was timed (no file).
    """
    rows = problem.get("results", [])
    if not any(_timed(r) for r in rows):
        return 0
    metric = problem.get("metric", "gbps")
    labels = [_label(r) for r in rows]
    y = list(range(len(rows)))
    height = 0.9 + 0.36 * len(rows)
    fig, (left, right) = plt.subplots(1, 2, figsize=(9.4, height), sharey=True,
                                      gridspec_kw={"width_ratios": [1.15, 1.0], "wspace": 0.08})

    pct = [r.get("pct_of_peak") if _timed(r) and _finite(r.get("pct_of_peak")) else None for r in rows]
    speed = [r.get("speedup_vs_baseline") if _timed(r) and _finite(r.get("speedup_vs_baseline")) else None
             for r in rows]

    def draw(ax, values, fmt):
        top = max([v for v in values if _finite(v)] or [1.0])
        for yi, (row, value) in enumerate(zip(rows, values)):
            if row.get("skipped"):
                # x in axes coordinates: the left edge, whatever the scale (log has no 0)
                ax.text(0.01, yi, "skipped", va="center", ha="left", color="#777777", style="italic", fontsize=9,
                        transform=ax.get_yaxis_transform())
                continue
            if not _finite(value):
                note = "  wrong" if row.get("correct") is False else "  not timed"
                ax.text(0.01, yi, note.strip(), va="center", ha="left", fontsize=9, transform=ax.get_yaxis_transform(),
                        color=WRONG_COLOR if row.get("correct") is False else "#777777")
                continue
            wrong = row.get("correct") is False
            color = WRONG_COLOR if wrong else KIND_COLORS.get(row.get("kind"), KIND_COLORS["ours"])
            ax.barh(yi, value, color=color, height=0.68, hatch="//" if wrong else None, edgecolor="white")
            value_labels.append((ax, yi, value, fmt(value)))
        return top

    value_labels = []  # (axes, y, value, text): placed once the axis limits are known

    top = draw(left, pct, lambda v: f"{v:.1f}%")
    left.set_xlim(0, max(110.0, top * 1.15))
    left.axvline(100.0, color=ROOF_COLOR, linestyle="--", linewidth=1)
    unit = "GB/s" if metric == "gbps" else "TFLOP/s"
    peak = problem.get("peak")
    peak_text = f"{peak:.0f} {unit}" if isinstance(peak, (int, float)) and metric == "gbps" else (
        f"{peak:.2f} {unit}" if isinstance(peak, (int, float)) else "")
    left.set_xlabel(f"% of the roof ({peak_text}; dashed: 100%)" if peak_text else "% of the roof (dashed: 100%)")
    left.set_title("Share of the roof", loc="left")

    base = problem.get("baseline") or "the baseline"
    stop = draw(right, speed, lambda v: f"{v:.2f}x")
    values = [v for v in speed if _finite(v) and v > 0]
    if values and max(values) / min(values) > 40:
        right.set_xscale("log")
        right.set_xlim(min(values) / 1.5, max(values) * 3)
        right.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}x"))
    else:
        right.set_xlim(0, stop * 1.2)
    right.axvline(1.0, color="#444444", linewidth=0.8)
    right.set_xlabel(f"speedup over {base} (same run)")
    right.set_title("Speedup", loc="left")

    left.set_yticks(y)
    left.set_yticklabels(labels, fontsize=9)
    left.invert_yaxis()
    for ax in (left, right):
        ax.tick_params(axis="y", length=0)
        ax.grid(axis="x", color="#e3e3e3", linewidth=0.6)
        ax.set_axisbelow(True)
    # Value labels: inside the bar's end when the bar is long, just after it otherwise.
    for ax, yi, value, text in value_labels:
        lo, hi = ax.get_xlim()
        log = ax.get_xscale() == "log"
        frac = ((math.log(value) - math.log(lo)) / (math.log(hi) - math.log(lo))) if log else (value - lo) / (hi - lo)
        if frac > 0.3:
            ax.text(value / 1.04 if log else value - (hi - lo) * 0.012, yi, text, va="center", ha="right",
                    fontsize=8.5, color="white", fontweight="bold")
        else:
            ax.text(value * 1.04 if log else value + (hi - lo) * 0.012, yi, text, va="center", ha="left",
                    fontsize=8.5)
    return _save(fig, path)


def size_axis(problems):
    """How a sweep's problems are placed on the x axis: (label, [x per problem]).

    The one shape dimension that varies ("n"), or, when several vary, their product ("m*n*k").
    """
    keys = []
    for p in problems:
        for k in (p.get("shape") or {}):
            if k not in keys:
                keys.append(k)
    varying = [k for k in keys if len({(p.get("shape") or {}).get(k) for p in problems}) > 1]
    if not varying:
        varying = [k for k in keys if k != "offset"][:1] or keys[:1]
    xs = []
    for p in problems:
        shape = p.get("shape") or {}
        x = 1
        for k in varying:
            v = shape.get(k)
            x *= v if isinstance(v, (int, float)) and v > 0 else 1
        xs.append(x)
    return ("*".join(varying) if varying else "problem"), xs


#: Sweep lines of the rows that are not ours: each kind its own style.
SERIES_STYLES = {"library": {"linestyle": "--", "color": "#555555", "marker": "x"},
                 "solution": {"linestyle": "-.", "color": KIND_COLORS["solution"], "marker": "D"},
                 "exercise": {"linestyle": "-.", "color": KIND_COLORS["exercise"], "marker": "v"}}
#: Our lines: tab10 without its grey, then the same colours again with another line and marker.
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf"]
ROUNDS = [{"linestyle": "-", "marker": "o"}, {"linestyle": (0, (5, 2)), "marker": "s"},
          {"linestyle": (0, (1, 1.2)), "marker": "^"}]


def series_style(kind, index):
    """The line style of a sweep's series: its kind's, or, for the index-th series of ours, a
    (colour, line, marker) that no other of the first 27 has."""
    if kind in SERIES_STYLES:
        return dict(SERIES_STYLES[kind])
    return dict(ROUNDS[index // len(PALETTE) % len(ROUNDS)], color=PALETTE[index % len(PALETTE)])


def sweep(family, problems, device, path):
    """Throughput against problem size for one table of a sweep; returns the width to show it at
    (CSS pixels), or 0 when nothing was timed (no file)."""
    metric = problems[0].get("metric", "gbps")
    xlabel, xs = size_axis(problems)
    series = {}  # version -> (kind, [(x, throughput)])
    for p, x in zip(problems, xs):
        for r in p.get("results", []):
            if not _timed(r):
                continue
            value = _throughput(r, metric)
            if value is None:
                continue
            kind, points = series.setdefault(r.get("version", "?"), (r.get("kind", "ours"), []))
            points.append((x, value))
    if not series:
        return 0
    fig, ax = plt.subplots(figsize=(7.6, 4.2))
    ours = 0
    for name, (kind, points) in series.items():
        points.sort()
        style = series_style(kind, ours)
        ours += kind not in SERIES_STYLES
        ax.plot([p[0] for p in points], [p[1] for p in points], markersize=3.5, linewidth=1.4,
                label=name if kind in ("ours", name) else f"{name} ({kind})", **style)
    if metric == "gbps" and isinstance(device.get("copy_gbps"), (int, float)) and device["copy_gbps"] > 0:
        ax.axhline(device["copy_gbps"], color=ROOF_COLOR, linestyle=":", linewidth=1)
        ax.text(min(xs), device["copy_gbps"], " measured copy bandwidth", color=ROOF_COLOR, fontsize=8.5,
                va="bottom", ha="left")
    if max(xs) / max(min(xs), 1) >= 16:
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"$2^{{{math.log2(v):.0f}}}$" if v > 0 else ""))
    ax.set_xlabel(xlabel)
    ax.set_ylabel("GB/s (minimum traffic)" if metric == "gbps" else "TFLOP/s")
    ax.set_ylim(bottom=0)
    ax.grid(color="#e3e3e3", linewidth=0.6)
    ax.set_axisbelow(True)
    dtype = str(problems[0].get("dtype", ""))
    ax.set_title(f"{family}: throughput against size" + ("" if family == dtype else f" ({dtype})"), loc="left")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8.5, frameon=False)
    return _save(fig, path)


def library_ratios(rows, path, identifier):
    """README's plot (SVG): one bar per row from 1 (the library) to our best version's throughput
    over the library's, on a log scale. Writes `path` only if its bytes changed."""
    import io

    labels = [f"{r['chapter']}: {r['problem']}" + ("" if r["dtype"] in r["problem"].split() else f" ({r['dtype']})")
              for r in rows]
    gpus = sorted({r["gpu"] for r in rows})
    with matplotlib.rc_context({"svg.hashsalt": "cuda-optimization-tutorial", "svg.fonttype": "none"}):
        fig, ax = plt.subplots(figsize=(8.6, 0.9 + 0.34 * len(rows)))
        y = list(range(len(rows)))
        ratios = [r["ratio"] for r in rows]
        colors = [KIND_COLORS["ours"] if v >= 1 else "#9bb5d6" for v in ratios]
        # Bars start at 1 (the library): right of it faster, left of it slower; on a log scale.
        ax.barh(y, [v - 1.0 for v in ratios], left=1.0, color=colors, height=0.66)
        ax.set_xscale("log", base=2)
        ax.set_xlim(min(ratios + [1.0]) / 1.4, max(ratios + [1.0]) * 3.2)  # room for the names
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}x"))
        ax.axvline(1.0, color="#444444", linewidth=0.9)
        for yi, r in zip(y, rows):
            ax.text(max(r["ratio"], 1.0) * 1.05, yi, f"{r['ratio']:.2f}x  {r['version']}", va="center", ha="left",
                    fontsize=8)
        ax.set_yticks(y)
        ax.set_yticklabels(labels, fontsize=8.5)
        ax.invert_yaxis()
        ax.tick_params(axis="y", length=0)
        ax.grid(axis="x", color="#e3e3e3", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.set_xlabel("our best version's throughput / the library's, same run (right of 1x: faster)")
        ax.set_title(f"Best version against the library, per chapter ({', '.join(gpus)})", loc="left")
        buf = io.BytesIO()
        fig.savefig(buf, format="svg", bbox_inches="tight",
                    metadata={"Date": None, "Creator": None, "Identifier": identifier})
        plt.close(fig)
    data = re.sub(rb"[ \t]+\n", b"\n", buf.getvalue())  # no trailing blanks (path data ends lines with one)
    path = pathlib.Path(path)
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    data = json.loads(pathlib.Path(argv[1]).read_text())
    out = pathlib.Path(argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for i, problem in enumerate(data.get("problems", [])):
        bars(problem, out / f"problem_{i + 1}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
