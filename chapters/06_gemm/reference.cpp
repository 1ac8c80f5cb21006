// The CPU reference (double precision, full or sampled), the tolerances, and small helpers
// shared by the executable, the tests and the exercise's checker.
#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/compare.hpp"
#include "common/random.hpp"
#include "gemm.hpp"

namespace gemm {

namespace {

/// Runs fn(begin, end) over [0, n) split into contiguous chunks, one per CPU thread (each item
/// is a row or an output: worth a thread of its own).
void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& fn) {
  tut::parallel_for(n, [&](std::size_t, std::size_t begin, std::size_t end) { fn(begin, end); }, 1);
}

}  // namespace

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::tf32: return "tf32";
    case Precision::bf16: return "bf16";
  }
  return "?";
}

double gemm_flops(const Shape& s) {
  return 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
}

tut::Tolerance tolerance(Precision p, std::int64_t k) {
  // Every bound is relative to the element's magnitude m = |alpha| sum_k |a_ik b_kj| + |beta c0_ij|
  // (u = 2^-24). A dot product of K terms summed in ANY order (a chain, a tree, split slices)
  // errs by at most about K u sum |terms|: each of its K roundings (fewer with FMA) errs by at
  // most u times a partial sum, and every partial sum is at most sum |terms| (Higham, "Accuracy
  // and Stability of Numerical Algorithms", 3.1). Safe, but at K = 8192 that bound (~5e-4 m)
  // would let a whole missing product through. The errors of round-to-nearest are of mean zero
  // and independent in practice, and then the error is at most lambda sqrt(K) u sum |terms| with
  // probability at least 1 - 2K exp(-lambda^2 / 2) (Higham and Mary, SIAM J. Sci. Comput. 2019,
  // Theorem 3.1): lambda = 10 makes a false alarm a 1e-18 event per element, and for K <= 100
  // (10 sqrt(K) >= K) the bound is the deterministic one. The epilogue alpha * acc + beta * c0
  // adds two roundings of at most u m each, + 1 for second-order terms: 3u.
  // The normwise error averages many elements, so it sits near its mean, which the same model
  // bounds by sqrt(K) u (K roundings of mean zero, each at most u m): (sqrt(K) + 3) u. For our
  // zero-mean inputs the measured error is far smaller (about 0.5 u m), so both still catch a
  // single wrong product, a dropped k-slice or TF32 inputs in an fp32 kernel (~5e-4 / sqrt(K) m).
  constexpr double kLambda = 10.0;
  const double u = std::ldexp(1.0, -24);
  const double sk = std::sqrt(static_cast<double>(std::max<std::int64_t>(k, 1)));
  tut::Tolerance t;
  t.atol = 0.0;  // m = 0 (alpha = 0 or K = 0, and beta = 0) leaves an exact 0: nothing to round
  if (p == Precision::fp32) {
    t.rtol = (kLambda * sk + 3.0) * u;
    t.max_rel_norm = (sk + 3.0) * u;
    t.why = "fp32 accumulation of K products in any order: per element (10 sqrt(K) + 3) u * m, in norm "
            "(sqrt(K) + 3) u * ||m||, m = |alpha| sum|a b| + |beta c0| (probabilistic bound, Higham-Mary 2019)";
  } else {
    // Tensor cores multiply TF32/BF16 values exactly (their products fit in fp32), but they may
    // truncate instead of round, and align the addends of one instruction to the largest before
    // summing: truncation's errors do not average out as well, so we allow 4x the fp32 factor in
    // both bounds. A real bug (a dropped k-slice, a BF16 accumulator, 2^-9 per step) is far above
    // them. Input rounding (about 1e-3 for TF32, 3e-3 for BF16) is not part of this error: the
    // reference uses the rounded inputs.
    t.rtol = (4.0 * kLambda * sk + 3.0) * u;
    t.max_rel_norm = (4.0 * sk + 3.0) * u;
    t.why = std::string(precision_name(p)) +
            " inputs (reference on the same rounded inputs), fp32 tensor-core accumulation: per element "
            "(40 sqrt(K) + 3) u * m, in norm (4 sqrt(K) + 3) u * ||m||, m = |alpha| sum|a b| + |beta c0|";
  }
  return t;
}

