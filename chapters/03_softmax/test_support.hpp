// Test helpers of test_gpu.cpp: run a softmax launcher on guarded buffers and require a
// correct, in-bounds, input-preserving result (or a clean refusal), and the matrices with the
// awkward rows every version must get right.
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

/// Range of the random test inputs: [-kInputRange, kInputRange) (softmax.hpp).
using softmax::kInputRange;

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

/// Number of rows edge_matrix() returns: one of each kind of awkward_matrix().
constexpr std::int64_t kEdgeRows = kAwkwardKinds;

/// A matrix of kEdgeRows awkward rows of `cols` columns, one of each kind (awkward_matrix(),
/// softmax.hpp). With `all_neg_inf_row` false, the all -inf row is random instead (for cuDNN,
/// which defines no result).
inline std::vector<float> edge_matrix(std::int64_t cols, std::uint64_t seed, bool all_neg_inf_row = true) {
  return awkward_matrix(kEdgeRows, cols, seed, all_neg_inf_row);
}

}  // namespace softmax::testing
