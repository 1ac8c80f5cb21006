// The checker of chapter 04's exercise (common/exercise/checker.hpp): build/bin/check_gemv.
// Cases: y = A x for a row-major M x K matrix, M and K varied independently: tiny shapes (M = 1,
// K = 2, ...), every K % 4 (rows that start anywhere in a 16-byte line), 31/32/33, short and
// long rows, and A, x and y each misaligned by 0..3 floats (the exercise takes any alignment).
// Rows 0, 3, 6, ... of every case cancel: their last element is chosen so that the row sums to
// about zero, where a tolerance relative to |y_i| would fail honest rounding (issue 23). Every
// output is checked against 4 sqrt(K) 2^-24 sum_k |A_ik x_k| (gemv::tolerance()).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/compare.hpp"
#include "common/exercise/checker.hpp"
#include "common/random.hpp"
#include "gemv.hpp"

namespace {

using namespace tut::exercise;

/// Elements of A at most in a hidden case (8 MiB per input set: 24 cases stay within ~100 MB of data).
constexpr std::int64_t kMaxHiddenElements = std::int64_t{1} << 21;

CaseRequest gemv_case(std::int64_t M, std::int64_t K, std::uint32_t off_a = 0, std::uint32_t off_x = 0,
                      std::uint32_t off_y = 0) {
  CaseRequest c;
  c.name = "m=" + std::to_string(M) + " k=" + std::to_string(K) + " offsets A=" + std::to_string(off_a) +
           " x=" + std::to_string(off_x) + " y=" + std::to_string(off_y);
  c.ints = {{"m", M}, {"k", K}};
  c.arrays = {f32_array("A", Role::in, static_cast<std::uint64_t>(M * K), off_a),
              f32_array("x", Role::in, static_cast<std::uint64_t>(K), off_x),
              f32_array("y", Role::out, static_cast<std::uint64_t>(M), off_y)};
  return c;
}

struct GemvExpected final : Expected {
  gemv::Reference ref;
};

class GemvExercise final : public Exercise {
 public:
  std::string chapter() const override { return "gemv"; }
  std::string file() const override { return "exercises/04_gemv/gemv_warp_float4.cu"; }
  std::string hint() const override {
    return "look at the TODO(student) markers of exercises/04_gemv/gemv_warp_float4.cu: 1/3 the scalar head and "
           "tail (K % 4 != 0 and misaligned A need them), 2/3 the float4 body (x by scalars where x_vec is false), "
           "3/3 the warp sum and the store";
  }

