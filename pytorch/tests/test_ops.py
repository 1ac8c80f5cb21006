"""The tutorial's PyTorch operators against torch's own: values (torch.testing.assert_close over
each chapter's awkward sizes, against a float64 reference with the chapter's kind of bound),
torch.library.opcheck on every operator, and bad inputs raising. Exits 77 (skipped) without a GPU."""
import math
import sys
import unittest

import torch

if not torch.cuda.is_available():
    print("SKIPPED: no CUDA device")
    sys.exit(77)

import tutorial_torch  # noqa: E402

ops = tutorial_torch.load()
DEV = "cuda"
SIZES = [1, 2, 3, 4, 5, 31, 32, 33, 127, 1000, 4097, 65537, 1 << 20]


def rand(*shape, lo=-1.0, hi=1.0):
    return torch.empty(*shape, device=DEV).uniform_(lo, hi)


class Values(unittest.TestCase):
    def test_add_and_relu_are_exact(self):
        for n in SIZES:
            a, b = rand(n), rand(n)
            torch.testing.assert_close(ops.add(a, b), a + b, rtol=0, atol=0)
            torch.testing.assert_close(ops.relu(a), torch.relu(a), rtol=0, atol=0)
        a = rand(7, 5, 3)  # any shape: elementwise
        torch.testing.assert_close(ops.add(a, a), a + a, rtol=0, atol=0)

    def test_misaligned_views_add(self):
        base = rand(4100)
        for off in (1, 2, 3):  # contiguous views that start off a 16-byte boundary
            a, b = base[off:off + 4096], base[:4096]
            torch.testing.assert_close(ops.add(a, b), a + b, rtol=0, atol=0)

    def test_reductions(self):
        for n in SIZES:
            x, y = rand(n), rand(n)
            # Bound of a tree sum in fp32: log2(n) rounding steps of the sum of magnitudes.
            steps = max(1.0, math.log2(n)) + 2
            bound = steps * 2.0 ** -24 * x.double().abs().sum().item()
            torch.testing.assert_close(ops.sum(x).double(), x.double().sum(), rtol=0, atol=bound)
            dbound = steps * 2.0 ** -24 * (x.double() * y.double()).abs().sum().item() * 2
            torch.testing.assert_close(ops.dot(x, y).double(), (x.double() * y.double()).sum(), rtol=0, atol=dbound)
            torch.testing.assert_close(ops.max(x), x.max(), rtol=0, atol=0)
        self.assertEqual(ops.sum(rand(0)).item(), 0.0)

    def test_softmax(self):
        for rows, cols in [(1, 1), (3, 5), (7, 33), (64, 1000), (5, 1025), (17, 4097), (2, 65537), (300, 128)]:
            x = rand(rows, cols, lo=-8, hi=8)
            ref = torch.softmax(x.double(), dim=-1)
            torch.testing.assert_close(ops.softmax(x).double(), ref, rtol=1e-5, atol=1e-7)
        x = rand(2, 3, 50, lo=-8, hi=8)  # the last dimension of any tensor
        torch.testing.assert_close(ops.softmax(x).double(), torch.softmax(x.double(), -1), rtol=1e-5, atol=1e-7)

    def test_gemv(self):
        for m, k in [(1, 1), (1, 2), (3, 5), (33, 31), (100, 4097), (4097, 3), (2048, 2048)]:
            A, x = rand(m, k), rand(k)
            ref = A.double() @ x.double()
            bound = 1e-5 * (A.double().abs() @ x.double().abs())  # relative to each row's magnitude
            diff = (ops.gemv(A, x).double() - ref).abs()
            self.assertTrue(bool((diff <= bound + 1e-30).all()), f"gemv {m}x{k}: max diff {diff.max().item()}")

    def test_transpose_is_exact(self):
        for r, c in [(1, 1), (1, 7), (7, 1), (33, 17), (1000, 1001), (4096, 4097)]:
            A = rand(r, c)
            torch.testing.assert_close(ops.transpose(A), A.t().contiguous(), rtol=0, atol=0)

    def test_runs_on_the_current_stream(self):
        s = torch.cuda.Stream()
        a = rand(1 << 20)
        torch.cuda.synchronize()
        with torch.cuda.stream(s):
            out = ops.add(a, a)
        s.synchronize()
        torch.testing.assert_close(out, a + a, rtol=0, atol=0)


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


if __name__ == "__main__":
    unittest.main()
