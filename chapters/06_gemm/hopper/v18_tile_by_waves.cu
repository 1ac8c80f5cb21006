/// @file
/// @brief v18: v16's kernel with a 128 x 128 tile where its waves end before 128 x 256 tiles' (sm_90a).
#include "gemm.hpp"
#include "warp_specialized_kernel.cuh"

namespace gemm {

// v18's second configuration is V18HalfTiles in warp_specialized_kernel.cuh (v19 splits it).

/// The tile v18 runs a problem with (see launch_gemm_v18_tile_by_waves()).
// [choose]
bool v18_takes_half_tiles(std::int64_t m, std::int64_t n, int sms) {
  // A wave is one tile per SM; a problem takes (its waves) x (a tile's time). A half tile takes
  // about two thirds of a large one's time, not half: each k-slice of A feeds half the columns,
  // and a tile's first loads and epilogue do not shrink (measured: see the doc comment below).
  // So halve the tile only where that saves more waves than it costs: 1024^3 has 32 large tiles
  // (one wave, a quarter full) or 64 half ones (still one wave): halve. 4095 x 4097 has 5 waves
  // of large tiles or 9 of half ones (9 x 2/3 = 6 > 5): keep. 2048^3 .. 8192^3 fill their waves.
  const std::int64_t large = ((m + 127) / 128) * ((n + 255) / 256), half = ((m + 127) / 128) * ((n + 127) / 128);
  const std::int64_t large_waves = (large + sms - 1) / sms, half_waves = (half + sms - 1) / sms;
  return 2 * half_waves < 3 * large_waves;
}
// [choose]

/// @brief v18: the tile chosen by how its waves fill the GPU (wave quantization).
///
/// **Idea.** A GPU runs a grid in waves of one block per SM (here: one 128 x 256 tile per SM), and
/// a problem's time is its number of waves times a tile's time. When the tiles do not fill the
/// last wave, the SMs without a tile idle: at 1024^3, v16's 32 tiles keep 32 of 132 SMs busy.
/// Halving the tile's width doubles the tiles and halves each one's work, so the same single wave
/// ends sooner, at the price of more loads per FLOP (each k-slice of A now feeds 128 columns
/// instead of 256). So choose per problem, from the counts of tiles and SMs, the tile whose
/// waves end first.
///
/// **Changed since v16.** No new kernel code: a second configuration of v16's kernel
/// (gemm_v14_warp_specialized() in warp_specialized_kernel.cuh), `block_n = 128` with six
/// stages (V18HalfTiles), and v18_takes_half_tiles(), which picks one of the two per call.
///
/// **What is still wrong.** Where even the half tiles leave most SMs idle (1024^3: 64 tiles), a
/// tile's whole k-loop is the critical path (v19 splits it), and a tile's fixed costs (its
/// first loads from DRAM, its epilogue) weigh on a problem of one short wave: cuBLAS still takes
/// three quarters of v18's time at 1024^3.
///
/// **Predicted.** At 1024^3 about 1.6x over v16 (twice the busy SMs, less than 2x because a
/// tile's fixed costs do not halve); unchanged where the large tile is kept.
///
/// **Measured.** Less than predicted, and the first rule was wrong once. H100, this step's runs
/// (the chapter's table below has the committed run): at 1024^3 v18 takes 0.0133 ms against v16's
/// 0.0177 (1.33x; 0.77 of cuBLAS BF16, v16 0.58); 768^3 1.37x, 512^3 1.34x, 2048 x 1024 x 1024
/// 1.29x (0.93 of cuBLAS), 1024 x 1024 x 4096 1.36x. A half tile costs about 0.6-0.65 of a large
/// one where both fill their waves (the half tile always: 0.85x of v16 at 2048^3, 0.77x at
/// 4096^3), not 0.5. The first rule, v09's "keep the large tile when its waves are 90% full",
/// halved the tile at 4095 x 4097 x 1023 (5 waves, 82% full) and lost 5% there (0.2005 ms against
/// 0.1899); the rule above, with a half tile at two thirds of a large one, keeps it (9 x 2/3 > 5).
void launch_gemm_v18_tile_by_waves(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                   const __nv_bfloat16* a, const __nv_bfloat16* b, float beta, float* c,
                                   cudaStream_t stream) {
  if (v18_takes_half_tiles(m, n, sm_count())) {
    launch_warp_specialized<WsConfig<V18HalfTiles>>(m, n, k, alpha, a, b, beta, c, stream, WsGrid::persistent);
  } else {
    launch_warp_specialized<WsConfig<V16Tiles>>(m, n, k, alpha, a, b, beta, c, stream, WsGrid::persistent);
  }
}

}  // namespace gemm
