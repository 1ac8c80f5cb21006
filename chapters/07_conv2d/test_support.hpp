// Test helpers of test_gpu.cpp: the shape sweep, seeded inputs, and one run of a version on
// guarded buffers, checked against the CPU reference (nothing written outside y, inputs
// unchanged). The exercise has its own checker (exercise_check.cpp).
#pragma once

#include <cuda_bf16.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/random.hpp"
#include "common/testing.hpp"
#include "conv2d.hpp"

namespace conv2d::testing {

/// A shape from its eleven numbers.
inline ConvShape make(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t k, std::int64_t r,
                      std::int64_t s, std::int64_t pad_h, std::int64_t pad_w, std::int64_t stride_h, std::int64_t stride_w) {
  ConvShape sh;
  sh.n = n, sh.c = c, sh.h = h, sh.w = w, sh.k = k, sh.r = r, sh.s = s, sh.pad_h = pad_h, sh.pad_w = pad_w,
  sh.stride_h = stride_h, sh.stride_w = stride_w;
  return sh;
}

/// The sweep: 1x1 to 11x11 filters, R != S, strides 1, 2 and 3, padding 0 to 3 (asymmetric
/// too), P = 1, Q = 1, C = 1, K = 1, C and K not multiples of 4 or 8, odd H and W, N = 1, K
/// above 128, long reductions (split-K), partial tiles everywhere; plus three shapes per size v
/// in $TUTORIAL_EXTRA_SIZES (v x v+1 with 3x3, v x v with 5x5 stride 2, v x v+2 with C = 16).
/// Under $TUTORIAL_SANITIZE=1 only shapes of up to 2^21 multiply-adds are kept.
inline std::vector<ConvShape> sweep_shapes() {
  std::vector<ConvShape> shapes = {
      make(1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1),        // everything 1
      make(1, 1, 5, 7, 1, 3, 3, 1, 1, 1, 1),        // C = K = 1, odd H and W
      make(2, 3, 17, 19, 5, 3, 3, 1, 1, 1, 1),      // C, K not multiples of 4
      make(1, 8, 16, 16, 8, 1, 1, 0, 0, 1, 1),      // 1x1
      make(3, 16, 15, 13, 24, 3, 3, 1, 1, 1, 1),    // C % 8 == 0 (the 16-byte paths), K = 24
      make(2, 5, 23, 29, 7, 7, 7, 3, 3, 2, 2),      // 7x7, stride 2, pad 3
      make(1, 4, 20, 21, 6, 3, 5, 0, 2, 1, 1),      // R != S, asymmetric padding
      make(2, 3, 31, 33, 9, 5, 3, 2, 1, 3, 3),      // stride 3
      make(1, 2, 9, 9, 3, 3, 3, 0, 0, 2, 2),        // pad 0, stride 2
      make(1, 6, 40, 30, 6, 6, 6, 0, 0, 1, 1),      // 6x6, C = K = 6 (the 6-channel layer, small)
      make(1, 3, 3, 50, 4, 3, 3, 0, 1, 1, 1),       // P = 1
      make(2, 5, 40, 2, 3, 3, 2, 1, 0, 1, 1),       // Q = 1
      make(1, 64, 12, 12, 64, 3, 3, 1, 1, 1, 1),    // 64 channels in and out
      make(2, 32, 9, 11, 130, 3, 3, 1, 1, 1, 1),    // K = 130: wide tiles plus a partial one
      make(1, 256, 7, 7, 64, 3, 3, 1, 1, 1, 1),     // reduction of 2304 over 49 pixels: split-K
      make(4, 8, 33, 35, 16, 3, 3, 1, 1, 1, 1),     // many partial tiles, C % 8 == 0
      make(1, 1, 64, 64, 1, 5, 5, 2, 2, 1, 1),      // one channel, 5x5
      make(2, 24, 30, 30, 40, 1, 1, 0, 0, 2, 2),    // 1x1 with stride 2
      make(1, 3, 11, 11, 2, 11, 11, 0, 0, 1, 1),    // the filter covers the image: P = Q = 1
      make(1, 16, 10, 10, 8, 3, 3, 3, 3, 1, 1),     // pad 3 > R - 1: border outputs see only padding
      make(5, 9, 14, 14, 33, 3, 3, 1, 1, 1, 1),     // odd C and K, 14x14
      make(1, 40, 17, 17, 72, 3, 3, 2, 2, 1, 1),    // pad 2, K = 72
      make(3, 12, 9, 8, 10, 2, 2, 0, 0, 2, 2),      // 2x2, stride 2
      make(2, 8, 28, 28, 16, 3, 3, 1, 1, 1, 1),     // the 28x28 layer, thin
  };
  for (std::int64_t v : tut::testing::extra_sizes()) {
    if (v < 1 || v > 300) continue;  // images up to 300 x 302 (the CPU reference is full)
    shapes.push_back(make(2, 3, v, v + 1, 5, 3, 3, 1, 1, 1, 1));
    if (v >= 2) shapes.push_back(make(1, 8, v, v, 16, 5, 5, 2, 2, 2, 2));
    shapes.push_back(make(1, 16, v, v + 2, 24, 3, 3, 1, 1, 1, 1));
  }
  if (tut::testing::sanitizing()) {
    std::vector<ConvShape> small;
    for (const ConvShape& s : shapes) {
      if (static_cast<double>(s.output_elements()) * static_cast<double>(s.reduction()) <= 2097152.0) small.push_back(s);
    }
    return small;
  }
  return shapes;
}

/// Host inputs of one case: NCHW x and KCRS w, uniform in [-1, 1), rounded to bf16 for the bf16
/// versions (the values the kernel and the reference see).
struct Inputs {
  std::vector<float> x, w;
};

/// Fresh seeded inputs for `s` in precision `p`.
inline Inputs make_inputs(const ConvShape& s, Precision p, std::uint64_t seed) {
  Inputs in;
  in.x = tut::random_floats(static_cast<std::size_t>(s.input_elements()), tut::derive_seed(seed, 0));
  in.w = tut::random_floats(static_cast<std::size_t>(s.filter_elements()), tut::derive_seed(seed, 1));
  if (p == Precision::bf16) {
    for (auto* v : {&in.x, &in.w})
      for (float& f : *v) f = round_to_bf16(f);
  }
  return in;
}

/// Start offsets of x, w and y past a 16-byte boundary, in 4-byte words (one fp32 value, two bf16
/// values; Guarded): misaligned starts force the scalar paths of the vectorized versions.
struct Offsets {
  std::size_t x = 0, w = 0, y = 0;
};

/// A guarded device array of `count` values of type T (float or bf16), `offset` floats past a
/// 16-byte boundary: a GuardedBuffer of floats holding the values bit for bit.
template <class T>
class Guarded {
 public:
  Guarded(std::size_t count, std::size_t offset) : count_(count), buf_((count * sizeof(T) + 3) / 4, offset) {}
  /// The first value.
  T* data() { return reinterpret_cast<T*>(buf_.data()); }
  /// Uploads exactly `count` values (NaN padding after an odd number of bf16 values).
  void upload(const std::vector<T>& values) {
    std::vector<float> packed(buf_.size());
    std::memset(packed.data(), 0xFF, packed.size() * 4);
    std::memcpy(packed.data(), values.data(), count_ * sizeof(T));
    buf_.upload(packed);
  }
  /// Downloads the `count` values.
  std::vector<T> to_host() const {
    const std::vector<float> packed = buf_.to_host();
    std::vector<T> values(count_);
    std::memcpy(static_cast<void*>(values.data()), packed.data(), count_ * sizeof(T));
    return values;
  }
  /// "" if nothing was written outside the values.
  std::string check_guards() const { return buf_.check_guards(); }

