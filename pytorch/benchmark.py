"""Each tutorial operator against the torch operator that does the same work, timed in one process
on the same inputs, on the chapters' default shapes, plus the GPT attention block of
pytorch/examples/gpt_attention_block.py. Writes JSON in the chapters' result shape
(common/report.cpp), which tools/results_to_docs.py turns into the table of the page "Using the
kernels from PyTorch" (docs/guides/pytorch.md):

    PYTHONPATH=pytorch python3 pytorch/benchmark.py --json docs/results/pytorch_ops.json

Timing follows the chapters' rules (tools/torch_bench.py): CUDA events around each call, warm-up
runs first, the L2 flushed before every repetition, the median reported. Each row names the
chapter version the operator ran (torch.ops.tutorial.last_version). A row whose output differs
from torch's beyond the bound of its dtype is marked wrong, and the script exits 1.
torch settings: fp32 matmul and cuDNN without TF32 (the chapters' fp32 rows are fp32 arithmetic),
cudnn.benchmark on; attention is torch's default SDPA dispatch (backend named in the row).
"""
import argparse
import pathlib
import statistics
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "pytorch"))
sys.path.insert(0, str(ROOT / "pytorch" / "examples"))
import torch_bench  # noqa: E402

# Normwise |ours - torch| / |torch| that passes, by dtype of the inputs (both are fp32 or bf16
# computations of the same problem; a wrong result is far above these).
BOUND = {"fp32": 1e-4, "bf16": 3e-2}


def normwise(ours, theirs):
    theirs = theirs.double()
    return float((ours.double() - theirs).norm() / theirs.norm().clamp_min(1e-300))


def problems(torch, F):
    """(chapter, label, dtype, torch op, make inputs, ours(ops, *inputs), theirs(*inputs), flops,
    bytes). Ours and theirs return the output to compare (attention: O only)."""
    def rand(*shape, dtype=torch.float32):
        return torch.empty(*shape, device="cuda").uniform_(-1, 1).to(dtype)

    def last(t):
        return t.contiguous(memory_format=torch.channels_last)

    bf = torch.bfloat16
    out = []
    n = 1 << 28
    out += [("elementwise", "add n=2^28", "fp32", "torch.add", lambda: (rand(n), rand(n)),
             lambda ops, a, b: ops.add(a, b), torch.add, 0.0, 12.0 * n),
            ("elementwise", "relu n=2^28", "fp32", "torch.relu", lambda: (rand(n),),
             lambda ops, x: ops.relu(x), torch.relu, 0.0, 8.0 * n),
            ("reduce", "sum n=2^28", "fp32", "torch.sum", lambda: (rand(n),),
             lambda ops, x: ops.sum(x), torch.sum, 0.0, 4.0 * n),
            ("reduce", "max n=2^28", "fp32", "torch.max", lambda: (rand(n),),
             lambda ops, x: ops.max(x), torch.max, 0.0, 4.0 * n),
            ("reduce", "dot n=2^28", "fp32", "torch.dot", lambda: (rand(n), rand(n)),
             lambda ops, x, y: ops.dot(x, y), torch.dot, 0.0, 8.0 * n),
            ("softmax", "4096x4096", "fp32", "torch.softmax", lambda: (rand(4096, 4096),),
             lambda ops, x: ops.softmax(x), lambda x: torch.softmax(x, -1), 0.0, 8.0 * 4096 * 4096),
            ("gemv", "Ax 4096x4096", "fp32", "torch.mv", lambda: (rand(4096, 4096), rand(4096)),
             lambda ops, A, x: ops.gemv(A, x), torch.mv, 2.0 * 4096 * 4096, 4.0 * (4096 * 4096 + 8192)),
            ("transpose", "4096x4096", "fp32", "A.t().contiguous()", lambda: (rand(4096, 4096),),
             lambda ops, A: ops.transpose(A), lambda A: A.t().contiguous(), 0.0, 8.0 * 4096 * 4096)]
    for size in (1024, 4096):
        flops = 2.0 * size ** 3
        out.append(("gemm", f"fp32 {size}^3", "fp32", "torch.mm", lambda size=size: (rand(size, size), rand(size, size)),
                    lambda ops, A, B: ops.gemm(A, B), torch.mm, flops, 12.0 * size * size))
        out.append(("gemm", f"bf16 {size}^3, fp32 out", "bf16", mm_fp32_out_name(torch),
                     lambda size=size: (rand(size, size, dtype=bf), rand(size, size, dtype=bf)),
                     lambda ops, A, B: ops.gemm(A, B), lambda A, B: mm_fp32_out(torch, A, B), flops,
                     8.0 * size * size))
    for n_, c, hw in ((32, 64, 56), (16, 128, 28)):
        flops = 2.0 * n_ * c * hw * hw * c * 9
        label = f"N{n_} C{c} {hw}x{hw} K{c} 3x3 pad1"
        out.append(("conv2d", f"fp32 NCHW {label}", "fp32", "F.conv2d",
                    lambda n_=n_, c=c, hw=hw: (rand(n_, c, hw, hw), rand(c, c, 3, 3)),
                    lambda ops, x, w: ops.conv2d(x, w, [1, 1], [1, 1]),
                    lambda x, w: F.conv2d(x, w, padding=1), flops, 8.0 * n_ * c * hw * hw))
        out.append(("conv2d", f"fp32 channels_last {label}", "fp32", "F.conv2d",
                    lambda n_=n_, c=c, hw=hw: (last(rand(n_, c, hw, hw)), last(rand(c, c, 3, 3))),
                    lambda ops, x, w: ops.conv2d(x, w, [1, 1], [1, 1]),
                    lambda x, w: F.conv2d(x, w, padding=1), flops, 8.0 * n_ * c * hw * hw))
        out.append(("conv2d", f"bf16 channels_last {label}", "bf16", "F.conv2d",
                    lambda n_=n_, c=c, hw=hw: (last(rand(n_, c, hw, hw, dtype=bf)), last(rand(c, c, 3, 3, dtype=bf))),
                    lambda ops, x, w: ops.conv2d(x, w, [1, 1], [1, 1]),
                    lambda x, w: F.conv2d(x, w, padding=1), flops, 4.0 * n_ * c * hw * hw))
    shapes = [("bf16", 4, 16, 1024, 64), ("bf16", 2, 16, 4096, 128), ("bf16", 1, 16, 16384, 128),
              ("fp32", 4, 16, 1024, 64), ("fp32", 2, 16, 4096, 128)]
    for dtype, b, h, s, d in shapes:
        for causal in (False, True):
            pairs = b * h * (s * (s + 1) / 2 if causal else s * s)
            out.append(("attention", f"{dtype} B{b} H{h} S{s} D{d}{' causal' if causal else ''}", dtype,
                        "F.scaled_dot_product_attention",
                        lambda b=b, h=h, s=s, d=d, dtype=dtype: tuple(
                            rand(b, h, s, d, dtype=bf if dtype == "bf16" else torch.float32) for _ in range(3)),
                        lambda ops, q, k, v, causal=causal: ops.attention(q, k, v, causal)[0],
                        lambda q, k, v, causal=causal: F.scaled_dot_product_attention(q, k, v, is_causal=causal),
                        4.0 * d * pairs, 4.0 * b * h * s * d * (2 if dtype == "bf16" else 4)))
    return out


