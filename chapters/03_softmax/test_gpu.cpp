// GPU tests of chapter 03: every registered version against the CPU reference over a sweep of
// shapes (every C it accepts; a clean refusal of every C it does not), on awkward rows (-inf,
// all -inf, 1e30), at misaligned starts, for empty matrices, and beyond 2^31 elements ([large]).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/device_buffer.hpp"
#include "test_support.hpp"
#include "tune/tune.hpp"

using namespace softmax;
using softmax::testing::Offsets;
using softmax::testing::require_correct;
using softmax::testing::require_refusal;

namespace {

/// The columns of the sweep: 1, small primes, around every power of two up to 2^15 (warp and
/// block tiles, float4 tails), the limits of v4 (1024) and v5 (shared memory), a few rows
/// longer than any GPU's shared memory (v6's online fallback), v7's cluster sizes and tiles,
/// plus $TUTORIAL_EXTRA_SIZES.
std::vector<std::int64_t> sweep_columns() {
  std::vector<std::int64_t> cols = {1,    2,    3,    4,    5,    7,    8,     13,    16,    17,    31,    32,
                                    33,   63,   64,   65,   100,  127,  128,   129,   255,   256,   257,   511,
                                    512,  513,  1000, 1020, 1023, 1024, 1025,  1028,  2047,  2048,  2049,  3000,
                                    4096, 4097, 8191, 8192, 8196, 12345, 16384, 32768, 32771, 60000, 65536, 100003,
                                    // v7's clusters: 1..8 blocks of each tile, and just past its last one
                                    2052, 12344, 32772, 100000, 131072, 131076};
  for (std::int64_t n : tut::testing::extra_sizes()) cols.push_back(n);
  return cols;
}

/// The row counts tried at `cols`: one row, a few, and many for short rows (several rows per
/// warp and per block, partial last block). Under the sanitizer, at most ~70,000 elements.
std::vector<std::int64_t> sweep_rows(std::int64_t cols) {
  std::vector<std::int64_t> rows = {1, 3};
  if (cols <= 8192) rows.push_back(37);
  if (cols <= 300) rows.push_back(1001);
  if (cols <= 4) rows.push_back(20003);
  std::vector<std::int64_t> kept;
  for (std::int64_t r : rows) {
    if (!tut::testing::sanitizing() || r * cols <= 70000 || r == 1) kept.push_back(r);
  }
  return kept;
}

}  // namespace

TEST_CASE("every version matches the CPU reference on every shape it accepts, and refuses the rest",
          "[softmax][sweep]") {
  for (const auto& v : versions()) {
    if (v.copy_roof) continue;  // not a softmax: see the copy-roof test
    DYNAMIC_SECTION(v.info.name) {
      for (std::int64_t cols : sweep_columns()) {
        if (tut::testing::sanitizing() && cols > 70000) continue;
        for (std::int64_t rows : sweep_rows(cols)) {
          const std::string why = v.unsupported(rows, cols);
          if (!why.empty()) {
            INFO(v.info.name << " refuses " << rows << " x " << cols << ": " << why);
            require_refusal(v.launch, rows, cols);
            continue;
          }
          require_correct(v.launch, rows, cols, testing::random_matrix(rows, cols, tut::testing::seed() + 31 * cols + rows),
                          {}, v.order);
        }
      }
    }
  }
}

TEST_CASE("long rows: each version within the bound of its own summation order", "[softmax][order]") {
  // A row of 2^20 terms: v0 adds them in one chain, where the running sum rounds the small terms
  // away (a drift that grows like C); held to a tree's bound, that honest result was a "failure".
  if (tut::testing::sanitizing()) return;  // 2 x 2^20 elements: too big for the sanitizer runs
  const std::int64_t rows = 2, cols = std::int64_t{1} << 20;
  const std::vector<float> hx = testing::random_matrix(rows, cols, tut::testing::seed() + 99);
  for (const auto& v : versions()) {
    if (v.copy_roof) continue;
    DYNAMIC_SECTION(v.info.name) {
      if (!v.unsupported(rows, cols).empty()) {
        require_refusal(v.launch, rows, cols);
      } else {
        require_correct(v.launch, rows, cols, hx, {}, v.order);
      }
    }
  }
}

