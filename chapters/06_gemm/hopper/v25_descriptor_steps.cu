/// @file
/// @brief v25: v24 with each wgmma's shared-memory descriptors advanced by a constant per k-step
/// instead of rebuilt from the stage's address (sm_90a).
#include <cstdint>

#include "gemm.hpp"
#include "warp_specialized_kernel.cuh"

namespace gemm {

/// @brief v25: wgmma descriptors advanced, not rebuilt (attention's v15, for the GEMM).
///
/// **Idea.** A `wgmma` reads its shared-memory operands through 64-bit descriptors whose low 14
/// bits hold the operand's address / 16. v12-v24 build both descriptors from the stage's address
/// for each of a k-slice's four k-steps (a mask, a shift, the fixed fields, a move to a uniform
/// register), in the consumers that wait for the stage and then issue the wgmma. Within a slice
/// each k-step is a fixed byte offset from the slice's start (32 bytes along A's 128-byte rows,
/// 16 rows of B's), so one descriptor per operand and slice does, each k-step adding its offset
/// / 16, as CUTLASS's descriptor iterators do and as the attention chapter's v15 does.
///
/// **Changed since v24.** `desc_steps = true` in each of v24's four configurations (V25LargeTiles
/// ... V25PairTiles in warp_specialized_kernel.cuh, `[v25_config]`; wgmma_kslice() in hopper.cuh,
/// `[kslice]`); v24's choice among them, unchanged.
///
/// **What is still wrong.** What separates v20's tile from cuBLAS at 1024^3 is the time its
/// consumers wait for each slice's loads (v24's page section); fewer instructions around the
/// wait shorten the turn only a little.
///
/// **Measured first in a development call** (H200, on top of commit 4919591; the change as a
/// switch of v20's and v16's configurations): ncu counted 2.15 million warp instructions for
/// v20's kernel at 1024^3 and 1.80 million with the descriptors advanced (-16%), the kernel's
/// duration 9.66 against 9.60 µs (-0.6%, clocks not locked, medians of 9 launches); timed,
/// 1.05-1.08x v20 in all eight rows at 512^3, 1024^3 and 1024 x 1024 x 4096 (two calls of each
/// order, 300 repetitions; 1024^3: 0.0110-0.0113 against 0.0117-0.0121 ms), and v16's
/// 128 x 256 tile unchanged at 4096^3 and 8192^3 (0.995-1.003x). The timed gain is not in the
/// kernel's duration as ncu measures it (a kernel alone, caches flushed): we have not found
/// where it is.
///
/// **Predicted** (for the chapter's recorded run, written before it): 1.04-1.08x v20 at 1024^3,
/// 0.90-0.93 of cuBLAS BF16; 1.00-1.05x v24 at 1024 x 1024 x 4096 (v24's pairs, not timed with
/// the change before); within 1% of v24 where the tiles are large.
///
/// **Measured** (the chapter's recorded run, H200, commit 70516fd). Less than predicted at 1024^3:
/// 0.0109 ms against v20's 0.0112 (1.03x), 0.87 of cuBLAS BF16 (0.0096 ms in that run, 0.0098-0.0103
/// in the development calls). At 1024 x 1024 x 4096, on v24's pairs, 0.0232 against v24's 0.0241
/// ms (1.04x, 0.78 of cuBLAS). Where the tiles are large, 0.987-0.996x of v24 (2048^3 to 8192^3 and
/// 4095 x 4097 x 1023): within the noise between rows. In a later call (commit be0e2b6, four runs
/// of 300 repetitions, both orders) 0.0110-0.0112 ms at 1024^3 against v20's 0.0117-0.0119
/// (1.06-1.07x) and cuBLAS's 0.0100-0.0103: 0.91-0.92 of cuBLAS BF16 in each; a fifth run (commit
/// 3559a1e) 0.0116 against 0.0123 and 0.0103: 1.06x v20, 0.89 of cuBLAS.
// [launch]
void launch_gemm_v25_descriptor_steps(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                      const __nv_bfloat16* a, const __nv_bfloat16* b, float beta, float* c,
                                      cudaStream_t stream) {
  launch_pairs_or_tile_width<V25PairTiles, V25NarrowTiles, V25HalfTiles, V25LargeTiles>(m, n, k, alpha, a, b, beta, c,
                                                                                      stream);
}
// [launch]

}  // namespace gemm
