/// @file
/// @brief v7: a long row split across the blocks of a thread-block cluster (sm_90), each block
/// holding its slice in registers; the blocks exchange (max, sum) states through distributed
/// shared memory. One read, one write, and many small blocks instead of one big one per row.
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "common/check.hpp"
#include "common/device_info.hpp"
#include "online_softmax.cuh"
#include "reductions.cuh"
#include "softmax.hpp"

namespace softmax {

namespace cg = cooperative_groups;

/// Four copies of v.
__device__ inline float4 v7_splat(float v) { return make_float4(v, v, v, v); }
/// The largest of the four lanes.
__device__ inline float v7_max4(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }
/// The sum of the four lanes.
__device__ inline float v7_sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }

/// @brief Cluster c of the grid owns row c (and c + clusters, ... when the grid is capped);
/// block `rank` of the cluster owns float4s [rank S, (rank + 1) S) of the row, S = kThreads kVec:
///
///     row (C/4 float4s):  | block 0: S float4s | block 1: S float4s | ... | block N-1 (padded) |
///     thread t of block b: v[j] = row4[b S + t + kThreads j]   (j = 0 .. kVec-1; -inf past C/4)
///
/// Each warp reduces its values to a MaxSum state (warp max, then the sum of exp(x - warp max),
/// the exponentials kept in v[]), parks it in shared memory, and after one cluster barrier every
/// warp of every block merges the N x kWarps parked states of the cluster, read through
/// distributed shared memory, with merge(). Output: v[j] * exp(warp max - row max) / row sum.
/// The only barriers are cluster ones: the arrive after the reads, the wait after the stores, so
/// no block overwrites or frees its parked states while a peer may still read them.
// [kernel]
template <int kThreads, int kVec>
__global__ void __launch_bounds__(kThreads)
    softmax_v7_cluster_rows(const float* x, float* y, std::int64_t rows, std::int64_t cols) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int kWarps = kThreads / 32;
  constexpr std::int64_t kSlice = static_cast<std::int64_t>(kThreads) * kVec;  // float4s per block
  __shared__ MaxSum parked[kWarps];  // this block's warp states, read by every block of the cluster
  const cg::cluster_group cluster = cg::this_cluster();
  const int blocks = static_cast<int>(cluster.num_blocks());  // N: the blocks that share a row
  const int rank = static_cast<int>(cluster.block_rank());    // which slice of the row is ours
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::int64_t cols4 = cols / 4;
  const std::int64_t first = rank * kSlice + threadIdx.x;  // our first float4 within a row

  for (std::int64_t r = blockIdx.x / blocks; r < rows; r += gridDim.x / blocks) {
    const float4* xr = reinterpret_cast<const float4*>(x + r * cols);  // 16-byte aligned rows
    float4 v[kVec];  // our part of the row, in registers
#pragma unroll
    for (int j = 0; j < kVec; ++j) {  // all kVec loads in flight before any is used
      const std::int64_t k = first + static_cast<std::int64_t>(kThreads) * j;
      v[j] = k < cols4 ? xr[k] : v7_splat(-INFINITY);
    }
    float m = -INFINITY;
#pragma unroll
    for (int j = 0; j < kVec; ++j) m = fmaxf(m, v7_max4(v[j]));
    m = warp_allreduce<MaxOp>(m);  // the warp's max (-inf if the warp saw only -inf or padding)
    const float shift = softmax_shift(m);
    float d = 0.0f;
#pragma unroll
    for (int j = 0; j < kVec; ++j) {
      v[j] = make_float4(expf(v[j].x - shift), expf(v[j].y - shift), expf(v[j].z - shift), expf(v[j].w - shift));
      d += v7_sum4(v[j]);
    }
    d = warp_allreduce<SumOp>(d);
    if (lane == 0) parked[warp] = {m, d};
    cluster.sync();  // every warp state of the cluster is parked (a block barrier too)

    MaxSum row = max_sum_identity();  // lane l merges states l, l + 32, ... of the cluster
    for (int i = lane; i < blocks * kWarps; i += 32) {
      const MaxSum* peer = cluster.map_shared_rank(parked, i / kWarps);  // block i / kWarps's array
      row = merge(row, peer[i % kWarps]);
    }
    row = warp_allmerge(row);  // every lane: the row's (max, sum)
    cluster.barrier_arrive();  // done reading the peers' shared memory

    // exp(x - m) rescaled to the row max: exp(x - m) exp(m - max) / sum. An all -inf row: sum 0, scale 0.
    const float scale = rescale(m, row.max) * softmax_scale(row.sum);
    float4* yr = reinterpret_cast<float4*>(y + r * cols);
#pragma unroll
    for (int j = 0; j < kVec; ++j) {
      const std::int64_t k = first + static_cast<std::int64_t>(kThreads) * j;
      if (k < cols4) yr[k] = make_float4(v[j].x * scale, v[j].y * scale, v[j].z * scale, v[j].w * scale);
    }
    cluster.barrier_wait();  // every peer is done reading our `parked`: it may be reused or freed
  }
