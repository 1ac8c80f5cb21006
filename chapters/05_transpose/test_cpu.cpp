// CPU tests of chapter 05: the reference and the check, the tile orders (permutations), the
// bank-conflict claims of v02, v03, v05, v08, v09 and the tuning search (simulated bank by bank), the
// kernels' index arithmetic, and the registries (chapter and search).
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/random.hpp"
#include "common/testing.hpp"
#include "tiles.cuh"
#include "transpose.hpp"
#include "tune/tune.hpp"
#include "tune/wide_copy.cuh"
#include "wide_tile_phases.cuh"

using namespace transpose;

TEST_CASE("the reference transposes", "[transpose][reference]") {
  // A = [[1, 2, 3], [4, 5, 6]] (2 x 3) -> B = [[1, 4], [2, 5], [3, 6]] (3 x 2).
  REQUIRE(reference_transpose({1, 2, 3, 4, 5, 6}, 2, 3) == std::vector<float>{1, 4, 2, 5, 3, 6});
  REQUIRE(reference_transpose({7}, 1, 1) == std::vector<float>{7});
  REQUIRE(reference_transpose({1, 2, 3}, 1, 3) == std::vector<float>{1, 2, 3});  // a row becomes a column
}

TEST_CASE("source_index names the element of A each element of B holds", "[transpose][reference]") {
  // The index map of check() and of the GPU check (check_against_hash()): B = reference_transpose(A).
  for (const auto& [R, C] : std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 1}, {2, 3}, {3, 2}, {1, 7}, {33, 17}}) {
    std::vector<float> A(static_cast<std::size_t>(R * C));
    for (std::size_t e = 0; e < A.size(); ++e) A[e] = static_cast<float>(e);
    const std::vector<float> B = reference_transpose(A, R, C);
    for (std::size_t i = 0; i < B.size(); ++i) {
      REQUIRE(source_index(i, R, C, Output::transposed) == static_cast<std::uint64_t>(B[i]));
      REQUIRE(source_index(i, R, C, Output::copied) == i);
    }
  }
  // Beyond 2^32: no 32-bit wrap (46341 x 46341, the last element of B is the last of A).
  const std::uint64_t n = 46341;
  REQUIRE(source_index(n * n - 1, n, n, Output::transposed) == n * n - 1);
  REQUIRE(source_index(n * n - 2, n, n, Output::transposed) == (n - 2) * n + (n - 1));
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

TEST_CASE("v02's column read is a 32-way bank conflict; v03's padding removes it", "[transpose][banks]") {
  for (int y = 0; y < 32; ++y) {  // the warp with threadIdx.y = y reads tile[x][y], x = lane
    REQUIRE(conflict_degree(32, [y](int x) { return x * 32 + y; }) == 32);  // tile[32][32]
    REQUIRE(conflict_degree(32, [y](int x) { return x * 33 + y; }) == 1);   // tile[32][33]
    REQUIRE(conflict_degree(32, [y](int x) { return y * 33 + x; }) == 1);   // the row write stays clean
  }
}

