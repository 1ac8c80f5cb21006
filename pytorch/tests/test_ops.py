"""The tutorial's PyTorch operators against torch's own: values (torch.testing.assert_close over
each chapter's awkward sizes, against a float64 reference with the chapter's bound:
tutorial_torch/reference.py), torch.library.opcheck on every operator, bad inputs raising, torch's
current stream, and the memory three versions keep between calls under two streams at once. Exits 77
(skipped) without a GPU."""
import math
import sys
import unittest

import torch

if not torch.cuda.is_available():
    print("SKIPPED: no CUDA device")
    sys.exit(77)

import tutorial_torch  # noqa: E402
from tutorial_torch import reference  # noqa: E402

ops = tutorial_torch.load()
DEV = "cuda"
SIZES = [1, 2, 3, 4, 5, 31, 32, 33, 127, 1000, 4097, 65537, 1 << 20]


def rand(*shape, lo=-1.0, hi=1.0):
    return torch.empty(*shape, device=DEV).uniform_(lo, hi)


def poisoned(op, *args, out_numel):
    """Calls op(*args) with its output poisoned: a block of NaN of the output's size is freed into
    torch's caching allocator just before, and the operator's at::empty output is given that block,
    so an element the kernel does not write stays NaN and fails (assert_close never passes NaN)."""
    junk = torch.full((max(out_numel, 1),), float("nan"), device=DEV)
    del junk
    return op(*args)


def view_at(base, off, *shape):
    """A contiguous view of `shape` starting `off` floats into `base`: off = 1..3 starts off a
    16-byte boundary, where the float4 paths must fall back."""
    n = 1
    for d in shape:
        n *= d
    return base[off:off + n].view(*shape)


