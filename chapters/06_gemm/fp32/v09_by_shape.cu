/// @file
/// @brief v09 (fp32): v07's kernel in the configuration that suits the problem's shape, chosen at
/// run time as a library does, on a padded copy of B when B's rows are not 16-byte aligned.
#include <algorithm>
#include <stdexcept>

#include "fp32/ffma_configs.hpp"
#include "fp32/ffma_pipeline.cuh"
#include "fp32/padded_b.cuh"
#include "fp32/shape_choice.hpp"
#include "gemm.hpp"

namespace gemm {

/// v09's two configurations, chosen by shape by measured searches (tune/shape_candidates.cu,
/// rows s_large_padb and s_small_fat_deep_padb of `gemm_tune`; the chapter page has the rounds).

namespace {

/// Tiles of a bm x bn tiling of an m x n matrix.
std::int64_t tile_count(std::int64_t m, std::int64_t n, int bm, int bn) { return ((m + bm - 1) / bm) * ((n + bn - 1) / bn); }

/// dst[r, c] = B[r, c] for c < n, 0 for n <= c < ldb (rows r < k; ldb a multiple of 4): B
/// copied into rows of ldb floats. One block per row (grid-stride over rows); each thread reads
/// four consecutive columns with 4-byte loads (B's rows have any alignment; a warp's four loads
/// cover 512 consecutive bytes) and writes them with one 16-byte store (the copy's rows are
/// aligned), several such groups in flight per thread.
__global__ void gemm_v09_pad_b(const float* __restrict__ b, std::int64_t k, std::int64_t n, float* __restrict__ dst,
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

}  // namespace

tut::Scratch& padded_b_scratch() {
  static tut::Scratch scratch;
  return scratch;
}

void pad_b(const float* b, std::int64_t k, std::int64_t n, std::int64_t ldb, float* dst, cudaStream_t stream) {
  if (ldb % 4 != 0) throw std::invalid_argument("gemm v09: the padded B's row stride must be a multiple of 4");
  const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(k, 8192));
  gemm_v09_pad_b<<<blocks, 256, 0, stream>>>(b, k, n, dst, ldb);
  CUDA_CHECK_LAUNCH();
}

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

/// @brief v09: the configuration chosen by shape, on a padded copy of B when B's rows are unaligned.
///
/// **Idea.** No single tile suits every problem. A 128 x 256 tile (v08) needs the fewest loads
/// per FFMA, but at 1024^3 there are only 32 such tiles for 132 SMs: three quarters of the GPU
/// idle. And v08's fast copy path needs B's rows 16-byte aligned, which 4095 x 4097 x 1023 does
/// not have. A library keeps several configurations of its kernels and picks one per call from
/// the shape (cuBLAS's heuristics, CUTLASS's profiler-generated tables), and copies awkward
/// operands into aligned workspaces. v09 does both, with two configurations of v07's kernel
/// chosen by measured searches (tune/shape_candidates.cu, run by `gemm_tune`).
///
/// **Changed since v08.** No new kernel: v07's (gemm_v07_pipelined() in ffma_pipeline.cuh) with
/// more switches, a row stride of B of its own (`ldb`), and a choice at run time (choose_config()):
/// - Large (v08's configuration) when its 128 x 256 tiles fill at least 90% of the rounds they
///   need (2048^3 and up);
/// - else SmallFatDeep: 64 x 128 tiles, 128 threads of 8 x 8, a 4-stage pipeline, three blocks
///   per SM; when C's rows are not 16-byte aligned the epilogue goes through shared memory
///   (staged_stores), so that a warp writes 32 consecutive floats of C;
/// - either one, when B's rows are not 16-byte aligned (N % 4 != 0 or a misaligned start), on a
///   copy of B in a workspace kept between calls, rows padded with zeros to a multiple of the tile
///   width (launch_padded_b() in padded_b.cuh): every copy of B is then a 16-byte cp.async and
///   every tile of B an interior one. The copy (one pass over B, ~17 MB at 4095 x 4097 x 1023) is
///   part of the timed call.
///
/// **Predicted** (three rounds of searches, the chapter page has each one's table). Round 1 (no
/// padding; unaligned B read with 4-byte copies): v08 unchanged from 2048^3 up, 1.5-2x over v08 at
/// 1024^3, 90% of cuBLAS SGEMM at 4095 x 4097 x 1023 (128 x 128 tiles cover it in exactly four
/// rounds of two blocks per SM). Round 2 (B padded): a 256 x 128 tile (Tall: Large on its side)
/// covers 4095 x 4097 in 528 tiles, exactly four rounds, so about 0.92 of cuBLAS. Round 3 (ncu
/// first: cuBLAS runs CUTLASS's `cutlass_80_simt_sgemm_128x128_8x4_nn_align1`, and issues 0.84
/// warp instructions per scheduler per cycle against the small tile's 0.80): splitting off the
/// ragged column 0.93; cuBLAS's geometry with 8 x 8 threads at least the small tile's rate; a
/// faster pad a little; a deeper pipeline for the small tile 1-2%.
///
/// **Measured** (H100, each search in the same run as cuBLAS SGEMM). Round 1: 1024^3 small tile
/// 0.96 of cuBLAS SGEMM (v08 0.33), 2048^3 Large 0.93; at the odd shape the prediction failed
/// (0.82 at best): a column of tiles for one column of C, 4-byte copies of B, scalar stores of C.
/// Round 2: failed again, Tall 0.83 (staged C 0.86), but the small tile with staged C went from
/// 0.823 on B as it is to 0.900 on padded B (0.885 -> 0.810 ms): v09 kept the small tile, on
/// padded B. Round 3: the split 0.847 after, 0.883 beside (not kept); cuBLAS's geometry 0.853 (not
/// kept); the faster pad 13.8 -> 11.0 us (kept); 4 stages of 16 for the small tile 0.926 against
/// 0.907 (0.7928 against 0.8090 ms; kept: SmallFatDeep), BK 32 0.873. In the chapter's H100 run
/// (git 0b38325, fp32 tables): 43.10 TFLOP/s at 4095 x 4097 x 1023, 0.920 of cuBLAS SGEMM (0.7965
/// against 0.7329 ms; v08 0.670); 33.12 at 1024^3 (0.983; v08 0.332); 46.05, 47.33 and 48.22 at
/// 2048^3, 4096^3 and 8192^3 (0.918, 0.916, 0.934), where it runs v08's configuration: the best
/// fp32 version at every shape of the table (level with v08, within 0.1%, at the three largest).
void launch_gemm_v09_by_shape(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                              const float* b, float beta, float* c, cudaStream_t stream) {
  launch_chosen_config<FfmaConfig<by_shape::Large>, FfmaConfig<by_shape::SmallFatDeep>>(m, n, k, alpha, a, b, beta, c,
                                                                                       stream);
}

}  // namespace gemm