float round_to_bf16(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }

std::vector<double> reference_gemm(const Shape& s, float alpha, const float* a, const float* b, float beta,
                                   const float* c0, std::vector<double>* magnitude) {
  const std::size_t m = static_cast<std::size_t>(s.m), n = static_cast<std::size_t>(s.n),
                    k = static_cast<std::size_t>(s.k);
  std::vector<double> out(m * n);
  if (magnitude != nullptr) magnitude->assign(m * n, 0.0);
  constexpr std::size_t kRows = 4;  // rows per pass: each row of B read once serves 4 rows of C
  const std::size_t blocks = (m + kRows - 1) / kRows;
  parallel_for(blocks, [&](std::size_t first, std::size_t last) {
    std::vector<double> acc(kRows * n), mag(magnitude != nullptr ? kRows * n : 0);  // sum a b, sum |a b|
    for (std::size_t blk = first; blk < last; ++blk) {
      const std::size_t i0 = blk * kRows, rows = std::min(kRows, m - i0);
      std::fill(acc.begin(), acc.end(), 0.0);
      std::fill(mag.begin(), mag.end(), 0.0);
      for (std::size_t p = 0; p < k; ++p) {  // i-k-j order: the inner loop streams a row of B
        const float* b_row = b + p * n;
        for (std::size_t r = 0; r < rows; ++r) {
          const double a_ip = a[(i0 + r) * k + p];
          double* acc_row = acc.data() + r * n;
          if (magnitude == nullptr) {
            for (std::size_t j = 0; j < n; ++j) acc_row[j] += a_ip * static_cast<double>(b_row[j]);
            continue;
          }
          const double abs_a = std::fabs(a_ip);
          double* mag_row = mag.data() + r * n;
          for (std::size_t j = 0; j < n; ++j) {
            const double b_pj = b_row[j];
            acc_row[j] += a_ip * b_pj;
            mag_row[j] += abs_a * std::fabs(b_pj);
          }
        }
      }
      for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t j = 0; j < n; ++j) {
          const std::size_t idx = (i0 + r) * n + j;
          double v = static_cast<double>(alpha) * acc[r * n + j];
          if (beta != 0.0f) v += static_cast<double>(beta) * static_cast<double>(c0[idx]);
          out[idx] = v;
          if (magnitude == nullptr) continue;
          double size = std::fabs(static_cast<double>(alpha)) * mag[r * n + j];
          if (beta != 0.0f) size += std::fabs(static_cast<double>(beta) * static_cast<double>(c0[idx]));
          (*magnitude)[idx] = size;
        }
      }
    }
  });
  return out;
}

double reference_element(const Shape& s, std::int64_t i, std::int64_t j, float alpha, const float* a,
                         const float* b_col, float beta, const float* c0, double* magnitude) {
  const float* a_row = a + static_cast<std::size_t>(i) * static_cast<std::size_t>(s.k);
  double acc = 0.0, mag = 0.0;
  for (std::int64_t p = 0; p < s.k; ++p) {
    const double term = static_cast<double>(a_row[p]) * static_cast<double>(b_col[p]);
    acc += term;
    mag += std::fabs(term);
  }
  double v = static_cast<double>(alpha) * acc;
  double size = std::fabs(static_cast<double>(alpha)) * mag;
  if (beta != 0.0f) {
    const double bc = static_cast<double>(beta) *
                      static_cast<double>(c0[static_cast<std::size_t>(i) * static_cast<std::size_t>(s.n) + static_cast<std::size_t>(j)]);
    v += bc;
    size += std::fabs(bc);
  }
  if (magnitude != nullptr) *magnitude = size;
  return v;
}

