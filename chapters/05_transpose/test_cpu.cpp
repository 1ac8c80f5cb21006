// CPU tests of chapter 05: the reference and the check, the tile orders (permutations), the
// bank-conflict claims of v2, v3, v5 and v7 (simulated bank by bank), and the registry.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "common/random.hpp"
#include "common/testing.hpp"
#include "tiles.cuh"
#include "transpose.hpp"

using namespace transpose;

TEST_CASE("the reference transposes", "[transpose][reference]") {
  // A = [[1, 2, 3], [4, 5, 6]] (2 x 3) -> B = [[1, 4], [2, 5], [3, 6]] (3 x 2).
  REQUIRE(reference_transpose({1, 2, 3, 4, 5, 6}, 2, 3) == std::vector<float>{1, 4, 2, 5, 3, 6});
  REQUIRE(reference_transpose({7}, 1, 1) == std::vector<float>{7});
  REQUIRE(reference_transpose({1, 2, 3}, 1, 3) == std::vector<float>{1, 2, 3});  // a row becomes a column
}

TEST_CASE("the check is exact and bites", "[transpose][reference]") {
  const std::int64_t R = 37, C = 53;
  const std::vector<float> A = tut::random_floats(R * C, 1);
  const std::vector<float> B = reference_transpose(A, R, C);
  REQUIRE(check(B, A, R, C, Output::transposed).passed(exact_tolerance()));
  REQUIRE(check(A, A, R, C, Output::copied).passed(exact_tolerance()));
  REQUIRE_FALSE(check(A, A, R, C, Output::transposed).passed(exact_tolerance()));  // a copy is not a transpose
  std::vector<float> bad = B;
  std::swap(bad[5], bad[6]);
  REQUIRE_FALSE(check(bad, A, R, C, Output::transposed).passed(exact_tolerance()));
  bad = B;
  bad[100] = std::nextafter(bad[100], 2.0f);  // one ulp
  REQUIRE_FALSE(check(bad, A, R, C, Output::transposed).passed(exact_tolerance()));
  bad = B;
  bad.back() = std::numeric_limits<float>::quiet_NaN();
  REQUIRE_FALSE(check(bad, A, R, C, Output::transposed).passed(exact_tolerance()));
}

TEST_CASE("row-major and diagonal tile orders visit every tile once", "[transpose][tiles]") {
  for (const std::int64_t tr : {1, 2, 3, 7, 32, 65}) {
    for (const std::int64_t tc : {1, 2, 5, 32, 129}) {
      std::set<std::pair<std::int64_t, std::int64_t>> row_major, diagonal;
      for (std::int64_t id = 0; id < tr * tc; ++id) {
        const TileCoord a = tile_row_major(id, tc), b = tile_diagonal(id, tr, tc);
        REQUIRE((a.row >= 0 && a.row < tr && a.col >= 0 && a.col < tc));
        REQUIRE((b.row >= 0 && b.row < tr && b.col >= 0 && b.col < tc));
        row_major.insert({a.row, a.col});
        diagonal.insert({b.row, b.col});
      }
      INFO(tr << " x " << tc << " tiles");
      REQUIRE(static_cast<std::int64_t>(row_major.size()) == tr * tc);
      REQUIRE(static_cast<std::int64_t>(diagonal.size()) == tr * tc);
    }
  }
  // Consecutive blocks of the diagonal order take a diagonal: rows 0, 1, 2 with columns 0, 1, 2.
  REQUIRE(tile_diagonal(1, 8, 8).row == 1);
  REQUIRE(tile_diagonal(1, 8, 8).col == 1);
  REQUIRE(tile_diagonal(8, 8, 8).col == 1);  // the next pass starts one column further
}

namespace {

/// The largest number of lanes of one access that hit the same bank at different addresses
/// (1 = conflict-free). `index` gives each lane's float index in shared memory.
template <class Index>
int conflict_degree(int lanes, const Index& index) {
  std::vector<std::set<int>> per_bank(32);
  for (int l = 0; l < lanes; ++l) {
    const int i = index(l);
    per_bank[static_cast<std::size_t>(bank_of(i))].insert(i);
  }
  std::size_t worst = 0;
  for (const auto& s : per_bank) worst = std::max(worst, s.size());
  return static_cast<int>(worst);
}

}  // namespace

