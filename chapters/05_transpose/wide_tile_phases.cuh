/// @file
/// @brief The per-thread work of the wide-tile kernels (wide_tiles.cuh): the configuration (named
/// fields, WideTile), the load and store phases of the transpose. Host and device functions that take
/// the thread index as an argument, so the CPU tests can run whole blocks, thread by thread, on
/// the CPU (every configuration of the search, on edge shapes) and compare with the reference.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tiles.cuh"

// `#pragma unroll` in device code only: these are host functions too (the CPU tests run them),
// and host compilers warn about a pragma they do not know.
#if defined(__CUDA_ARCH__)
#define TRANSPOSE_UNROLL _Pragma("unroll")
#else
/// `#pragma unroll` when compiling for the GPU, nothing on the host (see the file comment).
#define TRANSPOSE_UNROLL
#endif

namespace transpose {

/// @brief The fields of a wide-tile configuration, named, with v06's values as defaults (64 x 64
/// tiles, 256 threads, float4 loads and stores, row-major tile order).
///
/// A configuration is a struct derived from WideTile that restates only the fields it changes,
/// e.g. v09's (v09_tuned_tiles.cu) or the search's candidates (tune/tune.hpp):
///
///     struct Banded : WideTile { static constexpr unsigned order = 8; };  // v06's tile, bands of 8
///
/// The kernels read it through WideTileConfig<Tile>, which adds what follows from the fields.
struct WideTile {
  static constexpr int rows = 64;            ///< tile rows (rows of A; columns of B)
  static constexpr int cols = 64;            ///< tile columns (columns of A; rows of B)
  static constexpr int threads = 256;        ///< threads per block
  static constexpr bool vec_read = true;     ///< float4 global loads
  static constexpr bool vec_write = true;    ///< float4 global stores
  static constexpr unsigned order = kRowMajor;  ///< tile order: kRowMajor, kColMajor or a band height (tile_banded())
  static constexpr bool streaming = false;   ///< global accesses with the streaming (evict-first) hint
};

/// `Tile` with scalar loads and stores: what a float4 configuration runs when vector_path() is false.
template <class Tile>
struct ScalarAccesses : Tile {
  static constexpr bool vec_read = false;   ///< scalar global loads
  static constexpr bool vec_write = false;  ///< scalar global stores
};

/// @brief A wide-tile configuration as the kernels read it: the fields of `Tile` (a WideTile)
/// and what follows from them (all compile-time).
///
/// Shared-memory layout: with float4 stores (vec_write) the tile is stored in rows of `cols`
/// floats with swizzle_chunk() (v05's XOR swizzle, repeated over the wider row), otherwise in
/// padded rows of cols + 1 floats (v03's padding). Float4 loads need the swizzled layout, and
/// the swizzled layout needs float4 stores: scalar column reads of a swizzled tile would hit
/// only 8 banks (a float4 chunk keeps its 4 floats together, so column c is always in a bank
/// = c mod 4, plus 4 x one of 8 chunk slots). So vec_read requires vec_write. Streaming: global
/// loads and stores carry the streaming cache hint (`__ldcs`, `__stcs`: evict-first in L2).
template <class Tile>
struct WideTileConfig {
  static constexpr int kRows = Tile::rows;                ///< tile rows (rows of A; columns of B)
  static constexpr int kCols = Tile::cols;                ///< tile columns (columns of A; rows of B)
  static constexpr int kThreads = Tile::threads;          ///< threads per block
  static constexpr bool kVecRead = Tile::vec_read;        ///< float4 global loads
  static constexpr bool kVecWrite = Tile::vec_write;      ///< float4 global stores
  static constexpr unsigned kBand = Tile::order;          ///< tile order: kRowMajor, kColMajor or a band height
  static constexpr bool kStreaming = Tile::streaming;     ///< global accesses with the streaming (evict-first) hint
  /// Needs vector_path() (R, C multiples of 4, 16-byte aligned pointers); otherwise Scalar runs.
  static constexpr bool kVector = kVecRead || kVecWrite;
  /// Tile stored with swizzle_chunk() (float4 stores) rather than padded by one column.
  static constexpr bool kSwizzled = kVecWrite;
  /// Floats between consecutive tile rows in shared memory.
  static constexpr int kPitch = kSwizzled ? kCols : kCols + 1;
  /// Dynamic shared memory of the transpose kernel (the copy kernel uses none).
  static constexpr std::size_t kSmemBytes = sizeof(float) * static_cast<std::size_t>(kRows) * kPitch;
  /// Global loads per thread (float4s or floats), all issued before the first is used.
  static constexpr int kLoads = kRows * kCols / (kVecRead ? 4 : 1) / kThreads;
  /// Global stores per thread.
  static constexpr int kStores = kRows * kCols / (kVecWrite ? 4 : 1) / kThreads;
  /// The same configuration with scalar accesses: what runs when vector_path() is false.
  using Scalar = WideTileConfig<ScalarAccesses<Tile>>;

