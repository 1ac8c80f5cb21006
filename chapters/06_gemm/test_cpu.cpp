// CPU tests of chapter 06: the reference, the sampling, the tolerances, the rounding helpers, the
// registry, and what the compiler made of the kernels (no register spills; the PTX contains the
// instructions each step is about).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/random.hpp"
#include "common/testing.hpp"
#include "fp32/shape_choice.hpp"
#include "gemm.hpp"
#include "hopper_path_shapes.hpp"
#include "tune/tune.hpp"

using namespace gemm;

namespace {

/// The textbook triple loop in double.
std::vector<double> naive(const Shape& s, float alpha, const std::vector<float>& a, const std::vector<float>& b,
                          float beta, const std::vector<float>& c0) {
  std::vector<double> out(static_cast<std::size_t>(s.m * s.n));
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j) {
      double acc = 0.0;
      for (std::int64_t p = 0; p < s.k; ++p) acc += double(a[i * s.k + p]) * double(b[p * s.n + j]);
      out[i * s.n + j] = alpha * acc + (beta != 0.0f ? double(beta) * c0[i * s.n + j] : 0.0);
    }
  return out;
}

}  // namespace

TEST_CASE("the reference multiplies matrices", "[gemm][reference]") {
  // [1 2; 3 4] [5 6; 7 8] = [19 22; 43 50]
  const std::vector<float> a = {1, 2, 3, 4}, b = {5, 6, 7, 8}, c0 = {1, -1, 2, -2};
  const std::vector<double> plain = reference_gemm({2, 2, 2}, 1.0f, a.data(), b.data(), 0.0f, nullptr);
  REQUIRE(plain == std::vector<double>{19, 22, 43, 50});
  const std::vector<double> scaled = reference_gemm({2, 2, 2}, 2.0f, a.data(), b.data(), 0.5f, c0.data());
  REQUIRE(scaled == std::vector<double>{38.5, 43.5, 87, 99});
  // Rectangular: (1 x 3) (3 x 2).
  const std::vector<float> r = {1, 2, 3}, q = {1, 0, 0, 1, 1, 1};
  REQUIRE(reference_gemm({1, 2, 3}, 1.0f, r.data(), q.data(), 0.0f, nullptr) == std::vector<double>{4, 5});
  // Magnitudes: |alpha| sum |a b| + |beta c0|. (1 -2) (3 4)^T = 3 - 8 = -5 from terms of size 11;
  // -1 * -5 + 2 * -0.5 = 4, of magnitude 11 + 1 = 12.
  const std::vector<float> x = {1, -2}, y = {3, 4}, z = {-0.5f};
  std::vector<double> mag;
  REQUIRE(reference_gemm({1, 1, 2}, -1.0f, x.data(), y.data(), 2.0f, z.data(), &mag) == std::vector<double>{4});
  REQUIRE(mag == std::vector<double>{12});
  double one = 0.0;
  REQUIRE(reference_element({1, 1, 2}, 0, 0, -1.0f, x.data(), y.data(), 2.0f, z.data(), &one) == 4.0);
  REQUIRE(one == 12.0);
}

TEST_CASE("the reference matches the triple loop on ragged shapes", "[gemm][reference]") {
  for (const Shape& s : {Shape{1, 1, 1}, Shape{13, 17, 29}, Shape{33, 5, 64}, Shape{7, 41, 1}, Shape{9, 3, 0}}) {
    const auto a = tut::random_floats(static_cast<std::size_t>(s.m * s.k), 1);
    const auto b = tut::random_floats(static_cast<std::size_t>(s.k * s.n), 2);
    const auto c0 = tut::random_floats(static_cast<std::size_t>(s.m * s.n), 3);
    const auto want = naive(s, -1.5f, a, b, 0.25f, c0);
    const auto got = reference_gemm(s, -1.5f, a.data(), b.data(), 0.25f, c0.data());
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == Approx(want[i]).margin(1e-12));
    // One element at a time, from a contiguous column of B.
    std::vector<float> col(static_cast<std::size_t>(s.k));
    for (std::int64_t j = 0; j < s.n; ++j) {
      for (std::int64_t p = 0; p < s.k; ++p) col[p] = b[p * s.n + j];
      for (std::int64_t i = 0; i < s.m; ++i) {
        REQUIRE(reference_element(s, i, j, -1.5f, a.data(), col.data(), 0.25f, c0.data()) ==
                Approx(want[i * s.n + j]).margin(1e-12));
      }
    }
  }
}

TEST_CASE("sampled elements: in range, sorted, corners and edges included, reproducible", "[gemm][reference]") {
  const Shape s{4095, 4097, 7};
  const auto idx = sample_indices(s, 42);
  REQUIRE(idx == sample_indices(s, 42));
  REQUIRE(idx != sample_indices(s, 43));
  REQUIRE(std::is_sorted(idx.begin(), idx.end()));
  REQUIRE(std::adjacent_find(idx.begin(), idx.end()) == idx.end());
  const std::size_t mn = static_cast<std::size_t>(s.m * s.n), n = static_cast<std::size_t>(s.n);
  REQUIRE(idx.back() < mn);
  const std::set<std::size_t> set(idx.begin(), idx.end());
  for (std::size_t corner : {std::size_t{0}, n - 1, mn - n, mn - 1}) REQUIRE(set.count(corner) == 1);
  // The last 160 columns of the last row and rows of the last column: every partial edge tile.
  for (std::size_t j = n - 160; j < n; ++j) REQUIRE(set.count(mn - n + j) == 1);
  for (std::size_t i = static_cast<std::size_t>(s.m) - 160; i < static_cast<std::size_t>(s.m); ++i)
    REQUIRE(set.count(i * n + n - 1) == 1);
  REQUIRE(idx.size() > 4000);
  // Tiny matrices: every element of the edge rows and columns.
  REQUIRE(sample_indices({1, 1, 5}, 1).size() == 1);
}

