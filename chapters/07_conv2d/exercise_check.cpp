// The checker of chapter 07's exercise (common/exercise/checker.hpp): build/bin/check_conv2d.
// Cases: y = x (*) w (NCHW, KCRS, NKPQ, fp32) against the double-precision reference, each output
// within the fp32 tolerance of conv2d.hpp (a bound on the sum of its terms' magnitudes). Every
// field of ConvShape varies on its own, in the public sweep and in the hidden draws: N, C, K,
// H, W (1, below, at and past the 16 x 16 output tile), R and S (1x1 to 17x16, larger than the
// image where the padding makes room), stride_h and stride_w (1 to 6, unequal both ways),
// pad_h and pad_w (0 to 8, unequal both ways, wider than the filter); and the start of x, w and y
// (0 to 3 floats past an aligned address: the exercise reads and writes single floats).
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/compare.hpp"
#include "common/exercise/checker.hpp"
#include "common/random.hpp"
#include "conv2d.hpp"

namespace {

using namespace tut::exercise;
using conv2d::ConvShape;

ConvShape shape(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t k, std::int64_t r,
                std::int64_t s, std::int64_t pad_h, std::int64_t pad_w, std::int64_t stride_h, std::int64_t stride_w) {
  ConvShape sh;
  sh.n = n, sh.c = c, sh.h = h, sh.w = w, sh.k = k, sh.r = r, sh.s = s, sh.pad_h = pad_h, sh.pad_w = pad_w,
  sh.stride_h = stride_h, sh.stride_w = stride_w;
  return sh;
}

/// Where x, w and y start: this many floats past an aligned address.
struct Offsets {
  std::uint32_t x = 0, w = 0, y = 0;
};

/// "" if the launcher's contract (exercise.hpp) admits `s`, else why not.
std::string contract_error(const ConvShape& s) {
  if (const std::string why = conv2d::shape_error(s); !why.empty()) return why;
  const std::int64_t rows = 15 * s.stride_h + s.r, cols = 15 * s.stride_w + s.s;  // the input tile with its halo
  if (rows * cols * 4 > 48 * 1024) return "the input tile does not fit in 48 KiB";
  if (s.n > 65535 || s.k > 65535) return "more than 65535 images or filters";
  return "";
}

CaseRequest conv_case(const ConvShape& s, Offsets off = {}) {
  if (const std::string why = contract_error(s); !why.empty()) throw std::logic_error("conv2d case outside the contract: " + why);
  CaseRequest c;
  c.name = "n=" + std::to_string(s.n) + " c=" + std::to_string(s.c) + " h=" + std::to_string(s.h) +
           " w=" + std::to_string(s.w) + " k=" + std::to_string(s.k) + " r=" + std::to_string(s.r) +
           " s=" + std::to_string(s.s) + " stride_h=" + std::to_string(s.stride_h) +
           " stride_w=" + std::to_string(s.stride_w) + " pad_h=" + std::to_string(s.pad_h) +
           " pad_w=" + std::to_string(s.pad_w);
  if (off.x != 0 || off.w != 0 || off.y != 0) {
    c.name += " misaligned x+" + std::to_string(off.x) + " w+" + std::to_string(off.w) + " y+" + std::to_string(off.y);
  }
  c.ints = {{"n", s.n},         {"c", s.c},         {"h", s.h},
            {"w", s.w},         {"k", s.k},         {"r", s.r},
            {"s", s.s},         {"pad_h", s.pad_h}, {"pad_w", s.pad_w},
            {"stride_h", s.stride_h}, {"stride_w", s.stride_w}};
  const auto count = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  c.arrays = {f32_array("x", Role::in, count(s.input_elements()), off.x),
              f32_array("w", Role::in, count(s.filter_elements()), off.w),
              f32_array("y", Role::out, count(s.output_elements()), off.y)};
  return c;
}

ConvShape shape_of(const CaseRequest& c) {
  return shape(int_param(c, "n"), int_param(c, "c"), int_param(c, "h"), int_param(c, "w"), int_param(c, "k"),
               int_param(c, "r"), int_param(c, "s"), int_param(c, "pad_h"), int_param(c, "pad_w"),
               int_param(c, "stride_h"), int_param(c, "stride_w"));
}

/// N K P Q C R S: the CPU reference's work.
double macs(const ConvShape& s) { return conv2d::conv_flops(s) / 2.0; }

/// The reference of one input set: every output and the sum of |x w| of its terms.
struct ConvExpected final : Expected {
  conv2d::Reference ref;
};

class Conv2dExercise final : public Exercise {
 public:
  std::string chapter() const override { return "conv2d"; }
  std::string file() const override { return "exercises/07_conv2d/conv2d_smem_tile.cu"; }
  std::string hint() const override {
    return "look at the TODO(student) markers of exercises/07_conv2d/conv2d_smem_tile.cu: 1/2 stages the input "
           "tile with its halo (zeros outside the image, on all four sides), 2/2 sums the R x S window of each "
           "channel from shared memory (the filter is not flipped; strides differ per axis)";
  }