  static_assert(kThreads % 32 == 0 && kThreads <= 1024 && (kThreads & (kThreads - 1)) == 0,
                "whole warps, a power of two, at most 1024 threads");
  static_assert((kRows & (kRows - 1)) == 0 && (kCols & (kCols - 1)) == 0, "powers of two (wide_step() is exact)");
  static_assert(!kVecRead || kVecWrite, "float4 loads need the swizzled tile, which needs float4 stores");
  static_assert(kRows * kCols % ((kVecRead ? 4 : 1) * kThreads) == 0, "every thread loads the same number of elements");
  static_assert(kRows * kCols % ((kVecWrite ? 4 : 1) * kThreads) == 0,
                "every thread stores the same number of elements");
};

/// Loads a thread issues before it stores any (in batches of this many when it has more):
/// 16 float4s are 64 registers already, and more would only raise the register count.
constexpr int kMaxLoadsInFlight = 16;

/// Index (floats) of A's tile element (row, col) in shared memory: swizzled or padded.
template <class Cfg>
__host__ __device__ __forceinline__ int tile_offset(int row, int col) {
  return Cfg::kSwizzled ? swizzled_offset(row, col, Cfg::kCols) : row * Cfg::kPitch + col;
}

/// One read-only load of global memory: through the read-only data cache (__ldg) on the GPU, or
/// with the streaming hint (__ldcs) when kStreaming; a plain read when the phase functions run
/// on the CPU (the CPU tests simulate whole blocks).
template <bool kStreaming, class Item>
__host__ __device__ __forceinline__ Item load_global(const Item* p) {
#if defined(__CUDA_ARCH__)
  if constexpr (kStreaming) {
    return __ldcs(p);
  } else {
    return __ldg(p);
  }
#else
  return *p;
#endif
}

/// One store to global memory: plain, or with the streaming hint (__stcs) when kStreaming.
template <bool kStreaming, class Item>
__host__ __device__ __forceinline__ void store_global(Item* p, const Item& v) {
#if defined(__CUDA_ARCH__)
  if constexpr (kStreaming) {
    __stcs(p, v);
  } else {
    *p = v;
  }
#else
  *p = v;
#endif
}

/// @brief Load phase of the transpose: the tile of A at (r0, c0) into shared memory, the part
/// of thread `tid`.
///
/// Thread t's loads are positions q = t, t + Threads, t + 2 Threads, ... of wide_load_vec()
/// (or wide_load_scalar()); written as its first position p0 plus the constant step
/// wide_step(i), so each address is one pointer plus a constant. A thread issues all its
/// global loads (up to kMaxLoadsInFlight) into registers before it stores any of them, so it
/// has that many requests in flight. `Checked` adds the bounds tests of an edge tile; an
/// interior tile has no branch between its loads. With float4 loads (R % 4 == 0 and C % 4 ==
/// 0, see vector_path()) a float4 is entirely inside the matrix or entirely outside. Elements
/// outside the matrix are stored as zeros: every word of the tile is written.
// [load]
template <class Cfg, bool Checked>
__host__ __device__ __forceinline__ void wide_load(const float* __restrict__ A, float* tile, std::int64_t R,
                                                   std::int64_t C, std::int64_t r0, std::int64_t c0, int tid) {
  static_assert(Cfg::kRows % 32 == 0 && Cfg::kCols % 32 == 0, "the layouts need tiles of whole 32 x 32 blocks");
  using Item = typename std::conditional<Cfg::kVecRead, float4, float>::type;  // what one load moves
  constexpr int kWidth = Cfg::kVecRead ? 4 : 1, kPerRow = Cfg::kCols / kWidth;   // items per tile row
  constexpr int kBatch = Cfg::kLoads < kMaxLoadsInFlight ? Cfg::kLoads : kMaxLoadsInFlight;
  static_assert(Cfg::kLoads % kBatch == 0, "whole batches of loads");
  const TilePos p0 = Cfg::kVecRead ? wide_load_vec(tid, Cfg::kCols) : wide_load_scalar(tid, Cfg::kCols);
  const float* a = A + (r0 + p0.row) * C + c0 + p0.col;  // this thread's first element
TRANSPOSE_UNROLL
  for (int b = 0; b < Cfg::kLoads; b += kBatch) {
    Item v[kBatch];
TRANSPOSE_UNROLL
    for (int j = 0; j < kBatch; ++j) {  // every load of the batch first ...
      const TilePos d = wide_step(b + j, Cfg::kThreads, kPerRow, kWidth);  // constant
      const bool inside = !Checked || (r0 + p0.row + d.row < R && c0 + p0.col + d.col < C);
      v[j] = inside ? load_global<Cfg::kStreaming>(reinterpret_cast<const Item*>(a + d.row * C + d.col)) : Item{};
    }
TRANSPOSE_UNROLL
    for (int j = 0; j < kBatch; ++j) {  // ... then into shared memory (a float4 stays whole)
      const TilePos d = wide_step(b + j, Cfg::kThreads, kPerRow, kWidth);
      *reinterpret_cast<Item*>(tile + tile_offset<Cfg>(p0.row + d.row, p0.col + d.col)) = v[j];
    }
  }
}
// [load]

/// @brief Store phase of the transpose (after the barrier): B's tile, rows c0 .. c0 + Cols - 1
/// of B and columns r0 .. r0 + Rows - 1, read column-wise from the tile of A in shared memory;
/// the part of thread `tid`.
///
/// Float4 stores: lane mapping wide_store_vec() (4 B rows x 8 float4s per warp), four scalar
/// shared reads per float4, conflict-free on the swizzled tile. Scalar stores: a warp writes 32
/// consecutive floats of one B row, reading a column of the padded tile (banks (row + col) % 32).
/// Positions as in the load phase: first position plus a constant step.
// [store]
template <class Cfg, bool Checked>
__host__ __device__ __forceinline__ void wide_store(const float* tile, float* __restrict__ B, std::int64_t R,
                                                    std::int64_t C, std::int64_t r0, std::int64_t c0, int tid) {
  const TilePos p0 = Cfg::kVecWrite ? wide_store_vec(tid, Cfg::kRows) : wide_store_scalar(tid, Cfg::kRows);
  float* b = B + (c0 + p0.row) * R + r0 + p0.col;  // this thread's first element of B
TRANSPOSE_UNROLL
  for (int i = 0; i < Cfg::kStores; ++i) {  // B[c0 + p.row][r0 + p.col (.. + 3)] = A[r0 + p.col (.. + 3)][c0 + p.row]
    const TilePos d = Cfg::kVecWrite ? wide_store_vec_step(i, Cfg::kThreads, Cfg::kRows)
                                     : wide_step(i, Cfg::kThreads, Cfg::kRows, 1);
    const TilePos p = {p0.row + d.row, p0.col + d.col};
    if (Checked && !(c0 + p.row < C && r0 + p.col < R)) continue;
    if constexpr (Cfg::kVecWrite) {
      float4 v;
      v.x = tile[tile_offset<Cfg>(p.col + 0, p.row)];
      v.y = tile[tile_offset<Cfg>(p.col + 1, p.row)];
      v.z = tile[tile_offset<Cfg>(p.col + 2, p.row)];
      v.w = tile[tile_offset<Cfg>(p.col + 3, p.row)];
      store_global<Cfg::kStreaming>(reinterpret_cast<float4*>(b + d.row * R + d.col), v);
    } else {
      store_global<Cfg::kStreaming>(b + d.row * R + d.col, tile[tile_offset<Cfg>(p.col, p.row)]);
    }
  }
}
// [store]

}  // namespace transpose
