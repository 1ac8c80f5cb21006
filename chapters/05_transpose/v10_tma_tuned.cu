/// @file
/// @brief v10 (Hopper, sm_90): v08's TMA transpose with the box, pipeline depth and tiles per
/// block chosen by the tuning search (tune/, `transpose_tune`), on one template kernel (tma_tiles.cuh).
#include <string>

#include "tma_tiles.cuh"
#include "transpose.hpp"

namespace transpose {

/// @brief The configuration v10 runs, chosen by the search `transpose_tune` (its TMA rows,
/// tune/tma_candidates.cu): the fourth H100 round's winner, candidate tune::M25 (row
/// tma64x64_s2_k1_cm). The TmaTile defaults (64 x 64 boxes, 2 stages, 128 threads) with what the
/// search changed: one tile per block, column-major tile order.
// [config]
struct V10Tiles : TmaTile {
  static constexpr int tiles_per_block = 1;     ///< one tile per block: no pipeline inside a block
  static constexpr unsigned order = kColMajor;  ///< column-major tile order
};
// [config]

std::string v10_summary() { return "tuned TMA: " + tma_summary<V10Tiles>() + " (transpose_tune)"; }

/// @brief v10: TMA with 64 x 64 boxes, one tile per block, column-major tile order.
///
/// **Idea.** v08 showed that the TMA unit can do all the global traffic of a transpose, but
/// with 4 KB boxes, 2 stages and one persistent wave it stayed below v06: each block had at
/// most one 4 KB load in flight, and the grid's fixed split of tiles left SMs idle at the end.
/// The search (transpose_tune, TMA rows) varied what sets the bytes in flight and the balance:
/// the box (16 KB: 4x the bytes per request), the stages (boxes requested ahead per block), the
/// tiles per block, the tile order, L2 promotion and cache hints.
///
/// **Changed since v08.** Only parameters of the same kernel (tma_tiles.cuh generalizes v08's:
/// S load stages instead of 2, a fixed run of tiles per block, shared memory sized to the
/// boxes a block uses). The configuration is one tile per block: no pipeline inside a block;
/// six 32 KB blocks per SM, each waiting on its own TMA load, are the pipeline.
///
/// **What is still wrong.** Tied to sm_90 and to shapes the tensor maps can describe (R and C
/// multiples of 4, aligned pointers; others run v04's kernel). One thread issues every copy,
/// and the transposition inside shared memory is still done by the threads, scalar by scalar.
///
/// **Predicted.** For the search's first configuration (64 x 64 boxes, 4 stages, 4 tiles per
/// block, row-major; H200): ~90% of the copy roof on 8192^2 and 93-94% on 16384^2.
///
/// **Measured.** That first configuration (H200): 88.9% (1.01x cublasSgeam) and 93.1% (a tie).
/// On the H100 it reached 92.9% and 96.2% but 0.99x cublasSgeam on 8192^2; three more search
/// rounds on the H100 (the chapter page) found fewer tiles per block better at every step (16,
/// 8, 4, 2, 1) and the hints and orders within 1-3%. With one tile per block in column-major
/// order (H100 run of git 0b38325, docs/results/transpose.json; % of the 3006 GB/s copy roof):
/// 0.1885 ms on 8192^2 (2847.9 GB/s, 94.7%, 1.0095x cublasSgeam), 0.7372 ms on 16384^2
/// (2913.1 GB/s, 96.9%, 1.0113x), the fastest transpose on both; 0.0292 ms on 8192 x 1024 and
/// 0.0290 ms on 1024 x 8192, within 3% of v09 (0.0283, 0.0289 ms).
void launch_transpose_v10_tma_tuned(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream) {
  launch_transpose_tma_tiles<V10Tiles>(A, B, R, C, stream);
}

}  // namespace transpose
