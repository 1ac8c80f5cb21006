// CPU tests of chapter 03: the reference and its edge cases, the online (max, sum) algebra
// that the kernels and the attention chapter build on, the tolerance, the launch helpers, the
// shape limits and the registry.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/random.hpp"
#include "common/testing.hpp"
#include "online_softmax.cuh"
#include "softmax.hpp"
#include "tune/tune.hpp"

using namespace softmax;

namespace {

const float kInf = std::numeric_limits<float>::infinity();

std::vector<double> ref_row(const std::vector<float>& x) {
  std::vector<double> y(x.size());
  reference_row(x.data(), y.data(), static_cast<std::int64_t>(x.size()));
  return y;
}

}  // namespace

TEST_CASE("the reference computes softmax and defines the edge cases", "[softmax][reference]") {
  SECTION("plain values") {
    const auto y = ref_row({0.0f, static_cast<float>(std::log(2.0)), 0.0f});
    REQUIRE(y[0] == Approx(0.25));
    REQUIRE(y[1] == Approx(0.5));
    REQUIRE(y[2] == Approx(0.25));
  }
  SECTION("C = 1 gives 1") { REQUIRE(ref_row({-3.5f})[0] == 1.0); }
  SECTION("-inf entries give 0, the rest is normalized") {
    const auto y = ref_row({-kInf, 1.0f, -kInf, 1.0f});
    REQUIRE(y == std::vector<double>{0.0, 0.5, 0.0, 0.5});
  }
  SECTION("an all -inf row gives all zeros (the documented definition)") {
    REQUIRE(ref_row({-kInf, -kInf, -kInf}) == std::vector<double>{0.0, 0.0, 0.0});
  }
  SECTION("magnitudes of 1e30: no overflow, no NaN") {
    const auto uniform = ref_row({1e30f, 1e30f, 1e30f, 1e30f});
    for (double v : uniform) REQUIRE(v == 0.25);
    const auto one_hot = ref_row({1e30f, 0.5f, -1e30f, -2.0f});
    REQUIRE(one_hot == std::vector<double>{1.0, 0.0, 0.0, 0.0});
  }
  SECTION("softmax ignores a common shift") {
    std::vector<float> x = tut::random_floats(100, 3, -8.0f, 8.0f);
    for (float& v : x) v = std::floor(v * 16.0f) / 16.0f;  // multiples of 1/16: the shift below is exact
    std::vector<float> shifted(x);
    for (float& v : shifted) v += 64.0f;
    const auto a = ref_row(x), b = ref_row(shifted);
    for (std::size_t i = 0; i < x.size(); ++i) REQUIRE(a[i] == Approx(b[i]).epsilon(1e-12));
  }
}

TEST_CASE("the multi-threaded reference equals the row-by-row one", "[softmax][reference]") {
  const std::int64_t rows = 300, cols = 1001;  // 300k elements: several threads
  const std::vector<float> x = tut::random_floats(static_cast<std::size_t>(rows * cols), 9, -8.0f, 8.0f);
  std::vector<double> all(x.size()), one(static_cast<std::size_t>(cols));
  reference_softmax(x.data(), all.data(), rows, cols);
  for (std::int64_t r = 0; r < rows; r += 37) {
    reference_row(x.data() + r * cols, one.data(), cols);
    for (std::int64_t c = 0; c < cols; ++c) REQUIRE(all[static_cast<std::size_t>(r * cols + c)] == one[c]);
  }
}

