// CPU tests of chapter 02: the references, the tolerance, the accuracy of serial versus
// pairwise float summation, the integer-order trick behind v0's float max, the inputs, and the
// registry itself.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "common/random.hpp"
#include "common/testing.hpp"
#include "reduce.hpp"

using namespace reduce;

namespace {

std::uint32_t bits_of(float f) {
  std::uint32_t b = 0;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

float float_of(std::uint32_t b) {
  float f = 0.0f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

}  // namespace

TEST_CASE("the references compute sum, max, dot and the error scale", "[reduce][reference]") {
  const std::vector<float> x = {1.5f, -2.0f, 0.25f, 4.0f};
  const std::vector<float> y = {2.0f, 0.5f, -4.0f, 1.0f};
  const Reference s = reference(Operation::sum, x.data(), nullptr, x.size());
  REQUIRE(s.value == 3.75);
  REQUIRE(s.magnitude == 7.75);
  const Reference m = reference(Operation::max, x.data(), nullptr, x.size());
  REQUIRE(m.value == 4.0);
  const Reference d = reference(Operation::dot, x.data(), y.data(), x.size());
  REQUIRE(d.value == 3.0 - 1.0 - 1.0 + 4.0);
  REQUIRE(d.magnitude == 3.0 + 1.0 + 1.0 + 4.0);
  // Empty inputs give the identities.
  REQUIRE(reference(Operation::sum, x.data(), nullptr, 0).value == 0.0);
  REQUIRE(reference(Operation::max, x.data(), nullptr, 0).value == -std::numeric_limits<double>::infinity());
}

TEST_CASE("the multi-threaded reference equals a plain double loop", "[reduce][reference]") {
  const std::size_t n = (std::size_t{1} << 21) + 17;  // large enough to use several threads
  const std::vector<float> x = tut::random_floats(n, 5, -1.0f, 1.0f);
  const std::vector<float> y = tut::random_floats(n, 6, -1.0f, 1.0f);
  double sum = 0.0, dot = 0.0, mx = -1e300;
  for (std::size_t i = 0; i < n; ++i) {
    sum += x[i];
    dot += static_cast<double>(x[i]) * y[i];
    mx = std::max(mx, static_cast<double>(x[i]));
  }
  REQUIRE(reference(Operation::sum, x.data(), nullptr, n).value == Approx(sum).epsilon(1e-12));
  REQUIRE(reference(Operation::dot, x.data(), y.data(), n).value == Approx(dot).epsilon(1e-12));
  REQUIRE(reference(Operation::max, x.data(), nullptr, n).value == mx);
}

TEST_CASE("the tolerance: exact for max, growing with log2 n for sum and dot", "[reduce][tolerance]") {
  const tut::Tolerance mx = tolerance(Operation::max, 1 << 20);
  REQUIRE(mx.atol == 0.0);
  REQUIRE(mx.rtol == 0.0);
  REQUIRE(mx.max_rel_norm == 0.0);
  double previous = 0.0;
  for (std::int64_t n : std::vector<std::int64_t>{1, 2, 1000, 1 << 20, 1 << 28, std::int64_t{1} << 33}) {
    const tut::Tolerance t = tolerance(Operation::sum, n);
    INFO("n = " << n);
    REQUIRE(t.rtol > previous);                // strictly grows with n (log2 n) ...
    REQUIRE(t.rtol < 100 * kUnitRoundoff);     // ... but slowly: under 100 u up to 2^33
    REQUIRE(t.atol == 0.0);                    // relative to sum|term| only
    REQUIRE(t.max_rel_norm == t.rtol);         // the normwise error is relative to sum|term| too
    REQUIRE(tolerance(Operation::dot, n).rtol > t.rtol);  // the products' rounding
    REQUIRE_FALSE(t.why.empty());
    previous = t.rtol;
  }
}

TEST_CASE("the serial-order tolerance: Higham's bound for a chain of additions, growing with n",
          "[reduce][tolerance]") {
  // max is exact in any order.
  REQUIRE(tolerance(Operation::max, 1 << 20, Order::serial).rtol == 0.0);
  for (std::int64_t n : std::vector<std::int64_t>{2, 1000, 999999, 1 << 20}) {
    const tut::Tolerance serial = tolerance(Operation::sum, n, Order::serial);
    const tut::Tolerance tree = tolerance(Operation::sum, n, Order::tree);
    INFO("n = " << n << ": serial " << serial.rtol << ", tree " << tree.rtol);
    // About n u (first order), never below it: n u <= (1 + u)^n - 1 <= n u (1 + n u) for n u <= 1.
    const double nu = static_cast<double>(n) * kUnitRoundoff;
    REQUIRE(serial.rtol >= nu);
    REQUIRE(serial.rtol <= nu * (1.0 + nu));
    if (n >= 1000) REQUIRE(serial.rtol > tree.rtol);  // a chain errs more than a tree ...
    REQUIRE(tolerance(Operation::dot, n, Order::serial).rtol > serial.rtol);  // ... and dot rounds its products
    REQUIRE(serial.max_rel_norm == serial.rtol);
    REQUIRE(serial.atol == 0.0);
  }
  // From about 2^24 terms on, the worst case of a chain exceeds sum|x| itself: no guarantee left,
  // and the reason says so.
  const tut::Tolerance huge = tolerance(Operation::sum, std::int64_t{1} << 28, Order::serial);
  REQUIRE(huge.rtol > 1.0);
  REQUIRE(huge.why.find("guarantees no accuracy") != std::string::npos);
  REQUIRE(tolerance(Operation::sum, 1 << 20, Order::serial).why.find("guarantees") == std::string::npos);
}

TEST_CASE("the any-order tolerance (the exercise): the worst case for small n, then 6 sqrt(n) u",
          "[reduce][tolerance]") {
  REQUIRE(tolerance(Operation::max, 1000, Order::any).rtol == 0.0);
  REQUIRE(tolerance(Operation::sum, 0, Order::any).rtol == 0.0);  // the empty sum: exactly 0
  for (std::int64_t n : std::vector<std::int64_t>{1, 2, 36, 37, 1000, 1 << 20, 1 << 25}) {
    const tut::Tolerance any = tolerance(Operation::sum, n, Order::any);
    const tut::Tolerance serial = tolerance(Operation::sum, n, Order::serial);
    const double c = static_cast<double>(n);
    INFO("n = " << n << ": any " << any.rtol << ", serial " << serial.rtol);
    REQUIRE(any.rtol <= serial.rtol);  // never looser than the worst case of any order
    if (n <= 36) REQUIRE(any.rtol == serial.rtol);
    if (n > 36) {  // exp(6 sqrt(c) u + c u^2) - 1: just above 6 sqrt(c) u
      REQUIRE(any.rtol >= 6.0 * std::sqrt(c) * kUnitRoundoff);
      REQUIRE(any.rtol <= 1.01 * 6.0 * std::sqrt(c) * kUnitRoundoff);
    }
    REQUIRE(any.max_rel_norm == any.rtol);
    REQUIRE(any.atol == 0.0);
    REQUIRE(tolerance(Operation::dot, n, Order::any).rtol > any.rtol);
  }
  REQUIRE(tolerance(Operation::sum, 1 << 25, Order::any).rtol < 2.1e-3);  // the exercise's timed case
}

namespace {

/// Whether `got` passes the check every reduction uses: relative to sum|term|.
bool passes(double got, const Reference& ref, const tut::Tolerance& tol) {
  tut::ErrorStats stats;
  stats.add(0, got, ref.value, ref.magnitude, tol);
  return stats.passed(tol);
}

}  // namespace

TEST_CASE("a cancelling sum: an honest rounding difference passes, a real error does not",
          "[reduce][tolerance]") {
  // 2^24 + 1 - 2^24 = 1 exactly, but a serial float sum rounds 2^24 + 1 to 2^24 and returns 0:
  // an error of 100% of the result, and of 1 / (2^25 + 1) ~ 1.5 u of the terms' magnitude.
  const std::vector<float> x = {16777216.0f, 1.0f, -16777216.0f};
  const Reference ref = reference(Operation::sum, x.data(), nullptr, x.size());
  REQUIRE(ref.value == 1.0);
  REQUIRE(ref.magnitude == 33554433.0);
  const float serial = sum_serial_float(x.data(), x.size());
  REQUIRE(serial == 0.0f);
  for (Order order : {Order::tree, Order::serial, Order::any}) {
    const tut::Tolerance tol = tolerance(Operation::sum, 3, order);
    INFO(order_name(order) << " order: " << tol.why);
    REQUIRE(passes(serial, ref, tol));
    REQUIRE(passes(sum_pairwise_float(x.data(), x.size()), ref, tol));  // exact here
    // Relative to |sum| = 1, as the checks once were, the honest result would fail.
    tut::ErrorStats relative_to_result;
    relative_to_result.add(0, serial, ref.value, tol);
    REQUIRE_FALSE(relative_to_result.passed(tol));
    // Real errors still fail: far off, NaN (the poison), infinity.
    REQUIRE_FALSE(passes(ref.value + 100.0, ref, tol));
    REQUIRE_FALSE(passes(std::nan(""), ref, tol));
    REQUIRE_FALSE(passes(std::numeric_limits<double>::infinity(), ref, tol));
  }
  // Sums that cancel to exactly 0 (y, then -y in reverse): every order's rounding passes, the
  // serial chain's too (its running sum climbs, then comes back); a sum that leaves one term out
  // does not (at a size where one term is more than the bound: 128 terms here).
  for (std::size_t half : {std::size_t{64}, std::size_t{1} << 16}) {
    std::vector<float> y = tut::random_floats(half, 11 + half, 0.0f, 1.0f);
    for (std::size_t i = half; i-- > 0;) y.push_back(-y[i]);
    const Reference zero = reference(Operation::sum, y.data(), nullptr, y.size());
    REQUIRE(zero.value == 0.0);
    const auto n = static_cast<std::int64_t>(y.size());
    const float chain = sum_serial_float(y.data(), y.size());
    INFO("n = " << n << ": serial float sum " << chain << ", pairwise " << sum_pairwise_float(y.data(), y.size()));
    REQUIRE(passes(chain, zero, tolerance(Operation::sum, n, Order::serial)));
    REQUIRE(passes(chain, zero, tolerance(Operation::sum, n, Order::any)));
    REQUIRE(passes(sum_pairwise_float(y.data(), y.size()), zero, tolerance(Operation::sum, n, Order::tree)));
    if (half == 64) {
      const float dropped = sum_pairwise_float(y.data() + 1, y.size() - 1);  // y[0] left out
      REQUIRE(y[0] > 0.01f);
      REQUIRE_FALSE(passes(dropped, zero, tolerance(Operation::sum, n, Order::tree)));
      REQUIRE_FALSE(passes(dropped, zero, tolerance(Operation::sum, n, Order::any)));
    }
  }
}

TEST_CASE("pairwise (tree) float summation is far more accurate than a serial float sum", "[reduce][accuracy]") {
  SECTION("positive values: a serial float sum stagnates at 2^24, a tree does not") {
    // 2^26 values in [0, 1): the true sum is about 2^25. Once a serial float accumulator
    // reaches 2^24 its spacing (ulp) is 2, and adding any x < 1 rounds back to the same value.
    const std::size_t n = std::size_t{1} << 26;
    const auto sn = static_cast<std::int64_t>(n);
    const std::vector<float> x = tut::random_floats(n, 42, 0.0f, 1.0f);
    const Reference ref = reference(Operation::sum, x.data(), nullptr, n);
    const float serial = sum_serial_float(x.data(), n);
    const float pairwise = sum_pairwise_float(x.data(), n);
    const double serial_err = std::fabs(serial - ref.value) / ref.value;
    const double pairwise_err = std::fabs(pairwise - ref.value) / ref.value;
    INFO("relative error: serial " << serial_err << ", pairwise " << pairwise_err);
    REQUIRE(serial_err > 0.4);  // about half the sum is lost
    // Yet inside the (here vacuous) worst-case bound of a serial chain: what v0 is held to ...
    REQUIRE(passes(serial, ref, tolerance(Operation::sum, sn, Order::serial)));
    // ... and outside the probabilistic bound of any order: stagnation is a drift, not random.
    REQUIRE_FALSE(passes(serial, ref, tolerance(Operation::sum, sn, Order::any)));
    REQUIRE(pairwise_err < 1e-6);
    // The tree stays inside the worst-case bound ceil(log2 n) * u * sum|x| = 26 u sum|x|.
    REQUIRE(pairwise_err * ref.value <= 26 * kUnitRoundoff * ref.magnitude);
    // And inside the tolerance the GPU versions are held to.
    REQUIRE(passes(pairwise, ref, tolerance(Operation::sum, sn)));
  }
  SECTION("signed values: both are inside the worst-case bounds, the tree far inside") {
    for (std::size_t n : {std::size_t{1000}, std::size_t{1} << 16, std::size_t{1} << 22}) {
      const auto sn = static_cast<std::int64_t>(n);
      const std::vector<float> x = tut::random_floats(n, 7 + n, -1.0f, 1.0f);
      const Reference ref = reference(Operation::sum, x.data(), nullptr, n);
      const float serial = sum_serial_float(x.data(), n);
      const float pairwise = sum_pairwise_float(x.data(), n);
      const double levels = std::ceil(std::log2(static_cast<double>(n)));
      INFO("n = " << n << ": serial error " << std::fabs(serial - ref.value) << ", pairwise error "
                  << std::fabs(pairwise - ref.value));
      REQUIRE(std::fabs(serial - ref.value) <= (n - 1) * kUnitRoundoff * ref.magnitude);  // Higham's bound, serial
      REQUIRE(passes(serial, ref, tolerance(Operation::sum, sn, Order::serial)));
      REQUIRE(passes(serial, ref, tolerance(Operation::sum, sn, Order::any)));
      REQUIRE(std::fabs(pairwise - ref.value) <= levels * kUnitRoundoff * ref.magnitude);  // and for a tree
      REQUIRE(passes(pairwise, ref, tolerance(Operation::sum, sn)));
    }
  }
}

TEST_CASE("v0's float max through integer atomics preserves float order", "[reduce][atomic-max]") {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> special = {0.0f, -0.0f, inf, -inf, 1.0f, -1.0f, 1e-45f, -1e-45f, 1e-38f, -1e-38f,
                                      3.4e38f, -3.4e38f, 0.5f, -0.5f, 123.25f, -123.25f};
  std::vector<float> values = special;
  const std::vector<float> random = tut::random_floats(2000, 99, -1e6f, 1e6f);
  values.insert(values.end(), random.begin(), random.end());
  // The expected maximum in the order the trick implements: float order, with -0 < +0.
  const auto total_order_max = [](float a, float b) {
    if (a == b) return std::signbit(a) ? b : a;  // equal: prefer the one without the sign bit
    return a > b ? a : b;
  };
  std::size_t wrong = 0;
  std::string first_wrong;
  for (float a : values) {
    for (float b : values) {
      const float got = float_of(max_by_integer_order(bits_of(a), bits_of(b)));
      const float expected = total_order_max(a, b);
      if (bits_of(got) != bits_of(expected)) {
        if (wrong++ == 0) first_wrong = "max(" + std::to_string(a) + ", " + std::to_string(b) + ") gave " + std::to_string(got);
      }
    }
  }
  INFO(first_wrong);
  REQUIRE(wrong == 0);
  // Folding from -inf (the identity v0 writes first) gives the maximum of a sequence.
  std::uint32_t word = bits_of(-inf);
  float expected = -inf;
  for (float v : random) {
    word = max_by_integer_order(word, bits_of(v));
    expected = std::max(expected, v);
  }
  REQUIRE(float_of(word) == expected);
}

TEST_CASE("integer inputs: in range, integer-valued, and exactly summable", "[reduce][inputs]") {
  for (int k : {1, 2, 3}) {
    const std::vector<float> v = integer_values(10000, 3, k);
    std::set<float> seen(v.begin(), v.end());
    for (float f : v) {
      REQUIRE(f == std::floor(f));
      REQUIRE(f >= -k);
      REQUIRE(f <= k);
    }
    REQUIRE(seen.size() == static_cast<std::size_t>(2 * k + 1));  // every value occurs
  }
  for (std::int64_t n :
       std::vector<std::int64_t>{1, 1000, 1 << 20, 3 * (1 << 20) + 1, 5 * (1 << 20), 1 << 24, std::int64_t{1} << 31}) {
    const int ks = exact_integer_range(Operation::sum, n), kd = exact_integer_range(Operation::dot, n);
    INFO("n = " << n);
    REQUIRE(ks >= 1);
    REQUIRE(kd >= 1);
    if (n < (1 << 24)) {  // a proof for every order: |any partial sum| <= k * n < 2^24
      REQUIRE(static_cast<double>(ks) * n < 16777216.0);
      REQUIRE(static_cast<double>(kd) * kd * n < 16777216.0);
    }
  }
  REQUIRE(exact_integer_range(Operation::sum, 3 * (1 << 20) + 1) == 3);  // the sweep's largest size
  REQUIRE(exact_integer_range(Operation::dot, 3 * (1 << 20) + 1) == 2);
}

TEST_CASE("float4_peel aligns both pointers, or gives up", "[reduce][alignment]") {
  alignas(16) static float buf[64];
  REQUIRE(float4_peel(100, buf, nullptr) == 0);
  REQUIRE(float4_peel(100, buf + 1, nullptr) == 3);
  REQUIRE(float4_peel(100, buf + 3, buf + 7) == 1);  // same misalignment
  REQUIRE(float4_peel(100, buf + 1, buf) == 100);    // different: all scalar
  REQUIRE(float4_peel(2, buf + 1, nullptr) == 2);    // peel limited by n
}

TEST_CASE("the workspace holds every level of the multi-pass versions", "[reduce][workspace]") {
  for (std::int64_t n : std::vector<std::int64_t>{1, 255, 256, 257, 65536, 1 << 28, (std::int64_t{1} << 31) + 3}) {
    std::size_t needed = 0;
    for (std::int64_t count = n; count > 1;) {
      const std::int64_t blocks = (count + 255) / 256;
      needed += static_cast<std::size_t>((blocks + 3) / 4 * 4);
      count = blocks;
    }
    INFO("n = " << n);
    REQUIRE(workspace_floats(n) >= needed);
    REQUIRE(workspace_floats(n) >= 65536);
    REQUIRE(workspace_floats(n) <= static_cast<std::size_t>(n) / 255 + 65536 + 64);  // and not much more
  }
}

TEST_CASE("the registry: unique names, vN_ ladder, operations, baselines", "[reduce][registry]") {
  std::set<std::string> names;
  int ladder = 0;
  const std::regex ladder_name("v([0-9]+)_[a-z0-9_]+");
  for (const auto& v : versions()) {
    INFO(v.info.name);
    REQUIRE(names.insert(v.info.name).second);
    REQUIRE_FALSE(v.info.summary.empty());
    REQUIRE(v.launch != nullptr);
    REQUIRE(v.ops != 0u);
    REQUIRE((v.ops & ~static_cast<unsigned>(kAllOps)) == 0u);
    std::smatch m;
    if (std::regex_match(v.info.name, m, ladder_name)) {
      REQUIRE(std::stoi(m[1]) == ladder);  // v0, v1, ... in order, no gaps
      REQUIRE(v.ops == kAllOps);           // every ladder step does sum, max and dot
      REQUIRE(v.info.kind == tut::Kind::ours);
      ++ladder;
    }
    if (v.info.kind == tut::Kind::ours && v.info.name != "v0_atomic") {
      REQUIRE(v.deterministic);
      REQUIRE(v.order == Order::tree);
    }
    if (v.info.name == "v0_atomic") REQUIRE(v.order == Order::serial);  // one chain of atomics
  }
  REQUIRE(ladder == 8);
  REQUIRE(names.count("cub") == 1);
  REQUIRE(names.count("cublas") == 1);
  // Each operation has exactly one library baseline.
  for (unsigned bit : {kSum, kMax, kDot}) {
    int libraries = 0;
    for (const auto& v : versions()) libraries += (v.info.kind == tut::Kind::library && (v.ops & bit)) ? 1 : 0;
    REQUIRE(libraries == 1);
  }
}