TEST_CASE("v2's column read is a 32-way bank conflict; v3's padding removes it", "[transpose][banks]") {
  for (int y = 0; y < 32; ++y) {  // the warp with threadIdx.y = y reads tile[x][y], x = lane
    REQUIRE(conflict_degree(32, [y](int x) { return x * 32 + y; }) == 32);  // tile[32][32]
    REQUIRE(conflict_degree(32, [y](int x) { return x * 33 + y; }) == 1);   // tile[32][33]
    REQUIRE(conflict_degree(32, [y](int x) { return y * 33 + x; }) == 1);   // the row write stays clean
  }
}

TEST_CASE("v5's swizzled tile is conflict-free in both phases", "[transpose][banks]") {
  for (int warp = 0; warp < 8; ++warp) {
    // Phase 1: 128-bit stores, served 8 lanes at a time; thread t stores the float4 of
    // (row t / 8, chunk t % 8). Conflict-free if the 8 lanes use 8 different chunk slots.
    for (int quarter = 0; quarter < 4; ++quarter) {
      std::set<int> slots;
      for (int l = 8 * quarter; l < 8 * quarter + 8; ++l) {
        const int t = 32 * warp + l;
        slots.insert(swizzle_chunk(t / 8, t % 8));
      }
      REQUIRE(slots.size() == 8);
    }
    // Phase 2: thread t reads rows 4 (t % 8) + j of column t / 8, one j per instruction.
    for (int j = 0; j < 4; ++j) {
      const auto swizzled = [warp, j](int l) {
        const int t = 32 * warp + l;
        return swizzled_index(4 * (t % 8) + j, t / 8);
      };
      const auto plain = [warp, j](int l) {
        const int t = 32 * warp + l;
        return (4 * (t % 8) + j) * 32 + t / 8;
      };
      REQUIRE(conflict_degree(32, swizzled) == 1);
      REQUIRE(conflict_degree(32, plain) == 8);  // what the swizzle avoids
    }
  }
  // The swizzle permutes the chunks of every row (nothing overwritten, nothing lost).
  for (int row = 0; row < 32; ++row) {
    std::set<int> chunks;
    for (int c = 0; c < 8; ++c) chunks.insert(swizzle_chunk(row, c));
    REQUIRE(chunks.size() == 8);
  }
}

TEST_CASE("v8's diagonal walk is conflict-free on both tiles and covers each element once", "[transpose][banks]") {
  std::set<std::pair<int, int>> seen;
  for (int d = 0; d < 32; ++d) {  // one warp instruction per diagonal d; lane l: (r, c) = (l, (l + d) % 32)
    REQUIRE(conflict_degree(32, [d](int l) { return l * 32 + (l + d) % 32; }) == 1);  // read A's tile [r][c]
    REQUIRE(conflict_degree(32, [d](int l) { return ((l + d) % 32) * 32 + l; }) == 1);  // write B's tile [c][r]
    for (int l = 0; l < 32; ++l) seen.insert({l, (l + d) % 32});
  }
  REQUIRE(seen.size() == 32u * 32u);
}

TEST_CASE("vector_path needs multiples of 4 and aligned pointers", "[transpose][tiles]") {
  alignas(16) static float buf[8];
  REQUIRE(vector_path(buf, buf, 4, 8));
  REQUIRE_FALSE(vector_path(buf, buf, 4, 6));
  REQUIRE_FALSE(vector_path(buf, buf, 3, 8));
  REQUIRE_FALSE(vector_path(buf + 1, buf, 4, 8));
  REQUIRE_FALSE(vector_path(buf, buf + 2, 4, 8));
}

TEST_CASE("the registry: unique names, ladder in order, roofs and libraries", "[transpose][registry]") {
  std::set<std::string> names;
  int ladder = 0, copies = 0, libraries = 0;
  const std::regex ladder_name("v([0-9]+)_[a-z0-9_]+");
  for (const auto& v : versions()) {
    INFO(v.info.name);
    REQUIRE(names.insert(v.info.name).second);
    REQUIRE_FALSE(v.info.summary.empty());
    REQUIRE(v.launch != nullptr);
    std::smatch m;
    if (std::regex_match(v.info.name, m, ladder_name)) {
      REQUIRE(std::stoi(m[1]) == ladder++);
      REQUIRE(v.output == Output::transposed);
    }
    if (v.output == Output::copied) ++copies;
    if (v.info.kind == tut::Kind::library) ++libraries;
  }
  REQUIRE(ladder == 9);
  REQUIRE(copies == 3);  // copy_tile, copy_shared, cudaMemcpy
  REQUIRE(libraries == 2);
  REQUIRE(names.count("cublasSgeam") == 1);
  REQUIRE(names.count("cudaMemcpy") == 1);
  REQUIRE(bytes_moved(8192, 1024) == 8.0 * 8192.0 * 1024.0);
}
