// CPU tests of chapter 08: the reference (small cases by hand, the causal alignment, rows that see
// nothing, huge scores), the counting (visible pairs, FLOPs, key tiles), the sampling, the
// tolerances, the check, the registry, and the searches' candidates.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "attention.hpp"
#include "common/random.hpp"
#include "common/testing.hpp"
#include "tune/tune.hpp"

using namespace attention;

namespace {

/// The reference of every row of a one-head problem.
Reference full_reference(const Shape& s, const std::vector<float>& q, const std::vector<float>& k,
                         const std::vector<float>& v) {
  return make_reference(s, q.data(), k.data(), v.data(), 1, 1e300);
}

/// Brute-force count of the visible (query, key) pairs of one head.
double count_pairs(std::int64_t sq, std::int64_t sk, bool causal) {
  double n = 0;
  for (std::int64_t i = 0; i < sq; ++i)
    for (std::int64_t j = 0; j < sk; ++j) n += (!causal || j <= i + sk - sq) ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("the reference: one key gives its value; equal scores give the mean", "[attention][reference]") {
  // Sk = 1: softmax of one score is 1, so O = V's row and lse = the score.
  const Shape one{1, 1, 2, 1, 2, false};
  const std::vector<float> q = {1, 2, 3, 4}, k = {0.5f, -1}, v = {7, -3};
  const Reference r1 = full_reference(one, q, k, v);
  const double scale = 1.0 / std::sqrt(2.0f);
  REQUIRE(r1.o == std::vector<double>{7, -3, 7, -3});
  REQUIRE(r1.mag == std::vector<double>{7, 3, 7, 3});  // one term: the magnitude is |o|
  REQUIRE(r1.lse[0] == Approx(scale * (0.5 - 2.0)).epsilon(1e-6));
  REQUIRE(r1.lse[1] == Approx(scale * (1.5 - 4.0)).epsilon(1e-6));
  // Q = 0: every score is 0, P is uniform over the visible keys, O is their mean, lse = log(n).
  const Shape flat{1, 1, 1, 4, 1, false};
  const Reference r2 = full_reference(flat, {0}, {1, 2, 3, 4}, {1, 2, 3, 6});
  REQUIRE(r2.o[0] == Approx(3.0));
  REQUIRE(r2.lse[0] == Approx(std::log(4.0)));
  // Terms that cancel: O is the mean of 1 and -1, its magnitude the mean of their sizes.
  const Reference r3 = full_reference({1, 1, 1, 2, 1, false}, {0}, {1, 2}, {1, -1});
  REQUIRE(r3.o[0] == 0.0);
  REQUIRE(r3.mag[0] == Approx(1.0));
}

TEST_CASE("the causal mask is aligned bottom-right when Sq != Sk", "[attention][reference][mask]") {
  // Sq = 2, Sk = 4: query i sees keys j <= i + 2. Row 0: keys 0-2 (mean 2 of V = 1, 2, 3); row 1: all.
  const Shape fewer_q{1, 1, 2, 4, 1, true};
  const Reference a = full_reference(fewer_q, {0, 0}, {1, 1, 1, 1}, {1, 2, 3, 6});
  REQUIRE(a.o[0] == Approx(2.0));
  REQUIRE(a.o[1] == Approx(3.0));
  REQUIRE(a.lse[0] == Approx(std::log(3.0)));
  // Sq = 4, Sk = 2: query i sees keys j <= i - 2. Rows 0 and 1 see nothing: O = 0, lse = -inf.
  const Shape more_q{1, 1, 4, 2, 1, true};
  const Reference b = full_reference(more_q, {0, 0, 0, 0}, {1, 1}, {4, 8});
  REQUIRE(b.o == std::vector<double>{0, 0, 4, 6});
  REQUIRE(std::isinf(b.lse[0]));
  REQUIRE(b.lse[0] < 0);
  REQUIRE(std::isinf(b.lse[1]));
  REQUIRE(b.lse[2] == Approx(0.0).margin(1e-12));
  REQUIRE(b.lse[3] == Approx(std::log(2.0)));
  // Sq = Sk: the usual lower triangle.
  for (std::int64_t i = 0; i < 5; ++i) REQUIRE(visible_keys(i, 5, 5, true) == i + 1);
  REQUIRE(visible_keys(0, 3, 7, true) == 5);
  REQUIRE(visible_keys(2, 3, 7, true) == 7);
  REQUIRE(visible_keys(0, 7, 3, true) == 0);
  REQUIRE(visible_keys(6, 7, 3, true) == 3);
  REQUIRE(visible_keys(3, 7, 3, false) == 3);
}

TEST_CASE("the reference survives scores far beyond exp's range", "[attention][reference]") {
  // Scores of +-3000: exp(3000) is inf in double too; the max subtraction keeps everything finite.
  const Shape s{1, 1, 2, 3, 1, false};
  const std::vector<float> q = {3000, -3000}, k = {1, 0.99f, -1}, v = {1, 2, 3};
  const Reference r = full_reference(s, q, k, v);
  REQUIRE(std::isfinite(r.o[0]));
  REQUIRE(r.o[0] == Approx(1.0).margin(1e-9));  // key 0 wins by 30: key 1 weighs e^-30
  REQUIRE(r.o[1] == Approx(3.0).margin(1e-9));
  REQUIRE(r.lse[0] == Approx(3000.0).epsilon(1e-9));
}

TEST_CASE("visible pairs, FLOPs and key tiles count what the kernels do", "[attention][model]") {
  for (std::int64_t sq : {1, 2, 17, 64, 65, 300})
    for (std::int64_t sk : {1, 3, 17, 64, 65, 301})
      for (bool causal : {false, true}) {
        const Shape s{2, 3, sq, sk, 64, causal};
        INFO(shape_text(s));
        REQUIRE(visible_pairs(s) == 6.0 * count_pairs(sq, sk, causal));
        REQUIRE(attention_flops(s) == 4.0 * 64 * visible_pairs(s));
        // key_tiles: enough tiles for the block's last row, and no more.
        for (int bc : {32, 64}) {
          for (std::int64_t row0 = 0; row0 < sq; row0 += 64) {
            const int rows = static_cast<int>(std::min<std::int64_t>(64, sq - row0));
            const std::int64_t need = visible_keys(row0 + rows - 1, sq, sk, causal);
            const int tiles = key_tiles(static_cast<int>(row0), rows, static_cast<int>(sq), static_cast<int>(sk), causal, bc);
            REQUIRE(static_cast<std::int64_t>(tiles) * bc >= need);
            REQUIRE((tiles == 0 || static_cast<std::int64_t>(tiles - 1) * bc < need));
            REQUIRE(range_keys(static_cast<int>(row0), rows, static_cast<int>(sq), static_cast<int>(sk), causal) == need);
          }
        }
      }
  // v24's rule, on the page's shapes: 4096 keys leave 48 in the 24th tile of 176 (narrowed), 8192
  // leave 96 in the 47th (whole); 240 and 241 keys leave 64 and 65 in the second; one tile stays whole.
  REQUIRE(key_tiles(0, 128, 4096, 4096, false, 176) == 24);
  REQUIRE(narrows_last_tile(24, 4096, 176, 64));
  REQUIRE_FALSE(narrows_last_tile(47, 8192, 176, 64));
  REQUIRE(narrows_last_tile(2, 240, 176, 64));
  REQUIRE_FALSE(narrows_last_tile(2, 241, 176, 64));
  REQUIRE_FALSE(narrows_last_tile(1, 48, 176, 64));
  // Causal with Sq = Sk is half the work, plus the diagonal.
  const Shape square{4, 16, 1024, 1024, 64, true};
  REQUIRE(attention_flops(square) == Approx(0.5 * attention_flops({4, 16, 1024, 1024, 64, false}) * 1025.0 / 1024.0));
  REQUIRE(attention_bytes({1, 1, 10, 20, 8, false}, 2.0) == 2.0 * 8 * (10 + 20 + 20 + 10) + 4.0 * 10);
  REQUIRE(score_matrix_bytes({4, 16, 4096, 4096, 64, false}) == 4.0 * 64 * 4096.0 * 4096.0);
}

TEST_CASE("shapes: validation and text", "[attention][model]") {
  REQUIRE(shape_text({4, 16, 1024, 1024, 64, false}) == "B4 H16 S1024 D64");
  REQUIRE(shape_text({1, 2, 3, 5, 128, true}) == "B1 H2 Sq3 Sk5 D128 causal");
  REQUIRE_THROWS_AS(check_shape({1, 1, 0, 4, 64, false}), std::invalid_argument);
  REQUIRE_THROWS_AS(check_shape({1, 1, 4, 4, 0, false}), std::invalid_argument);
  REQUIRE_THROWS_AS(check_shape({1, 1, std::int64_t{1} << 31, 4, 64, false}), std::invalid_argument);
  REQUIRE_NOTHROW(check_shape({1, 1, 1, 1, 1, true}));
  REQUIRE(Shape{1, 1, 1, 1, 64, false}.scale() == 0.125f);
}

TEST_CASE("sampled rows: in range, sorted, edges included, reproducible", "[attention][reference]") {
  const Shape s{1, 32, 8192, 8192, 128, true};
  const auto rows = sample_rows(s, 42);
  REQUIRE(rows == sample_rows(s, 42));
  REQUIRE(rows != sample_rows(s, 43));
  REQUIRE(std::is_sorted(rows.begin(), rows.end()));
  REQUIRE(std::adjacent_find(rows.begin(), rows.end()) == rows.end());
  REQUIRE(rows.back() < s.heads() * s.sq);
  const std::set<std::int64_t> set(rows.begin(), rows.end());
  for (std::int64_t r : {std::int64_t{0}, std::int64_t{1}, s.sq - 1, s.sq * 31, s.sq * 32 - 1, std::int64_t{127}, std::int64_t{128}}) {
    REQUIRE(set.count(r) == 1);
  }
  REQUIRE(rows.size() > 100);
  // Sq > Sk with the mask: the rows around the first one that sees a key are included.
  const Shape tall{1, 1, 5000, 1000, 64, true};
  const std::set<std::int64_t> tall_rows = [&] {
    const auto r = sample_rows(tall, 7);
    return std::set<std::int64_t>(r.begin(), r.end());
  }();
  REQUIRE(tall_rows.count(3999) == 1);
  REQUIRE(tall_rows.count(4000) == 1);
  REQUIRE(sample_rows({1, 1, 1, 1, 64, false}, 1) == std::vector<std::int64_t>{0});
}

TEST_CASE("a sampled reference equals the full one where it looks", "[attention][reference]") {
  const Shape s{2, 3, 300, 200, 16, true};
  const auto q = tut::random_floats(static_cast<std::size_t>(s.heads() * s.sq * s.d), 1, -1.7f, 1.7f);
  const auto k = tut::random_floats(static_cast<std::size_t>(s.heads() * s.sk * s.d), 2, -1.7f, 1.7f);
  const auto v = tut::random_floats(static_cast<std::size_t>(s.heads() * s.sk * s.d), 3);
  const Reference full = make_reference(s, q.data(), k.data(), v.data(), 9);
  REQUIRE(full.full);
  const Reference part = make_reference(s, q.data(), k.data(), v.data(), 9, 0.0);
  REQUIRE_FALSE(part.full);
  REQUIRE(part.rows == sample_rows(s, 9));
  for (std::size_t r = 0; r < part.rows.size(); ++r) {
    const std::size_t row = static_cast<std::size_t>(part.rows[r]);
    if (std::isinf(full.lse[row])) {
      REQUIRE(std::isinf(part.lse[r]));
    } else {
      REQUIRE(part.lse[r] == Approx(full.lse[row]).margin(1e-12));
    }
    for (std::size_t c = 0; c < 16; ++c) REQUIRE(part.o[r * 16 + c] == Approx(full.o[row * 16 + c]).margin(1e-12));
  }
}

TEST_CASE("tolerances: the worst case of the computation, relative to the magnitudes", "[attention][tolerance]") {
  const Shape s{1, 1, 4096, 4096, 64, false};
  const Tolerances f = tolerances(Precision::fp32, s, 1.8, 1.8, 1.0);
  const Tolerances b = tolerances(Precision::bf16, s, 1.8, 1.8, 1.0);
  const Tolerances big = tolerances(Precision::fp32, s, 24, 24, 1.0);
  // The factors of reference.cpp, written out: a score's error, a probability's, the key chains.
  const double u = std::ldexp(1.0, -24), a = 0.125 * 64 * 1.8 * 1.8;
  const double e_score = (2 * 64 + 8) * u * a, e_p = 2 * e_score + 2 * u * a + 8 * u, e_sum = (6 * 4096 + 8) * u;
  REQUIRE(f.o.rtol == Approx(2 * e_p + 2 * e_sum + 4 * u));
  REQUIRE(b.o.rtol == Approx(f.o.rtol + std::ldexp(1.0, -7)));  // P and O rounded to bf16
  REQUIRE(f.o.atol < 1e-30);                                   // only ex2.approx's flush to zero
  REQUIRE(f.o.rtol < std::ldexp(1.0, -7) / 2);  // fp32's worst case: under half of bf16's rounding alone
  REQUIRE(f.o.max_rel_norm <= 1e-4);             // the normwise limit: the typical error
  REQUIRE(f.o.max_rel_norm <= f.o.rtol);
  REQUIRE(b.o.max_rel_norm <= 1.1e-2);
  REQUIRE(big.o.rtol > f.o.rtol);  // |scores| of hundreds: their rounding errors move exp() more
  REQUIRE(big.lse.atol > f.lse.atol);
  // Longer chains of keys, longer dot products: looser.
  REQUIRE(tolerances(Precision::fp32, {1, 1, 4096, 8192, 64, false}, 1.8, 1.8, 1.0).o.rtol > f.o.rtol);
  REQUIRE(tolerances(Precision::fp32, {1, 1, 4096, 4096, 128, false}, 1.8, 1.8, 1.0).o.rtol > f.o.rtol);
  // lse: an absolute bound; its normwise error over 1 + A, not over |lse|.
  REQUIRE(f.lse.rtol == 0.0);
  REQUIRE(f.lse.atol < 2e-3);
  REQUIRE(f.lse_magnitude == Approx(1.0 + a));
  REQUIRE(f.lse.max_rel_norm == Approx(f.lse.atol / f.lse_magnitude));
  REQUIRE_FALSE(f.o.why.empty());
  REQUIRE_FALSE(b.o.why.empty());
  REQUIRE_FALSE(f.lse.why.empty());
}

TEST_CASE("the check is relative to the terms' magnitudes: honest rounding passes where terms cancel",
          "[attention][tolerance]") {
  // O = (v0 + v1) / 2 with v1 ~ -v0: |O| = 1e-4, its magnitude ~1. An error of 1e-6 is within
  // fp32's bound on the sum of the terms (3.6e-6 of ~1 here); relative to |O| alone it is 1e-2.
  const Shape s{1, 1, 1, 2, 1, false};
  const std::vector<float> q = {0.0f}, k = {1.0f, 2.0f}, v = {1.0f, -0.9998f};
  const Reference ref = full_reference(s, q, k, v);
  REQUIRE(std::fabs(ref.o[0]) < 2e-4);
  REQUIRE(ref.mag[0] == Approx(0.9999));
  const Tolerances tol = tolerances(Precision::fp32, s, 0.0, 2.0, 1.0);
  const std::vector<float> o = {static_cast<float>(ref.o[0] + 1e-6)}, lse = {static_cast<float>(ref.lse[0])};
  REQUIRE(check_output(ref, s, o.data(), lse.data(), tol).passed(tol));
  tut::ErrorStats against_o_alone;  // the old way: relative to |O|
  against_o_alone.add(0, o[0], ref.o[0], tol.o);
  REQUIRE_FALSE(against_o_alone.passed(tol.o));
  // An error of 1e-2 of the magnitude is not rounding: it fails.
  const std::vector<float> bad = {static_cast<float>(ref.o[0] + 1e-2)};
  REQUIRE_FALSE(check_output(ref, s, bad.data(), lse.data(), tol).passed(tol));

  // lse near 0 while the scores' terms are large (q . k = 30 - 29.99...): an honest 1e-5 passes.
  const Shape two{1, 1, 1, 1, 2, false};
  const std::vector<float> q2 = {30.0f, 30.0f}, k2 = {1.0f, -0.99995f}, v2 = {1.0f, 2.0f};
  const Reference r2 = full_reference(two, q2, k2, v2);
  REQUIRE(std::fabs(r2.lse[0]) < 2e-3);
  const Tolerances t2 = tolerances(Precision::fp32, two, 30.0, 1.0, 2.0);
  const std::vector<float> o2 = {1.0f, 2.0f}, near = {static_cast<float>(r2.lse[0] + 1e-5)};
  REQUIRE(check_output(r2, two, o2.data(), near.data(), t2).passed(t2));
  const std::vector<float> far = {static_cast<float>(r2.lse[0] + 1e-2)};
  REQUIRE_FALSE(check_output(r2, two, o2.data(), far.data(), t2).passed(t2));
}

TEST_CASE("the check fails a result that misses one key", "[attention][tolerance]") {
  const Shape s{1, 2, 5, 9, 16, false};
  const auto q = tut::random_floats(static_cast<std::size_t>(s.heads() * s.sq * s.d), 11, -1.7f, 1.7f);
  const auto k = tut::random_floats(static_cast<std::size_t>(s.heads() * s.sk * s.d), 12, -1.7f, 1.7f);
  const auto v = tut::random_floats(static_cast<std::size_t>(s.heads() * s.sk * s.d), 13);
  const Reference ref = make_reference(s, q.data(), k.data(), v.data(), 1);
  const Tolerances tol = tolerances(Precision::fp32, s, 1.7, 1.7, 1.0);
  // What a kernel that drops the last key computes: attention over the first Sk - 1 keys, exactly.
  std::vector<float> o(ref.o.size()), lse(ref.lse.size());
  const Shape fewer{1, 1, 1, s.sk - 1, s.d, false};
  for (std::int64_t row = 0; row < s.heads() * s.sq; ++row) {
    const std::int64_t bh = row / s.sq;
    std::vector<float> kk(k.begin() + bh * s.sk * s.d, k.begin() + (bh * s.sk + s.sk - 1) * s.d);
    std::vector<float> vv(v.begin() + bh * s.sk * s.d, v.begin() + (bh * s.sk + s.sk - 1) * s.d);
    std::vector<double> oo(static_cast<std::size_t>(s.d));
    double l = 0.0;
    reference_row(fewer, q.data() + row * s.d, kk.data(), vv.data(), 0, oo.data(), &l);
    for (std::size_t c = 0; c < oo.size(); ++c) o[static_cast<std::size_t>(row * s.d) + c] = static_cast<float>(oo[c]);
    lse[static_cast<std::size_t>(row)] = static_cast<float>(l);
  }
  const Check chk = check_output(ref, s, o.data(), lse.data(), tol);
  REQUIRE_FALSE(chk.o.passed(tol.o));
  REQUIRE_FALSE(chk.lse.passed(tol.lse));
}

TEST_CASE("the check: exact passes; NaN, a wrong element, a wrong lse, a nonzero masked row fail",
          "[attention][reference]") {
  const Shape s{1, 2, 6, 4, 8, true};  // causal, Sq > Sk: rows 0 and 1 of each head see nothing
  const auto q = tut::random_floats(static_cast<std::size_t>(s.heads() * s.sq * s.d), 4, -1.7f, 1.7f);
  const auto k = tut::random_floats(static_cast<std::size_t>(s.heads() * s.sk * s.d), 5, -1.7f, 1.7f);
  const auto v = tut::random_floats(static_cast<std::size_t>(s.heads() * s.sk * s.d), 6);
  const Reference ref = make_reference(s, q.data(), k.data(), v.data(), 1);
  const Tolerances tol = tolerances(Precision::fp32, s, 1.7, 1.7, 1.0);
  std::vector<float> o(ref.o.begin(), ref.o.end()), lse(ref.lse.begin(), ref.lse.end());
  REQUIRE(check_output(ref, s, o.data(), lse.data(), tol).passed(tol));
  auto fails = [&](std::vector<float> oo, std::vector<float> ll) {
    return !check_output(ref, s, oo.data(), ll.data(), tol).passed(tol);
  };
  {
    auto bad = o;
    bad[5 * 8 + 3] = std::nanf("");
    REQUIRE(fails(bad, lse));
  }
  {
    auto bad = o;
    bad[4 * 8 + 1] += 1e-3f;
    REQUIRE(fails(bad, lse));
  }
  {
    auto bad = lse;
    bad[3] += 1e-3f;
    REQUIRE(fails(o, bad));
  }
  {
    auto bad = o;
    bad[0 * 8 + 2] = 1e-30f;  // row 0 sees nothing: O must be exactly 0
    REQUIRE(fails(bad, lse));
  }
  {
    auto bad = lse;
    bad[1] = -1e30f;  // row 1 sees nothing: lse must be exactly -inf
    REQUIRE(fails(o, bad));
    bad[1] = std::numeric_limits<float>::infinity();
    REQUIRE(fails(o, bad));
  }
  {
    auto bad = lse;
    bad[4] = -std::numeric_limits<float>::infinity();  // row 4 sees a key: -inf is wrong
    REQUIRE(fails(o, bad));
  }
  REQUIRE(fails(std::vector<float>(o.size(), 0.0f), lse));                             // all zeros
  REQUIRE(fails(std::vector<float>(o.size(), std::nanf("")), lse));                     // the poison, unwritten
  REQUIRE(fails(o, std::vector<float>(lse.size(), std::nanf(""))));
  REQUIRE(format_index(s, (6 + 3) * 8 + 5) == "head 1, row 3, d 5");
}

TEST_CASE("the registry: unique names, an ordered vN ladder, one library row per precision", "[attention][registry]") {
  std::set<std::string> names;
  int ladder = 0, libraries_fp32 = 0, libraries_bf16 = 0;
  const std::regex ladder_name("v([0-9]+)_[a-z0-9_]+");
  for (const auto& v : versions()) {
    INFO(v.info.name);
    REQUIRE(names.insert(v.info.name).second);
    REQUIRE_FALSE(v.info.summary.empty());
    const bool bf16 = v.kernel.precision == Precision::bf16;
    REQUIRE((bf16 ? v.kernel.bf16 != nullptr && v.kernel.f32 == nullptr : v.kernel.f32 != nullptr && v.kernel.bf16 == nullptr));
    if (bf16) REQUIRE(v.info.min_cc >= 80);  // tensor cores: sm_80+
    if (v.info.kind == tut::Kind::library) ++(bf16 ? libraries_bf16 : libraries_fp32);
    std::smatch m;
    if (std::regex_match(v.info.name, m, ladder_name)) {
      REQUIRE(std::stoi(m[1]) == ladder);  // v00, v01, ... in order, no gaps
      ++ladder;
      if (ladder >= 3) {  // v02 and later: D = 64 and 128, and they say so for another D
        REQUIRE(v.unsupported != nullptr);
        if (v.info.min_cc < 90) {  // a Hopper step also asks the GPU (there is none here)
          REQUIRE(v.unsupported({1, 1, 8, 8, 64, false}).empty());
          REQUIRE(v.unsupported({1, 1, 8, 8, 128, false}).empty());
        }
        REQUIRE_FALSE(v.unsupported({1, 1, 8, 8, 96, false}).empty());
      }
    }
  }
  REQUIRE(ladder == 27);
  REQUIRE(libraries_fp32 == 1);
  REQUIRE(libraries_bf16 == 1);
  // The unfused paths say how much memory S takes (the executable skips them where it does not fit).
  const Shape big{1, 32, 8192, 8192, 128, false};
  for (const auto& v : versions()) {
    if (v.info.name == "v00_naive" || v.info.kind == tut::Kind::library) {
      REQUIRE(v.workspace_bytes != nullptr);
      REQUIRE(v.workspace_bytes(big) >= score_matrix_bytes(big));
    } else {
      REQUIRE(v.workspace_bytes == nullptr);
    }
  }
  REQUIRE(unsupported_v1({1, 1, 1, 1, 256, false}).empty());
  REQUIRE_FALSE(unsupported_v1({1, 1, 1, 1, 257, false}).empty());
}

TEST_CASE("v14 takes v07's 128-row tiles at D = 64 where v13's 192-row tiles waste more than they gain", "[attention][v14]") {
  // v13's tiles compute 1.33x v07's scores at S1024 with the mask (the diagonal, 5 1/3 tiles of
  // 192 rows per head), 1.125x without it, 1.09x at S4096 with it; the rule's bar is 1.16x.
  CHECK_FALSE(v14_wide_tiles({4, 16, 1024, 1024, 64, true}));
  CHECK(v14_wide_tiles({4, 16, 1024, 1024, 64, false}));
  CHECK(v14_wide_tiles({4, 16, 4096, 4096, 64, true}));
  CHECK(v14_wide_tiles({4, 16, 4096, 4096, 64, false}));
  CHECK_FALSE(v14_wide_tiles({1, 1, 256, 256, 64, false}));  // 1.5x: 256 rows in two tiles of 192
  CHECK(v14_wide_tiles({1, 1, 192, 4096, 64, false}));       // one full tile of 192 rows
  CHECK(v14_wide_tiles({4, 16, 1024, 1024, 128, true}));     // D = 128: v13's tiles always
}

TEST_CASE("v13's persistent grid: every item taken exactly once; the snake evens the causal load", "[attention][v13]") {
  // Items as the kernel numbers them: B4 H16, causal, 192-row query tiles of S4096, longest first.
  const int q_tiles = 22, heads = 64, items = q_tiles * heads, sq = 4096;
  const auto key_tiles_of = [&](int w) {
    int bh = 0, qt = 0;
    block_tile(w, q_tiles, heads, true, bh, qt);
    return key_tiles(qt * 192, std::min(192, sq - qt * 192), sq, sq, true, 128);
  };
  for (int grid : {1, 7, 132, items - 1, items}) {
    INFO("grid " << grid);
    std::vector<int> taken(static_cast<std::size_t>(items), 0);
    int most = 0, least = 1 << 30;
    for (int block = 0; block < grid; ++block) {
      int load = 0;
      for (int r = 0; r * grid < items; ++r) {
        const int w = snake_item(r, block, grid);
        REQUIRE(w >= r * grid);  // a block's item of round r lies in round r's share
        REQUIRE(w < (r + 1) * grid);
        if (w >= items) continue;
        ++taken[static_cast<std::size_t>(w)];
        load += key_tiles_of(w);
      }
      most = std::max(most, load);
      least = std::min(least, load);
    }
    for (int w = 0; w < items; ++w) REQUIRE(taken[static_cast<std::size_t>(w)] == 1);
    // 132 blocks: the busiest block has 5% more key tiles than the least busy (189 against 180);
    // block b taking b, b + 132, ... would give the busiest 19% more (197 against 165).
    if (grid == 132) CHECK(most <= least * 1.06 + 1);
  }
}

TEST_CASE("v18's items: every row of every head exactly once, none past the end beyond 63, short ones last", "[attention][v18]") {
  // S1024, 192-row items: 4 of 192 and 2 of 128 per head (v17: 6 of 192, 128 rows past the end).
  REQUIRE(small_items(1024, 192) == 2);
  REQUIRE(small_items(4096, 192) == 2);  // 20 x 192 + 2 x 128
  REQUIRE(small_items(8192, 192) == 1);  // 42 x 192 + 128
  REQUIRE(small_items(1152, 192) == 0);  // 6 x 192 exactly
  REQUIRE(small_items(1, 192) == 1);     // one item, 128 rows (its consumers 1 and 2 compute nothing)
  for (bool causal : {false, true})
    for (int br : {128, 192})
      for (int sq : {1, 2, 63, 64, 65, 127, 128, 129, 191, 192, 193, 255, 256, 300, 385, 1000, 1024, 4096, 8191}) {
        const int heads = 3, per_head = (sq + br - 1) / br, items = per_head * heads;  // as many items as v17's
        const int small = small_items(sq, br);
        INFO("causal " << causal << ", br " << br << ", sq " << sq);
        std::vector<int> seen(static_cast<std::size_t>(heads * sq), 0);
        int last_rows = br, last_tiles = sq + 1;  // key tiles of 64: at most sq
        for (int w = 0; w < items; ++w) {
          int bh = -1, row0 = -1, rows_valid = -1;
          mixed_item(w, sq, heads, br, causal, bh, row0, rows_valid);
          REQUIRE(bh >= 0);
          REQUIRE(bh < heads);
          REQUIRE(row0 >= 0);
          REQUIRE(rows_valid >= 1);
          // The item's size: the small ones take each head's first rows.
          const int rows = row0 < small * (br - 64) ? br - 64 : br;
          REQUIRE(rows_valid <= rows);
          if (sq >= br) REQUIRE(rows - rows_valid < 64);  // at most 63 rows past the end in any item
          if (causal) {  // v06's order: the most keys first (S = Sq keys, tiles of 64)
            const int tiles = key_tiles(row0, rows_valid, sq, sq, true, 64);
            REQUIRE(tiles <= last_tiles);
            last_tiles = tiles;
          } else {  // the long items of every head first
            REQUIRE(rows <= last_rows);
            last_rows = rows;
          }
          for (int r = row0; r < row0 + rows_valid; ++r) ++seen[static_cast<std::size_t>(bh * sq + r)];
        }
        for (int c : seen) REQUIRE(c == 1);
      }
}

TEST_CASE("the searches: unique names, each winner run by its version's launcher, one per D", "[attention][tune]") {
  std::set<std::string> names;
  for (const auto& v : versions()) names.insert(v.info.name);
  for (const tune::Search& search : tune::searches()) {
    INFO(search.version);
    const Version* version = nullptr;
    for (const auto& v : versions()) {
      if (v.info.name == search.version) version = &v;
    }
    REQUIRE(version != nullptr);
    REQUIRE(version->kernel.precision == search.precision);
    std::set<std::int64_t> winners;
    for (const auto& c : *search.candidates) {
      INFO(c.name);
      REQUIRE(names.insert(c.name).second);  // no candidate shares a name with a version or another candidate
      const std::string prefix = search.version.substr(0, search.version.find('_') + 1);  // "v10_"
      REQUIRE(c.name.substr(0, prefix.size()) == prefix);
      REQUIRE((c.d == 64 || c.d == 128));
      REQUIRE(c.kernel.precision == search.precision);
      REQUIRE(c.min_cc >= version->info.min_cc);
      if (!c.runs_in.empty()) {
        REQUIRE(c.runs_in == search.version);
        // Timed through the version's own launcher: the same kernel as the version's row.
        REQUIRE((c.kernel.f32 == version->kernel.f32 && c.kernel.bf16 == version->kernel.bf16));
        REQUIRE(winners.insert(c.d).second);
      }
    }
    REQUIRE(winners == std::set<std::int64_t>{64, 128});  // the version runs one configuration per D
  }
}

TEST_CASE("bf16 rounding", "[attention][precision]") {
  REQUIRE(round_to_bf16(1.0f) == 1.0f);
  REQUIRE(round_to_bf16(1.0f + std::ldexp(1.0f, -8)) == 1.0f);  // a tie: to even
  REQUIRE(round_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)) == 1.0f + std::ldexp(1.0f, -6));
  for (float x : tut::random_floats(1000, 5, -30.0f, 30.0f)) {
    REQUIRE(std::fabs(round_to_bf16(x) - x) <= std::ldexp(std::fabs(x), -8));
  }
}

