// CPU tests of chapter 07: the reference (cross-correlation, padding, stride, by hand and against a
// plain loop), the shape rules, the layouts, the sampling, the tolerances, the Winograd
// transforms, and the registry.
#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "common/random.hpp"
#include "common/testing.hpp"
#include "conv2d.hpp"
#include "winograd.hpp"

using namespace conv2d;

namespace {

ConvShape make(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t k, std::int64_t r,
               std::int64_t s, std::int64_t pad, std::int64_t stride) {
  ConvShape sh;
  sh.n = n, sh.c = c, sh.h = h, sh.w = w, sh.k = k, sh.r = r, sh.s = s, sh.pad_h = pad, sh.pad_w = pad,
  sh.stride_h = stride, sh.stride_w = stride;
  return sh;
}

}  // namespace

TEST_CASE("the reference is a cross-correlation (the filter is not flipped)", "[conv2d][reference]") {
  // x = [1 2 3; 4 5 6; 7 8 9], w = [1 0; 0 -1]: y[p][q] = x[p][q] - x[p+1][q+1] = -4 everywhere.
  // The true convolution (filter flipped) would give x[p+1][q+1] - x[p][q] = +4: the sign is the
  // classic symptom of a kernel that flips the filter.
  const ConvShape s = make(1, 1, 3, 3, 1, 2, 2, 0, 1);
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w = {1, 0, 0, -1};
  REQUIRE(s.p() == 2);
  REQUIRE(s.q() == 2);
  REQUIRE(reference_conv(s, x.data(), w.data()) == std::vector<double>{-4, -4, -4, -4});
  // An asymmetric filter tells the two apart at every output: w = [1 2; 3 4].
  const std::vector<float> w2 = {1, 2, 3, 4};
  REQUIRE(reference_conv(s, x.data(), w2.data()) == std::vector<double>{37, 47, 67, 77});  // 1+4+12+20, ...
}

TEST_CASE("padding reads zeros, stride skips, channels add up", "[conv2d][reference]") {
  // 1 image, 2 channels of 2x2, pad 1, 3x3 filter of ones on channel 0 and twos on channel 1:
  // every output sums its window, the padding adds nothing.
  const ConvShape s = make(1, 2, 2, 2, 1, 3, 3, 1, 1);
  const std::vector<float> x = {1, 2, 3, 4, 10, 20, 30, 40};
  std::vector<float> w(18, 1.0f);
  std::fill(w.begin() + 9, w.end(), 2.0f);
  REQUIRE(reference_conv(s, x.data(), w.data()) == std::vector<double>{210, 210, 210, 210});
  // Stride 2 on a 5x5 image with a 1x1 filter of 3: every other pixel times 3.
  const ConvShape st = make(1, 1, 5, 5, 1, 1, 1, 0, 2);
  std::vector<float> img(25);
  for (int i = 0; i < 25; ++i) img[i] = static_cast<float>(i);
  const std::vector<float> three = {3};
  REQUIRE(st.p() == 3);
  REQUIRE(reference_conv(st, img.data(), three.data()) == std::vector<double>{0, 6, 12, 30, 36, 42, 60, 66, 72});
}

TEST_CASE("the full reference matches one output at a time on ragged shapes", "[conv2d][reference]") {
  for (const ConvShape& s : {make(2, 3, 7, 9, 5, 3, 3, 1, 1), make(1, 2, 11, 6, 3, 5, 2, 2, 2), make(3, 1, 4, 4, 2, 1, 1, 0, 3)}) {
    const auto x = tut::random_floats(static_cast<std::size_t>(s.input_elements()), 1);
    const auto w = tut::random_floats(static_cast<std::size_t>(s.filter_elements()), 2);
    const auto all = reference_conv(s, x.data(), w.data());
    REQUIRE(all.size() == static_cast<std::size_t>(s.output_elements()));
    for (std::int64_t n = 0; n < s.n; ++n)
      for (std::int64_t k = 0; k < s.k; ++k)
        for (std::int64_t p = 0; p < s.p(); ++p)
          for (std::int64_t q = 0; q < s.q(); ++q) {
            REQUIRE(all[canonical_index(s, n, k, p, q)] == Approx(reference_output(s, x.data(), w.data(), n, k, p, q)).margin(1e-12));
          }
  }
}

