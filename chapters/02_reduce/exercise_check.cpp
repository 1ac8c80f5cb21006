// The checker of chapter 02's exercise (common/exercise/checker.hpp): build/bin/check_reduce.
// Cases: *out = x[0] + ... + x[n-1] over the 1-D size sweep (from n = 1: for n = 0 the launcher
// may rightly write 0 without a kernel, which the checker does not accept), every block size
// the contract allows (the multiples of 32 up to 1024), x starting 0-3 floats past a 16-byte
// boundary (the exercise takes any float pointer) and out 0-3 floats past one, on three kinds of
// data: integers (every partial sum exact, so any order must give the exact sum), and uniform
// reals in [0, 1) and [-1, 1) (within the any-order bound of reduce::tolerance()). Hidden cases
// draw all of these from the secret seed, each independently.
#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>

#include "common/compare.hpp"
#include "common/exercise/checker.hpp"
#include "common/random.hpp"
#include "reduce.hpp"

namespace {

using namespace tut::exercise;

/// What x holds.
enum Data : std::int64_t {
  kIntegers = 0,  ///< integers in [-k, k] (reduce::exact_integer_range): the sum is exact in any order
  kPositive = 1,  ///< uniform in [0, 1): a large sum, where a long chain of additions drifts
  kSigned = 2,    ///< uniform in [-1, 1): a sum that cancels
};

const char* data_name(std::int64_t d) {
  return d == kIntegers ? "integers" : d == kPositive ? "positive" : "signed";
}

/// Every block size the contract allows: 32, 64, ..., 1024.
constexpr int kBlockSizes = 32;
int block_size(int i) { return 32 * (1 + i % kBlockSizes); }

CaseRequest sum_case(std::int64_t n, int threads, std::uint32_t x_offset, std::uint32_t out_offset, std::int64_t data) {
  CaseRequest c;
  c.name = "n=" + std::to_string(n) + " threads=" + std::to_string(threads) + " offsets x=" + std::to_string(x_offset) +
           " out=" + std::to_string(out_offset) + " data=" + data_name(data);
  c.ints = {{"n", n}, {"threads", threads}, {"data", data}};  // "data" is the checker's: the launcher never sees it
  c.arrays = {f32_array("x", Role::in, static_cast<std::uint64_t>(n), x_offset),
              f32_array("out", Role::out, 1, out_offset)};
  return c;
}

/// The reference of one input set, and the bound it is held to.
struct SumExpected final : Expected {
  reduce::Reference ref;
  tut::Tolerance tol;
};

/// Below 2^24 every integer is a float: if the positive terms add up to less, and so do the
/// negative ones, every partial sum of every order is an exactly representable integer.
bool exact_in_any_order(const reduce::Reference& ref) {
  const double positives = (ref.magnitude + ref.value) / 2, negatives = (ref.magnitude - ref.value) / 2;
  return std::max(positives, negatives) < 16777216.0;
}

class ReduceExercise final : public Exercise {
 public:
  std::string chapter() const override { return "reduce"; }
  std::string file() const override { return "exercises/02_reduce/block_reduce_sum.cu"; }
  std::string hint() const override {
    return "look at the TODO(student) markers of exercises/02_reduce/block_reduce_sum.cu: 1/2 warp_sum() (the "
           "total must reach lane 0), 2/2 block_sum() (every warp's sum, one barrier, lanes past the last warp add 0)";
  }

  std::vector<CaseRequest> public_cases() const override {
    std::vector<CaseRequest> cases;
    // The size sweep on integers (exact): the block size and the two offsets cycle with
    // different periods (7 sizes; x every case, out every 4 cases), so that no two move together.
    const int sweep_threads[] = {32, 64, 96, 256, 1024, 160, 992};
    const std::int64_t sizes[] = {1,    2,    3,    4,     5,     7,     31,    32,           33,
                                  63,   64,   65,   255,   256,   257,   1000,  1023,         1024,
                                  1025, 4097, 65535, 65536, 65537, 100000, (1 << 20) - 1, (1 << 20) + 3,
                                  3 * (1 << 20) + 1};
    int i = 0;
    for (std::int64_t n : sizes) {
      cases.push_back(sum_case(n, sweep_threads[i % 7], static_cast<std::uint32_t>(i % 4),
                               static_cast<std::uint32_t>(i / 4 % 4), kIntegers));
      ++i;
    }
    // Every block size, on a size that leaves a ragged last block for each, reals and integers.
    for (int b = 0; b < kBlockSizes; ++b) {
      cases.push_back(sum_case(100003, block_size(b), static_cast<std::uint32_t>(b / 2 % 4),
                               static_cast<std::uint32_t>(b / 8), b % 2 == 0 ? kIntegers : kPositive));
    }
    // Real-valued data: a large sum (positive) and one that cancels (signed).
    const std::int64_t real_sizes[] = {5, 1000, 65537, (1 << 20) + 3, 3 * (1 << 20) + 1};
    i = 0;
    for (std::int64_t n : real_sizes) {
      for (std::int64_t data : {kPositive, kSigned}) {
        cases.push_back(sum_case(n, sweep_threads[(i + 3) % 7], static_cast<std::uint32_t>((3 * i + i / 2) % 4),
                                 static_cast<std::uint32_t>(i % 3), data));
        ++i;
      }
    }
    return cases;
  }

