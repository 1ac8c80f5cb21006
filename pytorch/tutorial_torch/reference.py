"""References in float64 and the chapters' error bounds, for the tests, the benchmark and the
example. Each bound is the one the chapter's own checks use (its reference.cpp), written
elementwise: |got - ref| <= bound, with `ref` computed in float64 from the very values the kernel
saw (bf16 inputs are exact in float64), so a bound measures the kernel's arithmetic only.

Every check returns (ok, worst), where worst is the largest |got - ref| / bound (<= 1 passes)."""
import math

import torch

U = 2.0 ** -24  # fp32's unit roundoff


def _within(got, ref, bound):
    """(all |got - ref| <= bound, max of their ratio); non-finite values where ref is finite fail."""
    got = got.double()
    diff = (got - ref).abs()
    ratio = diff / bound.clamp_min(1e-300)
    ok = bool(((diff <= bound) | (got == ref)).all()) and bool(torch.isfinite(got[torch.isfinite(ref)]).all())
    finite = ratio[torch.isfinite(ratio)]
    worst = float(finite.max()) if finite.numel() else 0.0
    return ok, worst if finite.numel() == ratio.numel() else float("inf")


# ----------------------------------------------------------------------------------------------
# gemm (chapters/06_gemm/reference.cpp, tolerance())
# ----------------------------------------------------------------------------------------------
def gemm_ref(A, B, C=None, alpha=1.0, beta=0.0):
    """alpha A B + beta C and its magnitude |alpha| |A| |B| + |beta C| in float64."""
    a, b = A.double(), B.double()
    ref = alpha * (a @ b)
    mag = abs(alpha) * (a.abs() @ b.abs())
    if beta != 0.0:
        ref = ref + beta * C.double()
        mag = mag + abs(beta) * C.double().abs()
    return ref, mag


def check_gemm(got, A, B, C=None, alpha=1.0, beta=0.0):
    """fp32 FFMA: (10 sqrt(K) + 3) u m; bf16 tensor cores: (40 sqrt(K) + 3) u m (m the magnitude)."""
    ref, mag = gemm_ref(A, B, C, alpha, beta)
    sk = math.sqrt(max(A.shape[1], 1))
    factor = 4.0 if A.dtype == torch.bfloat16 else 1.0
    return _within(got, ref, (10.0 * factor * sk + 3.0) * U * mag)


# ----------------------------------------------------------------------------------------------
# conv2d (chapters/07_conv2d/reference.cpp, tolerance())
# ----------------------------------------------------------------------------------------------
def conv2d_ref(x, w, stride, padding):
    """The convolution and its magnitude conv(|x|, |w|) in float64 (NCHW, contiguous)."""
    xd, wd = x.double().contiguous(), w.double().contiguous()
    ref = torch.nn.functional.conv2d(xd, wd, stride=stride, padding=padding)
    mag = torch.nn.functional.conv2d(xd.abs(), wd.abs(), stride=stride, padding=padding)
    return ref, mag


def check_conv2d(got, x, w, stride, padding, winograd=False):
    """fp32: 8 sqrt(L) u m (L = C R S); Winograd F(2x2,3x3) adds 16 u L^1.5 (inputs in (-1, 1));
    bf16 output: 2^-8 |ref| + 32 sqrt(L) u m."""
    ref, mag = conv2d_ref(x, w, stride, padding)
    L = w.shape[1] * w.shape[2] * w.shape[3]
    if x.dtype == torch.bfloat16:
        bound = 2.0 ** -8 * ref.abs() + 32.0 * math.sqrt(L) * U * mag
    else:
        bound = 8.0 * math.sqrt(L) * U * mag + (16.0 * U * L ** 1.5 if winograd else 0.0)
    return _within(got, ref, bound)


# ----------------------------------------------------------------------------------------------
# attention (chapters/08_attention/reference.cpp, tolerances())
# ----------------------------------------------------------------------------------------------
def attention_ref(q, k, v, causal):
    """O, lse and the magnitude sum_j p_j |v_j| in float64; the causal mask is bottom-right aligned
    (query i sees key j iff j <= i + Sk - Sq); a row that sees no key has O = 0, lse = -inf."""
    qd, kd, vd = q.double(), k.double(), v.double()
    sq, sk, d = q.shape[-2], k.shape[-2], q.shape[-1]
    s = (qd @ kd.transpose(-1, -2)) * (1.0 / math.sqrt(d))
    if causal:
        i = torch.arange(sq, device=q.device).view(-1, 1)
        j = torch.arange(sk, device=q.device).view(1, -1)
        s = s.masked_fill(j > i + (sk - sq), float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse.unsqueeze(-1)).nan_to_num(0.0)  # rows with no key: all zero
    return p @ vd, lse, p @ vd.abs()


def attention_bounds(q, k, v):
    """(rtol of O over its magnitude, atol of O, atol of lse) from the chapter's model."""
    d, n = q.shape[-1], k.shape[-2]
    a = (1.0 / math.sqrt(d)) * d * float(q.double().abs().max()) * float(k.double().abs().max())
    e_score = (2.0 * d + 8.0) * U * a
    e_p = 2.0 * e_score + 2.0 * U * a + 8.0 * U
    e_sum = (6.0 * n + 8.0) * U
    rtol = 2.0 * e_p + 2.0 * e_sum + 4.0 * U + (2.0 ** -7 if q.dtype == torch.bfloat16 else 0.0)
    atol = n * 2.0 ** -126 * float(v.double().abs().max())
    e_lse = e_score + e_sum + 4.0 * U * a + 8.0 * U * (1.0 + math.log(n))
    return rtol, atol, e_lse


def check_attention(o, lse, q, k, v, causal):
    """O within rtol * magnitude + atol, lse within its bound; rows that see no key exactly 0 / -inf."""
    ref_o, ref_lse, mag = attention_ref(q, k, v, causal)
    rtol, atol, e_lse = attention_bounds(q, k, v)
    ok_o, worst_o = _within(o, ref_o, rtol * mag + atol)
    empty = torch.isinf(ref_lse)
    ok_empty = bool((lse[empty] == float("-inf")).all()) and bool((o[empty] == 0).all())
    ok_l, worst_l = _within(lse[~empty], ref_lse[~empty], torch.full_like(ref_lse[~empty], e_lse))
    return ok_o and ok_l and ok_empty, max(worst_o, worst_l)


# ----------------------------------------------------------------------------------------------
# chapters 01-05
# ----------------------------------------------------------------------------------------------
def check_sum(got, x, order="tree"):
    """A sum of n floats: tree order (log2 n + 2) u sum|x|; any order (the exercise's atomics)
    min(n, 6 sqrt(n)) u sum|x|."""
    n = max(x.numel(), 1)
    steps = (max(1.0, math.log2(n)) + 2) if order == "tree" else min(n, 6.0 * math.sqrt(n))
    ref = x.double().sum()
    return _within(got.reshape(()), ref, torch.tensor(steps * U * float(x.double().abs().sum()) + 1e-300,
                                                      dtype=torch.float64, device=x.device))


def check_softmax(got, x):
    ref = torch.softmax(x.double(), dim=-1)
    return _within(got, ref, 1e-5 * ref.abs() + 1e-7)


def check_gemv(got, A, x):
    ref = A.double() @ x.double()
    return _within(got, ref, 1e-5 * (A.double().abs() @ x.double().abs()) + 1e-30)