TEST_CASE("output size and invalid shapes", "[conv2d][shape]") {
  REQUIRE(make(32, 64, 56, 56, 64, 3, 3, 1, 1).p() == 56);
  REQUIRE(make(8, 3, 224, 224, 64, 7, 7, 3, 2).p() == 112);
  REQUIRE(make(1, 6, 768, 512, 6, 6, 6, 0, 1).p() == 763);
  REQUIRE(make(1, 6, 768, 512, 6, 6, 6, 0, 1).q() == 507);
  REQUIRE(make(1, 1, 10, 10, 1, 3, 3, 0, 3).p() == 3);  // (10 - 3) / 3 + 1
  REQUIRE(shape_error(make(32, 64, 56, 56, 64, 3, 3, 1, 1)).empty());
  REQUIRE(shape_error(make(1, 1, 2, 2, 1, 3, 3, 0, 1)).find("larger than the padded input") != std::string::npos);
  REQUIRE(shape_error(make(1, 1, 2, 2, 1, 3, 3, 1, 1)).empty());  // padding makes room
  REQUIRE(shape_error(make(1, 1, 8, 8, 1, 3, 3, 0, 0)).find("stride") != std::string::npos);
  REQUIRE(shape_error(make(1, 1, 8, 8, 1, 3, 3, -1, 1)).find("padding") != std::string::npos);
  REQUIRE(shape_error(make(0, 1, 8, 8, 1, 3, 3, 0, 1)).find("N must be") != std::string::npos);
  const std::int64_t big = std::int64_t{1} << 30;
  REQUIRE(shape_error(make(big, big, big, big, 1, 1, 1, 0, 1)).find("overflow") != std::string::npos);
  REQUIRE(shape_error(make(1, 1, std::int64_t{1} << 32, 1, 1, 1, 1, 0, 1)).find("2^31") != std::string::npos);
  REQUIRE(conv_flops(make(32, 64, 56, 56, 64, 3, 3, 1, 1)) == 2.0 * 32 * 64 * 56 * 56 * 64 * 9);
}

TEST_CASE("layouts: NHWC copies and output offsets agree", "[conv2d][layout]") {
  const ConvShape s = make(2, 3, 4, 5, 6, 3, 3, 1, 1);
  std::vector<float> x(static_cast<std::size_t>(s.input_elements()));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  const std::vector<float> nhwc = to_channels_last(x, s.n, s.c, s.h * s.w);
  // x[n=1, c=2, h=3, w=4] in NCHW is element ((1*3+2)*4+3)*5+4; in NHWC ((1*4+3)*5+4)*3+2.
  REQUIRE(nhwc[((1 * 4 + 3) * 5 + 4) * 3 + 2] == x[((1 * 3 + 2) * 4 + 3) * 5 + 4]);
  std::set<std::size_t> seen;
  for (std::size_t i = 0; i < static_cast<std::size_t>(s.output_elements()); ++i) {
    REQUIRE(output_offset(s, Layout::nchw, i) == i);
    seen.insert(output_offset(s, Layout::nhwc, i));
  }
  REQUIRE(seen.size() == static_cast<std::size_t>(s.output_elements()));  // a permutation
  // (n 1, k 5, p 0, q 2): NPQK offset ((1 P + 0) Q + 2) K + 5.
  REQUIRE(output_offset(s, Layout::nhwc, canonical_index(s, 1, 5, 0, 2)) ==
          static_cast<std::size_t>(((1 * s.p() + 0) * s.q() + 2) * s.k + 5));
  REQUIRE(format_index(s, canonical_index(s, 1, 5, 0, 2)) == "n 1, k 5, p 0, q 2");
}

