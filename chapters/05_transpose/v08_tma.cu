/// @file
/// @brief v08 (Hopper, sm_90): the tensor memory accelerator (TMA) moves whole tiles between
/// global and shared memory; threads only transpose inside shared memory.
///
/// Needs compute capability 9.0 and code compiled for it (sm_90a in this project's builds).
/// The tensor maps are made with cuTensorMapEncodeTiled, a *driver* API function, obtained
/// through the runtime's cudaGetDriverEntryPoint: the program never links libcuda, so it still
/// starts (and reports this version as skipped) on a machine without a GPU driver.
#include <cstdint>
#include <string>

#include "common/check.hpp"
#include "common/device_info.hpp"
#include "common/launch.hpp"
#include "tiles.cuh"
#include "tma.cuh"  // the PTX wrappers (mbarrier, cp.async.bulk.tensor, ...) and make_map()
#include "transpose.hpp"

namespace transpose {

/// Threads per block: 4 warps transpose a 32 x 32 tile, 8 elements per thread.
constexpr int kV8Threads = 128;

#if TUT_SM90
// Shared-memory stages: the load of tile i + 1 and the store of tile i - 1 overlap tile i.
constexpr int kV8Stages = 2;
// Bytes of one tile (what each TMA load delivers, out-of-bounds zeros included).
constexpr unsigned kV8TileBytes = kTile * kTile * sizeof(float);
static_assert(kV8Stages == 2, "the kernel flips between two stages with s ^ 1");
#endif

/// @brief B = A^T with TMA: each block walks tiles t = blockIdx.x, + gridDim.x, ...; per tile
/// one thread asks the TMA unit for the 32 x 32 box of A, all threads transpose it inside
/// shared memory, and one thread asks the TMA unit to store the 32 x 32 box of B.
///
/// Two stages: while the threads transpose tile i from sa[s] into sb[s], the TMA loads tile
/// i + 1 into sa[s ^ 1] and may still be storing tile i - 1 from sb[s ^ 1].
///
///     thread 0:  load(i+1) -> sa[s^1]   wait store(i-2) read sb[s]            store(i) <- sb[s]
///     all:                  wait bar[s] |  sync  | sa[s] -> sb[s] | fence, sync |
///
/// Synchronization, in order:
/// - bar[s] (an mbarrier expecting one arrival and 4096 bytes) completes when tile i is in
///   sa[s]; its k-th use is phase k, waited for with parity k & 1.
/// - Before the threads overwrite sb[s], thread 0 waits (wait_group.read 1) until the store
///   issued from sb[s] two tiles ago has finished reading it; the __syncthreads() after the
///   mbarrier wait publishes that to everyone.
/// - After writing sb[s] (and reading sa[s]), each thread executes fence.proxy.async, then
///   __syncthreads(): the TMA store that follows sees the writes, and the next TMA load into
///   sa[s] is ordered after the reads.
/// - Thread 0 waits for all its stores before the block exits.
///
/// Shared-memory banks: sa holds A's box row by row (tile[r][c] at 32 r + c, as TMA writes it
/// with no swizzle) and sb holds B's box (B row c, column r at 32 c + r). Warp w, step k,
/// lane l moves element (r, c) = (l, (l + d) % 32) with d = w + 4 k: one wrapped diagonal of
/// the tile per instruction. The read's bank is c and the write's bank is r: both take 32
/// different values, no conflict on either side, without padding (which TMA cannot do) or a
/// swizzle mode.
// [kernel]
__global__ void __launch_bounds__(kV8Threads) transpose_v08_tma(const __grid_constant__ CUtensorMap map_a,
                                                               const __grid_constant__ CUtensorMap map_b,
                                                               std::int64_t tiles_r, std::int64_t tiles_c) {
#if TUT_SM90
  __shared__ __align__(128) float sa[kV8Stages][kTile * kTile];  // A's tiles: [r][c]
  __shared__ __align__(128) float sb[kV8Stages][kTile * kTile];  // B's tiles: [c][r]
  __shared__ __align__(8) std::uint64_t bar[kV8Stages];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const std::int64_t tiles = tiles_r * tiles_c;

  if (tid == 0) {
    for (int s = 0; s < kV8Stages; ++s) sm90::mbar_init(&bar[s], 1);
    sm90::fence_proxy_async();  // the initialized barriers, visible to the TMA unit
  }
  __syncthreads();

  const auto issue_load = [&](std::int64_t tile, int s) {  // thread 0 only
    const TileCoord t = tile_row_major(tile, tiles_c);
    sm90::mbar_arrive_expect_tx(&bar[s], kV8TileBytes);
    sm90::tma_load(sa[s], &map_a, static_cast<int>(t.col * kTile), static_cast<int>(t.row * kTile), &bar[s]);
  };
  if (tid == 0 && blockIdx.x < tiles) issue_load(blockIdx.x, 0);

  int it = 0;
  for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x, ++it) {
    const int s = it % kV8Stages;
    if (tid == 0) {
      if (tile + gridDim.x < tiles) issue_load(tile + gridDim.x, s ^ 1);  // prefetch the next tile
      sm90::bulk_wait_read<kV8Stages - 1>();  // the store from sb[s] (two tiles ago) has read it
    }
    sm90::mbar_wait(&bar[s], static_cast<unsigned>(it / kV8Stages) & 1u);  // tile is in sa[s]
    __syncthreads();

#pragma unroll
    for (int k = 0; k < kTile / (kV8Threads / 32); ++k) {  // 8 diagonals per warp
      const int d = warp + (kV8Threads / 32) * k;
      const int r = lane, c = (lane + d) % kTile;
      sb[s][c * kTile + r] = sa[s][r * kTile + c];  // banks: read c, write r
    }
    sm90::fence_proxy_async();
    __syncthreads();

    if (tid == 0) {
      const TileCoord t = tile_row_major(tile, tiles_c);
      sm90::tma_store(&map_b, static_cast<int>(t.row * kTile), static_cast<int>(t.col * kTile), sb[s]);
      sm90::bulk_commit();
    }
  }
  if (tid == 0) sm90::bulk_wait_all();
#else
  // Compiled for a GPU without TMA: never launched (the launcher and the registry check
  // tma_unavailable() first). Trap loudly if it ever is.
  (void)map_a;
  (void)map_b;
  (void)tiles_r;
  (void)tiles_c;
  __trap();
#endif
}
// [kernel]

