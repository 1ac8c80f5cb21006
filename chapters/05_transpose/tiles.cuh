/// @file
/// @brief Tile bookkeeping shared by the transpose kernels: which tile a block owns, and the
/// swizzled shared-memory layout of v05/v06. Host and device functions, so the CPU tests can
/// check that the orders are permutations and the layouts are free of bank conflicts.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace transpose {

/// Side of a square tile (floats): one warp's width.
constexpr int kTile = 32;

/// ceil(n / d) for positive d: how many tiles of `d` cover `n`.
__host__ __device__ constexpr std::int64_t ceil_div(std::int64_t n, std::int64_t d) { return (n + d - 1) / d; }

/// Position of a tile in the grid of tiles.
struct TileCoord {
  std::int64_t row;  ///< tile row (A rows row * height .. )
  std::int64_t col;  ///< tile column
};

/// @brief Row-major tile order: linear block id -> (id / tiles_c, id % tiles_c).
///
/// Every kernel uses a 1-D grid of tiles_r x tiles_c blocks, so no 65535 limit on gridDim.y.
__host__ __device__ inline TileCoord tile_row_major(std::int64_t id, std::int64_t tiles_c) {
  return {id / tiles_c, id % tiles_c};
}

/// @brief Diagonal tile order (Ruetsch & Micikevicius): block ids that run together take tiles
/// along a diagonal, so they read from many tile rows and write to many tile columns at once.
///
/// id -> (row = id % tiles_r, col = (id / tiles_r + row) % tiles_c). A permutation of the tiles
/// for any tiles_r x tiles_c: for a fixed row, id / tiles_r runs over 0 .. tiles_c - 1 and the
/// shifted column takes each value once.
// [diagonal]
__host__ __device__ inline TileCoord tile_diagonal(std::int64_t id, std::int64_t tiles_r, std::int64_t tiles_c) {
  const std::int64_t row = id % tiles_r;
  return {row, (id / tiles_r + row) % tiles_c};
}
// [diagonal]

/// @brief v05/v06's swizzle: where 16-byte chunk `chunk` (0..7) of tile row `row` is stored.
///
/// chunk XOR ((row / 4) % 8). A permutation of the 8 chunks of each row (so a row's float4
/// stores are conflict-free), chosen so that the column reads of the store phase are too:
/// 8 lanes reading rows 4q + j (q = 0..7) of one column see 8 different chunk positions.
// [swizzle]
__host__ __device__ constexpr int swizzle_chunk(int row, int chunk) { return chunk ^ ((row >> 2) & 7); }

/// @brief Index (in floats) of element (row, col) of a 32 x 32 tile stored with swizzle_chunk().
__host__ __device__ constexpr int swizzled_index(int row, int col) {
  return row * kTile + 4 * swizzle_chunk(row, col >> 2) + (col & 3);
}
// [swizzle]

/// Shared-memory bank (0..31) of float index `i`.
__host__ __device__ constexpr int bank_of(int i) { return i % 32; }

/// @name v09 and the tuning search (wide_tiles.cuh): tile order, layouts and lane mappings
/// Host and device functions: the kernels use them, and the CPU tests check them (orders are
/// permutations, shared-memory accesses are conflict-free) for every tile shape searched.
/// @{

/// Tile order "row-major" for tile_banded(): bands of one tile row.
constexpr unsigned kRowMajor = 1;
/// Tile order "column-major" for tile_banded(): one band holding every tile row.
constexpr unsigned kColMajor = 0;