TEST_CASE("v05's swizzled tile is conflict-free in both phases", "[transpose][banks]") {
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

TEST_CASE("v08's diagonal walk is conflict-free on both tiles and covers each element once", "[transpose][banks]") {
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
  REQUIRE(ladder == 11);
  REQUIRE(copies == 3);  // copy_tile, copy_shared, cudaMemcpy
  REQUIRE(libraries == 2);
  REQUIRE(names.count("cublasSgeam") == 1);
  REQUIRE(names.count("cudaMemcpy") == 1);
  REQUIRE(bytes_moved(8192, 1024) == 8.0 * 8192.0 * 1024.0);
}

// ---------------------------------------------------------------------------------------------
// v09 and the tuning search: tile order, the kernels' strength-reduced positions, bank conflicts
// of every tile shape and thread count searched, the TMA variants' diagonal walk, the registry.
// ---------------------------------------------------------------------------------------------

TEST_CASE("the banded tile order visits every tile once; band 1 is row-major, band 0 column-major",
          "[transpose][tiles]") {
  for (const unsigned tr : {1u, 2u, 3u, 7u, 8u, 9u, 33u, 65u}) {
    for (const unsigned tc : {1u, 2u, 5u, 32u, 129u}) {
      for (const unsigned band : {0u, 1u, 2u, 3u, 8u, 32u, 1000u}) {
        std::set<std::pair<std::int64_t, std::int64_t>> seen;
        for (unsigned id = 0; id < tr * tc; ++id) {
          const TileCoord t = tile_banded(id, tr, tc, band);
          INFO(tr << " x " << tc << " tiles, band " << band << ", id " << id);
          REQUIRE((t.row >= 0 && t.row < tr && t.col >= 0 && t.col < tc));
          seen.insert({t.row, t.col});
          if (band == kRowMajor) {
            REQUIRE(t.row == id / tc);
            REQUIRE(t.col == id % tc);
          }
          if (band == kColMajor) {
            REQUIRE(t.row == id % tr);
            REQUIRE(t.col == id / tr);
          }
        }
        REQUIRE(seen.size() == static_cast<std::size_t>(tr) * tc);
      }
    }
  }
  // Bands of 8 over 20 x 4 tiles: ids 0..7 go down column 0 of band 0, id 8 starts column 1;
  // the last band (rows 16..19) has 4 rows.
  REQUIRE(tile_banded(7, 20, 4, 8).row == 7);
  REQUIRE(tile_banded(8, 20, 4, 8).col == 1);
  REQUIRE(tile_banded(8, 20, 4, 8).row == 0);
  REQUIRE(tile_banded(64, 20, 4, 8).row == 16);
  REQUIRE(tile_banded(68, 20, 4, 8).col == 1);
}

namespace {

/// The tile shapes and thread counts the wide-tile kernels are instantiated with (and more).
struct WideShape {
  int rows, cols, threads;
};

std::vector<WideShape> wide_shapes() {
  std::vector<WideShape> list;
  for (int rows : {32, 64, 128, 256})
    for (int cols : {32, 64, 128, 256})
      for (int threads : {128, 256, 512, 1024})
        if (rows * cols % (4 * threads) == 0) list.push_back({rows, cols, threads});
  return list;
}

bool same(TilePos a, TilePos b) { return a.row == b.row && a.col == b.col; }

}  // namespace

TEST_CASE("the kernels' first-position-plus-step form equals the lane maps", "[transpose][tiles]") {
  for (const auto& s : wide_shapes()) {
    INFO(s.rows << " x " << s.cols << " tile, " << s.threads << " threads");
    const int loads4 = s.rows * s.cols / 4 / s.threads, loads1 = 4 * loads4;
    for (int t = 0; t < s.threads; ++t) {
      for (int i = 0; i < loads4; ++i) {
        const TilePos d = wide_step(i, s.threads, s.cols / 4, 4), e = wide_store_vec_step(i, s.threads, s.rows);
        const TilePos p0 = wide_load_vec(t, s.cols), p = wide_load_vec(t + i * s.threads, s.cols);
        REQUIRE(same(p, {p0.row + d.row, p0.col + d.col}));
        const TilePos w0 = wide_store_vec(t, s.rows), w = wide_store_vec(t + i * s.threads, s.rows);
        REQUIRE(same(w, {w0.row + e.row, w0.col + e.col}));
      }
      for (int i = 0; i < loads1; ++i) {
        const TilePos d = wide_step(i, s.threads, s.cols, 1), e = wide_step(i, s.threads, s.rows, 1);
        const TilePos p0 = wide_load_scalar(t, s.cols), p = wide_load_scalar(t + i * s.threads, s.cols);
        REQUIRE(same(p, {p0.row + d.row, p0.col + d.col}));
        const TilePos w0 = wide_store_scalar(t, s.rows), w = wide_store_scalar(t + i * s.threads, s.rows);
        REQUIRE(same(w, {w0.row + e.row, w0.col + e.col}));
      }
    }
  }
  // The copy's 1 x 1024 tile: 256 threads walk one row, 4 floats (one float4) apart.
  for (int i = 0; i < 4; ++i) REQUIRE(same(wide_step(i, 256, 1024, 1), {0, 256 * i}));
  REQUIRE(same(wide_step(1, 256, 256, 4), {1, 0}));
}

TEST_CASE("the wide tiles are conflict-free in both phases and every element moves once", "[transpose][banks]") {
  for (const auto& s : wide_shapes()) {
    INFO(s.rows << " x " << s.cols << " tile, " << s.threads << " threads");
    const int n4 = s.rows * s.cols / 4;  // float4s per tile
    // Load phase, float4 stores into the swizzled tile: per quarter-warp (8 lanes, one 128-bit
    // wavefront), 8 different 16-byte slots; and the float4s cover the tile once.
    std::set<int> chunks;
    for (int q0 = 0; q0 < n4; q0 += 8) {
      std::set<int> slots;
      for (int q = q0; q < q0 + 8; ++q) {
        const TilePos p = wide_load_vec(q, s.cols);
        const int at = swizzled_offset(p.row, p.col, s.cols);
        REQUIRE(at % 4 == 0);
        slots.insert((at / 4) % 8);
        chunks.insert(at / 4);
      }
      REQUIRE(slots.size() == 8u);
    }
    REQUIRE(static_cast<int>(chunks.size()) == n4);
    // Store phase, float4 stores to B: each of the 4 column reads of a warp hits 32 banks; the
    // float4s of B's tile are covered once.
    std::set<std::pair<int, int>> out;
    for (int w = 0; w < n4 / 32; ++w) {
      for (int j = 0; j < 4; ++j) {
        REQUIRE(conflict_degree(32, [&](int lane) {
                  const TilePos p = wide_store_vec(32 * w + lane, s.rows);
                  return swizzled_offset(p.col + j, p.row, s.cols);  // A tile (row p.col + j, col p.row)
                }) == 1);
      }
      for (int lane = 0; lane < 32; ++lane) {
        const TilePos p = wide_store_vec(32 * w + lane, s.rows);
        REQUIRE((p.row >= 0 && p.row < s.cols && p.col >= 0 && p.col < s.rows && p.col % 4 == 0));
        out.insert({p.row, p.col});
      }
    }
    REQUIRE(static_cast<int>(out.size()) == n4);
    // Scalar accesses (warp = 32 consecutive q): loads into the swizzled tile (scalar-load,
    // float4-store configurations) and into the padded tile, stores from the padded tile.
    for (int w = 0; w < s.rows * s.cols / 32; ++w) {
      REQUIRE(conflict_degree(32, [&](int lane) {
                const TilePos p = wide_load_scalar(32 * w + lane, s.cols);
                return swizzled_offset(p.row, p.col, s.cols);
              }) == 1);
      REQUIRE(conflict_degree(32, [&](int lane) {
                const TilePos p = wide_load_scalar(32 * w + lane, s.cols);
                return p.row * (s.cols + 1) + p.col;
              }) == 1);
      REQUIRE(conflict_degree(32, [&](int lane) {
                const TilePos p = wide_store_scalar(32 * w + lane, s.rows);
                return p.col * (s.cols + 1) + p.row;  // A tile (row p.col, col p.row), padded
              }) == 1);
    }
    // Why float4 loads require float4 stores: scalar column reads of the swizzled tile see only
    // 8 banks, a 4-way conflict.
    REQUIRE(conflict_degree(32, [&](int lane) {
              const TilePos p = wide_store_scalar(lane, s.rows);
              return swizzled_offset(p.col, p.row, s.cols);
            }) == 4);
  }
}

TEST_CASE("the TMA variants' diagonal walk is conflict-free on both boxes and covers each element once",
          "[transpose][banks]") {
  struct Box {
    int rows, cols;
  };
  for (const Box box : {Box{32, 32}, Box{64, 64}, Box{32, 128}, Box{128, 32}, Box{128, 64}}) {
    INFO(box.rows << " x " << box.cols << " box");
    const int blocks_c = box.cols / 32, warps = 4, steps = (box.rows / 32) * blocks_c * 32 / warps;
    std::set<std::pair<int, int>> seen;
    for (int warp = 0; warp < warps; ++warp) {
      for (int i = 0; i < steps; ++i) {  // as in transpose_tma_tiles
        const int u = warp + i * warps, blk = u / 32, d = u % 32;
        const auto r = [&](int lane) { return 32 * (blk / blocks_c) + lane; };
        const auto c = [&](int lane) { return 32 * (blk % blocks_c) + (lane + d) % 32; };
        REQUIRE(conflict_degree(32, [&](int lane) { return r(lane) * box.cols + c(lane); }) == 1);  // read A box
        REQUIRE(conflict_degree(32, [&](int lane) { return c(lane) * box.rows + r(lane); }) == 1);  // write B box
        for (int lane = 0; lane < 32; ++lane) seen.insert({r(lane), c(lane)});
      }
    }
    REQUIRE(static_cast<int>(seen.size()) == box.rows * box.cols);
  }
}


TEST_CASE("the tuning search's candidates: names, kinds, and v09 among them", "[transpose][registry]") {
  std::set<std::string> names;
  for (const auto& v : versions()) names.insert(v.info.name);
  const std::regex plain("(tr|cp)[0-9]+x[0-9]+_t[0-9]+_(f4|f1|f1f4)_(rm|cm|g[0-9]+)(_cs)?");
  const std::regex tma("tma[0-9]+x[0-9]+_s[0-9]+_(p|k[0-9]+)_(rm|cm|g[0-9]+)(_t[0-9]+)?(_l2p[0-9]+)?(_efl|_efls)?");
  int transposes = 0, copies = 0, tmas = 0;
  bool v9_searched = false;
  const std::string v9 = v9_summary();
  for (const auto& v : tune_candidates()) {
    INFO(v.info.name);
    REQUIRE(names.insert(v.info.name).second);  // unique, and distinct from the chapter's names
    REQUIRE(v.launch != nullptr);
    REQUIRE(v.info.kind == tut::Kind::ours);
    if (std::regex_match(v.info.name, plain)) {
      REQUIRE(v.output == (v.info.name[0] == 't' ? Output::transposed : Output::copied));
      (v.output == Output::transposed ? transposes : copies) += 1;
      REQUIRE(v.info.min_cc == 75);
      const std::string config = v.info.summary.substr(v.info.summary.find(": ") + 2);
      if (v.output == Output::transposed && v9 == "tuned tiles: " + config + " (transpose_tune)") v9_searched = true;
    } else {
      REQUIRE(std::regex_match(v.info.name, tma));
      REQUIRE(v.info.min_cc == 90);
      REQUIRE(v.unavailable != nullptr);
      ++tmas;
    }
  }
  REQUIRE(transposes == 25);
  REQUIRE(copies == 18);
  REQUIRE(tmas == 31);
  REQUIRE(tune_tma_candidates().size() == 31u);
  INFO("v09 runs V9Tiles; set it to one of the searched configurations: " << v9);
  REQUIRE(v9_searched);
  bool v10_searched = false;
  for (const auto& v : tune_tma_candidates()) {
    if (v10_summary() == "tuned " + v.info.summary + " (transpose_tune)") v10_searched = true;
  }
  INFO("v10 runs V10Tiles; set it to one of the searched TMA configurations: " << v10_summary());
  REQUIRE(v10_searched);
}

// ---------------------------------------------------------------------------------------------
// The wide-tile kernels' per-thread code (wide_tile_phases.cuh, tune/wide_copy.cuh) run on the CPU: every block of
// the grid, thread by thread, load phase then (the barrier) store phase, for every configuration
// of the search, with the launcher's scalar fallback, on edge shapes. A and B end right before
// an inaccessible page (a read or write past the end faults), B starts as NaN, the shared tile
// too (a read of a word the load phase did not write shows up as a NaN in B).
// ---------------------------------------------------------------------------------------------

namespace {

/// n floats of host memory ending right before an inaccessible page.
class FencedArray {
 public:
  explicit FencedArray(std::size_t n) : page_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))) {
    const std::size_t bytes = n * sizeof(float), pages = (bytes + page_ - 1) / page_;
    total_ = (pages + 1) * page_;
    base_ = mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base_ == MAP_FAILED) throw std::runtime_error("mmap failed");
    char* fence = static_cast<char*>(base_) + pages * page_;
    if (mprotect(fence, page_, PROT_NONE) != 0) throw std::runtime_error("mprotect failed");
    data_ = reinterpret_cast<float*>(fence - bytes);
    n_ = n;
  }
  ~FencedArray() { munmap(base_, total_); }
  FencedArray(const FencedArray&) = delete;
  FencedArray& operator=(const FencedArray&) = delete;
  float* data() { return data_; }
  std::vector<float> copy() const { return std::vector<float>(data_, data_ + n_); }

 private:
  std::size_t page_, total_ = 0, n_ = 0;
  void* base_ = nullptr;
  float* data_ = nullptr;
};

