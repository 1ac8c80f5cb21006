#!/usr/bin/env python3
"""PyTorch's scaled_dot_product_attention on chapter 08's shapes, timed like the chapter.

    python3 tools/torch_sdpa_baseline.py --json docs/results/attention_torch.json [--reps 20] [--warmup 3]
                                         [--shapes "4,16,1024,64 4,16,4096,64"]

Times torch.nn.functional.scaled_dot_product_attention with each backend, chosen with
torch.nn.attention.sdpa_kernel:

  bf16: FLASH_ATTENTION (FlashAttention-2), CUDNN_ATTENTION (cuDNN's fused SDPA), EFFICIENT_ATTENTION
        (the memory-efficient kernel of xFormers/CUTLASS);
  fp32: EFFICIENT_ATTENTION (the only fused backend that takes fp32).

on the shapes of the chapter's default table ([B, H, S, D] contiguous, S = Sq = Sk, each without and
with the causal mask), with the chapter's timing rules: CUDA events around the call only, warm-up
runs, the median (and min, max) of the repetitions, and the L2 cache flushed before each one (a
write of twice its size, untimed). Inputs: Q, K uniform in [-sqrt 3, sqrt 3), V in [-1, 1), as in
the chapter. FLOPs: 4 D per visible (query, key) pair, as the chapter counts them (causal: S (S + 1) / 2
pairs per head).

Each backend's output is checked against a float64 reference of the first and the last head
(normwise relative error; bf16 must be below 1e-2, fp32 below 1e-3): a wrong or silently
substituted backend is marked, not hidden.

The JSON has the shape of the chapter's (common/report.cpp): {chapter, git, device, problems[{label,
shape, dtype, metric, results[...]}]}, one problem per (shape, mask, dtype), so that
tools/results_to_docs.py renders it as tables ("Also measured: torch" on the chapter page). These
rows come from a separate process on the same GPU, not from the chapter's run: their ratios to the
chapter's versions are between two runs. Without PyTorch (or without a GPU) every row is written as
skipped with the reason ("PyTorch not found").
"""
import argparse
import math
import pathlib
import sys

from torch_bench import (add_common_args, describe_device, finish, import_torch, new_report, set_vs_library,
                         skipped_row, time_call, timed_row)

DEFAULT_SHAPES = [(4, 16, 1024, 64), (4, 16, 4096, 64), (2, 16, 4096, 128), (1, 32, 8192, 128)]
BACKENDS = {
    "bf16": [("torch_flash", "FLASH_ATTENTION", "PyTorch SDPA, FLASH_ATTENTION backend (FlashAttention-2)"),
             ("torch_cudnn", "CUDNN_ATTENTION", "PyTorch SDPA, CUDNN_ATTENTION backend (cuDNN fused attention)"),
             ("torch_efficient", "EFFICIENT_ATTENTION", "PyTorch SDPA, EFFICIENT_ATTENTION backend (memory-efficient)")],
    "fp32": [("torch_efficient", "EFFICIENT_ATTENTION", "PyTorch SDPA, EFFICIENT_ATTENTION backend (memory-efficient, fp32)")],
}
TOLERANCE = {"bf16": 1e-2, "fp32": 1e-3}


def visible_pairs(b, h, s, causal):
    return b * h * (s * (s + 1) / 2 if causal else s * s)


def problem_of(b, h, s, d, causal, dtype):
    label = f"{dtype} B{b} H{h} S{s} D{d}" + (" causal" if causal else "") + " (PyTorch, separate process)"
    return {"label": label, "shape": {"b": b, "h": h, "sq": s, "sk": s, "d": d, "causal": int(causal)},
            "dtype": dtype, "metric": "tflops", "peak": 0.0,
            "peak_name": "PyTorch SDPA in a separate process on the same GPU", "baseline": "",
            "library": BACKENDS[dtype][0][0], "results": []}


def reference_error(torch, q, k, v, out, causal, heads):
    """Normwise relative error of `out` against float64 attention, over the given (b, h) heads."""
    diff2 = ref2 = 0.0
    max_abs = 0.0
    for b, h in heads:
        qd, kd, vd = (x[b, h].double() for x in (q, k, v))
        scores = (qd @ kd.transpose(0, 1)) / math.sqrt(q.shape[-1])
        if causal:
            s = scores.shape[0]
            mask = torch.ones(s, s, dtype=torch.bool, device=scores.device).tril()
            scores = scores.masked_fill(~mask, float("-inf"))
        ref = torch.softmax(scores, dim=-1) @ vd
        got = out[b, h].double()
        diff = (got - ref)
        diff2 += float((diff * diff).sum())
        ref2 += float((ref * ref).sum())
        max_abs = max(max_abs, float(diff.abs().max()))
        del scores, ref
    return math.sqrt(diff2 / ref2) if ref2 > 0 else math.sqrt(diff2), max_abs


