// CPU references (double precision), the tolerance and the check, and the host-side launch
// planning helpers shared by the versions.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/random.hpp"
#include "gemv.hpp"

namespace gemv {

namespace {

/// Runs fn(begin, end) over [0, n) split across the CPU's threads (one chunk when n is small).
void parallel_for(std::int64_t n, std::int64_t min_per_thread,
                  const std::function<void(std::int64_t, std::int64_t)>& fn) {
  const std::int64_t hw = std::max(1u, std::thread::hardware_concurrency());
  const std::int64_t workers = std::max<std::int64_t>(1, std::min(hw, n / std::max<std::int64_t>(1, min_per_thread)));
  const std::int64_t per = (n + workers - 1) / workers;
  std::vector<std::thread> threads;
  for (std::int64_t w = 1; w < workers; ++w) {
    const std::int64_t begin = std::min(n, w * per), end = std::min(n, (w + 1) * per);
    threads.emplace_back(fn, begin, end);
  }
  fn(0, std::min(n, per));
  for (auto& t : threads) t.join();
}

/// The reference of `op`, where a(i, k) returns element (i, k) of A and xv holds x.
template <class ElementOfA>
Reference compute_reference(Op op, const ElementOfA& a, const std::vector<double>& xv, std::int64_t M,
                            std::int64_t K) {
  Reference ref;
  const std::int64_t n_out = y_length(op, M, K);
  ref.length = op == Op::Ax ? K : M;
  ref.y.assign(static_cast<std::size_t>(n_out), 0.0);
  ref.abs_sum.assign(static_cast<std::size_t>(n_out), 0.0);
  if (op == Op::Ax) {
    // y_i = sum_k a_ik x_k: each thread takes a range of rows.
    parallel_for(M, std::max<std::int64_t>(1, (1 << 16) / K), [&](std::int64_t r0, std::int64_t r1) {
      for (std::int64_t i = r0; i < r1; ++i) {
        double s = 0.0, s_abs = 0.0;
        for (std::int64_t k = 0; k < K; ++k) {
          const double p = a(i, k) * xv[static_cast<std::size_t>(k)];  // exact: 24 x 24 bits < 53
          s += p;
          s_abs += std::fabs(p);
        }
        ref.y[static_cast<std::size_t>(i)] = s;
        ref.abs_sum[static_cast<std::size_t>(i)] = s_abs;
      }
    });
  } else {
    // y_j = sum_i a_ij x_i: each thread takes a range of columns and walks every row (its
    // columns of one row are contiguous, so the walk stays cache friendly).
    parallel_for(K, std::max<std::int64_t>(1, (1 << 16) / M), [&](std::int64_t c0, std::int64_t c1) {
      for (std::int64_t i = 0; i < M; ++i) {
        const double xi = xv[static_cast<std::size_t>(i)];
        for (std::int64_t j = c0; j < c1; ++j) {
          const double p = a(i, j) * xi;
          ref.y[static_cast<std::size_t>(j)] += p;
          ref.abs_sum[static_cast<std::size_t>(j)] += std::fabs(p);
        }
      }
    });
  }
  return ref;
}

}  // namespace

Reference reference(Op op, const float* A, const float* x, std::int64_t M, std::int64_t K) {
  if (M < 1 || K < 1) throw std::invalid_argument("gemv::reference: M and K must be at least 1");
  const std::int64_t nx = x_length(op, M, K);
  const std::vector<double> xv(x, x + nx);
  const auto a = [A, K](std::int64_t i, std::int64_t k) { return static_cast<double>(A[i * K + k]); };
  return compute_reference(op, a, xv, M, K);
}

Reference reference_from_hash(Op op, std::uint64_t seed_a, std::uint64_t seed_x, std::int64_t M, std::int64_t K) {
  if (M < 1 || K < 1) throw std::invalid_argument("gemv::reference_from_hash: M and K must be at least 1");
  const std::int64_t nx = x_length(op, M, K);
  std::vector<double> xv(static_cast<std::size_t>(nx));
  for (std::int64_t e = 0; e < nx; ++e) {
    xv[static_cast<std::size_t>(e)] = tut::hash_uniform(seed_x, static_cast<std::uint64_t>(e), -1.0f, 1.0f);
  }
  const auto a = [seed_a, K](std::int64_t i, std::int64_t k) {
    return static_cast<double>(tut::hash_uniform(seed_a, static_cast<std::uint64_t>(i * K + k), -1.0f, 1.0f));
  };
  return compute_reference(op, a, xv, M, K);
}

tut::Tolerance tolerance(std::int64_t length) {
  const double u = std::ldexp(1.0, -24);  // fp32 unit roundoff
  const double root = std::sqrt(static_cast<double>(std::max<std::int64_t>(1, length)));
  tut::Tolerance t;
  t.max_rel_norm = 8.0 * root * u;
  t.atol = 0.0;  // per element, set by check() from sum_k |a_k x_k|
  t.rtol = 0.0;
  t.why = "a dot product of L fp32 terms, summed in any order: |err_i| <= 4 sqrt(L) 2^-24 sum_k |a_ik x_k| "
          "per element (probabilistic bound, Higham & Mary 2019) and ||err|| / ||y|| <= 8 sqrt(L) 2^-24; L = " +
          std::to_string(length);
  return t;
}

tut::ErrorStats check(const float* got, const Reference& ref) {
  tut::Tolerance tol = tolerance(ref.length);
  const double scale = 4.0 * std::sqrt(static_cast<double>(std::max<std::int64_t>(1, ref.length))) * std::ldexp(1.0, -24);
  tut::ErrorStats stats;
  for (std::size_t i = 0; i < ref.y.size(); ++i) {
    tol.atol = scale * ref.abs_sum[i];
    stats.add(i, static_cast<double>(got[i]), ref.y[i], tol);
  }
  return stats;
}

SplitPlan plan_split(std::int64_t length, std::int64_t blocks_per_split, std::int64_t target_blocks,
                     std::int64_t min_chunk, std::int64_t align) {
  if (length < 1 || blocks_per_split < 1 || min_chunk < 1 || align < 1) {
    throw std::invalid_argument("plan_split: every argument must be positive");
  }
  SplitPlan plan;
  std::int64_t splits = 1;
  if (blocks_per_split < target_blocks) {
    const std::int64_t wanted = (target_blocks + blocks_per_split - 1) / blocks_per_split;
    const std::int64_t most = std::max<std::int64_t>(1, length / min_chunk);  // every chunk >= min_chunk
    splits = std::min({wanted, most, std::int64_t{65535}});
  }
  std::int64_t chunk = (length + splits - 1) / splits;
  chunk = (chunk + align - 1) / align * align;
  plan.chunk = chunk;
  plan.splits = (length + chunk - 1) / chunk;  // rounding up the chunk may leave fewer, never empty, splits
  return plan;
}

int short_row_lanes(std::int64_t K, bool vectorized) {
  const std::int64_t items = vectorized ? (K + 3) / 4 : K;
  int lanes = 1;
  while (lanes < 32 && lanes < items) lanes *= 2;
  return lanes;
}

std::int64_t float4_peel(const float* p, std::int64_t n) {
  const auto misalign = reinterpret_cast<std::uintptr_t>(p) % 16;
  const std::int64_t peel = static_cast<std::int64_t>((16 - misalign) % 16 / sizeof(float));
  return std::min(peel, n);
}

}  // namespace gemv
