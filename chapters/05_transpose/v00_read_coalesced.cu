/// @file
/// @brief v00: naive transpose, threads along A's rows: coalesced reads, strided writes.
#include "common/check.hpp"
#include "common/launch.hpp"
#include "tiles.cuh"
#include "transpose.hpp"

namespace transpose {

/// Rows of A per block (one per row of threads).
constexpr int kV0Rows = 8;

/// @brief B[c][r] = A[r][c], one element per thread; threadIdx.x runs along a row of A.
///
/// Block b covers 8 rows x 32 columns of A. A warp (fixed threadIdx.y) reads 32 consecutive
/// floats of one row of A: one 128-byte request. It writes them to 32 different rows of B,
/// R floats apart: 32 separate 32-byte sectors, each with 4 useful bytes.
// [kernel]
__global__ void transpose_v00_read_coalesced(const float* __restrict__ A, float* __restrict__ B, std::int64_t R,
                                            std::int64_t C, std::int64_t tiles_c) {
  const TileCoord t = tile_row_major(blockIdx.x, tiles_c);
  const std::int64_t r = t.row * kV0Rows + threadIdx.y;
  const std::int64_t c = t.col * kTile + threadIdx.x;
  if (r < R && c < C) B[c * R + r] = A[r * C + c];  // read: stride 1 across the warp; write: stride R
}
// [kernel]

/// @brief v00: one thread per element, reads coalesced, writes strided.
///
/// **Idea.** The formula as a kernel: thread (r, c) copies A[r][c] to B[c][r].
///
/// **What is wrong with it.** A transpose cannot have both sides contiguous for a warp: here
/// each warp store scatters over 32 rows of B. The L2 cache merges partial writes to a
/// sector before it goes to DRAM if the other 28 bytes arrive in time (from the 7 other warps
/// of the block that write the neighbouring rows of A); each store instruction still costs 32
/// sector transactions.
///
/// **Predicted.** Well under the copy roof (roughly a third to a half of it); which of v00 and
/// v01 wins is measured below.
///
/// **Measured.** (H100 run of git 0b38325, docs/results/transpose.json; % of the 3006 GB/s copy roof): 1.1767 ms on
/// 8192^2 (456.2 GB/s, 15.2%, 0.16x cublasSgeam), 5.2106 ms on 16384^2 (412.1 GB/s, 13.7%). Below the prediction:
/// about 15% of the roof, not a third; v01 wins.
void launch_transpose_v00_read_coalesced(const float* A, float* B, std::int64_t R, std::int64_t C,
                                        cudaStream_t stream) {
  if (R <= 0 || C <= 0) return;
  const std::int64_t tiles_c = ceil_div(C, kTile);
  const unsigned blocks = tut::blocks_for(ceil_div(R, kV0Rows) * tiles_c, 1);
  transpose_v00_read_coalesced<<<blocks, dim3(kTile, kV0Rows), 0, stream>>>(A, B, R, C, tiles_c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace transpose
