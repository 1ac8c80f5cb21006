/// @file
/// @brief v7: v6's tiles fed by a 3-stage cp.async pipeline (sm_80+).
#include "gemm.hpp"
#include "v7_pipelined.cuh"

namespace gemm {

/// v7's configuration: v6's tiles (128 x 128 x 8, warps of 32 x 64, 8 x 8 per thread), 3 stages,
/// 2 blocks per SM (at most 128 registers per thread).
using V7Config = FfmaConfig<128, 128, 8, 32, 64, 8, 8, 3, 2>;

/// @brief v7: a multi-stage cp.async pipeline.
///
/// **Idea.** Overlap the loads of future k-slices with the math on the current one. Shared
/// memory holds 3 slices; while the warps compute slice t, the copies of t+1 and t+2 are in
/// flight. `cp.async` (Ampere and later) copies global to shared memory directly, without
/// registers and without stalling the issuing thread; commit groups and `cp.async.wait_group`
/// tell each thread when its copies have landed, and one barrier per slice makes them visible to
/// all (and frees the oldest stage for reuse). See gemm_v7_pipelined() in v7_pipelined.cuh.
///
/// **Changed since v6.** The loads: A still lands transposed, now as 4-byte `cp.async` per
/// element (a 16-byte copy cannot transpose); B as 16-byte `cp.async` (4-byte when N % 4 != 0 or
/// B is misaligned). Zero-fill (`src-size` 0) replaces the predicated register loads at the
/// edges. One barrier per slice instead of two. The kernel is a template over its parameters,
/// ready for the search of v8.
///
/// **What is still wrong.** The parameters are v6's guesses, and each thread's 8 x 8 tile needs
/// 4 LDS.128 per 64 FFMA: other tile shapes may do better (v8). Edge handling costs nothing in
/// the interior, but A's copies are 4 bytes each (4 instructions per float4 of data).
///
/// **Predicted.** 10-20% over v6: the barrier no longer waits on DRAM latency. 75-90% of cuBLAS.
///
/// **Measured.** See the chapter page's table.
void launch_gemm_v7_pipelined(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                              const float* b, float beta, float* c, cudaStream_t stream) {
  launch_pipelined<V7Config>(m, n, k, alpha, a, b, beta, c, stream);
}

}  // namespace gemm
