#!/usr/bin/env python3
"""PyTorch's conv2d on chapter 07's layers, timed like the chapter.

    python3 tools/torch_conv2d_baseline.py --json docs/results/conv2d_torch.json [--reps 20] [--warmup 3]

torch.nn.functional.conv2d (cross-correlation, as the chapter computes) with
torch.backends.cudnn.benchmark on (cuDNN tries its algorithms on the first call of each shape, the
way a training script runs; that first call is an untimed warm-up), in both layouts:

  torch_nchw: contiguous NCHW tensors;
  torch_nhwc: channels_last (NHWC) tensors, what PyTorch recommends for tensor-core convolutions;

in fp32 with TF32 switched off (torch.backends.cudnn.allow_tf32 = False: fp32 FMA arithmetic, as
the chapter's fp32 rows) and in bf16 (fp32 accumulation inside cuDNN). The chapter's own cuDNN rows
go through cuDNN's legacy find API (cudnnFindConvolutionForwardAlgorithmEx); PyTorch goes through
cuDNN's newer frontend, which can reach other kernels: these rows show what a PyTorch user gets.

Timing rules of the chapter (tools/torch_bench.py). Inputs uniform in [-1, 1). Each row's output is
checked against a float64 convolution of the first and the last image (normwise relative error; bf16
below 1e-2, fp32 below 1e-4). FLOPs: 2 N K P Q C R S, as the chapter counts them. The JSON has the
chapter's shape (tools/results_to_docs.py renders it as "Also measured: torch"); these rows come from
a separate process on the same GPU, so their ratios to the chapter's rows are between two runs.
Without PyTorch every row is written as skipped ("PyTorch not found").
"""
import argparse
import math
import pathlib

from torch_bench import (add_common_args, describe_device, finish, import_torch, new_report, set_vs_library,
                         skipped_row, time_call, timed_row)

# (N, C, H, W, K, R, S, stride, pad): the chapter's default layers (chapters/07_conv2d/main.cpp).
LAYERS = [(32, 64, 56, 56, 64, 3, 3, 1, 1), (16, 128, 28, 28, 128, 3, 3, 1, 1), (8, 256, 14, 14, 256, 3, 3, 1, 1),
          (32, 256, 56, 56, 64, 1, 1, 1, 0), (8, 3, 224, 224, 64, 7, 7, 2, 3), (1, 6, 768, 512, 6, 6, 6, 1, 0)]
VERSIONS = [("torch_nchw", False, "PyTorch conv2d (cuDNN, benchmark mode), contiguous NCHW"),
            ("torch_nhwc", True, "PyTorch conv2d (cuDNN, benchmark mode), channels_last NHWC")]
TOLERANCE = {"bf16": 1e-2, "fp32": 1e-4}


def layer_text(n, c, h, w, k, r, s, stride, pad):
    """The chapter's label of a layer (conv2d::shape_text)."""
    text = f"N{n} C{c} {h}x{w} K{k} {r}x{s}"
    if stride != 1:
        text += f" stride{stride}"
    return text + f" pad{pad}"


def run(args):
    root = pathlib.Path(__file__).resolve().parent.parent
    report = new_report("conv2d", root, "PyTorch conv2d through cuDNN, a separate process on the same GPU")
    torch, why_not = import_torch()
    problems = [(layer, dtype) for layer in LAYERS for dtype in ("fp32", "bf16")]

    def problem_of(layer, dtype):
        n, c, h, w, k, r, s, stride, pad = layer
        p_out = (h + 2 * pad - r) // stride + 1
        q_out = (w + 2 * pad - s) // stride + 1
        flops = 2.0 * n * k * p_out * q_out * c * r * s
        size = 2 if dtype == "bf16" else 4
        nbytes = size * (n * c * h * w + k * c * r * s + n * k * p_out * q_out)
        p = {"label": f"{dtype} {layer_text(*layer)} (PyTorch, separate process)",
             "shape": {"n": n, "c": c, "h": h, "w": w, "k": k, "r": r, "s": s, "stride": stride, "pad": pad},
             "dtype": dtype, "metric": "tflops", "peak": 0.0,
             "peak_name": "PyTorch conv2d in a separate process on the same GPU", "baseline": "",
             "library": VERSIONS[0][0], "results": []}
        return p, flops, nbytes

    if why_not is not None:
        for layer, dtype in problems:
            p, flops, nbytes = problem_of(layer, dtype)
            p["results"] = [skipped_row(v, summary, why_not, flops, nbytes) for v, _, summary in VERSIONS]
            report["problems"].append(p)
        print(f"torch_conv2d_baseline.py: {why_not}; wrote skipped rows")
        return report

    import torch.nn.functional as F
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False  # fp32 rows: FMA arithmetic, as the chapter's
    l2 = describe_device(torch, report)
    flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    gen = torch.Generator(device="cuda")
    print(f"PyTorch {torch.__version__} on {report['device']['name']}: conv2d, {args.reps} reps (median), "
          f"L2 flushed, cudnn.benchmark on, TF32 off")
    for layer, dtype in problems:
        n, c, h, w, k, r, s, stride, pad = layer
        p, flops, nbytes = problem_of(layer, dtype)
        torch_dtype = torch.bfloat16 if dtype == "bf16" else torch.float32
        gen.manual_seed(args.seed + n * c + k)
        x = (torch.rand(n, c, h, w, generator=gen, device="cuda") * 2 - 1).to(torch_dtype)
        wt = (torch.rand(k, c, r, s, generator=gen, device="cuda") * 2 - 1).to(torch_dtype)
        # The reference: float64 on the rounded inputs, first and last image.
        ends = [0, n - 1] if n > 1 else [0]
        ref = F.conv2d(x[ends].double(), wt.double(), stride=stride, padding=pad)
        for version, channels_last, summary in VERSIONS:
            fmt = torch.channels_last if channels_last else torch.contiguous_format
            xl, wl = x.contiguous(memory_format=fmt), wt.contiguous(memory_format=fmt)
            call = lambda: F.conv2d(xl, wl, stride=stride, padding=pad)  # noqa: E731
            try:
                out = call()  # with cudnn.benchmark: cuDNN's search for this shape, untimed
                torch.cuda.synchronize()
                got = out[ends].double()
                diff = got - ref
                rel = math.sqrt(float((diff * diff).sum()) / max(float((ref * ref).sum()), 1e-300))
                max_abs = float(diff.abs().max())
                del out, got, diff
                times = time_call(torch, call, args.reps, args.warmup, flush)
            except RuntimeError as e:
                reason = str(e).strip().splitlines()[0][:160] if str(e).strip() else type(e).__name__
                p["results"].append(skipped_row(version, summary, f"conv2d failed: {reason}", flops, nbytes))
                print(f"{p['label'][:52]:52} {version:11} skipped: {reason[:60]}")
                continue
            correct = rel <= TOLERANCE[dtype]
            row = timed_row(version, summary, times, rel, max_abs, correct, flops, nbytes)
            p["results"].append(row)
            print(f"{p['label'][:52]:52} {version:11} {row['median_ms']:9.4f} ms {row['tflops']:8.2f} TFLOP/s "
                  f"{rel:9.1e}  {'ok' if correct else 'WRONG'}", flush=True)
        set_vs_library(p)
        report["problems"].append(p)
        del x, wt, ref
    return report


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(ap)
    return finish("torch_conv2d_baseline.py", ap.parse_args(), run)


if __name__ == "__main__":
    raise SystemExit(main())