std::string tma_unavailable() {
  const int cc = tut::current_cc();
  if (cc < 90) return "needs sm_90 (TMA), this GPU is sm_" + std::to_string(cc);
  cudaFuncAttributes attr{};
  if (cudaFuncGetAttributes(&attr, transpose_v08_tma) != cudaSuccess) {
    cudaGetLastError();
    return "no kernel image of v08_tma for this GPU in this build";
  }
  if (attr.ptxVersion < 90) {
    return "this build has no sm_90 code for v08_tma (set CMAKE_CUDA_ARCHITECTURES to 90a)";
  }
  if (encode_tiled() == nullptr) return "the CUDA driver does not provide cuTensorMapEncodeTiled";
  return "";
}

/// @brief v08: TMA loads and stores of 32 x 32 boxes, a conflict-free diagonal walk through
/// shared memory, two stages, one wave of persistent blocks.
///
/// **Idea.** On Hopper a single thread can ask the TMA unit to copy a whole box of a 2-D
/// tensor between global and shared memory; the unit computes the addresses, coalesces the
/// requests and clips the box at the edges of the tensor (loads fill zeros, stores skip).
/// The threads are left with nothing but the transposition in shared memory, and the copies
/// run asynchronously, overlapping the next tile's load and the previous tile's store with
/// the current tile's transposition.
///
/// **Changed since v07.** No thread issues a global load or store; two tensor maps (A: R x C,
/// B: C x R) describe the matrices; mbarriers signal loads, bulk groups track stores; blocks
/// loop over tiles (grid = one full wave).
///
/// **What is still wrong.** The tensor maps require 16-byte aligned rows (R and C multiples
/// of 4) and aligned pointers: other shapes run v04's kernel. One thread issues everything; one
/// 4 KB box per request is small for the TMA unit.
///
/// **Predicted.** On par with v06 (both move the same bytes with full coalescing and enough
/// bytes in flight); the gain, if any, is fewer instructions and the overlap inside each block.
///
/// **Measured.** (H100 run of git 0b38325, docs/results/transpose.json; % of the 3006 GB/s copy roof): 0.2100 ms on
/// 8192^2 (2556.1 GB/s, 85.0%, 0.91x cublasSgeam), 0.8330 ms on 16384^2 (85.8%): 3-5% slower than v06 (0.2036,
/// 0.7959 ms), level with it on the smaller shapes. TMA does not beat the best plain version in this form.
void launch_transpose_v08_tma(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream) {
  if (R <= 0 || C <= 0) return;
  if (!vector_path(A, B, R, C)) {
    launch_transpose_v04_tile_32x8(A, B, R, C, stream);
    return;
  }
  if (encode_tiled() == nullptr) throw tut::CudaError("v08_tma: cuTensorMapEncodeTiled is not available (see tma_unavailable())");
  const CUtensorMap map_a = make_map(A, R, C, kTile, kTile);  // A: R rows of C, 32 x 32 boxes
  const CUtensorMap map_b = make_map(B, C, R, kTile, kTile);  // B: C rows of R
  const std::int64_t tiles_r = ceil_div(R, kTile), tiles_c = ceil_div(C, kTile);
  const std::int64_t wave = tut::full_wave_blocks(transpose_v08_tma, kV8Threads);
  const unsigned blocks = static_cast<unsigned>(tiles_r * tiles_c < wave ? tiles_r * tiles_c : wave);
  transpose_v08_tma<<<blocks, kV8Threads, 0, stream>>>(map_a, map_b, tiles_r, tiles_c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace transpose
