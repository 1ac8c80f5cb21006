// CPU tests of the comparison maths: the two error measures, tolerance edges, NaN/Inf, worst
// indices, merging of chunks.
#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "common/compare.hpp"
#include "common/testing.hpp"

using tut::compare;
using tut::ErrorStats;
using tut::Tolerance;

namespace {
const Tolerance kTol{1e-6, 1e-7, 1e-6, "test"};
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("identical outputs pass with zero error", "[compare]") {
  const std::vector<float> got = {1.0f, -2.5f, 3.25f};
  const std::vector<double> ref = {1.0, -2.5, 3.25};
  const ErrorStats s = compare(got, ref, kTol);
  REQUIRE(s.passed(kTol));
  REQUIRE(s.rel_norm_error() == 0.0);
  REQUIRE(s.max_abs_error() == 0.0);
  REQUIRE(s.count() == 3);
}

TEST_CASE("normwise relative error is ||got-ref|| / ||ref||", "[compare]") {
  const std::vector<float> got = {3.0f, 4.0f + 0.5f};
  const std::vector<double> ref = {3.0, 4.0};
  const Tolerance loose{1.0, 1.0, 0.0, ""};
  const ErrorStats s = compare(got, ref, loose);
  REQUIRE(std::fabs(s.rel_norm_error() - 0.5 / 5.0) < 1e-12);
  REQUIRE(s.max_abs_error() == 0.5);
  REQUIRE(s.passed(loose));
  const Tolerance tight{0.099, 1.0, 0.0, ""};
  REQUIRE_FALSE(s.passed(tight));
}

TEST_CASE("one element over atol + rtol*|ref| fails even when the norm is tiny", "[compare]") {
  std::vector<float> got(100000, 1.0f);
  std::vector<double> ref(100000, 1.0);
  got[777] = 1.001f;  // norm error ~3e-6 relative... but the element is 1e-3 off
  const Tolerance tol{1e-2, 0.0, 1e-4, ""};
  const ErrorStats s = compare(got, ref, tol);
  REQUIRE(s.rel_norm_error() < 1e-2);
  REQUIRE(s.over_tolerance() == 1);
  REQUIRE_FALSE(s.passed(tol));
  REQUIRE(s.worst().front().index == 777);
}

TEST_CASE("the elementwise bound is inclusive", "[compare]") {
  const Tolerance tol{1.0, 0.25, 0.0, ""};
  const ErrorStats at = compare(std::vector<float>{1.25f}, std::vector<double>{1.0}, tol);
  REQUIRE(at.passed(tol));
  const ErrorStats over = compare(std::vector<float>{1.2500001f}, std::vector<double>{1.0}, tol);
  REQUIRE_FALSE(over.passed(tol));
}

TEST_CASE("NaN and Inf outputs never pass, whatever the tolerance", "[compare]") {
  const Tolerance anything{kInf, kInf, kInf, ""};
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity()}) {
    const ErrorStats s = compare(std::vector<float>{1.0f, bad, 2.0f}, std::vector<double>{1.0, 1.0, 2.0}, anything);
    REQUIRE(s.nonfinite() == 1);
    REQUIRE_FALSE(s.passed(anything));
    REQUIRE(std::isinf(s.rel_norm_error()));
    REQUIRE(s.worst().front().index == 1);
  }
}

TEST_CASE("a NaN reference fails too", "[compare]") {
  const ErrorStats s = compare(std::vector<float>{1.0f}, std::vector<double>{kNaN}, kTol);
  REQUIRE_FALSE(s.passed(kTol));
}

TEST_CASE("an empty comparison never passes", "[compare]") {
  const ErrorStats s = compare(std::vector<float>{}, std::vector<double>{}, kTol);
  REQUIRE(s.count() == 0);
  REQUIRE_FALSE(s.passed(kTol));
}

TEST_CASE("an all-zero reference uses the absolute norm", "[compare]") {
  const Tolerance tol{1e-3, 1e-3, 0.0, ""};
  REQUIRE(compare(std::vector<float>{0.0f, 0.0f}, std::vector<double>{0.0, 0.0}, tol).passed(tol));
  const ErrorStats s = compare(std::vector<float>{0.0f, 0.5f}, std::vector<double>{0.0, 0.0}, tol);
  REQUIRE(s.rel_norm_error() == 0.5);
  REQUIRE_FALSE(s.passed(tol));
}

TEST_CASE("zero tolerance requires exact equality", "[compare]") {
  const Tolerance exact{0.0, 0.0, 0.0, ""};
  REQUIRE(compare(std::vector<float>{2.0f}, std::vector<double>{2.0}, exact).passed(exact));
  REQUIRE_FALSE(compare(std::vector<float>{2.0f}, std::vector<double>{2.0000001}, exact).passed(exact));
}