TEST_CASE("the online state: add() and merge() give the row's max and sum", "[softmax][online]") {
  const std::vector<float> x = tut::random_floats(1000, 11, -8.0f, 8.0f);
  double m = -1e300;
  for (float v : x) m = std::max(m, static_cast<double>(v));
  double d = 0.0;
  for (float v : x) d += std::exp(v - m);

  MaxSum sequential = max_sum_identity();
  for (float v : x) sequential = add(sequential, v);
  REQUIRE(sequential.max == static_cast<float>(m));
  REQUIRE(sequential.sum == Approx(d).epsilon(1e-5));

  // Any split into two parts, merged, gives the same state (the max exactly).
  for (std::size_t split : {std::size_t{0}, std::size_t{1}, std::size_t{500}, std::size_t{999}, std::size_t{1000}}) {
    MaxSum a = max_sum_identity(), b = max_sum_identity();
    for (std::size_t i = 0; i < split; ++i) a = add(a, x[i]);
    for (std::size_t i = split; i < x.size(); ++i) b = add(b, x[i]);
    const MaxSum ab = merge(a, b), ba = merge(b, a);
    INFO("split at " << split);
    REQUIRE(ab.max == sequential.max);
    REQUIRE(ab.sum == Approx(d).epsilon(1e-5));
    REQUIRE(ba.sum == Approx(ab.sum).epsilon(1e-6));
  }
  // A tree of 8-element chunks, as a warp or block would do it.
  std::vector<MaxSum> level;
  for (std::size_t i = 0; i < x.size(); i += 8) {
    MaxSum s = max_sum_identity();
    for (std::size_t j = i; j < std::min(x.size(), i + 8); ++j) s = add(s, x[j]);
    level.push_back(s);
  }
  while (level.size() > 1) {
    std::vector<MaxSum> next;
    for (std::size_t i = 0; i < level.size(); i += 2) {
      next.push_back(i + 1 < level.size() ? merge(level[i], level[i + 1]) : level[i]);
    }
    level = next;
  }
  REQUIRE(level[0].max == sequential.max);
  REQUIRE(level[0].sum == Approx(d).epsilon(1e-5));
}

TEST_CASE("the online state handles -inf without NaN", "[softmax][online]") {
  const MaxSum empty = max_sum_identity();
  REQUIRE(empty.max == -kInf);
  REQUIRE(empty.sum == 0.0f);
  REQUIRE(rescale(-kInf, -kInf) == 1.0f);  // the one undefined case, defined
  REQUIRE(rescale(-kInf, 2.0f) == 0.0f);
  REQUIRE(rescale(1.0f, 1.0f) == 1.0f);

  const MaxSum e2 = merge(empty, empty);
  REQUIRE(e2.max == -kInf);
  REQUIRE(e2.sum == 0.0f);
  const MaxSum a = add(empty, -kInf);  // a -inf entry contributes nothing
  REQUIRE(a.max == -kInf);
  REQUIRE(a.sum == 0.0f);
  const MaxSum b = add(add(a, 2.0f), -kInf);
  REQUIRE(b.max == 2.0f);
  REQUIRE(b.sum == 1.0f);
  const MaxSum c = merge(e2, b);
  REQUIRE(c.max == 2.0f);
  REQUIRE(c.sum == 1.0f);
  // A new maximum rescales the old sum: {0, 1} then 1 -> {1, e^-1 + 1}.
  const MaxSum d = add(add(empty, 0.0f), 1.0f);
  REQUIRE(d.max == 1.0f);
  REQUIRE(d.sum == Approx(std::exp(-1.0) + 1.0));
  // 1e30 entries: the sum counts the entries equal to the max.
  const MaxSum big = add(add(add(empty, 1e30f), 0.5f), 1e30f);
  REQUIRE(big.max == 1e30f);
  REQUIRE(big.sum == 2.0f);
}

TEST_CASE("the normalizer turns an all -inf row into zeros", "[softmax][online]") {
  const Normalizer none = normalizer(max_sum_identity());
  REQUIRE(none.shift == 0.0f);
  REQUIRE(none.scale == 0.0f);
  REQUIRE(std::exp(-kInf - none.shift) * none.scale == 0.0f);  // exp(-inf) * 0, not NaN
  const Normalizer two = normalizer({3.0f, 4.0f});
  REQUIRE(two.shift == 3.0f);
  REQUIRE(two.scale == 0.25f);
}

TEST_CASE("the tolerance grows with sqrt(C) and stays near 1e-5..1e-4", "[softmax][tolerance]") {
  const double u = 1.0 / 16777216.0;
  double previous = 0.0;
  for (std::int64_t cols : {1, 128, 1024, 4096, 32768, 1 << 20}) {
    const tut::Tolerance t = tolerance(cols);
    INFO("C = " << cols);
    REQUIRE(t.rtol == Approx((220.0 + 8.0 * std::sqrt(static_cast<double>(cols))) * u));
    REQUIRE(t.max_rel_norm == t.rtol);
    REQUIRE(t.rtol > previous);
    REQUIRE(t.atol < 1e-30);
    REQUIRE_FALSE(t.why.empty());
    previous = t.rtol;
  }
  REQUIRE(tolerance(32768).rtol < 1.1e-4);  // the largest listed shape
  REQUIRE(tolerance(128).rtol < 2e-5);
}