def mm_fp32_out(torch, A, B):
    """A B of bf16 matrices with an fp32 result, as tutorial::gemm gives: torch.mm's out_dtype where
    this torch has it, else torch.mm in bf16 (half the bytes written; mm_fp32_out_name says which)."""
    try:
        return torch.mm(A, B, out_dtype=torch.float32)
    except (TypeError, RuntimeError):
        return torch.mm(A, B)


def mm_fp32_out_name(torch):
    a = torch.ones(8, 8, device="cuda", dtype=torch.bfloat16)
    return "torch.mm(out_dtype=float32)" if mm_fp32_out(torch, a, a).dtype == torch.float32 else "torch.mm (bf16 out)"


def sdpa_backend(torch, F, q, k, v, causal):
    """The backend torch's default dispatch picks for these inputs: the first, in its order of
    priority on this GPU, that accepts them (the refusals' warnings silenced)."""
    import warnings
    from torch.nn.attention import SDPBackend, sdpa_kernel
    for name in ("CUDNN_ATTENTION", "FLASH_ATTENTION", "EFFICIENT_ATTENTION", "MATH"):
        try:
            with warnings.catch_warnings(), sdpa_kernel([getattr(SDPBackend, name)]):
                warnings.simplefilter("ignore")
                F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            return name.lower()
        except RuntimeError:
            continue
    return "unknown"