/// launch_transpose_wide_tiles<Cfg> and transpose_wide_tiles<Cfg>, on the CPU.
template <class Cfg>
void simulate_transpose(const float* A, float* B, std::int64_t R, std::int64_t C) {
  if constexpr (Cfg::kVector) {
    if (!vector_path(A, B, R, C)) return simulate_transpose<typename Cfg::Scalar>(A, B, R, C);
  }
  const auto tiles_r = static_cast<unsigned>((R + Cfg::kRows - 1) / Cfg::kRows);
  const auto tiles_c = static_cast<unsigned>((C + Cfg::kCols - 1) / Cfg::kCols);
  FencedArray smem(Cfg::kSmemBytes / sizeof(float));
  for (unsigned id = 0; id < tiles_r * tiles_c; ++id) {
    const TileCoord t = tile_banded(id, tiles_r, tiles_c, Cfg::kBand);
    const std::int64_t r0 = t.row * Cfg::kRows, c0 = t.col * Cfg::kCols;
    float* tile = smem.data();
    std::fill(tile, tile + Cfg::kSmemBytes / sizeof(float), std::numeric_limits<float>::quiet_NaN());
    const bool interior = r0 + Cfg::kRows <= R && c0 + Cfg::kCols <= C;
    for (int tid = 0; tid < Cfg::kThreads; ++tid) {
      if (interior) wide_load<Cfg, false>(A, tile, R, C, r0, c0, tid);
      else wide_load<Cfg, true>(A, tile, R, C, r0, c0, tid);
    }
    for (int tid = 0; tid < Cfg::kThreads; ++tid) {  // after __syncthreads()
      if (interior) wide_store<Cfg, false>(tile, B, R, C, r0, c0, tid);
      else wide_store<Cfg, true>(tile, B, R, C, r0, c0, tid);
    }
  }
}