TEST_CASE("sampled outputs: in range, sorted, corners, borders and every channel included", "[conv2d][reference]") {
  const ConvShape s = make(32, 64, 56, 56, 64, 3, 3, 1, 1);
  const auto idx = sample_indices(s, 42);
  REQUIRE(idx == sample_indices(s, 42));
  REQUIRE(idx != sample_indices(s, 43));
  REQUIRE(std::is_sorted(idx.begin(), idx.end()));
  REQUIRE(std::adjacent_find(idx.begin(), idx.end()) == idx.end());
  REQUIRE(idx.back() < static_cast<std::size_t>(s.output_elements()));
  const std::set<std::size_t> set(idx.begin(), idx.end());
  for (std::int64_t k = 0; k < s.k; ++k) {
    REQUIRE(set.count(canonical_index(s, 0, k, 0, 0)) == 1);
    REQUIRE(set.count(canonical_index(s, s.n - 1, k, s.p() - 1, s.q() - 1)) == 1);
  }
  for (std::int64_t q = 0; q < s.q(); ++q) REQUIRE(set.count(canonical_index(s, s.n - 1, s.k - 1, s.p() - 1, q)) == 1);
  REQUIRE(idx.size() > 10000);
  // A sampled reference holds the same values a full one would.
  const ConvShape small = make(2, 3, 9, 9, 4, 3, 3, 1, 1);
  const auto x = tut::random_floats(static_cast<std::size_t>(small.input_elements()), 3);
  const auto w = tut::random_floats(static_cast<std::size_t>(small.filter_elements()), 4);
  const Reference full = make_reference(small, x.data(), w.data(), 7);
  const Reference sampled = make_reference(small, x.data(), w.data(), 7, 0.0);
  REQUIRE(full.full);
  REQUIRE_FALSE(sampled.full);
  for (std::size_t j = 0; j < sampled.index.size(); ++j) REQUIRE(sampled.value[j] == full.value[sampled.index[j]]);
}

TEST_CASE("a check fails a negated or flipped output", "[conv2d][reference]") {
  const ConvShape s = make(1, 4, 8, 8, 3, 3, 3, 1, 1);
  const auto x = tut::random_floats(static_cast<std::size_t>(s.input_elements()), 5);
  const auto w = tut::random_floats(static_cast<std::size_t>(s.filter_elements()), 6);
  const Reference ref = make_reference(s, x.data(), w.data(), 1);
  const tut::Tolerance tol = tolerance(Precision::fp32, s.reduction(), false);
  std::vector<float> good(ref.value.begin(), ref.value.end()), negated(good.size());
  for (std::size_t i = 0; i < good.size(); ++i) negated[i] = -good[i];
  REQUIRE(check_output(s, Precision::fp32, Layout::nchw, ref, good.data(), tol).passed(tol));
  REQUIRE_FALSE(check_output(s, Precision::fp32, Layout::nchw, ref, negated.data(), tol).passed(tol));
  // The true convolution: each filter rotated by 180 degrees.
  std::vector<float> flipped_w(w.size());
  for (std::int64_t kc = 0; kc < s.k * s.c; ++kc)
    for (std::int64_t i = 0; i < 9; ++i) flipped_w[kc * 9 + i] = w[kc * 9 + 8 - i];
  const std::vector<double> conv = reference_conv(s, x.data(), flipped_w.data());
  const std::vector<float> convf(conv.begin(), conv.end());
  REQUIRE_FALSE(check_output(s, Precision::fp32, Layout::nchw, ref, convf.data(), tol).passed(tol));
}

