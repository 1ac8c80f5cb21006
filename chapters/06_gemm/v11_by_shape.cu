/// @file
/// @brief v11 (fp32): v7's kernel in the configuration that suits the problem's shape, chosen at
/// run time as a library does, on a padded copy of B when B's rows are not 16-byte aligned.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/device_buffer.hpp"
#include "gemm.hpp"
#include "v7_pipelined.cuh"

namespace gemm {

/// The configurations v11 chooses from (block tile, k-slice, warp tile, thread tile, stages,
/// blocks per SM, fragment buffers, interior copies, interior copies for unaligned B, staged
/// epilogue). `gemm --tune --dtype fp32` times them next to v8's candidates (at --m/--n/--k),
/// each on B as it is and, for unaligned B, on v11's padded copy (the `_padb` rows).
// [configs]
namespace by_shape {
/// v8's configuration (C5): 128 x 256 x 16, 256 threads of 16 x 8, one block per SM. Best when
/// there are many tiles: the fewest loads and shared reads per FFMA.
using Large = FfmaConfig<128, 256, 16, 64, 64, 16, 8, 3, 1, 2, true>;
/// Large turned on its side: 256 x 128 x 16, the same warps and threads. The same loads and
/// shared reads per FFMA, but another tile count: 4095 x 4097 is 16 x 33 = 528 tiles of 256 x 128
/// (four rounds of 132 SMs) and 32 x 17 = 544 of 128 x 256 (five).
using Tall = FfmaConfig<256, 128, 16, 64, 64, 16, 8, 3, 1, 2, true, true>;
/// Tall with the staged epilogue when C's rows are not 16-byte aligned.
using TallStaged = FfmaConfig<256, 128, 16, 64, 64, 16, 8, 3, 1, 2, true, true, true>;
/// 128 x 128 x 16, 128 threads of 16 x 8, two blocks per SM (v8's C6), interior copies for any B:
/// half the tile, so twice the tiles to spread over the SMs.
using Medium = FfmaConfig<128, 128, 16, 64, 64, 16, 8, 3, 2, 2, true, true>;
/// Medium with the staged epilogue when C's rows are not 16-byte aligned.
using MediumStaged = FfmaConfig<128, 128, 16, 64, 64, 16, 8, 3, 2, 2, true, true, true>;
/// 64 x 128 x 16, 128 threads of 8 x 8, two blocks per SM: a quarter of Large's tile, for
/// problems with fewer 128 x 256 tiles than SMs (1024^3: 32 tiles for 132 SMs).
using SmallFat = FfmaConfig<64, 128, 16, 32, 64, 8, 8, 3, 2, 2, true, true>;
/// SmallFat with the staged epilogue when C's rows are not 16-byte aligned.
using SmallFatStaged = FfmaConfig<64, 128, 16, 32, 64, 8, 8, 3, 2, 2, true, true, true>;
/// SmallFatStaged with a 4-stage pipeline (three k-slices in flight instead of two), three blocks
/// per SM promised (as 167 registers and 50 KiB of shared memory per block allow), for padded or
/// aligned B only: v11's small configuration.
using SmallFatDeep = FfmaConfig<64, 128, 16, 32, 64, 8, 8, 4, 3, 2, true, false, true>;
}  // namespace by_shape
// [configs]

namespace {

/// Tiles of a bm x bn tiling of an m x n matrix.
std::int64_t tile_count(std::int64_t m, std::int64_t n, int bm, int bn) { return ((m + bm - 1) / bm) * ((n + bn - 1) / bn); }

/// dst[r, c] = B[r, c] for c < n, 0 for n <= c < ldb (rows r < k; ldb a multiple of 4): B
/// copied into rows of ldb floats. One block per row (grid-stride over rows); each thread reads
/// four consecutive columns with 4-byte loads (B's rows have any alignment; a warp's four loads
/// cover 512 consecutive bytes) and writes them with one 16-byte store (the copy's rows are
/// aligned), several such groups in flight per thread.
__global__ void gemm_v11_pad_b(const float* __restrict__ b, std::int64_t k, std::int64_t n, float* __restrict__ dst,
                               std::int64_t ldb) {
  for (std::int64_t r = blockIdx.x; r < k; r += gridDim.x) {
    const float* src = b + r * n;
    float4* out = reinterpret_cast<float4*>(dst + r * ldb);
#pragma unroll 4
    for (std::int64_t q = threadIdx.x; q < ldb / 4; q += blockDim.x) {  // out[q] = B[r, 4q .. 4q+3]
      const std::int64_t c = 4 * q;
      out[q] = make_float4(c < n ? src[c] : 0.0f, c + 1 < n ? src[c + 1] : 0.0f, c + 2 < n ? src[c + 2] : 0.0f,
                           c + 3 < n ? src[c + 3] : 0.0f);
    }
  }
}

/// B in rows of `ldb` floats (zeros past column n), in a workspace kept between calls and grown
/// when a problem needs more (the growing happens in the untimed first run of a size; a cudaMalloc
/// per call would synchronize the device). One workspace: v11 calls on several streams at once
/// would share it.
const float* padded_b(const float* b, std::int64_t k, std::int64_t n, std::int64_t ldb, cudaStream_t stream) {
  if (ldb % 4 != 0) throw std::invalid_argument("gemm v11: the padded B's row stride must be a multiple of 4");
  static tut::DeviceBuffer<float> workspace;
  const auto need = static_cast<std::size_t>(k * ldb);
  if (workspace.size() < need) workspace = tut::DeviceBuffer<float>(need);
  const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(k, 8192));
  gemm_v11_pad_b<<<blocks, 256, 0, stream>>>(b, k, n, workspace.data(), ldb);
  CUDA_CHECK_LAUNCH();
  return workspace.data();
}

}  // namespace

