// The checker of chapter 03's exercise (common/exercise/checker.hpp): build/bin/check_softmax.
// Cases: y = softmax(x) row by row, with rows and cols varying independently: C = 1, small
// primes, around 32 (a lane's stride) and 1024, not multiples of 4 or 32, rows of 2^22 + 1;
// R from 1 to 262147; x and y each starting 0-3 floats past a 16-byte boundary (the exercise
// takes any float pointers); on random rows and on the chapter's awkward rows (-inf entries,
// all -inf, 1e30 magnitudes, exp near underflow: awkward_matrix()). Hidden cases draw all of
// these from the secret seed.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common/compare.hpp"
#include "common/exercise/checker.hpp"
#include "common/random.hpp"
#include "softmax.hpp"

namespace {

using namespace tut::exercise;

/// What x holds.
enum Data : std::int64_t {
  kRandom = 0,   ///< uniform in [-kInputRange, kInputRange)
  kAwkward = 1,  ///< awkward_matrix(): row r of kind r % 10
};

CaseRequest softmax_case(std::int64_t rows, std::int64_t cols, std::uint32_t x_offset, std::uint32_t y_offset,
                         std::int64_t data) {
  CaseRequest c;
  c.name = "rows=" + std::to_string(rows) + " cols=" + std::to_string(cols) + " offsets x=" + std::to_string(x_offset) +
           " y=" + std::to_string(y_offset) + " data=" + (data == kAwkward ? "awkward" : "random");
  c.ints = {{"rows", rows}, {"cols", cols}, {"data", data}};  // "data" is the checker's: the launcher never sees it
  const auto count = static_cast<std::uint64_t>(rows * cols);
  c.arrays = {f32_array("x", Role::in, count, x_offset), f32_array("y", Role::out, count, y_offset)};
  return c;
}

/// The reference of one input set.
struct SoftmaxExpected final : Expected {
  std::vector<double> y;
};

/// Most elements of a correctness case (16 MiB an array): long rows, or many rows, not both.
constexpr std::int64_t kMostElements = std::int64_t{1} << 22;

class SoftmaxExercise final : public Exercise {
 public:
  std::string chapter() const override { return "softmax"; }
  std::string file() const override { return "exercises/03_softmax/softmax_warp_online.cu"; }
  std::string hint() const override {
    return "look at the TODO(student) markers of exercises/03_softmax/softmax_warp_online.cu: 1/3 pass 1 (every "
           "column of the lane), 2/3 the warp merge (both fields of the state), 3/3 pass 2 (every column written)";
  }

  std::vector<CaseRequest> public_cases() const override {
    std::vector<CaseRequest> cases;
    // Every kind of row length on a few rows; R and both offsets cycle with different periods
    // (3; x every case, y every 4 cases), so that no two of them move together.
    const std::int64_t cols_sweep[] = {1,   2,   3,    5,    7,    31,   32,   33,   64,    100,
                                       127, 128, 129,  1000, 1023, 1024, 1025, 4097, 32768, 70001};
    const std::int64_t rows_cycle[] = {1, 3, 37};
    int i = 0;
    for (std::int64_t cols : cols_sweep) {
      cases.push_back(softmax_case(rows_cycle[i % 3], cols, static_cast<std::uint32_t>(i % 4),
                                   static_cast<std::uint32_t>(i / 4 % 4), kRandom));
      ++i;
    }
    // Many rows (above 20000), of short and odd lengths, C = 1 included.
    const std::int64_t many[][2] = {{20000, 3}, {65537, 1}, {100003, 5}, {262147, 2}, {30011, 33}, {40009, 100},
                                    {24001, 129}};
    i = 0;
    for (const auto& [rows, cols] : many) {
      cases.push_back(softmax_case(rows, cols, static_cast<std::uint32_t>((i + 2) % 4),
                                   static_cast<std::uint32_t>(i % 3), kRandom));
      ++i;
    }
    // Long rows: far more columns than lanes, registers or shared memory could hold.
    cases.push_back(softmax_case(3, 300007, 1, 2, kRandom));
    cases.push_back(softmax_case(2, (1 << 20) + 3, 0, 3, kRandom));
    cases.push_back(softmax_case(1, (1 << 22) + 1, 3, 1, kRandom));
    // The awkward rows (each kind once or twice) at several lengths.
    const std::int64_t awkward_cols[] = {1, 2, 7, 32, 33, 128, 1000, 4096, 65537};
    i = 0;
    for (std::int64_t cols : awkward_cols) {
      cases.push_back(softmax_case(i % 2 == 0 ? softmax::kAwkwardKinds : 2 * softmax::kAwkwardKinds, cols,
                                   static_cast<std::uint32_t>((i + 1) % 4), static_cast<std::uint32_t>((i + 3) / 3 % 4),
                                   kAwkward));
      ++i;
    }
    return cases;
  }