TEST_CASE("every version is stable: -inf entries, all -inf rows, magnitudes of 1e30", "[softmax][edge]") {
  for (const auto& v : versions()) {
    if (v.copy_roof) continue;
    DYNAMIC_SECTION(v.info.name) {
      for (std::int64_t cols : {1, 2, 3, 4, 5, 7, 32, 33, 128, 130, 1000, 1024, 1028, 4096, 5000, 32768, 65536}) {
        if (!v.unsupported(testing::kEdgeRows, cols).empty()) continue;
        if (tut::testing::sanitizing() && cols > 5000) continue;  // keep sanitizer runs short
        INFO(v.info.name << ", C = " << cols);
        require_correct(v.launch, testing::kEdgeRows, cols,
                        testing::edge_matrix(cols, tut::testing::seed() + cols, v.defines_all_neg_inf_rows), {},
                        v.order);
      }
    }
  }
}

TEST_CASE("every v7 tuning candidate matches the reference (its tile, or v6 where the tile cannot run)",
          "[softmax][v7][slow]") {
  // One block per row, clusters of several blocks, a tile too small for the row (more than 8
  // blocks: v6), and C % 4 != 0 (v6).
  const std::vector<tut::testing::Shape2> shapes = tut::testing::sanitizer_sized(
      {{3, 1028}, {5, 4096}, {3, 8192}, {2, 12344}, {2, 32768}, {2, 65536}, {3, 4099}});
  for (const auto& cand : v7_candidates()) {
    DYNAMIC_SECTION("tile " << cand.tile.threads << " x " << cand.tile.vec) {
      for (const auto& [rows, cols] : shapes) {
        INFO(rows << " x " << cols);
        if (!v7_unsupported(rows, cols).empty()) {
          require_refusal(cand.launch, rows, cols);
          continue;
        }
        require_correct(cand.launch, rows, cols, testing::random_matrix(rows, cols, tut::testing::seed() + cols));
      }
      if (v7_unsupported(testing::kEdgeRows, 8192).empty()) {
        require_correct(cand.launch, testing::kEdgeRows, 8192, testing::edge_matrix(8192, tut::testing::seed() + 7));
      }
    }
  }
}

TEST_CASE("every version is correct at misaligned starts", "[softmax][misaligned]") {
  // Equal offsets: rows are misaligned alike; unequal: x and y differ. Either way float4
  // access is impossible and v6 must fall back to its scalar kernels.
  // The library row is left out: misaligned views are our kernels' concern (v6's fallback).
  const std::vector<Offsets> offsets = {{1, 1}, {2, 2}, {3, 3}, {1, 0}, {0, 2}};
  for (const auto& v : versions()) {
    if (v.info.kind == tut::Kind::library) continue;
    DYNAMIC_SECTION(v.info.name) {
      for (std::int64_t cols : {4, 8, 128, 1024, 1028, 4096, 8192}) {
        for (const Offsets& off : offsets) {
          if (!v.unsupported(5, cols).empty()) continue;
          require_correct(v.launch, 5, cols, testing::random_matrix(5, cols, tut::testing::seed() + cols), off, v.order);
        }
      }
    }
  }
}

