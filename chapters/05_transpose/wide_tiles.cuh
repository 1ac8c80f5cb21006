/// @file
/// @brief The tiled transpose as one template (tile shape, threads, float4 or scalar accesses,
/// tile order), and the tiled copy with the same parameters. v9 runs one configuration; the
/// tuning search (`transpose_tune`) times many.
///
/// One block per tile, as in v4-v7 (a block loads its tile, waits at one barrier, stores it and
/// exits; the GPU's block scheduler hands the next tile to whichever SM frees up first). What
/// the template varies:
///
/// | parameter | what it changes |
/// |---|---|
/// | Rows x Cols | the tile: each block reads Cols x 4 contiguous bytes of Rows rows of A and writes Rows x 4 contiguous bytes of Cols rows of B |
/// | Threads | threads per block; with the tile, the loads each thread has in flight before the barrier |
/// | VecRead, VecWrite | float4 or scalar global loads / stores |
/// | Band | the tile order (tile_banded()): row-major, column-major, or bands of Band tile rows |
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <type_traits>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "tiles.cuh"
#include "transpose.hpp"

namespace transpose {

/// @brief One configuration of the wide-tile kernels (all compile-time).
///
/// Shared-memory layout: with float4 stores (VecWrite) the tile is stored in rows of Cols
/// floats with swizzle_chunk() (v5's XOR swizzle, repeated over the wider row), otherwise in
/// padded rows of Cols + 1 floats (v3's padding). Float4 loads need the swizzled layout, and
/// the swizzled layout needs float4 stores: scalar column reads of a swizzled tile would hit
/// only 8 banks (a float4 chunk keeps its 4 floats together, so column c is always in a bank
/// = c mod 4, plus 4 x one of 8 chunk slots). So VecRead requires VecWrite.
template <int Rows, int Cols, int Threads, bool VecRead, bool VecWrite, unsigned Band>
struct TileConfig {
  static constexpr int kRows = Rows;        ///< tile rows (rows of A; columns of B)
  static constexpr int kCols = Cols;        ///< tile columns (columns of A; rows of B)
  static constexpr int kThreads = Threads;  ///< threads per block
  static constexpr bool kVecRead = VecRead;    ///< float4 global loads
  static constexpr bool kVecWrite = VecWrite;  ///< float4 global stores
  static constexpr unsigned kBand = Band;      ///< tile order: kRowMajor, kColMajor or a band height
  /// Needs vector_path() (R, C multiples of 4, 16-byte aligned pointers); otherwise Scalar runs.
  static constexpr bool kVector = VecRead || VecWrite;
  /// Tile stored with swizzle_chunk() (float4 stores) rather than padded by one column.
  static constexpr bool kSwizzled = VecWrite;
  /// Floats between consecutive tile rows in shared memory.
  static constexpr int kPitch = kSwizzled ? Cols : Cols + 1;
  /// Dynamic shared memory of the transpose kernel (the copy kernel uses none).
  static constexpr std::size_t kSmemBytes = sizeof(float) * static_cast<std::size_t>(Rows) * kPitch;
  /// Global loads per thread (float4s or floats), all issued before the first is used.
  static constexpr int kLoads = Rows * Cols / (VecRead ? 4 : 1) / Threads;
  /// Global stores per thread.
  static constexpr int kStores = Rows * Cols / (VecWrite ? 4 : 1) / Threads;
  /// The same configuration with scalar accesses: what runs when vector_path() is false.
  using Scalar = TileConfig<Rows, Cols, Threads, false, false, Band>;