TEST_CASE("a serial chain (v0) is held to its worst case, which grows like C", "[softmax][tolerance]") {
  const double u = 1.0 / 16777216.0;
  for (std::int64_t cols : {1, 128, 4096, 100003, 1 << 20}) {
    const tut::Tolerance serial = tolerance(cols, Order::serial);
    const tut::Tolerance tree = tolerance(cols, Order::tree);
    const double c = static_cast<double>(cols);
    INFO("C = " << cols << ": serial " << serial.rtol << ", tree " << tree.rtol);
    REQUIRE(serial.rtol >= (212.0 + c) * u);             // (1 + u)^C - 1 >= C u
    REQUIRE(serial.rtol <= (212.0 + c * (1.0 + c * u)) * u);
    if (cols >= 128) REQUIRE(serial.rtol > tree.rtol);  // C > 8 + 8 sqrt(C)
    REQUIRE(serial.max_rel_norm == serial.rtol);
    REQUIRE(serial.why.find("serial") != std::string::npos);
  }
}

namespace {

/// The exercise's order, in float on the CPU: each of 32 lanes folds every 32nd column with
/// add(), a butterfly of merge() combines the lanes (or, with `lanes_merged` < 32, only the
/// first few: a wrong kernel), then each output is exp(x - shift) * scale.
std::vector<float> warp_online_row(const std::vector<float>& x, int lanes_merged = 32) {
  const auto cols = static_cast<std::int64_t>(x.size());
  MaxSum lane[32];
  for (int l = 0; l < 32; ++l) {
    lane[l] = max_sum_identity();
    for (std::int64_t c = l; c < cols; c += 32) lane[l] = add(lane[l], x[static_cast<std::size_t>(c)]);
  }
  for (int step = 16; step > 0; step /= 2) {
    MaxSum next[32];
    for (int l = 0; l < 32; ++l) {
      next[l] = l < lanes_merged && (l ^ step) < lanes_merged ? merge(lane[l], lane[l ^ step]) : lane[l];
    }
    std::copy(next, next + 32, lane);
  }
  std::vector<float> y(x.size());
  const Normalizer nz = normalizer(lane[0]);
  for (std::size_t c = 0; c < x.size(); ++c) y[c] = std::exp(x[c] - nz.shift) * nz.scale;
  return y;
}

/// Whether `y` passes tolerance(cols) against the reference of `x` (relative to each output).
bool within_tolerance(const std::vector<float>& x, const std::vector<float>& y) {
  const std::vector<double> ref = ref_row(x);
  const tut::Tolerance tol = tolerance(static_cast<std::int64_t>(x.size()));
  return tut::compare(y, ref, tol).passed(tol);
}

}  // namespace

TEST_CASE("the tolerance holds the exercise's order (lane chains, then a butterfly) and bites",
          "[softmax][tolerance]") {
  // Rows up to 2^22 + 1, the longest the exercise's checker uses: the lanes' chains of C / 32
  // terms drift (see tolerance()), yet stay well inside (220 + 8 sqrt(C)) u.
  for (std::int64_t cols : {1, 33, 4097, 100003, (1 << 22) + 1}) {
    const auto n = static_cast<std::size_t>(cols);
    const std::vector<float> x = tut::random_floats(n, 7 + n, -kInputRange, kInputRange);
    INFO("C = " << cols);
    REQUIRE(within_tolerance(x, warp_online_row(x)));
    if (cols >= 64) REQUIRE_FALSE(within_tolerance(x, warp_online_row(x, 16)));  // half the lanes' sums lost
    std::vector<float> y = warp_online_row(x);
    y[n / 2] = std::nanf("");  // one output not written (the poison)
    REQUIRE_FALSE(within_tolerance(x, y));
    y = warp_online_row(x);
    y[0] *= 1.01f;  // one output off by 1%, above the bound at every C checked
    REQUIRE_FALSE(within_tolerance(x, y));
  }
}