TEST_CASE("tolerances: fp32 < Winograd < bf16, and they grow with the reduction", "[conv2d][tolerance]") {
  const tut::Tolerance f = tolerance(Precision::fp32, 576, false), wg = tolerance(Precision::fp32, 576, true),
                       b = tolerance(Precision::bf16, 576, false);
  REQUIRE(f.max_rel_norm < wg.max_rel_norm);
  REQUIRE(wg.max_rel_norm < b.max_rel_norm);
  REQUIRE(f.atol == 0.0);  // a direct sum's rounding is bounded by its terms' magnitudes alone
  REQUIRE(wg.atol > 0.0);  // Winograd's is not: it comes from the whole input tile
  REQUIRE(b.rtol > std::ldexp(1.0, -9));  // a bf16 output rounding passes
  REQUIRE(tolerance(Precision::fp32, 2304, false).rtol > f.rtol);
  REQUIRE_FALSE(f.why.empty());
  // A missing product (0.25 on average) fails the fp32 element bound on the chapter's deepest
  // layer: L = 2304 products of [-1, 1) inputs, sum |x w| about L / 4.
  REQUIRE(tolerance(Precision::fp32, 2304, false).rtol * 2304.0 / 4.0 < 0.02);
  // The scales: sum |x w| in fp32; in bf16 |ref| (the output rounding) plus a small share of it.
  REQUIRE(error_scale(Precision::fp32, 576, -2.0, 100.0) == 100.0);
  REQUIRE(error_scale(Precision::bf16, 576, -2.0, 100.0) > 2.0);
  REQUIRE(error_scale(Precision::bf16, 576, -2.0, 100.0) < 2.0 + 0.05 * 100.0);
}

TEST_CASE("tolerances: an honest rounding error on cancelling terms passes, a real error fails", "[conv2d][tolerance]") {
  // One output of three products that nearly cancel (1x1 filter, C = 3):
  // 1100.1 * 0.7 + 2300.3 * 0.3 - 1622.3999 * 0.9 = 1.4e-4, from terms of magnitude 2920.
  const ConvShape s = make(1, 3, 1, 1, 1, 1, 1, 0, 1);
  const std::vector<float> x = {1100.1f, 2300.3f, -1622.3999f}, w = {0.7f, 0.3f, 0.9f};
  const Reference ref = make_reference(s, x.data(), w.data(), 1);
  REQUIRE(ref.magnitude.size() == 1);
  REQUIRE(ref.magnitude[0] > 1e6 * std::fabs(ref.value[0]));  // the terms cancel
  // An honest fp32 kernel: a chain of fused multiply-adds. Its rounding error is 16% of the result
  // itself, so any bound on |ref| alone would fail it; on sum |x w| it is tiny.
  float honest = 0.0f;
  for (std::size_t c = 0; c < 3; ++c) honest = std::fmaf(x[c], w[c], honest);
  REQUIRE(std::fabs(honest - ref.value[0]) > 0.1 * std::fabs(ref.value[0]));
  const tut::Tolerance tol = tolerance(Precision::fp32, s.reduction(), false);
  const tut::ErrorStats good = check_output(s, Precision::fp32, Layout::nchw, ref, &honest, tol);
  INFO(good.describe(tol));
  REQUIRE(good.passed(tol));
  // 0 is honest too: the same sum with each product rounded first (770.07 + 690.09 - 1460.16)
  // cancels exactly.
  const float zero = 0.0f;
  REQUIRE(check_output(s, Precision::fp32, Layout::nchw, ref, &zero, tol).passed(tol));
  // A product missing, a sign flipped, or the output not written (NaN: the poison): all fail.
  const float missing = std::fmaf(x[1], w[1], x[0] * w[0]);
  const float flipped = std::fmaf(-x[2], w[2], std::fmaf(x[1], w[1], x[0] * w[0]));
  const float nan = std::nanf("");
  for (const float* bad : {&missing, &flipped, &nan}) {
    REQUIRE_FALSE(check_output(s, Precision::fp32, Layout::nchw, ref, bad, tol).passed(tol));
  }
}

