#!/usr/bin/env python3
"""Turns docs/results/<chapter>.json (written by real GPU runs) into Markdown tables.

For each chapter it writes <out>/results_<chapter>.md, included by the chapter page with
\\includedoc. Numbers are copied from the JSON, never typed. A chapter without results gets a
page saying so. Usage:

    tools/results_to_docs.py --results docs/results --out build/docs/generated --chapters chapters
"""
import argparse
import json
import pathlib
import re
import sys


def fmt(value, digits):
    return "-" if value is None else f"{value:.{digits}f}"


def chapter_names(chapters_dir):
    names = []
    for cmake in sorted(pathlib.Path(chapters_dir).glob("[0-9][0-9]_*/CMakeLists.txt")):
        m = re.search(r"NAME\s+([a-z0-9_]+)", cmake.read_text())
        if m:
            names.append(m.group(1))
    return names


def floor_ms(row, problem):
    """The time this row's minimum traffic takes at the problem's peak bandwidth."""
    if not problem.get("peak") or not row.get("bytes"):
        return None
    return row["bytes"] / (problem["peak"] * 1e9) * 1e3


def problem_table(problem):
    bw = problem["metric"] == "gbps"
    unit = "GB/s" if bw else "TFLOP/s"
    lines = [
        f"**{problem['label']}** ({problem['dtype']}); peak = {fmt(problem['peak'], 0 if bw else 1)} {unit}, "
        f"{problem.get('peak_name', '')}; speedup vs `{problem.get('baseline', '')}`, "
        f"ratio vs `{problem.get('library', '')}`"
        + ("; floor = minimum bytes / peak" if bw else ""),
        "",
        f"| version | kind | median ms | {unit} | % of peak | speedup | vs library | correct |"
        + (" floor ms |" if bw else ""),
        "|---|---|---:|---:|---:|---:|---:|---|" + ("---:|" if bw else ""),
    ]
    for r in problem["results"]:
        if r.get("skipped"):
            lines.append(f"| `{r['version']}` | {r['kind']} | - | - | - | - | - | skipped: {r.get('skip_reason', '')} |")
            continue
        thr = r["gbps"] if bw else r["tflops"]
        lines.append(
            f"| `{r['version']}` | {r['kind']} | {fmt(r['median_ms'], 4)} | {fmt(thr, 0 if bw else 2)} | "
            f"{fmt(r['pct_of_peak'], 1)} | {fmt(r['speedup_vs_baseline'], 2)} | {fmt(r['vs_library'], 3)} | "
            f"{'yes' if r['correct'] else '**NO**'} |"
            + (f" {fmt(floor_ms(r, problem), 4)} |" if bw else ""))
    return "\n".join(lines)


def render(chapter, data):
    dev = data["device"]
    head = (f"Measured on **{dev['name']}** (sm_{dev['compute_capability'].replace('.', '')}, "
            f"{dev['sm_count']} SMs), device-to-device copy {dev['copy_gbps']:.0f} GB/s, "
            f"commit `{data['git']}`; generated from `docs/results/{chapter}.json` by "
            f"`tools/results_to_docs.py`.")
    return head + "\n\n" + "\n\n".join(problem_table(p) for p in data["problems"]) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--results", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--chapters", required=True)
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for chapter in chapter_names(args.chapters):
        src = pathlib.Path(args.results) / f"{chapter}.json"
        if src.exists():
            text = render(chapter, json.loads(src.read_text()))
        else:
            text = "No measured results yet: run `tools/device_check.sh` on a GPU and commit its JSON.\n"
        target = out / f"results_{chapter}.md"
        if not target.exists() or target.read_text() != text:
            target.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
