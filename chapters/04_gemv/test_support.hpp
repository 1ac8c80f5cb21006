// Test helpers of test_gpu.cpp: the shape sweep, and a check that runs one launcher on fresh
// random inputs in guarded buffers and requires that it matches the CPU reference, wrote nothing
// outside y, and left A and x untouched. (The exercise has its own checker: exercise_check.cpp.)
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/check.hpp"
#include "common/random.hpp"
#include "common/testing.hpp"
#include "gemv.hpp"

namespace gemv::testing {

/// An M x K shape.
using Shape = tut::testing::Shape2;
using tut::testing::sanitizer_sized;

/// The shapes every version is tested on: 1, primes, 31/32/33, K % 4 != 0 (rows not 16-byte
/// aligned), K = 33 and K = 100000, M = 1, short rows (K <= 128: v5's range), long rows
/// (K >= 4096: v6's range, with M small enough that K is split). $TUTORIAL_EXTRA_SIZES adds
/// n x n, 3 x n and n x 3 for each n. Under $TUTORIAL_SANITIZE=1 only M * K <= 70000 is kept.
inline std::vector<Shape> shapes() {
  std::vector<Shape> list = {
      {1, 1},     {1, 2},      {2, 1},     {1, 3},     {3, 1},      {1, 4},     {4, 1},     {5, 5},
      {7, 3},     {3, 7},      {1, 33},    {33, 1},    {17, 33},    {31, 31},   {32, 32},   {33, 33},
      {31, 32},   {32, 31},    {2, 128},   {127, 129}, {128, 127},  {129, 128}, {64, 96},   {1000, 7},
      {7, 1000},  {5, 4097},   {4097, 5},  {513, 1025}, {1024, 1024}, {2049, 257}, {1, 65537}, {65537, 1},
      {33, 100000}, {1, 100000}, {100000, 1}, {100000, 3}, {3, 100001},
      // short rows (v5): several rows per warp, vectorized (K % 4 == 0) and not
      {777, 2},   {777, 4},    {777, 6},   {777, 8},   {777, 12},   {777, 16},  {777, 31},  {777, 63},
      {777, 64},  {777, 65},   {777, 100}, {777, 127}, {777, 128},
      // long rows (v6): few rows, K split into chunks (with head and tail per chunk when K % 4 != 0)
      {1, 4096},  {3, 4097},   {9, 8191},  {33, 8192}, {257, 8193}, {17, 65536}, {9, 100000}, {1024, 4100},
  };
  for (std::int64_t n : tut::testing::extra_sizes()) {
    list.push_back({n, n});
    list.push_back({3, n});
    list.push_back({n, 3});
  }
  return sanitizer_sized(list);
}

/// Start offsets (floats past a 16-byte boundary) of A, x and y.
struct Offsets {
  std::size_t a = 0, x = 0, y = 0;
};

/// Runs `launch` (computing `op`) on an M x K problem and REQUIREs a correct, in-bounds,
/// input-preserving result.
inline void require_correct(Launch launch, Op op, std::int64_t M, std::int64_t K, Offsets off, std::uint64_t seed) {
  using tut::testing::GuardedBuffer;
  const std::size_t na = static_cast<std::size_t>(M) * static_cast<std::size_t>(K);
  const std::size_t nx = static_cast<std::size_t>(x_length(op, M, K)), ny = static_cast<std::size_t>(y_length(op, M, K));
  const std::vector<float> ha = tut::random_floats(na, tut::derive_seed(seed, 0));
  const std::vector<float> hx = tut::random_floats(nx, tut::derive_seed(seed, 1));
  GuardedBuffer A(na, off.a), x(nx, off.x), y(ny, off.y);
  A.upload(ha);
  x.upload(hx);
  y.poison();  // NaN: an output the kernel forgets to write fails the check
  launch(A.data(), x.data(), y.data(), M, K, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());

  const std::vector<float> got = y.to_host();
  const Reference ref = reference(op, ha.data(), hx.data(), M, K);
  INFO(op_name(op) << " with M = " << M << ", K = " << K << ", offsets (A, x, y) = (" << off.a << ", " << off.x
                   << ", " << off.y << "), seed " << seed);
  TUT_REQUIRE_MATCH(check(got.data(), ref), tolerance(ref.length));
  REQUIRE(y.check_guards() == "");
  REQUIRE(A.check_guards() == "");
  REQUIRE(x.check_guards() == "");
  REQUIRE(tut::testing::compare_bits(A.to_host(), ha) == "");
  REQUIRE(tut::testing::compare_bits(x.to_host(), hx) == "");
}

}  // namespace gemv::testing
