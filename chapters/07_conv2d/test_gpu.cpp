// GPU tests of chapter 07: every version (and the cuDNN baselines) against the CPU reference
// over the shape sweep, at misaligned starts, on fresh seeds; the shapes each restricted version
// rejects; the bf16 versions on the C % 64 shapes v08 (wgmma) runs ([wgmma]); Winograd's and
// bf16's accuracy; and one input above 2^31 elements ([large]).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/device_info.hpp"
#include "common/random.hpp"
#include "test_support.hpp"

using namespace conv2d;
using conv2d::testing::make;

namespace {

/// True if this GPU can run `v`; otherwise says why in the test log.
bool runnable(const Version& v) {
  if (tut::current_cc() >= v.info.min_cc) return true;
  WARN(v.info.name << " skipped: needs sm_" << v.info.min_cc << ", this GPU is sm_" << tut::current_cc());
  return false;
}

bool is_library(const Version& v) { return v.info.kind == tut::Kind::library; }

}  // namespace

TEST_CASE("every version matches the CPU reference over the shape sweep", "[conv2d][sweep]") {
  // Versions without shape limits must run every shape; the others run what they support and
  // must say why they skip the rest (checked in "[limits]").
  std::size_t ran = 0;
  for (const ConvShape& s : conv2d::testing::sweep_shapes()) {
    const std::uint64_t seed = tut::testing::seed() + static_cast<std::uint64_t>(s.h * 131 + s.c);
    for (Precision p : {Precision::fp32, Precision::bf16}) {
      const conv2d::testing::Inputs in = conv2d::testing::make_inputs(s, p, seed);
      const Reference ref = make_reference(s, in.x.data(), in.w.data(), seed);
      for (const auto& v : versions()) {
        if (v.kernel.precision != p || is_library(v) || tut::current_cc() < v.info.min_cc) continue;
        if (!unsupported_reason(v, s).empty()) {
          REQUIRE(v.supports != nullptr);
          continue;
        }
        conv2d::testing::require_matches(v.kernel, v.info.name, s, in, ref);
        ++ran;
      }
    }
  }
  REQUIRE(ran > 0);
}

TEST_CASE("every version is correct at misaligned starts (the vector paths fall back)", "[conv2d][misaligned]") {
  // C % 8 == 0, K % 8 == 0, Q % 4 == 0: only the misalignment stops the 16-byte accesses. The
  // bf16 version requires 16-byte aligned x and w (its launcher says so) and is left out.
  const std::vector<ConvShape> shapes = {make(2, 16, 12, 12, 16, 3, 3, 1, 1, 1, 1), make(1, 8, 9, 16, 24, 1, 1, 0, 0, 1, 1)};
  const std::vector<conv2d::testing::Offsets> offsets = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {3, 2, 1}};
  for (const auto& v : versions()) {
    if (v.kernel.precision != Precision::fp32 || is_library(v)) continue;
    DYNAMIC_SECTION(v.info.name) {
      if (runnable(v)) {
        for (const ConvShape& s : shapes) {
          if (!unsupported_reason(v, s).empty()) continue;
          for (const auto& off : offsets) conv2d::testing::require_correct(v.kernel, v.info.name, s, tut::testing::seed() + 3, off);
        }
      }
    }
  }
}

TEST_CASE("fresh inputs, not one fixed data set", "[conv2d][seeds]") {
  const ConvShape thin = make(2, 16, 13, 15, 20, 3, 3, 1, 1, 1, 1);
  const ConvShape wide = make(2, 64, 13, 15, 20, 3, 3, 1, 1, 1, 1);  // for v08 (C % 64 == 0)
  for (const auto& v : versions()) {
    if (is_library(v)) continue;
    DYNAMIC_SECTION(v.info.name) {
      if (runnable(v)) {
        const ConvShape& s = unsupported_reason(v, thin).empty() ? thin : wide;
        const std::string why = unsupported_reason(v, s);
        if (!why.empty()) {
          WARN(v.info.name << " skipped: " << why);
        } else {
          for (std::uint64_t k = 1; k <= 3; ++k) {
            conv2d::testing::require_correct(v.kernel, v.info.name, s, tut::testing::seed() * 7 + k);
          }
        }
      }
    }
  }
}

