// The checker of chapter 05's exercise (common/exercise/checker.hpp): build/bin/check_transpose.
// Cases: B = A^T for a row-major R x C matrix, R and C varied independently: 1 x 1, a single row
// or column, every size around the 32 x 32 tile, R != C both ways, very wide and very tall
// matrices, and A and B each misaligned by 0..3 floats (the exercise takes any alignment: it
// moves single floats). A transpose moves bits: every element must be exact.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/compare.hpp"
#include "common/exercise/checker.hpp"
#include "common/random.hpp"
#include "transpose.hpp"

namespace {

using namespace tut::exercise;

/// Elements of A at most in a hidden case (8 MiB per matrix: 24 cases stay within ~100 MB of data).
constexpr std::int64_t kMaxHiddenElements = std::int64_t{1} << 21;

CaseRequest transpose_case(std::int64_t R, std::int64_t C, std::uint32_t off_a = 0, std::uint32_t off_b = 0) {
  CaseRequest c;
  c.name = "r=" + std::to_string(R) + " c=" + std::to_string(C) + " offsets A=" + std::to_string(off_a) +
           " B=" + std::to_string(off_b);
  c.ints = {{"r", R}, {"c", C}};
  const auto n = static_cast<std::uint64_t>(R * C);
  c.arrays = {f32_array("A", Role::in, n, off_a), f32_array("B", Role::out, n, off_b)};
  return c;
}

struct NoState final : Expected {};

class TransposeExercise final : public Exercise {
 public:
  std::string chapter() const override { return "transpose"; }
  std::string file() const override { return "exercises/05_transpose/transpose_padded.cu"; }
  std::string hint() const override {
    return "look at the TODO(student) markers of exercises/05_transpose/transpose_padded.cu: 1/3 the tile, 2/3 the "
           "load with its bounds test and the barrier, 3/3 the transposed store with its bounds test (R or C not a "
           "multiple of 32 leaves partial tiles)";
  }

  std::vector<CaseRequest> public_cases() const override {
    std::vector<CaseRequest> cases;
    // Aligned: one element, one row, one column, around the tile, R != C both ways, wide, tall.
    for (const auto& [R, C] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {1, 1},      {1, 2},      {2, 1},       {1, 7},       {7, 1},      {1, 33},     {33, 1},
             {1, 4097},   {4097, 1},   {1, 100003},  {100003, 1},  {2, 2},      {3, 5},      {5, 3},
             {17, 33},    {33, 17},    {31, 31},     {31, 32},     {32, 31},    {32, 32},    {32, 33},
             {33, 32},    {33, 33},    {63, 65},     {65, 63},     {64, 64},    {96, 100},   {100, 96},
             {36, 4100},  {4100, 36},  {33, 4097},   {4097, 33},   {100, 1000}, {1000, 1024}, {1024, 1000},
             {257, 513},  {2048, 2049}, {3, 1048583}, {1048583, 3}}) {
      cases.push_back(transpose_case(R, C));
    }
    // Misaligned starts: A alone, B alone, both.
    for (const auto& [R, C] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {1, 1}, {5, 3}, {64, 64}, {1000, 37}, {33, 4097}}) {
      cases.push_back(transpose_case(R, C, 1, 0));
      cases.push_back(transpose_case(R, C, 0, 2));
      cases.push_back(transpose_case(R, C, 3, 3));
      cases.push_back(transpose_case(R, C, 2, 1));
    }
    return cases;
  }

  std::vector<CaseRequest> hidden_cases(std::uint64_t seed, const std::vector<std::int64_t>& extra) const override {
    std::vector<CaseRequest> cases;
    // R and C each from one of four ranges (a few, a few tiles, many tiles, very long), drawn on
    // their own; R % 32 and C % 32 come out as they fall; each offset is drawn on its own.
    const std::int64_t ranges[][2] = {{1, 8}, {9, 100}, {101, 3000}, {3001, 300000}};
    SeededDraw rng(seed);
    const auto draw = [&rng](std::int64_t lo, std::int64_t hi) { return rng.between(lo, hi); };
    for (int i = 0; i < 24; ++i) {
      const auto& rr = ranges[draw(0, 3)];
      const auto& rc = ranges[draw(0, 3)];
      const std::int64_t R = draw(rr[0], rr[1]);
      const std::int64_t C = std::min(draw(rc[0], rc[1]), std::max<std::int64_t>(1, kMaxHiddenElements / R));
      const auto off = [&draw] { return static_cast<std::uint32_t>(draw(0, 3)); };
      const std::uint32_t a = off(), b = off();
      cases.push_back(transpose_case(R, C, a, b));
    }
    for (std::int64_t n : extra) {
      if (n < 1 || n > kMaxHiddenElements) continue;
      if (n <= 4096) cases.push_back(transpose_case(n, n));  // at most 2^24 elements
      cases.push_back(transpose_case(1, n, 0, 1));
      cases.push_back(transpose_case(n, 3, 1, 0));
    }
    return cases;
  }

  // 4096 x 3072 (48 MiB per matrix, R != C): bigger than L2, and every timed repetition's B
  // (48 MiB) comes back and is compared on the CPU's threads in well under a second.
  CaseRequest speed_case() const override { return transpose_case(4096, 3072); }

  std::vector<std::vector<unsigned char>> make_inputs(const CaseRequest& c, std::uint64_t seed) const override {
    const auto n = static_cast<std::uint64_t>(int_param(c, "r") * int_param(c, "c"));
    return {random_f32_bytes(n, tut::derive_seed(seed, 0))};
  }

  std::unique_ptr<Expected> expect(const CaseRequest&, const RunView&) const override {
    return std::make_unique<NoState>();  // the reference of an element is the input element it comes from
  }

  Finding compare(const CaseRequest& c, const Expected&, const RunView& view) const override {
    const std::int64_t R = int_param(c, "r"), C = int_param(c, "c");
    const tut::Tolerance& tol = transpose::exact_tolerance();
    const tut::ErrorStats stats = transpose::check(view.output("B"), view.input("A"), R, C, transpose::Output::transposed);
    return finding_of(stats, tol, "elements", [R](std::size_t i) {
      const auto k = static_cast<std::int64_t>(i);
      return "B[" + std::to_string(k / R) + "][" + std::to_string(k % R) + "]";
    });
  }

  // A read once and B written once.
  double bytes(const CaseRequest& c) const override {
    return transpose::bytes_moved(int_param(c, "r"), int_param(c, "c"));
  }
  double flops(const CaseRequest&) const override { return 0.0; }  // moves bytes only: judged in GB/s
};

}  // namespace

int main(int argc, char** argv) { return tut::exercise::checker_main(argc, argv, TransposeExercise{}); }
