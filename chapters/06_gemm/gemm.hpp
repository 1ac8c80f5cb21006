/// @file
/// @brief Chapter 06 (gemm): declarations shared by the versions, the executable and the tests.
///
/// Every version computes C = alpha * A B + beta * C with row-major A (M x K), B (K x N) and
/// C (M x N), for any M, N, K >= 1 (and K = 0). The registry, versions(), is the only list of
/// versions: the executable, --list, the tests and the JSON all iterate it.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/compare.hpp"
#include "common/report.hpp"

/// Chapter 06: matrix multiplication, from one thread per output to cuBLAS-class SGEMM, then tensor cores.
namespace gemm {

/// The problem size: C is m x n, the inner dimension is k.
struct Shape {
  std::int64_t m = 0;  ///< rows of A and C
  std::int64_t n = 0;  ///< columns of B and C
  std::int64_t k = 0;  ///< columns of A, rows of B
};

/// What a version's inputs are, which decides the table it appears in and its tolerance.
enum class Precision {
  fp32,  ///< fp32 inputs, fp32 arithmetic on CUDA cores (FFMA)
  tf32,  ///< fp32 storage holding values already rounded to TF32 (10-bit mantissa); fp32 accumulate
  bf16,  ///< bfloat16 inputs (8-bit mantissa), fp32 accumulate and fp32 output
};

/// "fp32", "tf32" or "bf16" (also the JSON `dtype`).
const char* precision_name(Precision p);

/// Runs C = alpha * A B + beta * C on fp32 (or TF32-rounded fp32) inputs, enqueued on `stream`.
/// When beta == 0, C is not read (BLAS rule: a NaN in C does not reach the output).
using LaunchF32 = void (*)(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                           const float* b, float beta, float* c, cudaStream_t stream);

/// The same with bfloat16 inputs (C stays fp32).
using LaunchBF16 = void (*)(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                            const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream);

/// Something that computes a GEMM: its input precision and the launcher of that precision.
struct Kernel {
  Precision precision = Precision::fp32;  ///< fp32 and tf32 use `f32`, bf16 uses `bf16`
  LaunchF32 f32 = nullptr;                ///< launcher for fp32 / tf32 inputs (else null)
  LaunchBF16 bf16 = nullptr;              ///< launcher for bf16 inputs (else null)
};

/// A registered version.
struct Version {
  tut::VersionInfo info;  ///< name, one-line idea, minimum GPU, kind
  Kernel kernel;          ///< how to run it
  /// The executable skips problems of more FLOPs than this ("too slow at this size"); 0: no cap.
  /// Only a time budget for the default run: every version is correct at every size.
  double max_flops = 0.0;
  /// Null, or why this version cannot run on the current GPU and build although the GPU meets
  /// min_cc (empty string: it can). The Hopper steps need sm_90a code: hopper_unavailable().
  std::string (*unavailable)() = nullptr;
};

/// Why the Hopper steps (v12-v17: wgmma, TMA) cannot run here, or "" if they can: they need a
/// compute capability 9.0 GPU, code compiled for sm_90a, and cuTensorMapEncodeTiled in the driver.
std::string hopper_unavailable();

/// The registry: every version and library baseline of the chapter, in table order.
const std::vector<Version>& versions();

/// 2 m n k: the canonical FLOP count of one GEMM (alpha and beta are not counted).
double gemm_flops(const Shape& s);

/// Throws std::invalid_argument unless m, n and k fit the kernels' 32-bit dimension arguments.
/// (Inline, like tile_grid(): a launcher may use them without linking the chapter's libraries.)
inline void check_dims(std::int64_t m, std::int64_t n, std::int64_t k) {
  if (m < 0 || n < 0 || k < 0) throw std::invalid_argument("gemm: negative dimension");
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX) {
    throw std::invalid_argument("gemm: dimensions above 2^31 - 1 are not supported (m=" + std::to_string(m) +
                                ", n=" + std::to_string(n) + ", k=" + std::to_string(k) + ")");
  }
}

