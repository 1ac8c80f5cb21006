// GPU tests of time_on_stream()'s budget: a slow version gets fewer repetitions (never fewer than
// min_reps), a fast one all of them, and no budget means exactly `reps`.
#include <cuda_runtime.h>

#include "common/check.hpp"
#include "common/testing.hpp"
#include "common/timing.hpp"

namespace {

/// Spins one thread for about `cycles` clock cycles.
__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

/// A StreamWork that spins for about `ms` milliseconds on this GPU.
tut::StreamWork spin_for(double ms) {
  int khz = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  const long long cycles = static_cast<long long>(ms * khz);
  return [cycles](cudaStream_t s) {
    spin_kernel<<<1, 1, 0, s>>>(cycles);
    CUDA_CHECK_LAUNCH();
  };
}

}  // namespace

TEST_CASE("a time budget cuts the repetitions of a slow version, never below min_reps", "[timing][budget]") {
  tut::TimingOptions t;
  t.reps = 20;
  t.warmup = 3;
  t.flush_l2 = false;
  t.budget_ms = 100.0;
  t.min_reps = 5;
  // ~30 ms a run: 20 runs would take 600 ms; the budget allows 3, min_reps says 5.
  const tut::TimingStats slow = tut::time_on_stream(spin_for(30.0), t, nullptr);
  REQUIRE(slow.reps == 5);
  REQUIRE(slow.median_ms > 10.0);
  // ~0.1 ms a run: 20 runs fit easily.
  const tut::TimingStats fast = tut::time_on_stream(spin_for(0.1), t, nullptr);
  REQUIRE(fast.reps == 20);
  // No budget: exactly `reps`, however slow.
  t.budget_ms = 0.0;
  t.reps = 6;
  REQUIRE(tut::time_on_stream(spin_for(30.0), t, nullptr).reps == 6);
}