// ---------------------------------------------------------------------------------------------
// What the compiler made of the tensor-core kernels. The build compiles v04-v26 once more to PTX
// for sm_90a and runs ptxas -v on it (tutorial_resource_report() in CMakeLists.txt); these tests
// read that. No GPU needed.
// ---------------------------------------------------------------------------------------------
#if defined(ATTENTION_REPORT_DIR)

namespace {

using tut::testing::read_text_file;
using tut::testing::require_no_spills;
using tut::testing::require_wgmma_as_written;

std::string report_path(const std::string& stem, const char* ext) {
  return std::string(ATTENTION_REPORT_DIR) + "/" + stem + ".sm_90a" + ext;
}

/// The Hopper steps, in ladder order (v08 is the split-TF32 mma.sync step, sm_80).
const char* const kWgmmaFiles[] = {"v07_wgmma",          "v09_ping_pong",       "v10_overlap",
                                   "v11_wide_tiles",     "v12_three_consumers", "v13_persistent",
                                   "v14_by_shape",       "v15_descriptor_steps", "v16_lazy_rescale",
                                   "v17_double_q",       "v18_mixed_items",     "v19_persistent_narrow",
                                   "v20_turns_across_items", "v21_sleeping_waits", "v22_paired_waits",
                                   "v23_pack_as_made",   "v24_narrow_last_tile", "v25_wide_o_stores",
                                   "v26_straight_epilogue"};

/// The `mbarrier.try_wait` instructions of a PTX file: how many there are in all (`written`, every
/// occurrence of the name), how many the parser read (`total`: any address and parity operand),
/// how many carry a suspend-time hint (an operand after the parity: v21's), and how many are a
/// pair polled at once (two in a row whose predicates the next instruction combines: v22's
/// mbar_try_wait_both(), which v23-v26 keep).
struct TryWaits {
  int written = 0, total = 0, hinted = 0, paired = 0;
};

TryWaits try_waits(const std::string& ptx) {
  static const std::regex try_wait(R"(mbarrier\.try_wait\.parity\.shared::cta\.b64 \w+, \[[^\]]+\], [^,;]+(, \d+)?;)");
  std::vector<std::string> lines;
  std::istringstream in(ptx);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  TryWaits w;
  std::smatch m;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("mbarrier.try_wait") != std::string::npos) ++w.written;
    if (!std::regex_search(lines[i], m, try_wait)) continue;
    ++w.total;
    if (m[1].matched) ++w.hinted;
    if (i + 2 < lines.size() && std::regex_search(lines[i + 1], try_wait) &&
        lines[i + 2].find("and.pred") != std::string::npos) {
      ++w.paired;
    }
  }
  return w;
}

