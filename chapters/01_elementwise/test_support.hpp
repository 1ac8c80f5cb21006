// Test helper shared by test_gpu.cpp and test_exercise.cpp: run one launcher on fresh random
// inputs in guarded buffers and require that it matches the CPU reference, wrote nothing
// outside its output, and left its inputs untouched.
#pragma once

#include <cstdint>
#include <string>

#include "common/check.hpp"
#include "common/random.hpp"
#include "common/testing.hpp"
#include "elementwise.hpp"

namespace elementwise::testing {

/// Start offsets (in floats past a 16-byte boundary) of the three arrays.
struct Offsets {
  std::size_t a = 0, b = 0, out = 0;
};

/// Runs `launch` on n elements and REQUIREs a correct, in-bounds, input-preserving result.
inline void require_correct(Launch launch, int inputs, double (*reference)(double, double),
                            const tut::Tolerance& tol, std::int64_t n, Offsets off, std::uint64_t seed) {
  using tut::testing::GuardedBuffer;
  const std::size_t un = static_cast<std::size_t>(n);
  const std::vector<float> ha = tut::random_floats(un, tut::derive_seed(seed, 0), -4.0f, 4.0f);
  const std::vector<float> hb =
      inputs == 2 ? tut::random_floats(un, tut::derive_seed(seed, 1), -4.0f, 4.0f) : std::vector<float>(un, 0.0f);
  GuardedBuffer a(un, off.a), b(un, off.b), out(un, off.out);
  a.upload(ha);
  b.upload(hb);
  out.poison();  // NaN: an element the kernel forgets to write fails the check
  launch(a.data(), inputs == 2 ? b.data() : nullptr, out.data(), n, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());

  const std::vector<float> got = out.to_host();
  tut::ErrorStats stats;
  for (std::size_t i = 0; i < un; ++i) stats.add(i, got[i], reference(ha[i], hb[i]), tol);
  INFO("n = " << n << ", offsets (a, b, out) = (" << off.a << ", " << off.b << ", " << off.out << "), seed "
              << seed);
  TUT_REQUIRE_MATCH(stats, tol);
  REQUIRE(out.check_guards() == "");
  REQUIRE(tut::testing::compare_bits(a.to_host(), ha) == "");
  REQUIRE(tut::testing::compare_bits(b.to_host(), hb) == "");
}

}  // namespace elementwise::testing
