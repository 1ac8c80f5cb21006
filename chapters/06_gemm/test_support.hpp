// Test helper of test_gpu.cpp: run one GEMM on fresh random inputs
// in guarded buffers and require that it matches the CPU reference, wrote nothing outside C, and
// left its inputs untouched.
#pragma once

#include <cuda_bf16.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/device_info.hpp"
#include "common/device_buffer.hpp"
#include "common/random.hpp"
#include "common/testing.hpp"
#include "gemm.hpp"

namespace gemm::testing {

/// Start offsets, in elements past a 16-byte boundary, of A, B and C (misaligned starts force
/// the scalar paths of the vectorized versions).
struct Offsets {
  std::size_t a = 0, b = 0, c = 0;
};

/// "m x n x k".
inline std::string text(const Shape& s) {
  return std::to_string(s.m) + " x " + std::to_string(s.n) + " x " + std::to_string(s.k);
}

/// The sweep: 1 x 1 x 1, small primes, K = 1, K % 4 != 0, 31/32/33, 127/128/129, M or N = 1,
/// non-multiples of every tile, 33 x 4097 x 17, multi-stage K, rectangular everything; plus
/// (s, s, s) and (s, s + 1, s + 3) for each s in $TUTORIAL_EXTRA_SIZES. Under
/// $TUTORIAL_SANITIZE=1 only shapes of up to 2^22 multiply-adds are kept.
inline std::vector<Shape> sweep_shapes() {
  std::vector<Shape> shapes = {
      {1, 1, 1},       {1, 1, 7},       {2, 3, 5},       {7, 5, 3},        {17, 33, 9},     {33, 4097, 17},
      {4097, 33, 17},  {64, 64, 1},     {65, 33, 1},     {31, 32, 33},     {127, 127, 127}, {128, 128, 128},
      {129, 129, 129}, {127, 129, 128}, {129, 127, 130}, {1, 4097, 1023},  {1025, 1, 513},  {136, 264, 40},
      {255, 257, 67},  {256, 512, 64},  {257, 513, 96},  {300, 200, 1001},
  };
  for (std::int64_t v : tut::testing::extra_sizes()) {
    if (v < 1 || v > 4096) continue;  // GEMM shapes: cubes up to 4096 (the reference samples above 2^31 MACs)
    shapes.push_back({v, v, v});
    shapes.push_back({v, v + 1, v + 3});
  }
  if (tut::testing::sanitizing()) {
    std::vector<Shape> small;
    for (const Shape& s : shapes) {
      if (static_cast<double>(s.m) * s.n * s.k <= 4194304.0) small.push_back(s);
    }
    return small;
  }
  return shapes;
}

/// Host inputs of one case, rounded to the kernel's precision (what the kernel and the reference see).
struct Inputs {
  std::vector<float> a, b, c0;  ///< c0 is empty when beta == 0
};

/// Fresh seeded inputs in [-1, 1), rounded to `p`.
inline Inputs make_inputs(const Shape& s, Precision p, bool with_c0, std::uint64_t seed) {
  Inputs in;
  in.a = tut::random_floats(static_cast<std::size_t>(s.m * s.k), tut::derive_seed(seed, 0));
  in.b = tut::random_floats(static_cast<std::size_t>(s.k * s.n), tut::derive_seed(seed, 1));
  if (with_c0) in.c0 = tut::random_floats(static_cast<std::size_t>(s.m * s.n), tut::derive_seed(seed, 2));
  for (auto* v : {&in.a, &in.b}) {
    for (float& x : *v) {
      if (p == Precision::tf32) x = round_to_tf32(x);
      if (p == Precision::bf16) x = round_to_bf16(x);
    }
  }
  return in;
}

/// Converts floats (already representable) to bfloat16.
inline std::vector<__nv_bfloat16> to_bf16(const std::vector<float>& v) {
  std::vector<__nv_bfloat16> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = __float2bfloat16_rn(v[i]);
  return out;
}

/// Runs `kern` once on `in` and returns C (all m * n elements). C starts as NaN when beta == 0
/// (a kernel that reads C then fails), as in.c0 otherwise. Also REQUIREs that nothing outside C
/// was written and that A and B are unchanged.
inline std::vector<float> run_once(const Kernel& kern, const Shape& s, float alpha, float beta, const Inputs& in,
                                   Offsets off) {
  using tut::testing::GuardedBuffer;
  const std::size_t mk = static_cast<std::size_t>(s.m * s.k), kn = static_cast<std::size_t>(s.k * s.n),
                    mn = static_cast<std::size_t>(s.m * s.n);
  GuardedBuffer c(mn, off.c);  // poisoned with NaN
  if (beta != 0.0f) c.upload(in.c0);
  if (kern.precision == Precision::bf16) {
    const std::vector<__nv_bfloat16> a16 = to_bf16(in.a), b16 = to_bf16(in.b);
    tut::DeviceBuffer<__nv_bfloat16> da(mk + off.a + 1), db(kn + off.b + 1);
    CUDA_CHECK(cudaMemcpy(da.data() + off.a, a16.data(), mk * 2, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(db.data() + off.b, b16.data(), kn * 2, cudaMemcpyHostToDevice));
    kern.bf16(s.m, s.n, s.k, alpha, da.data() + off.a, db.data() + off.b, beta, c.data(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<__nv_bfloat16> back_a(mk), back_b(kn);
    CUDA_CHECK(cudaMemcpy(back_a.data(), da.data() + off.a, mk * 2, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(back_b.data(), db.data() + off.b, kn * 2, cudaMemcpyDeviceToHost));
    REQUIRE(std::memcmp(back_a.data(), a16.data(), mk * 2) == 0);  // inputs unchanged
    REQUIRE(std::memcmp(back_b.data(), b16.data(), kn * 2) == 0);
  } else {
    GuardedBuffer da(mk, off.a), db(kn, off.b);
    da.upload(in.a);
    db.upload(in.b);
    kern.f32(s.m, s.n, s.k, alpha, da.data(), db.data(), beta, c.data(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    REQUIRE(tut::testing::compare_bits(da.to_host(), in.a) == "");  // inputs unchanged
    REQUIRE(tut::testing::compare_bits(db.to_host(), in.b) == "");
  }
  REQUIRE(c.check_guards() == "");  // nothing written outside C
  return c.to_host();
}

/// Runs `kern` on fresh inputs and REQUIREs a correct, in-bounds, input-preserving result.
inline void require_correct(const Kernel& kern, const std::string& name, const Shape& s, float alpha, float beta,
                            Offsets off, std::uint64_t seed) {
  const Inputs in = make_inputs(s, kern.precision, beta != 0.0f, seed);
  INFO(name << " (" << precision_name(kern.precision) << ") on " << text(s) << ", alpha " << alpha << ", beta "
            << beta << ", offsets (a, b, c) = (" << off.a << ", " << off.b << ", " << off.c << "), seed " << seed);
  const std::vector<float> got = run_once(kern, s, alpha, beta, in, off);
  const Reference ref = make_reference(s, alpha, in.a.data(), in.b.data(), beta,
                                       in.c0.empty() ? nullptr : in.c0.data(), seed);
  const tut::Tolerance tol = tolerance(kern.precision, s.k);
  const tut::ErrorStats stats = check_output(ref, got.data(), tol);
  const std::int64_t n = s.n;
  INFO(stats.describe(tol, [n](std::size_t i) { return format_index(i, n); }));
  REQUIRE(stats.passed(tol));
}

}  // namespace gemm::testing
