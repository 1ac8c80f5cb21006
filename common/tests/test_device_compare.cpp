// GPU tests of DeviceReference::check(): on the same data it must reach the same verdict and
// the same errors as the CPU comparison (tut::compare), for passing outputs, planted wrong
// elements, NaN and Inf, per-element bounds, and sizes around a block and a wave.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/device_compare.hpp"
#include "common/random.hpp"
#include "common/testing.hpp"

namespace {

/// A reference in double and an output that is its float rounding: within one rounding.
struct Case {
  std::vector<double> expected;
  std::vector<float> got;
};

Case make_case(std::size_t n, std::uint64_t seed) {
  Case c;
  const std::vector<float> a = tut::random_floats(n, tut::derive_seed(seed, 0));
  const std::vector<float> b = tut::random_floats(n, tut::derive_seed(seed, 1));
  c.expected.resize(n);
  c.got.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    c.expected[i] = static_cast<double>(a[i]) + static_cast<double>(b[i]);  // exact in double
    c.got[i] = a[i] + b[i];                                                  // one fp32 rounding
  }
  return c;
}

/// Both verdicts and both errors on the same data.
void require_same_as_cpu(const Case& c, const tut::Tolerance& tol, const std::vector<double>& atol_each = {}) {
  const tut::DeviceBuffer<float> got(c.got);
  const tut::DeviceReference ref(c.expected, atol_each);
  const tut::ErrorStats gpu = ref.check(got.data(), tol);
  tut::ErrorStats cpu;
  tut::Tolerance each = tol;
  for (std::size_t i = 0; i < c.got.size(); ++i) {
    if (!atol_each.empty()) each.atol = atol_each[i];
    cpu.add(i, c.got[i], c.expected[i], each);
  }
  INFO("n = " << c.got.size() << "\n  GPU: " << gpu.describe(tol) << "\n  CPU: " << cpu.describe(tol));
  REQUIRE(gpu.passed(tol) == cpu.passed(tol));
  REQUIRE(gpu.count() == cpu.count());
  REQUIRE(gpu.nonfinite() == cpu.nonfinite());
  REQUIRE(gpu.over_tolerance() == cpu.over_tolerance());
  if (std::isfinite(cpu.rel_norm_error())) {
    REQUIRE(gpu.rel_norm_error() == Approx(cpu.rel_norm_error()).epsilon(1e-9).margin(1e-300));
  } else {
    REQUIRE_FALSE(std::isfinite(gpu.rel_norm_error()));
  }
  REQUIRE(gpu.max_abs_error() == cpu.max_abs_error());
  if (!cpu.passed(tol)) {  // a failed check reports the same worst element as the CPU
    REQUIRE_FALSE(gpu.worst().empty());
    REQUIRE(gpu.worst().front().index == cpu.worst().front().index);
  }
}

const tut::Tolerance kOneRounding{1.2e-7, 0.0, 1.2e-7, "test: one rounding"};

}  // namespace

TEST_CASE("a correct output passes on the GPU exactly when it passes on the CPU", "[device_compare]") {
  for (std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{256}, std::size_t{257}, std::size_t{100003},
                        std::size_t{3000017}}) {
    require_same_as_cpu(make_case(n, tut::testing::seed() + n), kOneRounding);
  }
}

TEST_CASE("wrong, NaN and Inf elements fail on the GPU as on the CPU, with the same worst element",
          "[device_compare]") {
  for (std::size_t n : {std::size_t{1}, std::size_t{257}, std::size_t{100003}}) {
    Case wrong = make_case(n, tut::testing::seed() + 1);
    wrong.got[n / 2] = std::nextafter(std::nextafter(wrong.got[n / 2], 10.0f), 10.0f);  // 2 ulp: over one rounding
    require_same_as_cpu(wrong, kOneRounding);
    Case nan = make_case(n, tut::testing::seed() + 2);
    nan.got[n - 1] = std::numeric_limits<float>::quiet_NaN();
    require_same_as_cpu(nan, kOneRounding);
    Case inf = make_case(n, tut::testing::seed() + 3);
    inf.got[0] = -std::numeric_limits<float>::infinity();
    require_same_as_cpu(inf, kOneRounding);
  }
}

TEST_CASE("an all-NaN output (nothing written) fails; an empty reference never passes", "[device_compare]") {
  Case c = make_case(4097, tut::testing::seed() + 4);
  tut::DeviceBuffer<float> got(c.got.size());
  got.poison();
  const tut::DeviceReference ref(c.expected);
  const tut::ErrorStats stats = ref.check(got.data(), kOneRounding);
  REQUIRE_FALSE(stats.passed(kOneRounding));
  REQUIRE(stats.nonfinite() == c.got.size());
  const tut::DeviceReference empty;
  REQUIRE_FALSE(empty.check(got.data(), kOneRounding).passed(kOneRounding));
}

TEST_CASE("per-element absolute bounds replace Tolerance::atol, element by element", "[device_compare]") {
  Case c = make_case(10007, tut::testing::seed() + 5);
  const tut::Tolerance tol{1.0, 0.0, 0.0, "test: per-element atol only"};
  std::vector<double> atol(c.got.size(), 1e-6);
  require_same_as_cpu(c, tol, atol);  // passes: every error is below 1e-6
  atol[1234] = 0.0;                   // one element must now be exact
  c.got[1234] = static_cast<float>(c.expected[1234] + 1e-3);
  require_same_as_cpu(c, tol, atol);  // fails there, and only there
}

TEST_CASE("compute() fills the reference from a function of the index", "[device_compare]") {
  const std::size_t n = 200003;  // several CPU threads
  const tut::DeviceReference ref = tut::DeviceReference::compute(n, [](std::size_t i) { return 0.5 * static_cast<double>(i); });
  std::vector<float> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = 0.5f * static_cast<float>(i);  // exact below 2^24
  const tut::DeviceBuffer<float> got(host);
  const tut::Tolerance exact{0.0, 0.0, 0.0, "test: exact"};
  REQUIRE(ref.size() == n);
  REQUIRE(ref.check(got.data(), exact).passed(exact));
}

TEST_CASE("a sampled reference gathers on the GPU and reports positions in the whole array", "[device_compare]") {
  const std::size_t n = 1 << 20;
  std::vector<float> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = 0.25f * static_cast<float>(i % 4099);  // exact in float
  tut::DeviceBuffer<float> array(host);
  const std::vector<std::size_t> index = tut::testing::sample_indices(n, n - 5000, 64, 4096);
  REQUIRE(index.size() == (n - 5000) / 4096 * 64 + 5000);
  const tut::DeviceSampleReference ref(index, [](std::size_t i) { return 0.25 * static_cast<double>(i % 4099); });
  const tut::Tolerance exact{0.0, 0.0, 0.0, "test: exact"};
  const tut::ErrorStats good = ref.check(array.data(), exact);
  REQUIRE(good.passed(exact));
  REQUIRE(good.count() == index.size());
  // A wrong element inside the sample fails, reported at its position in the array ...
  host[4096 * 7 + 3] = -1.0f;
  // ... and one outside the sample (between two runs) is not looked at.
  host[4096 * 9 + 100] = -1.0f;
  array.copy_from(host);
  const tut::ErrorStats bad = ref.check(array.data(), exact);
  REQUIRE_FALSE(bad.passed(exact));
  REQUIRE(bad.over_tolerance() == 1);
  REQUIRE(bad.worst().front().index == 4096 * 7 + 3);
}