TEST_CASE("the bf16 versions on shapes with C % 64 == 0 (v08's and v09's wgmma path)", "[conv2d][wgmma]") {
  // v08, v09 and v11-v14 run only C % 64 == 0, which the general sweep has twice: here their edge cases. C = 64,
  // 128, 192 and 320 (1 to 5 channel blocks per tap, more slices than pipeline stages); K = 8,
  // 20, 64, 65, 96, 128 (partial column tiles, odd K: the single-value stores); odd H and W;
  // stride 1 and 2; padding 0 to 2; 1x1, 3x3, 5x5 and R != S; N = 1 and 3; M = N P Q below 64
  // and not a multiple of 64 or 128. On an H100 (132 SMs) the last two shapes give 266 and 272
  // tiles of 128 x 64, so v08 runs its two-warpgroup kernel there, the others its one-warpgroup
  // kernel; they give v09's persistent grid (3 blocks per SM) 530 and 542 tiles of 64 x 64, so
  // its blocks walk on from one tile into the next, across column tiles too. v07 runs them too.
  std::vector<ConvShape> shapes = {
      make(1, 64, 7, 5, 20, 3, 3, 1, 1, 1, 1),      // M = 35 < 64, K = 20
      make(1, 64, 6, 6, 64, 1, 1, 0, 0, 1, 1),      // 1x1, one slice
      make(1, 128, 5, 7, 24, 3, 3, 1, 1, 2, 2),     // stride 2, two channel blocks per tap
      make(3, 64, 4, 5, 8, 5, 5, 2, 2, 1, 1),       // N = 3, 5x5, pad 2, K = 8
      make(1, 64, 5, 5, 96, 3, 3, 1, 1, 1, 1),      // K = 96: a full and a half column tile
      make(1, 192, 9, 11, 65, 3, 1, 1, 0, 1, 1),    // R != S, asymmetric padding, odd K, C = 192
      make(2, 64, 17, 19, 128, 3, 3, 0, 0, 1, 1),   // pad 0, odd H and W, K = 128: two column tiles
      make(3, 128, 15, 13, 72, 5, 3, 2, 1, 2, 2),   // 5x3, stride 2, K = 72
      make(1, 320, 130, 130, 65, 1, 1, 0, 0, 1, 1), // 1x1, 5 slices, 266 tiles of 128 x 64, odd K
      make(3, 64, 75, 77, 96, 3, 3, 1, 1, 1, 1),    // 3x3, 9 slices, 272 tiles of 128 x 64
  };
  std::size_t ran = 0;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const ConvShape& s = shapes[i];
    // Under the sanitizers: the small shapes, and the first of the two-warpgroup ones.
    const bool small = static_cast<double>(s.output_elements()) * static_cast<double>(s.reduction()) <= 2097152.0;
    if (tut::testing::sanitizing() && !small && i + 2 != shapes.size()) continue;
    const std::uint64_t seed = tut::testing::seed() + 17 * i;
    const conv2d::testing::Inputs in = conv2d::testing::make_inputs(s, Precision::bf16, seed);
    const Reference ref = make_reference(s, in.x.data(), in.w.data(), seed);
    for (const auto& v : versions()) {
      if (v.kernel.precision != Precision::bf16 || is_library(v) || !runnable(v)) continue;
      const std::string why = unsupported_reason(v, s);
      if (!why.empty()) {
        WARN(v.info.name << " skipped on " << shape_text(s) << ": " << why);
        continue;
      }
      conv2d::testing::require_matches(v.kernel, v.info.name, s, in, ref);
      ++ran;
    }
  }
  REQUIRE(ran > 0);
}