def run(args):
    torch, why = torch_bench.import_torch()
    report = torch_bench.new_report("pytorch_ops", ROOT, "tutorial operators against torch operators, one process")
    if why:
        print(f"benchmark.py: {why}", file=sys.stderr)
        report["skipped"] = why
        return report
    import torch.nn.functional as F
    import tutorial_torch
    from tutorial_torch import reference
    ops = tutorial_torch.load()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    l2 = torch_bench.describe_device(torch, report)
    flush = torch.empty(2 * l2 // 4, device="cuda")
    torch.manual_seed(args.seed)
    for chapter, label, dtype, torch_name, make, ours, theirs, flops, nbytes in problems(torch, F):
        if args.only and chapter not in args.only.split(","):
            continue
        inputs = make()
        got, want = ours(ops, *inputs), theirs(*inputs)
        op = f"tutorial::{label.split()[0] if chapter in ('elementwise', 'reduce') else chapter}"
        version = ops.last_version(op)
        if chapter == "attention":
            torch_name += f" ({sdpa_backend(torch, F, *inputs, 'causal' in label)})"
        if chapter == "reduce":  # a sum's error is judged against the sum of magnitudes, not the sum
            if label.startswith("max"):
                ok, rel = bool(got == want), 0.0
            else:
                x = inputs[0] if label.startswith("sum") else inputs[0].double() * inputs[1].double()
                ok = reference.check_sum(got, x)[0]
                rel = abs(float(got) - float(want)) / max(float(x.double().abs().sum()), 1e-300)
        else:
            rel = normwise(got, want)
            ok = rel <= BOUND[dtype]
        del got, want
        t_ours = torch_bench.time_call(torch, lambda: ours(ops, *inputs), args.reps, args.warmup, flush)
        t_torch = torch_bench.time_call(torch, lambda: theirs(*inputs), args.reps, args.warmup, flush)
        ours_name = f"{op} ({version})"
        rows = [torch_bench.timed_row(ours_name, f"chapter {chapter}", t_ours, rel, 0.0, ok, flops, nbytes),
                torch_bench.timed_row(torch_name, "torch", t_torch, 0.0, 0.0, True, flops, nbytes)]
        rows[0]["kind"] = "ours"
        problem = {"label": f"{chapter}: {label}", "dtype": dtype, "metric": "tflops" if flops else "gbps",
                   "library": torch_name, "results": rows}
        torch_bench.set_vs_library(problem) if flops else set_vs_library_gbps(problem)
        report["problems"].append(problem)
        print(f"{chapter:11} {label:52} ours {statistics.median(t_ours):9.4f} ms  torch {statistics.median(t_torch):9.4f}"
              f" ms  torch/ours {statistics.median(t_torch) / statistics.median(t_ours):5.2f}  {'ok' if ok else 'WRONG'}"
              f"  ({version})", flush=True)
        del inputs
        torch.cuda.empty_cache()
    if not args.only or "block" in args.only.split(","):
        import gpt_attention_block as block
        r = block.measure(ops, 4, 1024, 1024, 16, args.reps, args.warmup)
        ok = r["tutorial_error"] <= block.TOLERANCE
        rows = [torch_bench.timed_row("tutorial ops (gemm, attention, gemm)", "examples/gpt_attention_block.py",
                                      r["tutorial_ms"], r["difference"], 0.0, ok, r["flops"], 0.0),
                torch_bench.timed_row("torch (mm, SDPA, mm)", "the same block in torch, bf16", r["torch_ms"],
                                      0.0, 0.0, True, r["flops"], 0.0)]
        rows[0]["kind"] = "ours"
        rows[0]["error_vs_float64"], rows[1]["error_vs_float64"] = r["tutorial_error"], r["torch_error"]
        problem = {"label": f"GPT attention block: {r['shape']} (normwise error against float64: ours "
                            f"{r['tutorial_error']:.1e}, torch's {r['torch_error']:.1e})",
                   "dtype": "bf16", "metric": "tflops", "stages": r["stages"],
                   "library": rows[1]["version"], "results": rows}
        torch_bench.set_vs_library(problem)
        report["problems"].append(problem)
        print(f"GPT block   {r['shape']:52} ours {statistics.median(r['tutorial_ms']):9.4f} ms  torch "
              f"{statistics.median(r['torch_ms']):9.4f} ms  errors vs float64: ours {r['tutorial_error']:.2e}, "
              f"torch {r['torch_error']:.2e}", flush=True)
    return report


def set_vs_library_gbps(problem):
    """For memory-bound rows (no FLOPs): the torch time over ours, the same ratio as throughput's."""
    lib = problem["results"][1]
    for r in problem["results"]:
        r["vs_library"] = lib["median_ms"] / r["median_ms"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    torch_bench.add_common_args(ap)
    ap.add_argument("--only", help="comma-separated chapters (and/or `block`) to run, e.g. gemm,attention")
    args = ap.parse_args()
    return torch_bench.finish("benchmark.py", args, run)


if __name__ == "__main__":
    sys.exit(main())