TEST_CASE("tolerances: bf16 outputs rounded once pass, a dropped channel fails; padding-only outputs", "[conv2d][tolerance]") {
  const ConvShape s = make(2, 8, 9, 10, 4, 3, 3, 3, 1);  // pad 3 > R - 1: the border outputs see only zeros
  std::vector<float> x = tut::random_floats(static_cast<std::size_t>(s.input_elements()), 11);
  std::vector<float> w = tut::random_floats(static_cast<std::size_t>(s.filter_elements()), 12);
  for (auto* v : {&x, &w})
    for (float& f : *v) f = round_to_bf16(f);
  const Reference ref = make_reference(s, x.data(), w.data(), 1);
  REQUIRE(ref.value[0] == 0.0);  // (n 0, k 0, p 0, q 0): its window lies in the padding
  REQUIRE(ref.magnitude[0] == 0.0);
  // bf16: the exact result rounded to bf16 (the kernel's last step) passes.
  const tut::Tolerance b = tolerance(Precision::bf16, s.reduction(), false);
  std::vector<float> rounded(ref.value.size());
  for (std::size_t i = 0; i < rounded.size(); ++i) rounded[i] = round_to_bf16(static_cast<float>(ref.value[i]));
  REQUIRE(check_output(s, Precision::bf16, Layout::nchw, ref, rounded.data(), b).passed(b));
  // ... and the result without channel 3 fails.
  std::vector<float> w_dropped = w;
  for (std::int64_t k = 0; k < s.k; ++k)
    for (std::int64_t i = 0; i < 9; ++i) w_dropped[static_cast<std::size_t>((k * s.c + 3) * 9 + i)] = 0.0f;
  const std::vector<double> dropped = reference_conv(s, x.data(), w_dropped.data());
  std::vector<float> dropped16(dropped.size());
  for (std::size_t i = 0; i < dropped.size(); ++i) dropped16[i] = round_to_bf16(static_cast<float>(dropped[i]));
  REQUIRE_FALSE(check_output(s, Precision::bf16, Layout::nchw, ref, dropped16.data(), b).passed(b));
  // An output of the padding alone must be exactly 0 for a direct sum (nothing to round), while
  // Winograd may leave there a rounding of its tile's other inputs: its absolute part allows it.
  std::vector<float> noisy(ref.value.begin(), ref.value.end());
  noisy[0] = 1e-7f;
  const tut::Tolerance f = tolerance(Precision::fp32, s.reduction(), false), wg = tolerance(Precision::fp32, s.reduction(), true);
  REQUIRE_FALSE(check_output(s, Precision::fp32, Layout::nchw, ref, noisy.data(), f).passed(f));
  REQUIRE(check_output(s, Precision::fp32, Layout::nchw, ref, noisy.data(), wg).passed(wg));
}

TEST_CASE("Winograd F(2x2,3x3) transforms reproduce the direct 2x2 outputs", "[conv2d][winograd]") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto dv = tut::random_floats(16, seed), gv = tut::random_floats(9, seed + 100);
    float d[16] = {}, g[9] = {}, u[16] = {}, v[16] = {}, m[16] = {}, y[4] = {};
    std::copy(dv.begin(), dv.end(), d);
    std::copy(gv.begin(), gv.end(), g);
    winograd::filter_transform(g, u);
    winograd::input_transform(d, v);
    for (int i = 0; i < 16; ++i) m[i] = u[i] * v[i];
    winograd::output_transform(m, y);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        double direct = 0.0;
        for (int r = 0; r < 3; ++r)
          for (int t = 0; t < 3; ++t) direct += static_cast<double>(d[(i + r) * 4 + j + t]) * g[r * 3 + t];
        REQUIRE(y[2 * i + j] == Approx(direct).margin(1e-5));
      }
  }
}

TEST_CASE("the registry: unique names, layouts in the names, one launcher of the right precision", "[conv2d][registry]") {
  std::set<std::string> names;
  int ours = 0, libs = 0;
  for (const auto& v : versions()) {
    INFO(v.info.name);
    REQUIRE(names.insert(v.info.name).second);
    const std::string layout = v.kernel.layout == Layout::nchw ? "_nchw" : "_nhwc";
    REQUIRE(v.info.name.size() > layout.size());
    REQUIRE(v.info.name.compare(v.info.name.size() - layout.size(), layout.size(), layout) == 0);
    REQUIRE(v.info.summary.find(std::string("[") + layout_name(v.kernel.layout) + " " +
                                precision_name(v.kernel.precision) + "]") == 0);
    REQUIRE((v.kernel.precision == Precision::fp32 ? v.kernel.f32 != nullptr : v.kernel.bf16 != nullptr));
    REQUIRE((v.kernel.precision == Precision::fp32 ? v.kernel.bf16 == nullptr : v.kernel.f32 == nullptr));
    if (v.kernel.precision == Precision::bf16) REQUIRE(v.info.min_cc >= 80);
    (v.info.kind == tut::Kind::library ? libs : ours) += 1;
  }
  REQUIRE(ours == 15);
  REQUIRE(libs == 4);
}

