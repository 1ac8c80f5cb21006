// CPU references (double precision), the tolerance and the check: what the exercise checker
// (check_gemv) links of the chapter, so nothing of the ladder lives here.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "common/random.hpp"
#include "gemv.hpp"

namespace gemv {

namespace {

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
    tut::parallel_for(static_cast<std::size_t>(M), [&](std::size_t, std::size_t r0, std::size_t r1) {
      for (auto i = static_cast<std::int64_t>(r0); i < static_cast<std::int64_t>(r1); ++i) {
        double s = 0.0, s_abs = 0.0;
        for (std::int64_t k = 0; k < K; ++k) {
          const double p = a(i, k) * xv[static_cast<std::size_t>(k)];  // exact: 24 x 24 bits < 53
          s += p;
          s_abs += std::fabs(p);
        }
        ref.y[static_cast<std::size_t>(i)] = s;
        ref.abs_sum[static_cast<std::size_t>(i)] = s_abs;
      }
    }, static_cast<std::size_t>(std::max<std::int64_t>(1, (1 << 16) / K)));
  } else {
    // y_j = sum_i a_ij x_i: each thread takes a range of columns and walks every row (its
    // columns of one row are contiguous, so the walk stays cache friendly).
    tut::parallel_for(static_cast<std::size_t>(K), [&](std::size_t, std::size_t c0, std::size_t c1) {
      for (std::int64_t i = 0; i < M; ++i) {
        const double xi = xv[static_cast<std::size_t>(i)];
        for (auto j = static_cast<std::int64_t>(c0); j < static_cast<std::int64_t>(c1); ++j) {
          const double p = a(i, j) * xi;
          ref.y[static_cast<std::size_t>(j)] += p;
          ref.abs_sum[static_cast<std::size_t>(j)] += std::fabs(p);
        }
      }
    }, static_cast<std::size_t>(std::max<std::int64_t>(1, (1 << 16) / M)));
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
  // Each output is a sum of L products, and every term passes through at most L roundings (its
  // product and the additions above it), whatever the order: |err_i| <= ~L u m_i, where
  // m_i = sum_k |a_ik x_k|. 4 sqrt(L) u >= L u for L < 16: there the bound is the worst case of
  // any order. Above, rounding errors of random sign grow like sqrt(L) (Higham and Mary 2019,
  // lambda = 4). The bound is relative to m_i, not |y_i|: when the terms cancel, |y_i| << m_i
  // and an honest rounding error is large relative to |y_i| (issue 23: M = 1, K = 2 failed a
  // correct kernel that way).
  const double factor = 4.0 * std::sqrt(static_cast<double>(std::max<std::int64_t>(1, length))) * 0x1p-24;
  tut::Tolerance t;
  t.max_rel_norm = factor;  // ||err|| / ||m|| <= the largest err_i / m_i: never tighter than the elements' bound
  t.atol = 0.0;
  t.rtol = factor;
  t.why = "a dot product of L fp32 terms summed in any order: |err_i| <= 4 sqrt(L) 2^-24 sum_k |a_ik x_k| "
          "(the worst case for L < 16, Higham & Mary's probabilistic bound above), and the same for "
          "||err|| / ||sum_k |a_ik x_k|||; L = " +
          std::to_string(length);
  return t;
}

tut::ErrorStats check(const float* got, const Reference& ref) {
  const tut::Tolerance tol = tolerance(ref.length);
  return tut::parallel_check(ref.y.size(), [&](std::size_t begin, std::size_t end, tut::ErrorStats& stats) {
    for (std::size_t i = begin; i < end; ++i) stats.add(i, static_cast<double>(got[i]), ref.y[i], ref.abs_sum[i], tol);
  });
}

// In the reference library (not the ladder's) so that the exercise's checker can use it too.
double bytes_moved(std::int64_t M, std::int64_t K) {
  return 4.0 * (static_cast<double>(M) * static_cast<double>(K) + static_cast<double>(K) + static_cast<double>(M));
}

}  // namespace gemv
