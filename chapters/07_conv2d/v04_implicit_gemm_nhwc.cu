/// @file
/// @brief v04: implicit GEMM on CUDA cores (NHWC, KRSC, fp32): im2col addresses computed by the
/// tile loader, chapter 06's block / warp / thread tiles, a cp.async pipeline, split-K.
#include "conv2d.hpp"
#include "implicit_gemm.cuh"

namespace conv2d {

/// @brief v04: implicit GEMM on CUDA cores, in NHWC.
///
/// **Idea.** v03 showed that a convolution is a GEMM, Y (N P Q x K) = A (N P Q x C R S) B^T, and
/// what writing A out costs. Do not write it: let the GEMM's tile loader compute where each
/// element of an A tile lives in the input, (n, p stride - pad + r, q stride - pad + s, c) for
/// row (n, p, q) and column (r, s, c), and fetch it from there (zeros in the padding). The
/// matrix A then exists only as tiles in shared memory. In NHWC the C channels of a pixel are
/// contiguous, so a column range of A within one (r, s) is one contiguous run of the input: a
/// 16-byte cp.async copies four of them (C % 4 == 0; otherwise 4-byte copies), and the filter
/// in KRSC is B's rows as they are. The rest is chapter 06: 128 x 64 (or 128 x 128) block tiles,
/// 32 x 64 warp tiles, 8 x 8 thread tiles, a 4-stage cp.async pipeline.
///
/// **Changed since v03.** No im2col matrix (v03 wrote and read 9x the input for a 3x3 filter), no
/// separate copy kernel, and our own GEMM: the tile loader knows the convolution. The layout
/// changes to NHWC (v00-v03 are NCHW), because contiguous channels make the loader's copies wide.
/// When N P Q is too short to give every SM two blocks (14x14 and 28x28 layers), the reduction
/// is split over more blocks (split-K) that add their partial tiles into y.
///
/// **What is still wrong.** Each thread's copies of A need an address and four bounds checks per
/// 16-byte word (about a dozen integer instructions), and with 64 output channels a block's tile
/// is short in K: per FFMA, 1/64 of a word copy. The FFMA pipe is the roof, and the 3x3 layers
/// spend 9 multiply-adds per output and input channel on it: v05 changes the maths.
///
/// **Predicted.** 30-40 TFLOP/s on the 3x3 and 1x1 layers (chapter 06's v07 with this tile shape
/// reached 38), 2-3x v03; the 7x7 stem layer (C = 3) and the 6-channel image take the 4-byte path
/// and waste most of the 64-wide tile (K = 6), so v02 stays ahead there.
///
/// **Measured (H100).** First measurement: 21.6 TFLOP/s on N32 C64 56x56. The thread's 8 columns
/// were two quads of 4 (as its rows are): the 8 lanes of a quarter-warp then read B words 64
/// bytes apart, a 4-way bank conflict on every B load. With single columns one lane grid apart
/// (implicit_gemm.cuh): 29.7 TFLOP/s there (0.62x cuDNN's fastest fp32 row, a Winograd), 22.6
/// on 28x28, 23.8 on 14x14 (split-K: 0.88x cuDNN), and ahead of cuDNN where cuDNN has no
/// Winograd: 24.4 on the 1x1 layer (1.19x) and 20.1 on the 7x7 stem (1.07x, 4-byte path).
/// 2.2 on the 6-channel image (K = 6 fills 6 of 64 columns). 3.5x v03 on 56x56. (Since cuDNN's
/// rows re-time every candidate of their search, commit 8c3570e2f833: 0.88x cuDNN on the 1x1
/// layer, whose IMPLICIT_PRECOMP_GEMM takes 0.119 ms warm, and still 1.07x on the stem.)
/// Recorded run (H100, git 0b3832529293): 0.2486 ms on N32 C64 56x56 (29.76 TFLOP/s, 0.62x cuDNN's fastest fp32 row,
/// 3.1x v03), 0.1634 ms on 28x28 (22.64), 0.0783 ms on 14x14 (23.61, 0.79x cuDNN), 0.1352 ms on the 1x1 layer (24.33,
/// 0.87x), 0.0936 ms on the stem (20.17, 1.06x), 0.4593 ms on the 6-channel image (2.18).
void launch_conv2d_v04_implicit_gemm(const ConvShape& s, const float* x, const float* w, float* y,
                                    cudaStream_t stream) {
  require_valid(s, "v04_implicit_gemm_nhwc");
  const std::int64_t out = s.output_elements();
  // [launch]
  // One convolution (batch 1). The kernel, its loader and its tiles are in implicit_gemm.cuh
  // ([kernel], [loader], [tiles]); v05 runs the same kernel as 16 batched GEMMs.
  if (s.k <= 64) {
    launch_implicit_gemm<NarrowTiles>(s, 1, 0, 0, out, x, w, y, stream);  // 128 x 64 blocks (NarrowSizes)
  } else {
    launch_implicit_gemm<WideTiles>(s, 1, 0, 0, out, x, w, y, stream);  // 128 x 128 blocks (WideSizes)
  }
  // [launch]
}

}  // namespace conv2d
