/// @file
/// @brief v21: TF32 on the Hopper steps' machinery: fp32 operands through TMA, wgmma m64n256k8 TF32
/// with B^T's fragments from registers, since TF32 wgmma reads only K-major operands (sm_90a).
#include "gemm.hpp"
#include "tf32_kernel.cuh"

namespace gemm {

// v21's configuration, V21Tiles, is in tf32_kernel.cuh (v23 runs it too).

/// @brief v21: TF32 tensor cores through wgmma.
///
/// **Idea.** v10 ran TF32 through WMMA: 16 x 16 x 8 fragments loaded by every warp, no pipeline
/// worth the name, 0.17-0.37x cuBLAS TF32. The Hopper ladder's machinery (TMA into a ring of
/// stages, warp specialization, persistent blocks, wgmma) is not BF16-specific: TF32 wgmma
/// (m64nNk8) multiplies fp32 data read from shared memory, at half BF16's rate. One rule stands
/// in the way: for TF32, wgmma reads both operands K-major (no transposed form), and B here is
/// K x N row-major, N-major. A row-major A is K-major, so swap the roles: compute C^T = B^T A^T.
/// A's tile becomes wgmma's shared-memory operand (B, K-major, exactly as TMA loads it), and B^T
/// becomes wgmma's A operand, which may come from registers: the threads load it from B's tile
/// themselves, in whatever order the fragment needs (load_bt_fragments()).
///
/// **Changed since v20.** fp32 operands (32 fp32 = 128 bytes per k-slice row, TMA boxes of 32
/// columns of B); the roles swapped (a 256 x 128 tile of C, wgmma m64n256k8 on A's tile, each
/// consumer 64 columns of C from its B^T fragments); the epilogue transposes on its way through
/// the staging boxes. The rest is machinery of earlier steps, re-applied: clusters of two CTAs now
/// share A's tile through multicast (v17 shared B's), and C leaves through TMA stores (v16).
///
/// **What is still wrong.** One tile size: at 1024^3 its 32 tiles leave most SMs idle (v18's
/// lesson, not applied here).
///
/// **Predicted.** About v16's share of cuBLAS: 0.95x or better of cuBLAS TF32 at 4096^3 and
/// 8192^3 (the same pipeline at half the MMA rate: more time per slice to hide the loads); the
/// register fragments cost 16 shared-memory loads per thread per slice, a few percent.
///
/// **Measured.** Not at first: built up in five runs (H100, ratios to cuBLAS TF32 in the same
/// run, 4096^3 / 8192^3). (1) One CTA per tile, each slice's wgmma waited for before the next
/// slice's fragments are loaded, C stored from the registers: 0.4070 / 3.2339 ms, 0.81x / 0.82x.
/// (2) Two slices per wait: slower (0.4469 / 3.3343 ms): the consumers then hold two of the four
/// stages, and fewer loads are in flight. (3) Clusters of two sharing A's tile by multicast (each
/// CTA loads half): 0.3991 / 2.8708 ms, 0.84x / 0.90x (where v17's multicast of B paid nothing
/// for BF16; not profiled). (4) Two sets of fragment registers, so that a slice's
/// fragments load while the previous slice's wgmma run (and ptxas keeps them apart only without
/// a branch between the two slices: else it serializes every wgmma, advisory C7513):
/// 0.3779 / 2.7432 ms, 0.89x / 0.94x. (5) The TMA-store epilogue: 0.3382 / 2.6249 ms, 1.00x /
/// 0.99x. The store from registers wrote each 32-byte sector in two halves, one float per thread
/// and request, while both consumers stopped computing; it cost 11% at 4096^3, far more than the
/// 2% estimated. The chapter's table (below) has the committed run.
// [launch]
void launch_gemm_v21_wgmma_tf32(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                                const float* b, float beta, float* c, cudaStream_t stream) {
  launch_tf32<V21Tiles>(m, n, k, alpha, a, b, beta, c, stream);  // tf32_kernel.cuh
}
// [launch]

}  // namespace gemm