TEST_CASE("a sampled reference equals the full one where it looks", "[gemm][reference]") {
  // Sampling is forced (full_macs = 0) on a problem small enough to also compute in full.
  const Shape s{700, 900, 70};
  const auto a = tut::random_floats(static_cast<std::size_t>(s.m * s.k), 11);
  const auto b = tut::random_floats(static_cast<std::size_t>(s.k * s.n), 12);
  const auto c0 = tut::random_floats(static_cast<std::size_t>(s.m * s.n), 13);
  const Reference ref = make_reference(s, 0.5f, a.data(), b.data(), -2.0f, c0.data(), 99, 0.0);
  REQUIRE_FALSE(ref.full);
  REQUIRE(ref.index == sample_indices(s, 99));
  REQUIRE(ref.index.size() == ref.value.size());
  REQUIRE(ref.index.size() == ref.magnitude.size());
  std::vector<double> full_mag;
  const auto full = reference_gemm(s, 0.5f, a.data(), b.data(), -2.0f, c0.data(), &full_mag);
  for (std::size_t q = 0; q < ref.index.size(); ++q) {
    REQUIRE(ref.value[q] == Approx(full[ref.index[q]]).margin(1e-9));
    REQUIRE(ref.magnitude[q] == Approx(full_mag[ref.index[q]]).margin(1e-9));
    REQUIRE(ref.magnitude[q] >= std::fabs(ref.value[q]));
  }
  // check_output looks only at the sampled elements: a wrong one there fails, one elsewhere does not.
  std::vector<float> got(full.begin(), full.end());
  const tut::Tolerance tol = tolerance(Precision::fp32, s.k);
  REQUIRE(check_output(ref, got.data(), tol).passed(tol));
  got[ref.index[ref.index.size() / 2]] += 1.0f;
  REQUIRE_FALSE(check_output(ref, got.data(), tol).passed(tol));
}

TEST_CASE("small problems get a full reference; check_output catches NaN and wrong elements", "[gemm][reference]") {
  const Shape s{33, 17, 9};
  const auto a = tut::random_floats(static_cast<std::size_t>(s.m * s.k), 1);
  const auto b = tut::random_floats(static_cast<std::size_t>(s.k * s.n), 2);
  const Reference ref = make_reference(s, 1.0f, a.data(), b.data(), 0.0f, nullptr, 7);
  REQUIRE(ref.full);
  REQUIRE(ref.magnitude.size() == ref.value.size());
  std::vector<float> got(ref.value.begin(), ref.value.end());
  const tut::Tolerance tol = tolerance(Precision::fp32, s.k);
  REQUIRE(check_output(ref, got.data(), tol).passed(tol));
  got[100] = std::nanf("");
  REQUIRE_FALSE(check_output(ref, got.data(), tol).passed(tol));
  got[100] = static_cast<float>(ref.value[100]) + 0.01f;  // one product's worth of error
  REQUIRE_FALSE(check_output(ref, got.data(), tol).passed(tol));
  std::vector<float> zeros(got.size(), 0.0f);
  REQUIRE_FALSE(check_output(ref, zeros.data(), tol).passed(tol));
  REQUIRE(format_index(5 * 17 + 3, 17) == "row 5, col 3");
}

TEST_CASE("tolerances: relative to the terms' magnitudes, growing like sqrt(K), looser for tensor cores",
          "[gemm][tolerance]") {
  const double u = std::ldexp(1.0, -24);
  const auto f16 = tolerance(Precision::fp32, 16);
  const auto f8192 = tolerance(Precision::fp32, 8192);
  const auto b8192 = tolerance(Precision::bf16, 8192);
  REQUIRE(f16.atol == 0.0);  // everything is relative to m = |alpha| sum |a b| + |beta c0|
  REQUIRE(f16.rtol == Approx((10.0 * 4.0 + 3.0) * u));
  REQUIRE(f8192.rtol == Approx((10.0 * std::sqrt(8192.0) + 3.0) * u));
  REQUIRE(f8192.max_rel_norm == Approx((std::sqrt(8192.0) + 3.0) * u));
  // Up to K = 100 the element bound covers the worst case of any summation order (K roundings
  // and the epilogue's two), not only the probable one.
  for (std::int64_t k : {1, 2, 7, 33, 100}) REQUIRE(tolerance(Precision::fp32, k).rtol >= (k + 2) * u);
  REQUIRE(tolerance(Precision::fp32, 0).rtol == tolerance(Precision::fp32, 1).rtol);  // K = 0 as K = 1
  REQUIRE(b8192.rtol > f8192.rtol);
  REQUIRE(b8192.max_rel_norm > f8192.max_rel_norm);
  // A BF16 accumulator rounds each step to 2^-9: about 0.5 * 2^-9 of m in norm, far above the bound.
  REQUIRE(b8192.max_rel_norm < 0.1 * std::ldexp(1.0, -9));
  // Even at K = 8192 a single missed product of average size (|a b| ~ 0.25, m ~ K / 4 for inputs
  // in [-1, 1)) is outside the element bound.
  REQUIRE(f8192.rtol * 8192.0 / 4.0 < 0.25);
  REQUIRE_FALSE(f8192.why.empty());
  REQUIRE_FALSE(b8192.why.empty());
}

