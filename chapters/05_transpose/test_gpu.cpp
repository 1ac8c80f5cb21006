// GPU tests of chapter 05: every registered version (ladder, roofs, libraries) against the
// exact CPU reference over the 2-D shape sweep, at misaligned starts, for fresh inputs, and
// beyond 2^31 elements ([large]); the executable's GPU check against the CPU one ([check]); and
// every candidate of the tuning search (transpose_tune) over edge shapes ([tune]).
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/device_buffer.hpp"
#include "test_support.hpp"
#include "tune/tune.hpp"

using namespace transpose;
using transpose::testing::Offsets;
using transpose::testing::require_correct;
using transpose::testing::Shape;

TEST_CASE("every version is exact over the shape sweep", "[transpose][sweep]") {
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      const std::string why = transpose::testing::why_not_here(v);
      if (!why.empty()) {
        WARN(v.info.name << " skipped: " << why);
      } else {
        for (const auto& [R, C] : transpose::testing::shapes()) {
          require_correct(v.launch, v.output, R, C, {}, tut::testing::seed());
        }
      }
    }
  }
}

TEST_CASE("every version is exact at misaligned starts of A and B", "[transpose][misaligned]") {
  // Offsets of 1..3 floats: the float4 and TMA versions must notice and take their scalar path.
  const std::vector<Offsets> offsets = {{1, 0}, {0, 1}, {2, 3}, {3, 3}, {2, 2}};
  const std::vector<Shape> shapes =
      transpose::testing::sanitizer_sized({{1, 1}, {4, 4}, {33, 17}, {64, 64}, {100, 36}, {36, 100}, {128, 4100}});
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      const std::string why = transpose::testing::why_not_here(v);
      if (!why.empty()) {
        WARN(v.info.name << " skipped: " << why);
      } else {
        for (const auto& [R, C] : shapes) {
          for (const Offsets& off : offsets) require_correct(v.launch, v.output, R, C, off, tut::testing::seed() + 1);
        }
      }
    }
  }
}

TEST_CASE("fresh inputs: the result does not depend on one data set", "[transpose][seeds]") {
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      if (transpose::testing::why_not_here(v).empty()) {
        for (std::uint64_t s = 1; s <= 3; ++s) {
          for (const Shape& shape : transpose::testing::sanitizer_sized({{37, 1000}, {1000, 36}, {512, 512}})) {
            require_correct(v.launch, v.output, shape.first, shape.second, {}, tut::testing::seed() * 31 + s);
          }
        }
      }
    }
  }
}

TEST_CASE("every candidate of the tuning search is exact", "[transpose][tune][slow]") {
  // Partial tiles of every searched shape (32..128 rows and columns), R or C below one tile,
  // tile rows that do not fill the last band (580 = 9 x 64 + 4: 10 tile rows of 64, bands of 8),
  // odd shapes (scalar twins), and misaligned A or B (scalar twins; v04 for the TMA variants).
  const std::vector<Shape> shapes = transpose::testing::sanitizer_sized(
      {{1, 1}, {3, 5}, {4, 8}, {33, 17}, {64, 64}, {96, 100}, {100, 96}, {132, 260}, {260, 132}, {256, 256},
       {36, 4100}, {4100, 36}, {580, 196}, {257, 513}, {33, 4097}, {2052, 1028},
       // 65 x 64 = 4160 tiles of 64 x 64: a persistent wave (tma..._p) gives each block ~10-16
       // tiles, so its stages wrap around (parity flips, B buffers reused)
       {4100, 4096}});
  std::vector<Offsets> offsets = {{0, 0}, {1, 0}, {0, 2}};
  if (tut::testing::sanitizing()) offsets.pop_back();  // 29 candidates: keep the sanitizer runs short
  for (const auto& v : tune_candidates()) {
    DYNAMIC_SECTION(v.info.name) {
      const std::string why = transpose::testing::why_not_here(v);
      if (!why.empty()) {
        WARN(v.info.name << " skipped: " << why);
      } else {
        for (const auto& [R, C] : shapes) {
          for (const Offsets& off : offsets) require_correct(v.launch, v.output, R, C, off, tut::testing::seed() + 2);
        }
      }
    }
  }
}