TEST_CASE("v12 where y cannot take a tensor map: v11's epilogue, still correct", "[conv2d][wgmma]") {
  // v12 stores through a tensor map of y only where its rows are multiples of 16 bytes (K % 8 ==
  // 0) and y starts on a 16-byte boundary; elsewhere it runs v11's kernel. Both sides here: y 4
  // bytes past a boundary (v11's kernel; the pair stores still apply), y 16 bytes past one (the
  // TMA store, into a guarded buffer), and K = 20 and 65 on an aligned y (v11's kernel).
  for (const auto& v : versions()) {
    if (v.info.name != "v12_tma_store_bf16_nhwc") continue;
    if (!runnable(v)) return;
    const ConvShape aligned_k = make(2, 64, 9, 11, 24, 3, 3, 1, 1, 1, 1);
    if (!unsupported_reason(v, aligned_k).empty()) {
      WARN("v12_tma_store_bf16_nhwc skipped: " << unsupported_reason(v, aligned_k));
      return;
    }
    conv2d::testing::require_correct(v.kernel, v.info.name, aligned_k, tut::testing::seed() + 5, {0, 0, 1});
    conv2d::testing::require_correct(v.kernel, v.info.name, aligned_k, tut::testing::seed() + 6, {0, 0, 4});
    for (std::int64_t k : {20, 65}) {
      conv2d::testing::require_correct(v.kernel, v.info.name, make(1, 64, 7, 9, k, 3, 3, 1, 1, 1, 1),
                                       tut::testing::seed() + 7);
    }
    return;
  }
  FAIL("v12_tma_store_bf16_nhwc is not registered");
}

TEST_CASE("v13's and v14's wide tiles on shapes where their rules would not choose them", "[conv2d][wgmma]") {
  // v13 takes two warpgroups on 128-pixel tiles only for large layers, v14 three on 192-pixel
  // tiles only where one wave of them covers the layer; the tests run both kernels everywhere: M
  // below the tile and not a multiple of it (the TMA store clips the rows; a 192-pixel tile whose
  // third warpgroup has no pixel), tiles whose pixels cross rows and images, stride 2, R != S, K
  // not a multiple of 64, and K = 20 and 65 (v11's stores from the registers, per warpgroup).
  const std::vector<ConvShape> shapes = {
      make(1, 64, 7, 5, 20, 3, 3, 1, 1, 1, 1),     make(1, 64, 11, 13, 64, 3, 3, 1, 1, 1, 1),
      make(3, 128, 15, 13, 72, 5, 3, 2, 1, 2, 2),  make(2, 64, 17, 19, 128, 3, 3, 0, 0, 1, 1),
      make(1, 192, 9, 11, 65, 3, 1, 1, 0, 1, 1),   make(3, 64, 75, 77, 96, 3, 3, 1, 1, 1, 1),
  };
  struct Wide {
    const char* version;  // the registered version whose limits the kernel has
    const char* name;
    Kernel kernel;
  };
  const Wide wide[] = {
      {"v13_shared_filters_bf16_nhwc", "v13_shared_filters_bf16_nhwc (128-pixel tiles)",
       {Precision::bf16, Layout::nhwc, nullptr, launch_conv2d_v13_tile128, false}},
      {"v14_one_wave_bf16_nhwc", "v14_one_wave_bf16_nhwc (192-pixel tiles)",
       {Precision::bf16, Layout::nhwc, nullptr, launch_conv2d_v14_tile192, false}},
  };
  for (const Wide& k : wide) {
    const Version* v = nullptr;
    for (const auto& candidate : versions()) {
      if (candidate.info.name == k.version) v = &candidate;
    }
    REQUIRE(v != nullptr);
    if (!runnable(*v)) continue;
    std::size_t ran = 0;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const ConvShape& s = shapes[i];
      const bool small = static_cast<double>(s.output_elements()) * static_cast<double>(s.reduction()) <= 2097152.0;
      if (tut::testing::sanitizing() && !small) continue;
      const std::string why = unsupported_reason(*v, s);
      if (!why.empty()) {
        WARN(k.name << " skipped on " << shape_text(s) << ": " << why);
        continue;
      }
      conv2d::testing::require_correct(k.kernel, k.name, s, tut::testing::seed() + 31 * i);
      ++ran;
    }
    if (unsupported_reason(*v, shapes[0]).empty()) REQUIRE(ran > 0);  // a GPU that runs the version ran them
  }
}

