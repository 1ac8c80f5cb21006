/// @file
/// @brief What the Hopper steps (v12-v17) share beyond the generic sm_90a wrappers of
/// common/hopper_ptx.cuh (mbarrier, TMA, wgmma, setmaxnreg, clusters, the shared-memory matrix
/// descriptor): the k-slice and box sizes, one wgmma k-slice of a tile, the tile order, the
/// epilogue straight from wgmma's accumulator registers, and the host side (tensor maps,
/// operands made TMA-ready).
///
/// The wrappers exist only in device code compiled for sm_90a (`GEMM_SM90A`); the kernels that
/// use them compile to a trap elsewhere, and the registry reports those versions as skipped
/// (hopper_unavailable()).
#pragma once

#include <cuda.h>  // CUtensorMap and its enums (types only: libcuda is reached through the runtime)
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <optional>

#include "common/hopper_ptx.cuh"
#include "common/scratch.hpp"
#include "gemm.hpp"
#include "gemm_device.cuh"

/// 1 in device code compiled for sm_90a (the "a" features: wgmma, setmaxnreg, TMA multicast), else
/// 0: common/hopper_ptx.cuh's TUT_SM90A under this chapter's name.
#define GEMM_SM90A TUT_SM90A

/// The Hopper steps' shared device and host helpers.
namespace gemm::sm90 {

/// The k-slice of every Hopper step: 64 bf16 = 128 bytes, one row of the 128-byte swizzle.
constexpr int kBK = 64;
/// Columns of B per TMA box: a box row must fit the 128-byte swizzle, so a 256-wide tile of B is
/// loaded as four boxes of 64 columns.
constexpr int kBoxN = 64;
/// Bytes of one B box (64 k-rows x 64 columns of bf16): also the distance between the 64-column
/// groups of a B tile in shared memory, the "leading byte offset" of B's wgmma descriptor.
constexpr int kBoxBytesB = kBK * kBoxN * 2;
/// Row tiles per raster group of the tile order (grouped_tile(), as v11): tiles running at the
/// same time share A's row panels and B's column panels in L2.
constexpr int kGroupM = 8;

#if GEMM_SM90A

// The generic sm_90a wrappers (common/hopper_ptx.cuh), by the short names the steps use.
using tut::sm90::align_1024;
using tut::sm90::bulk_commit;
using tut::sm90::bulk_wait_all;
using tut::sm90::bulk_wait_read;
using tut::sm90::cluster_address;
using tut::sm90::cluster_sync;
using tut::sm90::fence_barrier_init;
using tut::sm90::fence_proxy_async;
using tut::sm90::keep_in_registers;
using tut::sm90::mbar_arrive;
using tut::sm90::mbar_arrive_cluster;
using tut::sm90::mbar_arrive_expect_tx;
using tut::sm90::mbar_init;
using tut::sm90::mbar_wait;
using tut::sm90::named_barrier_sync;
using tut::sm90::setmaxnreg_dec;
using tut::sm90::setmaxnreg_inc;
using tut::sm90::smem_desc;
using tut::sm90::st_async_v4;
using tut::sm90::tma_load;
using tut::sm90::tma_load_multicast;
using tut::sm90::tma_reduce_add;
using tut::sm90::tma_store;
using tut::sm90::wgmma_commit;
using tut::sm90::wgmma_m64n128k8_tf32_rs;
using tut::sm90::wgmma_m64n64k8_tf32_rs;
using tut::sm90::wgmma_m64n256k8_tf32_rs;
using tut::sm90::wgmma_fence;
using tut::sm90::wgmma_wait;

/// @name One k-slice of wgmma (B is K x N row-major: MN-major, transpose-B = 1)
/// @{

/// One wgmma m64nNk16 for N = 64, 128 or 256 (the tile widths the steps use).
template <int N>
__device__ __forceinline__ void wgmma_m64k16(float (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b,
                                             int scale_d) {
  static_assert(N == 64 || N == 128 || N == 256, "wgmma_m64k16: the steps use n = 64, 128 or 256");
  if constexpr (N == 64) {
    tut::sm90::wgmma_m64n64k16_ss<1>(d, desc_a, desc_b, scale_d);
  } else if constexpr (N == 128) {
    tut::sm90::wgmma_m64n128k16_ss<1>(d, desc_a, desc_b, scale_d);
  } else {
    tut::sm90::wgmma_m64n256k16_ss<1>(d, desc_a, desc_b, scale_d);
  }
}

/// The four k-steps (k = 16 each) of one 64-wide k-slice for a warpgroup's 64 x N accumulators:
/// A rows [64 mi, 64 mi + 64) of the stage's A tile (`a_tile`: BM rows of 128 bytes), B the whole
/// stage's B tile (`b_tile`: N / 64 boxes of 64 k-rows x 64 columns). `first`: the slice is the
/// tile's first, so the first k-step overwrites the accumulators (scale-d = 0) instead of adding.
// [kslice]
template <int N, bool kDescSteps = false>
__device__ __forceinline__ void wgmma_kslice(float (&d)[N / 2], const unsigned char* a_tile, const unsigned char* b_tile,
                                             bool first) {
  // v25 (kDescSteps): one descriptor per operand and slice, each k-step's a constant further:
  // its address field counts 16-byte units, so 32 bytes along A's rows add 2 and 16 of B's
  // 128-byte rows add 128 (no carry: shared memory ends below 256 KiB). v12-v24 rebuild both
  // descriptors from the address for every k-step.
  const std::uint64_t desc_a0 = smem_desc(a_tile, 16, 1024), desc_b0 = smem_desc(b_tile, kBoxBytesB, 1024);
#pragma unroll
  for (int kk = 0; kk < kBK / 16; ++kk) {
    const std::uint64_t desc_a = kDescSteps ? desc_a0 + 2 * kk : smem_desc(a_tile + kk * 32, 16, 1024);  // 16 k = 32 bytes
    const std::uint64_t desc_b = kDescSteps ? desc_b0 + 128 * kk : smem_desc(b_tile + kk * 2048, kBoxBytesB, 1024);  // 16 k-rows
    wgmma_m64k16<N>(d, desc_a, desc_b, (first && kk == 0) ? 0 : 1);
  }
}
// [kslice]
/// @}

#endif  // GEMM_SM90A

/// Stores one warpgroup's 64 x N tile of accumulators (wgmma's layout, see common/hopper_ptx.cuh)
/// to C at (row0, col0): alpha * acc + beta * C, one float2 per pair of columns when `vec_c`
/// (C's rows 8-byte aligned) and inside C, else guarded scalars. Rows and columns outside C
/// are skipped. `warp` is the warp's index inside its warpgroup.
// [epilogue]
template <int N>
__device__ __forceinline__ void store_accumulators(const float (&acc)[N / 2], float* __restrict__ c, int m, int n,
                                                   int row0, int col0, float alpha, float beta, bool vec_c, int warp,
                                                   int lane) {
  const int g = lane / 4, tq = lane % 4;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int row = row0 + warp * 16 + g + half * 8;
    if (row >= m) continue;
    float* c_row = c + static_cast<std::int64_t>(row) * n;
#pragma unroll
    for (int j = 0; j < N / 8; ++j) {
      store_pair(c_row, col0 + 8 * j + 2 * tq, n, acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1], alpha, beta,
                 vec_c);
    }
  }
}
// [epilogue]