#else
  // Clusters need sm_90; the launcher never runs this build of the kernel (v7_unsupported()).
  (void)x;
  (void)y;
  (void)rows;
  (void)cols;
  __trap();
#endif
}
// [kernel]

namespace {

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

/// Launches the kernel of `tile` with clusters of `cluster` blocks, one cluster per row (the
/// grid capped at 2^31 - 1 blocks; the kernel loops over the rest).
template <int kThreads, int kVec>
void launch_tile(const float* x, float* y, std::int64_t rows, std::int64_t cols, int cluster, cudaStream_t stream) {
  constexpr std::int64_t kMaxGrid = 2147483647;
  const std::int64_t clusters = std::min(rows, kMaxGrid / cluster);
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(clusters * cluster));
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = static_cast<unsigned>(cluster);
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  CUDA_CHECK(cudaLaunchKernelEx(&config, softmax_v7_cluster_rows<kThreads, kVec>, x, y, rows, cols));
  CUDA_CHECK_LAUNCH();
}

/// launch_tile<kThreads, kVec>() if `tile` is that tile (and true), else nothing (and false).
template <int kThreads, int kVec>
bool try_tile(V7Tile tile, const float* x, float* y, std::int64_t rows, std::int64_t cols, int cluster,
              cudaStream_t stream) {
  if (tile.threads != kThreads || tile.vec != kVec) return false;
  launch_tile<kThreads, kVec>(x, y, rows, cols, cluster, stream);
  return true;
}

/// Runs `tile` on the shape (float4 access possible, cluster small enough), else v6.
void run_tile(V7Tile tile, const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  const int cluster = v7_cluster_size(tile, cols);
  if (cols % 4 != 0 || !aligned16(x) || !aligned16(y) || cluster < 1 || cluster > kV7MaxCluster) {
    return launch_softmax_v6_float4(x, y, rows, cols, stream);
  }
  // The tiles v7's kernel is compiled for: v7_tile_for()'s and the others the search (tune/) times.
  if (try_tile<128, 2>(tile, x, y, rows, cols, cluster, stream)) return;
  if (try_tile<128, 4>(tile, x, y, rows, cols, cluster, stream)) return;
  if (try_tile<128, 8>(tile, x, y, rows, cols, cluster, stream)) return;
  if (try_tile<256, 2>(tile, x, y, rows, cols, cluster, stream)) return;
  if (try_tile<256, 4>(tile, x, y, rows, cols, cluster, stream)) return;
  if (try_tile<256, 8>(tile, x, y, rows, cols, cluster, stream)) return;
  if (try_tile<512, 2>(tile, x, y, rows, cols, cluster, stream)) return;
  if (try_tile<512, 4>(tile, x, y, rows, cols, cluster, stream)) return;
  if (try_tile<1024, 2>(tile, x, y, rows, cols, cluster, stream)) return;
  if (try_tile<1024, 4>(tile, x, y, rows, cols, cluster, stream)) return;
  throw std::logic_error("softmax v7: tile " + std::to_string(tile.threads) + " x " + std::to_string(tile.vec) +
                         " is not instantiated");
}

}  // namespace