TEST_CASE("the Winograd versions on their edge cases", "[conv2d][winograd]") {
  // Every 3x3 stride-1 case the tiling of v05 and v06 can get wrong: padding 0 to 3 (asymmetric
  // too) with odd and even H and W (a last 2x2 tile half outside P or Q), P = 1, Q = 1, both,
  // C = 1, K = 1, C and K not multiples of v06's steps of 8 channels and blocks of 64, tile
  // counts not multiples of v06's 32 per block, N = 1, and layers short enough to split v06's C
  // loop (its filter transform then zeroes y, and its blocks add into it; on sm_90 the fused
  // kernel overlaps the filter transform and must wait for both).
  std::vector<ConvShape> shapes;
  for (std::int64_t pad = 0; pad <= 3; ++pad) {
    shapes.push_back(make(1, 5, 7, 9, 6, 3, 3, pad, pad, 1, 1));    // odd H and W
    shapes.push_back(make(2, 12, 10, 6, 10, 3, 3, pad, pad, 1, 1)); // even
  }
  shapes.push_back(make(1, 3, 4, 4, 2, 3, 3, 0, 2, 1, 1));      // asymmetric padding, P = 2, Q = 6
  shapes.push_back(make(2, 4, 3, 17, 5, 3, 3, 0, 1, 1, 1));     // P = 1
  shapes.push_back(make(1, 7, 21, 3, 9, 3, 3, 1, 0, 1, 1));     // Q = 1
  shapes.push_back(make(3, 2, 3, 3, 3, 3, 3, 0, 0, 1, 1));      // P = Q = 1: one tile, one output
  shapes.push_back(make(1, 1, 30, 31, 1, 3, 3, 1, 1, 1, 1));    // C = K = 1
  shapes.push_back(make(1, 130, 9, 9, 65, 3, 3, 1, 1, 1, 1));   // C = 130, K = 65: partial step and block
  shapes.push_back(make(3, 17, 23, 25, 131, 3, 3, 1, 1, 1, 1)); // K = 131: three channel blocks
  shapes.push_back(make(1, 512, 6, 6, 40, 3, 3, 1, 1, 1, 1));   // one block, 64 steps: split C loop
  shapes.push_back(make(1, 64, 4, 5, 9, 3, 3, 1, 1, 1, 1));    // split in 2, small enough for the sanitizers
  shapes.push_back(make(2, 96, 13, 13, 96, 3, 3, 1, 1, 1, 1));  // 98 tiles (4 blocks), split
  shapes.push_back(make(1, 64, 57, 55, 64, 3, 3, 1, 1, 1, 1));  // many blocks, odd sizes, no split
  std::size_t ran = 0;
  for (const ConvShape& s : shapes) {
    if (tut::testing::sanitizing() &&
        static_cast<double>(s.output_elements()) * static_cast<double>(s.reduction()) > 2097152.0) {
      continue;
    }
    const std::uint64_t seed = tut::testing::seed() + static_cast<std::uint64_t>(s.h * 7 + s.w * 3 + s.c + s.pad_h);
    const conv2d::testing::Inputs in = conv2d::testing::make_inputs(s, Precision::fp32, seed);
    const Reference ref = make_reference(s, in.x.data(), in.w.data(), seed);
    for (const auto& v : versions()) {
      if (!v.kernel.winograd || !runnable(v)) continue;
      REQUIRE(unsupported_reason(v, s) == "");
      conv2d::testing::require_matches(v.kernel, v.info.name, s, in, ref);
      ++ran;
    }
  }
  REQUIRE(ran > 0);
}