/// The 2-D grid of block tiles: x walks the column tiles, y the row tiles. Throws
/// std::invalid_argument if m needs more than 65535 row tiles (CUDA's limit on gridDim.y).
inline dim3 tile_grid(std::int64_t m, std::int64_t n, int block_m, int block_n) {
  const std::int64_t tiles_m = (m + block_m - 1) / block_m;
  const std::int64_t tiles_n = (n + block_n - 1) / block_n;
  if (tiles_m > 65535) {
    throw std::invalid_argument("gemm: m = " + std::to_string(m) + " needs " + std::to_string(tiles_m) +
                                " row tiles of " + std::to_string(block_m) + ", above CUDA's gridDim.y limit of 65535");
  }
  if (tiles_n > INT_MAX) throw std::invalid_argument("gemm: n too large for the grid");
  return dim3(static_cast<unsigned>(tiles_n > 1 ? tiles_n : 1), static_cast<unsigned>(tiles_m > 1 ? tiles_m : 1));
}

/// @name Tolerances (see the chapter page, "Precision and tolerances")
/// @{

/// What a result of precision `p` with inner dimension `k` must match. The bounds are relative
/// to each element's magnitude m_ij = |alpha| sum_k |a_ik b_kj| + |beta c0_ij| (make_reference
/// computes it), so alpha and beta need no terms of their own and a result whose terms cancel
/// is judged by the size of its terms, not by its own (tiny) size. The reference always uses the
/// inputs the kernel saw (TF32/BF16-rounded where that applies), so the tolerance measures the
/// accumulation only.
tut::Tolerance tolerance(Precision p, std::int64_t k);
/// @}

/// @name Input rounding (identical on host and device; convert.cu runs it on the GPU)
/// @{

/// Rounds x to TF32 (1 sign, 8 exponent, 10 mantissa bits), to nearest with ties away from zero,
/// exactly as the PTX instruction cvt.rna.tf32.f32 does. NaN and infinities pass unchanged.
__host__ __device__ inline float round_to_tf32(float x) {
#if defined(__CUDA_ARCH__)
  unsigned int u = __float_as_uint(x);
#else
  unsigned int u = 0;
  std::memcpy(&u, &x, sizeof u);
#endif
  if ((u & 0x7f800000u) != 0x7f800000u) {  // finite: add half a TF32 ulp, then drop the 13 low bits
    u += 0x1000u;
    u &= 0xffffe000u;
  }
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float r = 0.0f;
  std::memcpy(&r, &u, sizeof r);
  return r;
#endif
}

/// Rounds x to bfloat16 and back (to nearest, ties to even): the value a BF16 kernel sees.
float round_to_bf16(float x);

/// Rounds `n` floats to TF32 on the device (in place allowed: in == out).
void round_to_tf32_device(const float* in, float* out, std::int64_t n, cudaStream_t stream);
/// Converts `n` floats to bfloat16 on the device (round to nearest even).
void convert_to_bf16_device(const float* in, __nv_bfloat16* out, std::int64_t n, cudaStream_t stream);
/// @}

/// @name CPU reference (double precision)
/// @{

/// Every element: C_ref = alpha * A B + beta * C0 in double, in parallel over rows. `c0` may be
/// null when beta == 0. Inputs are the floats the kernel saw (already rounded for TF32/BF16).
/// With `magnitude`, also each element's magnitude |alpha| sum_k |a_ik b_kj| + |beta c0_ij|
/// (the size of its terms, which the tolerance is relative to).
std::vector<double> reference_gemm(const Shape& s, float alpha, const float* a, const float* b, float beta,
                                   const float* c0, std::vector<double>* magnitude = nullptr);

/// One element of the reference, as a K-long dot product in double. `b_col` is column `j` of B,
/// stored contiguously (K values); `c0` may be null when beta == 0. With `magnitude`, also the
/// element's magnitude (as reference_gemm()).
double reference_element(const Shape& s, std::int64_t i, std::int64_t j, float alpha, const float* a,
                         const float* b_col, float beta, const float* c0, double* magnitude = nullptr);