  std::vector<CaseRequest> public_cases() const override {
    std::vector<CaseRequest> cases;
    //                            n    c    h    w    k   r   s pad_h pad_w str_h str_w
    for (const ConvShape& s : {shape(1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1),         // everything 1
                               shape(1, 1, 5, 7, 1, 3, 3, 1, 1, 1, 1),         // C = K = 1, odd H and W
                               shape(2, 3, 17, 19, 5, 3, 3, 1, 1, 1, 1),       // P, Q one past a tile
                               shape(1, 8, 16, 16, 8, 1, 1, 0, 0, 1, 1),       // 1x1, exactly one tile
                               shape(1, 3, 32, 48, 2, 3, 3, 1, 1, 1, 1),       // whole tiles only
                               shape(3, 16, 15, 13, 24, 3, 3, 1, 1, 1, 1),     // one partial tile
                               shape(2, 5, 23, 29, 7, 7, 7, 3, 3, 2, 2),       // 7x7, stride 2, pad 3
                               shape(1, 4, 20, 21, 6, 3, 5, 0, 2, 1, 1),       // R < S, pad_h < pad_w
                               shape(2, 3, 31, 33, 9, 5, 3, 2, 1, 3, 3),       // R > S, pad_h > pad_w, stride 3
                               shape(2, 4, 21, 22, 6, 3, 3, 1, 1, 1, 2),       // stride_h < stride_w
                               shape(1, 5, 25, 17, 7, 5, 3, 2, 1, 3, 1),       // stride_h > stride_w
                               shape(2, 3, 19, 26, 4, 4, 5, 1, 2, 2, 3),       // even R, both unequal
                               shape(1, 3, 37, 41, 5, 4, 4, 0, 1, 4, 2),       // stride 4 x 2
                               shape(1, 7, 18, 18, 5, 3, 3, 2, 0, 1, 1),       // pad 2 x 0
                               shape(1, 6, 13, 15, 3, 3, 3, 0, 3, 1, 1),       // pad 0 x 3: side columns see only padding
                               shape(1, 16, 10, 10, 8, 3, 3, 3, 3, 1, 1),      // pad 3 > R - 1: border outputs see only padding
                               shape(1, 2, 9, 9, 3, 3, 3, 0, 0, 2, 2),         // no padding, stride 2
                               shape(1, 6, 40, 30, 6, 6, 6, 0, 0, 1, 1),       // 6x6
                               shape(1, 3, 3, 50, 4, 3, 3, 0, 1, 1, 1),        // P = 1
                               shape(2, 5, 40, 2, 3, 3, 2, 1, 0, 1, 1),        // Q = 1
                               shape(1, 3, 11, 11, 2, 11, 11, 0, 0, 1, 1),     // the filter covers the image
                               shape(2, 3, 2, 3, 4, 5, 7, 2, 2, 1, 1),         // filter larger than the image (R > H, S > W)
                               shape(1, 2, 1, 9, 3, 3, 1, 1, 0, 1, 1),         // H = 1 < R
                               shape(1, 4, 6, 1, 2, 1, 5, 0, 2, 1, 2),         // W = 1 < S
                               shape(1, 1, 47, 80, 1, 17, 16, 8, 5, 6, 5),     // the largest tile: 107 x 91 floats
                               shape(1, 64, 12, 12, 64, 3, 3, 1, 1, 1, 1),     // 64 channels in and out
                               shape(1, 256, 7, 7, 64, 3, 3, 1, 1, 1, 1),      // a 2304-long sum
                               shape(2, 32, 9, 11, 130, 3, 3, 1, 1, 1, 1),     // K = 130
                               shape(1, 2, 5, 5, 600, 3, 3, 1, 1, 1, 1),       // K = 600
                               shape(40, 2, 18, 20, 3, 3, 3, 1, 1, 1, 1),      // N = 40
                               shape(4, 8, 33, 35, 16, 3, 3, 1, 1, 1, 1),      // many partial tiles
                               shape(1, 1, 64, 64, 1, 5, 5, 2, 2, 1, 1),       // one channel, 5x5, 4 x 4 tiles
                               shape(2, 24, 30, 30, 40, 1, 1, 0, 0, 2, 2),     // 1x1, stride 2
                               shape(5, 9, 14, 14, 33, 3, 3, 1, 1, 1, 1),      // odd C and K
                               shape(3, 12, 9, 8, 10, 2, 2, 0, 0, 2, 2),       // 2x2, stride 2
                               shape(1, 2, 300, 300, 2, 1, 1, 0, 0, 1, 1),     // 19 x 19 tiles, the last of 12
                               shape(2, 16, 64, 61, 24, 3, 3, 1, 1, 1, 1)}) {  // a small layer
      cases.push_back(conv_case(s));
    }
    // Misaligned starts, one array at a time and all three.
    const ConvShape a = shape(2, 16, 12, 12, 16, 3, 3, 1, 1, 1, 1), b = shape(1, 8, 9, 16, 24, 1, 1, 0, 0, 1, 1);
    cases.push_back(conv_case(a, {1, 0, 0}));
    cases.push_back(conv_case(b, {0, 1, 0}));
    cases.push_back(conv_case(a, {0, 0, 1}));
    cases.push_back(conv_case(shape(2, 3, 17, 19, 5, 3, 3, 1, 0, 2, 1), {3, 2, 1}));
    return cases;
  }