  std::vector<CaseRequest> public_cases() const override {
    std::vector<CaseRequest> cases;
    // Aligned: tiny and cancelling shapes first, then M and K apart, around 32 and the float4
    // width, short rows, long rows.
    for (const auto& [M, K] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {1, 1},     {1, 2},      {1, 3},      {1, 4},     {1, 5},      {2, 1},     {3, 1},     {2, 2},
             {2, 3},     {3, 2},      {3, 3},      {5, 5},     {7, 3},      {3, 7},     {1, 33},    {33, 1},
             {17, 33},   {31, 31},    {32, 32},    {33, 33},   {31, 32},    {32, 31},   {2, 128},   {127, 129},
             {129, 128}, {777, 6},    {777, 65},   {1000, 7},  {7, 1000},   {5, 4097},  {4097, 5},  {513, 1025},
             {1024, 1024}, {9, 8191}, {1, 65537},  {65537, 1}, {33, 100000}, {100000, 3}, {3, 100001}}) {
      cases.push_back(gemv_case(M, K));
    }
    // Misaligned starts: A alone (every row's head changes), x alone (x read by scalars), y
    // alone, and all three at once.
    for (const auto& [M, K] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {1, 2}, {5, 7}, {33, 33}, {64, 128}, {9, 4097}}) {
      cases.push_back(gemv_case(M, K, 1, 0, 0));
      cases.push_back(gemv_case(M, K, 0, 2, 0));
      cases.push_back(gemv_case(M, K, 0, 0, 3));
      cases.push_back(gemv_case(M, K, 3, 1, 2));
    }
    return cases;
  }

  std::vector<CaseRequest> hidden_cases(std::uint64_t seed, const std::vector<std::int64_t>& extra) const override {
    std::vector<CaseRequest> cases;
    // M and K each from one of four ranges (tiny, up to a block's worth, a wave, long), drawn on
    // their own; K % 4 takes every value in turn; each offset is drawn on its own.
    const std::int64_t ranges[][2] = {{1, 8}, {9, 300}, {301, 5000}, {5001, 120000}};
    SeededDraw rng(seed);
    const auto draw = [&rng](std::int64_t lo, std::int64_t hi) { return rng.between(lo, hi); };
    for (int i = 0; i < 24; ++i) {
      const auto& rm = ranges[draw(0, 3)];
      const auto& rk = ranges[draw(0, 3)];
      const std::int64_t M = draw(rm[0], rm[1]);
      std::int64_t K = std::min(draw(rk[0], rk[1]), std::max<std::int64_t>(1, kMaxHiddenElements / M));
      if (K >= 4) K = K - K % 4 + i % 4;
      const auto off = [&draw] { return static_cast<std::uint32_t>(draw(0, 3)); };
      const std::uint32_t a = off(), x = off(), y = off();
      cases.push_back(gemv_case(M, K, a, x, y));
    }
    for (std::int64_t n : extra) {
      if (n < 1 || n > (std::int64_t{1} << 24)) continue;
      if (n <= 4096) cases.push_back(gemv_case(n, n));  // at most 2^24 elements
      cases.push_back(gemv_case(3, n, 1, 0, 0));
      cases.push_back(gemv_case(n, 3, 0, 1, 1));
    }
    return cases;
  }

  // 8192 rows (about one wave of warps on an H100) of 4096 floats: A is 128 MiB, more than L2;
  // the reference is 33.5 M products (tens of ms) and y is 32 KiB.
  CaseRequest speed_case() const override { return gemv_case(8192, 4096); }

  std::vector<std::vector<unsigned char>> make_inputs(const CaseRequest& c, std::uint64_t seed) const override {
    const std::int64_t M = int_param(c, "m"), K = int_param(c, "k");
    std::vector<unsigned char> a_bytes = random_f32_bytes(static_cast<std::uint64_t>(M * K), tut::derive_seed(seed, 0));
    std::vector<unsigned char> x_bytes = random_f32_bytes(static_cast<std::uint64_t>(K), tut::derive_seed(seed, 1));
    float* A = reinterpret_cast<float*>(a_bytes.data());
    float* x = reinterpret_cast<float*>(x_bytes.data());
    if (K >= 2) {
      // Rows 0, 3, 6, ... cancel: A[i][K-1] = -(sum_{k < K-1} A[i][k] x[k]) / x[K-1], rounded to
      // fp32, so y_i is of the order of 2^-24 sum_k |A_ik x_k|. x[K-1] in [0.5, 1) keeps that
      // last element moderate.
      x[K - 1] = 0.5f + 0.5f * std::fabs(x[K - 1]);
      const auto rows = static_cast<std::size_t>((M + 2) / 3);
      tut::parallel_for(rows, [&](std::size_t, std::size_t begin, std::size_t end) {
        for (std::size_t j = begin; j < end; ++j) {
          float* row = A + static_cast<std::int64_t>(3 * j) * K;
          double partial = 0.0;
          for (std::int64_t k = 0; k < K - 1; ++k) partial += static_cast<double>(row[k]) * x[k];
          row[K - 1] = static_cast<float>(-partial / x[K - 1]);
        }
      }, static_cast<std::size_t>(std::max<std::int64_t>(1, (1 << 16) / K)));
    }
    return {std::move(a_bytes), std::move(x_bytes)};
  }

  std::unique_ptr<Expected> expect(const CaseRequest& c, const RunView& view) const override {
    auto e = std::make_unique<GemvExpected>();
    e->ref = gemv::reference(gemv::Op::Ax, view.input("A"), view.input("x"), int_param(c, "m"), int_param(c, "k"));
    return e;
  }

  Finding compare(const CaseRequest&, const Expected& expected, const RunView& view) const override {
    const gemv::Reference& ref = static_cast<const GemvExpected&>(expected).ref;
    const tut::Tolerance tol = gemv::tolerance(ref.length);
    const tut::ErrorStats stats = gemv::check(view.output("y"), ref);
    return finding_of(stats, tol, "outputs", [](std::size_t i) { return "y[" + std::to_string(i) + "]"; });
  }

  // A, x and y once each.
  double bytes(const CaseRequest& c) const override {
    return gemv::bytes_moved(int_param(c, "m"), int_param(c, "k"));
  }
  double flops(const CaseRequest&) const override { return 0.0; }  // memory-bound: judged in GB/s
};

}  // namespace

int main(int argc, char** argv) { return tut::exercise::checker_main(argc, argv, GemvExercise{}); }
