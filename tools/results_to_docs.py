#!/usr/bin/env python3
"""Generates the data-driven parts of the docs site from chapters/ and docs/results/*.json.

Run by the `docs` target before Doxygen; everything goes to the generated folder (--out), which
Doxygen reads through EXAMPLE_PATH (\\includedoc) and IMAGE_PATH (\\image):

  results_<chapter>.md    the measured tables of one chapter, its bar charts (% of the roof and
                          speedup over the naive version) and its size-sweep plot; included by the
                          chapter page with `\\includedoc results_<chapter>.md`. A chapter without
                          results gets a page saying so.
  results_*.png, sweep_*  the plots (matplotlib); skipped, with a note on the page, without it.
  learning_path.md        the main page's table of all chapters in order, linking the chapters
                          whose page exists and listing the others as "not yet written".
  guides_list.md          the guides found in docs/guides/ (grading appears once it exists).
  profiling_chapters.md   per chapter: nsys/ncu command lines and what to read (profiling guide).

It also keeps README.md's results in step with docs/results: the table between the markers
`<!-- results:begin -->` and `<!-- results:end -->` (per chapter and precision, our fastest version
against the library row of the same run) and its plot, docs/figures/results_vs_library.svg, whose
metadata carries a digest of the numbers it draws. `--check` fails (status 1) when either is out
of step, without rewriting anything and without needing matplotlib (the docs build runs it);
`--update-readme` rewrites both (the plot needs matplotlib).

Numbers are copied from the JSON files (written by real GPU runs, never by hand); nothing here
is typed in. New chapters (a chapters/NN_name/ folder) and new result files are picked up on the
next docs build. Usage:

    tools/results_to_docs.py --results docs/results --out build/docs/generated --chapters chapters
                             [--guides docs/guides] [--no-plots]
    tools/results_to_docs.py --check            # README.md's table and plot against docs/results
    tools/results_to_docs.py --update-readme    # rewrite them (after committing new results)

--results, --chapters and --readme default to the repository's docs/results, chapters and README.md.
"""
import argparse
import hashlib
import json
import pathlib
import re
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent

# ----------------------------------------------------------------------------------------------
# The curriculum: every chapter of the tutorial, in order, whether or not it is written yet.
# `bound` decides which profiler sections the profiling guide points at.
# ----------------------------------------------------------------------------------------------
CURRICULUM = [
    {"num": "01", "slug": "elementwise", "title": "Elementwise",
     "teaches": "coalescing, occupancy, grid-stride loops, float4 vector access, ILP, kernel fusion",
     "needs": [], "needs_text": "C++; a first CUDA kernel (launch, threadIdx, cudaMalloc)",
     "against": "cudaMemcpy (the copy roof)", "bound": "memory"},
    {"num": "02", "slug": "reduce", "title": "Reduce",
     "teaches": "atomics vs trees, interleaved vs sequential addressing (divergence, bank "
                "conflicts), the first add during the load, warp shuffles, float4, one pass",
     "needs": ["01"], "against": "CUB DeviceReduce, cuBLAS dot", "bound": "memory"},
    {"num": "03", "slug": "softmax", "title": "Softmax",
     "teaches": "row-wise reductions, a thread, warp or block per row, numerical stability (subtract "
                "the max), the online softmax (max and sum in one pass), a row kept on chip",
     "needs": ["02"], "against": "cuDNN softmax (when cuDNN is found)", "bound": "memory"},
    {"num": "04", "slug": "gemv", "title": "GEMV",
     "teaches": "a thread, block or warp per row, float4 loads and ILP, short and long rows "
                "(split-K), the transposed product (column access)",
     "needs": ["01", "02"], "against": "cuBLAS sgemv", "bound": "memory"},
    {"num": "05", "slug": "transpose", "title": "Transpose",
     "teaches": "shared-memory tiles that make both reads and writes coalesced, padding against "
                "bank conflicts, more work per thread, float4 with a swizzled tile, Hopper TMA",
     "needs": ["01"], "against": "cudaMemcpy (the copy roof), cuBLAS geam", "bound": "memory"},
    {"num": "06", "slug": "gemm", "title": "GEMM",
     "teaches": "arithmetic intensity, shared-memory tiles, register blocking, vectorized loads, "
                "warp tiles, a cp.async pipeline, tuning, a configuration by shape, tensor cores (WMMA, "
                "mma.sync), Hopper's TMA, wgmma, warp specialization, persistence and clusters",
     "needs": ["04", "05"], "against": "cuBLAS SGEMM and GemmEx (TF32, BF16)", "bound": "compute"},
    {"num": "07", "slug": "conv2d", "title": "Conv2d",
     "teaches": "cross-correlation vs convolution, shared tiles with a halo, register blocking, "
                "im2col and its bytes, implicit GEMM (NHWC), Winograd F(2x2,3x3) unfused then fused, bf16 mma.sync, "
                "wgmma, TMA's im2col mode with a producer warp, TMA stores",
     "needs": ["06"], "against": "cuDNN forward (fp32 FMA and bf16 tensor-op math, NCHW and NHWC, "
                                 "fastest algorithm found)", "bound": "compute"},
    {"num": "08", "slug": "attention", "title": "Attention",
     "teaches": "fused attention: the score matrix never stored, the online softmax inside the key "
                "loop, FlashAttention-1 tiles and FlashAttention-2's work split, bf16 mma.sync with "
                "P reused from registers, cp.async double buffering, the causal mask's costs, "
                "wgmma and TMA (FlashAttention-3 style, sm_90a)",
     "needs": ["03", "06"],
     "against": "cuBLAS-based library attention; PyTorch SDPA (FlashAttention-2, cuDNN, "
                "memory-efficient) in a separate process",
     "bound": "compute"},
]

