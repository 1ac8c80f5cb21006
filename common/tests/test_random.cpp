// CPU tests of the seeded inputs: reproducible, seed-dependent, in range, not degenerate.
#include <algorithm>
#include <set>

#include "common/random.hpp"
#include "common/testing.hpp"

TEST_CASE("same seed, same values; other seed, other values", "[random]") {
  const auto a = tut::random_floats(1000, 7);
  const auto b = tut::random_floats(1000, 7);
  const auto c = tut::random_floats(1000, 8);
  REQUIRE(a == b);
  REQUIRE(a != c);
  REQUIRE(tut::derive_seed(7, 0) != tut::derive_seed(7, 1));
}

TEST_CASE("values lie in [lo, hi) and are spread out", "[random]") {
  const auto v = tut::random_floats(100000, 3, -2.0f, 5.0f);
  REQUIRE(*std::min_element(v.begin(), v.end()) >= -2.0f);
  REQUIRE(*std::max_element(v.begin(), v.end()) < 5.0f);
  const std::set<float> distinct(v.begin(), v.end());
  REQUIRE(distinct.size() > 99000);  // no constant or repeating inputs
  double mean = 0;
  for (float x : v) mean += x;
  mean /= static_cast<double>(v.size());
  REQUIRE(mean == Approx(1.5).margin(0.05));
}

TEST_CASE("element i does not depend on how many elements are made", "[random]") {
  const auto small = tut::random_floats(10, 11);
  const auto large = tut::random_floats(10000, 11);
  REQUIRE(std::equal(small.begin(), small.end(), large.begin()));
  REQUIRE(tut::hash_uniform(11, 9999, -1.0f, 1.0f) == large[9999]);
}
