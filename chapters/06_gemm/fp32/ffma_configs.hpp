/// @file
/// @brief The configurations of the pipelined FFMA kernel (ffma_pipeline.cuh) that the fp32 ladder
/// runs: v07's, v08's (chosen by v08's search) and v09's two (chosen by v09's searches).
///
/// They live here, not in the version files, so that the searches in tune/ can name them: a
/// search's row for the configuration a version runs is checked at compile time to set every
/// field alike (same_ffma_tiles()), and is marked as that version's by that check, not by hand.
#pragma once

#include "ffma_pipeline.cuh"

namespace gemm {

// [v07_config]
/// v07's configuration: v06's tiles, 3 stages, 2 blocks per SM (at most 128 registers per
/// thread), every switch of the kernel off.
struct V07Tiles : FfmaSwitchesOff {
  static constexpr int block_m = 128;  ///< block tile (128, 128): 8 warps
  static constexpr int block_n = 128;  ///< (see block_m)
  static constexpr int block_k = 8;    ///< k-slice per stage: 8
  static constexpr int warp_m = 32;    ///< warp tile (32, 64): 4 x 8 lanes
  static constexpr int warp_n = 64;    ///< (see warp_m)
  static constexpr int thread_m = 8;   ///< thread tile (8, 8): 2 x 2 quads
  static constexpr int thread_n = 8;   ///< (see thread_m)
  static constexpr int stages = 3;     ///< k-slices in shared memory (2 in flight)
  static constexpr int min_blocks = 2; ///< blocks per SM promised to the compiler: at most 128 registers
};
// [v07_config]

// [v08_config]
/// The configuration v08 runs, chosen by v08's second search (tune/ffma_candidates.cu, where it
/// is candidate C5, row `t128x256x16_w64x64_t16x8_s3_b1_db_ic` of `gemm_tune`): the first
/// search's winner (128 x 256 x 8, 16 x 8 per thread, C1) with both switches and 16-wide
/// k-slices. Measured winner (H200, same run as cuBLAS SGEMM; git 83bedf3's
/// docs/results/gemm_tune.json and gemm_tune_8192.json, in the repository's history): 48.07
/// TFLOP/s at 4096^3 (93.6% of cuBLAS SGEMM's 51.36) and 48.89 at
/// 8192^3 (95.4%). Update it from the search's measured winner, never by hand.
struct V08Tiles {
  static constexpr int block_m = 128;          ///< block tile (128, 256): 8 warps
  static constexpr int block_n = 256;          ///< (see block_m)
  static constexpr int block_k = 16;           ///< k-slice per stage: 16 (half the barriers of 8)
  static constexpr int warp_m = 64;            ///< warp tile (64, 64): 4 x 8 lanes
  static constexpr int warp_n = 64;            ///< (see warp_m)
  static constexpr int thread_m = 16;          ///< thread tile (16, 8): 4 x 2 quads
  static constexpr int thread_n = 8;           ///< (see thread_m)
  static constexpr int stages = 3;             ///< k-slices in shared memory: 3 x 24.3 KiB = 73 KiB
  static constexpr int min_blocks = 1;         ///< one block per SM: up to 255 registers per thread
  static constexpr int frag_buffers = 2;       ///< fragments double-buffered in registers
  static constexpr bool interior_copies = true;///< interior k-slices copied without bounds checks
  static constexpr bool interior_any_b = false;///< unaligned B keeps the guarded copies
  static constexpr bool staged_stores = false; ///< C stored from registers (float4 where aligned)
  static constexpr bool serpentine = false;    ///< FFMAs row by row, each row left to right (v26: serpentine)
};
// [v08_config]

// [v09_configs]
namespace by_shape {
/// v08's configuration (V08Tiles): 128 x 256 x 16, 256 threads of 16 x 8, one block per SM. Best
/// when there are many tiles: the fewest loads and shared reads per FFMA.
struct Large : V08Tiles {};
/// A quarter of Large's tile, for problems with fewer 128 x 256 tiles than SMs (1024^3: 32 tiles
/// for 132 SMs): 64 x 128 x 16, 128 threads of 8 x 8, a 4-stage pipeline (three k-slices in
/// flight), three blocks per SM promised (as 167 registers and 50 KiB of shared memory per block
/// allow), C through shared memory when its rows are unaligned. The search's SmallFatDeep.
struct SmallFatDeep {
  static constexpr int block_m = 64;            ///< block tile (64, 128): 4 warps
  static constexpr int block_n = 128;           ///< (see block_m)
  static constexpr int block_k = 16;            ///< k-slice 16
  static constexpr int warp_m = 32;             ///< warp tile (32, 64)
  static constexpr int warp_n = 64;             ///< (see warp_m)
  static constexpr int thread_m = 8;            ///< thread tile (8, 8)
  static constexpr int thread_n = 8;            ///< (see thread_m)
  static constexpr int stages = 4;              ///< 4 k-slices in shared memory
  static constexpr int min_blocks = 3;          ///< three blocks per SM
  static constexpr int frag_buffers = 2;        ///< fragments double-buffered
  static constexpr bool interior_copies = true; ///< interior k-slices copied without bounds checks
  static constexpr bool interior_any_b = false; ///< (B is padded when unaligned)
  static constexpr bool staged_stores = true;   ///< C through shared memory when its rows are unaligned
  static constexpr bool serpentine = false;     ///< FFMAs row by row, each row left to right (v26: serpentine)
};
}  // namespace by_shape
// [v09_configs]

}  // namespace gemm
