// CPU side of chapter 03: the double-precision reference, the tolerance, and the awkward inputs
// (what the tests and the exercise's checker share).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "common/random.hpp"
#include "softmax.hpp"

namespace softmax {

void reference_row(const float* x, double* y, std::int64_t cols) {
  double m = -std::numeric_limits<double>::infinity();
  for (std::int64_t c = 0; c < cols; ++c) m = std::max(m, static_cast<double>(x[c]));
  if (m == -std::numeric_limits<double>::infinity()) {  // all -inf: defined as all zeros
    std::fill(y, y + cols, 0.0);
    return;
  }
  double d = 0.0;
  for (std::int64_t c = 0; c < cols; ++c) {
    y[c] = std::exp(static_cast<double>(x[c]) - m);  // exact difference in double; exp(-inf) = 0
    d += y[c];
  }
  for (std::int64_t c = 0; c < cols; ++c) y[c] /= d;
}

void reference_softmax(const float* x, double* y, std::int64_t rows, std::int64_t cols) {
  const std::int64_t hw = std::max(1u, std::thread::hardware_concurrency());
  const std::int64_t workers = rows * cols < (1 << 18) ? 1 : std::min<std::int64_t>({hw, 32, rows});
  const std::int64_t per = (rows + workers - 1) / workers;
  std::vector<std::thread> threads;
  for (std::int64_t w = 0; w < workers; ++w) {
    threads.emplace_back([=] {
      for (std::int64_t r = w * per; r < std::min(rows, (w + 1) * per); ++r) reference_row(x + r * cols, y + r * cols, cols);
    });
  }
  for (auto& t : threads) t.join();
}

std::vector<float> awkward_matrix(std::int64_t rows, std::int64_t cols, std::uint64_t seed, bool all_neg_inf_row) {
  const float inf = std::numeric_limits<float>::infinity();
  const auto C = static_cast<std::size_t>(cols);
  std::vector<float> m = tut::random_floats(static_cast<std::size_t>(rows) * C, seed, -kInputRange, kInputRange);
  for (std::int64_t r = 0; r < rows && C > 0; ++r) {
    float* row = m.data() + static_cast<std::size_t>(r) * C;
    switch (r % kAwkwardKinds) {
      case 1:
        for (std::size_t c = 1; c < C; c += 3) row[c] = -inf;  // from the 2nd: with C = 1 it is not all -inf
        break;
      case 2:
        if (all_neg_inf_row) std::fill(row, row + C, -inf);
        break;
      case 3:
        std::fill(row, row + C, -inf);
        row[C / 2] = 1.5f;
        break;
      case 4:
        for (std::size_t k : {std::size_t{0}, C / 3, C - 1}) row[k] = 1e30f;
        break;
      case 5:
        std::fill(row, row + C, 1e30f);
        break;
      case 6:
        for (std::size_t c = 0; c < C; c += 4) row[c] = -1e30f;
        break;
      case 7:
        std::fill(row, row + C, -1e30f);
        break;
      case 8:
        for (std::size_t c = 0; c < C; ++c) row[c] *= 10.0f;
        break;
      case 9:
        tut::fill_random(row, C, tut::derive_seed(seed, static_cast<std::uint64_t>(r)), -1e30f, 1e30f);
        break;
      default:  // 0: random
        break;
    }
  }
  return m;
}

tut::Tolerance tolerance(std::int64_t cols, Order order) {
  // Relative error of one output y = exp(x - m) * (1/d), in units of u = 2^-24:
  //   x - m rounded:  |x - m| u <= 104 u for every output above the subnormal range
  //                   (exp(-104) < 2^-149 underflows to 0; atol covers subnormals)
  //   expf:           2 ulp = 4 u
  //   d:              each term carries the two errors above (108 u), plus the rounding of the
  //                   additions: lambda sqrt(C) u (a probabilistic bound, Higham & Mary 2019).
  //                   lambda = 8: v0's serial per-thread sum (the worst order) was measured at
  //                   4.7 sqrt(C) u for C = 100003 on an H200, over the lambda = 4 first chosen
  //   1/d and the product: 2 u
  //   total:          (104 + 4) + (108 + 8 sqrt(C)) + 2 <= (220 + 8 sqrt(C)) u
  // That sum's term holds for trees. One serial chain (v0: a thread adds its row's C terms in
  // order) is held to its worst case instead, (1 + u)^C - 1 ~ C u (Higham 2002, (4.4)): a
  // running sum far larger than its terms rounds the small ones away, a drift that grows like
  // C, not a random walk (see the chapter page, "Accuracy"). The trees' threads also add short
  // chains first (C / 32 terms per lane in v4 and the exercise, C / 256 per thread in v1): v0's
  // drift, measured at 0.0144 C u, is then 0.0144 C / 32 u at most, below 8 sqrt(C) u up to
  // C ~ 3e8 (v1 at C = 2^20 measured 3.5e-6 = 0.0144 (C / 256) u: the same drift, 256 times
  // smaller).
  // Relative to each output, not to a magnitude of terms: no output is a sum. The only sum, d,
  // adds positive terms (sum|term| = d), and every other step is a product, a quotient or an
  // exp, whose errors are relative to their own results. Nothing cancels.
  const double u = 1.0 / 16777216.0;
  const double c = static_cast<double>(cols);
  const double sum_rounding = order == Order::serial ? std::expm1(c * std::log1p(u)) : 8.0 * std::sqrt(c) * u;
  const double rel = 212.0 * u + (order == Order::serial ? sum_rounding : 8.0 * u + sum_rounding);
  tut::Tolerance tol;
  tol.rtol = rel;
  tol.max_rel_norm = rel;
  tol.atol = 1e-37;  // subnormal outputs (below 1.2e-38) keep fewer significant bits
  tol.why = order == Order::serial
                ? "relative 212 * 2^-24 + ((1 + 2^-24)^C - 1) = " + std::to_string(rel) +
                      ": exponent rounding, expf's 2 ulp, the division, and the worst case of one serial chain "
                      "of C additions (v0)"
                : "relative (220 + 8 sqrt(C)) * 2^-24 = " + std::to_string(rel) +
                      ": exponent rounding (|x - max| <= 104 for any output above underflow), expf's 2 ulp, the "
                      "sum's rounding (8 sqrt(C) u, trees, whose positive terms never cancel), the division";
  return tol;
}

}  // namespace softmax