// [pad]
/// Runs configuration Cfg as v11 does: when B's rows are not 16-byte aligned (N % 4 != 0 or a
/// misaligned base), B is first copied into rows of ldb = N rounded up to the tile width BN,
/// zeros past N, and the kernel reads the copy with 16-byte copies, every tile as an interior
/// one. The copy is one pass over B on the same stream, part of the timed call.
template <class Cfg>
void launch_padded_b(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a, const float* b,
                     float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  if ((n % 4 == 0 && aligned16(b)) || k == 0) {
    launch_pipelined<Cfg>(m, n, k, alpha, a, b, beta, c, stream);
    return;
  }
  check_dims(m, n, k);
  const std::int64_t ldb = (n + Cfg::BN - 1) / Cfg::BN * Cfg::BN;
  launch_pipelined_ldb<Cfg>(m, n, k, alpha, a, padded_b(b, k, n, ldb, stream), ldb, beta, c, stream);
}
// [pad]

// [choose]
ShapeConfig choose_config(std::int64_t m, std::int64_t n, int sms) {
  // Large when its 128 x 256 tiles keep the SMs busy: a round is one tile per SM, and at least
  // 90% of the rounds' places must hold a tile (2048^3 .. 8192^3: 97%; 1024^3: 24%; 4095 x 4097:
  // 544 tiles in five rounds of 132, 82%). Otherwise the small tile. B's alignment no longer
  // enters: an unaligned B is padded first (launch_padded_b()).
  const std::int64_t tiles = tile_count(m, n, 128, 256);
  const std::int64_t rounds = (tiles + sms - 1) / sms;
  return 10 * tiles >= 9 * rounds * sms ? ShapeConfig::large : ShapeConfig::small;
}
// [choose]

