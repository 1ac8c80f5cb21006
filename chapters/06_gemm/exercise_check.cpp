// The checker of chapter 06's exercise (common/exercise/checker.hpp): build/bin/check_gemm.
// Cases: C = alpha * A B + beta * C over the chapter's shape sweep (1, primes, 31/32/33,
// 127/128/129, K = 1, K % 4 != 0, M != N != K, non-multiples of the 128 x 128 x 8 tile), each
// with alpha and beta varied independently (beta = 0 with alpha != 1, beta != 0 with alpha = 1,
// negative, fractional, alpha = 0) and misaligned starts of A, B and C. C is an output, poisoned
// with NaN, when beta = 0 (the kernel must not read it) and an uploaded input-output otherwise.
// Hidden cases draw m, n, k, alpha, beta and the three offsets independently from the seed.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/compare.hpp"
#include "common/exercise/checker.hpp"
#include "common/random.hpp"
#include "gemm.hpp"

namespace {

using namespace tut::exercise;

/// One case's parameters: every argument of the launcher but the pointers and the stream.
struct Params {
  std::int64_t m = 1, n = 1, k = 1;
  double alpha = 1.0, beta = 0.0;    // exactly representable as floats (what the kernel gets)
  std::uint32_t oa = 0, ob = 0, oc = 0;  // start offsets of A, B, C in elements (misaligned if % 4 != 0)
};

std::string num(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

CaseRequest gemm_case(const Params& p) {
  CaseRequest c;
  c.name = "m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) + " k=" + std::to_string(p.k) +
           " alpha=" + num(p.alpha) + " beta=" + num(p.beta) + " offsets a=" + std::to_string(p.oa) +
           " b=" + std::to_string(p.ob) + " c=" + std::to_string(p.oc);
  c.ints = {{"m", p.m}, {"n", p.n}, {"k", p.k}};
  c.reals = {{"alpha", p.alpha}, {"beta", p.beta}};
  const auto u = [](std::int64_t x) { return static_cast<std::uint64_t>(x); };
  // beta == 0: C is poisoned (NaN) and must not be read; beta != 0: its initial values are uploaded.
  c.arrays = {f32_array("a", Role::in, u(p.m) * u(p.k), p.oa), f32_array("b", Role::in, u(p.k) * u(p.n), p.ob),
              f32_array("c", p.beta != 0.0 ? Role::inout : Role::out, u(p.m) * u(p.n), p.oc)};
  return c;
}

gemm::Shape shape_of(const CaseRequest& c) { return {int_param(c, "m"), int_param(c, "n"), int_param(c, "k")}; }

/// The reference of one input set (full, or sampled for problems above 2^31 multiply-adds).
struct GemmExpected final : Expected {
  gemm::Reference ref;
};

class GemmExercise final : public Exercise {
 public:
  std::string chapter() const override { return "gemm"; }
  std::string file() const override { return "exercises/06_gemm/gemm_2d_blocktile.cu"; }
  std::string hint() const override {
    return "look at the TODO(student) markers of exercises/06_gemm/gemm_2d_blocktile.cu: 1/2 loads the tiles "
           "(A transposed into As, zeros outside the matrices), 2/2 the outer products of the thread's lattice "
           "(rows ty + 16 i, columns tx + 16 j, as in the epilogue)";
  }

  std::vector<CaseRequest> public_cases() const override {
    // Every shape twice, with (alpha, beta) pairs and offsets cycling at coprime periods, so that
    // each parameter meets many values of the others. Pairs i and i + 4 differ in whether beta is 0.
    const gemm::Shape shapes[] = {
        {1, 1, 1},       {1, 1, 7},       {2, 3, 5},       {7, 5, 3},       {17, 33, 9},     {33, 4097, 17},
        {4097, 33, 17},  {64, 64, 1},     {65, 33, 1},     {31, 32, 33},    {32, 33, 31},    {33, 31, 32},
        {127, 127, 127}, {128, 128, 128}, {129, 129, 129}, {127, 129, 128}, {129, 127, 130}, {1, 4097, 1023},
        {1025, 1, 513},  {136, 264, 40},  {255, 257, 67},  {256, 512, 64},  {257, 513, 96},  {300, 200, 1001},
        {2, 1000, 3},    {1031, 1283, 257},
    };
    const double pairs[8][2] = {{1, 0},    {-1.5, 0.75}, {0.5, 0}, {1, -2},
                                {2.25, 1}, {-1, 0},      {0, 1.5}, {-0.375, 0}};
    const std::uint32_t offsets[5][3] = {{0, 0, 0}, {1, 2, 3}, {3, 0, 1}, {0, 1, 0}, {2, 3, 2}};
    std::vector<CaseRequest> cases;
    for (int round = 0; round < 2; ++round) {
      int i = 0;
      for (const gemm::Shape& s : shapes) {
        const double* ab = pairs[(i + 4 * round) % 8];
        const std::uint32_t* off = offsets[(i + 2 * round) % 5];
        cases.push_back(gemm_case({s.m, s.n, s.k, ab[0], ab[1], off[0], off[1], off[2]}));
        ++i;
      }
    }
    // alpha = 0 and beta = 0: C = 0, every element written, C not read.
    cases.push_back(gemm_case({65, 130, 33, 0.0, 0.0, 1, 0, 2}));
    return cases;
  }

  std::vector<CaseRequest> hidden_cases(std::uint64_t seed, const std::vector<std::int64_t>& extra) const override {
    SeededDraw rng(tut::mix64(seed ^ 0x6E3Bull));
    const auto draw = [&rng](std::uint64_t count) { return rng.below(count); };
    // A dimension from one of five kinds, each drawn on its own: tiny, around a tile edge,
    // prime, medium, large.
    const std::int64_t edges[] = {31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 383, 384, 385};
    const std::int64_t primes[] = {2,  3,  5,  7,  11,  13,  17,  19,  23,  29,  37,  41,   43,  61,
                                   67, 89, 97, 101, 131, 137, 251, 257, 509, 521, 769, 1021, 1031};
    const auto dim = [&](std::int64_t large) -> std::int64_t {
      switch (draw(5)) {
        case 0: return 1 + static_cast<std::int64_t>(draw(8));
        case 1: return edges[draw(std::size(edges))];
        case 2: return primes[draw(std::size(primes))];
        case 3: return 9 + static_cast<std::int64_t>(draw(700));
        default: return 700 + static_cast<std::int64_t>(draw(static_cast<std::uint64_t>(large - 700)));
      }
    };
    // alpha and beta from values with special meaning (0, 1, -1) and random multiples of 1/8 in
    // [-4, 4) (exact in fp32, short in the case name); beta = 0 a third of the time.
    const auto scalar = [&](bool may_be_zero) -> double {
      const double specials[] = {1.0, -1.0, 0.5, -2.5, 1.75, 0.0};
      const std::uint64_t pick = draw(10);
      if (pick < 6) {
        const double v = specials[pick];
        if (v != 0.0 || may_be_zero) return v;
      }
      const double v = static_cast<double>(static_cast<std::int64_t>(draw(64)) - 32) / 8.0;
      return v == 0.0 && !may_be_zero ? 0.125 : v;
    };
    std::vector<CaseRequest> cases;
    for (int i = 0; i < 24; ++i) {
      Params p;
      p.m = dim(2100);
      p.n = dim(2100);
      p.k = dim(1500);
      // At most 3 * 10^8 multiply-adds (a fraction of a second of CPU reference): shorten k if needed.
      const double mn = static_cast<double>(p.m) * static_cast<double>(p.n);
      if (mn * static_cast<double>(p.k) > 3e8) p.k = std::max<std::int64_t>(1, static_cast<std::int64_t>(3e8 / mn));
      p.alpha = scalar(true);
      p.beta = draw(3) == 0 ? 0.0 : scalar(false);
      p.oa = static_cast<std::uint32_t>(draw(4));
      p.ob = static_cast<std::uint32_t>(draw(4));
      p.oc = static_cast<std::uint32_t>(draw(4));
      cases.push_back(gemm_case(p));
    }
    // The grader's extra sizes: a cube (aligned starts, beta = 0) and a ragged neighbour
    // (misaligned starts, beta != 0). Above 2^31 multiply-adds the reference is sampled.
    for (std::int64_t s : extra) {
      if (s < 1 || s > 4096) continue;
      cases.push_back(gemm_case({s, s, s, 1.25, 0.0, 0, 0, 0}));
      cases.push_back(gemm_case({s, s + 1, s + 3, -1.0, 0.5, 1, 2, 3}));
    }
    return cases;
  }

  // 2048 x 2048 x 512: 256 block tiles of 128 x 128 (every SM of an H100 busy), 2^31 multiply-adds
  // (the largest full CPU reference: well under a second on 16 cores), 16 MB of C per repetition.
  CaseRequest speed_case() const override { return gemm_case({2048, 2048, 512, 1.0, 0.0, 0, 0, 0}); }

  std::vector<std::vector<unsigned char>> make_inputs(const CaseRequest& c, std::uint64_t seed) const override {
    // Uniform in [-1, 1): zero-mean values, so the terms of every dot product cancel as in real data.
    std::vector<std::vector<unsigned char>> data;
    std::uint64_t which = 0;
    for (std::size_t a : c.uploaded()) data.push_back(random_f32_bytes(c.arrays[a].count, tut::derive_seed(seed, which++)));
    return data;
  }

  std::unique_ptr<Expected> expect(const CaseRequest& c, const RunView& view) const override {
    const float alpha = static_cast<float>(real_param(c, "alpha")), beta = static_cast<float>(real_param(c, "beta"));
    auto e = std::make_unique<GemmExpected>();
    // The sample (only for problems above 2^31 multiply-adds) is drawn afresh by every checker
    // process, so a runner cannot know which elements are looked at.
    static const std::uint64_t sample_seed = std::random_device{}();
    e->ref = gemm::make_reference(shape_of(c), alpha, view.input("a"), view.input("b"), beta,
                                  beta != 0.0f ? view.input("c") : nullptr, sample_seed ^ view.set());
    return e;
  }

  Finding compare(const CaseRequest& c, const Expected& expected, const RunView& view) const override {
    const gemm::Shape s = shape_of(c);
    const gemm::Reference& ref = static_cast<const GemmExpected&>(expected).ref;
    const tut::Tolerance tol = gemm::tolerance(gemm::Precision::fp32, s.k);
    const tut::ErrorStats stats = gemm::check_output(ref, view.output("c"), tol);
    const std::int64_t n = s.n;
    return finding_of(stats, tol, "checked elements of C", [n](std::size_t i) { return "C at " + gemm::format_index(i, n); },
                      "NaN or Inf: not written, or C read although beta = 0");
  }

  double bytes(const CaseRequest& c) const override {
    const gemm::Shape s = shape_of(c);
    const double mk = static_cast<double>(s.m) * s.k, kn = static_cast<double>(s.k) * s.n,
                 mn = static_cast<double>(s.m) * s.n;
    return 4.0 * (mk + kn + mn) + (real_param(c, "beta") != 0.0 ? 4.0 * mn : 0.0);
  }
  double flops(const CaseRequest& c) const override { return gemm::gemm_flops(shape_of(c)); }
};

}  // namespace

int main(int argc, char** argv) { return tut::exercise::checker_main(argc, argv, GemmExercise{}); }