std::vector<std::size_t> sample_indices(const Shape& s, std::uint64_t seed, std::size_t random_count) {
  const std::size_t m = static_cast<std::size_t>(s.m), n = static_cast<std::size_t>(s.n);
  std::vector<std::size_t> idx;
  if (m == 0 || n == 0) return idx;
  // Positions along a line of `len` elements: all of them when short, else 512 evenly spaced
  // plus the last 160 (a partial edge tile of up to 128 or 256 elements is fully covered).
  const auto line = [](std::size_t len) {
    std::vector<std::size_t> pos;
    if (len <= 672) {
      for (std::size_t x = 0; x < len; ++x) pos.push_back(x);
      return pos;
    }
    for (std::size_t q = 0; q < 512; ++q) pos.push_back(q * (len - 1) / 511);
    for (std::size_t x = len - 160; x < len; ++x) pos.push_back(x);
    return pos;
  };
  for (std::size_t j : line(n)) {
    idx.push_back(j);                  // row 0
    idx.push_back((m - 1) * n + j);    // row m - 1
  }
  for (std::size_t i : line(m)) {
    idx.push_back(i * n);              // column 0
    idx.push_back(i * n + n - 1);      // column n - 1
  }
  for (std::size_t r = 0; r < random_count; ++r) {
    const std::uint64_t h = tut::mix64(seed ^ tut::mix64(r + 1));
    idx.push_back(static_cast<std::size_t>(h % m) * n + static_cast<std::size_t>((h >> 32) % n));
  }
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  return idx;
}

Reference make_reference(const Shape& s, float alpha, const float* a, const float* b, float beta, const float* c0,
                         std::uint64_t seed, double full_macs) {
  Reference ref;
  const double mn = static_cast<double>(s.m) * static_cast<double>(s.n);
  if (mn * static_cast<double>(s.k) <= full_macs && mn <= 67108864.0) {
    ref.full = true;
    ref.value = reference_gemm(s, alpha, a, b, beta, c0, &ref.magnitude);
    return ref;
  }
  ref.full = false;
  ref.index = sample_indices(s, seed);
  // B transposed (n x k), so that every sampled element is a dot product of two contiguous rows.
  const std::size_t n = static_cast<std::size_t>(s.n), k = static_cast<std::size_t>(s.k);
  std::vector<float> bt(n * k);
  constexpr std::size_t kTile = 64;
  parallel_for((k + kTile - 1) / kTile, [&](std::size_t first, std::size_t last) {
    for (std::size_t pt = first; pt < last; ++pt) {
      const std::size_t p1 = std::min(k, (pt + 1) * kTile);
      for (std::size_t j0 = 0; j0 < n; j0 += kTile) {
        const std::size_t j1 = std::min(n, j0 + kTile);
        for (std::size_t p = pt * kTile; p < p1; ++p)
          for (std::size_t j = j0; j < j1; ++j) bt[j * k + p] = b[p * n + j];
      }
    }
  });
  ref.value.resize(ref.index.size());
  ref.magnitude.resize(ref.index.size());
  parallel_for(ref.index.size(), [&](std::size_t first, std::size_t last) {
    for (std::size_t q = first; q < last; ++q) {
      const std::int64_t i = static_cast<std::int64_t>(ref.index[q] / n), j = static_cast<std::int64_t>(ref.index[q] % n);
      ref.value[q] = reference_element(s, i, j, alpha, a, bt.data() + static_cast<std::size_t>(j) * k, beta, c0,
                                       &ref.magnitude[q]);
    }
  });
  return ref;
}

tut::ErrorStats check_output(const Reference& ref, const float* got, const tut::Tolerance& tol) {
  if (ref.magnitude.size() != ref.value.size()) {
    throw std::invalid_argument("gemm::check_output: the reference has no magnitudes (use make_reference)");
  }
  if (ref.full) {
    return tut::parallel_check(ref.value.size(), [&](std::size_t begin, std::size_t end, tut::ErrorStats& st) {
      for (std::size_t i = begin; i < end; ++i) st.add(i, got[i], ref.value[i], ref.magnitude[i], tol);
    });
  }
  return tut::parallel_check(ref.index.size(), [&](std::size_t begin, std::size_t end, tut::ErrorStats& st) {
    for (std::size_t q = begin; q < end; ++q) st.add(ref.index[q], got[ref.index[q]], ref.value[q], ref.magnitude[q], tol);
  });
}

std::string format_index(std::size_t index, std::int64_t n) {
  const std::size_t un = static_cast<std::size_t>(std::max<std::int64_t>(n, 1));
  return "row " + std::to_string(index / un) + ", col " + std::to_string(index % un);
}

}  // namespace gemm
