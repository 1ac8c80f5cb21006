"""What the PyTorch baseline scripts (torch_sdpa_baseline.py, torch_conv2d_baseline.py) share:
importing torch (or saying why not), the chapter's timing rules, and rows and files in the JSON
shape of common/report.cpp, so that tools/results_to_docs.py renders them as tables.

Timing rules, as in the chapters (docs/guides/methodology.md): CUDA events around the call only,
untimed warm-up runs first, the L2 cache flushed before each repetition (an untimed write of twice
its size), the median (and min, max) of the repetitions. Rows from these scripts come from a
separate process on the same GPU: their ratios to a chapter's rows are between two runs.
"""
import json
import os
import pathlib
import statistics
import subprocess
import sys


def git_commit(root):
    """$TUT_GIT_COMMIT if set (a tree copied to the GPU machine may carry a stale .git), else git's."""
    commit = os.environ.get("TUT_GIT_COMMIT")
    if commit:
        return commit
    try:
        return subprocess.run(["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip() or "unknown"
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def import_torch():
    """(torch, None) when PyTorch and a CUDA device are there, else (None or torch, why not)."""
    try:
        import torch
    except ImportError:
        return None, "PyTorch not found"
    if not torch.cuda.is_available():
        return torch, "PyTorch found, but no CUDA device"
    return torch, None


def new_report(chapter, root, note):
    return {"chapter": chapter, "git": git_commit(root), "device": {}, "problems": [], "note": note}


def describe_device(torch, report):
    """Fills report["device"] and report["torch"]; returns the L2 size in bytes."""
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 0) or 50 * 2**20
    report["device"] = {"name": props.name, "compute_capability": f"{props.major}.{props.minor}",
                        "sm_count": props.multi_processor_count, "l2_bytes": l2, "memory_bytes": props.total_memory}
    report["torch"] = torch.__version__
    return l2


def time_call(torch, call, reps, warmup, flush):
    """Milliseconds of `reps` calls of `call`, each between its own CUDA events, after `warmup`
    untimed calls; `flush` (a device tensor twice the L2) is overwritten, untimed, before each."""
    for _ in range(warmup):
        call()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        flush.zero_()
        starts[i].record()
        call()
        ends[i].record()
    torch.cuda.synchronize()
    return [st.elapsed_time(en) for st, en in zip(starts, ends)]


def skipped_row(version, summary, reason, flops, nbytes):
    return {"version": version, "kind": "library", "summary": summary, "skipped": True, "skip_reason": reason,
            "correct": None, "rel_err": 0.0, "max_abs_err": 0.0, "median_ms": None, "min_ms": None, "max_ms": None,
            "reps": 0, "bytes": nbytes, "flops": flops, "gbps": None, "tflops": None, "pct_of_peak": None,
            "speedup_vs_baseline": None, "vs_library": None}


def timed_row(version, summary, times, rel, max_abs, correct, flops, nbytes):
    med = statistics.median(times)
    return {"version": version, "kind": "library", "summary": summary, "skipped": False, "correct": correct,
            "rel_err": rel, "max_abs_err": max_abs, "median_ms": med, "min_ms": min(times), "max_ms": max(times),
            "reps": len(times), "bytes": nbytes, "flops": flops, "gbps": nbytes / (med * 1e-3) / 1e9,
            "tflops": flops / (med * 1e-3) / 1e12, "pct_of_peak": None, "speedup_vs_baseline": None,
            "vs_library": None}


def set_vs_library(problem):
    """Each timed row's throughput over the problem's `library` row's."""
    lib = next((r for r in problem["results"] if r["version"] == problem["library"] and not r["skipped"]), None)
    for r in problem["results"]:
        if lib is not None and not r["skipped"]:
            r["vs_library"] = r["tflops"] / lib["tflops"]


def add_common_args(ap):
    ap.add_argument("--json", required=True, help="where to write the results")
    ap.add_argument("--reps", type=int, default=20, help="timed repetitions (median reported)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed runs first")
    ap.add_argument("--seed", type=int, default=2024, help="seed of the inputs")


def finish(prog, args, run):
    """Checks the shared flags, runs `run(args)`, writes its report; returns the exit status
    (1 if a row was wrong, 2 for bad flags)."""
    if args.reps < 1 or args.warmup < 0:
        print(f"{prog}: error: --reps must be >= 1 and --warmup >= 0", file=sys.stderr)
        return 2
    report = run(args)
    out = pathlib.Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    wrong = sum(1 for p in report["problems"] for r in p["results"] if r.get("correct") is False)
    print(f"wrote {out} ({len(report['problems'])} problems{', ' + str(wrong) + ' WRONG' if wrong else ''})")
    return 1 if wrong else 0