/// How many `cvt.rn.bf16x2.f32` (a pack of two P values) come right after an `ex2.approx` in a PTX
/// file, reading only those two instructions in order. Packed after all of a tile's exponentials
/// (v07-v22: pack_p), one per softmax site; packed as made (v23), one per pair of keys.
int packs_after_an_exponential(const std::string& ptx) {
  std::istringstream in(ptx);
  int count = 0;
  bool last_was_exp = false;
  for (std::string line; std::getline(in, line);) {
    if (line.find("ex2.approx") != std::string::npos) {
      last_was_exp = true;
    } else if (line.find("cvt.rn.bf16x2.f32") != std::string::npos) {
      if (last_was_exp) ++count;
      last_was_exp = false;
    }
  }
  return count;
}

}  // namespace

TEST_CASE("the tensor-core kernels do not spill (ptxas -v, sm_90a)", "[attention][resources]") {
  std::vector<const char*> stems = {"v04_mma", "v05_cp_async", "v06_causal_balance", "v08_split_tf32"};
  stems.insert(stems.end(), std::begin(kWgmmaFiles), std::end(kWgmmaFiles));
  for (const char* stem : stems) {
    DYNAMIC_SECTION(stem) { require_no_spills(read_text_file(report_path(stem, ".ptxas.txt"))); }
  }
}