  std::vector<CaseRequest> hidden_cases(std::uint64_t seed, const std::vector<std::int64_t>& extra) const override {
    std::vector<CaseRequest> cases;
    SeededDraw rng(seed);
    const auto draw = [&rng](std::uint64_t count) { return rng.below(count); };
    // n from four ranges (a few elements, a few blocks, about one wave, many waves); each block
    // size once (in an order drawn from the seed), then eight more drawn freely; the offsets and
    // the data drawn for each case on their own.
    const std::int64_t ranges[][2] = {{1, 64}, {65, 8192}, {8193, 1 << 18}, {1 << 18, 6 << 20}};
    int order[kBlockSizes];
    for (int b = 0; b < kBlockSizes; ++b) order[b] = b;
    for (int b = kBlockSizes - 1; b > 0; --b) std::swap(order[b], order[draw(static_cast<std::uint64_t>(b) + 1)]);
    for (int i = 0; i < kBlockSizes + 8; ++i) {
      const auto& r = ranges[draw(4)];
      const std::int64_t n = r[0] + static_cast<std::int64_t>(draw(static_cast<std::uint64_t>(r[1] - r[0] + 1)));
      const int threads = i < kBlockSizes ? block_size(order[i]) : block_size(static_cast<int>(draw(kBlockSizes)));
      const auto x_offset = static_cast<std::uint32_t>(draw(4));
      const auto out_offset = static_cast<std::uint32_t>(draw(4));
      cases.push_back(sum_case(n, threads, x_offset, out_offset, static_cast<std::int64_t>(draw(3))));
    }
    for (std::int64_t n : extra) {
      if (n < 1 || n > (std::int64_t{1} << 26)) continue;
      const int threads = block_size(static_cast<int>(draw(kBlockSizes)));
      cases.push_back(sum_case(n, threads, static_cast<std::uint32_t>(draw(4)), 0, kIntegers));
    }
    return cases;
  }

  // 2^25 floats (128 MiB, several times any L2), the solution's 256 threads, integers: every
  // timed repetition's result must be exact. The reference is one pass over x.
  CaseRequest speed_case() const override { return sum_case(std::int64_t{1} << 25, 256, 0, 0, kIntegers); }

  std::vector<std::vector<unsigned char>> make_inputs(const CaseRequest& c, std::uint64_t seed) const override {
    const std::int64_t n = int_param(c, "n");
    const auto count = static_cast<std::size_t>(n);
    const std::int64_t data = int_param(c, "data");
    if (data == kPositive) return {random_f32_bytes(count, seed, 0.0f, 1.0f)};
    if (data == kSigned) return {random_f32_bytes(count, seed, -1.0f, 1.0f)};
    std::vector<unsigned char> bytes(count * sizeof(float));
    float* x = reinterpret_cast<float*>(bytes.data());
    const int k = reduce::exact_integer_range(reduce::Operation::sum, n);
    tut::parallel_for(count, [&](std::size_t, std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) x[i] = reduce::integer_value(seed, i, k);
    });
    return {std::move(bytes)};
  }

  std::unique_ptr<Expected> expect(const CaseRequest& c, const RunView& view) const override {
    const std::int64_t n = int_param(c, "n");
    auto e = std::make_unique<SumExpected>();
    e->ref = reduce::reference(reduce::Operation::sum, view.input("x"), nullptr, static_cast<std::size_t>(n));
    if (int_param(c, "data") == kIntegers && exact_in_any_order(e->ref)) {
      e->tol = {0.0, 0.0, 0.0,
                "integer inputs whose partial sums, in any order, stay below 2^24: every float addition is exact, "
                "so the result must equal the sum exactly"};
    } else {
      e->tol = reduce::tolerance(reduce::Operation::sum, n, reduce::Order::any);
    }
    return e;
  }

  Finding compare(const CaseRequest&, const Expected& expected, const RunView& view) const override {
    const auto& e = static_cast<const SumExpected&>(expected);
    const float got = view.output("out")[0];
    tut::ErrorStats stats;
    stats.add(0, got, e.ref.value, e.ref.magnitude, e.tol);  // the error relative to sum|x_i|, not to |sum|
    Finding f;
    f.passed = stats.passed(e.tol);
    std::ostringstream s;
    s.precision(9);
    s << "got " << got << ", expected " << e.ref.value << " (sum|x_i| = " << e.ref.magnitude
      << ", allowed error " << e.tol.rtol * e.ref.magnitude << ")";
    if (!f.passed) f.summary = s.str();
    f.details = stats.describe(e.tol, [](std::size_t) { return std::string("*out"); });
    return f;
  }

  double bytes(const CaseRequest& c) const override { return 4.0 * static_cast<double>(int_param(c, "n")) + 4.0; }
  double flops(const CaseRequest&) const override { return 0.0; }
};

}  // namespace

int main(int argc, char** argv) { return tut::exercise::checker_main(argc, argv, ReduceExercise{}); }
