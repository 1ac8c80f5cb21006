/// @file
/// @brief Tile bookkeeping shared by the transpose kernels: which tile a block owns, and the
/// swizzled shared-memory layout of v5/v6. Host and device functions, so the CPU tests can
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

/// @brief v5/v6's swizzle: where 16-byte chunk `chunk` (0..7) of tile row `row` is stored.
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

}  // namespace transpose