/// @brief v11: the configuration chosen by shape, on a padded copy of B when B's rows are unaligned.
///
/// **Idea.** No single tile suits every problem. A 128 x 256 tile (v8) needs the fewest loads
/// per FFMA, but at 1024^3 there are only 32 such tiles for 132 SMs: three quarters of the GPU
/// idle. And v8's fast copy path needs B's rows 16-byte aligned, which 4095 x 4097 x 1023 does
/// not have. A library keeps several configurations of its kernels and picks one per call from
/// the shape (cuBLAS's heuristics, CUTLASS's profiler-generated tables), and copies awkward
/// operands into aligned workspaces. v11 does both, with two of v7's configurations chosen from
/// shape_candidates() by a measured search (`gemm --tune --dtype fp32 --m ... --n ... --k ...`).
///
/// **Changed since v8.** No new kernel: v7's (gemm_v7_pipelined() in v7_pipelined.cuh) with more
/// switches, a row stride of B of its own (`ldb`), and a choice at run time (choose_config()):
/// - Large (v8's C5) when its 128 x 256 tiles fill at least 90% of the rounds they need
///   (2048^3 and up);
/// - else SmallFatDeep: 64 x 128 tiles, 128 threads of 8 x 8, a 4-stage pipeline, three blocks
///   per SM; when C's rows are not 16-byte aligned the epilogue goes through shared memory
///   (kStagedStores), so that a warp writes 32 consecutive floats of C;
/// - either one, when B's rows are not 16-byte aligned (N % 4 != 0 or a misaligned start), on a
///   copy of B in a workspace kept between calls, rows padded with zeros to a multiple of the tile
///   width (launch_padded_b()): every copy of B is then a 16-byte cp.async and every tile of B an
///   interior one. The copy (one pass over B, ~17 MB at 4095 x 4097 x 1023) is part of the timed
///   call.
///
/// **Round 1 (no padding; B unaligned read with kInteriorAnyB's 4-byte copies).** Predicted: v8
/// unchanged from 2048^3 up, 1.5-2x over v8 at 1024^3, 90% of cuBLAS SGEMM at 4095 x 4097 x 1023
/// (Medium covers it in exactly four rounds of two blocks per SM). Measured (H100, `--reps 10`):
/// 1024^3 SmallFat 0.96 of cuBLAS SGEMM (v8 0.33), 2048^3 Large 0.93; at the odd shape the
/// prediction failed: SmallFatStaged 0.82 (the best), Medium 0.79. N = 4097 against 4096 at
/// K = 1024 cost 15-20% (cuBLAS: 1%): a column of tiles for one column of C (544 tiles of
/// 128 x 256 need five rounds of 132 SMs, 512 need four), 4-byte copies of B, scalar stores of C.
///
/// **Round 2 (B padded).** Predicted: with B aligned, the configuration whose tiles fill their
/// rounds wins; a 256 x 128 tile (Tall: Large on its side) covers 4095 x 4097 in 16 x 33 = 528
/// tiles, exactly four rounds, so Tall on padded B about 0.92 of cuBLAS. Measured (H100, one
/// search, same run as cuBLAS SGEMM's 0.729 ms): the prediction failed again. Tall 0.83 (staged
/// C: 0.86), Medium 0.83 (staged: 0.85), Large 0.73 (five rounds); the small tile with staged C
/// went from 0.823 on B as it is to **0.900** on padded B (0.885 -> 0.810 ms): padding gained 9%
/// where the tile was already right. Tall was not profiled (device time); untested guesses: its
/// last row of tiles (255 of 256 rows) takes the guarded copies, and one block of 8 warps per SM
/// hides less than the small tile's several blocks. So v11 keeps the small tile there, now on
/// padded B; at the aligned table shapes nothing changed (0.96, 0.93, 0.93, 0.95 of cuBLAS SGEMM
/// at 1024^3 ... 8192^3 in the chapter's table before this change). The chapter's table then
/// put v11 at 0.899 of cuBLAS SGEMM there: on the 0.90 target line, not above it.
///
/// **Round 3 (evidence first; H100, searches at 4095 x 4097 x 1023, each in the same run as
/// cuBLAS SGEMM, tune_shape_4095_round3a..d).** ncu: cuBLAS runs CUTLASS's
/// `cutlass_80_simt_sgemm_128x128_8x4_nn_align1`: 128 x 128 tiles, k-slices of 8, 4 stages,
/// 128 threads of 204 registers, two blocks per SM (1056 tiles: four rounds), 4-byte copies of
/// unpadded operands. It issues 0.84 warp instructions per scheduler per cycle; SmallFatStaged
/// issues 0.80 and executes 3% more instructions (650 M against 632 M), with more barrier,
/// `wait` and dispatch stalls. Four ideas, each predicted, each measured:
/// - *split off the ragged column*, as libraries do: Large on C's first 4096 columns (512 tiles,
///   four rounds instead of five) and a GEMV kernel for the last one, after it or beside it on a
///   second stream. Predicted 0.93 (Large's 0.94 at 4096 x 4096 x 1024, less the pad and the
///   edge). Measured 0.847 after, 0.883 beside: Large takes 12% more cycles per unit of K than at
///   4096^3 over the same 512 tiles (issue 0.74 against 0.81), and the edge kernel (128 blocks,
///   latency-bound) took 35 us. SmallFat on the first 4096 columns: 0.871 after, 0.877 and 0.907
///   beside (fewer tiles, the same number of rounds). Not kept (nor the second stream, nor C's
///   row stride `ldc` it needed in v7's kernel). Tile rows in reverse order (the ragged last row
///   first) changed nothing either (Tall staged: 0.868), and was dropped.
/// - *cuBLAS's geometry with v7's 8 x 8 threads* (128 x 128 x 8, 256 threads, two blocks per
///   SM, 16 warps, 4 stages, at most 128 registers): predicted at least SmallFat's rate, in four
///   exact rounds. Measured 0.853 (16-wide k-slices: 0.863): 3% more instructions than SmallFat
///   and more dispatch and barrier stalls. Not kept.
/// - *a faster pad*: 16-byte stores and four loads in flight per thread: 13.8 -> 11.0 us (ncu),
///   about 0.3% of the call. Kept.
/// - *a deeper pipeline for the small tile*: 32-wide k-slices in 2 stages (half the barriers:
///   the larger predicted gain) or 4 stages of 16 (three slices in flight; 50 KiB of shared
///   memory, three blocks per SM as before), 1-2% predicted. Measured: BK 32 lost (0.873), the 4
///   stages won: 0.7928 against 0.8090 ms, 0.926 against 0.907 of cuBLAS SGEMM, and 0.7924
///   against 0.8092 (0.927 / 0.908) in a second search of the same call. SmallFatDeep differs
///   from SmallFatStaged in three switches: the stage count; the blocks per SM promised to the
///   compiler (3, as both ran: 167 and 161 registers, 37 and 50 KiB of shared memory per block);
///   kInteriorAnyB off (its path never runs on a padded B). The SASS of the two was not compared,
///   and the searches ran a working tree that still held the experiments above (v7's kernel
///   with `ldc` and reversed tile rows); the code as committed has not yet run on a GPU (no
///   device time was left in that session): the chapter's table still shows SmallFatStaged.
void launch_gemm_v11_by_shape(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                              const float* b, float beta, float* c, cudaStream_t stream) {
  if (choose_config(m, n, sm_count()) == ShapeConfig::large) {
    launch_padded_b<by_shape::Large>(m, n, k, alpha, a, b, beta, c, stream);
  } else {
    launch_padded_b<by_shape::SmallFatDeep>(m, n, k, alpha, a, b, beta, c, stream);
  }
}

