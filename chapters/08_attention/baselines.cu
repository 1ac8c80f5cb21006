/// @file
/// @brief The library baselines: "library attention" as a framework's unfused path computes it,
/// from cuBLAS batched GEMMs with a softmax kernel between them; and the GEMM roof of the tables.
///
/// cuBLAS is column-major; our tensors are row-major. A row-major (R x C) matrix is, byte for
/// byte, its column-major transpose, so each product is written for the transposes:
///
///     S = Q K^T (Sq x Sk, row-major)  <=>  S^T (Sk x Sq, col-major) = K (Sk x D) Q^T (D x Sq):
///         A = K's buffer read as col-major (D x Sk), transposed (OP_T); B = Q's buffer as (D x Sq).
///     O = P V (Sq x D, row-major)     <=>  O^T (D x Sq, col-major) = V^T (D x Sk) P^T (Sk x Sq):
///         A = V's buffer as col-major (D x Sk); B = P's buffer as (Sk x Sq); both OP_N.
///
/// One call per product covers all B x H heads (cublasGemmStridedBatchedEx, strides between heads).
/// The 1/sqrt(D) scale is cuBLAS's alpha. The handle, one per thread (common/cublas_handle.hpp),
/// is created on first use (the untimed check).
#include <cublas_v2.h>

#include <map>
#include <stdexcept>

#include "attention.hpp"
#include "common/check.hpp"
#include "common/cublas_check.hpp"
#include "common/cublas_handle.hpp"
#include "common/device_buffer.hpp"
#include "common/launch.hpp"
#include "common/random.hpp"
#include "common/timing.hpp"
#include "row_softmax.cuh"