TEST_CASE("the compiler neither serializes wgmma nor ignores setmaxnreg (ptxas -v, sm_90a)", "[attention][resources]") {
  // ptxas says so in advisories (require_wgmma_as_written(); C7513 here: P, which P V reads).
  for (const char* stem : kWgmmaFiles) {
    DYNAMIC_SECTION(stem) { require_wgmma_as_written(read_text_file(report_path(stem, ".ptxas.txt"))); }
  }
}

TEST_CASE("the barrier waits: v21's on carry a suspend-time hint, v22's on poll a turn's two at once (PTX, sm_90a)",
          "[attention][resources]") {
  for (const char* stem : kWgmmaFiles) {
    DYNAMIC_SECTION(stem) {
      const TryWaits w = try_waits(read_text_file(report_path(stem, ".ptx")));
      const std::string name = stem;
      INFO(w.written << " mbarrier.try_wait, " << w.total << " read, " << w.hinted << " with a hint, " << w.paired
                     << " paired");
      REQUIRE(w.total > 0);           // the parser found the waits ...
      REQUIRE(w.total == w.written);  // ... all of them: a form it cannot read fails here, not passes
      const bool from_v22 = name >= "v22";  // (the stems sort in ladder order: v22 and every step after it)
      const bool from_v21 = name >= "v21";
      if (from_v21) {
        REQUIRE(w.hinted == w.total);  // every wait sleeps (v21 on)
      } else {
        REQUIRE(w.hinted == 0);  // v07-v20: no hint, the hardware's own time
      }
      if (from_v22) {
        REQUIRE(w.paired >= 2);  // a turn's K and V polls, at D = 64 and at D = 128
      } else {
        REQUIRE(w.paired == 0);  // one poll after the other
      }
    }
  }
}

