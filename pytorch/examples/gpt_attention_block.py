"""The forward pass of a GPT-style attention block, built from the tutorial's operators and checked
against the same block in torch (values and time):

    y = x + Attention(x W_qkv) W_out        (causal self-attention, H heads, bf16 weights)

    tutorial:  ops.gemm (x W_qkv, bf16 in, fp32 out)  ->  ops.attention (causal, bf16)
               ->  ops.gemm (o W_out + x: the residual is gemm's beta * C)
    torch:     x @ W_qkv  ->  F.scaled_dot_product_attention(is_causal=True)  ->  o @ W_out + x

Both are compared with the same block computed in float64 from the same bf16 inputs.

    PYTHONPATH=pytorch python3 pytorch/examples/gpt_attention_block.py            # check and time
    PYTHONPATH=pytorch python3 pytorch/examples/gpt_attention_block.py --check    # small, quick test

Exits 1 if the tutorial's block is off, 77 (skipped) without a GPU.
"""
import argparse
import pathlib
import statistics
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # pytorch/, for tutorial_torch
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))  # torch_bench

# The block's output is a sum of a residual of size ~1 and bf16 products: its normwise error
# against float64 sits near bf16's 2^-9 = 2e-3; 1e-2 fails a wrong head, mask or projection.
TOLERANCE = 1e-2


# [tutorial_block]
def tutorial_block(ops, x, w_qkv, w_out, heads):
    """y = x + causal_attention(x W_qkv) W_out from the tutorial's operators (y in float32)."""
    b, s, e = x.shape
    d = e // heads
    x2 = x.reshape(b * s, e)
    qkv = ops.gemm(x2, w_qkv)  # [B S, 3E], fp32: bf16 inputs, fp32 accumulation (chapter 06)
    # [B S, 3E] -> [3, B, H, S, D]: q, k and v in the [B, H, S, D] layout ops.attention takes.
    qkv = qkv.view(b, s, 3, heads, d).permute(2, 0, 3, 1, 4).to(torch.bfloat16).contiguous()
    o, _lse = ops.attention(qkv[0], qkv[1], qkv[2], True)  # chapter 08, bf16
    o = o.transpose(1, 2).reshape(b * s, e)  # the heads side by side again: [B S, E]
    y = ops.gemm(o, w_out, x2.float(), 1.0, 1.0)  # out projection, plus the residual as beta * C
    return y.view(b, s, e)
# [tutorial_block]


def torch_block(x, w_qkv, w_out, heads):
    """The same block as torch users write it, in bf16."""
    b, s, e = x.shape
    d = e // heads
    x2 = x.reshape(b * s, e)
    q, k, v = (x2 @ w_qkv).view(b, s, 3, heads, d).permute(2, 0, 3, 1, 4)
    o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return (o.transpose(1, 2).reshape(b * s, e) @ w_out + x2).view(b, s, e)


def float64_block(x, w_qkv, w_out, heads):
    """The block in float64 from the same (bf16) values: the reference both are measured against."""
    b, s, e = x.shape
    d = e // heads
    x2, wq, wo = x.double().reshape(b * s, e), w_qkv.double(), w_out.double()
    q, k, v = (x2 @ wq).view(b, s, 3, heads, d).permute(2, 0, 3, 1, 4)
    scores = (q @ k.transpose(-1, -2)) / d ** 0.5
    mask = torch.ones(s, s, dtype=torch.bool, device=x.device).tril()
    p = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
    return ((p @ v).transpose(1, 2).reshape(b * s, e) @ wo + x2).view(b, s, e)


def normwise_error(got, ref):
    return float((got.double() - ref).norm() / ref.norm())


def make_inputs(b, s, e, seed=2024):
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn(b, s, e, device="cuda", generator=g).to(torch.bfloat16)
    w_qkv = (torch.randn(e, 3 * e, device="cuda", generator=g) / e ** 0.5).to(torch.bfloat16)
    w_out = (torch.randn(e, e, device="cuda", generator=g) / e ** 0.5).to(torch.bfloat16)
    return x, w_qkv, w_out