TEST_CASE("worst elements are kept worst first, at most kWorstKept", "[compare]") {
  std::vector<float> got(50);
  std::vector<double> ref(50);
  for (int i = 0; i < 50; ++i) {
    ref[i] = 1.0;
    got[i] = 1.0f + 0.001f * static_cast<float>(i % 10);
  }
  const Tolerance tol{1.0, 1e-3, 0.0, ""};
  const ErrorStats s = compare(got, ref, tol);
  REQUIRE(s.worst().size() == ErrorStats::kWorstKept);
  for (std::size_t i = 1; i < s.worst().size(); ++i) REQUIRE(s.worst()[i - 1].excess >= s.worst()[i].excess);
  REQUIRE(s.worst().front().index % 10 == 9);
}

TEST_CASE("merging chunk statistics equals one pass over everything", "[compare]") {
  std::vector<float> got(1000);
  std::vector<double> ref(1000);
  for (int i = 0; i < 1000; ++i) {
    ref[i] = std::sin(i);
    got[i] = static_cast<float>(ref[i] + (i == 600 ? 0.1 : 1e-7));
  }
  const ErrorStats whole = compare(got, ref, kTol);
  ErrorStats a = compare(got.data(), ref.data(), 500, kTol);
  ErrorStats b;
  for (int i = 500; i < 1000; ++i) b.add(i, got[i], ref[i], kTol);
  a.merge(b);
  REQUIRE(a.count() == whole.count());
  REQUIRE(a.over_tolerance() == whole.over_tolerance());
  REQUIRE(std::fabs(a.rel_norm_error() - whole.rel_norm_error()) < 1e-15);
  REQUIRE(a.worst().front().index == 600);
}

TEST_CASE("a length mismatch is an error, not a partial check", "[compare]") {
  REQUIRE_THROWS_AS(compare(std::vector<float>{1.0f}, std::vector<double>{1.0, 2.0}, kTol), std::invalid_argument);
}

TEST_CASE("describe() names the verdict, the worst index and the tolerance's reason", "[compare]") {
  const Tolerance tol{1e-6, 0.0, 1e-6, "fp32 rounding"};
  const ErrorStats s = compare(std::vector<float>{1.0f, 5.0f}, std::vector<double>{1.0, 2.0}, tol);
  const std::string text = s.describe(tol, [](std::size_t i) { return "row " + std::to_string(i); });
  REQUIRE(text.find("FAIL") == 0);
  REQUIRE(text.find("[row 1] got 5") != std::string::npos);
  REQUIRE(text.find("fp32 rounding") != std::string::npos);
}

TEST_CASE("parallel_for covers [0, n) once, in contiguous chunks, one per worker", "[compare][parallel]") {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{65535}, std::size_t{65536}, std::size_t{1000003}}) {
    std::vector<int> seen(n, 0);
    std::vector<std::size_t> begins(tut::parallel_workers(n), n + 1);
    tut::parallel_for(n, [&](std::size_t w, std::size_t begin, std::size_t end) {
      begins[w] = begin;
      for (std::size_t i = begin; i < end; ++i) ++seen[i];  // chunks are disjoint: no race
    });
    INFO("n = " << n << ", workers = " << begins.size());
    REQUIRE(std::count(seen.begin(), seen.end(), 1) == static_cast<std::ptrdiff_t>(n));
    REQUIRE(begins[0] == 0);
    for (std::size_t w = 1; w < begins.size(); ++w) REQUIRE(begins[w] >= begins[w - 1]);
  }
  // A grain of 1: one item per thread is worth it (rows of a reference), up to the CPU's threads.
  REQUIRE(tut::parallel_workers(3, 1) == std::min<std::size_t>(3, std::max(1u, std::thread::hardware_concurrency())));
  REQUIRE(tut::parallel_workers(0, 1) == 1);
  REQUIRE(tut::parallel_workers(65535) == 1);  // the default grain: cheap items stay on one thread
  // parallel_check merges the workers' accumulators into one.
  std::vector<float> got(300001, 1.0f);
  got[299999] = 2.0f;
  const tut::ErrorStats s = tut::parallel_check(got.size(), [&](std::size_t b, std::size_t e, ErrorStats& st) {
    for (std::size_t i = b; i < e; ++i) st.add(i, got[i], 1.0, kTol);
  });
  REQUIRE(s.count() == got.size());
  REQUIRE(s.over_tolerance() == 1);
  REQUIRE(s.worst().front().index == 299999);
}