TEST_CASE("the executable's check on the GPU agrees with the CPU reference and bites", "[transpose][check]") {
  // check_against_hash() (the executable's and the [large] test's check) against check() (the
  // CPU reference) on the same output: a right transpose, a copy where a transpose is expected,
  // the NaN poison, one element off by one ulp, two elements swapped.
  const std::int64_t R = 33, C = 4097;  // not square, not a multiple of anything: a copy is not a transpose
  const std::size_t n = static_cast<std::size_t>(R) * static_cast<std::size_t>(C);
  const std::uint64_t seed = tut::derive_seed(tut::testing::seed(), 30);
  tut::DeviceBuffer<float> A(n), B(n);
  tut::fill_random_device(A.data(), n, seed, -1.0f, 1.0f);
  const std::vector<float> hA = A.to_host();
  const auto both = [&](Output output, bool expect_pass) {
    const tut::ErrorStats gpu = check_against_hash(B.data(), R, C, output, seed);
    const tut::ErrorStats cpu = check(B.to_host(), hA, R, C, output);
    INFO("GPU: " << gpu.describe(exact_tolerance()) << "\nCPU: " << cpu.describe(exact_tolerance()));
    REQUIRE(gpu.passed(exact_tolerance()) == expect_pass);
    REQUIRE(cpu.passed(exact_tolerance()) == expect_pass);
    REQUIRE(gpu.count() == n);
    REQUIRE(gpu.over_tolerance() == cpu.over_tolerance());
    REQUIRE(gpu.nonfinite() == cpu.nonfinite());
  };
  launch_transpose_v03_padded_tile(A.data(), B.data(), R, C, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  both(Output::transposed, true);
  both(Output::copied, false);
  std::vector<float> host = B.to_host();
  std::vector<float> bad = host;
  bad[1000] = std::nextafter(bad[1000], 2.0f);
  B.copy_from(bad);
  both(Output::transposed, false);
  bad = host;
  std::swap(bad[7], bad[8]);
  B.copy_from(bad);
  both(Output::transposed, false);
  B.poison();
  both(Output::transposed, false);
  launch_copy_memcpy(A.data(), B.data(), R, C, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  both(Output::copied, true);
  both(Output::transposed, false);
}

TEST_CASE("above 2^31 elements: no 32-bit index overflow", "[transpose][large]") {
  // R x C odd (scalar paths) and R, C multiples of 4 but not of 32 (float4 and TMA paths with
  // partial edge tiles). Both have thousands of rows of A beyond element 2^31, scattered over
  // all of B.
  const std::vector<Shape> shapes = {{70001, 32771}, {36868, 61444}};
  for (const auto& [R, C] : shapes) {
    const std::size_t n = static_cast<std::size_t>(R) * static_cast<std::size_t>(C);
    const double needed = 8.0 * static_cast<double>(n) + (1ull << 30);  // A and B (~9.2 GB each); the check stores nothing
    if (tut::testing::sanitizing() || static_cast<double>(tut::testing::free_device_bytes()) < needed) {
      tut::testing::skip_run("the [large] case needs ~20 GB of free GPU memory (and no sanitizer)");
      return;
    }
    REQUIRE(n > (std::size_t{1} << 31));
    // A made on the GPU from the counter-based hash. Every element of B is checked, on the GPU,
    // against the element of A it must hold, recomputed from the hash (check_against_hash(): no
    // reference array, no download unless the check fails).
    const std::uint64_t seed = tut::derive_seed(tut::testing::seed(), 20);
    tut::DeviceBuffer<float> A(n), B(n);
    tut::fill_random_device(A.data(), n, seed, -1.0f, 1.0f);
    for (const auto& v : versions()) {
      if (!transpose::testing::why_not_here(v).empty()) continue;
      B.poison();
      v.launch(A.data(), B.data(), R, C, nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      const tut::ErrorStats stats = check_against_hash(B.data(), R, C, v.output, seed);
      INFO(v.info.name << " on " << R << " x " << C << ": " << stats.describe(exact_tolerance()));
      CHECK(stats.passed(exact_tolerance()));
    }
  }
}