class Values(unittest.TestCase):
    def test_add_and_relu_are_exact(self):
        for n in SIZES:
            a, b = rand(n), rand(n)
            torch.testing.assert_close(poisoned(ops.add, a, b, out_numel=n), a + b, rtol=0, atol=0)
            torch.testing.assert_close(poisoned(ops.relu, a, out_numel=n), torch.relu(a), rtol=0, atol=0)
        a = rand(7, 5, 3)  # any shape: elementwise
        torch.testing.assert_close(ops.add(a, a), a + a, rtol=0, atol=0)

    def test_the_poison_reaches_the_output(self):
        # The premise of poisoned(): a same-sized allocation right after gets the NaN block.
        for n in (1, 1000, 1 << 20):
            junk = torch.full((n,), float("nan"), device=DEV)
            del junk
            self.assertTrue(bool(torch.isnan(torch.empty(n, device=DEV)).all()), n)

    def test_misaligned_views(self):
        base, other = rand(70000, lo=-8, hi=8), rand(70000)
        for off in (1, 2, 3):  # contiguous views that start off a 16-byte boundary
            a, b = view_at(base, off, 4096), view_at(other, off, 4096)
            torch.testing.assert_close(poisoned(ops.add, a, b, out_numel=4096), a + b, rtol=0, atol=0)
            x = view_at(base, off, 33, 1025)
            torch.testing.assert_close(poisoned(ops.softmax, x, out_numel=x.numel()).double(),
                                       torch.softmax(x.double(), -1), rtol=1e-5, atol=1e-7)
            A, v = view_at(other, off, 37, 1001), view_at(base, off, 1001)
            ref = A.double() @ v.double()
            diff = (poisoned(ops.gemv, A, v, out_numel=37).double() - ref).abs()
            self.assertTrue(bool((diff <= 1e-5 * (A.double().abs() @ v.double().abs()) + 1e-30).all()), off)
            torch.testing.assert_close(poisoned(ops.transpose, A, out_numel=A.numel()), A.t().contiguous(),
                                       rtol=0, atol=0)
            y = view_at(other, off, 65537)
            bound = 40 * 2.0 ** -24 * y.double().abs().sum().item()
            torch.testing.assert_close(poisoned(ops.sum, y, out_numel=1).double(), y.double().sum(), rtol=0,
                                       atol=bound)

    def test_reductions(self):
        for n in SIZES:
            x, y = rand(n), rand(n)
            # Bound of a tree sum in fp32: log2(n) rounding steps of the sum of magnitudes.
            steps = max(1.0, math.log2(n)) + 2
            bound = steps * 2.0 ** -24 * x.double().abs().sum().item()
            torch.testing.assert_close(poisoned(ops.sum, x, out_numel=1).double(), x.double().sum(), rtol=0, atol=bound)
            dbound = steps * 2.0 ** -24 * (x.double() * y.double()).abs().sum().item() * 2
            torch.testing.assert_close(poisoned(ops.dot, x, y, out_numel=1).double(), (x.double() * y.double()).sum(),
                                       rtol=0, atol=dbound)
            torch.testing.assert_close(poisoned(ops.max, x, out_numel=1), x.max(), rtol=0, atol=0)
        self.assertEqual(poisoned(ops.sum, rand(0), out_numel=1).item(), 0.0)

    def test_softmax(self):
        for rows, cols in [(1, 1), (3, 5), (7, 33), (64, 1000), (5, 1025), (17, 4097), (2, 65537), (300, 128)]:
            x = rand(rows, cols, lo=-8, hi=8)
            ref = torch.softmax(x.double(), dim=-1)
            torch.testing.assert_close(poisoned(ops.softmax, x, out_numel=x.numel()).double(), ref, rtol=1e-5, atol=1e-7)
        x = rand(2, 3, 50, lo=-8, hi=8)  # the last dimension of any tensor
        torch.testing.assert_close(ops.softmax(x).double(), torch.softmax(x.double(), -1), rtol=1e-5, atol=1e-7)

    def test_gemv(self):
        for m, k in [(1, 1), (1, 2), (3, 5), (33, 31), (100, 4097), (4097, 3), (2048, 2048)]:
            A, x = rand(m, k), rand(k)
            ref = A.double() @ x.double()
            bound = 1e-5 * (A.double().abs() @ x.double().abs())  # relative to each row's magnitude
            diff = (poisoned(ops.gemv, A, x, out_numel=m).double() - ref).abs()
            self.assertTrue(bool((diff <= bound + 1e-30).all()), f"gemv {m}x{k}: max diff {diff.max().item()}")

    def test_transpose_is_exact(self):
        for r, c in [(1, 1), (1, 7), (7, 1), (33, 17), (1000, 1001), (4096, 4097)]:
            A = rand(r, c)
            torch.testing.assert_close(poisoned(ops.transpose, A, out_numel=A.numel()), A.t().contiguous(), rtol=0, atol=0)

    def test_runs_on_the_current_stream(self):
        # On a side stream, the input is written only after a long sleep: an operator that ran on
        # another stream would read it before the copy (zeros) and fail the comparison.
        s = torch.cuda.Stream()
        a = rand(1 << 22)
        x = torch.zeros_like(a)
        torch.cuda.synchronize()
        with torch.cuda.stream(s):
            torch.cuda._sleep(100_000_000)  # about 50 ms of GPU clock cycles
            x.copy_(a)
            out, total = ops.add(x, x), ops.sum(x)
            prod = ops.gemm(x[:1 << 20].view(1024, 1024), x[:1 << 20].view(1024, 1024))
            o, lse = ops.attention(*(x[:1 << 16].view(1, 1, 1024, 64),) * 3)
        s.synchronize()
        torch.testing.assert_close(out, a + a, rtol=0, atol=0)
        A = a[:1 << 20].view(1024, 1024)
        self.assertTrue(reference.check_gemm(prod, A, A)[0], "gemm on a side stream")
        q = a[:1 << 16].view(1, 1, 1024, 64)
        self.assertTrue(reference.check_attention(o, lse, q, q, q, False)[0], "attention on a side stream")
        torch.testing.assert_close(total.double(), a.double().sum(), rtol=0,
                                   atol=40 * 2.0 ** -24 * a.double().abs().sum().item())


