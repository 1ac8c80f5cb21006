/// @file
/// @brief t2 (y = A^T x): t1 with four columns per lane, read as one float4.
#include "common/check.hpp"
#include "common/launch.hpp"
#include "gemv.hpp"
#include "gemv_device.cuh"
#include "overlap_clear.cuh"

namespace gemv {

/// Columns per lane.
constexpr int kT2Vec = 4;
/// Columns per block: 32 lanes x 4.
constexpr int kT2Cols = kWarpSize * kT2Vec;
/// Warps per block.
constexpr int kT2Warps = 8;

/// @brief t1's tiling with 128 columns per block, 4 per lane.
///
/// kVec (K % 4 == 0 and A 16-byte aligned, so every row's column 4l is): lane l owns columns
/// 4l .. 4l + 3 of the strip and reads them with one float4 load, 512 B per warp per row.
/// Otherwise lane l owns columns l, l + 32, l + 64, l + 96 and reads them with four
/// coalesced scalar loads (correct for any K and alignment, as fast as t1). kStreaming (t3)
/// reads A with the streaming hint (load_once()). kWaitForClear (t4): the kernel may start
/// while the kernel that clears y is still running (programmatic dependent launch), so it
/// waits for that grid (wait_for_prior_grids()) before its first atomicAdd into y.
///
/// The row loop is unrolled by 4 so that several rows' loads are in flight per lane. The
/// partial sums of the 8 warps meet in shared memory, then threads 0..127 add one column each.
// [kernel]
template <bool kVec, bool kStreaming, bool kWaitForClear>
__global__ void gemvt_t2_float4_columns(const float* __restrict__ A, const float* __restrict__ x,
                                        float* __restrict__ y, std::int64_t M, std::int64_t K, std::int64_t rows,
                                        bool accumulate) {
  __shared__ __align__(16) float partial[kT2Warps][kT2Cols];  // (warp, column of the strip)
  const std::int64_t strip = static_cast<std::int64_t>(blockIdx.x) * kT2Cols;
  const std::int64_t i0 = static_cast<std::int64_t>(blockIdx.y) * rows;
  const std::int64_t i1 = M - i0 < rows ? M : i0 + rows;
  const int lane = threadIdx.x, warp = threadIdx.y;
  float acc[kT2Vec] = {0.0f, 0.0f, 0.0f, 0.0f};

  if (kVec) {
    const std::int64_t col = strip + kT2Vec * lane;  // K % 4 == 0: all four columns exist, or none
    if (col < K) {
#pragma unroll 4
      for (std::int64_t i = i0 + warp; i < i1; i += kT2Warps) {
        const float4 a = load_once<kStreaming>(reinterpret_cast<const float4*>(A + i * K + col));
        const float xi = __ldg(x + i);
        acc[0] = fmaf(a.x, xi, acc[0]);
        acc[1] = fmaf(a.y, xi, acc[1]);
        acc[2] = fmaf(a.z, xi, acc[2]);
        acc[3] = fmaf(a.w, xi, acc[3]);
      }
    }
    *reinterpret_cast<float4*>(&partial[warp][kT2Vec * lane]) = make_float4(acc[0], acc[1], acc[2], acc[3]);
  } else {
#pragma unroll 4
    for (std::int64_t i = i0 + warp; i < i1; i += kT2Warps) {
      const float xi = __ldg(x + i);
#pragma unroll
      for (int q = 0; q < kT2Vec; ++q) {
        const std::int64_t col = strip + lane + q * kWarpSize;
        if (col < K) acc[q] = fmaf(load_once<kStreaming>(A + i * K + col), xi, acc[q]);
      }
    }
#pragma unroll
    for (int q = 0; q < kT2Vec; ++q) partial[warp][lane + q * kWarpSize] = acc[q];
  }
  __syncthreads();
  if (kWaitForClear) wait_for_prior_grids();  // y is cleared (only the atomics below need it)

  const int t = warp * kWarpSize + lane;  // 0..255; the first 128 finish one column each
  const std::int64_t col = strip + t;
  if (t < kT2Cols && col < K) {
    float total = 0.0f;
#pragma unroll
    for (int w = 0; w < kT2Warps; ++w) total += partial[w][t];
    if (accumulate) {
      atomicAdd(y + col, total);
    } else {
      y[col] = total;
    }
  }
}
// [kernel]

/// @brief t2: t1 with float4 loads (4 columns per lane) and 4 rows in flight per lane.
///
/// **Idea.** Once the GPU is full, the remaining cost is instructions per byte: a float4 load
/// moves 16 bytes for one instruction, and unrolling the row loop lets a lane issue several
/// rows' loads before the first FMA needs its data.
///
/// **Changed since t1.** 128-column strips, one float4 per lane per row (when K % 4 == 0 and A
/// is aligned; four scalar loads otherwise); the row loop unrolled by 4; rows cut for about four
/// full waves of blocks (t1: two).
///
/// **What is still wrong.** As in t1: float atomics make the result's last bits depend on the
/// order in which blocks finish; K < 128 leaves lanes idle (one strip, mostly empty).
///
/// **Predicted.** At or near the copy roof on the square and short-fat shapes, and on par with
/// cublasSgemv (CUBLAS_OP_N).
///
/// **Measured (H200).** The first run (two waves) was below cublasSgemv on 4096^2 (0.79x) and
/// 8192^2 (0.93x), at or above it elsewhere. A scratch search of the same kernel (1-8 waves, chunk
/// sizes, deeper unrolling, a last-block-done reduction instead of atomics, warps reading one row
/// side by side, cuBLAS-like one-wave blocks of 16 warps) moved 8192^2 to 1.02-1.03x with four
/// waves (what t2 now uses), but no variant passed 0.85x on 4096^2: cuBLAS runs one wave of 128
/// blocks of 512 threads at 128 registers there (ncu), at 69% of DRAM bandwidth, and we did not
/// find what else it does. In the chapter's own run with four waves, t2 is 0.83x cuBLAS on 4096^2
/// and 0.97x on 8192^2 (the scratch benchmark's 1.02x did not carry over), and at or above it on
/// the other shapes. **H100 run at 0b38325 (the chapter page's table):** 4096^2: 0.0371 ms,
/// 1810 GB/s, 60.3% of the copy roof, 0.844x cublasSgemv; 8192^2: 1.01x; 16384^2: 0.366 ms, 97.7%,
/// 1.07x; 65536 x 1024: 1.06x; 1024 x 65536: 0.997x. The prediction holds except on 4096^2; t3-t5
/// close that gap.
void launch_gemvt_t2_float4_columns(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                                    cudaStream_t stream) {
  launch_gemvt_float4_columns(A, x, y, M, K, Float4ColumnsOptions{}, stream);
}

namespace {

/// The instantiation of gemvt_t2_float4_columns for these options (t2, t3 or t4).
auto float4_columns_kernel(bool vec, Float4ColumnsOptions options) {
  if (options.overlap_clear) {
    return vec ? gemvt_t2_float4_columns<true, true, true> : gemvt_t2_float4_columns<false, true, true>;
  }
  if (options.streaming) {
    return vec ? gemvt_t2_float4_columns<true, true, false> : gemvt_t2_float4_columns<false, true, false>;
  }
  return vec ? gemvt_t2_float4_columns<true, false, false> : gemvt_t2_float4_columns<false, false, false>;
}

}  // namespace

void launch_gemvt_float4_columns(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                                 Float4ColumnsOptions options, cudaStream_t stream) {
  if (M <= 0 || K <= 0) return;
  constexpr int kThreads = kWarpSize * kT2Warps;
  const bool vec = K % 4 == 0 && is_aligned16(A);
  const auto kernel = float4_columns_kernel(vec, options);
  const std::int64_t strips = (K + kT2Cols - 1) / kT2Cols;
  const std::int64_t target = options.waves * static_cast<std::int64_t>(tut::full_wave_blocks(kernel, kThreads));
  const SplitPlan plan = plan_split(M, strips, target, options.min_rows, 1);
  const bool accumulate = plan.splits > 1;
  const dim3 grid(tut::blocks_for(K, kT2Cols), static_cast<unsigned>(plan.splits));
  if (accumulate && options.overlap_clear) {  // t4: clear y in a kernel that lets this one start early
    launch_clear_then(y, K, stream, kernel, grid, dim3(kWarpSize, kT2Warps), A, x, y, M, K, plan.chunk, accumulate);
    return;
  }
  if (accumulate) CUDA_CHECK(cudaMemsetAsync(y, 0, static_cast<std::size_t>(K) * sizeof(float), stream));
  kernel<<<grid, dim3(kWarpSize, kT2Warps), 0, stream>>>(A, x, y, M, K, plan.chunk, accumulate);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemv
