/// @file
/// @brief v19: v18 with each tile's k-slices split over blocks where even the half tiles leave
/// SMs idle; the blocks add their parts into C with TMA reduce-adds (sm_90a).
#include <algorithm>

#include "gemm.hpp"
#include "warp_specialized_kernel.cuh"

namespace gemm {

/// v19's configuration: v18's half tile, its k-slices split over blocks.
// [config]
struct V19SplitTiles : V18HalfTiles {
  static constexpr bool split_k = true;  ///< blocks share a tile's k-slices and add into C (v18: false)
};
// [config]

// [choose]
int v19_splits(std::int64_t m, std::int64_t n, std::int64_t k, int sms) {
  // Even v18's half tiles leave most SMs idle on a small problem: 1024 x 1024 has 64 of them
  // for 132 SMs. Give each tile to `splits` blocks, each taking a contiguous share of its
  // k-slices: as many as one wave holds (64 tiles: 2, so 128 blocks), at most 4, and only where
  // each share keeps at least 16 k-slices (K >= 1024 per block). Shorter shares do not pay for
  // clearing C first: at 1024^3, two shares of 8 slices took 0.0158 ms against v18's 0.0133.
  // 1: no split, v18 runs.
  const std::int64_t half_tiles = ((m + 127) / 128) * ((n + 127) / 128);
  const std::int64_t slices = (k + sm90::kBK - 1) / sm90::kBK;
  const std::int64_t splits = std::min<std::int64_t>({sms / half_tiles, slices / 16, 4});
  return splits >= 2 ? static_cast<int>(splits) : 1;
}
// [choose]

namespace {

/// C *= beta, four floats at a time (the split path's C has rows of a multiple of 4 floats and a
/// 16-byte aligned base).
__global__ void gemm_v19_scale_c(float4* __restrict__ c, std::int64_t count4, float beta) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count4; i += stride) {
    float4 v = c[i];
    v.x *= beta, v.y *= beta, v.z *= beta, v.w *= beta;
    c[i] = v;
  }
}

}  // namespace

/// @brief v19: split-K, the tile's k-slices shared by several blocks.
///
/// **Idea.** v18 fixed the waves with smaller tiles, but a small problem has few tiles of any
/// useful size: 1024^3 gives 64 half tiles to 132 SMs. The remaining parallelism is along K:
/// give a tile to two blocks, each computing the product over half of the k-slices, and add the
/// two partial products. Each block's k-loop is half as long, and 128 blocks keep 128 SMs busy.
/// The addition costs little when the TMA unit does it: `cp.reduce.async.bulk.tensor ... .add`
/// adds a staged box into C in global memory (in L2) atomically, so the blocks of a tile need no
/// workspace and no second pass. C must hold beta * C before they start: a memset (beta = 0) or
/// a scaling kernel runs first on the same stream.
///
/// **Changed since v18.** `split_k = true` in the configuration of the same kernel
/// (gemm_v14_warp_specialized() in warp_specialized_kernel.cuh): a unit of work is a tile and a
/// share of its k-slices (`[split_range]`), the first wgmma of a unit zeroes the accumulators at
/// that share's first slice, and the epilogue issues tma_reduce_add() instead of tma_store()
/// without reading C. The host runs v19_splits() and, where it splits, clears or scales C first;
/// elsewhere v19 is v18. The sum's order over the blocks changes from run to run: the result is
/// not bit-for-bit reproducible (within the same fp32 tolerance).
///
/// **What is still wrong.** The memset or scaling of C is a separate pass over C before the
/// kernel; stream-K (blocks that take equal shares of all tiles' slices, fixing up the tiles they
/// share) would also balance problems whose tiles almost fill the waves.
///
/// **Predicted.** At 1024^3, with two shares of 8 k-slices: 10-11 µs, about 0.9 of cuBLAS (the
/// k-loop halves; clearing C costs about 2 µs).
///
/// **Measured.** Wrong at 1024^3, right where K is long. H100, this step's runs (the chapter's
/// table below has the committed run): at 1024^3 two shares of 8 slices took 0.0158 ms, slower than
/// v18's 0.0133 (512^3 and 768^3 likewise: 0.0120 against 0.0095, 0.0138 against 0.0115): the
/// memset of C and its launch cost more than the shorter k-loop saves. So v19 now splits only
/// where every share keeps 16 slices or more, and at 1024^3 it runs v18. At 1024 x 1024 x 4096
/// (two shares of 32 slices) it takes 0.0264 ms against v18's 0.0329 (1.25x; 0.75 of cuBLAS, v18
/// 0.60).
void launch_gemm_v19_split_k(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                             const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  const bool can_split = m > 0 && n > 0 && k > 0 && n % 4 == 0 && aligned16(c);  // TMA reduce needs aligned rows
  const int splits = can_split ? v19_splits(m, n, k, sm_count()) : 1;
  if (splits == 1) {
    launch_gemm_v18_tile_by_waves(m, n, k, alpha, a, b, beta, c, stream);
    return;
  }
  check_dims(m, n, k);
// [prepare_c]
  // C = beta * C before the blocks add into it (beta = 0: zeros, C is not read).
  if (beta == 0.0f) {
    CUDA_CHECK(cudaMemsetAsync(c, 0, static_cast<std::size_t>(m * n) * sizeof(float), stream));
  } else {
    const std::int64_t count4 = m * n / 4;
    const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((count4 + 255) / 256, 4 * sm_count()));
    gemm_v19_scale_c<<<blocks, 256, 0, stream>>>(reinterpret_cast<float4*>(c), count4, beta);
    CUDA_CHECK_LAUNCH();
  }
// [prepare_c]
  launch_warp_specialized<WsConfig<V19SplitTiles>>(m, n, k, alpha, a, b, beta, c, stream, WsGrid::persistent, splits);
}

}  // namespace gemm