TEST_CASE("the awkward rows: one of each kind, in turn", "[softmax][inputs]") {
  const std::int64_t rows = 2 * kAwkwardKinds, cols = 7;
  const std::vector<float> m = awkward_matrix(rows, cols, 3);
  REQUIRE(m.size() == static_cast<std::size_t>(rows * cols));
  const auto row = [&](std::int64_t r) { return std::vector<float>(m.begin() + r * cols, m.begin() + (r + 1) * cols); };
  for (std::int64_t r : {std::int64_t{2}, kAwkwardKinds + 2}) {
    for (float v : row(r)) REQUIRE(v == -kInf);  // all -inf
  }
  for (std::int64_t r : {std::int64_t{5}, kAwkwardKinds + 5}) {
    for (float v : row(r)) REQUIRE(v == 1e30f);
  }
  const std::vector<float> one_hot = row(3);
  REQUIRE(std::count(one_hot.begin(), one_hot.end(), -kInf) == cols - 1);
  REQUIRE(one_hot[cols / 2] == 1.5f);
  const std::vector<float> masked = row(1);
  REQUIRE(masked[0] != -kInf);  // from the second entry on: C = 1 stays finite
  REQUIRE(masked[1] == -kInf);
  REQUIRE(masked[4] == -kInf);
  for (float v : row(0)) REQUIRE(std::fabs(v) < kInputRange);
  for (float v : row(8)) REQUIRE(std::fabs(v) < 10 * kInputRange);
  REQUIRE(row(0) != row(kAwkwardKinds));  // the same kind, different values
  // Without the all -inf row (cuDNN's tests), kind 2 is random.
  const std::vector<float> no_inf = awkward_matrix(rows, cols, 3, false);
  REQUIRE(std::none_of(no_inf.begin() + 2 * cols, no_inf.begin() + 3 * cols, [](float v) { return std::isinf(v); }));
}

TEST_CASE("launch helpers: shapes, grids, block sizes", "[softmax][helpers]") {
  REQUIRE(empty_or_invalid(0, 5));
  REQUIRE(empty_or_invalid(5, 0));
  REQUIRE_FALSE(empty_or_invalid(1, 1));
  REQUIRE_THROWS_AS(empty_or_invalid(-1, 5), std::invalid_argument);
  REQUIRE_THROWS_AS(empty_or_invalid(5, -1), std::invalid_argument);
  REQUIRE(row_blocks(1) == 1u);
  REQUIRE(row_blocks(65539) == 65539u);
  REQUIRE(row_blocks(std::int64_t{1} << 40) == 2147483647u);
  REQUIRE(block_threads_for(1, 8) == 128);
  REQUIRE(block_threads_for(1024, 8) == 128);
  REQUIRE(block_threads_for(2048, 8) == 256);
  REQUIRE(block_threads_for(8192, 8) == 1024);
  REQUIRE(block_threads_for(1 << 20, 8) == 1024);
  for (std::int64_t units : {1, 100, 1000, 5000, 100000}) {
    const int t = block_threads_for(units, 16);
    REQUIRE(t % 32 == 0);  // whole warps, as block_allreduce needs
  }
}

TEST_CASE("v4 accepts C <= 1024 and refuses the rest with a reason", "[softmax][limits]") {
  for (std::int64_t cols : {1, 33, 512, 1000, 1024}) REQUIRE(v4_unsupported(7, cols).empty());
  for (std::int64_t cols : {1025, 4096, 1 << 20}) {
    const std::string why = v4_unsupported(7, cols);
    REQUIRE_FALSE(why.empty());
    REQUIRE(why.find("1024") != std::string::npos);
  }
}

TEST_CASE("the cuDNN row says why it cannot run", "[softmax][cudnn]") {
  if (!cudnn_available()) {
    REQUIRE(cudnn_unsupported(4096, 4096).find("cuDNN not found") != std::string::npos);
  } else {
    // (Whether 4096 x 4096 runs depends on cuDNN starting, which needs a GPU.)
    REQUIRE(cudnn_unsupported(65539, 32768).find("2^31") != std::string::npos);  // > 2^31 - 1 elements
  }
}