/// launch_copy_wide_tiles<Cfg> and copy_wide_tiles<Cfg>, on the CPU.
template <class Cfg>
void simulate_copy(const float* A, float* B, std::int64_t R, std::int64_t C) {
  if constexpr (Cfg::kVector) {
    if (!vector_path(A, B, R, C)) return simulate_copy<typename Cfg::Scalar>(A, B, R, C);
  }
  const auto tiles_r = static_cast<unsigned>((R + Cfg::kRows - 1) / Cfg::kRows);
  const auto tiles_c = static_cast<unsigned>((C + Cfg::kCols - 1) / Cfg::kCols);
  for (unsigned id = 0; id < tiles_r * tiles_c; ++id) {
    const TileCoord t = tile_banded(id, tiles_r, tiles_c, Cfg::kBand);
    for (int tid = 0; tid < Cfg::kThreads; ++tid) wide_copy<Cfg>(A, B, R, C, t.row * Cfg::kRows, t.col * Cfg::kCols, tid);
  }
}

/// Runs one simulated configuration (a WideTile) on every shape: simulate_transpose, or simulate_copy.
template <class Tile, bool kTranspose>
void require_simulated() {
  using Cfg = WideTileConfig<Tile>;
  constexpr bool transposes = kTranspose;
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
      {1, 1},     {3, 5},     {4, 8},     {33, 17},   {64, 64},   {96, 100},  {100, 96}, {132, 260},
      {260, 132}, {256, 256}, {580, 196}, {36, 1028}, {1028, 36}, {129, 257}, {1, 4100}, {4100, 1}};
  for (const auto& [R, C] : shapes) {
    const std::size_t n = static_cast<std::size_t>(R * C);
    const std::vector<float> host = tut::random_floats(n, static_cast<std::uint64_t>(R * 7919 + C));
    FencedArray A(n), B(n);
    std::copy(host.begin(), host.end(), A.data());
    std::fill(B.data(), B.data() + n, std::numeric_limits<float>::quiet_NaN());
    if constexpr (kTranspose) simulate_transpose<Cfg>(A.data(), B.data(), R, C);
    else simulate_copy<Cfg>(A.data(), B.data(), R, C);
    const tut::ErrorStats stats = check(B.copy(), host, R, C, transposes ? Output::transposed : Output::copied);
    INFO(R << " x " << C << (vector_path(A.data(), B.data(), R, C) ? " (vector path)" : " (scalar twin)") << ": "
            << stats.describe(exact_tolerance()));
    REQUIRE(stats.passed(exact_tolerance()));
    REQUIRE(A.copy() == host);
  }
}

}  // namespace

