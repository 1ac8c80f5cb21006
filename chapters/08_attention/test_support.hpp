// Test helpers of test_gpu.cpp: fresh inputs, one run in guarded buffers (nothing written outside
// O and lse, inputs unchanged), and the check against the CPU reference (O and lse, exact zeros and
// -inf for rows that see no key).
#pragma once

#include <cuda_bf16.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "attention.hpp"
#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/random.hpp"
#include "common/testing.hpp"

namespace attention::testing {

/// The inputs' ranges: Q and K uniform in [-qk, qk), V in [-v, v). The default gives scores of unit
/// variance; qk = 24 gives scores of a few hundred (exp of them overflows fp32 without the max).
struct Ranges {
  float qk = std::sqrt(3.0f);  ///< |Q|, |K| bound
  float v = 1.0f;              ///< |V| bound
};

/// Host inputs of one case, as the kernel sees them (rounded to bf16 for the bf16 versions).
struct Inputs {
  std::vector<float> q, k, v;  ///< [B, H, Sq, D], [B, H, Sk, D], [B, H, Sk, D]
};

/// The sweep of DESIGN.md for attention (B, H, Sq, Sk, D, causal): Sq and Sk = 1, not multiples
/// of any tile (17, 63, 65, 1000, 4097) and multiples of the tiles (64, 128, 256; v11's 176: 352, and
/// 175 and 177 around it), Sq != Sk both ways,
/// causal with Sq != Sk (rows, and at 256 x 64 whole blocks, that see nothing), D = 64 and 128,
/// B H = 1 and 512; plus, for each n in $TUTORIAL_EXTRA_SIZES,
/// (1, 2, n, n, 64, causal) and (1, 1, n, n + 33, 128). Under $TUTORIAL_SANITIZE=1 only shapes of
/// up to 2^21 multiply-adds per product are kept.
inline std::vector<Shape> sweep_shapes() {
  std::vector<Shape> shapes = {
      {1, 1, 1, 1, 64, false},       {1, 1, 1, 1, 64, true},         {1, 1, 1, 1, 128, false},
      {1, 1, 17, 17, 64, false},     {1, 1, 17, 17, 128, true},      {1, 2, 63, 65, 64, false},
      {1, 2, 63, 65, 64, true},      {1, 2, 65, 63, 128, false},     {1, 2, 65, 63, 128, true},
      {2, 3, 1000, 1000, 64, true},  {1, 2, 1000, 1000, 128, false}, {1, 1, 4097, 17, 64, true},
      {1, 1, 17, 4097, 128, true},   {1, 1, 1, 4097, 64, true},      {1, 1, 4097, 1, 64, true},
      {1, 1, 4097, 1, 128, false},   {1, 1, 1000, 4097, 64, false},  {2, 1, 4097, 1000, 128, true},
      {8, 64, 65, 129, 64, true},    {4, 128, 33, 31, 128, false},   {1, 1, 129, 129, 64, true},
      {1, 1, 127, 128, 128, true},   {1, 3, 257, 255, 64, false},    {2, 2, 128, 256, 64, true},
      {1, 3, 256, 64, 128, true},    {1, 2, 175, 177, 128, true},    {1, 1, 353, 352, 128, false},
      {1, 2, 193, 191, 64, true},    {1, 1, 385, 384, 64, false},
      // Several items per block of v13's persistent grid (288 items on at most 132 SMs), of
      // different lengths with the mask.
      {1, 96, 400, 300, 64, true},   {1, 96, 300, 260, 128, true},  {1, 160, 200, 700, 64, false},
  };
  for (std::int64_t n : tut::testing::extra_sizes()) {
    if (n < 1 || n > 8192) continue;  // the reference is computed in full: keep it short
    shapes.push_back({1, 2, n, n, 64, true});
    shapes.push_back({1, 1, n, n + 33, 128, false});
  }
  if (!tut::testing::sanitizing()) return shapes;
  std::vector<Shape> small;
  for (const Shape& s : shapes) {
    if (static_cast<double>(s.heads()) * s.sq * s.sk * s.d <= 2097152.0) small.push_back(s);
  }
  return small;
}

/// "B1 H2 Sq63 Sk65 D64 causal".
inline std::string text(const Shape& s) { return shape_text(s); }

/// Fresh seeded inputs, rounded to bf16 when `p` is bf16.
inline Inputs make_inputs(const Shape& s, Precision p, std::uint64_t seed, Ranges r = {}) {
  Inputs in;
  in.q = tut::random_floats(static_cast<std::size_t>(s.heads() * s.sq * s.d), tut::derive_seed(seed, 0), -r.qk, r.qk);
  in.k = tut::random_floats(static_cast<std::size_t>(s.heads() * s.sk * s.d), tut::derive_seed(seed, 1), -r.qk, r.qk);
  in.v = tut::random_floats(static_cast<std::size_t>(s.heads() * s.sk * s.d), tut::derive_seed(seed, 2), -r.v, r.v);
  if (p == Precision::bf16) {
    for (auto* x : {&in.q, &in.k, &in.v})
      for (float& e : *x) e = round_to_bf16(e);
  }
  return in;
}

/// A device array of T between two guard zones (a sentinel bit pattern), the inside poisoned with
/// 0xFF bytes (NaN for float and bf16). check_guards() says if anything wrote outside.
template <class T>
class Guarded {
 public:
  static constexpr std::size_t kGuard = 1024;  ///< elements on each side (16-byte aligned inside)

