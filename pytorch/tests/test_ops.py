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
        s.synchronize()
        torch.testing.assert_close(out, a + a, rtol=0, atol=0)
        torch.testing.assert_close(total.double(), a.double().sum(), rtol=0,
                                   atol=40 * 2.0 ** -24 * a.double().abs().sum().item())


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