namespace attention {

namespace {

/// This thread's handle, bound to `stream` (common/cublas_handle.hpp). Default math mode: fp32
/// stays fp32, no TF32.
cublasHandle_t handle_on(cudaStream_t stream) { return tut::cublas_handle_on(stream, CUBLAS_DEFAULT_MATH); }

/// Bytes of S rounded up to 256, where the bf16 path's P starts.
std::size_t p_offset(const Shape& s) {
  const std::size_t bytes = static_cast<std::size_t>(score_matrix_bytes(s));
  return (bytes + 255) / 256 * 256;
}

/// S = scale Q K^T for all heads (fp32 output), then P = softmax(S) and lse.
template <class InT, class PT>
void scores_and_softmax(const Shape& s, const InT* q, const InT* k, float* scores, PT* p, float* lse,
                        cudaDataType_t in_type, cudaStream_t stream) {
  const int sq = static_cast<int>(s.sq), sk = static_cast<int>(s.sk), d = static_cast<int>(s.d);
  const float alpha = s.scale(), beta = 0.0f;
  // [gemm_scores]
  CUBLAS_CHECK(cublasGemmStridedBatchedEx(handle_on(stream), CUBLAS_OP_T, CUBLAS_OP_N, sk, sq, d, &alpha, k, in_type,
                                          d, s.sk * s.d, q, in_type, d, s.sq * s.d, &beta, scores, CUDA_R_32F, sk,
                                          s.sq * s.sk, static_cast<int>(s.heads()), CUBLAS_COMPUTE_32F,
                                          CUBLAS_GEMM_DEFAULT));
  // [gemm_scores]
  constexpr int kThreads = 256;
  const std::int64_t rows = s.heads() * s.sq;
  attention_row_softmax<PT><<<tut::grid_stride_blocks(attention_row_softmax<PT>, rows, kThreads, kThreads / 32),
                              kThreads, 0, stream>>>(scores, p, lse, rows, sq, sk, s.causal);
  CUDA_CHECK_LAUNCH();
}

/// O = P V for all heads.
template <class PT, class OutT>
void probabilities_times_v(const Shape& s, const PT* p, const PT* v, OutT* o, cudaDataType_t type,
                           cudaStream_t stream) {
  const float one = 1.0f, zero = 0.0f;
  CUBLAS_CHECK(cublasGemmStridedBatchedEx(handle_on(stream), CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(s.d),
                                          static_cast<int>(s.sq), static_cast<int>(s.sk), &one, v, type,
                                          static_cast<int>(s.d), s.sk * s.d, p, type, static_cast<int>(s.sk),
                                          s.sq * s.sk, &zero, o, type, static_cast<int>(s.d), s.sq * s.d,
                                          static_cast<int>(s.heads()), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

}  // namespace

double cublas_workspace_bytes_fp32(const Shape& s) { return score_matrix_bytes(s); }

double cublas_workspace_bytes_bf16(const Shape& s) {
  return static_cast<double>(p_offset(s)) + score_matrix_bytes(s) / 2.0;
}

/// cuBLAS fp32 (SGEMM-class, no TF32): S in fp32, softmax in place, P V.
void launch_cublas_attention_fp32(const Shape& s, const float* q, const float* k, const float* v, float* o,
                                  float* lse, void* workspace, cudaStream_t stream) {
  check_shape(s);
  if (workspace == nullptr) throw std::invalid_argument("cublas_fp32: needs a workspace for S");
  float* scores = static_cast<float*>(workspace);
  scores_and_softmax<float, float>(s, q, k, scores, scores, lse, CUDA_R_32F, stream);
  probabilities_times_v<float, float>(s, scores, v, o, CUDA_R_32F, stream);
}

/// cuBLAS bf16 (tensor cores, fp32 accumulation): S in fp32, P in bf16, O in bf16.
void launch_cublas_attention_bf16(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                  const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                  cudaStream_t stream) {
  check_shape(s);
  if (workspace == nullptr) throw std::invalid_argument("cublas_bf16: needs a workspace for S and P");
  float* scores = static_cast<float*>(workspace);
  auto* p = reinterpret_cast<__nv_bfloat16*>(static_cast<char*>(workspace) + p_offset(s));
  scores_and_softmax<__nv_bfloat16, __nv_bfloat16>(s, q, k, scores, p, lse, CUDA_R_16BF, stream);
  probabilities_times_v<__nv_bfloat16, __nv_bfloat16>(s, p, v, o, CUDA_R_16BF, stream);
}

double measured_gemm_tflops(Precision prec, cudaStream_t stream) {
  static std::map<Precision, double> cache;
  const auto hit = cache.find(prec);
  if (hit != cache.end()) return hit->second;
  const int n = prec == Precision::bf16 ? 8192 : 4096;
  const std::size_t elems = static_cast<std::size_t>(n) * n;
  tut::DeviceBuffer<float> a32(elems), b32(elems), c32(elems);
  tut::fill_random_device(a32.data(), elems, 1, -1.0f, 1.0f, stream);
  tut::fill_random_device(b32.data(), elems, 2, -1.0f, 1.0f, stream);
  tut::DeviceBuffer<__nv_bfloat16> a16, b16, c16;
  if (prec == Precision::bf16) {
    a16 = tut::DeviceBuffer<__nv_bfloat16>(elems);
    b16 = tut::DeviceBuffer<__nv_bfloat16>(elems);
    c16 = tut::DeviceBuffer<__nv_bfloat16>(elems);
    convert_to_bf16_device(a32.data(), a16.data(), static_cast<std::int64_t>(elems), stream);
    convert_to_bf16_device(b32.data(), b16.data(), static_cast<std::int64_t>(elems), stream);
  }
  const float one = 1.0f, zero = 0.0f;
  const auto gemm = [&](cudaStream_t st) {
    if (prec == Precision::bf16) {
      CUBLAS_CHECK(cublasGemmEx(handle_on(st), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a16.data(), CUDA_R_16BF, n,
                                b16.data(), CUDA_R_16BF, n, &zero, c16.data(), CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
                                CUBLAS_GEMM_DEFAULT));
    } else {
      CUBLAS_CHECK(cublasSgemm(handle_on(st), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a32.data(), n, b32.data(), n,
                               &zero, c32.data(), n));
    }
  };
  tut::TimingOptions t;
  t.warmup = 3;
  t.reps = 10;
  t.flush_l2 = false;
  const tut::TimingStats stats = tut::time_on_stream(gemm, t, stream);
  const double tflops = 2.0 * n * static_cast<double>(n) * n / (stats.median_ms * 1e-3) / 1e12;
  cache[prec] = tflops;
  return tflops;
}

}  // namespace attention
