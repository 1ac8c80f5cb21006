// The exercise wire format (common/exercise/wire.hpp): what the checker writes, the runner reads,
// and what comes back, including a response cut short by a process that died.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "common/exercise/wire.hpp"
#include "common/testing.hpp"

using namespace tut::exercise;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tut_wire_" + std::to_string(::getpid()) + "_" + name)).string();
}

CaseRequest sample_case() {
  CaseRequest c;
  c.name = "n=3";
  c.ints = {{"n", 3}};
  c.reals = {{"alpha", -1.5}};
  c.arrays = {{"x", DType::f32, Role::in, 3, 1}, {"y", DType::f32, Role::out, 3, 0}};
  c.sets = 2;
  c.data = {{std::vector<unsigned char>(12, 1)}, {std::vector<unsigned char>(12, 2)}};
  return c;
}

RunBack run_of(const CaseRequest& c, std::uint32_t set, unsigned char fill) {
  RunBack r;
  r.set = set;
  for (const ArraySpec& a : c.arrays) {
    ArrayBack b;
    b.before.assign(kGuardBytes + a.offset * dtype_bytes(a.dtype), kGuardByte);
    b.data.assign(a.bytes(), fill);
    b.after.assign(kGuardBytes, kGuardByte);
    r.arrays.push_back(b);
  }
  return r;
}

}  // namespace

TEST_CASE("a request comes back as it was written", "[exercise][wire]") {
  const std::string path = temp_path("request");
  write_request(path, {sample_case()});
  const std::vector<CaseRequest> back = read_request(path);
  REQUIRE(back.size() == 1);
  CHECK(back[0].name == "n=3");
  CHECK(back[0].ints == sample_case().ints);
  CHECK(back[0].reals == sample_case().reals);
  REQUIRE(back[0].arrays.size() == 2);
  CHECK(back[0].arrays[0].offset == 1);
  CHECK(back[0].arrays[1].role == Role::out);
  CHECK(back[0].data == sample_case().data);
  std::filesystem::remove(path);
}

TEST_CASE("a request whose data does not match its arrays is refused", "[exercise][wire]") {
  CaseRequest c = sample_case();
  c.data[1][0].resize(11);
  REQUIRE_THROWS_AS(write_request(temp_path("bad"), {c}), std::invalid_argument);
}

TEST_CASE("a response is read case by case, and a truncated tail is reported", "[exercise][wire]") {
  const std::vector<CaseRequest> cases = {sample_case(), sample_case()};
  const std::string path = temp_path("response");
  {
    ResponseWriter w(path);
    CaseBack h;
    h.kernel_nodes = 1;
    h.host_nodes = 0;
    h.libraries = {"libc.so.6"};
    w.begin_case(0, h, 2);
    w.run(run_of(cases[0], 0, 7));
    w.run(run_of(cases[0], 1, 9));
    w.end_case();
    w.begin_case(1, h, 1);  // the process "dies" here: no run, no end mark
  }
  ResponseReader r(path, cases);
  std::uint32_t index = 99;
  CaseBack back;
  REQUIRE(r.next(index, back));
  CHECK(index == 0);
  CHECK(back.kernel_nodes == 1);
  REQUIRE(back.runs.size() == 2);
  CHECK(back.runs[1].set == 1);
  CHECK(back.runs[1].arrays[1].data == std::vector<unsigned char>(12, 9));
  CHECK_FALSE(r.next(index, back));
  CHECK(r.truncated());
  std::filesystem::remove(path);
}

TEST_CASE("a response with arrays of the wrong size is rejected", "[exercise][wire]") {
  const std::vector<CaseRequest> cases = {sample_case()};
  const std::string path = temp_path("wrong_size");
  {
    ResponseWriter w(path);
    RunBack run = run_of(cases[0], 0, 1);
    run.arrays[1].data.resize(8);  // a runner that sends back fewer bytes than the output has
    w.begin_case(0, CaseBack{}, 1);
    w.run(run);
    w.end_case();
  }
  ResponseReader r(path, cases);
  std::uint32_t index = 0;
  CaseBack back;
  REQUIRE_THROWS_AS(r.next(index, back), FormatError);
  std::filesystem::remove(path);
}

TEST_CASE("a response to a case that was not asked for is rejected", "[exercise][wire]") {
  const std::vector<CaseRequest> cases = {sample_case()};
  const std::string path = temp_path("extra_case");
  {
    ResponseWriter w(path);
    w.begin_case(5, CaseBack{}, 0);
    w.end_case();
  }
  ResponseReader r(path, cases);
  std::uint32_t index = 0;
  CaseBack back;
  REQUIRE_THROWS_AS(r.next(index, back), FormatError);
  std::filesystem::remove(path);
}