namespace {

/// Cfg on B as it is (`launch_pipelined`) or as v11 runs it (`launch_padded_b`).
template <class Cfg, bool kPadB>
TuneCandidate shape_candidate(const std::string& name, const std::string& summary) {
  return {name, summary, kPadB ? launch_padded_b<Cfg> : launch_pipelined<Cfg>, false};
}

}  // namespace

const std::vector<TuneCandidate>& shape_candidates() {
  using namespace by_shape;
  static const std::vector<TuneCandidate> list = {
      shape_candidate<Large, false>("s_large", "v11 Large: 128x256x16, 256 threads of 16x8, 1 block/SM (v8's C5)"),
      shape_candidate<TallStaged, false>("s_tall_staged", "v11 Tall, C through shared memory when unaligned"),
      shape_candidate<Medium, false>("s_medium", "v11 Medium: 128x128x16, 128 threads of 16x8, 2 blocks/SM, any B"),
      shape_candidate<SmallFat, false>("s_small_fat", "v11 SmallFat: 64x128x16, 128 threads of 8x8, 2 blocks/SM"),
      shape_candidate<SmallFatStaged, false>("s_small_fat_staged",
                                             "v11 SmallFat, C through shared memory when unaligned"),
      shape_candidate<Large, true>("s_large_padb", "v11 Large, unaligned B padded first"),
      shape_candidate<Tall, true>("s_tall_padb", "v11 Tall, unaligned B padded first"),
      shape_candidate<TallStaged, true>("s_tall_staged_padb", "v11 Tall, C staged, unaligned B padded first"),
      shape_candidate<Medium, true>("s_medium_padb", "v11 Medium, unaligned B padded first"),
      shape_candidate<MediumStaged, true>("s_medium_staged_padb", "v11 Medium, C staged, unaligned B padded first"),
      shape_candidate<SmallFatStaged, true>("s_small_fat_staged_padb",
                                            "v11 SmallFat, C staged, unaligned B padded first"),
      shape_candidate<SmallFatDeep, true>("s_small_fat_deep_padb",
                                          "v11 SmallFatDeep: SmallFat, C staged, 4 stages, 3 blocks/SM, B padded"),
  };
  return list;
}

}  // namespace gemm
