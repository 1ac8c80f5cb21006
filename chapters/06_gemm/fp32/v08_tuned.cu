/// @file
/// @brief v08: v07's kernel in the configuration a search chose (bin/gemm_tune, tune/ffma_candidates.cu).
#include "ffma_configs.hpp"
#include "ffma_pipeline.cuh"
#include "gemm.hpp"

namespace gemm {

/// @brief v08: tuned parameters.
///
/// **Idea.** The best tile sizes depend on the GPU (registers, shared memory, SM count, latency),
/// and on the problem shape. Rather than guess, time a small set of configurations of the same
/// kernel on the device and keep the winner. `bin/gemm_tune` times every candidate of
/// tune/ffma_candidates.cu at 4096^3 and 8192^3 next to cuBLAS SGEMM and v08, and prints (with
/// --json, writes) the table.
///
/// **Changed since v07.** The configuration (V08Tiles), and one idea: two switches of the kernel,
/// off in v07 (gemm_v07_pipelined() in ffma_pipeline.cuh):
/// - *double-buffered fragments* (frag_buffers = 2): the fastest SGEMMs load the fragments of
///   k-step p+1 from shared memory into a second set of registers while the FFMAs of step p
///   issue, and move the barrier of the next slice in front of the last k-step of the current
///   one, so that even the first step after a barrier finds its operands in registers. With one
///   block of 8 warps per SM (two per scheduler) there is little else to hide that latency.
/// - *interior copies* (interior_copies): v07 computes each copy's address and bounds check per
///   slice (64-bit multiply, two compares, selects: about 10 instructions per 4-byte copy of A).
///   Interior slices of interior blocks skip the checks and add a slice offset to addresses
///   computed once. Edge blocks and the last, partial slice keep v07's guarded copies.
///
/// The first search (git 09ac030, docs/results/gemm_tune.json of that commit) varied the k-slice (8 or 16), the
/// pipeline depth (3 or 4), the block tile (64 x 128 to 256 x 128) and the thread tile (8 x 8 or
/// 16 x 8). Its winner, 128 x 256 x 8 with 256 threads of 16 x 8 (C1), is the base of the second
/// search's candidates, with the switches alone and together, a 16-wide k-slice, 4 stages, and two
/// blocks of 128 x 128 x 16 per SM.
///
/// **What is still wrong.** The FFMA pipe is the roof: even at 100% issue efficiency CUDA cores
/// give 2 x 128 FLOP per SM per clock. Tensor cores (v10, v11) are the next factor of ten. With
/// double-buffered fragments, ptxas uses all 255 registers a thread can have (no spills). And one
/// configuration does not suit every shape: at 1024^3 its 32 tiles leave most SMs idle (v09).
///
/// **Predicted.** First search: the 16 x 8 thread tile wins by 5-10% over v07 (fewer shared loads
/// and less index arithmetic per FFMA), 90-100% of cuBLAS SGEMM at 4096^3 and 8192^3. Second
/// search: each switch alone gains 2-4% over C1; together with BK = 16 (C5, half the barriers per
/// FFMA) 44-47 TFLOP/s, 86-92% of cuBLAS at 4096^3, a little more at 8192^3 (more waves, less
/// tail). Two blocks of 128 x 128 (C6) lose a little to C5: the same warps per SM, but 1.33x the
/// global loads per FLOP.
///
/// **Measured.** First search (H200, 4096^3): the 16 x 8 thread tiles did win (128 x 128 x 8 with
/// 16 x 8: 41.2 TFLOP/s against v07's 38.3, +8%), and the 128 x 256 block tile (C1) won overall at
/// 42.2 TFLOP/s, 82% of cuBLAS SGEMM's 51.4 in the same run: short of the 90% target. Second search
/// (H200, same run as cuBLAS; git 83bedf3, whose gemm_tune.json and gemm_tune_8192.json are in
/// the history): the prediction held and exceeded its range. C5 won, 48.07 TFLOP/s at 4096^3 (93.6% of cuBLAS SGEMM's 51.36) and 48.89 at
/// 8192^3 (95.4%); the interior copies were the bigger step (+9%, C1 -> C3), double buffering
/// alone +1.6% (C1 -> C2) and +1-2% on top of them (C3 -> C4), 16-wide slices +3-4% (C4 -> C5).
/// v08 runs C5. In the chapter's H100 run (git 0b38325): 47.35 TFLOP/s at 4096^3 (0.916 of cuBLAS
/// SGEMM's 51.67), 48.21 at 8192^3 (0.933), but 11.18 at 1024^3 (0.33: 32 tiles for 132 SMs) and
/// 31.38 at 4095 x 4097 x 1023 (0.67, slower than v07's 35.02: every slice stays
/// on the guarded path: N = 4097 leaves B's rows unaligned).
// [launch]
void launch_gemm_v08_tuned(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                          const float* b, float beta, float* c, cudaStream_t stream) {
  launch_pipelined<FfmaConfig<V08Tiles>>(m, n, k, alpha, a, b, beta, c, stream);
}
// [launch]

}  // namespace gemm
