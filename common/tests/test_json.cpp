// CPU tests of the JSON writer and of the result file's shape (the contract tools rely on).
#include <limits>
#include <string>

#include "common/json.hpp"
#include "common/report.hpp"
#include "common/testing.hpp"

using tut::Json;

TEST_CASE("scalars, escaping and non-finite numbers", "[json]") {
  REQUIRE(Json().dump() == "null");
  REQUIRE(Json(true).dump() == "true");
  REQUIRE(Json(42).dump() == "42");
  REQUIRE(Json(std::int64_t{1} << 40).dump() == "1099511627776");
  REQUIRE(Json(0.5).dump() == "0.5");
  REQUIRE(Json(std::numeric_limits<double>::quiet_NaN()).dump() == "null");
  REQUIRE(Json(std::numeric_limits<double>::infinity()).dump() == "null");
  REQUIRE(Json("a\"b\\c\nd\x01").dump() == "\"a\\\"b\\\\c\\nd\\u0001\"");
}

TEST_CASE("objects keep insertion order and replace on set", "[json]") {
  Json o = Json::object();
  o.set("b", 1);
  o.set("a", 2);
  o.set("b", 3);
  REQUIRE(o.dump(0) == "{\"b\":3,\"a\":2}");
  REQUIRE(o.contains("a"));
  REQUIRE_FALSE(o.contains("c"));
  REQUIRE_THROWS_AS(o.at("c"), std::out_of_range);
  Json a = Json::array();
  a.push(1);
  a.push("x");
  REQUIRE(a.dump(0) == "[1,\"x\"]");
  REQUIRE(Json::array().dump() == "[]");
  REQUIRE_THROWS_AS(a.set("k", 1), std::logic_error);
}

TEST_CASE("the result file has the documented shape", "[json]") {
  tut::RunReport r;
  r.chapter = "elementwise";
  r.git = "abc123";
  r.device.name = "Test GPU";
  r.device.cc_major = 9;
  r.device.sm_count = 132;
  r.device.copy_gbps = 3000.0;
  tut::ProblemResult p;
  p.label = "add n=1024";
  p.shape = {{"n", 1024}};
  p.peak = 3000.0;
  tut::ResultRow row;
  row.info = {"v0_naive", "one thread per element", 75, tut::Kind::ours};
  row.correct = true;
  row.time.median_ms = 1.0;
  row.time.min_ms = 0.9;
  row.time.max_ms = 1.2;
  row.time.reps = 10;
  row.bytes = 1.5e9;
  p.rows.push_back(row);
  tut::ResultRow lib = row;
  lib.info = {"cudaMemcpy", "copy", 75, tut::Kind::library};
  lib.time.median_ms = 0.5;
  lib.bytes = 1.0e9;
  p.rows.push_back(lib);
  tut::ResultRow skipped;
  skipped.info = {"v9_hopper", "needs sm_90", 90, tut::Kind::ours};
  skipped.skipped = true;
  skipped.skip_reason = "needs sm_90";
  p.rows.push_back(skipped);
  p.finalize();
  r.problems.push_back(p);

  const Json j = r.to_json();
  for (const char* key : {"chapter", "git", "device", "problems"}) REQUIRE(j.contains(key));
  const Json& dev = j.at("device");
  for (const char* key : {"name", "compute_capability", "sm_count", "l2_bytes", "copy_gbps"}) REQUIRE(dev.contains(key));
  REQUIRE(dev.at("compute_capability").dump() == "\"9.0\"");
  const Json& prob = j.at("problems");
  REQUIRE(prob.size() == 1);
  const std::string text = j.dump(2);
  for (const char* key : {"\"version\"", "\"kind\"", "\"correct\"", "\"rel_err\"", "\"median_ms\"", "\"gbps\"",
                          "\"tflops\"", "\"pct_of_peak\"", "\"vs_library\"", "\"shape\"", "\"dtype\"", "\"skip_reason\""}) {
    INFO(key);
    REQUIRE(text.find(key) != std::string::npos);
  }
  // 1.5e9 bytes in 1 ms = 1500 GB/s = 50% of a 3000 GB/s peak; the library did 2000 GB/s.
  REQUIRE(text.find("\"gbps\": 1500") != std::string::npos);
  REQUIRE(text.find("\"pct_of_peak\": 50") != std::string::npos);
  REQUIRE(text.find("\"vs_library\": 0.75") != std::string::npos);
  // The skipped row has no time and no verdict: nulls, not zeros or false.
  REQUIRE(text.find("\"median_ms\": null") != std::string::npos);
  REQUIRE(text.find("\"correct\": null") != std::string::npos);
}