def bf16(t):
    return t.to(torch.bfloat16)


def last(t):
    """The same values in torch.channels_last (NHWC in memory)."""
    return t.contiguous(memory_format=torch.channels_last)


# (N, C, H, W, K, R, S, stride, padding): awkward sizes, every path of the conv2d operator.
CONV_NCHW = [(1, 1, 1, 1, 1, 1, 1, 1, 0), (2, 3, 17, 19, 5, 3, 3, 1, 1), (1, 6, 32, 24, 6, 6, 6, 1, 0),
             (2, 4, 15, 15, 8, 7, 7, 2, 3), (1, 5, 9, 30, 3, 1, 3, 1, 0)]
CONV_NHWC = [(2, 16, 14, 14, 32, 3, 3, 1, 1), (1, 7, 13, 11, 9, 3, 3, 1, 1), (2, 3, 17, 19, 5, 3, 3, 2, 1),
             (1, 8, 9, 9, 4, 1, 1, 1, 0)]
CONV_BF16 = [(2, 16, 14, 14, 32, 3, 3, 1, 1), (2, 64, 12, 12, 64, 3, 3, 1, 1), (1, 8, 9, 9, 24, 1, 1, 1, 0),
             (1, 24, 20, 20, 16, 3, 3, 2, 1), (1, 8, 5, 7, 8, 5, 5, 1, 2),
             (1, 128, 9, 7, 20, 3, 3, 1, 1),  # K % 8 != 0: v12 without its TMA store
             (2, 3, 30, 34, 16, 7, 7, 2, 3), (1, 6, 40, 30, 6, 6, 6, 1, 0)]  # C % 8 != 0: v10's padding
# (B, H, Sq, Sk, D)
ATTN = [(1, 1, 1, 1, 64), (2, 3, 100, 100, 64), (1, 2, 257, 129, 128), (1, 1, 65, 300, 64), (1, 2, 128, 64, 128),
        (1, 2, 1000, 1000, 128)]


