// CPU tests of the timing maths (the GPU part is exercised by every chapter executable).
#include <limits>
#include <vector>

#include "common/timing.hpp"
#include "common/testing.hpp"

TEST_CASE("median, min and max of an odd and an even count", "[timing]") {
  const tut::TimingStats odd = tut::summarize({5.0, 1.0, 3.0});
  REQUIRE(odd.median_ms == 3.0);
  REQUIRE(odd.min_ms == 1.0);
  REQUIRE(odd.max_ms == 5.0);
  REQUIRE(odd.reps == 3);
  const tut::TimingStats even = tut::summarize({4.0, 1.0, 3.0, 2.0});
  REQUIRE(even.median_ms == 2.5);
  REQUIRE(tut::summarize({7.0}).median_ms == 7.0);
}

TEST_CASE("the median ignores one outlier", "[timing]") {
  const tut::TimingStats t = tut::summarize({1.0, 1.0, 1.1, 1.0, 1000.0});
  REQUIRE(t.median_ms == 1.0);
  REQUIRE(t.max_ms == 1000.0);
}

TEST_CASE("no samples or bad samples are errors", "[timing]") {
  REQUIRE_THROWS_AS(tut::summarize({}), std::invalid_argument);
  REQUIRE_THROWS_AS(tut::summarize({1.0, std::numeric_limits<double>::quiet_NaN()}), std::invalid_argument);
  REQUIRE_THROWS_AS(tut::summarize({-1.0}), std::invalid_argument);
}