  explicit Guarded(std::size_t n) : n_(n), all_(n + 2 * kGuard) {
    CUDA_CHECK(cudaMemset(all_.data(), 0x5A, all_.bytes()));
    CUDA_CHECK(cudaMemset(data(), 0xFF, n_ * sizeof(T)));
  }
  T* data() { return all_.data() + kGuard; }
  std::size_t size() const { return n_; }
  void upload(const std::vector<T>& values) {
    CUDA_CHECK(cudaMemcpy(data(), values.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> to_host() {
    std::vector<T> out(n_);
    CUDA_CHECK(cudaMemcpy(out.data(), data(), n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return out;
  }
  /// "" if both guards still hold the sentinel; else where the first overwritten byte is. (Only
  /// the two guards are copied back: the inside is the caller's to read.)
  std::string check_guards() const {
    const std::size_t guard_bytes = kGuard * sizeof(T);
    std::vector<unsigned char> before(guard_bytes), after(guard_bytes);
    CUDA_CHECK(cudaMemcpy(before.data(), all_.data(), guard_bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(after.data(), all_.data() + kGuard + n_, guard_bytes, cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < guard_bytes; ++i) {
      if (before[i] != 0x5A) return "written before the start, at byte " + std::to_string(i) + " of the guard";
      if (after[i] != 0x5A) return "written past the end, at element n + " + std::to_string(i / sizeof(T));
    }
    return "";
  }

 private:
  std::size_t n_;
  tut::DeviceBuffer<T> all_;
};

/// O (as floats) and lse of one run.
struct Outputs {
  std::vector<float> o, lse;
};

/// Converts floats (already bf16 values) to bf16.
inline std::vector<__nv_bfloat16> to_bf16(const std::vector<float>& x) {
  std::vector<__nv_bfloat16> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = __float2bfloat16_rn(x[i]);
  return out;
}

/// Runs `kern` once on `in` with `workspace_bytes` of scratch, O and lse poisoned and guarded, and
/// REQUIREs that nothing outside O and lse was written and that Q, K, V are unchanged.
inline Outputs run_once(const Kernel& kern, double workspace_bytes, const Shape& s, const Inputs& in) {
  const std::size_t nq = in.q.size(), nkv = in.k.size(), nrows = static_cast<std::size_t>(s.heads() * s.sq);
  tut::DeviceBuffer<unsigned char> ws(static_cast<std::size_t>(workspace_bytes));
  void* wsp = ws.size() > 0 ? ws.data() : nullptr;
  // Zeroed only for compute-sanitizer's initcheck: on the H100 it flagged every read of S that
  // cuBLAS's BF16 GEMM had written when S's rows were 16-byte aligned (where cuBLAS's Hopper kernels
  // store through the TMA engine, which initcheck does not follow), though the results were right;
  // the fp32 path and the unaligned shapes were clean. S is entirely written by the GEMM anyway.
  if (wsp != nullptr) CUDA_CHECK(cudaMemset(wsp, 0, ws.bytes()));
  Guarded<float> lse(nrows);
  Outputs out;
  if (kern.precision == Precision::bf16) {
    Guarded<__nv_bfloat16> q(nq), k(nkv), v(nkv), o(nq);
    const auto q16 = to_bf16(in.q), k16 = to_bf16(in.k), v16 = to_bf16(in.v);
    q.upload(q16);
    k.upload(k16);
    v.upload(v16);
    kern.bf16(s, q.data(), k.data(), v.data(), o.data(), lse.data(), wsp, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    REQUIRE(o.check_guards() == "");
    REQUIRE(std::memcmp(q.to_host().data(), q16.data(), nq * 2) == 0);  // inputs unchanged
    REQUIRE(std::memcmp(k.to_host().data(), k16.data(), nkv * 2) == 0);
    REQUIRE(std::memcmp(v.to_host().data(), v16.data(), nkv * 2) == 0);
    REQUIRE(q.check_guards() == "");
    const std::vector<__nv_bfloat16> o16 = o.to_host();
    out.o.resize(nq);
    for (std::size_t i = 0; i < nq; ++i) out.o[i] = __bfloat162float(o16[i]);
  } else {
    Guarded<float> q(nq), k(nkv), v(nkv), o(nq);
    q.upload(in.q);
    k.upload(in.k);
    v.upload(in.v);
    kern.f32(s, q.data(), k.data(), v.data(), o.data(), lse.data(), wsp, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    REQUIRE(o.check_guards() == "");
    REQUIRE(tut::testing::compare_bits(q.to_host(), in.q) == "");  // inputs unchanged
    REQUIRE(tut::testing::compare_bits(k.to_host(), in.k) == "");
    REQUIRE(tut::testing::compare_bits(v.to_host(), in.v) == "");
    out.o = o.to_host();
  }
  REQUIRE(lse.check_guards() == "");
  out.lse = lse.to_host();
  return out;
}

/// What names a case in the caches below: its shape, precision and inputs (`input_key`).
inline std::string case_key(const Shape& s, Precision p, const std::string& input_key) {
  return shape_text(s) + "|" + precision_name(p) + "|" + input_key;
}

/// The full reference of a case, computed once per distinct inputs (several versions share it).
inline const Reference& reference_for(const Shape& s, const Inputs& in, const std::string& key) {
  static std::map<std::string, Reference> cache;
  auto it = cache.find(key);
  if (it == cache.end()) {
    if (cache.size() > 64) cache.clear();
    it = cache.emplace(key, make_reference(s, in.q.data(), in.k.data(), in.v.data(), 0, 1e300)).first;
  }
  return it->second;
}

/// Runs `kern` on `in` and REQUIREs O and lse within the tolerances of its precision.
inline void require_correct_on(const Kernel& kern, double workspace_bytes, const std::string& name, const Shape& s,
                               const Inputs& in, const std::string& input_key) {
  INFO(name << " (" << precision_name(kern.precision) << ") on " << text(s) << ", inputs " << input_key);
  const Outputs out = run_once(kern, workspace_bytes, s, in);
  // An entry of the cache, valid until the next call. (The key is named: g++ 13 warns of a
  // dangling reference when the returned one is bound beside a temporary argument.)
  const std::string key = case_key(s, kern.precision, input_key);
  const Reference& ref = reference_for(s, in, key);
  const Tolerances tol = tolerances(kern.precision, s, max_abs(in.q.data(), in.q.size()),
                                    max_abs(in.k.data(), in.k.size()), max_abs(in.v.data(), in.v.size()));
  const Check chk = check_output(ref, s, out.o.data(), out.lse.data(), tol);
  INFO(chk.describe(tol, s));
  REQUIRE(chk.passed(tol));
}

/// The text that names a case's inputs: the seed and the ranges (the tests' messages print it).
inline std::string input_name(std::uint64_t seed, Ranges ranges) {
  return "seed " + std::to_string(seed) + " range " + std::to_string(ranges.qk) + "/" + std::to_string(ranges.v);
}

/// make_inputs(), made once per shape, precision, seed and ranges while they fit in 1 GiB: the
/// sweep runs every version on the same cases, and making their inputs on the host took half of
/// its time. The entry is valid until the next call.
inline const Inputs& inputs_for(const Shape& s, Precision p, std::uint64_t seed, Ranges ranges) {
  static std::map<std::string, Inputs> cache;
  static std::size_t bytes = 0;
  const std::string key = case_key(s, p, input_name(seed, ranges));
  auto it = cache.find(key);
  if (it == cache.end()) {
    Inputs in = make_inputs(s, p, seed, ranges);
    const std::size_t size = sizeof(float) * (in.q.size() + in.k.size() + in.v.size());
    if (bytes + size > (std::size_t{1} << 30)) {
      cache.clear();
      bytes = 0;
    }
    bytes += size;
    it = cache.emplace(key, std::move(in)).first;
  }
  return it->second;
}

/// Fresh inputs from `seed` in `ranges` (inputs_for()), then require_correct_on().
inline void require_correct(const Kernel& kern, double workspace_bytes, const std::string& name, const Shape& s,
                            std::uint64_t seed, Ranges ranges = {}) {
  const Inputs& in = inputs_for(s, kern.precision, seed, ranges);
  require_correct_on(kern, workspace_bytes, name, s, in, input_name(seed, ranges));
}

/// Inputs whose largest scores come last in every row: Q and K positive, key j's scale growing
/// from 1 to 31 along the sequence. A max taken over the first tile only is ~1/30 of the row's:
/// exp of the later scores overflows (scores reach ~250 at D = 64). With `rise` the scores grow
/// by about that much (natural units) from the first key to the last instead of ~240.
inline Inputs rising_scores(const Shape& s, Precision p, std::uint64_t seed, float rise = 240.0f) {
  Inputs in;
  in.q = tut::random_floats(static_cast<std::size_t>(s.heads() * s.sq * s.d), tut::derive_seed(seed, 3), 0.5f, 1.5f);
  in.k = tut::random_floats(static_cast<std::size_t>(s.heads() * s.sk * s.d), tut::derive_seed(seed, 4), 0.5f, 1.5f);
  in.v = tut::random_floats(static_cast<std::size_t>(s.heads() * s.sk * s.d), tut::derive_seed(seed, 5), -1.0f, 1.0f);
  const float growth = rise / std::sqrt(static_cast<float>(s.d));  // the same score range for every D
  for (std::int64_t bh = 0; bh < s.heads(); ++bh)
    for (std::int64_t j = 0; j < s.sk; ++j)
      for (std::int64_t c = 0; c < s.d; ++c) {
        in.k[static_cast<std::size_t>((bh * s.sk + j) * s.d + c)] *= 1.0f + growth * static_cast<float>(j) / static_cast<float>(s.sk);
      }
  if (p == Precision::bf16) {
    for (auto* x : {&in.q, &in.k, &in.v})
      for (float& e : *x) e = round_to_bf16(e);
  }
  return in;
}

}  // namespace attention::testing