void launch_softmax_v7_tile(V7Tile tile, const float* x, float* y, std::int64_t rows, std::int64_t cols,
                            cudaStream_t stream) {
  run_tile(tile, x, y, rows, cols, stream);
}

int v7_cluster_size(V7Tile tile, std::int64_t cols) {
  const std::int64_t slice = static_cast<std::int64_t>(tile.threads) * tile.vec;  // float4s per block
  const std::int64_t blocks = (cols / 4 + slice - 1) / slice;
  return static_cast<int>(std::min<std::int64_t>(blocks, kV7MaxCluster + 1));  // > kV7MaxCluster: too long
}

/// @name v7's tiles, chosen by the search (`softmax_tune`, tune/): its measured winners on an
/// H200, candidates v7_t128x8 and v7_t256x8 (8 float4s per thread won on 4096, 8192 and 32768
/// columns); for rows longer than 8 blocks of 256 x 8 hold (C > 65536), the candidate v7_t1024x4.
/// @{
constexpr V7Tile kV7TileOneBlock = {128, 8};   ///< C <= 4096: one block of 128 threads x 8 float4s
constexpr V7Tile kV7TileCluster = {256, 8};    ///< C <= 65536: 8192 columns per block
constexpr V7Tile kV7TileLongRows = {1024, 4};  ///< C <= 131072: 16384 columns per block
/// @}

V7Tile v7_tile_for(std::int64_t cols) {
  const std::int64_t cols4 = cols / 4;
  if (cols % 4 != 0 || cols <= kWarpRowMaxCols) return {0, 0};  // v6: float4 registers per warp
  if (cols4 <= 1024) return kV7TileOneBlock;                     // C <= 4096: one block
  if (cols4 <= 2048 * kV7MaxCluster) return kV7TileCluster;      // C <= 65536: clusters of up to 8
  if (cols4 <= 4096 * kV7MaxCluster) return kV7TileLongRows;     // C <= 131072: clusters of up to 8
  return {0, 0};                                                 // longer: v6 (online, two passes)
}

namespace {

/// v7_unsupported()'s answer for the current device (the same for every shape).
std::string v7_unsupported_here() {
  const int cc = tut::current_cc();
  if (cc < 90) return "needs sm_90 (thread-block clusters), this GPU is sm_" + std::to_string(cc);
  cudaFuncAttributes attr{};
  if (cudaFuncGetAttributes(&attr, softmax_v7_cluster_rows<256, 4>) != cudaSuccess) {
    (void)cudaGetLastError();
    return "no kernel image of v7_cluster_rows for this GPU in this build";
  }
  if (attr.ptxVersion < 90) return "this build has no sm_90 code for v7 (set CMAKE_CUDA_ARCHITECTURES to 90a)";
  return "";
}

}  // namespace

std::string v7_unsupported(std::int64_t /*rows*/, std::int64_t /*cols*/) {
  // Cached per device: launchers call it on every run, and timed runs should not pay for queries.
  static std::mutex mutex;
  static std::map<int, std::string> cache;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(device);
  if (it == cache.end()) it = cache.emplace(device, v7_unsupported_here()).first;
  return it->second;
}