/// The elements a sampled check looks at (flat indices i * n + j, sorted, no duplicates):
/// the four corners; rows 0 and m-1 and columns 0 and n-1 (every element when short, else 512
/// evenly spaced ones plus the last 160, which cover any partial edge tile); and `random_count`
/// uniformly random elements drawn from `seed`.
std::vector<std::size_t> sample_indices(const Shape& s, std::uint64_t seed, std::size_t random_count = 4096);

/// A reference for one problem: every element, or a sample of them when the problem is large.
struct Reference {
  bool full = true;                ///< true: value[i] is element i; false: value[s] is element index[s]
  std::vector<std::size_t> index;  ///< flat indices checked (sampled reference only)
  std::vector<double> value;       ///< the reference values
  std::vector<double> magnitude;   ///< each value's magnitude, |alpha| sum |a b| + |beta c0| (as `value`)
};

/// Largest m * n * k whose reference is computed in full (2^31 multiply-adds: about a second
/// on the GPU machine's cores); bigger problems are checked on sample_indices().
constexpr double kFullReferenceMacs = 2147483648.0;

/// The reference of one problem: full up to `full_macs` multiply-adds (and m * n <= 2^26), else
/// sampled at sample_indices(s, seed).
Reference make_reference(const Shape& s, float alpha, const float* a, const float* b, float beta, const float* c0,
                         std::uint64_t seed, double full_macs = kFullReferenceMacs);

/// Compares a downloaded output `got` (all m * n elements) with `ref`, each element against
/// atol + rtol * its magnitude (tut::ErrorStats::add with a magnitude).
tut::ErrorStats check_output(const Reference& ref, const float* got, const tut::Tolerance& tol);

/// "row i, col j" for the flat index i * n + j of an m x n matrix.
std::string format_index(std::size_t index, std::int64_t n);
/// @}

/// @name The fp32 ladder (one file each: fp32/v00_naive.cu ... fp32/v09_by_shape.cu)
/// @{
void launch_gemm_v00_naive(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                          const float* b, float beta, float* c, cudaStream_t stream);
void launch_gemm_v01_coalesced(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                              const float* b, float beta, float* c, cudaStream_t stream);
void launch_gemm_v02_smem_tiles(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                               const float* b, float beta, float* c, cudaStream_t stream);
void launch_gemm_v03_blocktile_1d(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                                 const float* b, float beta, float* c, cudaStream_t stream);
void launch_gemm_v04_blocktile_2d(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                                 const float* b, float beta, float* c, cudaStream_t stream);
void launch_gemm_v05_vectorized(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                               const float* b, float beta, float* c, cudaStream_t stream);
void launch_gemm_v06_warptile(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                             const float* b, float beta, float* c, cudaStream_t stream);
void launch_gemm_v07_pipelined(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                              const float* b, float beta, float* c, cudaStream_t stream);
void launch_gemm_v08_tuned(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                          const float* b, float beta, float* c, cudaStream_t stream);
void launch_gemm_v09_by_shape(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                              const float* b, float beta, float* c, cudaStream_t stream);
/// @}

/// @name Tensor cores (sm_80 and later; tensor_cores/v10_wmma_tf32.cu, tensor_cores/v11_mma_bf16.cu)
/// @{
void launch_gemm_v10_wmma_tf32(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                              const float* b, float beta, float* c, cudaStream_t stream);
void launch_gemm_v11_mma_bf16(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                              const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream);
/// @}

/// @name Hopper: TMA and wgmma (sm_90a; one file each, v12_tma_wgmma.cu ... v25_descriptor_steps.cu, v27_sleeping_waits.cu)
/// @{
void launch_gemm_v12_tma_wgmma(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                               const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream);
void launch_gemm_v13_two_warpgroups(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                    const __nv_bfloat16* a, const __nv_bfloat16* b, float beta, float* c,
                                    cudaStream_t stream);
