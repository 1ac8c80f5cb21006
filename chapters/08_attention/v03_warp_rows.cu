/// @file
/// @brief v03: FlashAttention-2's work split on the CUDA cores: each warp owns 16 query rows from
/// the scores to the output; the softmax never leaves the warp, and O is rescaled once per tile.
#include "warp_rows_kernel.cuh"

namespace attention {

/// @brief v03: FlashAttention-2's work split. Each warp owns 16 query rows end to end; the only
/// block-wide step left is loading the K and V tiles.
///
/// **Idea.** In v02 every step of a tile is shared by the whole block, so every step ends at a
/// barrier and every intermediate (S, P, the row factors) goes through shared memory. FlashAttention-2
/// (Dao 2023, section 3.3) splits the work the other way: a warp owns its query rows and does
/// everything for them, from the scores to O. The row's max and sum are then reduced among 8
/// lanes of one warp with shuffles, no barrier; only P passes through shared memory (a slice per
/// warp, `__syncwarp` only), because the lane that owns a score is not the lane that needs it in
/// P V. The second change is FlashAttention-2's bookkeeping: O is kept *unnormalized*, multiplied by
/// 2^(m_old - m_new) once per tile, and divided by l once at the end (FlashAttention-1 multiplies
/// every row by l_old 2^(m_old - m_new) / l_new and divides P by l_new at every tile).
///
/// **Changed since v02.** Two barriers per tile instead of four; no S round trip through shared
/// memory; a register tile of 4 rows x Bc / 8 keys per lane for the scores and 4 rows x D / 8
/// columns for O, with float4 loads laid out so that no shared-memory read conflicts (strides
/// D + 4 for Q and K, Bc + 8 for P). The kernel, templated on its tiles, is in
/// warp_rows_kernel.cuh (`[kernel]`); the tiles v03 runs (V03Tiles64, V03Tiles128) are at the end of that header: at D = 64 4 warps
/// and 64-key tiles (68 KiB, three blocks per SM), at D = 128 8 warps and 96-key tiles (216 KiB,
/// one block per SM; causal blocks longest first, as v06 orders them), from the search of
/// tune/warp_rows_candidates.cu.
///
/// **Predicted.** Per 4 dims of a score, 4 + Bc / 8 float4 loads feed 16 Bc / 8 FMA: at D = 64
/// 128 FMA per 12 LDS.128; the FMA pipe, not shared memory, should be the limit: 40-50% of the FP32
/// peak (about 67 TFLOP/s on an H100 SXM), 2-3x v02.
///
/// **Measured (H100, the run at 0b38325).** 35.5 TFLOP/s at B4 H16 S1024 D64 and 37.2 at B4 H16
/// S4096 D64, 53-56% of that peak and 1.73-1.80x the cuBLAS-based library attention (SGEMM roof
/// of the run: 51.7), as predicted; but only 1.4x v02, which had beaten its own prediction. 37.4 at
/// B2 H16 S4096 D128 and 37.8 at B1 H32 S8192 D128; causal 26.4, 34.4, 36.2 and 37.6. How D = 128
/// got there (the search's runs, `attention_tune`): the first tiles (4 warps, 32-key tiles: two
/// blocks of 77 KiB per SM) reached 31.3 TFLOP/s, 1.1x v02. ncu (S8192 D128): shared-memory (L1)
/// throughput 71%, FMA pipe 49.5%, 8 warps per SM: with 4 keys per lane the scores take 8 FMA per
/// LDS.128. 8 warps with 64-key tiles (one block of 167 KiB per SM, 8 keys per lane) were
/// 1.11-1.18x faster, 96-key tiles (12 keys per lane, 216 KiB) another 3%; two blocks per SM of 4
/// warps (48- and 56-key tiles) and 12 warps of 64-key tiles lost 2-13%. With the causal mask and
/// one block per SM, query tiles started head by head, shortest first, leave the longest for last
/// and the GPU ends on a few of them (a simulation of the schedule: 86% busy at S4096, 93% at
/// S8192); started longest first (v06's order, block_tile()), the causal rate rose 13% and 6%.
// [launch]
void launch_attention_v03_warp_rows(const Shape& s, const float* q, const float* k, const float* v, float* o,
                                   float* lse, void* /*workspace*/, cudaStream_t stream) {
  check_shape(s);
  if (!unsupported_unless_d64_d128(s).empty()) {
    throw std::invalid_argument("v03_warp_rows: " + unsupported_unless_d64_d128(s));
  }
  if (s.d == 64) {
    launch_warp_rows<V03Tiles64>(s, q, k, v, o, lse, stream);
  } else {
    launch_warp_rows<V03Tiles128>(s, q, k, v, o, lse, stream);
  }
}
// [launch]

}  // namespace attention
