/// @file
/// @brief v09: the tile shape, threads per block and tile order chosen by a measured search
/// (tune/, `transpose_tune`), on one template kernel (wide_tiles.cuh).
#include <string>

#include "wide_tiles.cuh"

namespace transpose {

/// @brief The configuration v09 runs, chosen by the search `transpose_tune` (tune/tune.hpp): its
/// second round's winner on the H200, candidate tune::T13 (row tr64x64_t512_f1_g8). v06's
/// 64 x 64 tile (the WideTile defaults) with what the search changed: scalar accesses and a
/// padded tile, 512 threads, bands of 8 tile rows.
// [config]
struct V9Tiles : WideTile {
  static constexpr int threads = 512;       ///< 512 threads: 8 scalar loads each per 64 x 64 tile
  static constexpr bool vec_read = false;   ///< scalar loads (float4 lost in the search)
  static constexpr bool vec_write = false;  ///< scalar stores, padded tile
  static constexpr unsigned order = 8;      ///< bands of 8 tile rows
};
// [config]

std::string v9_summary() { return "tuned tiles: " + config_summary<V9Tiles>() + " (transpose_tune)"; }

std::string v9_unavailable() { return smem_unavailable<V9Tiles>(); }

/// @brief v09: tile shape, threads and tile order from a search; tiles taken in bands.
///
/// **Idea.** When v06 and v07 stall near the tiled copy (copy_tile), itself below cudaMemcpy,
/// the tile's shape and the order in which tiles are handed out, not the transposition, are
/// what is left. Three things differ from a plain copy. (1) Each block touches many short
/// pieces of rows (v06: 256 bytes of 64 rows of A, 256 bytes of 64 rows of B), where a copy
/// streams whole rows. (2) In row-major tile order the blocks that run together read a few
/// rows of A in long runs but write 256-byte pieces of thousands of rows of B, so DRAM pages
/// of B are opened for a few hundred bytes each. (3) The bytes a block has in flight depend
/// on its tile and thread count. Rather than guess which matters on this GPU, one template
/// kernel (transpose_wide_tiles) takes all of them as parameters, `transpose_tune` times a
/// set of configurations (and the copy of each, to see which lifts the roof itself), and v09
/// runs the winner (V9Tiles).
///
/// **Changed since v06.** Any tile of whole 32 x 32 blocks (v06: 64 x 64 only), the v05/v06 swizzle
/// over the wider rows; the tile order tile_banded() (bands of tile rows, taken column by
/// column) instead of row-major; interior tiles without bounds tests (edge tiles keep them);
/// 32-bit tile arithmetic. For shapes without the vector path (R or C not a multiple of 4,
/// misaligned pointers) it runs the same tile and order with scalar accesses and a padded
/// tile, not v04.
///
/// **What is still wrong.** Each block still loads, waits at its barrier, then stores: inside
/// a block nothing overlaps (other blocks on the SM fill the gap). The tile is tuned for one
/// GPU and for large matrices; narrow ones (8192 x 1024) leave fewer tiles per band.
///
/// **Predicted.** With bands of 8 tile rows (T3), the blocks running together write B in runs
/// of ~2 KiB instead of 256 bytes: 90-95% of the copy bandwidth on 8192^2 and 16384^2, about
/// 10% above v06, and at or above cublasSgeam. If the search shows that the order does not
/// matter, the gain (if any) comes from the tile and the threads, and this prediction was wrong.
///
/// **Measured.** In the search (H200, search table on the chapter page) the prediction was
/// wrong: with float4 on both sides the 64 x 64 banded tile (T3, what v09 first ran) reached
/// only 72.7% of the copy roof at 8192^2 and 74.0% at 16384^2, *below* v06 (82.3%, 84.4%). In
/// the same search the same tile with scalar loads and stores (T10) reached 89.3% and 90.9%:
/// the wide float4 path is what lost, not the tile shape or the order. A second round around
/// T10 found 512 threads (T13) best on the square shapes and the band height nearly irrelevant
/// (< 1%); v09 runs T13. In the ladder's run (H100 run of git 0b38325, docs/results/transpose.json;
/// % of the 3006 GB/s copy roof): 0.1922 ms on 8192^2 (2793.4 GB/s, 92.9%, 0.990x cublasSgeam,
/// against v06's 87.7%), 0.7596 ms on 16384^2 (94.0%, 0.981x), and the fastest transpose on
/// 4096^2 (0.0517 ms, 1.017x), 8192 x 1024 (0.0283 ms, 1.031x) and 1024 x 8192 (0.0289 ms, 1.012x).
void launch_transpose_v09_tuned_tiles(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream) {
  launch_transpose_wide_tiles<V9Tiles>(A, B, R, C, stream);
}

}  // namespace transpose