def run(args):
    root = pathlib.Path(__file__).resolve().parent.parent
    report = new_report("attention", root, "PyTorch scaled_dot_product_attention, a separate process on the same GPU")
    shapes = DEFAULT_SHAPES
    if args.shapes:
        shapes = [tuple(int(x) for x in item.split(",")) for item in args.shapes.split()]
    problems = []
    for b, h, s, d in shapes:
        for causal in (False, True):
            for dtype in ("bf16", "fp32"):
                problems.append((b, h, s, d, causal, dtype))

    torch, why_not = import_torch()
    if why_not is None:
        import torch.nn.functional as F
        from torch.nn.attention import SDPBackend, sdpa_kernel

    if why_not is not None:
        for b, h, s, d, causal, dtype in problems:
            p = problem_of(b, h, s, d, causal, dtype)
            flops = 4.0 * d * visible_pairs(b, h, s, causal)
            nbytes = (2 if dtype == "bf16" else 4) * b * h * s * d * 4.0
            p["results"] = [skipped_row(v, summary, why_not, flops, nbytes) for v, _, summary in BACKENDS[dtype]]
            report["problems"].append(p)
        print(f"torch_sdpa_baseline.py: {why_not}; wrote skipped rows", file=sys.stderr)
        return report

    l2 = describe_device(torch, report)
    flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    gen = torch.Generator(device="cuda")
    print(f"PyTorch {torch.__version__} on {report['device']['name']}: SDPA backends, {args.reps} reps (median), L2 flushed")
    print(f"{'problem':46} {'version':16} {'median ms':>10} {'TFLOP/s':>8} {'rel. err':>9}  check")
    for b, h, s, d, causal, dtype in problems:
        p = problem_of(b, h, s, d, causal, dtype)
        torch_dtype = torch.bfloat16 if dtype == "bf16" else torch.float32
        gen.manual_seed(args.seed + s + d + int(causal))
        r3 = math.sqrt(3.0)
        q = ((torch.rand(b, h, s, d, generator=gen, device="cuda") * 2 - 1) * r3).to(torch_dtype)
        k = ((torch.rand(b, h, s, d, generator=gen, device="cuda") * 2 - 1) * r3).to(torch_dtype)
        v = (torch.rand(b, h, s, d, generator=gen, device="cuda") * 2 - 1).to(torch_dtype)
        flops = 4.0 * d * visible_pairs(b, h, s, causal)
        nbytes = (2 if dtype == "bf16" else 4) * b * h * s * d * 4.0 + 4.0 * b * h * s
        for version, backend, summary in BACKENDS[dtype]:
            call = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)  # noqa: E731
            try:
                with sdpa_kernel([getattr(SDPBackend, backend)]):
                    out = call()
                    torch.cuda.synchronize()
                    rel, max_abs = reference_error(torch, q, k, v, out, causal, [(0, 0), (b - 1, h - 1)])
                    del out
                    times = time_call(torch, call, args.reps, args.warmup, flush)
            except RuntimeError as e:  # the backend does not take this problem
                reason = str(e).strip().splitlines()[0][:160] if str(e).strip() else type(e).__name__
                p["results"].append(skipped_row(version, summary, f"{backend} declined: {reason}", flops, nbytes))
                print(f"{p['label'][:46]:46} {version:16} skipped: {reason[:60]}")
                torch.cuda.synchronize()
                continue
            correct = rel <= TOLERANCE[dtype]
            row = timed_row(version, summary, times, rel, max_abs, correct, flops, nbytes)
            p["results"].append(row)
            print(f"{p['label'][:46]:46} {version:16} {row['median_ms']:10.4f} {row['tflops']:8.2f} {rel:9.1e}  "
                  f"{'ok' if correct else 'WRONG'}", flush=True)
        set_vs_library(p)
        report["problems"].append(p)
        del q, k, v
    return report


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(ap)
    ap.add_argument("--shapes", default="", help='"B,H,S,D B,H,S,D ..." instead of the chapter\'s four shapes')
    return finish("torch_sdpa_baseline.py", ap.parse_args(), run)


if __name__ == "__main__":
    sys.exit(main())