TEST_CASE("P's packs: v23's stand between its exponentials, the steps before pack after them (PTX, sm_90a)",
          "[attention][resources]") {
  for (const char* stem : kWgmmaFiles) {
    DYNAMIC_SECTION(stem) {
      const int interleaved = packs_after_an_exponential(read_text_file(report_path(stem, ".ptx")));
      INFO(interleaved << " packs right after an exponential");
      if (std::string(stem) >= "v23") {  // v23 and every step after it (the stems sort in ladder order)
        // Its four overlapped turns (D = 64 and 128, with and without the mask): a pack after
        // each pair of keys of both rows, 2 x 32 at 128 keys and 2 x 44 at 176.
        REQUIRE(interleaved >= 2 * 32 + 2 * 44);
      } else {
        REQUIRE(interleaved < 32);  // one per softmax site, fewer than one tile's pairs
      }
    }
  }
}

namespace {

/// The attention kernel's entries in a PTX file (a file may hold other kernels: v07's has the
/// sm_90a probe), each with its tiles' name (V26Tiles64, V25Tiles128, ...: from the mangled name,
/// else the whole entry line) and its lines.
struct KernelEntry {
  std::string tiles;
  std::vector<std::string> lines;
};

std::vector<KernelEntry> attention_entries(const std::string& ptx) {
  static const std::regex tiles_name(R"((V\d+[A-Za-z]+\d+)E)");
  std::vector<KernelEntry> entries;
  std::istringstream in(ptx);
  std::smatch m;
  bool in_attention = false;
  for (std::string line; std::getline(in, line);) {
    if (line.find(".entry") != std::string::npos) {
      in_attention = line.find("attention_v07_wgmma") != std::string::npos;
      if (in_attention) entries.push_back({std::regex_search(line, m, tiles_name) ? m[1].str() : line, {}});
    }
    if (in_attention) entries.back().lines.push_back(line);
  }
  return entries;
}

}  // namespace