namespace {

/// sum_p a[p] b[p * stride] in fp32 (what a kernel computes), in one of three orders:
/// 0 a forward FMA chain, 1 a backward FMA chain, 2 a pairwise tree of rounded products.
float fp32_dot(const float* a, const float* b, std::int64_t k, std::int64_t stride, int order) {
  if (order == 2) {
    std::vector<float> level(static_cast<std::size_t>(k));
    for (std::int64_t p = 0; p < k; ++p) level[p] = a[p] * b[p * stride];
    while (level.size() > 1) {
      std::vector<float> next((level.size() + 1) / 2);
      for (std::size_t q = 0; q < next.size(); ++q)
        next[q] = 2 * q + 1 < level.size() ? level[2 * q] + level[2 * q + 1] : level[2 * q];
      level.swap(next);
    }
    return level.empty() ? 0.0f : level[0];
  }
  float acc = 0.0f;
  for (std::int64_t q = 0; q < k; ++q) {
    const std::int64_t p = order == 0 ? q : k - 1 - q;
    acc = std::fmaf(a[p], b[p * stride], acc);
  }
  return acc;
}

/// C = A B in fp32 (alpha = 1, beta = 0), every element by fp32_dot(order).
std::vector<float> fp32_gemm(const Shape& s, const std::vector<float>& a, const std::vector<float>& b, int order) {
  std::vector<float> c(static_cast<std::size_t>(s.m * s.n));
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j) c[i * s.n + j] = fp32_dot(&a[i * s.k], &b[j], s.k, s.n, order);
  return c;
}

}  // namespace

TEST_CASE("an honest fp32 result whose terms cancel passes; a wrong one fails", "[gemm][tolerance]") {
  // 1 x 3 x 4096: random terms, and the last term of each column chosen so that the exact sum
  // almost cancels: |ref| ~ 1e-6 while sum |a b| ~ 1000. fp32 rounding then errs by ~1e-6,
  // a thousand times |ref|: fine against the terms' magnitude, hopeless against |ref|.
  const Shape s{1, 3, 4096};
  std::vector<float> a = tut::random_floats(static_cast<std::size_t>(s.k), 21);
  std::vector<float> b = tut::random_floats(static_cast<std::size_t>(s.k * s.n), 22);
  a[s.k - 1] = 1.0f;
  for (std::int64_t j = 0; j < s.n; ++j) {
    double partial = 0.0;
    for (std::int64_t p = 0; p + 1 < s.k; ++p) partial += double(a[p]) * double(b[p * s.n + j]);
    b[(s.k - 1) * s.n + j] = static_cast<float>(-partial);
  }
  const Reference ref = make_reference(s, 1.0f, a.data(), b.data(), 0.0f, nullptr, 1);
  for (std::size_t j = 0; j < ref.value.size(); ++j) {
    REQUIRE(std::fabs(ref.value[j]) < 1e-4);
    REQUIRE(ref.magnitude[j] > 500.0);
  }
  const tut::Tolerance tol = tolerance(Precision::fp32, s.k);
  bool fails_against_ref_alone = false;
  for (int order = 0; order < 3; ++order) {
    const std::vector<float> got = fp32_gemm(s, a, b, order);
    const tut::ErrorStats stats = check_output(ref, got.data(), tol);
    INFO("summation order " << order << ": " << stats.describe(tol));
    REQUIRE(stats.passed(tol));
    tut::ErrorStats vs_ref;  // the same bounds relative to |ref|: what the magnitudes fix
    for (std::size_t j = 0; j < got.size(); ++j) vs_ref.add(j, got[j], ref.value[j], tol);
    fails_against_ref_alone = fails_against_ref_alone || !vs_ref.passed(tol);
  }
  REQUIRE(fails_against_ref_alone);

  // Wrong results fail: the largest product dropped, NaN (C not written), zeros.
  std::int64_t big = 0;
  for (std::int64_t p = 0; p + 1 < s.k; ++p)
    if (std::fabs(a[p] * b[p * s.n]) > std::fabs(a[big] * b[big * s.n])) big = p;
  std::vector<float> got = fp32_gemm(s, a, b, 0);
  got[0] -= a[big] * b[big * s.n];
  REQUIRE_FALSE(check_output(ref, got.data(), tol).passed(tol));
  got = fp32_gemm(s, a, b, 0);
  got[2] = std::nanf("");
  REQUIRE_FALSE(check_output(ref, got.data(), tol).passed(tol));
}

TEST_CASE("the normwise bound passes fp32 accumulation and fails TF32 inputs in an fp32 kernel", "[gemm][tolerance]") {
  // 32 x 32 x 1024 on inputs in [-1, 1): an fp32 chain errs by about 0.5 u of sum |a b| in norm;
  // TF32-rounded inputs (a kernel on the tensor cores where fp32 was asked) by about
  // 5e-4 / sqrt(K) = 1.7e-5, eight times the bound (sqrt(K) + 3) u = 2.1e-6.
  const Shape s{32, 32, 1024};
  const std::vector<float> a = tut::random_floats(static_cast<std::size_t>(s.m * s.k), 31);
  const std::vector<float> b = tut::random_floats(static_cast<std::size_t>(s.k * s.n), 32);
  const Reference ref = make_reference(s, 1.0f, a.data(), b.data(), 0.0f, nullptr, 1);
  const tut::Tolerance tol = tolerance(Precision::fp32, s.k);
  const tut::ErrorStats honest = check_output(ref, fp32_gemm(s, a, b, 0).data(), tol);
  INFO(honest.describe(tol));
  REQUIRE(honest.passed(tol));
  REQUIRE(honest.rel_norm_error() < 0.2 * tol.max_rel_norm);
  std::vector<float> a32 = a, b32 = b;
  for (float& x : a32) x = round_to_tf32(x);
  for (float& x : b32) x = round_to_tf32(x);
  const tut::ErrorStats tf32 = check_output(ref, fp32_gemm(s, a32, b32, 0).data(), tol);
  INFO(tf32.describe(tol));
  REQUIRE_FALSE(tf32.passed(tol));
}

