// The CPU reference (double precision, full or sampled), the tolerances, and small helpers
// shared by the launchers, the executable and the tests.
#include <algorithm>
#include <climits>
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

void check_dims(std::int64_t m, std::int64_t n, std::int64_t k) {
  if (m < 0 || n < 0 || k < 0) throw std::invalid_argument("gemm: negative dimension");
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX) {
    throw std::invalid_argument("gemm: dimensions above 2^31 - 1 are not supported (m=" + std::to_string(m) +
                                ", n=" + std::to_string(n) + ", k=" + std::to_string(k) + ")");
  }
}

dim3 tile_grid(std::int64_t m, std::int64_t n, int block_m, int block_n) {
  const std::int64_t tiles_m = (m + block_m - 1) / block_m;
  const std::int64_t tiles_n = (n + block_n - 1) / block_n;
  if (tiles_m > 65535) {
    throw std::invalid_argument("gemm: m = " + std::to_string(m) + " needs " + std::to_string(tiles_m) +
                                " row tiles of " + std::to_string(block_m) + ", above CUDA's gridDim.y limit of 65535");
  }
  if (tiles_n > INT_MAX) throw std::invalid_argument("gemm: n too large for the grid");
  return dim3(static_cast<unsigned>(std::max<std::int64_t>(tiles_n, 1)),
              static_cast<unsigned>(std::max<std::int64_t>(tiles_m, 1)));
}

tut::Tolerance tolerance(Precision p, std::int64_t k, float alpha, float beta) {
  // Inputs are uniform in [-1, 1), so each product a_ik b_kj has standard deviation 1/3 and the
  // running sum s_k of the dot product is a random walk with |s_k| <= sqrt(k) (3 sigma). An fp32
  // accumulation rounds s_k once per step, erring by at most u |s_k| (u = 2^-24), so the whole
  // dot product errs by at most sum_k u sqrt(k) <= u K^1.5. The epilogue alpha * acc + beta * c0
  // adds at most two roundings: u |beta c0| (|c0| < 1) and u |result|.
  const double u = std::ldexp(1.0, -24);
  const double kd = static_cast<double>(std::max<std::int64_t>(k, 1));
  const double dot_bound = std::fabs(static_cast<double>(alpha)) * u * kd * std::sqrt(kd);
  const double beta_bound = 2.0 * u * std::fabs(static_cast<double>(beta));
  tut::Tolerance t;
  t.rtol = 2.0 * u;
  if (p == Precision::fp32) {
    t.max_rel_norm = 1e-5;
    t.atol = dot_bound + beta_bound;
    t.why = "fp32 accumulation: per element u |alpha| K^1.5 (the running sum of K products of [-1,1) inputs, "
            "rounded K times) + 2u |beta| + 2u |ref|; in norm 1e-5, ~5x the typical 0.4 u sqrt(K) at K = 8192";
  } else {
    // Tensor cores multiply TF32/BF16 values exactly (their products fit in fp32), but they may
    // truncate instead of round, and align the addends of one instruction to the largest before
    // summing: we allow 4x the fp32 element bound. In norm 5e-4: accumulation errors stay near
    // 1e-5..1e-4 even at K = 8192, while a real bug (a dropped k-slice, a BF16 accumulator,
    // inputs rounded twice) costs 1e-3 or more. The reference uses the rounded inputs, so input
    // rounding (about 1e-3 for TF32, 3e-3 for BF16) is not part of this error.
    t.max_rel_norm = 5e-4;
    t.atol = 4.0 * dot_bound + beta_bound;
    t.why = std::string(precision_name(p)) +
            " inputs (reference on the same rounded inputs), fp32 tensor-core accumulation: per element "
            "4 u |alpha| K^1.5 + 2u |beta| + 2u |ref|; in norm 5e-4";
  }
  return t;
}

float round_to_bf16(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }

std::vector<double> reference_gemm(const Shape& s, float alpha, const float* a, const float* b, float beta,
                                   const float* c0) {
  const std::size_t m = static_cast<std::size_t>(s.m), n = static_cast<std::size_t>(s.n),
                    k = static_cast<std::size_t>(s.k);
  std::vector<double> out(m * n);
  constexpr std::size_t kRows = 4;  // rows per pass: each row of B read once serves 4 rows of C
  const std::size_t blocks = (m + kRows - 1) / kRows;
  parallel_for(blocks, [&](std::size_t first, std::size_t last) {
    std::vector<double> acc(kRows * n);
    for (std::size_t blk = first; blk < last; ++blk) {
      const std::size_t i0 = blk * kRows, rows = std::min(kRows, m - i0);
      std::fill(acc.begin(), acc.end(), 0.0);
      for (std::size_t p = 0; p < k; ++p) {  // i-k-j order: the inner loop streams a row of B
        const float* b_row = b + p * n;
        for (std::size_t r = 0; r < rows; ++r) {
          const double a_ip = a[(i0 + r) * k + p];
          double* acc_row = acc.data() + r * n;
          for (std::size_t j = 0; j < n; ++j) acc_row[j] += a_ip * static_cast<double>(b_row[j]);
        }
      }
      for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t j = 0; j < n; ++j) {
          const std::size_t idx = (i0 + r) * n + j;
          double v = static_cast<double>(alpha) * acc[r * n + j];
          if (beta != 0.0f) v += static_cast<double>(beta) * static_cast<double>(c0[idx]);
          out[idx] = v;
        }
      }
    }
  });
  return out;
}

double reference_element(const Shape& s, std::int64_t i, std::int64_t j, float alpha, const float* a,
                         const float* b_col, float beta, const float* c0) {
  const float* a_row = a + static_cast<std::size_t>(i) * static_cast<std::size_t>(s.k);
  double acc = 0.0;
  for (std::int64_t p = 0; p < s.k; ++p) acc += static_cast<double>(a_row[p]) * static_cast<double>(b_col[p]);
  double v = static_cast<double>(alpha) * acc;
  if (beta != 0.0f) {
    v += static_cast<double>(beta) *
         static_cast<double>(c0[static_cast<std::size_t>(i) * static_cast<std::size_t>(s.n) + static_cast<std::size_t>(j)]);
  }
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
    ref.value = reference_gemm(s, alpha, a, b, beta, c0);
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
  parallel_for(ref.index.size(), [&](std::size_t first, std::size_t last) {
    for (std::size_t q = first; q < last; ++q) {
      const std::int64_t i = static_cast<std::int64_t>(ref.index[q] / n), j = static_cast<std::int64_t>(ref.index[q] % n);
      ref.value[q] = reference_element(s, i, j, alpha, a, bt.data() + static_cast<std::size_t>(j) * k, beta, c0);
    }
  });
  return ref;
}

tut::ErrorStats check_output(const Reference& ref, const float* got, const tut::Tolerance& tol) {
  if (ref.full) {
    return tut::parallel_check(ref.value.size(), [&](std::size_t begin, std::size_t end, tut::ErrorStats& st) {
      for (std::size_t i = begin; i < end; ++i) st.add(i, got[i], ref.value[i], tol);
    });
  }
  return tut::parallel_check(ref.index.size(), [&](std::size_t begin, std::size_t end, tut::ErrorStats& st) {
    for (std::size_t q = begin; q < end; ++q) st.add(ref.index[q], got[ref.index[q]], ref.value[q], tol);
  });
}

std::string format_index(std::size_t index, std::int64_t n) {
  const std::size_t un = static_cast<std::size_t>(std::max<std::int64_t>(n, 1));
  return "row " + std::to_string(index / un) + ", col " + std::to_string(index % un);
}

}  // namespace gemm