TEST_CASE("restricted versions reject what they cannot run, with a reason", "[conv2d][limits]") {
  const ConvShape five = make(1, 8, 12, 12, 8, 5, 5, 2, 2, 1, 1);      // not 3x3
  const ConvShape strided = make(1, 8, 12, 12, 8, 3, 3, 1, 1, 2, 2);   // stride 2
  const ConvShape odd_c = make(1, 6, 12, 12, 8, 3, 3, 1, 1, 1, 1);     // C % 8 != 0
  for (Supports winograd : {supports_v05, supports_v06}) {
    REQUIRE(winograd(five).find("3x3") != std::string::npos);
    REQUIRE(winograd(strided).find("stride 1") != std::string::npos);
  }
  REQUIRE(supports_v07(odd_c).find("C % 8") != std::string::npos);
  REQUIRE(supports_v08(odd_c).find("C % 64") != std::string::npos);
  REQUIRE(supports_v08(make(1, 32, 12, 12, 8, 3, 3, 1, 1, 1, 1)).find("C % 64") != std::string::npos);
  // v11-v14: v08's limits, and the im2col map's: box corners of 8 bits (padding up to 128).
  REQUIRE(supports_v11(odd_c).find("C % 64") != std::string::npos);
  const ConvShape wide_pad_shape = make(1, 64, 4, 4, 8, 3, 3, 130, 1, 1, 1);
  const std::string wide_pad = supports_v11(wide_pad_shape);
  if (supports_v08(wide_pad_shape).empty()) REQUIRE(wide_pad.find("8-bit box corners") != std::string::npos);
  REQUIRE_FALSE(wide_pad.empty());
  const ConvShape huge_image = make(1, 64, 50000, 50000, 8, 1, 1, 0, 0, 1, 1);  // P Q = 2.5e9 (no memory needed)
  if (supports_v08(huge_image).empty()) REQUIRE(supports_v11(huge_image).find("P Q above 2^31") != std::string::npos);
  REQUIRE_FALSE(supports_v11(huge_image).empty());
  REQUIRE(supports_v10(odd_c).empty());  // v10 exists for C % 8 != 0 ...
  REQUIRE(supports_v10(make(1, 16, 12, 12, 8, 3, 3, 1, 1, 1, 1)).find("C % 8 == 0") != std::string::npos);  // ... only
  const ConvShape huge_filter = make(1, 1, 300, 300, 1, 200, 200, 0, 0, 1, 1);  // tile with halo > 48 KiB
  REQUIRE_FALSE(supports_v01(huge_filter).empty());
  REQUIRE_FALSE(supports_v02(huge_filter).empty());
  // The launchers refuse too (never compute garbage), before touching any memory.
  const conv2d::testing::Inputs in = conv2d::testing::make_inputs(five, Precision::fp32, 1);
  tut::DeviceBuffer<float> x(in.x), w(in.w), y(static_cast<std::size_t>(five.output_elements()));
  REQUIRE_THROWS_AS(launch_conv2d_v05_winograd(five, x.data(), w.data(), y.data(), nullptr), std::invalid_argument);
  REQUIRE_THROWS_AS(launch_conv2d_v06_winograd_fused(strided, x.data(), w.data(), y.data(), nullptr),
                    std::invalid_argument);
  tut::DeviceBuffer<__nv_bfloat16> xb(static_cast<std::size_t>(odd_c.input_elements())),
      wb(static_cast<std::size_t>(odd_c.filter_elements())), yb(static_cast<std::size_t>(odd_c.output_elements()));
  REQUIRE_THROWS_AS(launch_conv2d_v07_mma_bf16(odd_c, xb.data(), wb.data(), yb.data(), nullptr), std::invalid_argument);
  REQUIRE_THROWS_AS(launch_conv2d_v08_wgmma_bf16(odd_c, xb.data(), wb.data(), yb.data(), nullptr), std::invalid_argument);
  REQUIRE_THROWS_AS(launch_conv2d_v09_lean_wgmma_bf16(odd_c, xb.data(), wb.data(), yb.data(), nullptr),
                    std::invalid_argument);
  REQUIRE_THROWS_AS(launch_conv2d_v11_tma_im2col_bf16(odd_c, xb.data(), wb.data(), yb.data(), nullptr),
                    std::invalid_argument);
  REQUIRE_THROWS_AS(launch_conv2d_v12_tma_store_bf16(odd_c, xb.data(), wb.data(), yb.data(), nullptr),
                    std::invalid_argument);
  REQUIRE_THROWS_AS(launch_conv2d_v13_shared_filters_bf16(odd_c, xb.data(), wb.data(), yb.data(), nullptr),
                    std::invalid_argument);
  REQUIRE_THROWS_AS(launch_conv2d_v13_tile128(odd_c, xb.data(), wb.data(), yb.data(), nullptr), std::invalid_argument);
  REQUIRE_THROWS_AS(launch_conv2d_v14_one_wave_bf16(odd_c, xb.data(), wb.data(), yb.data(), nullptr),
                    std::invalid_argument);
  REQUIRE_THROWS_AS(launch_conv2d_v14_tile192(odd_c, xb.data(), wb.data(), yb.data(), nullptr), std::invalid_argument);
  // An invalid shape: every launcher refuses it.
  const ConvShape none = make(1, 1, 2, 2, 1, 3, 3, 0, 0, 1, 1);  // 3x3 filter on a 2x2 image, no padding
  for (const auto& v : versions()) {
    INFO(v.info.name);
    if (v.kernel.precision == Precision::fp32) {
      REQUIRE_THROWS_AS(v.kernel.f32(none, x.data(), w.data(), y.data(), nullptr), std::invalid_argument);
    } else {
      REQUIRE_THROWS_AS(v.kernel.bf16(none, xb.data(), wb.data(), yb.data(), nullptr), std::invalid_argument);
    }
  }
}