class MatrixValues(unittest.TestCase):
    def assertChecked(self, result, what):
        ok, worst = result
        self.assertTrue(ok, f"{what}: worst error {worst:.3g} of the bound")

    def test_gemm_fp32(self):
        for m, n, k in [(1, 1, 1), (3, 5, 7), (33, 65, 17), (128, 256, 64), (1000, 1001, 999), (512, 512, 512)]:
            A, B = rand(m, k), rand(k, n)
            self.assertChecked(reference.check_gemm(poisoned(ops.gemm, A, B, out_numel=m * n), A, B), f"fp32 {m}x{n}x{k}")
            C = rand(m, n)
            got = ops.gemm(A, B, C, alpha=1.5, beta=-0.5)
            self.assertChecked(reference.check_gemm(got, A, B, C, 1.5, -0.5), f"fp32 alpha/beta {m}x{n}x{k}")
        if torch.cuda.get_device_capability() >= (9, 0):  # fp32 accuracy from TF32 wgmma, not FFMA
            self.assertEqual(ops.last_version("tutorial::gemm"), "v22_split_tf32")
        A, B = rand(4, 0), rand(0, 3)  # K = 0: C = beta C
        C = rand(4, 3)
        torch.testing.assert_close(ops.gemm(A, B, C, beta=2.0), 2 * C, rtol=0, atol=0)
        torch.testing.assert_close(ops.gemm(A, B), torch.zeros(4, 3, device=DEV), rtol=0, atol=0)

    def test_gemm_bf16(self):
        # 33 x 65 x 17: K and N not multiples of 8, so v25's TMA path (v20's) copies both operands first.
        # 200 x 264 x 2100: 6 tiles of 33 k-slices, v25's pairs of CTAs (v24's split-K in a cluster).
        for m, n, k in [(64, 64, 64), (256, 512, 128), (100, 72, 40), (33, 65, 17), (1024, 1024, 1024),
                        (200, 264, 2100), (1, 8, 8)]:
            A, B = bf16(rand(m, k)), bf16(rand(k, n))
            got = poisoned(ops.gemm, A, B, out_numel=m * n)
            self.assertEqual(got.dtype, torch.float32)
            self.assertChecked(reference.check_gemm(got, A, B), f"bf16 {m}x{n}x{k}")
            C = rand(m, n)
            self.assertChecked(reference.check_gemm(ops.gemm(A, B, C, alpha=-2.0, beta=0.25), A, B, C, -2.0, 0.25),
                               f"bf16 alpha/beta {m}x{n}x{k}")
        if torch.cuda.get_device_capability() >= (9, 0):  # the Hopper path ran, not the sm_80 fallback
            self.assertEqual(ops.last_version("tutorial::gemm"), "v27_sleeping_waits")
        base = bf16(rand(70000))  # a view that starts 2 bytes off a 16-byte boundary
        A, B = base[1:1 + 64 * 64].view(64, 64), bf16(rand(64, 64))
        self.assertChecked(reference.check_gemm(ops.gemm(A, B), A, B), "bf16 misaligned view")

    def test_conv2d(self):
        cases = [(CONV_NCHW, torch.float32, False), (CONV_NHWC, torch.float32, True), (CONV_BF16, torch.bfloat16, True)]
        for shapes, dtype, nhwc in cases:
            for n, c, h, w, k, r, s, stride, pad in shapes:
                x, wt = rand(n, c, h, w).to(dtype), rand(k, c, r, s).to(dtype)
                if nhwc:
                    x, wt = last(x), last(wt)
                what = f"{dtype} {'NHWC' if nhwc else 'NCHW'} N{n} C{c} {h}x{w} K{k} {r}x{s} s{stride} p{pad}"
                y = poisoned(ops.conv2d, x, wt, [stride, stride], [pad, pad], out_numel=n * k * h * w)
                self.assertEqual(y.is_contiguous(memory_format=torch.channels_last) if nhwc else y.is_contiguous(),
                                 True, what)
                winograd = nhwc and dtype == torch.float32 and (r, s, stride) == (3, 3, 1)
                self.assertChecked(reference.check_conv2d(y, x, wt, stride, pad, winograd), what)
        x, wt = rand(1, 4, 10, 12), rand(3, 4, 3, 2)  # stride and padding per axis
        y = ops.conv2d(x, wt, [2, 1], [1, 0])
        torch.testing.assert_close(y.double(), torch.nn.functional.conv2d(x.double(), wt.double(), stride=(2, 1),
                                                                          padding=(1, 0)), rtol=1e-5, atol=1e-5)

    def test_attention(self):
        for dtype in (torch.float32, torch.bfloat16):
            for b, h, sq, sk, d in ATTN + ([(1, 2, 33, 40, 32), (1, 1, 20, 17, 300)] if dtype == torch.float32 else []):
                for causal in (False, True):
                    q = rand(b, h, sq, d, lo=-2, hi=2).to(dtype)
                    k, v = rand(b, h, sk, d, lo=-2, hi=2).to(dtype), rand(b, h, sk, d).to(dtype)
                    o, lse = poisoned(ops.attention, q, k, v, causal, out_numel=q.numel())
                    self.assertEqual((o.dtype, lse.dtype, tuple(lse.shape)), (dtype, torch.float32, (b, h, sq)))
                    self.assertChecked(reference.check_attention(o, lse, q, k, v, causal),
                                       f"{dtype} B{b} H{h} Sq{sq} Sk{sk} D{d} causal={causal}")
        if torch.cuda.get_device_capability() >= (8, 0):  # fp32 on the tensor cores (split TF32) from sm_80
            ops.attention(*(rand(1, 2, 128, 64) for _ in range(3)), False)
            self.assertEqual(ops.last_version("tutorial::attention"), "v08_split_tf32")
        # torch's own SDPA agrees (its mask is top-left aligned: the same when Sq = Sk).
        q, k, v = (bf16(rand(2, 4, 256, 64)) for _ in range(3))
        o, _ = ops.attention(q, k, v, True)
        if torch.cuda.get_device_capability() >= (9, 0):  # Hopper: v07's tiles here, on v19's persistent grid
            self.assertEqual(ops.last_version("tutorial::attention"), "v26_straight_epilogue")
        torch.testing.assert_close(o, torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True),
                                   rtol=2e-2, atol=2e-2)

    def test_kept_memory_on_two_streams(self):
        # gemm on fp32 (v22: A split into memory kept between calls, and N % 4 != 0: B copied into
        # kept memory; v26 without sm_90a: B padded into kept memory), gemm v25 on bf16 with
        # K % 8 != 0 (A copied into aligned kept memory) and conv2d v06 (filters transformed into
        # kept memory) on two streams at once, each stream first held back by a sleep: tut::Scratch
        # lends the memory in stream order, so every result is right.
        streams = [torch.cuda.Stream(), torch.cuda.Stream()]
        inputs = [(rand(300, 200), rand(200, 333), bf16(rand(256, 203)), bf16(rand(203, 512)),
                   last(rand(2, 16, 14, 14)), last(rand(32, 16, 3, 3))) for _ in streams]
        torch.cuda.synchronize()
        outs = []
        for s, (A, B, A16, B16, x, w) in zip(streams, inputs):
            with torch.cuda.stream(s):
                torch.cuda._sleep(20_000_000)
                outs.append((ops.gemm(A, B), ops.gemm(A16, B16), ops.conv2d(x, w, [1, 1], [1, 1])))
        torch.cuda.synchronize()
        for (A, B, A16, B16, x, w), (g, g16, y) in zip(inputs, outs):
            self.assertChecked(reference.check_gemm(g, A, B), "fp32 gemm on a side stream")
            self.assertChecked(reference.check_gemm(g16, A16, B16), "bf16 gemm on a side stream")
            self.assertChecked(reference.check_conv2d(y, x, w, 1, 1, winograd=True), "conv2d on a side stream")


