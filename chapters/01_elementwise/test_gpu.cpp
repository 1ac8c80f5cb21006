// GPU tests of chapter 01: every registered version against the CPU reference over the size
// sweep, at misaligned starts, and beyond 2^31 elements ([large]).
#include <cstdint>
#include <vector>

#include "common/device_buffer.hpp"
#include "test_support.hpp"

using namespace elementwise;
using elementwise::testing::Offsets;
using elementwise::testing::require_correct;

TEST_CASE("every version matches the CPU reference over the size sweep", "[elementwise][sweep]") {
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      for (std::int64_t n : tut::testing::sizes_1d()) {
        require_correct(v.launch, v.inputs, v.reference, v.tolerance, n, {}, tut::testing::seed());
      }
    }
  }
}

TEST_CASE("every version is correct at misaligned starts", "[elementwise][misaligned]") {
  // Equal offsets exercise the scalar head before the float4 body; unequal ones, the
  // all-scalar fallback (no common 16-byte boundary exists).
  const std::vector<Offsets> offsets = {{1, 1, 1}, {2, 2, 2}, {3, 3, 3}, {1, 0, 2}, {0, 3, 0}, {0, 0, 1}};
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      for (std::int64_t n : {1, 2, 3, 4, 5, 7, 33, 1000, 4097, 65537}) {
        for (const Offsets& off : offsets) {
          require_correct(v.launch, v.inputs, v.reference, v.tolerance, n, off, tut::testing::seed() + 1);
        }
      }
    }
  }
}

TEST_CASE("n above 2^31: no 32-bit index overflow", "[elementwise][large]") {
  const std::int64_t n = (std::int64_t{1} << 31) + (1 << 20) + 3;
  const std::size_t un = static_cast<std::size_t>(n);
  const double needed = 3.0 * 4.0 * static_cast<double>(n) + (1ull << 30);
  if (tut::testing::sanitizing() || static_cast<double>(tut::testing::free_device_bytes()) < needed) {
    tut::testing::skip_run("the [large] case needs 3 x 8.6 GB of free GPU memory (and no sanitizer)");
    return;
  }
  // Inputs made on the GPU from the counter-based hash; the check recomputes each one on the CPU.
  const std::uint64_t sa = tut::derive_seed(tut::testing::seed(), 0), sb = tut::derive_seed(tut::testing::seed(), 1);
  tut::DeviceBuffer<float> a(un), b(un), out(un);
  tut::fill_random_device(a.data(), un, sa, -4.0f, 4.0f);
  tut::fill_random_device(b.data(), un, sb, -4.0f, 4.0f);
  // Checked: every element from 2^31 - 2^24 on (overflowing indices land there, or fault) and
  // the first 4096 of every 2^20 before it: about 26 M elements per version instead of 2.1 G.
  const std::size_t dense_from = (std::size_t{1} << 31) - (std::size_t{1} << 24);
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      out.poison();
      v.launch(a.data(), v.inputs == 2 ? b.data() : nullptr, out.data(), n, nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      const auto got = tut::testing::sample_device_array(out.data(), un, dense_from, 4096, 1 << 20);
      const tut::ErrorStats stats =
          tut::parallel_check(got.index.size(), [&](std::size_t begin, std::size_t end, tut::ErrorStats& s) {
            for (std::size_t k = begin; k < end; ++k) {
              const std::size_t i = got.index[k];
              const float x = tut::hash_uniform(sa, i, -4.0f, 4.0f);
              const float y = v.inputs == 2 ? tut::hash_uniform(sb, i, -4.0f, 4.0f) : 0.0f;
              s.add(i, got.value[k], v.reference(x, y), v.tolerance);
            }
          });
      TUT_REQUIRE_MATCH(stats, v.tolerance);
    }
  }
}
