// GPU tests of chapter 05: every registered version (ladder, roofs, libraries) against the
// exact CPU reference over the 2-D shape sweep, at misaligned starts, for fresh inputs, and
// beyond 2^31 elements ([large]); and every candidate of the tuning search (transpose_tune)
// over edge shapes ([tune]).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/device_compare.hpp"
#include "test_support.hpp"
#include "tune.hpp"

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
  // odd shapes (scalar twins), and misaligned A or B (scalar twins; v4 for the TMA variants).
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

TEST_CASE("above 2^31 elements: no 32-bit index overflow", "[transpose][large]") {
  // R x C odd (scalar paths) and R, C multiples of 4 but not of 32 (float4 and TMA paths with
  // partial edge tiles). Both have thousands of rows of A beyond element 2^31, scattered over
  // all of B.
  const std::vector<Shape> shapes = {{70001, 32771}, {36868, 61444}};
  for (const auto& [R, C] : shapes) {
    const std::size_t n = static_cast<std::size_t>(R) * static_cast<std::size_t>(C);
    const double needed = 8.0 * static_cast<double>(n) + (8ull << 30);  // A, B, two samples (~3.4 GB each)
    if (tut::testing::sanitizing() || static_cast<double>(tut::testing::free_device_bytes()) < needed) {
      tut::testing::skip_run("the [large] case needs ~27 GB of free GPU memory (and no sanitizer)");
      return;
    }
    REQUIRE(n > (std::size_t{1} << 31));
    // A made on the GPU from the counter-based hash: the CPU recomputes any element it checks.
    const std::uint64_t seed = tut::derive_seed(tut::testing::seed(), 20);
    tut::DeviceBuffer<float> A(n), B(n);
    tut::fill_random_device(A.data(), n, seed, -1.0f, 1.0f);
    // Checked: every element of B from 2^31 - 2^24 on, and the first 4096 of every 2^20 before,
    // against values the CPU recomputes from the hash once per kind of output; each version's
    // sample is then gathered and compared on the GPU (tut::DeviceSampleReference): downloading
    // and walking 1.7 * 10^8 elements per version on the CPU made this test take 76 s on an H100.
    const std::vector<std::size_t> index =
        tut::testing::sample_indices(n, (std::size_t{1} << 31) - (std::size_t{1} << 24), 4096, 1 << 20);
    std::unique_ptr<tut::DeviceSampleReference> expected_copy, expected_transpose;  // made when first needed
    const auto reference_for = [&](Output output) -> const tut::DeviceSampleReference& {
      std::unique_ptr<tut::DeviceSampleReference>& ref = output == Output::copied ? expected_copy : expected_transpose;
      if (!ref) {
        ref = std::make_unique<tut::DeviceSampleReference>(index, [&, output](std::size_t i) {
          // B[i]: for a transpose i = c * R + r holds A[r][c], element r * C + c of A.
          const std::size_t src =
              output == Output::copied
                  ? i
                  : (i % static_cast<std::size_t>(R)) * static_cast<std::size_t>(C) + i / static_cast<std::size_t>(R);
          return static_cast<double>(tut::hash_uniform(seed, src, -1.0f, 1.0f));
        });
      }
      return *ref;
    };
    for (const auto& v : versions()) {
      if (!transpose::testing::why_not_here(v).empty()) continue;
      B.poison();
      v.launch(A.data(), B.data(), R, C, nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      const tut::ErrorStats stats = reference_for(v.output).check(B.data(), exact_tolerance());
      INFO(v.info.name << " on " << R << " x " << C << ": " << stats.describe(exact_tolerance()));
      CHECK(stats.passed(exact_tolerance()));
    }
  }
}
