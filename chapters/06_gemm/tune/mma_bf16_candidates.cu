/// @file
/// @brief v11's search: the BF16 mma.sync kernel (tensor_cores/mma_bf16_kernel.cuh) in eight
/// configurations, timed by bin/gemm_tune at 8192^3 next to cuBLAS BF16 and v11_mma_bf16.
///
/// Three rounds so far (the chapter page has their tables): round 1 (H200) found 64-wide k-slices
/// and double-buffered fragments worth 5% and 10-17%; round 2 (16 warps of 64 x 32) lost; round 3
/// (H100) compiled the copy loop without its scalar path for aligned operands, which lifted every
/// 64-wide candidate to within about 1% of the others. At most 8 candidates: every one is a
/// separate kernel compiled for every architecture.
#include <string>
#include <vector>

#include "gemm.hpp"
#include "tensor_cores/mma_bf16_kernel.cuh"
#include "tune/tune.hpp"

namespace gemm::tune {

/// The configurations of v11's search (block tile, k-slice, warp tile, stages, fragment double
/// buffering, blocks per SM), each stating only what differs from its base.
// [candidates]
namespace mma_bf16 {
/// v11 as first measured (H200: 252 TFLOP/s, 32% of cuBLAS BF16 at 8192^3): BK 32, 4 stages, single fragments.
struct M0 {
  static constexpr int block_m = 128;           ///< block tile (128, 256): 8 warps
  static constexpr int block_n = 256;           ///< (see block_m)
  static constexpr int block_k = 32;            ///< k-slice 32: 2 k-steps per barrier
  static constexpr int warp_m = 64;             ///< warp tile (64, 64)
  static constexpr int warp_n = 64;             ///< (see warp_m)
  static constexpr int stages = 4;              ///< 4 k-slices in shared memory
  static constexpr bool double_buffer = false;  ///< single fragments
  static constexpr int min_blocks = 1;          ///< one block per SM
};
/// M0 with double-buffered fragments (and the barrier after the second-to-last k-step's mma).
struct M1 : M0 {
  static constexpr bool double_buffer = true;  ///< fragments double-buffered
};
/// 64-wide k-slices (4 k-steps, 128 mma per warp per barrier), 3 stages of 48 KiB, double-buffered
/// fragments: the winner of rounds 1 and 2, where it ran with the alignment check in the kernel.
struct M3 : M1 {
  static constexpr int block_k = 64;  ///< k-slice 64
  static constexpr int stages = 3;    ///< 3 k-slices in shared memory
};
/// M3 with 4 stages (192 KiB): one more slice of latency cover.
struct M4 : M3 {
  static constexpr int stages = 4;  ///< 4 k-slices in shared memory
};
/// 128 x 128 blocks of 4 warps, two per SM (96 KiB each): one block's barrier and ldmatrix waits
/// are covered by the other block's mma. Single fragments. Also the general kernel of every
/// candidate (an operand's rows not 16-byte aligned), as V11GeneralTiles is v11's.
struct M6 : M3 {
  static constexpr int block_n = 128;           ///< block tile (128, 128): 4 warps
  static constexpr bool double_buffer = false;  ///< single fragments
  static constexpr int min_blocks = 2;          ///< two blocks per SM
};
/// M6 with double-buffered fragments (fits in 255 registers once the scalar path is compiled out).
/// What v11_mma_bf16 runs (V11Tiles in tensor_cores/mma_bf16_kernel.cuh).
struct M8 : M6 {
  static constexpr bool double_buffer = true;  ///< fragments double-buffered
};
/// M3 turned on its side: 256 x 128 blocks, 8 warps of 64 x 64 (4 x 2), double-buffered.
struct M9 : M3 {
  static constexpr int block_m = 256;  ///< block tile (256, 128)
  static constexpr int block_n = 128;  ///< (see block_m)
};
}  // namespace mma_bf16
// [candidates]

// The rows of the configurations v11 runs are those configurations, field by field.
static_assert(same_mma_tiles<mma_bf16::M8, V11Tiles>(), "M8 must be v11's (tensor_cores/mma_bf16_kernel.cuh)");
static_assert(same_mma_tiles<mma_bf16::M6, V11GeneralTiles>(),
              "M6 must be v11's general kernel (tensor_cores/mma_bf16_kernel.cuh)");

namespace {

/// "m128x256x64_w64x64_s4_db_b1" for a configuration (db: double-buffered fragments; sb: single).
template <class Cfg>
std::string mma_config_name() {
  return "m" + std::to_string(Cfg::BM) + "x" + std::to_string(Cfg::BN) + "x" + std::to_string(Cfg::BK) + "_w" +
         std::to_string(Cfg::WM) + "x" + std::to_string(Cfg::WN) + "_s" + std::to_string(Cfg::kStages) +
         (Cfg::kDoubleBuffer ? "_db" : "_sb") + "_b" + std::to_string(Cfg::kMinBlocks);
}

/// The parameters in words.
template <class Cfg>
std::string mma_config_summary() {
  return "block " + std::to_string(Cfg::BM) + "x" + std::to_string(Cfg::BN) + ", BK " + std::to_string(Cfg::BK) +
         ", " + std::to_string(Cfg::kThreads / 32) + " warps of " + std::to_string(Cfg::WM) + "x" +
         std::to_string(Cfg::WN) + ", " + std::to_string(Cfg::kStages) + " stages, " +
         std::to_string(Cfg::kSmemBytes / 1024) + " KiB smem, " +
         (Cfg::kDoubleBuffer ? "double-buffered" : "single") + " fragments, " + std::to_string(Cfg::kMinBlocks) +
         " blocks/SM";
}

/// The general kernel of every candidate: M6's tiles, alignment checked in the kernel.
using General = MmaConfig<mma_bf16::M6>;

/// Candidate `Tiles` (its aligned kernel, General for unaligned operands), marked as
/// v11_mma_bf16's when its fields are V11Tiles' (same_mma_tiles()).
template <class Tiles>
Candidate mma_candidate() {
  using Cfg = MmaConfig<Tiles>;
  const char* chosen_by = same_mma_tiles<Tiles, V11Tiles>() ? "v11_mma_bf16" : "";
  return {mma_config_name<Cfg>(), mma_config_summary<Cfg>(), {Precision::bf16, nullptr, launch_mma<Cfg, General>},
          chosen_by};
}

/// Candidate `Tiles` with the alignment checked inside the kernel ("_checked"), for comparison.
template <class Tiles>
Candidate mma_candidate_checked() {
  using Cfg = MmaConfig<Tiles>;
  return {mma_config_name<Cfg>() + "_checked", mma_config_summary<Cfg>() + ", alignment checked in the kernel",
          {Precision::bf16, nullptr, launch_mma_checked<Cfg>}, ""};
}

}  // namespace

const std::vector<Candidate>& mma_bf16_candidates() {
  using namespace mma_bf16;
  static const std::vector<Candidate> list = {
      mma_candidate<M0>(), mma_candidate<M1>(), mma_candidate_checked<M3>(), mma_candidate<M3>(),
      mma_candidate<M4>(), mma_candidate<M6>(), mma_candidate<M8>(), mma_candidate<M9>(),
  };
  return list;
}

}  // namespace gemm::tune
