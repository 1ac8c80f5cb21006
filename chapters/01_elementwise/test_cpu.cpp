// CPU tests of chapter 01: the references, the alignment helper, and the registry itself.
#include <cmath>
#include <regex>
#include <set>
#include <string>

#include "common/testing.hpp"
#include "elementwise.hpp"

using namespace elementwise;

TEST_CASE("references compute what their names say", "[elementwise][reference]") {
  REQUIRE(reference_add(1.5, -0.25) == 1.25);
  REQUIRE(reference_copy(-3.0, 99.0) == -3.0);
  REQUIRE(reference_relu(-2.0, 0.0) == 0.0);
  REQUIRE(reference_relu(2.0, 0.0) == 2.0);
  REQUIRE(reference_sigmoid(0.0, 0.0) == 0.5);
  REQUIRE(reference_sigmoid(30.0, 0.0) == Approx(1.0));
  REQUIRE(reference_sigmoid(-2.0, 0.0) == Approx(1.0 / (1.0 + std::exp(2.0))));
  REQUIRE(reference_axpb_relu(1.0, 0.0) == Approx(0.5));   // 0.75 - 0.25
  REQUIRE(reference_axpb_relu(0.0, 0.0) == 0.0);           // -0.25 -> 0
}

TEST_CASE("float4_peel aligns all pointers, or gives up", "[elementwise][alignment]") {
  alignas(16) static float buf[64];
  REQUIRE(float4_peel(100, buf, buf, buf) == 0);
  REQUIRE(float4_peel(100, buf + 1, buf + 1, buf + 1) == 3);
  REQUIRE(float4_peel(100, buf + 2, buf + 2, buf + 2) == 2);
  REQUIRE(float4_peel(100, buf + 3, buf + 7, buf + 3) == 1);  // same misalignment
  REQUIRE(float4_peel(100, buf + 1, buf, buf) == 100);         // different: all scalar
  REQUIRE(float4_peel(2, buf + 1, buf + 1, buf + 1) == 2);     // peel limited by n
}

TEST_CASE("the registry: unique names, vN_ ladder, sane byte models", "[elementwise][registry]") {
  std::set<std::string> names;
  int ladder = 0;
  const std::regex ladder_name("v([0-9]+)_[a-z0-9_]+");
  for (const auto& v : versions()) {
    INFO(v.info.name);
    REQUIRE(names.insert(v.info.name).second);
    REQUIRE_FALSE(v.info.summary.empty());
    REQUIRE(v.launch != nullptr);
    REQUIRE(v.reference != nullptr);
    REQUIRE((v.inputs == 1 || v.inputs == 2));
    REQUIRE(v.streams >= v.inputs + 1);
    REQUIRE(v.tables != 0u);
    std::smatch m;
    if (std::regex_match(v.info.name, m, ladder_name)) {
      REQUIRE(std::stoi(m[1]) == ladder);  // v0, v1, ... in order, no gaps
      ++ladder;
    }
  }
  REQUIRE(ladder >= 5);
  REQUIRE(names.count("cudaMemcpy") == 1);
}
