/// @file
/// @brief The tiled transpose as one template kernel over a named configuration (WideTile: tile
/// shape, threads, float4 or scalar accesses, tile order). v09 runs one configuration; the
/// tuning search (tune/, `transpose_tune`) times many, and the tiled copy of each
/// (tune/wide_copy.cuh).
///
/// One block per tile, as in v04-v07 (a block loads its tile, waits at one barrier, stores it and
/// exits; the GPU's block scheduler hands the next tile to whichever SM frees up first). What
/// the configuration varies:
///
/// | field | what it changes |
/// |---|---|
/// | rows x cols | the tile: each block reads cols x 4 contiguous bytes of `rows` rows of A and writes rows x 4 contiguous bytes of `cols` rows of B |
/// | threads | threads per block; with the tile, the loads each thread has in flight before the barrier |
/// | vec_read, vec_write | float4 or scalar global loads / stores |
/// | order | the tile order (tile_banded()): row-major, column-major, or bands of `order` tile rows |
/// | streaming | evict-first cache hints on the global accesses |
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "tiles.cuh"
#include "transpose.hpp"
#include "wide_tile_phases.cuh"  // WideTile, WideTileConfig, wide_load(), wide_store()

namespace transpose {

/// @brief B = A^T, one Rows x Cols tile per block, tiles in tile_banded() order (the kernel of
/// v09 and of the tuning search's transposes).
///
/// Edge tiles (cut by the matrix's last rows or columns) take the checked path; the condition
/// is the same for every thread of a block, so the barrier inside it is safe.
// [kernel]
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads)
    transpose_wide_tiles(const float* __restrict__ A, float* __restrict__ B, std::int64_t R, std::int64_t C,
                         unsigned tiles_r, unsigned tiles_c) {
  extern __shared__ float4 wide_smem[];  // Cfg::kSmemBytes, dynamic (up to 128 x 129 floats)
  float* tile = reinterpret_cast<float*>(wide_smem);
  const TileCoord t = tile_banded(blockIdx.x, tiles_r, tiles_c, Cfg::kBand);
  const std::int64_t r0 = t.row * Cfg::kRows, c0 = t.col * Cfg::kCols;
  const int tid = static_cast<int>(threadIdx.x);
  if (r0 + Cfg::kRows <= R && c0 + Cfg::kCols <= C) {  // interior tile: no bounds tests
    wide_load<Cfg, false>(A, tile, R, C, r0, c0, tid);
    __syncthreads();
    wide_store<Cfg, false>(tile, B, R, C, r0, c0, tid);
  } else {
    wide_load<Cfg, true>(A, tile, R, C, r0, c0, tid);
    __syncthreads();
    wide_store<Cfg, true>(tile, B, R, C, r0, c0, tid);
  }
}
// [kernel]

/// @brief Runs transpose_wide_tiles with the configuration `Tile` (a WideTile) on any R x C >= 1:
/// one block per tile. A float4 configuration runs its scalar twin (ScalarAccesses<Tile>) when
/// vector_path() is false (R or C not a multiple of 4, or a misaligned pointer).
template <class Tile>
void launch_transpose_wide_tiles(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream) {
  using Cfg = WideTileConfig<Tile>;
  if (R <= 0 || C <= 0) return;
  if constexpr (Cfg::kVector) {
    if (!vector_path(A, B, R, C)) {
      launch_transpose_wide_tiles<ScalarAccesses<Tile>>(A, B, R, C, stream);
      return;
    }
  }
  const std::int64_t tiles_r = ceil_div(R, Cfg::kRows), tiles_c = ceil_div(C, Cfg::kCols);
  const unsigned blocks = tut::blocks_for(tiles_r * tiles_c, 1);  // < 2^31: 32-bit tile arithmetic is safe
  tut::allow_dynamic_smem(transpose_wide_tiles<Cfg>, Cfg::kSmemBytes);
  transpose_wide_tiles<Cfg><<<blocks, Cfg::kThreads, Cfg::kSmemBytes, stream>>>(
      A, B, R, C, static_cast<unsigned>(tiles_r), static_cast<unsigned>(tiles_c));
  CUDA_CHECK_LAUNCH();
}

/// "" if this GPU gives a block the shared memory of Tile's transpose and of its scalar twin
/// (which runs for shapes without the vector path), else why not: sm_75 allows 64 KiB, too
/// little for a 128 x 129 padded tile.
template <class Tile>
std::string smem_unavailable() {
  using Cfg = WideTileConfig<Tile>;
  int device = 0, optin = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const std::size_t need = Cfg::kSmemBytes > Cfg::Scalar::kSmemBytes ? Cfg::kSmemBytes : Cfg::Scalar::kSmemBytes;
  if (need <= static_cast<std::size_t>(optin)) return "";
  return "needs " + std::to_string(need) + " bytes of shared memory per block, this GPU allows " + std::to_string(optin);
}

/// The tile order in words.
inline std::string order_summary(unsigned band) {
  return band == kRowMajor   ? "row-major tile order"
         : band == kColMajor ? "column-major tile order"
                             : "bands of " + std::to_string(band) + " tile rows";
}

/// A transpose configuration (a WideTile) in words: tile, threads, accesses per thread, order,
/// shared memory.
template <class Tile>
std::string config_summary() {
  using Cfg = WideTileConfig<Tile>;
  return std::to_string(Cfg::kRows) + "x" + std::to_string(Cfg::kCols) + " tiles, " + std::to_string(Cfg::kThreads) +
         " threads x " + std::to_string(Cfg::kLoads) + (Cfg::kVecRead ? " float4" : " scalar") + " loads, " +
         (Cfg::kVecWrite ? "float4" : "scalar") + " stores, " + (Cfg::kStreaming ? "streaming hints, " : "") +
         order_summary(Cfg::kBand) + ", " +
         std::to_string(Cfg::kSmemBytes / 1024) + " KiB smem";
}

}  // namespace transpose
