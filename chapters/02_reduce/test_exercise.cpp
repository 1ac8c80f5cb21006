// Tests of the chapter 02 exercise. Built twice: against exercises/02_reduce/block_reduce_sum.cu
// (fails until the TODOs are done) and against solutions/02_reduce/block_reduce_sum.cu.
#include <stdexcept>

#include "common/device_buffer.hpp"
#include "exercise.hpp"
#include "test_support.hpp"

using namespace reduce;

namespace {

/// A RunOnce for the exercise with `threads` threads per block.
reduce::testing::RunOnce exercise_runner(std::int64_t n, int threads) {
  return [n, threads](const float* x, const float*, float* out) { exercise_reduce_sum(x, out, n, threads, nullptr); };
}

}  // namespace

TEST_CASE("the block sum is exact on integer inputs, at every size and block size", "[reduce][exercise]") {
  INFO("testing the " TUT_SUBMISSION_KIND " in " TUT_SUBMISSION_FILE
       " -- if this fails, look at its TODO(student) markers: warp_sum() and block_sum()");
  for (int threads : {32, 64, 96, 256, 1024}) {  // 96: three warps, not a power of two
    for (std::int64_t n : tut::testing::sizes_1d()) {
      INFO("threads per block = " << threads << ", n = " << n);
      const std::size_t un = static_cast<std::size_t>(n);
      const std::vector<float> hx =
          integer_values(un, tut::derive_seed(tut::testing::seed(), n), exact_integer_range(Operation::sum, n));
      const Reference ref = reference(Operation::sum, hx.data(), nullptr, un);
      for (float got : reduce::testing::run_three_times(exercise_runner(n, threads), hx, {})) {
        INFO("got " << got << ", expected exactly " << ref.value);
        REQUIRE(static_cast<double>(got) == ref.value);
      }
    }
  }
}

TEST_CASE("the block sum is accurate on real-valued inputs", "[reduce][exercise]") {
  INFO("testing the " TUT_SUBMISSION_KIND " in " TUT_SUBMISSION_FILE);
  for (std::uint64_t s = 1; s <= 3; ++s) {
    for (std::int64_t n : {5, 4099, 1 << 16, (1 << 20) + 3}) {
      if (tut::testing::sanitizing() && n > 70000) continue;
      const std::size_t un = static_cast<std::size_t>(n);
      const std::vector<float> hx = tut::random_floats(un, tut::testing::seed() * 7 + s + n, -1.0f, 1.0f);
      const Reference ref = reference(Operation::sum, hx.data(), nullptr, un);
      INFO("n = " << n);
      reduce::testing::require_results(reduce::testing::run_three_times(exercise_runner(n, 256), hx, {}), ref,
                                       tolerance(Operation::sum, n, ref), false);
    }
  }
}

TEST_CASE("the block sum handles n = 0 and refuses bad block sizes", "[reduce][exercise]") {
  INFO("testing the " TUT_SUBMISSION_KIND " in " TUT_SUBMISSION_FILE);
  for (float got : reduce::testing::run_three_times(exercise_runner(0, 256), {}, {})) REQUIRE(got == 0.0f);
  tut::DeviceBuffer<float> x(64), out(1);
  for (int threads : {0, 16, 48, 1056, 2048}) {
    INFO("threads = " << threads);
    REQUIRE_THROWS_AS(exercise_reduce_sum(x.data(), out.data(), 64, threads, nullptr), std::invalid_argument);
  }
}
