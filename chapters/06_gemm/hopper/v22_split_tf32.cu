/// @file
/// @brief v22: fp32 accuracy on TF32 tensor cores: each operand split into a high and a low TF32
/// part, three products (B_lo A_hi + B_hi A_lo + B_hi A_hi), fp32 accumulation (sm_90a).
#include <algorithm>

#include "common/check.hpp"
#include "common/scratch.hpp"
#include "gemm.hpp"
#include "tf32_kernel.cuh"

namespace gemm {

/// v22's configuration of the TF32 kernel (tf32_kernel.cuh): two parts per operand, each slice's
/// sum promoted to fp32 registers, and half of v21's rows (the registers for the sums; a stage of
/// A_hi's, A_lo's and B's tiles is then v21's 48 KiB).
// [v22_config]
struct V22Tiles {
  static constexpr int parts = 2;        ///< each operand as hi + lo (v21: 1)
  static constexpr int rows = 128;       ///< 128 x 128 tiles: wgmma m64n128k8 (v21: 256 rows)
  static constexpr int stages = 4;       ///< 4 stages of 48 KiB (A_hi 16, A_lo 16, B 16)
  static constexpr bool promote = true;  ///< each slice's sum added to fp32 registers (v21: false)
};
// [v22_config]

/// hi = round_to_tf32(a), lo = round_to_tf32(a - hi) for the m x k matrix a (rows of k), written
/// as two matrices with rows of `ld` elements (16-byte aligned for TMA). One block per row
/// (grid-stride), the block's threads along the row.
// [split_a]
__global__ void gemm_v22_split_a(const float* __restrict__ a, std::int64_t m, std::int64_t k, float* __restrict__ hi,
                                 float* __restrict__ lo, std::int64_t ld) {
  for (std::int64_t r = blockIdx.x; r < m; r += gridDim.x) {
    for (std::int64_t j = threadIdx.x; j < k; j += blockDim.x) {
      const float x = a[r * k + j], h = round_to_tf32(x);
      hi[r * ld + j] = h;
      lo[r * ld + j] = round_to_tf32(x - h);  // x - h is exact: h holds x's leading bits
    }
  }
}
// [split_a]

namespace {

/// The memory of A's two parts, kept between calls (tut::Scratch: lent in stream order).
tut::Scratch& split_scratch() {
  static tut::Scratch scratch;
  return scratch;
}

}  // namespace

/// @brief v22: split TF32, fp32 accuracy from TF32 tensor cores.
///
/// **Idea.** A TF32 product keeps 11 of fp32's 24 significant bits of each input: ~5e-4 relative
/// error per input where fp32 has 6e-8. Write each input as the sum of two TF32 numbers, x = hi +
/// lo with hi = tf32(x) and lo = tf32(x - hi) (x - hi is exact and 2^11 times smaller, so lo keeps
/// the next 11 bits): hi + lo equals x to about 2^-22 |x|. Then a b = a_hi b_hi + a_hi b_lo + a_lo
/// b_hi + a_lo b_lo, and the last term is 2^-22 times the first: drop it. Three TF32 products,
/// accumulated in fp32 by the tensor cores, give a result about as accurate as fp32 FFMA, at a
/// third of TF32's rate, still several times CUDA cores' fp32 rate (the idea of NVIDIA CUTLASS's
/// "3xTF32" and of Ootomo and Yokota, "Recovering single precision accuracy from Tensor Cores while
/// surpassing the FP32 theoretical peak performance", 2022).
///
/// **Changed since v21.** An fp32 version (its table is the fp32 one, beside cuBLAS SGEMM): a pass
/// before the kernel splits A into A_hi and A_lo (gemm_v22_split_a()); the kernel's configuration
/// has two parts (`parts = 2`): each stage also loads A_lo's tile, the consumers split their B^T
/// registers into B_hi and B_lo (split_fragments()), and each k-step issues three wgmma instead of
/// one, the small products first. And one thing the tensor cores cannot give: each slice's sum
/// goes to fp32 registers, where the threads add it with round-to-nearest (`promote`), which
/// takes 64 more registers per thread, so the tile has half of v21's rows (m64n128k8).
///
/// **What is still wrong.** The split pass reads A and writes it twice (at 4096^3 about 0.2 GB,
/// a few percent of the time); every slice's wgmma are waited for before the promotion, so the
/// consumers' fragment loads no longer overlap the running wgmma.
///
/// **Predicted.** A third of v21's rate minus the pass: about 120 TFLOP/s at 4096^3 and 8192^3,
/// 2.3x cuBLAS SGEMM (~52 TFLOP/s), with a normwise error within 2x of the fp32 versions' (and
/// about 1000x below v21's on the same fp32 inputs).
///
/// **Measured.** The error prediction failed first. Without the promotion (256-row tiles, two
/// stages of 80 KiB, the tensor cores accumulating the whole k-loop), H100: 1.4639 ms at 4096^3
/// (1.79x cuBLAS SGEMM), 11.1263 ms at 8192^3 (1.90x), but a normwise error of 6.0e-7 at K = 4096
/// on fp32 inputs, 25x v09's 2.4e-8. Our reading (not documented by NVIDIA): the tensor cores'
/// additions into their accumulators do not round to nearest, and over K / 8 x 3 steps the bias
/// adds up; summing only a slice there and the slices in fp32 registers removed it. With the
/// promotion (this code; the tile changed with it): 1.2456 ms at 4096^3 (110 TFLOP/s, 2.15x
/// cuBLAS SGEMM) and 10.1190 ms at 8192^3 (2.09x), error 4.9e-9 in the precision test (v09 2.4e-8,
/// cuBLAS SGEMM 6.2e-9, v21 on the same fp32 inputs 1.4e-5).
// [launch]
void launch_gemm_v22_split_tf32(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                                const float* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, n, k);
  if (k == 0) {  // no k-slice, no tensor map of a zero-wide matrix: C = beta C, as v09 does it
    launch_gemm_v09_by_shape(m, n, k, alpha, a, b, beta, c, stream);
    return;
  }
  // A's two parts, in rows padded to 16 bytes (TMA-ready); B made TMA-ready as v21's.
  const std::int64_t ld = (k + 3) / 4 * 4;
  const std::size_t part_bytes = tut::round_up_256(static_cast<std::size_t>(m * ld) * sizeof(float));
  const tut::Scratch::Lease parts = split_scratch().lease(2 * part_bytes, stream);
  float* a_hi = parts.at<float>();
  float* a_lo = a_hi + part_bytes / sizeof(float);
  gemm_v22_split_a<<<static_cast<unsigned>(std::min<std::int64_t>(m, 65535)), 256, 0, stream>>>(a, m, k, a_hi, a_lo,
                                                                                                  ld);
  CUDA_CHECK_LAUNCH();
  const sm90::TmaOperandsOf<float> ops = sm90::tma_operands(m, n, k, a_hi, ld, b, n, stream);  // A_hi passes as is
  launch_tf32_kernel<V22Tiles>(tf32_maps<V22Tiles>(ops.a, a_lo, ops.lda, ops.b, ops.ldb, m, n, k), m, n, k, alpha, beta,
                               c, stream);
}
// [launch]

}  // namespace gemm
