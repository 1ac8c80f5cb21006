/// @file
/// @brief v8: v7's kernel with the parameters found by a search (`gemm --tune`).
#include <string>
#include <type_traits>
#include <vector>

#include "gemm.hpp"
#include "v7_pipelined.cuh"

namespace gemm {

/// The configurations the search times (block tile, k-slice, warp tile, thread tile, stages,
/// blocks per SM promised to the compiler, fragment buffers, interior copies).
/// At most 8: every one is a separate kernel compiled for every architecture. The first search
/// on an H200 (docs/results/gemm_tune.json, git 09ac030) timed v7's kernel as it is: 128 x 128
/// and 128 x 256 block tiles, 8 x 8 and 16 x 8 thread tiles, BK 8 and 16, 3 and 4 stages. Its
/// winner, 128 x 256 x 8 with 16 x 8 thread tiles (C1 below), is the base of this second search,
/// which switches on the two features of gemm_v7_pipelined() alone and together.
// [candidates]
namespace tune {
/// v7's configuration: 128 x 128 x 8, 256 threads of 8 x 8, 2 blocks per SM. The reference row.
using C0 = FfmaConfig<128, 128, 8, 32, 64, 8, 8, 3, 2>;
/// The first search's winner: 128 x 256 x 8, 256 threads of 16 x 8, one block per SM.
using C1 = FfmaConfig<128, 256, 8, 64, 64, 16, 8, 3, 1>;
/// C1 with double-buffered fragments (the barrier before each slice's last k-step).
using C2 = FfmaConfig<128, 256, 8, 64, 64, 16, 8, 3, 1, 2, false>;
/// C1 with unchecked copies of interior slices.
using C3 = FfmaConfig<128, 256, 8, 64, 64, 16, 8, 3, 1, 1, true>;
/// C1 with both.
using C4 = FfmaConfig<128, 256, 8, 64, 64, 16, 8, 3, 1, 2, true>;
/// C4 with 16-wide k-slices: half the barriers and cp.async groups per FFMA (73 KiB of shared memory).
using C5 = FfmaConfig<128, 256, 16, 64, 64, 16, 8, 3, 1, 2, true>;
/// Two blocks per SM of 128 x 128 x 16, 128 threads of 16 x 8, with both: the same 8 warps per
/// SM as C4, but in two independent blocks (one block's barrier does not stall the other).
using C6 = FfmaConfig<128, 128, 16, 64, 64, 16, 8, 3, 2, 2, true>;
/// C4 with 4 stages: one more slice in flight.
using C7 = FfmaConfig<128, 256, 8, 64, 64, 16, 8, 4, 1, 2, true>;
}  // namespace tune
// [candidates]

/// The configuration v8_tuned runs. The search (`gemm --tune`, table on the chapter page) decides;
/// update this line from its measured winner.
using TunedConfig = tune::C5;  // the second search's measured winner (H200, 4096^3 and 8192^3)

/// @brief v8: tuned parameters.
///
/// **Idea.** The best tile sizes depend on the GPU (registers, shared memory, SM count, latency),
/// and on the problem shape. Rather than guess, time a small set of configurations of the same
/// kernel on the device and keep the winner. `gemm --tune` times every candidate of
/// tune_candidates() at 4096^3 next to cuBLAS and prints (and, with --json, writes) the table.
///
/// **Changed since v7.** Template arguments, and one idea: two switches of the kernel, off in v7
/// (gemm_v7_pipelined() in v7_pipelined.cuh):
/// - *double-buffered fragments* (kFragBuffers = 2): the fastest SGEMMs load the fragments of
///   k-step p+1 from shared memory into a second set of registers while the FFMAs of step p
///   issue, and move the barrier of the next slice in front of the last k-step of the current
///   one, so that even the first step after a barrier finds its operands in registers. With one
///   block of 8 warps per SM (two per scheduler) there is little else to hide that latency.
/// - *interior copies* (kInteriorCopies): v7 computes each copy's address and bounds check per
///   slice (64-bit multiply, two compares, selects: about 10 instructions per 4-byte copy of A).
///   Interior slices of interior blocks skip the checks and add a slice offset to addresses
///   computed once. Edge blocks and the last, partial slice keep v7's guarded copies.
///
/// The first search (docs/results/gemm_tune.json, git 09ac030) varied the k-slice (8 or 16), the
/// pipeline depth (3 or 4), the block tile (64 x 128 to 256 x 128) and the thread tile (8 x 8 or
/// 16 x 8). Its winner, 128 x 256 x 8 with 256 threads of 16 x 8 (C1), is the base of the
/// candidates now, with the switches alone and together, a 16-wide k-slice, 4 stages, and two
/// blocks of 128 x 128 x 16 per SM.
///
/// **What is still wrong.** The FFMA pipe is the roof: even at 100% issue efficiency CUDA cores
/// give 2 x 128 FLOP per SM per clock. Tensor cores (v9, v10) are the next factor of ten. With
/// double-buffered fragments, ptxas uses all 255 registers a thread can have (no spills).
///
/// **Predicted (first search).** The 16 x 8 thread tile wins by 5-10% over v7: fewer shared
/// loads and less index arithmetic per FFMA. 90-100% of cuBLAS SGEMM at 4096^3 and 8192^3.
///
/// **Measured (first search; H200, 4096^3, table on the chapter page).** The 16 x 8 thread tiles
/// did win (128 x 128 x 8 with 16 x 8: 41.2 TFLOP/s against v7's 38.3, +8%), and the 128 x 256
/// block tile (C1) won overall at 42.2 TFLOP/s, 82% of cuBLAS SGEMM's 51.4 in the same run:
/// short of the 90% target.
///
/// **Predicted (second search, not yet measured).** Each switch alone gains 2-4% over C1; together
/// with BK = 16 (C5, half the barriers per FFMA) 44-47 TFLOP/s, 86-92% of cuBLAS at 4096^3, a
/// little more at 8192^3 (more waves, less tail). C5 is what v8 runs until the search says
/// otherwise. Two blocks of 128 x 128 (C6) lose a little to C5: the same warps per SM, but 1.33x
/// the global loads per FLOP.
void launch_gemm_v8_tuned(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                          const float* b, float beta, float* c, cudaStream_t stream) {
  launch_pipelined<TunedConfig>(m, n, k, alpha, a, b, beta, c, stream);
}

namespace {

/// "t128x128x8_w32x64_t8x8_s3_b2" for a configuration; "_db" (double-buffered fragments) and
/// "_ic" (interior copies) when switched on.
template <class Cfg>
std::string config_name() {
  return "t" + std::to_string(Cfg::BM) + "x" + std::to_string(Cfg::BN) + "x" + std::to_string(Cfg::BK) + "_w" +
         std::to_string(Cfg::WM) + "x" + std::to_string(Cfg::WN) + "_t" + std::to_string(Cfg::TM) + "x" +
         std::to_string(Cfg::TN) + "_s" + std::to_string(Cfg::kStages) + "_b" + std::to_string(Cfg::kMinBlocks) +
         (Cfg::kFragBuffers == 2 ? "_db" : "") + (Cfg::kInteriorCopies ? "_ic" : "");
}

/// The parameters in words.
template <class Cfg>
std::string config_summary() {
  return "block " + std::to_string(Cfg::BM) + "x" + std::to_string(Cfg::BN) + ", BK " + std::to_string(Cfg::BK) +
         ", " + std::to_string(Cfg::kThreads) + " threads of " + std::to_string(Cfg::TM) + "x" +
         std::to_string(Cfg::TN) + ", " + std::to_string(Cfg::kStages) + " stages, " +
         std::to_string(Cfg::kSmemBytes / 1024) + " KiB smem, " + std::to_string(Cfg::kMinBlocks) +
         " blocks/SM" + (Cfg::kFragBuffers == 2 ? ", fragments double-buffered" : "") +
         (Cfg::kInteriorCopies ? ", interior copies" : "");
}

template <class Cfg>
TuneCandidate candidate() {
  return {config_name<Cfg>(), config_summary<Cfg>(), launch_pipelined<Cfg>, std::is_same<Cfg, TunedConfig>::value};
}

}  // namespace

const std::vector<TuneCandidate>& tune_candidates() {
  static const std::vector<TuneCandidate> list = {
      candidate<tune::C0>(), candidate<tune::C1>(), candidate<tune::C2>(), candidate<tune::C3>(),
      candidate<tune::C4>(), candidate<tune::C5>(), candidate<tune::C6>(), candidate<tune::C7>(),
  };
  return list;
}

}  // namespace gemm