TEST_CASE("the cuDNN baselines match the CPU reference", "[conv2d][cudnn]") {
  const std::vector<ConvShape> shapes = {
      make(2, 3, 17, 19, 5, 3, 3, 1, 1, 1, 1),  make(3, 16, 15, 13, 24, 3, 3, 1, 1, 1, 1),
      make(2, 5, 23, 29, 7, 7, 7, 3, 3, 2, 2),  make(1, 4, 20, 21, 6, 3, 5, 0, 2, 1, 1),
      make(1, 64, 12, 12, 64, 3, 3, 1, 1, 1, 1), make(1, 6, 40, 30, 6, 6, 6, 0, 0, 1, 1)};
  for (const auto& v : versions()) {
    if (!is_library(v)) continue;
    DYNAMIC_SECTION(v.info.name) {
      const std::string why = supports_cudnn(shapes[0]);
      if (!why.empty()) {
        WARN(v.info.name << " skipped: " << why);
      } else if (tut::testing::sanitizing()) {
        WARN(v.info.name << " skipped under the sanitizers: they check our kernels, and cuDNN's search runs dozens");
      } else if (runnable(v)) {
        for (const ConvShape& s : shapes) conv2d::testing::require_correct(v.kernel, v.info.name, s, tut::testing::seed() + 11);
        INFO(cudnn_choice(v.info.name));
        REQUIRE_FALSE(cudnn_choice(v.info.name).empty());
      }
    }
  }
}

TEST_CASE("Winograd's and bf16's errors, next to the direct fp32 error", "[conv2d][precision]") {
  // The [precision] numbers the chapter page quotes: the extra rounding of the two Winograd
  // versions (v05, v06) against the direct v04's (same data, same layout) at two depths, and bf16's
  // output rounding. Each must stay inside its own tolerance.
  const std::uint64_t seed = tut::testing::seed() + 5;
  for (const ConvShape& shape : {make(4, 64, 20, 20, 64, 3, 3, 1, 1, 1, 1), make(2, 256, 14, 14, 64, 3, 3, 1, 1, 1, 1)}) {
    const conv2d::testing::Inputs in = conv2d::testing::make_inputs(shape, Precision::fp32, seed);
    const Reference ref = make_reference(shape, in.x.data(), in.w.data(), seed);
    double direct = -1.0;
    for (const auto& v : versions()) {
      if (v.info.name != "v04_implicit_gemm_nhwc" && !v.kernel.winograd) continue;
      if (!runnable(v)) continue;
      const std::vector<float> got = conv2d::testing::run_once(v.kernel, shape, in);
      const tut::Tolerance tol = tolerance(Precision::fp32, shape.reduction(), v.kernel.winograd);
      const tut::ErrorStats st = check_output(shape, Precision::fp32, Layout::nhwc, ref, got.data(), tol);
      INFO(v.info.name << ": " << st.describe(tol));
      REQUIRE(st.passed(tol));
      if (!v.kernel.winograd) {
        direct = st.rel_norm_error();
        WARN("relative norm error on " << shape_text(shape) << ": direct (v04) " << direct);
      } else {
        WARN("relative norm error on " << shape_text(shape) << ": " << v.info.name << " " << st.rel_norm_error()
                                       << (direct > 0 ? " (" + std::to_string(st.rel_norm_error() / direct) + "x v04's)" : ""));
        REQUIRE(st.rel_norm_error() < 1e-4);
      }
    }
  }
  const ConvShape s = make(4, 64, 20, 20, 64, 3, 3, 1, 1, 1, 1);
  const conv2d::testing::Inputs in = conv2d::testing::make_inputs(s, Precision::fp32, seed);
  const Reference ref = make_reference(s, in.x.data(), in.w.data(), seed);
  // bf16: against the rounded inputs the error is the output rounding (~1e-3); the rounding of
  // the inputs themselves (against the fp32 inputs) is larger, which is why the reference uses
  // the rounded ones.
  for (const auto& v : versions()) {
    if (v.info.name != "v07_mma_bf16_nhwc" || !runnable(v)) continue;
    const conv2d::testing::Inputs rounded = conv2d::testing::make_inputs(s, Precision::bf16, seed);
    const Reference ref16 = make_reference(s, rounded.x.data(), rounded.w.data(), seed);
    const std::vector<float> got = conv2d::testing::run_once(v.kernel, s, rounded);
    const tut::Tolerance tol = tolerance(Precision::bf16, s.reduction(), false);
    const tut::ErrorStats vs_rounded = check_output(s, Precision::bf16, Layout::nhwc, ref16, got.data(), tol);
    const tut::ErrorStats vs_exact =
        check_output(s, Precision::bf16, Layout::nhwc, ref, got.data(), {1.0, 1.0, 0.0, "input rounding"});
    WARN("v07 (bf16): relative norm error " << vs_rounded.rel_norm_error() << " against the rounded inputs, "
                                            << vs_exact.rel_norm_error() << " against the fp32 inputs");
    INFO(vs_rounded.describe(tol));
    REQUIRE(vs_rounded.passed(tol));
    REQUIRE(vs_exact.rel_norm_error() > vs_rounded.rel_norm_error());
  }
}