  std::vector<CaseRequest> hidden_cases(std::uint64_t seed, const std::vector<std::int64_t>& extra) const override {
    std::vector<CaseRequest> cases;
    std::uint64_t state = seed;
    const auto draw = [&state](std::int64_t lo, std::int64_t hi) {  // uniform in [lo, hi]
      state = tut::mix64(state + 0x9e3779b97f4a7c15ull);
      return lo + static_cast<std::int64_t>(state % static_cast<std::uint64_t>(hi - lo + 1));
    };
    // Every parameter drawn on its own. Images from three ranges in turn (within one tile, a few
    // tiles, many) and channels from three ranges in turn; a draw outside the contract is drawn
    // again, and a large one loses images, then filters, to keep the CPU reference quick.
    const std::int64_t sizes[3][2] = {{1, 15}, {10, 70}, {60, 180}};
    const std::int64_t channels[3][2] = {{1, 4}, {5, 40}, {41, 150}};
    constexpr double kBudget = 33554432.0;  // 2^25 multiply-adds per case
    for (int i = 0; i < 24; ++i) {
      const auto& hw = sizes[i % 3];
      const auto& ch = channels[i / 3 % 3];
      ConvShape s;
      Offsets off;
      for (int attempt = 0;; ++attempt) {
        s = shape(draw(1, 5), draw(ch[0], ch[1]), draw(hw[0], hw[1]), draw(hw[0], hw[1]), draw(1, 48), draw(1, 9),
                  draw(1, 9), draw(0, 4), draw(0, 4), draw(1, 4), draw(1, 4));
        off = {static_cast<std::uint32_t>(draw(0, 3)), static_cast<std::uint32_t>(draw(0, 3)),
               static_cast<std::uint32_t>(draw(0, 3))};
        if (!contract_error(s).empty()) continue;
        while (macs(s) > kBudget && s.n > 1) s.n = (s.n + 1) / 2;
        while (macs(s) > kBudget && s.k > 1) s.k = (s.k + 1) / 2;
        if (macs(s) <= kBudget) break;
        if (attempt > 1000) {  // never seen; keeps the loop finite whatever the seed
          s = shape(1, ch[0], hw[0], hw[0], 1, 1, 1, 0, 0, 1, 1);
          break;
        }
      }
      cases.push_back(conv_case(s, off));
    }
    // The grader's extra sizes v: square and ragged images around v, unequal strides and pads.
    for (std::int64_t v : extra) {
      if (v < 1 || v > 300) continue;  // the CPU reference is full: images up to 300 x 302
      cases.push_back(conv_case(shape(2, 3, v, v + 1, 5, 3, 3, 1, 1, 1, 1)));
      cases.push_back(conv_case(shape(1, 8, v, v, 16, 5, 5, 2, 2, 2, 2)));
      cases.push_back(conv_case(shape(1, 16, v, v + 2, 24, 3, 3, 1, 1, 1, 1)));
      cases.push_back(conv_case(shape(1, 4, v + 1, v, 6, 5, 3, 2, 1, 2, 1), {1, 2, 3}));
    }
    return cases;
  }