TEST_CASE("the registry: unique names, vN_ ladder, cuDNN and the copy roof", "[softmax][registry]") {
  std::set<std::string> names;
  int ladder = 0, libraries = 0;
  const std::regex ladder_name("v([0-9]+)_[a-z0-9_]+");
  for (const auto& v : versions()) {
    INFO(v.info.name);
    REQUIRE(names.insert(v.info.name).second);
    REQUIRE_FALSE(v.info.summary.empty());
    REQUIRE(v.launch != nullptr);
    REQUIRE(v.unsupported != nullptr);
    std::smatch m;
    if (std::regex_match(v.info.name, m, ladder_name)) {
      REQUIRE(std::stoi(m[1]) == ladder);  // v0, v1, ... in order, no gaps
      REQUIRE(v.info.kind == tut::Kind::ours);
      REQUIRE(v.defines_all_neg_inf_rows);
      ++ladder;
    }
    if (v.info.kind == tut::Kind::library && !v.copy_roof) ++libraries;
    if (v.copy_roof) REQUIRE(v.info.kind == tut::Kind::library);
  }
  REQUIRE(ladder == 8);
  REQUIRE(libraries == 1);  // one softmax library (cuDNN) ...
  REQUIRE(names.count("cudnn") == 1);
  REQUIRE(names.count("cudaMemcpy") == 1);  // ... and the copy roof
}

TEST_CASE("v7's tiles: which C go to a cluster, and how many blocks", "[softmax][v7]") {
  // C <= 1024, C % 4 != 0, and C > 131072 run v6.
  for (std::int64_t cols : {1, 4, 128, 1024, 1030, 4097, 32771, 131076, 1 << 20}) {
    INFO("C = " << cols);
    REQUIRE(v7_tile_for(cols).threads == 0);
  }
  struct Case {
    std::int64_t cols;
    int threads, vec, cluster;
  };
  for (const Case& c : {Case{1028, 128, 8, 1}, Case{2048, 128, 8, 1}, Case{2052, 128, 8, 1}, Case{4096, 128, 8, 1},
                        Case{4100, 256, 8, 1}, Case{8192, 256, 8, 1}, Case{8196, 256, 8, 2},
                        Case{12288, 256, 8, 2}, Case{32768, 256, 8, 4}, Case{32772, 256, 8, 5},
                        Case{65536, 256, 8, 8}, Case{65540, 1024, 4, 5}, Case{131072, 1024, 4, 8}}) {
    INFO("C = " << c.cols);
    const V7Tile t = v7_tile_for(c.cols);
    REQUIRE(t.threads == c.threads);
    REQUIRE(t.vec == c.vec);
    REQUIRE(v7_cluster_size(t, c.cols) == c.cluster);
    // The cluster covers the row, and its last block holds at least one float4 of it.
    const std::int64_t slice = 4 * static_cast<std::int64_t>(t.threads) * t.vec;
    REQUIRE(c.cluster * slice >= c.cols);
    REQUIRE((c.cluster - 1) * slice < c.cols);
  }
  REQUIRE(v7_cluster_size({128, 2}, 1 << 20) == kV7MaxCluster + 1);  // too long: the candidate runs v6
  REQUIRE(v7_cluster_size({128, 2}, 8192) == 8);
}

TEST_CASE("v7's tuning candidates: distinct tiles of whole warps", "[softmax][v7]") {
  std::set<std::pair<int, int>> seen;
  for (const auto& c : v7_candidates()) {
    REQUIRE(c.launch != nullptr);
    REQUIRE(c.tile.threads % 32 == 0);
    REQUIRE(c.tile.threads <= 1024);
    REQUIRE(seen.insert({c.tile.threads, c.tile.vec}).second);
  }
  // The default tiles are among the candidates (so softmax_tune times them too).
  for (std::int64_t cols : {2048, 4096, 8192, 32768, 65536, 131072}) {
    const V7Tile t = v7_tile_for(cols);
    INFO("C = " << cols);
    REQUIRE(seen.count({t.threads, t.vec}) == 1);
  }
}
