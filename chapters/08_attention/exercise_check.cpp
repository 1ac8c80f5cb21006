// The checker of chapter 08's exercise (common/exercise/checker.hpp): build/bin/check_attention.
// Cases: O and lse of attention for B, H, Sq, Sk (1, multiples of the 32-row and 32-key tiles, one
// off them, anything; Sq != Sk both ways), D = 64 and 128, with and without the causal mask (rows
// that see no key included), on three kinds of inputs: scores of unit variance, scores in the
// hundreds (exp overflows without the running max) and rising scores (each row's largest last).
// Hidden cases draw every one of these independently from the secret seed.
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "attention.hpp"
#include "common/compare.hpp"
#include "common/exercise/checker.hpp"
#include "common/random.hpp"

namespace {

using namespace tut::exercise;
using attention::Shape;

/// The inputs of a case (the integer parameter "inputs"; the launcher does not see it).
enum Inputs : std::int64_t {
  kUnit = 0,    ///< Q, K uniform in [-sqrt 3, sqrt 3): scores of unit variance; V in [-1, 1)
  kLarge = 1,   ///< Q, K in [-24, 24): scores in the hundreds, exp() overflows without the max
  kRising = 2,  ///< Q, K in [0.5, 1.5), key j scaled up along the row: each row's largest scores last
};

const char* inputs_text(std::int64_t kind) {
  switch (kind) {
    case kLarge: return "scores in the hundreds";
    case kRising: return "rising scores";
    default: return "unit-variance scores";
  }
}

Shape shape_of(const CaseRequest& c) {
  Shape s;
  s.b = int_param(c, "b");
  s.h = int_param(c, "h");
  s.sq = int_param(c, "sq");
  s.sk = int_param(c, "sk");
  s.d = int_param(c, "d");
  s.causal = int_param(c, "causal") != 0;
  return s;
}

CaseRequest attention_case(std::int64_t b, std::int64_t h, std::int64_t sq, std::int64_t sk, std::int64_t d,
                           bool causal, Inputs inputs) {
  CaseRequest c;
  const Shape s{b, h, sq, sk, d, causal};
  c.name = attention::shape_text(s) + (causal ? "" : " no mask") + ", " + inputs_text(inputs);
  c.ints = {{"b", b}, {"h", h}, {"sq", sq}, {"sk", sk}, {"d", d}, {"causal", causal ? 1 : 0}, {"inputs", inputs}};
  const auto nq = static_cast<std::uint64_t>(s.heads() * sq * d), nkv = static_cast<std::uint64_t>(s.heads() * sk * d);
  // All arrays start at a 256-byte boundary (offset 0): the contract promises 16-byte alignment.
  c.arrays = {f32_array("q", Role::in, nq),
              f32_array("k", Role::in, nkv),
              f32_array("v", Role::in, nkv),
              f32_array("o", Role::out, nq),
              f32_array("lse", Role::out, static_cast<std::uint64_t>(s.heads() * sq)),
              f32_array("workspace", Role::scratch, 0)};  // unused by contract: any write hits its guard
  return c;
}

std::vector<unsigned char> to_bytes(const std::vector<float>& x) {
  std::vector<unsigned char> bytes(x.size() * sizeof(float));
  if (!x.empty()) std::memcpy(bytes.data(), x.data(), bytes.size());
  return bytes;
}

/// The reference of one input set, and the tolerances its inputs' magnitudes give.
struct AttentionExpected final : Expected {
  attention::Reference ref;
  attention::Tolerances tol;
};

class AttentionExercise final : public Exercise {
 public:
  std::string chapter() const override { return "attention"; }
  std::string file() const override { return "exercises/08_attention/attention_tiled.cu"; }
  std::string hint() const override {
    return "look at the TODO(student) markers of exercises/08_attention/attention_tiled.cu: 1/3 the K and V tiles "
           "(zeros past the last key), 2/3 the online softmax update (the max over the whole row seen so far, "
           "the rescaled sum), 3/3 O = O * factor + P V";
  }

