/// @file
/// @brief v23: v21 with the tile's rows (256, 128 or 64) chosen by how its waves fill the GPU,
/// v18's idea for TF32 (sm_90a).
#include <cstdint>

#include "gemm.hpp"
#include "tf32_kernel.cuh"

namespace gemm {

/// v23's two smaller configurations of the TF32 kernel: v21's with 128 and with 64 rows of C per
/// block (wgmma m64n128k8 and m64n64k8); a stage is then 32 or 24 KiB, so 6 or 8 fit.
// [config]
struct V23Tiles128 {
  static constexpr int parts = 1;         ///< one TF32 part per operand, as v21
  static constexpr int rows = 128;        ///< (v21: 256)
  static constexpr int stages = 6;        ///< 6 stages of 32 KiB (v21: 4 of 48)
  static constexpr bool promote = false;  ///< as v21
};
/// v23's smallest configuration: 64 rows of C per block (m64n64k8), 8 stages of 24 KiB.
struct V23Tiles64 {
  static constexpr int parts = 1;         ///< one TF32 part per operand, as v21
  static constexpr int rows = 64;         ///< (v21: 256)
  static constexpr int stages = 8;        ///< 8 stages of 24 KiB
  static constexpr bool promote = false;  ///< as v21
};
// [config]

// [choose]
int v23_tile_rows(std::int64_t m, std::int64_t n, int sms) {
  // v18's rule: a problem takes (its waves) x (a tile's time). Units of work are pairs of tiles
  // side by side (clusters of two along N), sms / 2 of them at a time. A tile's time, predicted:
  // proportional to its rows plus a fixed part, 256 : 128 : 64 rows = 20 : 12 : 7. The widest of
  // the cheapest wins. 1024^3: one wave each (16, 32 or 64 pairs): 64 rows. 2048^3: 1, 2 and 4
  // waves: 256 rows. 4095 x 4097: 5, 9 and 17 waves (100, 108, 119): 256 rows.
  const std::int64_t pairs_n = ((n + 127) / 128 + 1) / 2, slots = sms / 2 > 0 ? sms / 2 : 1;
  const auto waves = [&](std::int64_t rows) { return ((m + rows - 1) / rows * pairs_n + slots - 1) / slots; };
  const std::int64_t cost256 = 20 * waves(256), cost128 = 12 * waves(128), cost64 = 7 * waves(64);
  if (cost256 <= cost128 && cost256 <= cost64) return 256;
  return cost128 <= cost64 ? 128 : 64;
}
// [choose]

/// @brief v23: TF32 tiles chosen by waves.
///
/// **Idea.** v21's 256 x 128 tiles give a 1024^3 problem 32 tiles, 16 cluster pairs, for 132 SMs:
/// three quarters of the GPU idle, 0.62x cuBLAS TF32. The cure is v18's: a smaller tile where the
/// large one's waves leave SMs idle, here by halving the rows of C per block (wgmma's n), which the
/// TF32 kernel takes as a parameter: 128 or 64 rows give 32 or 64 pairs at 1024^3.
///
/// **Changed since v22.** Back to TF32 (v21's table); two more configurations of v21's kernel (128
/// and 64 rows, more stages in the same shared memory) and v23_tile_rows(), v18's rule over the
/// three; `wgmma m64n64k8` TF32 added to the wrappers.
///
/// **What is still wrong.** The costs 20 : 12 : 7 are a guess; the 64-row tile loads B's tile for
/// every 64 rows of C, four times v21's traffic per FLOP, which the rule keeps to small problems.
///
/// **Predicted.** At 1024^3 about twice v21's speed (a quarter of the work per SM, some fixed cost
/// per tile): 0.014 ms, at or above cuBLAS TF32 (0.0176); at 1024 x 1024 x 4096 likewise; v21's
/// times from 2048^3 on (the rule keeps its tile).
///
/// **Measured.** Half of the predicted gain (H100, this step's run): 1024^3 0.0219 ms against v21's
/// 0.0290 (1.32x), 1024 x 1024 x 4096 0.0646 against 0.0841 (1.30x; 0.74x cuBLAS TF32, 0.0476 in
/// that run). cuBLAS's 1024^3 row of that run was an outlier (0.0738 ms, against 0.0176 in the run
/// before); the chapter's table has the committed run. From 2048^3 on v23 runs v21's very kernel
/// (0.0521 against 0.0517 ms at 2048^3, 0.3333 against 0.3335 at 4096^3).
// [launch]
void launch_gemm_v23_tf32_tile_by_waves(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                                        const float* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  switch (v23_tile_rows(m, n, sm_count())) {
    case 64:
      launch_tf32<V23Tiles64>(m, n, k, alpha, a, b, beta, c, stream);
      return;
    case 128:
      launch_tf32<V23Tiles128>(m, n, k, alpha, a, b, beta, c, stream);
      return;
    default:
      launch_tf32<V21Tiles>(m, n, k, alpha, a, b, beta, c, stream);  // v21's tiles and kernel
  }
}
// [launch]

}  // namespace gemm
