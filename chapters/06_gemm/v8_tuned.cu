/// @file
/// @brief v8: v7's kernel with the parameters found by a search (`gemm --tune`).
#include <string>
#include <type_traits>
#include <vector>

#include "gemm.hpp"
#include "v7_pipelined.cuh"

namespace gemm {

/// The configurations the search times (block tile, k-slice, warp tile, thread tile, stages,
/// blocks per SM promised to the compiler).
/// At most 8: every one is a separate kernel compiled for every architecture.
// [candidates]
namespace tune {
/// v7's configuration: 256 threads of 8 x 8.
using C0 = FfmaConfig<128, 128, 8, 32, 64, 8, 8, 3, 2>;
/// v7 with 16-wide k-slices: half the barriers per FLOP, twice the shared memory.
using C1 = FfmaConfig<128, 128, 16, 32, 64, 8, 8, 3, 2>;
/// v7 with 4 stages.
using C2 = FfmaConfig<128, 128, 8, 32, 64, 8, 8, 4, 2>;
/// Fatter threads: 128 threads of 16 x 8 (64 x 64 warp tiles), 6 LDS.128 per 128 FFMA.
using C3 = FfmaConfig<128, 128, 8, 64, 64, 16, 8, 3, 2>;
/// C3 with 16-wide k-slices.
using C4 = FfmaConfig<128, 128, 16, 64, 64, 16, 8, 3, 2>;
/// A 128 x 256 block tile, 256 threads of 16 x 8: more reuse per global byte, one block per SM.
using C5 = FfmaConfig<128, 256, 8, 64, 64, 16, 8, 3, 1>;
/// A 256 x 128 block tile, 256 threads of 16 x 8.
using C6 = FfmaConfig<256, 128, 8, 64, 64, 16, 8, 3, 1>;
/// Small blocks: 64 x 128 x 16, 128 threads of 8 x 8, 4 stages (more blocks per SM, better tails).
using C7 = FfmaConfig<64, 128, 16, 32, 64, 8, 8, 4, 3>;
}  // namespace tune
// [candidates]

/// The configuration v8_tuned runs. The search (`gemm --tune`, table on the chapter page) decides;
/// update this line from its measured winner.
using TunedConfig = tune::C5;  // the search's winner on an H200 (docs/results/gemm_tune.json)

/// @brief v8: tuned parameters.
///
/// **Idea.** The best tile sizes depend on the GPU (registers, shared memory, SM count, latency),
/// and on the problem shape. Rather than guess, time a small set of configurations of the same
/// kernel on the device and keep the winner. `gemm --tune` times every candidate of
/// tune_candidates() at 4096^3 next to cuBLAS and prints (and, with --json, writes) the table.
///
/// **Changed since v7.** Only template arguments. The candidates vary the k-slice (8 or 16), the
/// pipeline depth (3 or 4), the block tile (64x128 to 256x128), and the thread tile: 8 x 8 (256
/// threads per 128 x 128 block) or 16 x 8 (128 threads), which needs 6 LDS.128 per 128 FFMA
/// instead of 4 per 64 and, at two blocks per SM, the same 8 warps per SM.
///
/// **What is still wrong.** The FFMA pipe is the roof: even at 100% issue efficiency CUDA cores
/// give 2 x 128 FLOP per SM per clock. Tensor cores (v9, v10) are the next factor of ten.
///
/// **Predicted.** The 16 x 8 thread tile (C3) wins by 5-10% over v7: fewer shared loads and less
/// index arithmetic per FFMA. 90-100% of cuBLAS SGEMM at 4096^3 and 8192^3.
///
/// **Measured (H200, 4096^3, search table on the chapter page).** The 16 x 8 thread tiles did win
/// (C3 41.2 TFLOP/s against C0's 38.3, +8%), and the larger 128 x 256 block tile of C5 won
/// overall at 42.2 TFLOP/s, 82% of cuBLAS SGEMM's 51.4 in the same run: short of the 90%
/// target. C5 is what v8 runs. The chapter page discusses what is still missing.
void launch_gemm_v8_tuned(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                          const float* b, float beta, float* c, cudaStream_t stream) {
  launch_pipelined<TunedConfig>(m, n, k, alpha, a, b, beta, c, stream);
}

namespace {

/// "t128x128x8_w32x64_t8x8_s3" for a configuration.
template <class Cfg>
std::string config_name() {
  return "t" + std::to_string(Cfg::BM) + "x" + std::to_string(Cfg::BN) + "x" + std::to_string(Cfg::BK) + "_w" +
         std::to_string(Cfg::WM) + "x" + std::to_string(Cfg::WN) + "_t" + std::to_string(Cfg::TM) + "x" +
         std::to_string(Cfg::TN) + "_s" + std::to_string(Cfg::kStages) + "_b" + std::to_string(Cfg::kMinBlocks);
}

/// The parameters in words.
template <class Cfg>
std::string config_summary() {
  return "block " + std::to_string(Cfg::BM) + "x" + std::to_string(Cfg::BN) + ", BK " + std::to_string(Cfg::BK) +
         ", " + std::to_string(Cfg::kThreads) + " threads of " + std::to_string(Cfg::TM) + "x" +
         std::to_string(Cfg::TN) + ", " + std::to_string(Cfg::kStages) + " stages, " +
         std::to_string(Cfg::kSmemBytes / 1024) + " KiB smem, " + std::to_string(Cfg::kMinBlocks) +
         " blocks/SM";
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