TEST_CASE("TF32 and BF16 rounding", "[gemm][precision]") {
  REQUIRE(round_to_tf32(1.0f) == 1.0f);
  REQUIRE(round_to_tf32(1.0f + std::ldexp(1.0f, -10)) == 1.0f + std::ldexp(1.0f, -10));  // representable
  REQUIRE(round_to_tf32(1.0f + std::ldexp(1.0f, -12)) == 1.0f);                          // below half an ulp
  REQUIRE(round_to_tf32(1.0f + std::ldexp(1.0f, -11)) == 1.0f + std::ldexp(1.0f, -10));  // tie: away from zero
  REQUIRE(round_to_tf32(-1.0f - std::ldexp(1.0f, -11)) == -1.0f - std::ldexp(1.0f, -10));
  REQUIRE(std::isinf(round_to_tf32(INFINITY)));
  REQUIRE(std::isnan(round_to_tf32(std::nanf(""))));
  REQUIRE(round_to_bf16(1.0f) == 1.0f);
  REQUIRE(round_to_bf16(1.0f + std::ldexp(1.0f, -8)) == 1.0f);  // tie: to even
  REQUIRE(round_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)) == 1.0f + std::ldexp(1.0f, -6));
  for (float x : tut::random_floats(1000, 5)) {
    REQUIRE(std::fabs(round_to_tf32(x) - x) <= std::ldexp(std::fabs(x), -11));
    REQUIRE(std::fabs(round_to_bf16(x) - x) <= std::ldexp(std::fabs(x), -8));
    REQUIRE(round_to_tf32(round_to_tf32(x)) == round_to_tf32(x));
  }
}

TEST_CASE("the registry: unique names, an ordered vN ladder, one library row per precision", "[gemm][registry]") {
  std::set<std::string> names;
  std::map<Precision, int> libraries, ours;
  int ladder = 0;
  const std::regex ladder_name("v([0-9]+)_[a-z0-9_]+");
  for (const auto& v : versions()) {
    INFO(v.info.name);
    REQUIRE(names.insert(v.info.name).second);
    REQUIRE_FALSE(v.info.summary.empty());
    REQUIRE((v.kernel.precision == Precision::bf16 ? v.kernel.bf16 != nullptr : v.kernel.f32 != nullptr));
    REQUIRE((v.kernel.precision == Precision::bf16 ? v.kernel.f32 == nullptr : v.kernel.bf16 == nullptr));
    if (v.kernel.precision != Precision::fp32) REQUIRE(v.info.min_cc >= 80);  // tensor cores: sm_80+
    if (v.unavailable != nullptr) REQUIRE(v.info.min_cc >= 90);  // the Hopper steps: sm_90a
    if (v.info.kind == tut::Kind::library) ++libraries[v.kernel.precision];
    if (v.info.kind == tut::Kind::ours) ++ours[v.kernel.precision];
    std::smatch m;
    if (std::regex_match(v.info.name, m, ladder_name)) {
      REQUIRE(std::stoi(m[1]) == ladder);  // v00, v01, ... in order, no gaps
      ++ladder;
    }
  }
  REQUIRE(ladder == 28);
  for (Precision p : {Precision::fp32, Precision::tf32, Precision::bf16}) {
    INFO(precision_name(p));
    REQUIRE(libraries[p] == 1);
    REQUIRE(ours[p] >= 1);
  }
}