/// @brief v7: a row split across a cluster of up to 8 blocks, each holding its slice in registers.
///
/// **Idea.** v6 keeps a 32768-float row in the 128 KiB of shared memory of *one* block: one
/// block per SM, 1024 rows in 7.75 waves, and nothing on the SM loads while that block reduces.
/// Hopper groups blocks into *clusters* (up to 8 portably) that run at the same time on one GPC,
/// can read each other's shared memory (distributed shared memory) and share a barrier. Give a
/// row to a cluster: each block keeps a slice of the row in registers (the tile chosen by
/// v7_tile_for(): 128 x 8, 256 x 8 or 1024 x 4, threads x float4s per thread), so
/// the blocks are small, several fit on an SM, and their loads overlap other blocks' reductions
/// and stores. The blocks only need each other's (max, sum) states, combined with merge(): the
/// online softmax's algebra, now across blocks instead of across chunks of one thread.
///
/// **Changed since v6.** For C > 1024 (C % 4 == 0, aligned): registers instead of shared memory,
/// a slice per block instead of a row, warp states merged across the cluster (one cluster
/// barrier per row, split into arrive/wait around the stores) instead of two block all-reduces.
/// Tile by C (v7_tile_for(), the measured winners of `softmax_tune`): up to 4096 columns, one
/// block of 128 threads x 8 float4s; up to 65536, 256 x 8 float4s and ceil(C / 8192) blocks; up to
/// 131072, 1024 x 4.
/// Everything else runs v6: C <= 1024 (v6's warp registers are already one read, one write),
/// C % 4 != 0 or misaligned rows (no float4), C > 131072 (more than 8 blocks).
///
/// **What is still wrong.** sm_90 only (skipped elsewhere, with the reason). The tiles are tuned
/// on one GPU (H200). A row's blocks wait for each other at the cluster barrier; a cluster can
/// only start when all its blocks fit on one GPC at once. 4096 x 4096 and 65536 x 128 are small
/// problems (64 and 32 MiB each way): even cudaMemcpy of the same bytes reaches only 86% and 75%
/// of the 1 GiB copy roof there.
///
/// **Predicted (before the search, with 256 x 4 tiles).** (H200, % of the 1 GiB copy roof.)
/// 1024 x 32768: from 58.7% (v6) to about 85% (clusters of 8). 8192 x 8192: from 84.6% to about
/// 90% (clusters of 2). 4096 x 4096: from 76.4% to about 82%. 16384 x 1024 and 65536 x 128: v6's
/// kernels, unchanged.
///
/// **Measured (H200, `softmax_tune`, softmax_tune.json).** With the guessed 256 x 4 tiles, v7
/// fell short: 65.6% on 1024 x 32768, 83.4% on 8192 x 8192, 73.3% on 4096 x 4096. Twice the
/// float4s per thread (twice the loads in flight, half the blocks per row) won everywhere: 256 x 8
/// reached 81.5% on 1024 x 32768 (clusters of 4) and 89.8% on 8192 x 8192 (one block per row),
/// 128 x 8 77.3% on 4096 x 4096. v7_tile_for() picks those. **H100 run at 0b38325 (the chapter
/// page's table):** 1024 x 32768: 0.0991 ms, 2710 GB/s, 90.2% of the copy roof, 1.17x cuDNN (v6:
/// 71.6%); 8192 x 8192: 0.185 ms, 96.8%, 1.01x; 4096 x 4096: 0.0517 ms, 86.4%, 1.02x; 16384 x 1024
/// and 65536 x 128 (v6's kernels): 89.1% and 79.8%. Above all three predictions, which were made
/// for the H200 (85%, 90%, 82%).
void launch_softmax_v7_cluster_rows(const float* x, float* y, std::int64_t rows, std::int64_t cols,
                                    cudaStream_t stream) {
  if (empty_or_invalid(rows, cols)) return;
  const std::string why = v7_unsupported(rows, cols);
  if (!why.empty()) throw std::invalid_argument("softmax v7_cluster_rows: " + why);
  const V7Tile tile = v7_tile_for(cols);
  if (tile.threads == 0) return launch_softmax_v6_float4(x, y, rows, cols, stream);
  run_tile(tile, x, y, rows, cols, stream);
}

}  // namespace softmax
