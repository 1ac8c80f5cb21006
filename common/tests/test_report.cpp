// CPU tests of the derived columns (throughput, % of peak, speedup, ratio to the library) and
// of the table and CSV output.
#include <sstream>

#include "common/report.hpp"
#include "common/testing.hpp"

namespace {

tut::ResultRow make_row(const char* name, tut::Kind kind, double ms, double bytes, double flops = 0.0) {
  tut::ResultRow r;
  r.info = {name, "summary", 75, kind};
  r.correct = true;
  r.time = {ms, ms, ms, 5};
  r.bytes = bytes;
  r.flops = flops;
  return r;
}

}  // namespace

TEST_CASE("derived columns: bandwidth problems", "[report]") {
  tut::ProblemResult p;
  p.label = "t";
  p.peak = 1000.0;
  p.rows.push_back(make_row("v0", tut::Kind::ours, 4.0, 1e9));
  p.rows.push_back(make_row("lib", tut::Kind::library, 2.0, 1.6e9));
  p.rows.push_back(make_row("v1", tut::Kind::ours, 1.0, 1e9));
  p.finalize();
  const auto& v1 = *p.find("v1");
  REQUIRE(v1.gbps == Approx(1000.0));
  REQUIRE(v1.pct_of_peak == Approx(100.0));
  REQUIRE(v1.speedup == Approx(4.0));           // vs the first row of ours
  REQUIRE(v1.vs_library == Approx(1000.0 / 800.0));  // throughput ratio, not time ratio
  REQUIRE(p.baseline == "v0");
  REQUIRE(p.library == "lib");
}

TEST_CASE("derived columns: compute problems and explicit baseline/library", "[report]") {
  tut::ProblemResult p;
  p.metric = tut::Metric::tflops;
  p.peak = 50.0;
  p.baseline = "v1";
  p.library = "cublas_tf32";
  p.rows.push_back(make_row("v0", tut::Kind::ours, 10.0, 0, 1e9));
  p.rows.push_back(make_row("v1", tut::Kind::ours, 5.0, 0, 1e9));
  p.rows.push_back(make_row("cublas", tut::Kind::library, 0.04, 0, 1e9));
  p.rows.push_back(make_row("cublas_tf32", tut::Kind::library, 0.02, 0, 1e9));
  p.finalize();
  REQUIRE(p.find("v0")->tflops == Approx(0.1));
  REQUIRE(p.find("v0")->speedup == Approx(0.5));
  REQUIRE(p.find("cublas")->pct_of_peak == Approx(50.0));
  REQUIRE(p.find("cublas")->vs_library == Approx(0.5));
}

TEST_CASE("rows that were skipped, wrong or untimed get no derived numbers", "[report]") {
  tut::ProblemResult p;
  p.peak = 100;
  auto untimed = make_row("v0", tut::Kind::ours, 0.0, 1e9);
  untimed.time = {};
  p.rows.push_back(untimed);
  auto skipped = make_row("v1", tut::Kind::ours, 1.0, 1e9);
  skipped.skipped = true;
  p.rows.push_back(skipped);
  p.finalize();
  REQUIRE(p.find("v0")->gbps == 0.0);
  REQUIRE(p.find("v1")->speedup == 0.0);
  REQUIRE(p.find("nope") == nullptr);
}

TEST_CASE("table and CSV name every row and mark wrong ones", "[report]") {
  tut::ProblemResult p;
  p.label = "add n=8";
  p.peak = 100;
  p.peak_name = "copy";
  p.rows.push_back(make_row("v0_naive", tut::Kind::ours, 1.0, 1e8));
  auto wrong = make_row("v1_broken", tut::Kind::ours, 1.0, 1e8);
  wrong.correct = false;
  wrong.time = {};
  p.rows.push_back(wrong);
  p.finalize();
  std::ostringstream os;
  tut::print_table(os, p);
  const std::string table = os.str();
  REQUIRE(table.find("v0_naive") != std::string::npos);
  REQUIRE(table.find("WRONG") != std::string::npos);
  REQUIRE(table.find("% peak") != std::string::npos);

  tut::RunReport r;
  r.chapter = "elementwise";
  r.problems.push_back(p);
  const std::string csv = r.to_csv();
  REQUIRE(csv.find("chapter,problem,dtype,version") == 0);
  REQUIRE(csv.find("elementwise,\"add n=8\",fp32,v1_broken,ours,0,0,") != std::string::npos);
}

TEST_CASE("format_bytes picks binary units", "[report]") {
  REQUIRE(tut::format_bytes(512) == "512 B");
  REQUIRE(tut::format_bytes(1536) == "1.50 KiB");
  REQUIRE(tut::format_bytes(3.0 * (1ull << 30)) == "3.00 GiB");
}