  std::vector<CaseRequest> public_cases() const override {
    struct P {
      std::int64_t b, h, sq, sk, d;
      bool causal;
      Inputs inputs;
    };
    // Sq and Sk: 1, primes, multiples of the 32-row and 32-key tiles and one off them, Sq != Sk both
    // ways; causal with Sq > Sk (rows, and with 96 x 64 a whole first block, that see no key).
    const P list[] = {
        {1, 1, 1, 1, 64, false, kUnit},       {1, 1, 1, 1, 128, true, kUnit},
        {1, 1, 17, 17, 64, false, kUnit},     {1, 1, 17, 17, 128, true, kUnit},
        {1, 2, 63, 65, 64, false, kUnit},     {1, 2, 63, 65, 64, true, kUnit},
        {1, 2, 65, 63, 128, false, kUnit},    {1, 2, 65, 63, 128, true, kUnit},
        {2, 3, 32, 32, 64, true, kUnit},      {1, 2, 64, 96, 128, true, kUnit},
        {3, 2, 96, 64, 64, true, kUnit},      {2, 2, 256, 256, 64, false, kUnit},
        {1, 3, 128, 33, 128, false, kUnit},   {2, 3, 1000, 1000, 64, true, kUnit},
        {1, 2, 1000, 1000, 128, false, kUnit}, {2, 1, 1024, 1000, 128, true, kUnit},
        {1, 1, 4097, 17, 64, true, kUnit},    {1, 1, 17, 4097, 128, true, kUnit},
        {1, 1, 1, 4097, 64, true, kUnit},     {1, 1, 4097, 1, 64, true, kUnit},
        {1, 1, 4097, 1, 128, false, kUnit},   {1, 1, 1000, 4097, 64, false, kUnit},
        {8, 64, 65, 129, 64, true, kUnit},    {4, 128, 33, 31, 128, false, kUnit},
        {1, 1, 129, 129, 64, true, kUnit},    {1, 1, 127, 128, 128, true, kUnit},
        {1, 3, 257, 255, 64, false, kUnit},
        {1, 2, 100, 300, 64, false, kLarge},  {1, 2, 100, 300, 128, true, kLarge},
        {2, 1, 70, 33, 64, true, kLarge},     {1, 1, 64, 256, 128, false, kLarge},
        {1, 2, 100, 1000, 64, false, kRising}, {1, 1, 65, 600, 128, true, kRising},
        {1, 1, 128, 512, 64, true, kRising},
    };
    std::vector<CaseRequest> cases;
    for (const P& p : list) cases.push_back(attention_case(p.b, p.h, p.sq, p.sk, p.d, p.causal, p.inputs));
    return cases;
  }

  std::vector<CaseRequest> hidden_cases(std::uint64_t seed, const std::vector<std::int64_t>& extra) const override {
    std::vector<CaseRequest> cases;
    SeededDraw rng(seed);
    const auto draw = [&rng](std::int64_t lo, std::int64_t hi) { return rng.between(lo, hi); };  // uniform in [lo, hi]
    // A sequence length of one of four kinds: a few, a multiple of 32 (the tiles), one off a
    // multiple of 32, anything up to 2500.
    const auto length = [&draw](int kind) -> std::int64_t {
      switch (kind) {
        case 0: return draw(1, 3);
        case 1: return 32 * draw(1, 48);
        case 2: return 32 * draw(1, 48) + (draw(0, 1) != 0 ? 1 : -1);
        default: return draw(2, 2500);
      }
    };
    // Sq's kind and Sk's kind take all 16 pairs; everything else is drawn independently.
    for (int i = 0; i < 16; ++i) {
      const std::int64_t sq = length(i % 4), sk = length(i / 4);
      const std::int64_t d = draw(0, 1) != 0 ? 128 : 64;
      const bool causal = draw(0, 1) != 0;
      const std::int64_t pick = draw(0, 3);
      const Inputs inputs = pick == 2 ? kLarge : (pick == 3 ? kRising : kUnit);
      std::int64_t b = draw(1, 4), h = draw(1, 8);
      // Keep the CPU reference short: at most 2^28 multiply-adds per product (fewer heads first).
      while (b * h * sq * sk * d > (std::int64_t{1} << 28) && b * h > 1) {
        if (h > 1) {
          --h;
        } else {
          --b;
        }
      }
      cases.push_back(attention_case(b, h, sq, sk, d, causal, inputs));
    }
    for (std::int64_t n : extra) {
      if (n < 1 || n > 8192) continue;  // the reference is computed in full: keep it short
      cases.push_back(attention_case(1, 2, n, n, 64, true, kUnit));
      cases.push_back(attention_case(1, 1, n, n + 33, 128, false, kUnit));
    }
    return cases;
  }

