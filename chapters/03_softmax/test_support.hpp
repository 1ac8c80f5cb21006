// Test helpers shared by test_gpu.cpp and test_exercise.cpp: run a softmax launcher on guarded
// buffers and require a correct, in-bounds, input-preserving result (or a clean refusal), and
// the matrices with the awkward rows every version must get right.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/random.hpp"
#include "common/testing.hpp"
#include "softmax.hpp"

namespace softmax::testing {

/// Start offsets (in floats past a 16-byte boundary) of x and y.
struct Offsets {
  std::size_t x = 0, y = 0;
};

/// Range of the random test inputs: [-kInputRange, kInputRange).
constexpr float kInputRange = 8.0f;

/// "(row r, col c)" for a flat index.
inline std::string position(std::size_t index, std::int64_t cols) {
  const std::int64_t c = cols > 0 ? cols : 1;
  return "(row " + std::to_string(static_cast<std::int64_t>(index) / c) + ", col " +
         std::to_string(static_cast<std::int64_t>(index) % c) + ")";
}

/// Runs `launch` on `hx` (rows x cols) and REQUIREs a result that matches the CPU reference
/// within the bound of its summation `order`, wrote nothing outside y, and left x untouched.
inline void require_correct(Launch launch, std::int64_t rows, std::int64_t cols, const std::vector<float>& hx,
                            Offsets off = {}, Order order = Order::tree) {
  using tut::testing::GuardedBuffer;
  const std::size_t n = static_cast<std::size_t>(rows * cols);
  GuardedBuffer x(n, off.x), y(n, off.y);
  x.upload(hx);
  y.poison();  // NaN: an element the kernel forgets to write fails the check
  launch(x.data(), y.data(), rows, cols, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());

  std::vector<double> ref(n);
  reference_softmax(hx.data(), ref.data(), rows, cols);
  const tut::Tolerance tol = tolerance(cols, order);
  const tut::ErrorStats stats = tut::compare(y.to_host(), ref, tol);
  INFO("R x C = " << rows << " x " << cols << ", offsets (x, y) = (" << off.x << ", " << off.y << ")\n"
                  << stats.describe(tol, [cols](std::size_t i) { return position(i, cols); }));
  REQUIRE(stats.passed(tol));
  REQUIRE(y.check_guards() == "");
  REQUIRE(tut::testing::compare_bits(x.to_host(), hx) == "");
}

/// REQUIREs that `launch` refuses the shape with std::invalid_argument and touches nothing.
inline void require_refusal(Launch launch, std::int64_t rows, std::int64_t cols) {
  using tut::testing::GuardedBuffer;
  const std::size_t n = static_cast<std::size_t>(rows * cols);
  GuardedBuffer x(n), y(n);
  x.upload(tut::random_floats(n, 1, -1.0f, 1.0f));
  y.poison();
  INFO("R x C = " << rows << " x " << cols << " must be refused");
  REQUIRE_THROWS_AS(launch(x.data(), y.data(), rows, cols, nullptr), std::invalid_argument);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> got = y.to_host();
  std::size_t written = 0;
  for (float v : got) written += std::isnan(v) ? 0 : 1;
  REQUIRE(written == 0);  // still all poison: nothing was launched
  REQUIRE(y.check_guards() == "");
}

/// Random inputs in [-kInputRange, kInputRange).
inline std::vector<float> random_matrix(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  return tut::random_floats(static_cast<std::size_t>(rows * cols), seed, -kInputRange, kInputRange);
}

/// Number of rows edge_matrix() returns.
constexpr std::int64_t kEdgeRows = 10;

/// A matrix of kEdgeRows awkward rows of `cols` columns:
///
///     0  random                              5  all 1e30 (uniform output 1/C)
///     1  random, every third entry -inf      6  random, every fourth entry -1e30
///        (from the second; so C = 1 stays finite)
///     2  all -inf (zeros, by definition)     7  all -1e30 (uniform)
///     3  -inf except one entry (one-hot)     8  random in [-80, 80) (exp near underflow)
///     4  random, three entries 1e30          9  random in [-1e30, 1e30) (one-hot at the max)
///
/// With `all_neg_inf_row` false, row 2 is random instead (for cuDNN, which defines no result).
inline std::vector<float> edge_matrix(std::int64_t cols, std::uint64_t seed, bool all_neg_inf_row = true) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::size_t C = static_cast<std::size_t>(cols);
  std::vector<float> m = random_matrix(kEdgeRows, cols, seed);
  const auto row = [&](int r) { return m.data() + static_cast<std::size_t>(r) * C; };
  for (std::size_t c = 1; c < C; c += 3) row(1)[c] = -inf;  // from the 2nd: with C = 1 it is not all -inf
  if (all_neg_inf_row) std::fill(row(2), row(2) + C, -inf);
  std::fill(row(3), row(3) + C, -inf);
  row(3)[C / 2] = 1.5f;
  for (std::size_t k : {std::size_t{0}, C / 3, C - 1}) row(4)[k] = 1e30f;
  std::fill(row(5), row(5) + C, 1e30f);
  for (std::size_t c = 0; c < C; c += 4) row(6)[c] = -1e30f;
  std::fill(row(7), row(7) + C, -1e30f);
  for (std::size_t c = 0; c < C; ++c) row(8)[c] = row(0)[c] * 10.0f;
  const std::vector<float> huge = tut::random_floats(C, seed + 1, -1e30f, 1e30f);
  std::copy(huge.begin(), huge.end(), row(9));
  return m;
}

}  // namespace softmax::testing
