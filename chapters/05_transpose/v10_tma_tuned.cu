/// @file
/// @brief v10 (Hopper, sm_90): v8's TMA transpose with the box, pipeline depth and tiles per
/// block chosen by the tuning search (`transpose_tune`), on one template kernel (tma_tiles.cuh).
#include <string>

#include "tma_tiles.cuh"
#include "transpose.hpp"

namespace transpose {

/// @brief The configuration v10 runs: TmaConfig<box rows, box cols, load stages, threads, tiles
/// per block, order>. One line, set from the measured winner of the search's TMA rows (its
/// names spell these arguments: tma64x64_s2_k1_cm is <64, 64, 2, 128, 1, kColMajor>).
// [config]
using V10Config = TmaConfig<64, 64, 2, 128, 1, kColMajor>;
// [config]

std::string v10_summary() { return "tuned TMA: " + tma_summary<V10Config>() + " (transpose_tune)"; }

/// @brief v10: TMA with 64 x 64 boxes, one tile per block, column-major tile order.
///
/// **Idea.** v8 showed that the TMA unit can do all the global traffic of a transpose, but
/// with 4 KB boxes, 2 stages and one persistent wave it stayed below v6: each block had at
/// most one 4 KB load in flight, and the grid's fixed split of tiles left SMs idle at the end.
/// The search (transpose_tune, TMA rows) varied what sets the bytes in flight and the balance:
/// the box (16 KB: 4x the bytes per request), the stages (boxes requested ahead per block), the
/// tiles per block, the tile order, L2 promotion and cache hints.
///
/// **Changed since v8.** Only parameters of the same kernel (tma_tiles.cuh generalizes v8's:
/// S load stages instead of 2, a fixed run of tiles per block, shared memory sized to the
/// boxes a block uses). The configuration is one tile per block: no pipeline inside a block;
/// six 32 KB blocks per SM, each waiting on its own TMA load, are the pipeline.
///
/// **What is still wrong.** Tied to sm_90 and to shapes the tensor maps can describe (R and C
/// multiples of 4, aligned pointers; others run v4's kernel). One thread issues every copy,
/// and the transposition inside shared memory is still done by the threads, scalar by scalar.
///
/// **Predicted and measured.** H200, first configuration (64 x 64 boxes, 4 stages, 4 tiles per
/// block, row-major; predicted ~90% of the copy roof on 8192^2 and 93-94% on 16384^2): 88.9%
/// (1.01x cublasSgeam) and 93.1% (a tie). On the H100 that configuration reached 92.9% and
/// 96.2% but 0.99x cublasSgeam on 8192^2; three more search rounds on the H100 (the chapter
/// page) found fewer tiles per block better at every step (16, 8, 4, 2, 1) and the hints and
/// orders within 1-3%. With one tile per block in column-major order (H100, chapter table):
/// 94.6% of the copy roof and 1.009x cublasSgeam on 8192^2, 96.9% and 1.011x on 16384^2, and
/// within 1% of v9 on the narrow shapes (the 4-tile configuration was about 10% behind there).
void launch_transpose_v10_tma_tuned(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream) {
  launch_transpose_tma_tiles<V10Config>(A, B, R, C, stream);
}

}  // namespace transpose
