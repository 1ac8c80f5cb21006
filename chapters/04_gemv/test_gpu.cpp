// GPU tests of chapter 04: every registered version (both products) against the CPU reference
// over the shape sweep, at misaligned starts, and beyond 2^31 elements of A ([large]).
#include <cstdint>
#include <string>
#include <vector>

#include "common/device_buffer.hpp"
#include "test_support.hpp"

using namespace gemv;
using gemv::testing::Offsets;
using gemv::testing::require_correct;

TEST_CASE("every version matches the CPU reference over the shape sweep", "[gemv][sweep]") {
  // Specialised versions (v5, v6) run here on every shape, inside and outside the range they
  // were written for: their launchers are correct for any M x K.
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      for (const auto& [M, K] : gemv::testing::shapes()) {
        require_correct(v.launch, v.op, M, K, {}, tut::testing::seed());
      }
    }
  }
}

TEST_CASE("every version is correct at misaligned starts of A, x and y", "[gemv][misaligned]") {
  // A offset by 1..3 floats: rows start mid-line even when K % 4 == 0 (the float4 versions peel
  // a head per row, or fall back to scalars); x offset differently from A: x is read by scalars.
  const std::vector<Offsets> offsets = {{1, 0, 0}, {1, 1, 1}, {2, 3, 1}, {3, 2, 0}, {0, 1, 3}, {0, 0, 1}, {2, 2, 2}};
  const std::vector<gemv::testing::Shape> shapes = gemv::testing::sanitizer_sized(
      {{1, 1}, {2, 7}, {33, 33}, {5, 128}, {100, 32}, {64, 100}, {9, 4097}, {40, 4096}});
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      for (const auto& [M, K] : shapes) {
        for (const Offsets& off : offsets) require_correct(v.launch, v.op, M, K, off, tut::testing::seed() + 1);
      }
    }
  }
}

TEST_CASE("fresh inputs: the result does not depend on one data set", "[gemv][seeds]") {
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      for (std::uint64_t s = 1; s <= 3; ++s) {
        for (const auto& [M, K] : gemv::testing::sanitizer_sized({{37, 1000}, {333, 64}, {8, 5000}})) {
          require_correct(v.launch, v.op, M, K, {}, tut::testing::seed() * 31 + s);
        }
      }
    }
  }
}

TEST_CASE("A above 2^31 elements: no 32-bit index overflow", "[gemv][large]") {
  // Two shapes: K odd (every row misaligned differently: heads, tails, scalar x) and K % 4 == 0
  // (the float4 fast paths). Thousands of rows start beyond element 2^31 in both.
  const std::vector<gemv::testing::Shape> shapes = {{70001, 32771}, {40000, 65536}};
  for (const auto& [M, K] : shapes) {
    const double elements = static_cast<double>(M) * static_cast<double>(K);
    const double needed = 4.0 * elements + (1ull << 30);
    if (tut::testing::sanitizing() || static_cast<double>(tut::testing::free_device_bytes()) < needed) {
      tut::testing::skip_run("the [large] case needs ~11 GB of free GPU memory (and no sanitizer)");
      return;
    }
    REQUIRE(elements > 2147483648.0);
    // A made on the GPU from the counter-based hash; the CPU regenerates each element for the
    // reference, so all of y is checked (every row or column of A contributes to it).
    const std::uint64_t seed_a = tut::derive_seed(tut::testing::seed(), 10);
    tut::DeviceBuffer<float> A(static_cast<std::size_t>(M) * static_cast<std::size_t>(K));
    tut::fill_random_device(A.data(), A.size(), seed_a, -1.0f, 1.0f);
    for (const Op op : {Op::Ax, Op::ATx}) {
      const std::uint64_t seed_x = tut::derive_seed(tut::testing::seed(), op == Op::Ax ? 11 : 12);
      const std::size_t nx = static_cast<std::size_t>(x_length(op, M, K));
      const std::size_t ny = static_cast<std::size_t>(y_length(op, M, K));
      tut::DeviceBuffer<float> x(nx), y(ny);
      tut::fill_random_device(x.data(), nx, seed_x, -1.0f, 1.0f);
      const Reference ref = reference_from_hash(op, seed_a, seed_x, M, K);
      const tut::Tolerance tol = tolerance(ref.length);
      for (const auto& v : versions()) {
        if (v.op != op) continue;
        y.poison();
        v.launch(A.data(), x.data(), y.data(), M, K, nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<float> got = y.to_host();
        const tut::ErrorStats stats = check(got.data(), ref);
        INFO(v.info.name << " on " << op_name(op) << " " << M << " x " << K << ": " << stats.describe(tol));
        CHECK(stats.passed(tol));
      }
    }
  }
}