/// @brief Banded tile order: the tile rows are cut into bands of `band` rows; the tiles of a
/// band are taken column by column (down the band, then one column right), band after band.
///
/// band = 1 is the row-major order, band = 0 (or >= tiles_r) the column-major order. In
/// between, the blocks that run at one moment cover a patch of band x (blocks / band) tiles:
/// the A rows they read run over blocks / band tiles, the B rows they write over `band` tiles,
/// so both sides get long contiguous runs. The last band may have fewer rows. A permutation of
/// the tiles for any tiles_r x tiles_c: band b holds ids [b * band * tiles_c, ...), and inside
/// it `local % rows` and `local / rows` run over its rows and all columns once.
///
/// 32-bit arithmetic: the launchers guarantee tiles_r * tiles_c < 2^31 (one block per tile).
// [banded]
__host__ __device__ inline TileCoord tile_banded(unsigned id, unsigned tiles_r, unsigned tiles_c, unsigned band) {
  const unsigned height = band == 0 || band > tiles_r ? tiles_r : band;  // tile rows per full band
  const unsigned per_band = height * tiles_c;
  const unsigned b = id / per_band, first = b * height;
  const unsigned rows = tiles_r - first < height ? tiles_r - first : height;  // the last band may be shorter
  const unsigned local = id - b * per_band;
  return {static_cast<std::int64_t>(first + local % rows), static_cast<std::int64_t>(local / rows)};
}
// [banded]

/// Index (in floats) of element (row, col) of a tile `width` floats wide (a multiple of 32)
/// stored with swizzle_chunk(): 16-byte chunks permuted within each group of 8 of a row.
__host__ __device__ constexpr int swizzled_offset(int row, int col, int width) {
  return row * width + 4 * swizzle_chunk(row, col >> 2) + (col & 3);
}

/// A position in a tile: (row, col) of A's tile in the load phase, of B's tile in the store phase.
struct TilePos {
  int row;  ///< row within the tile
  int col;  ///< column within the tile
};

/// Load phase, float4 reads: the q-th float4 of an A tile `cols` wide starts at (row, col).
/// Consecutive q run along the rows: a warp reads 512 contiguous bytes of one row when cols >= 128,
/// otherwise whole rows of the tile (128 / cols of them).
__host__ __device__ constexpr TilePos wide_load_vec(int q, int cols) { return {q / (cols / 4), 4 * (q % (cols / 4))}; }

/// Load phase, scalar reads: the q-th element of an A tile `cols` wide.
__host__ __device__ constexpr TilePos wide_load_scalar(int q, int cols) { return {q / cols, q % cols}; }

/// @brief Store phase, float4 writes: the q-th float4 of a B tile whose rows are `rows` floats
/// long (the A tile's height) starts at (row, col) of B's tile.
///
/// Warp w = q / 32 takes 4 B rows (4 (w / (rows / 32)) + lane / 8) and 8 consecutive float4s
/// of each (8 (w % (rows / 32)) + lane % 8): the shape in which the 32 column reads of the
/// swizzled tile hit 32 different banks (v05's mapping, repeated over the wider tile).
/// Consecutive warps continue along the same 4 B rows.
__host__ __device__ constexpr TilePos wide_store_vec(int q, int rows) {
  return {4 * ((q / 32) / (rows / 32)) + (q % 32) / 8, 4 * (8 * ((q / 32) % (rows / 32)) + q % 8)};
}

/// Store phase, scalar writes: the q-th element of a B tile with rows `rows` floats long
/// (a warp writes 32 consecutive floats of one B row).
__host__ __device__ constexpr TilePos wide_store_scalar(int q, int rows) { return {q / rows, q % rows}; }

/// @brief The kernels' form of the maps above: how far a thread's i-th position (q + i x
/// threads) lies from its first (q), for a walk over rows of `per_row` items `width` floats
/// wide (wide_load_vec: cols / 4 items of 4; wide_load_scalar: cols of 1; wide_store_scalar:
/// rows of 1). A compile-time constant once the loop over i is unrolled, so each access is a
/// base pointer plus a constant offset. Equal to map(q + i threads) - map(q) for every q <
/// threads when threads and per_row are powers of two (one divides the other); the CPU tests
/// check it.
__host__ __device__ constexpr TilePos wide_step(int i, int threads, int per_row, int width) {
  return {i * threads / per_row, width * (i * threads % per_row)};
}

/// wide_step() of wide_store_vec(): warps advance by threads / 32 per step, over rows / 32 groups
/// of 8 float4s (32 floats) per 4 B rows.
__host__ __device__ constexpr TilePos wide_store_vec_step(int i, int threads, int rows) {
  return {4 * (i * (threads / 32) / (rows / 32)), 32 * (i * (threads / 32) % (rows / 32))};
}
/// @}

}  // namespace transpose
