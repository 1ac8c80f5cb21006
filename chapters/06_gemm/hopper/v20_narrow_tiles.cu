/// @file
/// @brief v20: v18's choice by waves among three tiles, with a 128 x 64 one (wgmma n = 64) for
/// the smallest problems (sm_90a).
#include <cstdint>

#include "gemm.hpp"
#include "warp_specialized_kernel.cuh"

namespace gemm {

// v20's third configuration is V20NarrowTiles in warp_specialized_kernel.cuh (v25 reuses it).

// [choose]
int v20_tile_n(std::int64_t m, std::int64_t n, int sms) {
  // v18's rule with a third tile: a problem takes (its waves) x (a tile's time), a 128 x 128 tile
  // about 2/3 of a 128 x 256 one's time (measured for v18), and a 128 x 64 tile predicted at 2/3
  // of that again, 4/9. In ninths: 9, 6 and 4 per wave; the widest of the cheapest wins.
  // 1024^3: one wave of each (32, 64 or 128 tiles): 128 x 64. 2048 x 1024: 1, 1, 2 waves: 128 x
  // 128. 2048^3 and larger, 4095 x 4097: 128 x 256.
  const std::int64_t rows = (m + 127) / 128;
  const auto waves = [&](std::int64_t bn) { return (rows * ((n + bn - 1) / bn) + sms - 1) / sms; };
  const std::int64_t cost256 = 9 * waves(256), cost128 = 6 * waves(128), cost64 = 4 * waves(64);
  if (cost256 <= cost128 && cost256 <= cost64) return 256;
  return cost128 <= cost64 ? 128 : 64;
}
// [choose]

/// @brief v20: a narrower tile still, 128 x 64.
///
/// **Idea.** ncu on 1024^3 (H100): v18's kernel runs 64 blocks of 128 x 128 for 12.1 µs, its
/// tensor pipe busy 46% of the time on the SMs it has; cuBLAS runs 128 blocks of 128 x 64
/// (`nvjet_sm90_tss_128x64_...`) for 8.0 µs. The same wave-quantization argument as v18's, one
/// step further: 128 tiles of 128 x 64 fill one wave of 132 SMs, each with half of a 128 x 128
/// tile's work and all of its k-slices (no split, no clearing of C: v19's cost).
///
/// **Changed since v19.** A third configuration of v16's kernel (`block_n = 64`, eight stages;
/// the kernel's wgmma_kslice() now also issues m64n64k16), and v20_tile_n(), v18's rule over the
/// three tiles. It does not split K: where v19 splits (long k-loops on few tiles) v20 takes the
/// narrow tile instead.
///
/// **What is still wrong.** A 128 x 64 tile loads A once per 64 columns of output, twice v18's
/// traffic per FLOP, and the 4/9 in the rule is not what it costs on every shape (below).
///
/// **Predicted.** At 1024^3 about cuBLAS's 8 µs kernel, 0.0095-0.0105 ms in the table (0.95-1.05x
/// cuBLAS BF16); at 1024 x 1024 x 4096 about v19's time without its clearing pass.
///
/// **Measured.** Close at 1024^3, not everywhere. H100, this step's runs (the chapter's table below
/// has the committed run): 1024^3 0.0116 ms against v18's 0.0133 (1.15x; 0.91 of cuBLAS BF16 in
/// that run, 0.85 in a second one: 0.0114 against 0.0097); 512^3 0.0086 against 0.0099, 768^3
/// 0.0100 against 0.0119 (0.81-0.83 of cuBLAS). At 1024 x 1024 x 4096 0.0278 ms, between v18
/// (0.0336) and v19's split (0.0264): the prediction was close. The narrow tile always costs 0.51x
/// of v18 at 4096^3 and 0.61x at 2048^3, so the rule keeps it to the small problems, where it
/// chooses it. But at 1000^3, the same tile counts as 1024^3, it is *slower* than v18: 0.0163 ms
/// against 0.0139, not understood yet.
///
/// **Tried after v20, not a step: pairs of narrow tiles sharing B.** ncu at 1024^3 (H200, commit
/// f931b59) shows cuBLAS's kernel, `nvjet_sm90_tss_128x64_64x8_1x2_h_bz_NNT`, to be v20's tile,
/// stages and threads in clusters of two, 9.25 µs against v20's 12.0, with 17% fewer L2 read
/// sectors (660k against 795k) and L2 busy only 22-27% of the time in both. v17's sharing on
/// v20's tile (each CTA multicasting 32 of the 64 k-rows of the one B box; commit 4bc9e36,
/// reverted) was correct (tests and the three sanitizers clean) but **slower**: 0.94-0.97x v20
/// at 1024^3, 512^3, 768^3 and 1024 x 1024 x 4096 in the same runs (1.07x at 1000^3 only; at
/// 2048 x 1024, where both ran v20's 128 x 128 tile, they differed by 4%: the noise), 13.2 µs
/// under ncu, with *more* L2 read sectors (1.01M). What makes cuBLAS's kernel faster at this size
/// is not the cluster alone.
void launch_gemm_v20_narrow_tiles(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                                  const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  launch_by_tile_width<V20NarrowTiles, V18HalfTiles, V16Tiles>(v20_tile_n(m, n, sm_count()), m, n, k, alpha, a, b,
                                                               beta, c, stream);
}

}  // namespace gemm