TEST_CASE("v24's D = 128 kernel (and v25's) has S products over 64 keys (its narrowed last tiles), the steps before it none (PTX, sm_90a)",
          "[attention][resources]") {
  for (const char* stem : kWgmmaFiles) {
    DYNAMIC_SECTION(stem) {
      // The D = 128 kernel's entry (its tiles' name ends in Tiles128) and its products whose A
      // comes from shared memory (Q: S's), by their width.
      int kernels = 0, products = 0, n64 = 0, n128 = 0;
      static const std::regex s_product(R"(wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16\.f32\.bf16\.bf16\s+\{[^}]*\},\s*%rd)");
      std::smatch m;
      for (const KernelEntry& entry : attention_entries(read_text_file(report_path(stem, ".ptx")))) {
        if (entry.tiles.find("Tiles128") == std::string::npos) continue;
        ++kernels;
        for (const std::string& line : entry.lines) {
          if (!std::regex_search(line, m, s_product)) continue;
          ++products;
          if (m[1] == "64") ++n64;
          if (m[1] == "128") ++n128;
        }
      }
      INFO(kernels << " D = 128 kernels; " << products << " S products, 64 keys wide: " << n64 << ", 128 wide: "
                   << n128);
      REQUIRE(kernels == 1);
      REQUIRE(products >= 8);  // the parser read the S products (D / 16 per tile): a form it cannot read fails
      if (std::string(stem) < "v11") {  // (the stems sort in ladder order)
        REQUIRE(n64 == 0);  // v07-v10: 128-key tiles, S 128 wide
      } else if (std::string(stem) >= "v24") {  // v24-v26 (v26 runs v25's kernel at D = 128)
        REQUIRE(n64 >= 8);  // D / 16 k-steps of the narrowed tile's S
        REQUIRE(n128 == 0);
      } else {
        REQUIRE(n64 + n128 == 0);  // v11-v23: every S 176 keys wide
      }
    }
  }
}