 private:
  std::size_t count_;
  tut::testing::GuardedBuffer buf_;
};

/// Converts floats (already bf16 values) to bf16.
inline std::vector<__nv_bfloat16> to_bf16(const std::vector<float>& v) {
  std::vector<__nv_bfloat16> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = __float2bfloat16_rn(v[i]);
  return out;
}

/// Runs `kern` once on `in` (converted to its layout and precision) and returns y in the
/// kernel's layout, as floats. y starts as NaN; REQUIREs that nothing outside y was written and
/// that x and w are unchanged.
template <class T>
std::vector<float> run_typed(const Kernel& kern, const ConvShape& s, const Inputs& in, Offsets off) {
  const bool nhwc = kern.layout == Layout::nhwc;
  const std::vector<float> x = nhwc ? to_channels_last(in.x, s.n, s.c, s.h * s.w) : in.x;
  const std::vector<float> w = nhwc ? to_channels_last(in.w, s.k, s.c, s.r * s.s) : in.w;
  std::vector<T> xt(x.size()), wt(w.size());
  for (std::size_t i = 0; i < x.size(); ++i) xt[i] = T(x[i]);
  for (std::size_t i = 0; i < w.size(); ++i) wt[i] = T(w[i]);
  Guarded<T> dx(xt.size(), off.x), dw(wt.size(), off.w), dy(static_cast<std::size_t>(s.output_elements()), off.y);
  dx.upload(xt);
  dw.upload(wt);
  if constexpr (sizeof(T) == 2) {
    kern.bf16(s, dx.data(), dw.data(), dy.data(), nullptr);
  } else {
    kern.f32(s, dx.data(), dw.data(), dy.data(), nullptr);
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<T> xb = dx.to_host(), wb = dw.to_host();
  REQUIRE(std::memcmp(xb.data(), xt.data(), xt.size() * sizeof(T)) == 0);  // inputs unchanged
  REQUIRE(std::memcmp(wb.data(), wt.data(), wt.size() * sizeof(T)) == 0);
  REQUIRE(dx.check_guards() == "");
  REQUIRE(dw.check_guards() == "");
  REQUIRE(dy.check_guards() == "");  // nothing written outside y
  const std::vector<T> yt = dy.to_host();
  std::vector<float> y(yt.size());
  for (std::size_t i = 0; i < yt.size(); ++i) y[i] = static_cast<float>(yt[i]);
  return y;
}

/// run_typed() in the kernel's precision.
inline std::vector<float> run_once(const Kernel& kern, const ConvShape& s, const Inputs& in, Offsets off = {}) {
  if (kern.precision == Precision::bf16) return run_typed<__nv_bfloat16>(kern, s, in, off);
  return run_typed<float>(kern, s, in, off);
}

/// Runs `kern` on `in` and REQUIREs a correct, in-bounds, input-preserving result (`ref` is the
/// reference of `in`).
inline void require_matches(const Kernel& kern, const std::string& name, const ConvShape& s, const Inputs& in,
                            const Reference& ref, Offsets off = {}) {
  INFO(name << " (" << precision_name(kern.precision) << ", " << layout_name(kern.layout) << ") on "
            << shape_text(s) << ", offsets (x, w, y) = (" << off.x << ", " << off.w << ", " << off.y << ")");
  const std::vector<float> got = run_once(kern, s, in, off);
  const tut::Tolerance tol = tolerance(kern.precision, s.reduction(), kern.winograd);
  const tut::ErrorStats stats = check_output(s, kern.precision, kern.layout, ref, got.data(), tol);
  INFO(stats.describe(tol, [&s](std::size_t i) { return format_index(s, i); }));
  REQUIRE(stats.passed(tol));
}

/// require_matches() on fresh inputs of seed `seed`.
inline void require_correct(const Kernel& kern, const std::string& name, const ConvShape& s, std::uint64_t seed,
                            Offsets off = {}) {
  INFO("seed " << seed);
  const Inputs in = make_inputs(s, kern.precision, seed);
  const Reference ref = make_reference(s, in.x.data(), in.w.data(), seed);
  require_matches(kern, name, s, in, ref, off);
}

}  // namespace conv2d::testing