def measure(ops, b, s, e, heads, reps=20, warmup=3, time_it=True):
    """Checks both blocks against float64 and times them: a dict of errors and milliseconds."""
    x, w_qkv, w_out = make_inputs(b, s, e)
    ref = float64_block(x, w_qkv, w_out, heads)
    ours, theirs = tutorial_block(ops, x, w_qkv, w_out, heads), torch_block(x, w_qkv, w_out, heads)
    result = {"shape": f"B{b} S{s} E{e} H{heads} (D{e // heads}) causal",
              "tutorial_error": normwise_error(ours, ref), "torch_error": normwise_error(theirs, ref),
              "difference": normwise_error(ours, theirs.double()),  # ours against torch's
              "flops": 2.0 * b * s * e * 4 * e + 2.0 * b * heads * s * s * (e // heads)}  # projections + causal attention
    del ref, ours, theirs
    if time_it:
        import torch_bench
        flush = torch.empty(2 * torch.cuda.get_device_properties(0).L2_cache_size // 4, device="cuda")

        def median_ms(call):
            return statistics.median(torch_bench.time_call(torch, call, reps, warmup, flush))

        result["tutorial_ms"] = torch_bench.time_call(torch, lambda: tutorial_block(ops, x, w_qkv, w_out, heads),
                                                      reps, warmup, flush)
        result["torch_ms"] = torch_bench.time_call(torch, lambda: torch_block(x, w_qkv, w_out, heads), reps, warmup,
                                                   flush)
        result["stages"] = stage_times(ops, x, w_qkv, w_out, heads, median_ms)
    return result


def stage_times(ops, x, w_qkv, w_out, heads, median_ms):
    """Each step of both blocks timed on its own (median ms): where the time goes."""
    b, s, e = x.shape
    d = e // heads
    x2 = x.reshape(b * s, e)
    qkv32 = ops.gemm(x2, w_qkv)
    qkv = qkv32.view(b, s, 3, heads, d).permute(2, 0, 3, 1, 4).to(torch.bfloat16).contiguous()
    o = ops.attention(qkv[0], qkv[1], qkv[2], True)[0]
    o2, xf = o.transpose(1, 2).reshape(b * s, e), x2.float()
    tq, tk, tv = (x2 @ w_qkv).view(b, s, 3, heads, d).permute(2, 0, 3, 1, 4)
    to = F.scaled_dot_product_attention(tq, tk, tv, is_causal=True)
    to2 = to.transpose(1, 2).reshape(b * s, e)
    return {"tutorial": [
        ("ops.gemm: x W_qkv (fp32 out)", median_ms(lambda: ops.gemm(x2, w_qkv))),
        ("torch copy: to [3, B, H, S, D] bf16", median_ms(
            lambda: qkv32.view(b, s, 3, heads, d).permute(2, 0, 3, 1, 4).to(torch.bfloat16).contiguous())),
        ("ops.attention (causal)", median_ms(lambda: ops.attention(qkv[0], qkv[1], qkv[2], True))),
        ("torch copy: heads side by side", median_ms(lambda: o.transpose(1, 2).reshape(b * s, e))),
        ("torch copy: x to fp32", median_ms(lambda: x2.float())),
        ("ops.gemm: o W_out + x", median_ms(lambda: ops.gemm(o2, w_out, xf, 1.0, 1.0)))],
        "torch": [
        ("x @ W_qkv (bf16 out)", median_ms(lambda: x2 @ w_qkv)),
        ("scaled_dot_product_attention (causal, strided q, k, v)",
         median_ms(lambda: F.scaled_dot_product_attention(tq, tk, tv, is_causal=True))),
        ("copy: heads side by side", median_ms(lambda: to.transpose(1, 2).reshape(b * s, e))),
        ("o @ W_out + x", median_ms(lambda: to2 @ w_out + x2))]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="a small block, values only (the CTest test)")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seq", type=int, default=1024)
    ap.add_argument("--embed", type=int, default=1024)
    ap.add_argument("--heads", type=int, default=16)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("SKIPPED: no CUDA device")
        return 77
    import tutorial_torch
    ops = tutorial_torch.load()
    shapes = [(2, 256, 512, 8), (1, 300, 256, 2)] if args.check else [(args.batch, args.seq, args.embed, args.heads)]
    failed = False
    for b, s, e, h in shapes:
        r = measure(ops, b, s, e, h, time_it=not args.check)
        ok = r["tutorial_error"] <= TOLERANCE
        failed |= not ok
        print(f"{r['shape']}: normwise error against float64: tutorial {r['tutorial_error']:.2e}, "
              f"torch {r['torch_error']:.2e} ({'ok' if ok else 'WRONG'}, bound {TOLERANCE:g})")
        if "tutorial_ms" in r:
            ours, theirs = statistics.median(r["tutorial_ms"]), statistics.median(r["torch_ms"])
            print(f"  median time: tutorial {ours:.4f} ms ({r['flops'] / ours / 1e9:.0f} TFLOP/s), "
                  f"torch {theirs:.4f} ms ({r['flops'] / theirs / 1e9:.0f} TFLOP/s); torch / tutorial = "
                  f"{theirs / ours:.2f}")
            for who, steps in r["stages"].items():
                print(f"  {who}, each step alone: " + "; ".join(f"{name} {ms:.4f} ms" for name, ms in steps))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
