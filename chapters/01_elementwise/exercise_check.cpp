// The checker of chapter 01's exercise (common/exercise/checker.hpp): build/bin/check_elementwise.
// Cases: out = a + b for n over the 1-D sweep (every float4 tail, both sides of 2^20); hidden
// cases draw n from several ranges. The arrays are 16-byte aligned, as the exercise requires.
#include <cmath>
#include <memory>
#include <string>

#include "common/compare.hpp"
#include "common/exercise/checker.hpp"
#include "common/random.hpp"
#include "elementwise.hpp"

namespace {

using namespace tut::exercise;

CaseRequest add_case(std::int64_t n) {
  CaseRequest c;
  c.name = "n=" + std::to_string(n);
  c.ints = {{"n", n}};
  const auto count = static_cast<std::uint64_t>(n);
  c.arrays = {f32_array("a", Role::in, count), f32_array("b", Role::in, count), f32_array("out", Role::out, count)};
  return c;
}

struct NoState final : Expected {};

class AddExercise final : public Exercise {
 public:
  std::string chapter() const override { return "elementwise"; }
  std::string file() const override { return "exercises/01_elementwise/add_float4.cu"; }
  std::string hint() const override {
    return "look at the TODO(student) markers of exercises/01_elementwise/add_float4.cu: 1/2 the float4 body, "
           "2/2 the scalar tail (sizes that are not a multiple of 4 need it)";
  }

  std::vector<CaseRequest> public_cases() const override {
    std::vector<CaseRequest> cases;
    for (std::int64_t n : {1, 2, 3, 4, 5, 7, 8, 13, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000,
                           1023, 1024, 1025, 4097, 65535, 65536, 65537, (1 << 20) - 1, (1 << 20) + 3, 3 * (1 << 20) + 1}) {
      cases.push_back(add_case(n));
    }
    return cases;
  }

  std::vector<CaseRequest> hidden_cases(std::uint64_t seed, const std::vector<std::int64_t>& extra) const override {
    std::vector<CaseRequest> cases;
    // n from four ranges (a few elements, one block, one wave, many waves), each n % 4 in turn.
    const std::int64_t ranges[][2] = {{1, 16}, {17, 4096}, {4097, 1 << 18}, {1 << 18, 6 << 20}};
    std::uint64_t state = seed;
    for (int i = 0; i < 16; ++i) {
      const auto& r = ranges[i % 4];
      state = tut::mix64(state);
      std::int64_t n = r[0] + static_cast<std::int64_t>(state % static_cast<std::uint64_t>(r[1] - r[0]));
      n = n - n % 4 + i / 4 % 4;
      if (n < 1) n = 1 + i / 4 % 4;
      cases.push_back(add_case(n));
    }
    for (std::int64_t n : extra) {
      if (n >= 1 && n <= (std::int64_t{1} << 26)) cases.push_back(add_case(n));
    }
    return cases;
  }

  CaseRequest speed_case() const override { return add_case(std::int64_t{1} << 23); }

  std::vector<std::vector<unsigned char>> make_inputs(const CaseRequest& c, std::uint64_t seed) const override {
    const auto n = static_cast<std::uint64_t>(int_param(c, "n"));
    return {random_f32_bytes(n, tut::derive_seed(seed, 0), -4.0f, 4.0f),
            random_f32_bytes(n, tut::derive_seed(seed, 1), -4.0f, 4.0f)};
  }

  std::unique_ptr<Expected> expect(const CaseRequest&, const RunView&) const override {
    return std::make_unique<NoState>();  // the reference of one element is one addition: done in compare()
  }

  Finding compare(const CaseRequest& c, const Expected&, const RunView& view) const override {
    const auto n = static_cast<std::size_t>(int_param(c, "n"));
    const float* a = view.input("a");
    const float* b = view.input("b");
    const float* out = view.output("out");
    const tut::Tolerance& tol = elementwise::add_tolerance();
    const tut::ErrorStats stats = tut::parallel_check(n, [&](std::size_t begin, std::size_t end, tut::ErrorStats& s) {
      for (std::size_t i = begin; i < end; ++i) s.add(i, out[i], elementwise::reference_add(a[i], b[i]), tol);
    });
    return finding_of(stats, tol, "elements", [](std::size_t i) { return "out[" + std::to_string(i) + "]"; });
  }

  double bytes(const CaseRequest& c) const override { return 12.0 * static_cast<double>(int_param(c, "n")); }
  double flops(const CaseRequest&) const override { return 0.0; }
};

}  // namespace

int main(int argc, char** argv) { return tut::exercise::checker_main(argc, argv, AddExercise{}); }
