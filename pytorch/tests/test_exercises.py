"""Each chapter's exercise called from torch: tutorial::exercise_<chapter> (your kernel, built from
exercises/) or, with TUTORIAL_TORCH_WHICH=solution, tutorial::solution_<chapter>, against a float64
reference with the chapter's bound (tutorial_torch/reference.py), on sizes that hit every edge of
the exercise's contract. One test per chapter, so a student can run one:

    ctest --test-dir build -R pytorch_exercises -V                  # all eight, after a rebuild
    python3 -m unittest test_exercises.Exercises.test_gemm          # from pytorch/tests

Untouched skeletons fail here, as they do in `python3 tools/exercise.py <chapter>`.
Exits 77 (skipped) without a GPU."""
import os
import sys
import unittest

import torch

if not torch.cuda.is_available():
    print("SKIPPED: no CUDA device")
    sys.exit(77)

import tutorial_torch  # noqa: E402
from tutorial_torch import reference  # noqa: E402

WHICH = os.environ.get("TUTORIAL_TORCH_WHICH", "exercise")
ops = tutorial_torch.load_exercises(WHICH)
DEV = "cuda"


def op(chapter):
    return getattr(ops, f"{WHICH}_{chapter}")


def rand(*shape, lo=-1.0, hi=1.0):
    return torch.empty(*shape, device=DEV).uniform_(lo, hi)


def poisoned(fn, *args, out_numel):
    """fn(*args) with its output allocated where a block of NaN was just freed (see test_ops.py)."""
    junk = torch.full((max(out_numel, 1),), float("nan"), device=DEV)
    del junk
    return fn(*args)


class Exercises(unittest.TestCase):
    def check(self, result, what):
        ok, worst = result
        self.assertTrue(ok, f"{WHICH}: {what}: worst error {worst:.3g} of the bound (> 1 fails)")

    def test_elementwise(self):
        for n in (1, 3, 4, 5, 1000, 4097, 1 << 20):
            a, b = rand(n), rand(n)
            torch.testing.assert_close(poisoned(op("elementwise"), a, b, out_numel=n), a + b, rtol=0, atol=0)

    def test_reduce(self):
        for n in (1, 31, 32, 1000, 4097, 1 << 20):
            for threads in (32, 256, 1024):
                x = rand(n)
                self.check(reference.check_sum(op("reduce")(x, threads), x, order="any"), f"n={n} threads={threads}")
        self.assertEqual(op("reduce")(rand(0)).item(), 0.0)

    def test_softmax(self):
        for rows, cols in [(1, 1), (3, 5), (7, 33), (64, 1000), (5, 1025), (2, 65537)]:
            x = rand(rows, cols, lo=-8, hi=8)
            self.check(reference.check_softmax(poisoned(op("softmax"), x, out_numel=x.numel()), x), f"{rows}x{cols}")

    def test_gemv(self):
        base = rand(500000)
        for m, k in [(1, 1), (3, 5), (33, 31), (100, 4097), (4097, 3)]:
            A, x = rand(m, k), rand(k)
            self.check(reference.check_gemv(poisoned(op("gemv"), A, x, out_numel=m), A, x), f"{m}x{k}")
            A1 = base[1:1 + m * k].view(m, k)  # rows off 16-byte boundaries
            self.check(reference.check_gemv(op("gemv")(A1, x), A1, x), f"{m}x{k} unaligned")

    def test_transpose(self):
        for r, c in [(1, 1), (1, 7), (7, 1), (33, 17), (1000, 1001)]:
            A = rand(r, c)
            torch.testing.assert_close(poisoned(op("transpose"), A, out_numel=A.numel()), A.t().contiguous(),
                                       rtol=0, atol=0)

    def test_gemm(self):
        for m, n, k in [(1, 1, 1), (3, 5, 7), (129, 130, 9), (128, 128, 8), (300, 257, 513)]:
            A, B, C = rand(m, k), rand(k, n), rand(m, n)
            self.check(reference.check_gemm(poisoned(op("gemm"), A, B, out_numel=m * n), A, B), f"{m}x{n}x{k}")
            self.check(reference.check_gemm(op("gemm")(A, B, C, 0.5, -1.5), A, B, C, 0.5, -1.5),
                       f"{m}x{n}x{k} alpha/beta")

    def test_conv2d(self):
        for n, c, h, w, k, r, s, stride, pad in [(1, 1, 1, 1, 1, 1, 1, 1, 0), (2, 3, 17, 19, 5, 3, 3, 1, 1),
                                                  (1, 4, 15, 15, 8, 7, 7, 2, 3), (1, 2, 40, 33, 3, 5, 3, 1, 2)]:
            x, wt = rand(n, c, h, w), rand(k, c, r, s)
            y = poisoned(op("conv2d"), x, wt, [stride, stride], [pad, pad], out_numel=n * k * h * w)
            self.check(reference.check_conv2d(y, x, wt, stride, pad), f"N{n} C{c} {h}x{w} K{k} {r}x{s}")

    def test_attention(self):
        for b, h, sq, sk, d in [(1, 1, 1, 1, 64), (2, 3, 100, 100, 64), (1, 2, 65, 130, 128), (1, 2, 128, 64, 128)]:
            for causal in (False, True):
                q, k, v = rand(b, h, sq, d, lo=-2, hi=2), rand(b, h, sk, d, lo=-2, hi=2), rand(b, h, sk, d)
                o, lse = poisoned(op("attention"), q, k, v, causal, out_numel=q.numel())
                self.check(reference.check_attention(o, lse, q, k, v, causal),
                           f"B{b} H{h} Sq{sq} Sk{sk} D{d} causal={causal}")


if __name__ == "__main__":
    unittest.main()