  // The first shape of the chapter's table (fp32 B4 H16 S1024 D64, no mask), so that the time can be
  // read next to v02's and v03's. Its reference (8.6e9 multiply-adds, every row) takes well under a
  // second on 16 cores; O and lse are 17 MB per repetition.
  CaseRequest speed_case() const override { return attention_case(4, 16, 1024, 1024, 64, false, kUnit); }

  std::vector<std::vector<unsigned char>> make_inputs(const CaseRequest& c, std::uint64_t seed) const override {
    const Shape s = shape_of(c);
    const auto nq = static_cast<std::size_t>(s.heads() * s.sq * s.d);
    const auto nkv = static_cast<std::size_t>(s.heads() * s.sk * s.d);
    const std::int64_t kind = int_param(c, "inputs");
    const bool rising = kind == kRising;
    const float lo = rising ? 0.5f : (kind == kLarge ? -24.0f : -std::sqrt(3.0f));
    const float hi = rising ? 1.5f : -lo;
    const std::vector<float> q = tut::random_floats(nq, tut::derive_seed(seed, 0), lo, hi);
    std::vector<float> k = tut::random_floats(nkv, tut::derive_seed(seed, 1), lo, hi);
    const std::vector<float> v = tut::random_floats(nkv, tut::derive_seed(seed, 2), -1.0f, 1.0f);
    if (rising) {
      // Positive Q and K, key j scaled by 1 + g j / Sk: a max taken over the first tile only is a
      // thirtieth of the row's, and exp() of the later scores (up to ~250) overflows.
      const float growth = 30.0f * 8.0f / std::sqrt(static_cast<float>(s.d));  // the same scores for every D
      for (std::int64_t bh = 0; bh < s.heads(); ++bh)
        for (std::int64_t j = 0; j < s.sk; ++j)
          for (std::int64_t x = 0; x < s.d; ++x) {
            k[static_cast<std::size_t>((bh * s.sk + j) * s.d + x)] *=
                1.0f + growth * static_cast<float>(j) / static_cast<float>(s.sk);
          }
    }
    return {to_bytes(q), to_bytes(k), to_bytes(v)};
  }

  std::unique_ptr<Expected> expect(const CaseRequest& c, const RunView& view) const override {
    const Shape s = shape_of(c);
    const float* q = view.input("q");
    const float* k = view.input("k");
    const float* v = view.input("v");
    const auto nq = static_cast<std::size_t>(s.heads() * s.sq * s.d);
    const auto nkv = static_cast<std::size_t>(s.heads() * s.sk * s.d);
    auto e = std::make_unique<AttentionExpected>();
    e->ref = attention::make_reference(s, q, k, v, 0, 1e300);  // every row, in parallel over rows
    e->tol = attention::tolerances(attention::Precision::fp32, s, attention::max_abs(q, nq), attention::max_abs(k, nkv),
                                   attention::max_abs(v, nkv));
    return e;
  }

  Finding compare(const CaseRequest& c, const Expected& expected, const RunView& view) const override {
    const Shape s = shape_of(c);
    const auto& e = static_cast<const AttentionExpected&>(expected);
    const attention::Check chk = attention::check_output(e.ref, s, view.output("o"), view.output("lse"), e.tol);
    Finding f;
    f.passed = chk.passed(e.tol);
    if (!f.passed) {
      f.summary = "O: " + std::to_string(chk.o.over_tolerance()) + " of " + std::to_string(chk.o.count()) +
                  " elements wrong (" + std::to_string(chk.o.nonfinite()) + " not written or not finite); lse: " +
                  std::to_string(chk.lse.over_tolerance()) + " of " + std::to_string(chk.lse.count()) + " rows wrong";
      if (chk.o.over_tolerance() == 0 && chk.lse.over_tolerance() == 0) {
        f.summary += " (the normwise error is over its limit)";
      }
    }
    f.details = chk.describe(e.tol, s);
    return f;
  }

  double bytes(const CaseRequest& c) const override { return attention::attention_bytes(shape_of(c), 4.0); }
  double flops(const CaseRequest& c) const override { return attention::attention_flops(shape_of(c)); }
};

}  // namespace

int main(int argc, char** argv) { return tut::exercise::checker_main(argc, argv, AttentionExercise{}); }