class Opcheck(unittest.TestCase):
    def test_every_operator(self):
        cases = {
            "add": (rand(1000), rand(1000)), "relu": (rand(1000),), "sum": (rand(1000),),
            "max": (rand(1000),), "dot": (rand(1000), rand(1000)), "softmax": (rand(8, 100),),
            "gemv": (rand(33, 65), rand(65)), "transpose": (rand(33, 65),),
        }
        for name, args in cases.items():
            with self.subTest(op=name):
                torch.library.opcheck(getattr(ops, name).default, args)
        matrix = [
            ("gemm", (rand(33, 17), rand(17, 65)), {}),
            ("gemm", (rand(33, 17), rand(17, 65), rand(33, 65)), {"alpha": 0.5, "beta": 2.0}),
            ("gemm", (bf16(rand(64, 64)), bf16(rand(64, 128))), {}),
            ("conv2d", (rand(2, 3, 17, 19), rand(5, 3, 3, 3), [1, 1], [1, 1]), {}),
            ("conv2d", (last(rand(2, 16, 14, 14)), last(rand(32, 16, 3, 3)), [1, 1], [1, 1]), {}),
            ("conv2d", (last(bf16(rand(1, 8, 9, 9))), last(bf16(rand(16, 8, 3, 3))), [2, 2], [1, 1]), {}),
            ("attention", (rand(1, 2, 40, 64), rand(1, 2, 50, 64), rand(1, 2, 50, 64), True), {}),
            ("attention", tuple(bf16(rand(1, 2, 128, 128)) for _ in range(3)) + (False,), {}),
        ]
        for name, args, kwargs in matrix:
            with self.subTest(op=name, dtype=str(args[0].dtype)):
                torch.library.opcheck(getattr(ops, name).default, args, kwargs)


