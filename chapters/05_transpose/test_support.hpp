// Test helpers of test_gpu.cpp: the 2-D shape sweep, and a check that runs one launcher on fresh
// random input in guarded buffers and requires an exact result, no write outside B, and A
// untouched. (The exercise has its own checker: exercise_check.cpp.)
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/check.hpp"
#include "common/device_info.hpp"
#include "common/random.hpp"
#include "common/testing.hpp"
#include "transpose.hpp"

namespace transpose::testing {

/// An R x C shape.
using Shape = tut::testing::Shape2;
using tut::testing::sanitizer_sized;

/// The shapes every version is tested on: 1 x 1, 1 x N, N x 1, primes, 31/32/33 around the
/// tile, R != C both ways, multiples of 4 that are not multiples of 32 (the float4 and TMA
/// paths with partial edge tiles), and 33 x 4097. $TUTORIAL_EXTRA_SIZES adds n x n, 1 x n and
/// n x 3 for each n. Under $TUTORIAL_SANITIZE=1 only R * C <= 70000 is kept.
inline std::vector<Shape> shapes() {
  std::vector<Shape> list = {
      {1, 1},      {1, 2},     {2, 1},      {1, 7},      {7, 1},       {1, 33},     {33, 1},      {1, 4097},
      {4097, 1},   {1, 100003}, {100003, 1}, {2, 2},     {3, 5},       {5, 3},      {4, 4},       {8, 4},
      {4, 8},      {17, 33},   {33, 17},    {31, 31},    {31, 32},     {32, 31},    {32, 32},     {32, 33},
      {33, 32},    {33, 33},   {63, 65},    {64, 64},    {65, 63},     {96, 100},   {100, 96},    {36, 4100},
      {4100, 36},  {8, 1028},  {1028, 8},   {128, 4},    {4, 128},     {33, 4097},  {4097, 33},   {100, 1000},
      {1000, 1024}, {1024, 1000}, {257, 513}, {2048, 2049}, {1024, 1024}, {2052, 1028},
  };
  for (std::int64_t n : tut::testing::extra_sizes()) {
    list.push_back({n, n});
    list.push_back({1, n});
    list.push_back({n, 3});
  }
  return sanitizer_sized(list);
}

/// Start offsets (floats past a 16-byte boundary) of A and B.
struct Offsets {
  std::size_t a = 0, b = 0;
};

/// "" if `v` can run on this GPU and build; otherwise why not.
inline std::string why_not_here(const Version& v) {
  if (tut::current_cc() < v.info.min_cc) return "needs sm_" + std::to_string(v.info.min_cc);
  return v.unavailable != nullptr ? v.unavailable() : "";
}

/// Runs `launch` on an R x C matrix and REQUIREs the exact expected B (A^T, or A for a copy),
/// no write outside B, and A unchanged.
inline void require_correct(Launch launch, Output output, std::int64_t R, std::int64_t C, Offsets off,
                            std::uint64_t seed) {
  using tut::testing::GuardedBuffer;
  const std::size_t n = static_cast<std::size_t>(R) * static_cast<std::size_t>(C);
  const std::vector<float> ha = tut::random_floats(n, tut::derive_seed(seed, 0));
  GuardedBuffer A(n, off.a), B(n, off.b);
  A.upload(ha);
  B.poison();  // NaN: an element the kernel forgets to write fails the check
  launch(A.data(), B.data(), R, C, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());

  const tut::ErrorStats stats = check(B.to_host(), ha, R, C, output);
  INFO("R = " << R << ", C = " << C << ", offsets (A, B) = (" << off.a << ", " << off.b << "), seed " << seed);
  INFO(stats.describe(exact_tolerance(), [R, C, output](std::size_t i) {
    const auto k = static_cast<std::int64_t>(i);
    const std::int64_t cols = output == Output::copied ? C : R;
    return "B[" + std::to_string(k / cols) + "][" + std::to_string(k % cols) + "]";
  }));
  REQUIRE(stats.passed(exact_tolerance()));
  REQUIRE(B.check_guards() == "");
  REQUIRE(A.check_guards() == "");
  REQUIRE(tut::testing::compare_bits(A.to_host(), ha) == "");
}

}  // namespace transpose::testing
