// Test helpers of test_gpu.cpp: run a reduction on guarded inputs three times in a row (the
// output poisoned before each run, as the timing loop re-runs a version) and return what each
// run wrote, after checking that nothing was written outside the output and the inputs are
// unchanged; and require results within a tolerance.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/random.hpp"
#include "common/testing.hpp"
#include "reduce.hpp"

namespace reduce::testing {

/// Start offsets (in floats past a 16-byte boundary) of the two inputs.
struct Offsets {
  std::size_t x = 0, y = 0;
};

/// One run: reduce (x, y) into *out on the default stream.
using RunOnce = std::function<void(const float* x, const float* y, float* out)>;

/// Runs `run` three times on guarded copies of hx (and hy, if not empty); returns the results.
inline std::vector<float> run_three_times(const RunOnce& run, const std::vector<float>& hx,
                                          const std::vector<float>& hy, Offsets off = {}) {
  using tut::testing::GuardedBuffer;
  GuardedBuffer x(hx.size(), off.x), y(hy.size(), off.y), out(1);
  x.upload(hx);
  if (!hy.empty()) y.upload(hy);
  std::vector<float> results;
  for (int r = 0; r < 3; ++r) {
    out.poison();  // NaN: a run that does not write (or accumulates into the poison) fails
    run(x.data(), hy.empty() ? nullptr : y.data(), out.data());
    CUDA_CHECK(cudaDeviceSynchronize());
    results.push_back(out.to_host()[0]);
  }
  INFO("n = " << hx.size() << ", offsets (x, y) = (" << off.x << ", " << off.y << ")");
  REQUIRE(out.check_guards() == "");
  REQUIRE(tut::testing::compare_bits(x.to_host(), hx) == "");
  if (!hy.empty()) REQUIRE(tut::testing::compare_bits(y.to_host(), hy) == "");
  return results;
}

/// True if a and b have the same bits.
inline bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// Requires every result to be within `tol` of the reference, relative to the magnitude of its
/// terms (and, if `deterministic`, all three results to be bit-identical).
inline void require_results(const std::vector<float>& results, const Reference& ref, const tut::Tolerance& tol,
                            bool deterministic) {
  for (std::size_t r = 0; r < results.size(); ++r) {
    tut::ErrorStats stats;
    stats.add(0, results[r], ref.value, ref.magnitude, tol);
    INFO("run " << r + 1 << " of " << results.size());
    TUT_REQUIRE_MATCH(stats, tol);
  }
  if (deterministic) {
    for (std::size_t r = 1; r < results.size(); ++r) {
      INFO("a deterministic version returned " << results[0] << " then " << results[r]);
      REQUIRE(same_bits(results[r], results[0]));
    }
  }
}

}  // namespace reduce::testing