class BadInputs(unittest.TestCase):
    def assertRaisesWith(self, text, fn, *args):
        with self.assertRaises(RuntimeError) as cm:
            fn(*args)
        self.assertIn(text, str(cm.exception))

    def test_cpu_tensors(self):
        self.assertRaisesWith("CUDA tensors only", ops.add, torch.ones(4), torch.ones(4))
        self.assertRaisesWith("must be a CUDA tensor", ops.add, rand(4), torch.ones(4))

    def test_wrong_dtype(self):
        self.assertRaisesWith("must be float32", ops.relu, rand(4).double())
        self.assertRaisesWith("must be float32", ops.softmax, rand(4, 4).half())

    def test_non_contiguous(self):
        A = rand(8, 6)
        self.assertRaisesWith("must be contiguous", ops.transpose, A.t())
        self.assertRaisesWith("must be contiguous", ops.sum, A[:, ::2])

    def test_shapes(self):
        self.assertRaisesWith("same shape", ops.add, rand(4), rand(5))
        self.assertRaisesWith("M x K", ops.gemv, rand(4, 5), rand(4))
        self.assertRaisesWith("a matrix", ops.transpose, rand(2, 3, 4))
        self.assertRaisesWith("empty tensor", ops.max, rand(0))

    def test_gemm_inputs(self):
        self.assertRaisesWith("M x K and B K x N", ops.gemm, rand(4, 5), rand(4, 5))
        self.assertRaisesWith("same dtype", ops.gemm, rand(4, 4), bf16(rand(4, 4)))
        self.assertRaisesWith("needs C", ops.gemm, rand(4, 4), rand(4, 4), None, 1.0, 1.0)
        self.assertRaisesWith("C must be M x N", ops.gemm, rand(4, 4), rand(4, 4), rand(4, 5), 1.0, 1.0)
        self.assertRaisesWith("must be float32 or BFloat16", ops.gemm, rand(4, 4).half(), rand(4, 4).half())
        self.assertRaisesWith("must be contiguous", ops.gemm, rand(4, 6)[:, ::2], rand(3, 4))
        self.assertRaisesWith("CUDA tensors only", ops.gemm, torch.ones(2, 2), torch.ones(2, 2))

    def test_conv2d_inputs(self):
        x, w = rand(1, 8, 9, 9), rand(4, 8, 3, 3)
        self.assertRaisesWith("channels_last", ops.conv2d, bf16(x), bf16(w))
        self.assertRaisesWith("contiguous (NCHW) or channels_last", ops.conv2d, x[:, :, :, ::2], w)
        self.assertRaisesWith("K x C x R x S", ops.conv2d, x, rand(4, 7, 3, 3))
        self.assertRaisesWith("larger than the padded input", ops.conv2d, rand(1, 8, 2, 2), w)
        self.assertRaisesWith("stride must be at least 1", ops.conv2d, x, w, [0, 1], [0, 0])
        self.assertRaisesWith("CUDA tensors only", ops.conv2d, torch.ones(1, 1, 3, 3), torch.ones(1, 1, 1, 1))

    def test_attention_inputs(self):
        q = rand(1, 2, 8, 64)
        self.assertRaisesWith("B x H x Sk x D", ops.attention, q, rand(1, 2, 8, 32), rand(1, 2, 8, 32))
        self.assertRaisesWith("one dtype", ops.attention, q, bf16(q), bf16(q))
        self.assertRaisesWith("no version", ops.attention, bf16(rand(1, 1, 8, 32)), bf16(rand(1, 1, 8, 32)),
                              bf16(rand(1, 1, 8, 32)))
        self.assertRaisesWith("must be contiguous", ops.attention, q.transpose(1, 2), q, q)


if __name__ == "__main__":
    unittest.main()