/// @name Host side (hopper_support.cu)
/// @{

/// The launch configuration of `clusters` clusters of `cluster_size` CTAs (1-D clusters along x) of
/// `threads` threads and `smem_bytes` of dynamic shared memory on `stream`, for cudaLaunchKernelEx
/// and cudaOccupancyMaxActiveClusters; a cluster attribute only when cluster_size > 1. It holds the
/// attribute its config points to, so it is not copied. (v14-v20's WsLaunch, v21-v23's launcher.)
// [cluster_launch]
struct ClusterLaunch {
  cudaLaunchAttribute attr[1] = {};  ///< the cluster dimension
  cudaLaunchConfig_t config = {};    ///< grid, block, shared memory, stream, attributes
  /// The configuration (see the struct).
  ClusterLaunch(std::int64_t clusters, int cluster_size, int threads, int smem_bytes, cudaStream_t stream) {
    config.gridDim = dim3(static_cast<unsigned>(clusters * cluster_size));
    config.blockDim = dim3(static_cast<unsigned>(threads));
    config.dynamicSmemBytes = static_cast<std::size_t>(smem_bytes);
    config.stream = stream;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = static_cast<unsigned>(cluster_size);
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    config.attrs = attr;
    config.numAttrs = cluster_size > 1 ? 1 : 0;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;  // config.attrs points into this object
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};
// [cluster_launch]

/// A and B as the TMA unit needs them: base addresses and row strides multiples of 16 bytes.
/// `lda` and `ldb` are the elements between consecutive rows (>= k and >= n). T is the element:
/// __nv_bfloat16 (v12-v20) or float (v21).
template <class T>
struct TmaOperandsOf {
  const T* a;          ///< A (m x k), row stride lda
  std::int64_t lda;    ///< elements between rows of A
  const T* b;          ///< B (k x n), row stride ldb
  std::int64_t ldb;    ///< elements between rows of B
  /// The copies' memory, when an operand was copied: keep this object until the kernel that reads
  /// them is enqueued (tut::Scratch).
  std::optional<tut::Scratch::Lease> copies;
};
/// The BF16 steps' operands.
using TmaOperands = TmaOperandsOf<__nv_bfloat16>;

/// Returns A and B ready for TMA: unchanged when their bases are 16-byte aligned and k (for A),
/// n (for B) are multiples of 8 (bf16; 4 for fp32); otherwise the operand is first copied, on
/// `stream`, into a workspace whose rows are padded to 16 bytes (one extra pass over it, counted
/// in the timed run), leased from a tut::Scratch kept between calls.
TmaOperands tma_operands(std::int64_t m, std::int64_t n, std::int64_t k, const __nv_bfloat16* a,
                         const __nv_bfloat16* b, cudaStream_t stream);
/// tma_operands() for fp32 operands with `lda` and `ldb` elements between rows (v21-v23; v22's A
/// is its own split copy, already TMA-ready, which then passes unchanged).
TmaOperandsOf<float> tma_operands(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
                                  const float* b, std::int64_t ldb, cudaStream_t stream);

/// A tensor map (the TMA descriptor) of the row-major `rows` x `cols` matrix at `base`, `ld`
/// elements of `elem_bytes` bytes between rows, loaded or stored in boxes of `box_rows` x
/// `box_cols`, swizzled in shared memory with the 128-byte swizzle. Parts of a box outside the
/// matrix load as zeros and are not stored. Throws tut::CudaError if the driver refuses it.
CUtensorMap make_tensor_map(const void* base, CUtensorMapDataType type, int elem_bytes, std::int64_t rows,
                            std::int64_t cols, std::int64_t ld, unsigned box_rows, unsigned box_cols);

/// The tensor maps of A (boxes of `box_m` rows x 64 k) and B (boxes of 64 k-rows x 64 columns).
struct OperandMaps {
  CUtensorMap a;  ///< A, m x k
  CUtensorMap b;  ///< B, k x n
};
/// make_tensor_map() for both operands of a TMA-ready problem.
OperandMaps operand_maps(const TmaOperands& ops, std::int64_t m, std::int64_t n, std::int64_t k, unsigned box_m);

/// @}

}  // namespace gemm::sm90