namespace {

/// Whether a candidate's launcher is set for its precision (and only that one).
bool has_launcher(const tune::Candidate& c) {
  return c.kernel.precision == Precision::bf16 ? c.kernel.bf16 != nullptr && c.kernel.f32 == nullptr
                                               : c.kernel.f32 != nullptr && c.kernel.bf16 == nullptr;
}

/// A search's candidate list: 2..8 of them (each is a separate kernel in every build), unique
/// names, each with a launcher of precision `p`, and exactly one chosen by `version`.
void require_candidate_list(const std::vector<tune::Candidate>& cands, Precision p, const std::string& version) {
  REQUIRE(cands.size() >= 2);
  REQUIRE(cands.size() <= 8);
  std::set<std::string> names;
  int chosen = 0;
  for (const auto& c : cands) {
    INFO(c.name);
    REQUIRE(names.insert(c.name).second);
    REQUIRE(c.kernel.precision == p);
    REQUIRE(has_launcher(c));
    REQUIRE((c.chosen_by.empty() || c.chosen_by == version));
    chosen += c.chosen_by == version ? 1 : 0;
  }
  REQUIRE(chosen == 1);
}

/// Whether the registry has a version named `name`.
bool registered(const std::string& name) {
  for (const auto& v : versions()) {
    if (v.info.name == name) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("v08's search: at most 8 candidates, unique, exactly one is v08_tuned", "[gemm][registry]") {
  require_candidate_list(tune::ffma_candidates(), Precision::fp32, "v08_tuned");
  REQUIRE(registered("v08_tuned"));
}

TEST_CASE("v11's search: at most 8 candidates, unique, exactly one is v11_mma_bf16", "[gemm][registry]") {
  require_candidate_list(tune::mma_bf16_candidates(), Precision::bf16, "v11_mma_bf16");
  REQUIRE(registered("v11_mma_bf16"));
}

TEST_CASE("v09's configurations: at most 12, unique, none shares a name with v08's candidates", "[gemm][registry]") {
  // Twelve launchers of eight kernels: each `_padb` candidate runs a kernel of the list on the
  // padded copy of B. v09 runs two of them (Large and SmallFatDeep, on padded B).
  const auto& cands = tune::shape_candidates();
  REQUIRE(cands.size() >= 3);
  REQUIRE(cands.size() <= 12);
  std::set<std::string> names;
  for (const auto& c : tune::ffma_candidates()) names.insert(c.name);
  int chosen = 0;
  for (const auto& c : cands) {
    INFO(c.name);
    REQUIRE(names.insert(c.name).second);
    REQUIRE(c.kernel.precision == Precision::fp32);
    REQUIRE(has_launcher(c));
    REQUIRE((c.chosen_by.empty() || c.chosen_by == "v09_by_shape"));
    chosen += c.chosen_by.empty() ? 0 : 1;
  }
  REQUIRE(chosen == 2);
  REQUIRE(registered("v09_by_shape"));
}

TEST_CASE("v09's choice at the table's shapes on an H100 (132 SMs)", "[gemm][registry]") {
  REQUIRE(choose_config(1024, 1024, 132) == ShapeConfig::small);  // 32 tiles of 128 x 256: a quarter of a round
  REQUIRE(choose_config(2048, 2048, 132) == ShapeConfig::large);  // 128 tiles in one round: 97%
  REQUIRE(choose_config(4096, 4096, 132) == ShapeConfig::large);  // 512 in four: 97%
  REQUIRE(choose_config(8192, 8192, 132) == ShapeConfig::large);  // 2048 in sixteen: 97%
  REQUIRE(choose_config(4095, 4097, 132) == ShapeConfig::small);  // 544 in five: 82%
  REQUIRE(choose_config(4096, 4097, 132) == ShapeConfig::small);
  REQUIRE(choose_config(1, 1, 132) == ShapeConfig::small);
}

TEST_CASE("v18's choice at the table's shapes on an H100 (132 SMs)", "[gemm][registry]") {
  REQUIRE(v18_takes_half_tiles(1024, 1024, 132));        // 32 large tiles or 64 half: one wave either way
  REQUIRE_FALSE(v18_takes_half_tiles(2048, 2048, 132));  // 1 wave of large tiles or 2 of half ones
  REQUIRE_FALSE(v18_takes_half_tiles(4096, 4096, 132));  // 4 or 8
  REQUIRE_FALSE(v18_takes_half_tiles(8192, 8192, 132));  // 16 or 32
  REQUIRE_FALSE(v18_takes_half_tiles(4095, 4097, 132));  // 5 or 9 (9 x 2/3 = 6 > 5)
  REQUIRE(v18_takes_half_tiles(1, 1, 132));
  REQUIRE(v18_takes_half_tiles(512, 512, 132));
  REQUIRE_FALSE(v18_takes_half_tiles(1024, 1024, 32));   // a GPU of 32 SMs: 1 wave of large, 2 of half
}

TEST_CASE("v19's splits at the table's shapes on an H100 (132 SMs)", "[gemm][registry]") {
  REQUIRE(v19_splits(1024, 1024, 4096, 132) == 2);  // 64 half tiles, 64 k-slices: 128 blocks of 32
  REQUIRE(v19_splits(1024, 1024, 1024, 132) == 1);  // 16 k-slices: two shares of 8 would not pay
  REQUIRE(v19_splits(512, 512, 4096, 132) == 4);    // 16 tiles: at most 4 shares
  REQUIRE(v19_splits(512, 512, 512, 132) == 1);
  REQUIRE(v19_splits(2048, 2048, 2048, 132) == 1);  // 256 half tiles: the SMs are busy
  REQUIRE(v19_splits(4095, 4097, 1023, 132) == 1);
  REQUIRE(v19_splits(8192, 8192, 8192, 132) == 1);
  REQUIRE(v19_splits(1, 1, 1 << 20, 132) == 4);
}

TEST_CASE("the GPU tests' shapes reach every path of v18-v20, v23 and v24 on an H100 (132 SMs)", "[gemm][registry]") {
  // test_gpu.cpp runs these shapes; on an H100 they must take the paths its comments name.
  const std::vector<Shape> a = gemm::testing::v18_v20_path_shapes();
  REQUIRE(a.size() == 5);
  REQUIRE(v18_takes_half_tiles(a[0].m, a[0].n, 132));          // 1000 x 1000: half tiles
  REQUIRE(v19_splits(a[1].m, a[1].n, a[1].k, 132) == 4);         // 300 x 200 x 4100: 4 shares
  REQUIRE(v19_splits(a[2].m, a[2].n, a[2].k, 132) == 2);         // 513 x 260 x 2049: 2 shares
  REQUIRE(v19_splits(a[3].m, a[3].n, a[3].k, 132) > 1);          // 300 x 201 x 4100: would split ...
  REQUIRE(a[3].n % 4 != 0);                                      // ... but cannot (no TMA reduce)
  REQUIRE(v19_splits(a[4].m, a[4].n, a[4].k, 132) == 2);         // 130 x 132 x 2048: 2 shares
  for (const Shape& s : a) REQUIRE(v20_tile_n(s.m, s.n, 132) == 64);
  std::set<int> rows;
  for (const Shape& s : gemm::testing::v23_path_shapes()) rows.insert(v23_tile_rows(s.m, s.n, 132));
  REQUIRE(rows == std::set<int>{64, 128, 256});
  REQUIRE(v23_tile_rows(1000, 1000, 132) == 64);
  REQUIRE(v23_tile_rows(2048, 1000, 132) == 128);
  REQUIRE(v23_tile_rows(2048, 2048, 132) == 256);
  const std::vector<Shape> p = gemm::testing::v24_path_shapes();
  REQUIRE(p.size() == 5);
  for (int i = 0; i < 4; ++i) REQUIRE(v24_takes_pairs(p[i].m, p[i].n, p[i].k, 66));
  REQUIRE(p[0].n % 4 != 0);               // C from the registers
  REQUIRE((p[1].k + 63) / 64 % 2 == 1);   // 33 k-slices: shares of 16 and 17
  REQUIRE_FALSE(v24_takes_pairs(p[4].m, p[4].n, p[4].k, 66));  // 5 k-slices: v20
  // The Hopper test's shapes run v25's (and v20's) other three tiles.
  REQUIRE(v20_tile_n(2049, 2056, 132) == 256);
  REQUIRE(v20_tile_n(1031, 1029, 132) == 128);
  REQUIRE(v20_tile_n(640, 768, 132) == 64);
  for (const Shape& s : std::vector<Shape>{{2049, 2056, 200}, {1031, 1029, 333}, {640, 768, 1000}}) {
    REQUIRE_FALSE(v24_takes_pairs(s.m, s.n, s.k, 66));
  }
}

TEST_CASE("v23's tile at the table's shapes on an H100 (132 SMs)", "[gemm][registry]") {
  REQUIRE(v23_tile_rows(1024, 1024, 132) == 64);   // 16, 32 or 64 cluster pairs: one wave each
  REQUIRE(v23_tile_rows(2048, 2048, 132) == 256);  // 1, 2 and 4 waves
  REQUIRE(v23_tile_rows(4096, 4096, 132) == 256);
  REQUIRE(v23_tile_rows(8192, 8192, 132) == 256);
  REQUIRE(v23_tile_rows(4095, 4097, 132) == 256);  // 5, 9 and 17 waves: 100, 108, 119
  REQUIRE(v23_tile_rows(2048, 1024, 132) == 128);  // 1, 1 and 2 waves: 20, 12, 14
  REQUIRE(v23_tile_rows(1, 1, 132) == 64);
}

TEST_CASE("v24's pairs at the table's shapes on an H100 (66 clusters of two)", "[gemm][registry]") {
  REQUIRE(v24_takes_pairs(1024, 1024, 4096, 66));        // 64 tiles of 128 x 128, 64 k-slices: 32 per CTA
  REQUIRE_FALSE(v24_takes_pairs(1024, 1024, 1024, 66));  // 16 k-slices: 8 per CTA do not pay for the exchange
  REQUIRE(v24_takes_pairs(1024, 1024, 1985, 66));        // 32 k-slices (the last one partial): 16 each ...
  REQUIRE_FALSE(v24_takes_pairs(1024, 1024, 1984, 66));  // ... 31: v20
  REQUIRE_FALSE(v24_takes_pairs(2048, 2048, 2048, 66));  // 256 tiles: v20 (its 128 x 256 tile)
  REQUIRE_FALSE(v24_takes_pairs(4095, 4097, 1023, 66));
  REQUIRE_FALSE(v24_takes_pairs(8192, 8192, 8192, 66));
  REQUIRE(v24_takes_pairs(768, 1408, 4096, 66));         // 6 x 11 = 66 tiles: one pair each ...
  REQUIRE_FALSE(v24_takes_pairs(768, 1409, 4096, 66));   // ... 6 x 12 = 72 > 66: v20
  REQUIRE(v24_takes_pairs(1, 1, 1 << 20, 66));
  REQUIRE_FALSE(v24_takes_pairs(1024, 1024, 4096, 32));  // a GPU of 64 SMs: 64 tiles need two rounds
}

TEST_CASE("v20's tile at the table's shapes on an H100 (132 SMs)", "[gemm][registry]") {
  REQUIRE(v20_tile_n(1024, 1024, 132) == 64);    // 32, 64 or 128 tiles: one wave each, the cheapest is 64 wide
  REQUIRE(v20_tile_n(2048, 1024, 132) == 128);   // 1, 1 and 2 waves
  REQUIRE(v20_tile_n(2048, 2048, 132) == 256);   // 1, 2 and 4 waves
  REQUIRE(v20_tile_n(4096, 4096, 132) == 256);
  REQUIRE(v20_tile_n(8192, 8192, 132) == 256);
  REQUIRE(v20_tile_n(4095, 4097, 132) == 256);   // 5, 8 and 16 waves: 45, 48, 64 ninths
  REQUIRE(v20_tile_n(1, 1, 132) == 64);
}

TEST_CASE("FLOP model and grid limits", "[gemm][model]") {
  REQUIRE(gemm_flops({4095, 4097, 1023}) == 2.0 * 4095.0 * 4097.0 * 1023.0);
  const dim3 g = tile_grid(129, 257, 128, 128);
  REQUIRE(g.x == 3);
  REQUIRE(g.y == 2);
  REQUIRE_THROWS_AS(tile_grid(65536LL * 128 + 1, 1, 128, 128), std::invalid_argument);
  REQUIRE_THROWS_AS(check_dims(1, 1, (1LL << 31)), std::invalid_argument);
  REQUIRE_NOTHROW(check_dims(46341, 46344, 8));
}

// ---------------------------------------------------------------------------------------------
// What the compiler made of the kernels. The build compiles every kernel file once more to PTX
// for sm_90a and runs ptxas -v on it (chapters/06_gemm/CMakeLists.txt); these tests read that.
// ---------------------------------------------------------------------------------------------
#if defined(GEMM_REPORT_DIR)

namespace {

using tut::testing::read_text_file;  // the report's helpers, shared with attention's (common/testing.hpp)
using tut::testing::require_no_spills;
using tut::testing::require_wgmma_as_written;

const char* const kReportedFiles[] = {"v03_blocktile_1d",      "v04_blocktile_2d",    "v05_vectorized",
                                      "v06_warptile",          "v07_pipelined",       "v08_tuned",
                                      "v10_wmma_tf32",         "v11_mma_bf16",       "v09_by_shape",
                                      "v12_tma_wgmma",        "v13_two_warpgroups", "v14_warp_specialized",
                                      "v15_persistent",       "v16_tma_store",      "v17_cluster_multicast",
                                      "v18_tile_by_waves",    "v19_split_k",          "v20_narrow_tiles",
                                      "v21_wgmma_tf32",       "v22_split_tf32",       "v23_tf32_tile_by_waves",
                                      "v24_cluster_split_k",  "v25_descriptor_steps", "v26_serpentine_ffma",
                                      "v27_sleeping_waits",   "ffma_candidates",      "shape_candidates",
                                      "mma_bf16_candidates"};

std::string report_path(const std::string& stem, const char* ext) {
  return std::string(GEMM_REPORT_DIR) + "/" + stem + ".sm_90a" + ext;
}

}  // namespace

TEST_CASE("register-blocked and tensor-core kernels do not spill (ptxas -v, sm_90a)", "[gemm][resources]") {
  for (const char* stem : kReportedFiles) {
    DYNAMIC_SECTION(stem) { require_no_spills(read_text_file(report_path(stem, ".ptxas.txt"))); }
  }
}

TEST_CASE("the compiler neither serializes wgmma nor ignores setmaxnreg (ptxas -v, sm_90a)", "[gemm][resources]") {
  // ptxas says so in advisories (require_wgmma_as_written(); C7513 here: v21's fragments).
  for (const char* stem : {"v12_tma_wgmma", "v13_two_warpgroups", "v14_warp_specialized", "v15_persistent",
                           "v16_tma_store", "v17_cluster_multicast", "v18_tile_by_waves", "v19_split_k",
                           "v20_narrow_tiles", "v21_wgmma_tf32", "v22_split_tf32", "v23_tf32_tile_by_waves",
                           "v24_cluster_split_k", "v25_descriptor_steps", "v27_sleeping_waits"}) {
    DYNAMIC_SECTION(stem) { require_wgmma_as_written(read_text_file(report_path(stem, ".ptxas.txt"))); }
  }
}

TEST_CASE("the PTX contains the instructions each step is about (sm_90a)", "[gemm][resources]") {
  const auto ptx = [](const char* stem) { return read_text_file(report_path(stem, ".ptx")); };
  const auto has = [](const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; };
  SECTION("v05, v06: 16-byte global and shared loads") {
    for (const char* stem : {"v05_vectorized", "v06_warptile"}) {
      INFO(stem);
      const std::string p = ptx(stem);
      REQUIRE(has(p, "ld.shared.v4.f32"));
      REQUIRE((has(p, "ld.global.v4.f32") || has(p, "ld.global.nc.v4.f32")));
      REQUIRE_FALSE(has(p, "mma."));
    }
  }
  SECTION("v07, v08, v09, v26 and the FFMA searches (v07's kernel): cp.async, 4- and 16-byte, with commit/wait groups") {
    for (const char* stem :
         {"v07_pipelined", "v08_tuned", "v09_by_shape", "v26_serpentine_ffma", "ffma_candidates", "shape_candidates"}) {
      INFO(stem);
      const std::string p = ptx(stem);
      REQUIRE(has(p, "cp.async.ca.shared.global"));
      REQUIRE(has(p, "cp.async.cg.shared.global"));
      REQUIRE(has(p, "cp.async.commit_group"));
      REQUIRE(has(p, "cp.async.wait_group"));
      REQUIRE(has(p, "ld.shared.v4.f32"));
      REQUIRE(has(p, "fma.rn.f32"));
      REQUIRE_FALSE(has(p, "mma."));
    }
  }
  SECTION("v10: WMMA loads and TF32 matrix multiply-accumulate") {
    const std::string p = ptx("v10_wmma_tf32");
    REQUIRE(has(p, "wmma.load.a.sync"));
    REQUIRE(has(p, "wmma.load.b.sync"));
    REQUIRE(std::regex_search(p, std::regex(R"(wmma\.mma\.sync\.aligned\.[a-z.]*m16n16k8[a-z0-9.]*tf32)")));
    REQUIRE(has(p, "cvt.rna.tf32.f32"));
  }
  SECTION("v11: mma.sync m16n8k16 BF16, ldmatrix (plain and .trans), cp.async") {
    const std::string p = ptx("v11_mma_bf16");
    REQUIRE(has(p, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
    REQUIRE(has(p, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
    REQUIRE(has(p, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"));
    REQUIRE(has(p, "cp.async.cg.shared.global"));
  }
  SECTION("v12-v25, v27: TMA loads completing on mbarriers, wgmma from shared-memory descriptors") {
    for (const char* stem : {"v12_tma_wgmma", "v13_two_warpgroups", "v14_warp_specialized", "v15_persistent",
                             "v16_tma_store", "v17_cluster_multicast", "v18_tile_by_waves", "v19_split_k",
                             "v20_narrow_tiles", "v21_wgmma_tf32", "v22_split_tf32", "v23_tf32_tile_by_waves",
                             "v24_cluster_split_k", "v25_descriptor_steps", "v27_sleeping_waits"}) {
      INFO(stem);
      const std::string p = ptx(stem);
      REQUIRE(has(p, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"));
      REQUIRE(has(p, "mbarrier.arrive.expect_tx"));
      REQUIRE(has(p, "mbarrier.try_wait.parity"));
      REQUIRE(has(p, "wgmma.fence.sync.aligned"));
      REQUIRE(has(p, "wgmma.commit_group.sync.aligned"));
      REQUIRE(has(p, "wgmma.wait_group.sync.aligned"));
      REQUIRE_FALSE(has(p, "mma.sync"));
      REQUIRE_FALSE(has(p, "ldmatrix"));
    }
    REQUIRE(has(ptx("v12_tma_wgmma"), "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"));
    REQUIRE(has(ptx("v13_two_warpgroups"), "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"));
  }
  SECTION("v14-v17: warp specialization with setmaxnreg; v16, v17: TMA stores; v17: multicast in clusters") {
    for (const char* stem : {"v14_warp_specialized", "v15_persistent", "v16_tma_store", "v17_cluster_multicast"}) {
      INFO(stem);
      const std::string p = ptx(stem);
      REQUIRE(has(p, "setmaxnreg.dec.sync.aligned.u32 40"));
      REQUIRE(has(p, "setmaxnreg.inc.sync.aligned.u32 232"));
      REQUIRE(has(p, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"));
    }
    for (const char* stem : {"v16_tma_store", "v17_cluster_multicast"}) {
      INFO(stem);
      const std::string p = ptx(stem);
      REQUIRE(has(p, "cp.async.bulk.tensor.2d.global.shared::cta"));
      REQUIRE(has(p, "fence.proxy.async.shared::cta"));
    }
    const std::string v17 = ptx("v17_cluster_multicast");
    REQUIRE(has(v17, ".multicast::cluster"));
    REQUIRE(has(v17, "mbarrier.arrive.shared::cluster"));
    REQUIRE(has(v17, "barrier.cluster.arrive"));
    for (const char* stem : {"v15_persistent", "v16_tma_store"}) REQUIRE_FALSE(has(ptx(stem), ".multicast::cluster"));
    REQUIRE_FALSE(has(ptx("v15_persistent"), "cp.async.bulk.tensor.2d.global.shared::cta"));
    // v18: v16's kernel twice, with 128 x 256 and with 128 x 128 tiles (m64n256k16 and m64n128k16).
    const std::string v18 = ptx("v18_tile_by_waves");
    REQUIRE(has(v18, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"));
    REQUIRE(has(v18, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"));
    REQUIRE(has(v18, "cp.async.bulk.tensor.2d.global.shared::cta"));
    // v19: the TMA reduce-add of split-K (and v18's kernels for the problems it does not split).
    const std::string v19 = ptx("v19_split_k");
    REQUIRE(has(v19, "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"));
    REQUIRE(has(v19, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"));
    REQUIRE_FALSE(has(v18, "cp.reduce.async.bulk"));
    // v20: a third tile, 128 x 64 (m64n64k16), and no split.
    const std::string v20 = ptx("v20_narrow_tiles");
    REQUIRE(has(v20, "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"));
    REQUIRE_FALSE(has(v20, "cp.reduce.async.bulk"));
    // v21: TF32 wgmma with A (B^T's fragments) from registers, warp-specialized as v14.
    const std::string v21 = ptx("v21_wgmma_tf32");
    REQUIRE(std::regex_search(v21, std::regex(R"(wgmma\.mma_async\.sync\.aligned\.m64n256k8\.f32\.tf32\.tf32 \{[^}]*\}, \{%r)")));
    REQUIRE(has(v21, "setmaxnreg.inc.sync.aligned.u32 232"));
    REQUIRE_FALSE(has(v21, "bf16"));
    // v22: v21's kernel on 128-row tiles (m64n128k8) with A_lo multicast too, three wgmma per k-step.
    const std::string v22 = ptx("v22_split_tf32");
    REQUIRE(has(v22, "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32"));
    REQUIRE_FALSE(has(v22, "m64n256k8"));
    REQUIRE(has(v22, ".multicast::cluster"));
    const auto count = [](const std::string& text, const std::string& what) {
      std::size_t n = 0;
      for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
      return n;
    };
    // Per k-slice (four k-steps): v21 four wgmma, its loop body two slices; v22 three per k-step.
    REQUIRE(count(v21, "wgmma.mma_async.sync") == 2 * 4);
    REQUIRE(count(v22, "wgmma.mma_async.sync") == 3 * 4);
    // v23: v21's kernel with 256, 128 and 64 rows (m64n256k8, m64n128k8, m64n64k8).
    const std::string v23 = ptx("v23_tf32_tile_by_waves");
    for (const char* shape : {"m64n256k8", "m64n128k8", "m64n64k8"}) {
      REQUIRE(has(v23, std::string("wgmma.mma_async.sync.aligned.") + shape + ".f32.tf32.tf32"));
    }
    // v24: v18's 128 x 128 tile in clusters (no multicast, no reduce into C); the partial sums go
    // to the peer CTA's shared memory (mapa, st.async completing on the peer's barrier), which
    // frees its buffer with a remote arrive.
    const std::string v24 = ptx("v24_cluster_split_k");
    REQUIRE(has(v24, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"));
    REQUIRE(has(v24, "mapa.shared::cluster.u32"));
    REQUIRE(has(v24, "st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v4.b32"));
    REQUIRE(has(v24, "mbarrier.arrive.shared::cluster.b64"));
    REQUIRE(has(v24, "barrier.cluster.arrive"));
    REQUIRE_FALSE(has(v24, ".multicast::cluster"));
    REQUIRE_FALSE(has(v24, "cp.reduce.async.bulk"));
    for (const char* stem : {"v16_tma_store", "v17_cluster_multicast", "v19_split_k", "v20_narrow_tiles"}) {
      REQUIRE_FALSE(has(ptx(stem), "st.async"));
    }
    // v25: one pair of descriptors per k-slice (four k-steps), advanced by a constant, where v20
    // and v24 build a pair per wgmma: each built descriptor masks its address field (& 0x3fff0).
    const std::string v25 = ptx("v25_descriptor_steps");
    for (const std::string* p : {&v20, &v24}) REQUIRE(count(*p, "262128") == 2 * count(*p, "wgmma.mma_async"));
    REQUIRE(count(v25, "wgmma.mma_async") == 4 * 4);  // four configurations, four k-steps each
    REQUIRE(count(v25, "262128") * 4 == 2 * count(v25, "wgmma.mma_async"));
    REQUIRE(has(v25, "st.async"));  // v24's pairs, advanced too
    // v27: v25's kernels, each stage wait's try_wait with the suspend-time hint (10 ms) as a fourth
    // operand; v25's without it.
    const std::string v27 = ptx("v27_sleeping_waits");
    REQUIRE(count(v27, "wgmma.mma_async") == count(v25, "wgmma.mma_async"));
    REQUIRE(count(v27, ", 10000000;") >= 2 * 4);  // the producer's and the consumers' waits, four configurations
    REQUIRE(count(v25, ", 10000000;") == 0);
  }
  SECTION("v03, v04: plain FFMA code, no vector or matrix instructions yet") {
    for (const char* stem : {"v03_blocktile_1d", "v04_blocktile_2d"}) {
      INFO(stem);
      const std::string p = ptx(stem);
      REQUIRE(has(p, "fma.rn.f32"));
      REQUIRE_FALSE(has(p, "mma."));
      REQUIRE_FALSE(has(p, "cp.async"));
    }
  }
}

#endif  // GEMM_REPORT_DIR