TEST_CASE("v26's D = 64 kernels take 1 / l and lse by rcp.approx and lg2.approx, every other kernel 1 / l by rcp.rn (PTX, sm_90a)",
          "[attention][resources]") {
  for (const char* stem : kWgmmaFiles) {
    DYNAMIC_SECTION(stem) {
      // Per entry of the attention kernel, its tiles' name and how many of each instruction.
      struct Count {
        std::string tiles;
        int rcp_approx = 0, lg2_approx = 0, rcp_rn = 0;
      };
      std::vector<Count> kernels;
      for (const KernelEntry& entry : attention_entries(read_text_file(report_path(stem, ".ptx")))) {
        kernels.push_back({entry.tiles});
        for (const std::string& line : entry.lines) {
          kernels.back().rcp_approx += line.find("rcp.approx.ftz.f32") != std::string::npos ? 1 : 0;
          kernels.back().lg2_approx += line.find("lg2.approx.ftz.f32") != std::string::npos ? 1 : 0;
          kernels.back().rcp_rn += line.find("rcp.rn.f32") != std::string::npos ? 1 : 0;
        }
      }
      REQUIRE(!kernels.empty());
      for (const Count& k : kernels) {
        INFO(k.tiles << ": " << k.rcp_approx << " rcp.approx, " << k.lg2_approx << " lg2.approx, " << k.rcp_rn
                     << " rcp.rn");
        if (k.tiles == "V26Tiles64" || k.tiles == "V26Narrow64") {
          REQUIRE(k.rcp_approx == 2);  // v26's epilogue: each of a thread's two rows once ...
          REQUIRE(k.lg2_approx == 2);
          REQUIRE(k.rcp_rn == 0);  // ... and no IEEE reciprocal left
        } else {
          REQUIRE(k.rcp_rn >= 1);  // the parser found the epilogue's 1 / l: a form it cannot read fails here
          REQUIRE(k.rcp_approx + k.lg2_approx == 0);  // v07-v25, and v26 at D = 128 (v25's kernel)
        }
      }
      if (std::string(stem) == "v26_straight_epilogue") REQUIRE(kernels.size() == 3);  // D = 64 wide, narrow; D = 128
    }
  }
}

#endif  // ATTENTION_REPORT_DIR
