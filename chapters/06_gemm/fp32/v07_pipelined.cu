/// @file
/// @brief v07: v06's tiles fed by a 3-stage cp.async pipeline (sm_80+).
#include "gemm.hpp"
#include "ffma_configs.hpp"
#include "ffma_pipeline.cuh"

namespace gemm {

/// @brief v07: a multi-stage cp.async pipeline.
///
/// **Idea.** Overlap the loads of future k-slices with the math on the current one. Shared
/// memory holds 3 slices; while the warps compute slice t, the copies of t+1 and t+2 are in
/// flight. `cp.async` (Ampere and later) copies global to shared memory directly, without
/// registers and without stalling the issuing thread; commit groups and `cp.async.wait_group`
/// tell each thread when its copies have landed, and one barrier per slice makes them visible to
/// all (and frees the oldest stage for reuse). See gemm_v07_pipelined() in ffma_pipeline.cuh.
///
/// **Changed since v06.** The loads: A still lands transposed, now as 4-byte `cp.async` per
/// element (a 16-byte copy cannot transpose); B as 16-byte `cp.async` (4-byte when N % 4 != 0 or
/// B is misaligned). Zero-fill (`src-size` 0) replaces the predicated register loads at the
/// edges. One barrier per slice instead of two. The kernel is a template over its parameters,
/// ready for the search of v08.
///
/// **What is still wrong.** The parameters are v06's guesses, and each thread's 8 x 8 tile needs
/// 4 LDS.128 per 64 FFMA: other tile shapes may do better (v08). Edge handling costs nothing in
/// the interior, but A's copies are 4 bytes each (4 instructions per float4 of data).
///
/// **Predicted.** 10-20% over v06: the barrier no longer waits on DRAM latency. 75-90% of cuBLAS.
///
/// **Measured** (H100 run of the chapter at git 0b38325, fp32 tables). 38.01 TFLOP/s at 4096^3
/// (3.616 ms) against v06's 37.64: +1%, not 10-20%; 0.74 of cuBLAS SGEMM (51.67). 38.71 TFLOP/s
/// at 8192^3 (0.75 of cuBLAS), 35.02 at 4095 x 4097 x 1023 (0.75), 16.34 at 1024^3 (0.49; v06:
/// 11.22). The prediction failed at the large sizes: the pipeline alone gains little there
/// (v08's search changes the tile shape and the copies instead).
// [launch]
void launch_gemm_v07_pipelined(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                              const float* b, float beta, float* c, cudaStream_t stream) {
  launch_pipelined<FfmaConfig<V07Tiles>>(m, n, k, alpha, a, b, beta, c, stream);
}
// [launch]

}  // namespace gemm