namespace {

/// The value a kernel sees for element i of an input made by fill_random_device (NCHW order).
float input_value(std::uint64_t seed, std::size_t i, Precision p) {
  const float v = tut::hash_uniform(seed, i, -1.0f, 1.0f);
  return p == Precision::bf16 ? round_to_bf16(v) : v;
}

}  // namespace

TEST_CASE("an input above 2^31 elements: no 32-bit index overflow", "[conv2d][large]") {
  // 2 x 64 x 4100 x 4100 = 2.15e9 input elements; image 1's offsets pass 2^31 in both layouts.
  const ConvShape s = make(2, 64, 4100, 4100, 8, 3, 3, 1, 1, 2, 2);
  const std::size_t nx = static_cast<std::size_t>(s.input_elements()), nw = static_cast<std::size_t>(s.filter_elements()),
                    ny = static_cast<std::size_t>(s.output_elements());
  // x and x_nhwc in fp32, x in bf16, y in both (and the small w's); 1 GiB for the rest. The check
  // takes no GPU memory: y comes back to the host, where the sampled outputs are compared.
  const double needed = 10.0 * static_cast<double>(nx) + 6.0 * static_cast<double>(ny) + 12.0 * static_cast<double>(nw) +
                        1073741824.0;
  if (tut::testing::sanitizing() || static_cast<double>(tut::testing::free_device_bytes()) < needed) {
    tut::testing::skip_run("the [large] case needs " + std::to_string(static_cast<long long>(needed / 1e9)) +
                           " GB of free GPU memory (and no sanitizer)");
    return;
  }
  const std::uint64_t seed = tut::testing::seed(), sx = tut::derive_seed(seed, 0), sw = tut::derive_seed(seed, 1);
  tut::DeviceBuffer<float> x(nx), w(nw), x_nhwc(nx), w_krsc(nw), y(ny);
  tut::fill_random_device(x.data(), nx, sx, -1.0f, 1.0f);
  tut::fill_random_device(w.data(), nw, sw, -1.0f, 1.0f);
  to_channels_last_device(x.data(), x_nhwc.data(), s.n, s.c, s.h * s.w, nullptr);
  to_channels_last_device(w.data(), w_krsc.data(), s.k, s.c, s.r * s.s, nullptr);
  tut::DeviceBuffer<__nv_bfloat16> xb(nx), wb(nw), yb(ny);
  to_bf16_device(x_nhwc.data(), xb.data(), static_cast<std::int64_t>(nx), nullptr);
  to_bf16_device(w_krsc.data(), wb.data(), static_cast<std::int64_t>(nw), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());

  // Outputs to check: every channel of the last output row of image 1 (inputs near the end of
  // x), of its middle row, of 64 random pixels of image 1, and of the first row of image 0.
  const std::int64_t P = s.p(), Q = s.q();
  std::vector<std::size_t> checked;
  for (std::int64_t k = 0; k < s.k; ++k) {
    for (std::int64_t q = 0; q < Q; ++q) {
      checked.push_back(canonical_index(s, 1, k, P - 1, q));
      checked.push_back(canonical_index(s, 1, k, P / 2, q));
      checked.push_back(canonical_index(s, 0, k, 0, q));
    }
    for (std::uint64_t i = 0; i < 64; ++i) {
      const std::uint64_t h = tut::mix64(seed + i);
      checked.push_back(canonical_index(s, 1, k, static_cast<std::int64_t>(h % P), static_cast<std::int64_t>((h >> 32) % Q)));
    }
  }
  std::sort(checked.begin(), checked.end());
  checked.erase(std::unique(checked.begin(), checked.end()), checked.end());

  for (Precision p : {Precision::fp32, Precision::bf16}) {
    std::vector<double> expected(checked.size()), magnitude(checked.size());  // value and sum |x w| of each
    tut::parallel_check(checked.size(), [&](std::size_t begin, std::size_t end, tut::ErrorStats&) {
      for (std::size_t j = begin; j < end; ++j) {
        const std::size_t i = checked[j];
        const std::int64_t q = i % Q, pp = i / Q % P, k = i / (Q * P) % s.k, n = i / (Q * P * s.k);
        double acc = 0.0, mag = 0.0;
        for (std::int64_t c = 0; c < s.c; ++c)
          for (std::int64_t r = 0; r < s.r; ++r)
            for (std::int64_t t = 0; t < s.s; ++t) {
              const std::int64_t h = pp * s.stride_h - s.pad_h + r, col = q * s.stride_w - s.pad_w + t;
              if (h < 0 || h >= s.h || col < 0 || col >= s.w) continue;
              const double term =
                  static_cast<double>(input_value(sx, static_cast<std::size_t>(((n * s.c + c) * s.h + h) * s.w + col), p)) *
                  static_cast<double>(input_value(sw, static_cast<std::size_t>(((k * s.c + c) * s.r + r) * s.s + t), p));
              acc += term;
              mag += std::fabs(term);
            }
        expected[j] = acc;
        magnitude[j] = mag;
      }
    });
    for (const auto& v : versions()) {
      if (v.kernel.precision != p || tut::current_cc() < v.info.min_cc) continue;
      const std::string why = unsupported_reason(v, s);
      if (!why.empty()) {
        WARN(v.info.name << " skips the [large] case: " << why);
        continue;
      }
      INFO(v.info.name << " on " << shape_text(s));
      const bool nchw = v.kernel.layout == Layout::nchw;
      std::vector<float> got(ny);
      if (p == Precision::bf16) {
        REQUIRE_FALSE(nchw);  // the bf16 inputs exist in NHWC only here
        yb.poison();
        v.kernel.bf16(s, xb.data(), wb.data(), yb.data(), nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<__nv_bfloat16> host = yb.to_host();
        for (std::size_t i = 0; i < ny; ++i) got[i] = __bfloat162float(host[i]);
      } else {
        y.poison();
        v.kernel.f32(s, nchw ? x.data() : x_nhwc.data(), nchw ? w.data() : w_krsc.data(), y.data(), nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        got = y.to_host();
      }
      const tut::Tolerance tol = tolerance(p, s.reduction(), v.kernel.winograd);
      const tut::ErrorStats st = tut::parallel_check(checked.size(), [&](std::size_t begin, std::size_t end, tut::ErrorStats& e) {
        for (std::size_t j = begin; j < end; ++j) {
          e.add(checked[j], got[output_offset(s, v.kernel.layout, checked[j])], expected[j],
                error_scale(p, s.reduction(), expected[j], magnitude[j]), tol);
        }
      });
      INFO(st.describe(tol, [&s](std::size_t i) { return format_index(s, i); }));
      CHECK(st.passed(tol));
    }
  }
}