TEST_CASE("the wide-tile transposes and copies, simulated block by block on the CPU, are exact",
          "[transpose][tiles][simulated]") {
  using namespace tune;
  SECTION("transposes") {
    require_simulated<T0, true>();
    require_simulated<T1, true>();
    require_simulated<T2, true>();
    require_simulated<T3, true>();
    require_simulated<T4, true>();
    require_simulated<T5, true>();
    require_simulated<T6, true>();
    require_simulated<T7, true>();
    require_simulated<T8, true>();
    require_simulated<T9, true>();
    require_simulated<T10, true>();
    require_simulated<T11, true>();
    require_simulated<T12, true>();
    require_simulated<T13, true>();
    require_simulated<T14, true>();
    require_simulated<T15, true>();
    require_simulated<T16, true>();
    require_simulated<T17, true>();
    require_simulated<T18, true>();
    require_simulated<T19, true>();
  }
  SECTION("copies") {
    require_simulated<Copy1D, false>();
    require_simulated<T0, false>();
    require_simulated<T1, false>();
    require_simulated<T2, false>();
    require_simulated<T3, false>();
    require_simulated<T4, false>();
    require_simulated<T5, false>();
    require_simulated<T6, false>();
    require_simulated<T7, false>();
    require_simulated<T8, false>();
    require_simulated<T9, false>();
    require_simulated<T10, false>();
  }
}