void launch_gemm_v14_warp_specialized(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                      const __nv_bfloat16* a, const __nv_bfloat16* b, float beta, float* c,
                                      cudaStream_t stream);
void launch_gemm_v15_persistent(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                                const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream);
void launch_gemm_v16_tma_store(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                               const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream);
void launch_gemm_v17_cluster_multicast(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                       const __nv_bfloat16* a, const __nv_bfloat16* b, float beta, float* c,
                                       cudaStream_t stream);
void launch_gemm_v18_tile_by_waves(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                   const __nv_bfloat16* a, const __nv_bfloat16* b, float beta, float* c,
                                   cudaStream_t stream);
/// v18's choice on a GPU of `sms` SMs: true where 128 x 128 tiles would end sooner than 128 x 256
/// ones (their waves, at two thirds of a large tile's time each, against the large tile's waves).
bool v18_takes_half_tiles(std::int64_t m, std::int64_t n, int sms);
void launch_gemm_v19_split_k(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                             const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream);
/// v19's choice on a GPU of `sms` SMs: how many blocks share each 128 x 128 tile's k-slices (1:
/// none, v18 runs).
int v19_splits(std::int64_t m, std::int64_t n, std::int64_t k, int sms);
void launch_gemm_v20_narrow_tiles(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                                  const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream);
/// v20's choice on a GPU of `sms` SMs: the width of the 128-row tile (256, 128 or 64) whose waves
/// end first.
int v20_tile_n(std::int64_t m, std::int64_t n, int sms);
void launch_gemm_v21_wgmma_tf32(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                                const float* b, float beta, float* c, cudaStream_t stream);
void launch_gemm_v22_split_tf32(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                                const float* b, float beta, float* c, cudaStream_t stream);
void launch_gemm_v23_tf32_tile_by_waves(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                                        const float* b, float beta, float* c, cudaStream_t stream);
/// v23's choice on a GPU of `sms` SMs: the rows of C per block (256, 128 or 64) whose waves end first.
int v23_tile_rows(std::int64_t m, std::int64_t n, int sms);
void launch_gemm_v24_cluster_split_k(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                     const __nv_bfloat16* a, const __nv_bfloat16* b, float beta, float* c,
                                     cudaStream_t stream);
/// v24's choice on a GPU that runs `pair_slots` clusters of two CTAs at once (66 on 132 SMs):
/// true where pairs of CTAs split each 128 x 128 tile's k-slices (else v20 runs).
bool v24_takes_pairs(std::int64_t m, std::int64_t n, std::int64_t k, int pair_slots);
/// How many of v24's clusters of two CTAs this GPU runs at once (cudaOccupancyMaxActiveClusters).
int v24_pair_slots();
void launch_gemm_v25_descriptor_steps(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                      const __nv_bfloat16* a, const __nv_bfloat16* b, float beta, float* c,
                                      cudaStream_t stream);
void launch_gemm_v27_sleeping_waits(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                    const __nv_bfloat16* a, const __nv_bfloat16* b, float beta, float* c,
                                    cudaStream_t stream);
/// v24's pairs whatever the rule says, on at most `max_clusters` clusters, so that each pair takes
/// many tiles in turn: for the tests (the rule gives every pair one tile). K needs two k-slices.
void launch_gemm_v24_pairs_on(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                              const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream, int max_clusters);
/// @}

/// @name fp32 again, after the Hopper steps (fp32/v26_serpentine_ffma.cu)
/// @{
void launch_gemm_v26_serpentine_ffma(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                                     const float* b, float beta, float* c, cudaStream_t stream);
/// @}

/// @name cuBLAS baselines (cublas_baselines.cpp): the same problem, row-major via C^T = B^T A^T
/// @{
void launch_cublas_sgemm(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                         const float* b, float beta, float* c, cudaStream_t stream);
void launch_cublas_tf32(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                        const float* b, float beta, float* c, cudaStream_t stream);
void launch_cublas_bf16(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                        const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream);
/// @}

/// The number of SMs of the current device (one cached query).
int sm_count();

}  // namespace gemm