TEST_CASE("v13's tile: 128 pixels where the busiest SM computes no more rows than with 64", "[conv2d][v13]") {
  // On 132 SMs (an H100 or H200): the 56x56 and 1x1 layers take two warpgroups on 128-pixel tiles
  // (784 tiles: 6 per SM, as many rows as 12 of 64); 28x28 (196 against 392 tiles: 2 x 128 > 3 x 64)
  // and 14x14 (52 against 100) keep v12's 64-pixel tile.
  REQUIRE(v13_tile_pixels(make(32, 64, 56, 56, 64, 3, 3, 1, 1), 132) == 128);
  REQUIRE(v13_tile_pixels(make(32, 256, 56, 56, 64, 1, 1, 0, 1), 132) == 128);
  REQUIRE(v13_tile_pixels(make(16, 128, 28, 28, 128, 3, 3, 1, 1), 132) == 64);
  REQUIRE(v13_tile_pixels(make(8, 256, 14, 14, 256, 3, 3, 1, 1), 132) == 64);
  // Few tiles on any GPU: 64; a GPU of one SM: every problem is one long queue, and 128 never
  // costs more rows than 64.
  REQUIRE(v13_tile_pixels(make(1, 64, 7, 5, 20, 3, 3, 1, 1), 132) == 64);
  REQUIRE(v13_tile_pixels(make(16, 128, 28, 28, 128, 3, 3, 1, 1), 1) == 128);
}

TEST_CASE("v14's tile: 192 pixels where one wave of them covers the layer", "[conv2d][v14]") {
  // On 132 SMs: 28x28 has 132 tiles of 192 (one per SM, 192 rows each, as v12's three tiles of
  // 64 per SM); 56x56 and the 1x1 layer would give an SM four tiles of 192 (v13's 128 stays);
  // 14x14 fits one wave of 36 but v12's 100 tiles of 64 give an SM 64 rows, not 192.
  REQUIRE(v14_tile_pixels(make(16, 128, 28, 28, 128, 3, 3, 1, 1), 132) == 192);
  REQUIRE(v14_tile_pixels(make(32, 64, 56, 56, 64, 3, 3, 1, 1), 132) == 128);
  REQUIRE(v14_tile_pixels(make(32, 256, 56, 56, 64, 1, 1, 0, 1), 132) == 128);
  REQUIRE(v14_tile_pixels(make(8, 256, 14, 14, 256, 3, 3, 1, 1), 132) == 64);
  REQUIRE(v14_tile_pixels(make(1, 64, 7, 5, 20, 3, 3, 1, 1), 132) == 64);
  // A smaller GPU: 28x28's 132 tiles of 192 are more than one wave of 114 SMs, and v13's choice
  // stays (128: 196 tiles, 2 x 128 rows on the busiest SM, as many as 4 tiles of 64).
  REQUIRE(v14_tile_pixels(make(16, 128, 28, 28, 128, 3, 3, 1, 1), 114) == 128);
  // The rule's boundary: 12288 pixels of 64 channels are 64 tiles of 192 on 64 SMs (one each, as
  // many rows as 192 tiles of 64, three per SM); one pixel more, 65 tiles: v13's choice (128).
  REQUIRE(v14_tile_pixels(make(1, 64, 96, 128, 64, 1, 1, 0, 1), 64) == 192);
  REQUIRE(v14_tile_pixels(make(1, 64, 1, 12289, 64, 1, 1, 0, 1), 64) == 128);
}