TEST_CASE("every version: empty matrices do nothing, negative sizes are refused", "[softmax][bad-input]") {
  tut::testing::GuardedBuffer x(16), y(16);
  for (const auto& v : versions()) {
    INFO(v.info.name);
    y.poison();
    v.launch(x.data(), y.data(), 0, 16, nullptr);
    v.launch(x.data(), y.data(), 16, 0, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::size_t written = 0;
    for (float f : y.to_host()) written += std::isnan(f) ? 0 : 1;
    REQUIRE(written == 0);
    REQUIRE(y.check_guards() == "");
    REQUIRE_THROWS_AS(v.launch(x.data(), y.data(), -1, 16, nullptr), std::invalid_argument);
    REQUIRE_THROWS_AS(v.launch(x.data(), y.data(), 16, -1, nullptr), std::invalid_argument);
  }
}

TEST_CASE("the copy roof copies x to y exactly", "[softmax][roof]") {
  for (const auto& v : versions()) {
    if (!v.copy_roof) continue;
    for (std::int64_t cols : {1, 3, 128, 4097}) {
      const std::int64_t rows = 37;
      const std::size_t n = static_cast<std::size_t>(rows * cols);
      const std::vector<float> hx = testing::random_matrix(rows, cols, tut::testing::seed() + cols);
      tut::testing::GuardedBuffer x(n, 1), y(n, 2);
      x.upload(hx);
      y.poison();
      v.launch(x.data(), y.data(), rows, cols, nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      INFO(v.info.name << ", " << rows << " x " << cols);
      REQUIRE(tut::testing::compare_bits(y.to_host(), hx) == "");
      REQUIRE(y.check_guards() == "");
    }
  }
}

TEST_CASE("R x C above 2^31: no 32-bit index overflow", "[softmax][large]") {
  struct Shape {
    std::int64_t rows, cols;
  };
  // Many short rows (block and warp indices beyond 2^31 / C) and few long ones.
  const std::vector<Shape> shapes = {{(std::int64_t{1} << 21) + 5, 1024}, {65539, 32768}};
  const double needed = 2.0 * 4.0 * static_cast<double>((std::int64_t{1} << 31) + 200000) + (1ull << 30);
  if (tut::testing::sanitizing() || static_cast<double>(tut::testing::free_device_bytes()) < needed) {
    tut::testing::skip_run("the [large] case needs 2 x 8.6 GB of free GPU memory (and no sanitizer)");
    return;
  }
  const std::uint64_t seed = tut::derive_seed(tut::testing::seed(), 20);
  for (const Shape& s : shapes) {
    const std::size_t n = static_cast<std::size_t>(s.rows * s.cols);
    tut::DeviceBuffer<float> x(n), y(n);
    tut::fill_random_device(x.data(), n, seed, -testing::kInputRange, testing::kInputRange);
    // Checked: every row from element 2^31 - 2^24 on (where 32-bit offsets overflow) and one
    // row in every 997 before it; whole rows, so the reference can be recomputed from the hash.
    const std::size_t C = static_cast<std::size_t>(s.cols);
    const std::size_t dense_from = ((std::size_t{1} << 31) - (std::size_t{1} << 24)) / C * C;
    for (const auto& v : versions()) {
      if (v.copy_roof) continue;
      const tut::Tolerance tol = tolerance(s.cols, v.order);
      DYNAMIC_SECTION(v.info.name << " " << s.rows << "x" << s.cols) {
        const std::string why = v.unsupported(s.rows, s.cols);
        if (!why.empty()) {
          INFO(v.info.name << " refuses: " << why);
          REQUIRE_THROWS_AS(v.launch(x.data(), y.data(), s.rows, s.cols, nullptr), std::invalid_argument);
          continue;
        }
        y.poison();
        v.launch(x.data(), y.data(), s.rows, s.cols, nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        const auto got = tut::testing::sample_device_array(y.data(), n, dense_from, C, 997 * C);
        const std::size_t sampled_rows = got.index.size() / C;  // whole rows, in order
        // The reference of each sampled row, recomputed from the hash, on all the CPU's threads.
        const std::size_t workers = std::max(1u, std::thread::hardware_concurrency());
        std::vector<tut::ErrorStats> parts(workers);
        std::vector<std::thread> threads;
        for (std::size_t w = 0; w < workers; ++w) {
          threads.emplace_back([&, w] {
            std::vector<float> row(C);
            std::vector<double> ref(C);
            for (std::size_t k = w; k < sampled_rows; k += workers) {
              const std::size_t first = got.index[k * C];  // first element of the k-th sampled row
              for (std::size_t c = 0; c < C; ++c) {
                row[c] = tut::hash_uniform(seed, first + c, -testing::kInputRange, testing::kInputRange);
              }
              reference_row(row.data(), ref.data(), s.cols);
              for (std::size_t c = 0; c < C; ++c) parts[w].add(first + c, got.value[k * C + c], ref[c], tol);
            }
          });
        }
        for (auto& t : threads) t.join();
        tut::ErrorStats stats;
        for (const auto& p : parts) stats.merge(p);
        INFO(v.info.name << ", " << s.rows << " x " << s.cols);
        TUT_REQUIRE_MATCH(stats, tol);
      }
    }
  }
}