  static_assert(Threads % 32 == 0 && Threads <= 1024 && (Threads & (Threads - 1)) == 0,
                "whole warps, a power of two, at most 1024 threads");
  static_assert((Rows & (Rows - 1)) == 0 && (Cols & (Cols - 1)) == 0, "powers of two (wide_step() is exact)");
  static_assert(!VecRead || VecWrite, "float4 loads need the swizzled tile, which needs float4 stores");
  static_assert(Rows * Cols % ((VecRead ? 4 : 1) * Threads) == 0, "every thread loads the same number of elements");
  static_assert(Rows * Cols % ((VecWrite ? 4 : 1) * Threads) == 0, "every thread stores the same number of elements");
};

/// Loads a thread issues before it stores any (in batches of this many when it has more):
/// 16 float4s are 64 registers already, and more would only raise the register count.
constexpr int kMaxLoadsInFlight = 16;

/// Index (floats) of A's tile element (row, col) in shared memory: swizzled or padded.
template <class Cfg>
__device__ __forceinline__ int tile_offset(int row, int col) {
  return Cfg::kSwizzled ? swizzled_offset(row, col, Cfg::kCols) : row * Cfg::kPitch + col;
}

/// @brief Load phase of the transpose: the tile of A at (r0, c0) into shared memory.
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
__device__ __forceinline__ void wide_load(const float* __restrict__ A, float* tile, std::int64_t R, std::int64_t C,
                                          std::int64_t r0, std::int64_t c0) {
  using Item = typename std::conditional<Cfg::kVecRead, float4, float>::type;  // what one load moves
  constexpr int kWidth = Cfg::kVecRead ? 4 : 1, kPerRow = Cfg::kCols / kWidth;   // items per tile row
  constexpr int kBatch = Cfg::kLoads < kMaxLoadsInFlight ? Cfg::kLoads : kMaxLoadsInFlight;
  static_assert(Cfg::kLoads % kBatch == 0, "whole batches of loads");
  const int q = static_cast<int>(threadIdx.x);
  const TilePos p0 = Cfg::kVecRead ? wide_load_vec(q, Cfg::kCols) : wide_load_scalar(q, Cfg::kCols);
  const float* a = A + (r0 + p0.row) * C + c0 + p0.col;  // this thread's first element
#pragma unroll
  for (int b = 0; b < Cfg::kLoads; b += kBatch) {
    Item v[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {  // every load of the batch first ...
      const TilePos d = wide_step(b + j, Cfg::kThreads, kPerRow, kWidth);  // constant
      const bool inside = !Checked || (r0 + p0.row + d.row < R && c0 + p0.col + d.col < C);
      v[j] = inside ? __ldg(reinterpret_cast<const Item*>(a + d.row * C + d.col)) : Item{};
    }
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {  // ... then into shared memory (a float4 stays whole)
      const TilePos d = wide_step(b + j, Cfg::kThreads, kPerRow, kWidth);
      *reinterpret_cast<Item*>(tile + tile_offset<Cfg>(p0.row + d.row, p0.col + d.col)) = v[j];
    }
  }
}
// [load]

/// @brief Store phase of the transpose: B's tile, rows c0 .. c0 + Cols - 1 of B and columns
/// r0 .. r0 + Rows - 1, read column-wise from the tile of A in shared memory.
///
/// Float4 stores: lane mapping wide_store_vec() (4 B rows x 8 float4s per warp), four scalar
/// shared reads per float4, conflict-free on the swizzled tile. Scalar stores: a warp writes 32
/// consecutive floats of one B row, reading a column of the padded tile (banks (row + col) % 32).
/// Positions as in the load phase: first position plus a constant step.
// [store]
template <class Cfg, bool Checked>
__device__ __forceinline__ void wide_store(const float* tile, float* __restrict__ B, std::int64_t R, std::int64_t C,
                                           std::int64_t r0, std::int64_t c0) {
  const int q = static_cast<int>(threadIdx.x);
  const TilePos p0 = Cfg::kVecWrite ? wide_store_vec(q, Cfg::kRows) : wide_store_scalar(q, Cfg::kRows);
  float* b = B + (c0 + p0.row) * R + r0 + p0.col;  // this thread's first element of B
#pragma unroll
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
      *reinterpret_cast<float4*>(b + d.row * R + d.col) = v;
    } else {
      b[d.row * R + d.col] = tile[tile_offset<Cfg>(p.col, p.row)];
    }
  }
}
// [store]

/// @brief B = A^T, one Rows x Cols tile per block, tiles in tile_banded() order (the kernel of
/// v9 and of the tuning search's transposes).
///
/// Edge tiles (cut by the matrix's last rows or columns) take the checked path; the condition
/// is the same for every thread of a block, so the barrier inside it is safe.
// [kernel]
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads)
    transpose_wide_tiles(const float* __restrict__ A, float* __restrict__ B, std::int64_t R, std::int64_t C,
                         unsigned tiles_r, unsigned tiles_c) {
  static_assert(Cfg::kRows % 32 == 0 && Cfg::kCols % 32 == 0, "the layouts need tiles of whole 32 x 32 blocks");
  extern __shared__ float4 wide_smem[];  // Cfg::kSmemBytes, dynamic (up to 128 x 129 floats)
  float* tile = reinterpret_cast<float*>(wide_smem);
  const TileCoord t = tile_banded(blockIdx.x, tiles_r, tiles_c, Cfg::kBand);
  const std::int64_t r0 = t.row * Cfg::kRows, c0 = t.col * Cfg::kCols;
  if (r0 + Cfg::kRows <= R && c0 + Cfg::kCols <= C) {  // interior tile: no bounds tests
    wide_load<Cfg, false>(A, tile, R, C, r0, c0);
    __syncthreads();
    wide_store<Cfg, false>(tile, B, R, C, r0, c0);
  } else {
    wide_load<Cfg, true>(A, tile, R, C, r0, c0);
    __syncthreads();
    wide_store<Cfg, true>(tile, B, R, C, r0, c0);
  }
}
// [kernel]