  std::vector<CaseRequest> hidden_cases(std::uint64_t seed, const std::vector<std::int64_t>& extra) const override {
    std::vector<CaseRequest> cases;
    SeededDraw rng(seed);
    const auto draw = [&rng](std::uint64_t count) { return rng.below(count); };
    const auto in = [&draw](const std::int64_t (&range)[2]) {
      return range[0] + static_cast<std::int64_t>(draw(static_cast<std::uint64_t>(range[1] - range[0] + 1)));
    };
    // C and R each from its own ranges, drawn independently; R then capped so that the case
    // stays within kMostElements. Offsets and data drawn on their own (awkward rows 1 in 4).
    const std::int64_t col_ranges[][2] = {{1, 8}, {9, 128}, {129, 2048}, {2049, 1 << 16}, {(1 << 16) + 1, 1 << 21}};
    const std::int64_t row_ranges[][2] = {{1, 4}, {5, 64}, {65, 5000}, {5001, 300000}};
    for (int i = 0; i < 28; ++i) {
      const std::int64_t cols = in(col_ranges[draw(5)]);
      std::int64_t rows = in(row_ranges[draw(4)]);
      rows = std::max<std::int64_t>(1, std::min(rows, kMostElements / cols));
      const auto x_offset = static_cast<std::uint32_t>(draw(4));
      const auto y_offset = static_cast<std::uint32_t>(draw(4));
      cases.push_back(softmax_case(rows, cols, x_offset, y_offset, draw(4) == 0 ? kAwkward : kRandom));
    }
    // Each extra size n as the row length (3 rows of n) and as the row count (n rows of 5 and
    // 33), where that stays within 2^24 elements (the timed case's size).
    constexpr std::int64_t kMostExtra = std::int64_t{1} << 24;
    for (std::int64_t n : extra) {
      if (n < 1 || n > kMostExtra) continue;
      const auto offset = static_cast<std::uint32_t>(draw(4));
      if (3 * n <= kMostExtra) cases.push_back(softmax_case(3, n, offset, 3 - offset, kRandom));
      if (33 * n <= kMostExtra) {
        cases.push_back(softmax_case(n, 5, 3 - offset, offset, kRandom));
        cases.push_back(softmax_case(n, 33, offset, offset, kAwkward));
      }
    }
    return cases;
  }

  // 16384 x 1024 (a shape of the chapter's table, where a warp's row is 32 floats per lane):
  // 64 MiB in, 64 MiB out, several times any L2; the reference is one pass over 16.7 M elements.
  CaseRequest speed_case() const override { return softmax_case(16384, 1024, 0, 0, kRandom); }

  std::vector<std::vector<unsigned char>> make_inputs(const CaseRequest& c, std::uint64_t seed) const override {
    const std::int64_t rows = int_param(c, "rows"), cols = int_param(c, "cols");
    if (int_param(c, "data") == kRandom) {
      const auto count = static_cast<std::uint64_t>(rows * cols);
      return {random_f32_bytes(count, seed, -softmax::kInputRange, softmax::kInputRange)};
    }
    const std::vector<float> x = softmax::awkward_matrix(rows, cols, seed);
    const auto* bytes = reinterpret_cast<const unsigned char*>(x.data());
    return {std::vector<unsigned char>(bytes, bytes + x.size() * sizeof(float))};
  }

  std::unique_ptr<Expected> expect(const CaseRequest& c, const RunView& view) const override {
    const std::int64_t rows = int_param(c, "rows"), cols = int_param(c, "cols");
    auto e = std::make_unique<SoftmaxExpected>();
    e->y.resize(static_cast<std::size_t>(rows * cols));
    softmax::reference_softmax(view.input("x"), e->y.data(), rows, cols);  // on all the CPU's threads
    return e;
  }

  Finding compare(const CaseRequest& c, const Expected& expected, const RunView& view) const override {
    const std::int64_t cols = int_param(c, "cols");
    const std::vector<double>& ref = static_cast<const SoftmaxExpected&>(expected).y;
    const float* y = view.output("y");
    // Relative to each output: no output is a sum (the denominator's terms are all positive).
    const tut::Tolerance tol = softmax::tolerance(cols);
    const auto check = [&](std::size_t begin, std::size_t end, tut::ErrorStats& s) {
      for (std::size_t i = begin; i < end; ++i) s.add(i, y[i], ref[i], tol);
    };
    const tut::ErrorStats stats = tut::parallel_check(ref.size(), check);
    return finding_of(stats, tol, "outputs", [cols](std::size_t i) {
      const auto k = static_cast<std::int64_t>(i);
      return "y(row " + std::to_string(k / cols) + ", col " + std::to_string(k % cols) + ")";
    });
  }

  double bytes(const CaseRequest& c) const override {
    return 8.0 * static_cast<double>(int_param(c, "rows")) * static_cast<double>(int_param(c, "cols"));
  }
  double flops(const CaseRequest&) const override { return 0.0; }
};

}  // namespace

int main(int argc, char** argv) { return tut::exercise::checker_main(argc, argv, SoftmaxExercise{}); }
