/// @file
/// @brief v08's search: the pipelined FFMA kernel (fp32/ffma_pipeline.cuh) in eight configurations,
/// timed by bin/gemm_tune at 4096^3 and 8192^3 next to cuBLAS SGEMM and v08_tuned.
///
/// The first search on an H200 (git 09ac030, docs/results/gemm_tune.json of that commit) timed v07's kernel as it
/// is: 128 x 128 and 128 x 256 block tiles, 8 x 8 and 16 x 8 thread tiles, BK 8 and 16, 3 and 4
/// stages. Its winner, 128 x 256 x 8 with 16 x 8 thread tiles (C1 below), is the base of this
/// second search, which switches on the two features of gemm_v07_pipelined() alone and together.
/// At most 8 candidates: every one is a separate kernel compiled for every architecture.
#include <string>
#include <vector>

#include "fp32/ffma_configs.hpp"
#include "fp32/ffma_pipeline.cuh"
#include "gemm.hpp"
#include "tune/tune.hpp"

namespace gemm::tune {

/// The configurations of v08's search, each stating only what differs from its base.
// [candidates]
namespace ffma {
/// v07's configuration (V07Tiles in fp32/ffma_configs.hpp): 128 x 128 x 8, 256 threads of 8 x 8,
/// 2 blocks per SM. The reference row.
struct C0 : FfmaSwitchesOff {
  static constexpr int block_m = 128;   ///< block tile (128, 128)
  static constexpr int block_n = 128;   ///< (see block_m)
  static constexpr int block_k = 8;     ///< k-slice 8
  static constexpr int warp_m = 32;     ///< warp tile (32, 64)
  static constexpr int warp_n = 64;     ///< (see warp_m)
  static constexpr int thread_m = 8;    ///< thread tile (8, 8)
  static constexpr int thread_n = 8;    ///< (see thread_m)
  static constexpr int stages = 3;      ///< 3 k-slices in shared memory
  static constexpr int min_blocks = 2;  ///< 2 blocks per SM
};
/// The first search's winner: 128 x 256 x 8, 256 threads of 16 x 8, one block per SM.
struct C1 : C0 {
  static constexpr int block_n = 256;   ///< block tile (128, 256)
  static constexpr int warp_m = 64;     ///< warp tile (64, 64)
  static constexpr int thread_m = 16;   ///< thread tile (16, 8)
  static constexpr int min_blocks = 1;  ///< one block per SM
};
/// C1 with double-buffered fragments (the barrier before each slice's last k-step).
struct C2 : C1 {
  static constexpr int frag_buffers = 2;  ///< fragments double-buffered
};
/// C1 with unchecked copies of interior slices.
struct C3 : C1 {
  static constexpr bool interior_copies = true;  ///< interior copies
};
/// C1 with both.
struct C4 : C1 {
  static constexpr int frag_buffers = 2;         ///< fragments double-buffered
  static constexpr bool interior_copies = true;  ///< interior copies
};
/// C4 with 16-wide k-slices: half the barriers and cp.async groups per FFMA (73 KiB of shared
/// memory). What v08_tuned runs (V08Tiles in fp32/ffma_configs.hpp).
struct C5 : C4 {
  static constexpr int block_k = 16;  ///< k-slice 16
};
/// Two blocks per SM of 128 x 128 x 16, 128 threads of 16 x 8, with both: the same 8 warps per
/// SM as C4, but in two independent blocks (one block's barrier does not stall the other).
struct C6 : C5 {
  static constexpr int block_n = 128;   ///< block tile (128, 128): 4 warps
  static constexpr int min_blocks = 2;  ///< 2 blocks per SM
};
/// C4 with 4 stages: one more slice in flight.
struct C7 : C4 {
  static constexpr int stages = 4;  ///< 4 k-slices in shared memory
};
}  // namespace ffma
// [candidates]

// The rows of the configurations v07 and v08 run are those configurations, field by field.
static_assert(same_ffma_tiles<ffma::C0, V07Tiles>(), "C0 must be v07's configuration (fp32/ffma_configs.hpp)");
static_assert(same_ffma_tiles<ffma::C5, V08Tiles>(), "C5 must be v08's configuration (fp32/ffma_configs.hpp)");

namespace {

/// "t128x128x8_w32x64_t8x8_s3_b2" for a configuration; "_db" (double-buffered fragments) and
/// "_ic" (interior copies) when switched on. The row names of every gemm_tune table so far.
template <class Cfg>
std::string ffma_config_name() {
  return "t" + std::to_string(Cfg::BM) + "x" + std::to_string(Cfg::BN) + "x" + std::to_string(Cfg::BK) + "_w" +
         std::to_string(Cfg::WM) + "x" + std::to_string(Cfg::WN) + "_t" + std::to_string(Cfg::TM) + "x" +
         std::to_string(Cfg::TN) + "_s" + std::to_string(Cfg::kStages) + "_b" + std::to_string(Cfg::kMinBlocks) +
         (Cfg::kFragBuffers == 2 ? "_db" : "") + (Cfg::kInteriorCopies ? "_ic" : "");
}

/// The parameters in words.
template <class Cfg>
std::string ffma_config_summary() {
  return "block " + std::to_string(Cfg::BM) + "x" + std::to_string(Cfg::BN) + ", BK " + std::to_string(Cfg::BK) +
         ", " + std::to_string(Cfg::kThreads) + " threads of " + std::to_string(Cfg::TM) + "x" +
         std::to_string(Cfg::TN) + ", " + std::to_string(Cfg::kStages) + " stages, " +
         std::to_string(Cfg::kSmemBytes / 1024) + " KiB smem, " + std::to_string(Cfg::kMinBlocks) +
         " blocks/SM" + (Cfg::kFragBuffers == 2 ? ", fragments double-buffered" : "") +
         (Cfg::kInteriorCopies ? ", interior copies" : "");
}

/// Candidate `Tiles`, marked as v08_tuned's when its fields are V08Tiles' (same_ffma_tiles()).
template <class Tiles>
Candidate ffma_candidate() {
  using Cfg = FfmaConfig<Tiles>;
  const char* chosen_by = same_ffma_tiles<Tiles, V08Tiles>() ? "v08_tuned" : "";
  return {ffma_config_name<Cfg>(), ffma_config_summary<Cfg>(), {Precision::fp32, launch_pipelined<Cfg>, nullptr},
          chosen_by};
}

}  // namespace

const std::vector<Candidate>& ffma_candidates() {
  using namespace ffma;
  static const std::vector<Candidate> list = {
      ffma_candidate<C0>(), ffma_candidate<C1>(), ffma_candidate<C2>(),            ffma_candidate<C3>(),
      ffma_candidate<C4>(), ffma_candidate<C5>(), ffma_candidate<C6>(), ffma_candidate<C7>(),
  };
  return list;
}

}  // namespace gemm::tune