/// @brief B = A with the tiles, threads and order of the transpose, straight through registers
/// (no shared memory, no barrier): the roof of a configuration. Float4 when the
/// configuration reads and writes float4. Tiles of any height, e.g. 1 x 1024 (the access
/// pattern of a plain 1-D copy).
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads)
    copy_wide_tiles(const float* __restrict__ A, float* __restrict__ B, std::int64_t R, std::int64_t C,
                    unsigned tiles_r, unsigned tiles_c) {
  constexpr bool kVec = Cfg::kVecRead && Cfg::kVecWrite;
  using Item = typename std::conditional<kVec, float4, float>::type;
  constexpr int kWidth = kVec ? 4 : 1, kPerRow = Cfg::kCols / kWidth;
  constexpr int kItems = Cfg::kRows * kPerRow / Cfg::kThreads;  // per thread
  constexpr int kBatch = kItems < kMaxLoadsInFlight ? kItems : kMaxLoadsInFlight;
  static_assert(Cfg::kCols % 4 == 0 && Cfg::kRows * kPerRow % Cfg::kThreads == 0 && kItems % kBatch == 0,
                "every thread copies the same number of whole float4s");
  static_assert(Cfg::kThreads % kPerRow == 0 || kPerRow % Cfg::kThreads == 0, "wide_step() needs one to divide the other");
  const TileCoord t = tile_banded(blockIdx.x, tiles_r, tiles_c, Cfg::kBand);
  const std::int64_t r0 = t.row * Cfg::kRows, c0 = t.col * Cfg::kCols;
  const bool interior = r0 + Cfg::kRows <= R && c0 + Cfg::kCols <= C;
  const int q = static_cast<int>(threadIdx.x);
  const TilePos p0 = kVec ? wide_load_vec(q, Cfg::kCols) : wide_load_scalar(q, Cfg::kCols);
  const std::int64_t first = (r0 + p0.row) * C + c0 + p0.col;  // this thread's first element, in A and in B
#pragma unroll
  for (int b = 0; b < kItems; b += kBatch) {
    Item v[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {  // every load of the batch first ...
      const TilePos d = wide_step(b + j, Cfg::kThreads, kPerRow, kWidth);
      const bool inside = interior || (r0 + p0.row + d.row < R && c0 + p0.col + d.col < C);
      v[j] = inside ? __ldg(reinterpret_cast<const Item*>(A + first + d.row * C + d.col)) : Item{};
    }
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {  // ... then every store
      const TilePos d = wide_step(b + j, Cfg::kThreads, kPerRow, kWidth);
      if (interior || (r0 + p0.row + d.row < R && c0 + p0.col + d.col < C)) {
        *reinterpret_cast<Item*>(B + first + d.row * C + d.col) = v[j];
      }
    }
  }
}

/// Raises `kernel`'s dynamic shared-memory limit to `bytes` (needed above 48 KiB), once per kernel.
inline void allow_dynamic_smem(const void* kernel, std::size_t bytes) {
  if (bytes <= 48 * 1024) return;
  static std::mutex mutex;
  static std::set<const void*> done;
  std::lock_guard<std::mutex> lock(mutex);
  if (done.count(kernel) != 0) return;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  done.insert(kernel);
}

/// @brief Runs transpose_wide_tiles<Cfg> on any R x C >= 1: one block per tile. A float4
/// configuration runs its Scalar twin when vector_path() is false (R or C not a multiple of 4,
/// or a misaligned pointer).
template <class Cfg>
void launch_transpose_wide_tiles(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream) {
  if (R <= 0 || C <= 0) return;
  if constexpr (Cfg::kVector) {
    if (!vector_path(A, B, R, C)) {
      launch_transpose_wide_tiles<typename Cfg::Scalar>(A, B, R, C, stream);
      return;
    }
  }
  const std::int64_t tiles_r = ceil_div(R, Cfg::kRows), tiles_c = ceil_div(C, Cfg::kCols);
  const unsigned blocks = tut::blocks_for(tiles_r * tiles_c, 1);  // < 2^31: 32-bit tile arithmetic is safe
  allow_dynamic_smem(reinterpret_cast<const void*>(transpose_wide_tiles<Cfg>), Cfg::kSmemBytes);
  transpose_wide_tiles<Cfg><<<blocks, Cfg::kThreads, Cfg::kSmemBytes, stream>>>(
      A, B, R, C, static_cast<unsigned>(tiles_r), static_cast<unsigned>(tiles_c));
  CUDA_CHECK_LAUNCH();
}

/// @brief Runs copy_wide_tiles<Cfg> (B = A) on any R x C >= 1; scalar when vector_path() is false.
template <class Cfg>
void launch_copy_wide_tiles(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream) {
  if (R <= 0 || C <= 0) return;
  if constexpr (Cfg::kVector) {
    if (!vector_path(A, B, R, C)) {
      launch_copy_wide_tiles<typename Cfg::Scalar>(A, B, R, C, stream);
      return;
    }
  }
  const std::int64_t tiles_r = ceil_div(R, Cfg::kRows), tiles_c = ceil_div(C, Cfg::kCols);
  const unsigned blocks = tut::blocks_for(tiles_r * tiles_c, 1);
  copy_wide_tiles<Cfg><<<blocks, Cfg::kThreads, 0, stream>>>(A, B, R, C, static_cast<unsigned>(tiles_r),
                                                             static_cast<unsigned>(tiles_c));
  CUDA_CHECK_LAUNCH();
}

/// "" if this GPU gives a block the shared memory of Cfg's transpose and of its scalar twin
/// (which runs for shapes without the vector path), else why not: sm_75 allows 64 KiB, too
/// little for a 128 x 129 padded tile.
template <class Cfg>
std::string smem_unavailable() {
  int device = 0, optin = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const std::size_t need = Cfg::kSmemBytes > Cfg::Scalar::kSmemBytes ? Cfg::kSmemBytes : Cfg::Scalar::kSmemBytes;
  if (need <= static_cast<std::size_t>(optin)) return "";
  return "needs " + std::to_string(need) + " bytes of shared memory per block, this GPU allows " + std::to_string(optin);
}

/// The name of a tile order in configuration names: "rm", "cm" or "g<band>".
inline std::string order_name(unsigned band) {
  return band == kRowMajor ? "rm" : band == kColMajor ? "cm" : "g" + std::to_string(band);
}

/// The tile order in words.
inline std::string order_summary(unsigned band) {
  return band == kRowMajor   ? "row-major tile order"
         : band == kColMajor ? "column-major tile order"
                             : "bands of " + std::to_string(band) + " tile rows";
}

/// @brief A configuration's name in the search's table: `<prefix><Rows>x<Cols>_t<Threads>_<access>_<order>`,
/// e.g. "tr64x64_t256_f4_g8" is TileConfig<64, 64, 256, true, true, 8>; access f4 = float4
/// loads and stores, f1 = scalar both, f1f4 = scalar loads, float4 stores.
template <class Cfg>
std::string config_name(const char* prefix) {
  const char* access = Cfg::kVecRead ? "f4" : Cfg::kVecWrite ? "f1f4" : "f1";
  return prefix + std::to_string(Cfg::kRows) + "x" + std::to_string(Cfg::kCols) + "_t" +
         std::to_string(Cfg::kThreads) + "_" + access + "_" + order_name(Cfg::kBand);
}

/// A transpose configuration in words (tile, threads, accesses per thread, order, shared memory).
template <class Cfg>
std::string config_summary() {
  return std::to_string(Cfg::kRows) + "x" + std::to_string(Cfg::kCols) + " tiles, " + std::to_string(Cfg::kThreads) +
         " threads x " + std::to_string(Cfg::kLoads) + (Cfg::kVecRead ? " float4" : " scalar") + " loads, " +
         (Cfg::kVecWrite ? "float4" : "scalar") + " stores, " + order_summary(Cfg::kBand) + ", " +
         std::to_string(Cfg::kSmemBytes / 1024) + " KiB smem";
}

}  // namespace transpose