  CaseRequest speed_case() const override {
    // The chapter's 56x56 layer at N = 8: 1.85 GFLOP (about 1 ms at v01's speed on an H100), a
    // 6.4 MB output, and a CPU reference of 0.92 G multiply-adds per input set.
    return conv_case(shape(8, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1));
  }

  std::vector<std::vector<unsigned char>> make_inputs(const CaseRequest& c, std::uint64_t seed) const override {
    const ConvShape s = shape_of(c);
    return {random_f32_bytes(static_cast<std::uint64_t>(s.input_elements()), tut::derive_seed(seed, 0)),
            random_f32_bytes(static_cast<std::uint64_t>(s.filter_elements()), tut::derive_seed(seed, 1))};
  }

  std::unique_ptr<Expected> expect(const CaseRequest& c, const RunView& view) const override {
    auto e = std::make_unique<ConvExpected>();
    e->ref.value = conv2d::reference_conv(shape_of(c), view.input("x"), view.input("w"), &e->ref.magnitude);
    return e;
  }

  Finding compare(const CaseRequest& c, const Expected& expected, const RunView& view) const override {
    const ConvShape s = shape_of(c);
    const conv2d::Reference& ref = static_cast<const ConvExpected&>(expected).ref;
    const tut::Tolerance tol = conv2d::tolerance(conv2d::Precision::fp32, s.reduction(), false);
    const tut::ErrorStats stats =
        conv2d::check_output(s, conv2d::Precision::fp32, conv2d::Layout::nchw, ref, view.output("y"), tol);
    return finding_of(stats, tol, "outputs", [&s](std::size_t i) { return "y[" + conv2d::format_index(s, i) + "]"; });
  }

  double bytes(const CaseRequest& c) const override { return conv2d::conv_bytes(shape_of(c), 4.0, 4.0); }
  double flops(const CaseRequest& c) const override { return conv2d::conv_flops(shape_of(c)); }
};

}  // namespace

int main(int argc, char** argv) { return tut::exercise::checker_main(argc, argv, Conv2dExercise{}); }