NO_RESULTS = ("No measured results yet: run `tools/device_check.sh OUTDIR` on a GPU machine and "
              "commit `OUTDIR/results/{name}.json` to `docs/results/`.")


# ----------------------------------------------------------------------------------------------
# Small helpers
# ----------------------------------------------------------------------------------------------
def esc(text):
    """Makes free text (from JSON) safe inside a Doxygen Markdown page: no commands, no HTML tags,
    no table breaks. Backticks are kept so that `code` in a summary stays code."""
    text = str(text)
    for a, b in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("\\", "\\\\"), ("@", "\\@"),
                 ("%", "\\%"), ("#", "\\#"), ("|", "\\|"), ("*", "\\*"), ("$", "\\$")):
        text = text.replace(a, b)
    return text


def code(text):
    """Inline code for a name from JSON (version, library); backticks removed from inside."""
    return "`" + str(text).replace("`", "'") + "`"


def is_num(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value


def fixed(value, digits, suffix=""):
    return f"{value:.{digits}f}{suffix}" if is_num(value) else "-"


def sig(value, digits=4):
    """A time with `digits` significant digits: 5.043, 0.9412, 0.007741."""
    if not is_num(value):
        return "-"
    if value == 0:
        return "0"
    return f"{value:.{digits}g}" if abs(value) >= 1e-4 else f"{value:.2e}"


def bytes_text(n):
    if not is_num(n):
        return "?"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024.0
    return "?"


def slugify(text):
    return re.sub(r"[^a-z0-9]+", "_", str(text).lower()).strip("_") or "problem"


def div(text, cls="tut-note"):
    return f'<div class="{cls}">{text}</div>'


class Writer:
    """Writes generated files only when their content changes, and remembers what it wrote so
    that stale files of earlier builds (a renamed problem's plot) can be removed."""

    def __init__(self, out):
        self.out = pathlib.Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.written = set()

    def path(self, name):
        self.written.add(name)
        return self.out / name

    def text(self, name, text):
        target = self.path(name)
        if not target.exists() or target.read_text() != text:
            target.write_text(text)

    def remove_stale(self):
        for f in self.out.iterdir():
            generated = f.suffix in (".md", ".svg", ".png") and (f.name.startswith(("results_", "sweep_")) or f.name in (
                "learning_path.md", "guides_list.md", "profiling_chapters.md", "pytorch_ops.md"))
            if generated and f.name not in self.written:
                f.unlink()


# ----------------------------------------------------------------------------------------------
# Chapters and pages on disk
# ----------------------------------------------------------------------------------------------
HEADING = re.compile(r"^#\s+(.*?)\s*\{#([A-Za-z0-9_]+)\}\s*$")


def page_anchor(md_file):
    """(title, anchor) of a Markdown page whose first heading is `# Title {#anchor}`, else None."""
    try:
        for line in md_file.read_text(errors="replace").splitlines():
            if line.strip():
                m = HEADING.match(line.strip())
                return (m.group(1), m.group(2)) if m else None
    except OSError:
        pass
    return None


def discover_chapters(chapters_dir):
    """Every chapters/NN_slug/ folder: number, slug, executable name, page anchor and title."""
    found = []
    for d in sorted(pathlib.Path(chapters_dir).glob("[0-9][0-9]_*")):
        if not d.is_dir():
            continue
        num, slug = d.name[:2], d.name[3:]
        name = slug
        cmake = d / "CMakeLists.txt"
        if cmake.exists():
            m = re.search(r"\bNAME\s+([A-Za-z0-9_]+)", cmake.read_text(errors="replace"))
            if m:
                name = m.group(1)
        page = page_anchor(d / "README.md") if (d / "README.md").exists() else None
        found.append({"num": num, "slug": slug, "dir": d, "name": name,
                      "title": page[0] if page else None, "anchor": page[1] if page else None,
                      "has_readme": (d / "README.md").exists()})
    return found


def load_report(path):
    """(data, None) for a readable result file in the RunReport shape, else (None, why)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        return None, f"not valid JSON ({e})"
    if not isinstance(data, dict) or not isinstance(data.get("problems"), list):
        return None, "not in the result format of common/report.cpp (no \"problems\" list)"
    for p in data["problems"]:
        if not isinstance(p, dict) or not isinstance(p.get("results"), list):
            return None, "a problem without a \"results\" list"
    return data, None


def result_files(results_dir, names):
    """Maps each chapter name to its result files: {name: {"main": path, "sweep": path, "extra": [...]}}.

    `<name>.json` is the default run, `<name>_sweep.json` the size sweep, and any other
    `<name>_<what>.json` (e.g. gemm_tune.json) an extra file rendered as tables."""
    files = {n: {"main": None, "sweep": None, "extra": []} for n in names}
    rdir = pathlib.Path(results_dir)
    if not rdir.is_dir():
        return files
    by_length = sorted(names, key=len, reverse=True)
    for f in sorted(rdir.glob("*.json")):
        stem = f.stem
        owner = next((n for n in by_length if stem == n or stem.startswith(n + "_")), None)
        if owner is None:
            continue
        if stem == owner:
            files[owner]["main"] = f
        elif stem == owner + "_sweep":
            files[owner]["sweep"] = f
        else:
            files[owner]["extra"].append(f)
    return files


def draw(plot, *args):
    """Runs one plot; a failure (odd data, a matplotlib quirk) costs that plot, never the docs."""
    try:
        return plot(*args)
    except Exception as e:  # noqa: BLE001 (any failure of an optional figure)
        warn(f"plot {args[-1].name} skipped: {type(e).__name__}: {e}")
        return 0


# ----------------------------------------------------------------------------------------------
# Result pages
# ----------------------------------------------------------------------------------------------
def device_line(data, source):
    dev = data.get("device") or {}
    cc = str(dev.get("compute_capability", "?"))
    parts = [f"sm_{cc.replace('.', '')}"]
    if is_num(dev.get("sm_count")):
        parts.append(f"{dev['sm_count']} SMs")
    if is_num(dev.get("l2_bytes")):
        parts.append(f"{bytes_text(dev['l2_bytes'])} L2")
    if is_num(dev.get("memory_bytes")):
        parts.append(f"{bytes_text(dev['memory_bytes'])}")
    copy = (f"; device-to-device copy measured at **{dev['copy_gbps']:.0f} GB/s**"
            if is_num(dev.get("copy_gbps")) and dev["copy_gbps"] > 0 else "")
    git = data.get("git")
    commit = f"commit {code(git)}" if git and git != "unknown" else "commit not recorded"
    return (f"Measured on **{esc(dev.get('name', 'an unknown GPU'))}** ({', '.join(parts)}){copy}; "
            f"{commit}; from {code(source)}.")


def ran_wrong(r):
    """True for a row that ran and failed its check (a skipped row never ran: not wrong)."""
    return not r.get("skipped") and r.get("correct") is False


def row_status(r):
    if r.get("skipped"):
        return "skipped: " + esc(r.get("skip_reason", ""))
    if r.get("correct") is False:
        return "**NO**"
    if not is_num(r.get("median_ms")):
        return "yes (not timed)"
    return "yes"


def rel_error(r):
    """The check's normwise relative error: "0" when exact, "-" for a row that never ran."""
    if r.get("skipped") or not is_num(r.get("rel_err")):
        return "-"
    return "0" if r["rel_err"] == 0 else f"{r['rel_err']:.1e}"


def problem_table(problem, max_rows=60):
    bw = problem.get("metric", "gbps") == "gbps"
    unit = "GB/s" if bw else "TFLOP/s"
    head = (f"| version | kind | median ms | {unit} | % of peak | speedup | vs library | rel. error | correct |"
            + (" floor ms |" if bw else "") + " idea |")
    sep = "|---|---|---:|---:|---:|---:|---:|---:|---|" + ("---:|" if bw else "") + "---|"
    lines = [head, sep]
    peak = problem.get("peak")
    rows = problem.get("results", [])
    for r in rows[:max_rows]:
        thr = r.get("gbps") if bw else r.get("tflops")
        floor = (r["bytes"] / (peak * 1e9) * 1e3 if bw and is_num(r.get("bytes")) and is_num(peak) and peak > 0
                 else None)
        lines.append(
            f"| {code(r.get('version', '?'))} | {esc(r.get('kind', ''))} | {sig(r.get('median_ms'))} | "
            f"{fixed(thr, 0 if bw else 2)} | {fixed(r.get('pct_of_peak'), 1)} | "
            f"{fixed(r.get('speedup_vs_baseline'), 2)} | {fixed(r.get('vs_library'), 3)} | {rel_error(r)} | "
            f"{row_status(r)} |"
            + (f" {sig(floor)} |" if bw else "") + f" {esc(r.get('summary', ''))} |")
    text = "\n".join(lines)
    if len(rows) > max_rows:
        text += "\n" + div(f"{len(rows) - max_rows} more rows are in the JSON file.")
    return text


def problem_note(problem):
    bw = problem.get("metric", "gbps") == "gbps"
    peak = problem.get("peak")
    unit = "GB/s" if bw else "TFLOP/s"
    roof = (f"Roof: **{peak:.0f} {unit}**" if bw else f"Roof: **{peak:.2f} {unit}**") if is_num(peak) and peak > 0 \
        else "Roof: not measured"
    if problem.get("peak_name"):
        roof += f" ({esc(problem['peak_name'])})"
    parts = [roof]
    if problem.get("baseline"):
        parts.append(f"speedup relative to {code(problem['baseline'])}")
    if problem.get("library"):
        parts.append(f"vs library relative to {code(problem['library'])}, in the same run")
    if bw:
        parts.append("floor ms = the row's minimum bytes at the roof")
    return div("; ".join(parts) + ".")


def render_report(name, data, source, plotter, writer, tag, heading_prefix=""):
    """Tables (and bar charts) of one result file; returns the Markdown/HTML text."""
    out = [div(device_line(data, source), "tut-meta")]
    used = set()
    for problem in data.get("problems", []):
        label = str(problem.get("label", "problem"))
        out.append(f"<h3>{heading_prefix}{esc(label)} ({esc(problem.get('dtype', '?'))})</h3>")
        out.append(problem_note(problem))
        out.append(problem_table(problem))
        if plotter is not None and len(problem.get("results", [])) <= 40:
            slug = f"results_{name}{tag}_{slugify(label)}"
            while slug in used:
                slug += "_"
            used.add(slug)
            fname = slug + ".png"
            width = draw(plotter.bars, problem, writer.path(fname))
            if width:
                base = problem.get("baseline") or "the first version"
                out.append(f'\\image html {fname} "{esc(label)}: each version\'s share of the roof '
                           f'(left) and its speedup over {esc(base)} (right)." width={width}')
    return out


def render_sweep(name, data, source, plotter, writer):
    out = [f"<h3>Size sweep</h3>"]
    problems = data.get("problems", [])
    families = {}
    for p in problems:
        label = str(p.get("label", ""))
        first = label.split(" ", 1)[0] if label else ""
        family = first if first and "=" not in first else "all"
        families.setdefault((family, p.get("dtype", "")), []).append(p)
    dev = data.get("device") or {}
    out.append(div(f"{len(problems)} problems from {code(source)}, measured on "
                   f"**{esc(dev.get('name', 'an unknown GPU'))}**: each version's throughput against the "
                   f"problem size, one plot per table of the default run."))
    wrong = sum(1 for p in problems for r in p.get("results", []) if ran_wrong(r))
    if wrong:
        out.append(div(f"**{wrong} results of the sweep were wrong**; see the JSON file.", "tut-warning"))
    if plotter is None:
        return out
    for (family, dtype), group in families.items():
        fname = f"sweep_{name}_{slugify(family)}_{slugify(dtype)}.png"
        width = draw(plotter.sweep, family, group, dev, writer.path(fname))
        if width:
            name_text = esc(family) if family == dtype else f"{esc(family)} ({esc(dtype)})"
            out.append(f'\\image html {fname} "{name_text}: throughput against size, one line '
                       f'per version; dotted: the measured copy bandwidth." width={width}')
    return out


def render_chapter(name, files, plotter, plot_note, writer):
    main, sweep_file, extras = files["main"], files["sweep"], files["extra"]
    if main is None and sweep_file is None and not extras:
        return div(NO_RESULTS.format(name=name)) + "\n"
    out = []
    if main is None:
        out.append(div(NO_RESULTS.format(name=name)))
    else:
        data, why = load_report(main)
        if data is None:
            warn(f"{main}: {why}")
            out.append(div(f"`docs/results/{main.name}` could not be read: {esc(why)}.", "tut-warning"))
        else:
            out += render_report(name, data, f"docs/results/{main.name}", plotter, writer, "")
    if sweep_file is not None:
        data, why = load_report(sweep_file)
        if data is None:
            warn(f"{sweep_file}: {why}")
            out.append(div(f"`docs/results/{sweep_file.name}` could not be read: {esc(why)}.", "tut-warning"))
        else:
            out += render_sweep(name, data, f"docs/results/{sweep_file.name}", plotter, writer)
    for extra in extras:
        what = extra.stem[len(name) + 1:]
        data, why = load_report(extra)
        out.append(f"<h3>Also measured: {esc(what)}</h3>")
        if data is None:
            warn(f"{extra}: {why}")
            out.append(div(f"`docs/results/{extra.name}` is not in the result format and is not shown: "
                           f"{esc(why)}.", "tut-warning"))
        else:
            out += render_report(name, data, f"docs/results/{extra.name}", plotter, writer, "_" + slugify(what),
                                 heading_prefix=f"{esc(what)}: ")
    if plot_note:
        out.append(div(plot_note))
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------------------------
# Main page, guides, profiling
# ----------------------------------------------------------------------------------------------
def chapter_rows(chapters):
    """The curriculum merged with what exists on disk (extra chapters appended in order)."""
    by_num = {c["num"]: c for c in chapters}
    rows = []
    for entry in CURRICULUM:
        rows.append(dict(entry, disk=by_num.pop(entry["num"], None)))
    for num in sorted(by_num):
        c = by_num[num]
        title = re.sub(r"^Chapter\s+\d+\s*:\s*", "", c["title"] or "") or c["slug"]
        rows.append({"num": num, "slug": c["slug"], "title": title, "teaches": "", "needs": [],
                     "against": "", "bound": "", "disk": c})
    return rows


def results_summary(files):
    """(data, the learning path's results cell): per precision, the best version's ratio to its
    library (the same rows as README's table), and the GPU."""
    if files is None or files["main"] is None:
        return None, "not yet"
    data, why = load_report(files["main"])
    if data is None:
        return None, "unreadable JSON"
    dev = (data.get("device") or {}).get("name", "a GPU")
    wrong = any(ran_wrong(r) for p in data["problems"] for r in p.get("results", []))
    lines = [f"**{h['ratio']:.2f}x** {code(h['library'])} ({esc(h['dtype'])}, {code(h['version'])})"
             for h in headline_rows(data)]
    return data, "<br>".join(lines + [esc(dev) + (" (**some results wrong**)" if wrong else "")])


def learning_path(rows, files):
    anchors = {r["num"]: r["disk"]["anchor"] for r in rows if r["disk"] and r["disk"]["anchor"]}
    lines = ["| # | chapter | what you learn | builds on | measured against | best version / library |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        disk = r["disk"]
        title = esc(r["title"])
        if disk and disk["anchor"]:
            cell = f'\\subpage {disk["anchor"]} "{title}"'
        elif disk and disk["has_readme"]:
            cell = f"{title} <em>(page in progress)</em>"
        else:
            cell = f"{title} <em>(not yet written)</em>"
        needs = ", ".join(f'@ref {anchors[n]} "{n}"' if n in anchors else n for n in r["needs"])
        needs = needs or esc(r.get("needs_text", "-"))
        name = disk["name"] if disk else r["slug"]
        data, status = results_summary(files.get(name))
        against = r["against"]
        if data is not None:
            libs = []
            for p in data["problems"]:
                if p.get("library") and p["library"] not in libs:
                    libs.append(p["library"])
            if libs:
                against = ", ".join(code(x) for x in libs)
        else:
            against = esc(against)
        lines.append(f"| {r['num']} | {cell} | {esc(r['teaches'])} | {needs} | {against} | {status} |")
    return "\n".join(lines) + "\n"


GUIDE_ORDER = ["methodology", "profiling", "pytorch", "grading", "figures"]


def guides_list(guides_dir, figures_md):
    """Bullets for every page in docs/guides (+ the figures page), in a fixed order, then by name."""
    pages = []
    for f in sorted(pathlib.Path(guides_dir).glob("*.md")) if guides_dir else []:
        found = page_anchor(f)
        if found:
            pages.append(found)
    if figures_md is not None and figures_md.exists():
        found = page_anchor(figures_md)
        if found:
            pages.append(found)
    pages.sort(key=lambda p: (GUIDE_ORDER.index(p[1]) if p[1] in GUIDE_ORDER else len(GUIDE_ORDER), p[1]))
    lines = [f'- \\subpage {anchor} "{esc(title)}"' for title, anchor in pages]
    if not any("grad" in anchor for _, anchor in pages):  # the instructors' page, once it exists
        lines.append("- Grading (for instructors): <em>not yet written</em>.")
    return "\n".join(lines) + "\n"


PYTORCH_COMMAND = "PYTHONPATH=pytorch python3 pytorch/benchmark.py --json docs/results/pytorch_ops.json"


def pytorch_ops_table(results_dir):
    """The table of docs/guides/pytorch.md: each tutorial operator beside the torch operator, from
    pytorch/benchmark.py's one process (docs/results/pytorch_ops.json)."""
    path = pathlib.Path(results_dir) / "pytorch_ops.json"
    if not path.exists():
        return div(f"Not measured yet: on a GPU machine whose python3 imports torch, build the operators and run "
                   f"`{PYTORCH_COMMAND}`.") + "\n"
    data, why = load_report(path)
    if data is None:
        warn(f"{path}: {why}")
        return div(f"`docs/results/{path.name}` could not be read: {esc(why)}.", "tut-warning") + "\n"
    if data.get("skipped"):
        return div(f"The last run measured nothing: {esc(data['skipped'])}.", "tut-warning") + "\n"
    torch_version = f" PyTorch {code(data['torch'])}." if data.get("torch") else ""
    lines = [device_line(data, f"docs/results/{path.name}") + torch_version, "",
             "| problem | tutorial operator (the chapter's version it ran) | median ms | torch operator | median ms "
             "| torch time / ours | ours vs torch (normwise) | correct |",
             "|---|---|---:|---|---:|---:|---:|---|"]
    for p in data["problems"]:
        rows = p.get("results", [])
        ours = next((r for r in rows if r.get("kind") == "ours"), None)
        theirs = next((r for r in rows if r.get("kind") != "ours"), None)
        if ours is None or theirs is None:
            continue
        ratio = (theirs["median_ms"] / ours["median_ms"]
                 if is_num(ours.get("median_ms")) and is_num(theirs.get("median_ms")) and ours["median_ms"] > 0
                 else None)
        lines.append(f"| {esc(p.get('label', '?'))} | {code(ours.get('version', '?'))} | {sig(ours.get('median_ms'))} | "
                     f"{code(theirs.get('version', '?'))} | {sig(theirs.get('median_ms'))} | {fixed(ratio, 2)} | "
                     f"{rel_error(ours)} | {row_status(ours)} |")
    for p in data["problems"]:  # a composite problem (the GPT block) may time each of its steps alone
        for who, steps in (p.get("stages") or {}).items():
            lines += ["", f"{esc(p.get('label', '?'))}, {esc(who)}'s steps, each timed alone:", "",
                      "| step | median ms |", "|---|---:|"]
            lines += [f"| {esc(name)} | {sig(ms)} |" for name, ms in steps]
    return "\n".join(lines) + "\n"


SECTIONS = {
    "memory": "`SpeedOfLight`, `MemoryWorkloadAnalysis`, `Occupancy`",
    "compute": "`SpeedOfLight`, `ComputeWorkloadAnalysis`, `WarpStateStats`, `Occupancy`",
}


def profiling_chapters(rows, files):
    """Per chapter: the nsys and ncu command lines (a real version name where a run exists)."""
    out = []
    for r in rows:
        disk = r["disk"]
        if disk is None:
            continue
        name = disk["name"]
        data, _ = results_summary(files.get(name))
        versions = []
        bound = r.get("bound") or ""
        if data is not None:
            for p in data["problems"]:
                for row in p.get("results", []):
                    v = str(row.get("version", ""))
                    if row.get("kind") == "ours" and re.match(r"^v\d+_[A-Za-z0-9_]+$", v) and v not in versions:
                        versions.append(v)
            if not bound:
                bound = "memory" if data["problems"] and data["problems"][0].get("metric") == "gbps" else "compute"
        version = versions[-1] if versions else "<version>"
        title = f"{r['num']} {r['title']}"
        link = f'@ref {disk["anchor"]} "{esc(title)}"' if disk["anchor"] else esc(title)
        listing = (", ".join(code(v) for v in versions) + " (from the last run)") if versions else \
            f"see `build/bin/{name} --list`"
        out.append(f"<h3>{esc(title)}</h3>")
        kind = f"**{bound.capitalize()}-bound**: read {SECTIONS[bound]}. " if bound in SECTIONS else ""
        out.append(div(f"Chapter page: {link}. {kind}Versions: {listing}."))
        out.append("\\verbatim")
        out.append(f"nsys profile --trace=cuda,nvtx -o {name} build/bin/{name} --reps 5")
        out.append(f"nsys stats --report nvtx_sum,cuda_gpu_kern_sum {name}.nsys-rep")
        out.append(f"ncu --set full -k regex:{version} -o {name}_{version} \\")
        out.append(f"    build/bin/{name} --version {version} --check-only")
        out.append("\\endverbatim")
    if not out:
        out.append(div("No chapter is written yet."))
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------------------------
# README.md's results: a table and one plot, checked by the docs build
# ----------------------------------------------------------------------------------------------
README_BEGIN = "<!-- results:begin"
README_END = "<!-- results:end -->"
FIGURE = "docs/figures/results_vs_library.svg"
LADDER = re.compile(r"^[a-z]\d+_")  # v0_naive, t3_streaming_loads: a step of a chapter's ladder


def timed_ok(row):
    return not row.get("skipped") and row.get("correct") is True and is_num(row.get("median_ms")) \
        and row["median_ms"] > 0


def headline_rows(data):
    """Per precision, the first problem of `data` (a chapter's default run) with a timed library
    row: the fastest correct step of the ladder (kind "ours", named vN_...; not helpers such as
    copy_kernel) and that library row, with the ratio the run recorded (vs_library: throughput
    over the library's, same run, same data)."""
    rows, done = [], set()
    for p in data.get("problems", []):
        dtype = str(p.get("dtype", ""))
        if dtype in done:
            continue
        lib = next((r for r in p.get("results", []) if r.get("version") == p.get("library") and timed_ok(r)), None)
        ours = [r for r in p.get("results", []) if r.get("kind") == "ours" and LADDER.match(str(r.get("version", "")))
                and timed_ok(r) and is_num(r.get("vs_library"))]
        if lib is None or not ours:
            continue
        best = min(ours, key=lambda r: r["median_ms"])
        done.add(dtype)
        rows.append({"problem": str(p.get("label", "")), "dtype": dtype, "version": str(best["version"]),
                     "ms": best["median_ms"], "library": str(lib["version"]), "library_ms": lib["median_ms"],
                     "ratio": best["vs_library"], "metric": p.get("metric", "gbps"),
                     "gpu": str((data.get("device") or {}).get("name", "an unknown GPU"))})
    return rows


def readme_rows(chapters, files):
    """headline_rows() of every chapter with a readable default run, in chapter order."""
    out = []
    for c in chapters:
        main = files.get(c["name"], {}).get("main")
        data = load_report(main)[0] if main else None
        for h in headline_rows(data) if data else []:
            out.append(dict(h, chapter=f"{c['num']} {c['slug']}", dir=c["dir"].name))
    return out


def rows_digest(rows):
    """A digest of the numbers the README's plot draws: the figure carries it in its metadata."""
    keys = ("chapter", "problem", "dtype", "version", "library", "ratio", "gpu")
    text = json.dumps([[r[k] for k in keys] for r in rows], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def problem_text(row):
    """A problem's label, with its precision unless the label already says it."""
    return row["problem"] if row["dtype"] in row["problem"].split() else f"{row['problem']} ({row['dtype']})"


def md(text):
    """Free text in a GitHub Markdown table cell."""
    return str(text).replace("|", "\\|")


def readme_block(rows):
    """The Markdown between README's markers (the markers included)."""
    gpus = sorted({r["gpu"] for r in rows})
    per_row_gpu = len(gpus) > 1
    out = [README_BEGIN + " (written by tools/results_to_docs.py --update-readme from docs/results; "
           "do not edit by hand) -->", ""]
    if not rows:
        return "\n".join(out + ["No measured results yet.", "", README_END])
    out.append("| chapter | problem | our best version | its time | library | library's time | vs library |"
               + (" GPU |" if per_row_gpu else ""))
    out.append("|---|---|---|---:|---|---:|---:|" + ("---|" if per_row_gpu else ""))
    for r in rows:
        out.append(f"| [{md(r['chapter'])}](chapters/{r['dir']}/README.md) | {md(problem_text(r))} "
                   f"| `{r['version']}` | {sig(r['ms'])} ms | `{r['library']}` | {sig(r['library_ms'])} ms "
                   f"| **{r['ratio']:.2f}x** |" + (f" {md(r['gpu'])} |" if per_row_gpu else ""))
    note = (("Measured on " + ", ".join(md(g) for g in gpus) + ". " if not per_row_gpu else "")
            + "Per chapter and precision, the first problem of `docs/results/<chapter>.json` (the chapter's "
            "default run): the fastest correct step of our ladder against the library row it is compared with "
            "in the same run. *vs library* is our throughput (GB/s or TFLOP/s) over the library's, so above "
            "1 is faster; it is the ratio of the times except where the library row does a different job "
            "(elementwise's `cudaMemcpy`, the copy roof, moves two streams where `add` moves three). Every "
            "problem and version is on the chapter's page.")
    out += ["", textwrap.fill(note, width=100, break_on_hyphens=False), "",
            f"![Our best version's throughput over the library's, per chapter and precision]({FIGURE})",
            "",
            README_END]
    return "\n".join(out)


def readme_split(text):
    """(before, block, after) of README's text, or None without both markers."""
    start = text.find(README_BEGIN)
    end = text.find(README_END, start + 1) if start >= 0 else -1
    if start < 0 or end < 0:
        return None
    end += len(README_END)
    return text[:start], text[start:end], text[end:]


def figure_digest(svg_path):
    """The digest recorded in the plot's metadata, or None."""
    try:
        m = re.search(r"results-digest:([0-9a-f]+)", pathlib.Path(svg_path).read_text(errors="replace"))
    except OSError:
        return None
    return m.group(1) if m else None


def readme_command(readme, results):
    """The command that rewrites README's block (short when the paths are the repository's)."""
    if pathlib.Path(readme).resolve() == ROOT / "README.md" and \
            pathlib.Path(results).resolve() == ROOT / "docs" / "results":
        return "python3 tools/results_to_docs.py --update-readme"
    return f"python3 tools/results_to_docs.py --results {results} --readme {readme} --update-readme"


def check_readme(readme, figure, rows, results):
    """Returns 0 when README's block and the plot's digest match docs/results, else prints why and 1."""
    parts = readme_split(pathlib.Path(readme).read_text())
    problems = []
    if parts is None:
        problems.append(f"{readme} has no results block (the lines {README_BEGIN} ... --> and {README_END})")
    elif parts[1] != readme_block(rows):
        problems.append(f"{readme}'s results table is out of step with {results}")
    if figure_digest(figure) != rows_digest(rows):
        problems.append(f"{figure} was not drawn from the current {results} (its results-digest differs)")
    for line in problems:
        print(f"results_to_docs.py: error: {line}", file=sys.stderr)
    if problems:
        print(f"results_to_docs.py: rewrite them with: {readme_command(readme, results)}", file=sys.stderr)
        return 1
    print(f"results_to_docs.py: {readme}'s results table and {figure} are in step with {results}")
    return 0


def update_readme(readme, figure, rows):
    """Rewrites README's block and draws the plot; returns the exit status."""
    readme = pathlib.Path(readme)
    text = readme.read_text()
    parts = readme_split(text)
    if parts is None:
        print(f"results_to_docs.py: error: {readme} has no results block; add the two lines\n"
              f"{README_BEGIN} -->\n{README_END}\nwhere the table goes, then run this again", file=sys.stderr)
        return 1
    new = parts[0] + readme_block(rows) + parts[2]
    if new != text:
        readme.write_text(new)
    try:
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
        import plot_results  # noqa: E402  (optional dependency)
    except ImportError as e:
        print(f"results_to_docs.py: error: {readme} updated, but drawing {figure} needs matplotlib ({e}): "
              "apt-get install python3-matplotlib", file=sys.stderr)
        return 1
    plot_results.library_ratios(rows, figure, "results-digest:" + rows_digest(rows))
    print(f"results_to_docs.py: wrote {readme}'s results table and {figure} ({len(rows)} rows)")
    return 0


# ----------------------------------------------------------------------------------------------
def warn(message):
    print(f"results_to_docs.py: warning: {message}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", default=str(ROOT / "docs" / "results"),
                    help="folder of result JSON files (default: the repository's docs/results)")
    ap.add_argument("--out", help="generated folder of the docs pages (build/docs/generated)")
    ap.add_argument("--chapters", default=str(ROOT / "chapters"), help="the chapters/ folder")
    ap.add_argument("--guides", help="docs/guides (default: next to --results)")
    ap.add_argument("--no-plots", action="store_true", help="do not draw plots even if matplotlib is there")
    ap.add_argument("--readme", default=str(ROOT / "README.md"),
                    help="the README with the results block (with --check or --update-readme)")
    ap.add_argument("--figure", help=f"README's plot (default: {FIGURE} of the repository)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true",
                      help="fail when README's results table or plot is out of step with --results")
    mode.add_argument("--update-readme", action="store_true", help="rewrite README's results table and plot")
    args = ap.parse_args()
    if not (args.out or args.check or args.update_readme):
        ap.error("give --out (the docs pages), --check or --update-readme")

    results_dir = pathlib.Path(args.results)
    chapters = discover_chapters(args.chapters)
    files = result_files(results_dir, [c["name"] for c in chapters])
    if args.check or args.update_readme:
        figure = pathlib.Path(args.figure) if args.figure else ROOT / FIGURE
        rows = readme_rows(chapters, files)
        status = (check_readme(args.readme, figure, rows, args.results) if args.check
                  else update_readme(args.readme, figure, rows))
        if status or not args.out:
            return status

    guides_dir = pathlib.Path(args.guides) if args.guides else results_dir.parent / "guides"
    writer = Writer(args.out)

    plotter, plot_note = None, ""
    if args.no_plots:
        plot_note = "Plots were skipped (the docs were built with `--no-plots`)."
    else:
        try:
            sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
            import plot_results as plotter  # noqa: E402  (optional dependency)
        except ImportError as e:
            plot_note = ("Plots were skipped: Python's matplotlib is not installed for the interpreter that "
                         "built these pages (`apt-get install python3-matplotlib`).")
            print(f"results_to_docs.py: plots skipped ({e})", file=sys.stderr)

    for c in chapters:
        text = render_chapter(c["name"], files[c["name"]], plotter, plot_note, writer)
        writer.text(f"results_{c['name']}.md", text)
        if c["slug"] != c["name"]:  # a page may include the file by its folder's name
            writer.text(f"results_{c['slug']}.md", text)

    rows = chapter_rows(chapters)
    writer.text("learning_path.md", learning_path(rows, files))
    writer.text("guides_list.md", guides_list(guides_dir, results_dir.parent / "figures" / "figures.md"))
    writer.text("profiling_chapters.md", profiling_chapters(rows, files))
    writer.text("pytorch_ops.md", pytorch_ops_table(results_dir))
    writer.remove_stale()
    made = sum(1 for n in writer.written if n.endswith(".png"))
    print(f"results_to_docs.py: {len(chapters)} chapter(s), {sum(1 for f in files.values() if f['main'])} with "
          f"results, {made} plot(s)" + ("" if plotter else " (plots skipped)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
