/// @file
/// @brief v03: explicit im2col (the patches written out as a matrix), then cuBLAS SGEMM (NCHW, fp32).
#include <cublas_v2.h>

#include <algorithm>
#include <climits>
#include <string>

#include "common/check.hpp"
#include "common/cublas_check.hpp"
#include "common/launch.hpp"
#include "common/scratch.hpp"
#include "conv2d.hpp"

namespace conv2d {

namespace {

/// The largest im2col matrix v03 allocates (it is 9x the input for 3x3 filters; 49x for 7x7).
constexpr double kMaxColBytes = 8.0 * 1024 * 1024 * 1024;

/// The cuBLAS handle and the memory of the im2col matrix (a tut::Scratch, grown on the untimed
/// first run of a larger shape, lent to one call at a time in stream order: its lease also keeps
/// other host threads off the handle), created on first use and kept for the life of the process.
/// Destroyed at exit, before the CUDA runtime's own teardown (a function-local static is
/// constructed after the runtime started).
struct Im2colState {
  cublasHandle_t handle = nullptr;
  tut::Scratch col;
  Im2colState() {
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));  // fp32 FFMA, never TF32
  }
  ~Im2colState() {
    if (handle != nullptr) cublasDestroy(handle);
  }
  Im2colState(const Im2colState&) = delete;
  Im2colState& operator=(const Im2colState&) = delete;
};

Im2colState& state() {
  static Im2colState st;
  return st;
}

}  // namespace

/// @brief col[n][(c R + r) S + s][p Q + q] = x[n, c, p stride_h - pad_h + r, q stride_w - pad_w + s]
/// (0 in the padding): every input patch written out as a column. Grid-stride, 64-bit indices,
/// consecutive threads on consecutive (p, q): the writes are coalesced, the reads follow a row.
// [im2col]
__global__ void conv2d_v03_im2col(Dims d, const float* __restrict__ x, float* __restrict__ col) {
  const std::int64_t pq = static_cast<std::int64_t>(d.p) * d.q, crs = static_cast<std::int64_t>(d.c) * d.r * d.s;
  const std::int64_t total = d.n * crs * pq;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    const std::int64_t pix = i % pq, row = i / pq % crs, n = i / (pq * crs);
    const int q = static_cast<int>(pix % d.q), p = static_cast<int>(pix / d.q);
    const int s = static_cast<int>(row % d.s), r = static_cast<int>(row / d.s % d.r), c = static_cast<int>(row / (d.s * d.r));
    const int h = p * d.stride_h - d.pad_h + r, w = q * d.stride_w - d.pad_w + s;
    const bool inside = h >= 0 && h < d.h && w >= 0 && w < d.w;
    col[i] = inside ? x[((n * d.c + c) * d.h + h) * d.w + w] : 0.0f;
  }
}
// [im2col]

double im2col_bytes(const ConvShape& s) {
  return 4.0 * static_cast<double>(s.n) * static_cast<double>(s.reduction()) * static_cast<double>(s.p()) *
         static_cast<double>(s.q());
}

std::string supports_v03(const ConvShape& s) {
  if (im2col_bytes(s) > kMaxColBytes) {
    return "the im2col matrix would take " + std::to_string(static_cast<long long>(im2col_bytes(s) / 1e9)) +
           " GB (v03 allocates at most 8 GiB)";
  }
  if (s.p() * s.q() > INT_MAX || s.reduction() > INT_MAX) return "cuBLAS takes int dimensions: P Q and C R S must be below 2^31";
  return "";
}

/// @brief v03: explicit im2col + cuBLAS SGEMM.
///
/// **Idea.** A convolution is a matrix product in disguise. Write every input window out as a
/// column (im2col): for image n, a (C R S) x (P Q) matrix whose column (p, q) holds the C R S
/// inputs that output (p, q) multiplies. Then y[n] (K x P Q) = W (K x C R S) col[n], one GEMM
/// per image, and the GEMM is cuBLAS's: the fastest SGEMM we have (chapter 06).
///
/// **Changed since v02.** No hand-written convolution at all: one kernel that copies, and
/// cublasSgemmStridedBatched (a batch of N GEMMs sharing W, in cuBLAS's column-major terms
/// y[n]^T (P Q x K) = col[n]^T (P Q x C R S) W^T (C R S x K): no transposes needed).
///
/// **What is still wrong.** The bytes. The im2col matrix holds every input value R S times (9x
/// the input for 3x3, 49/4 = 12x for 7x7 with stride 2): for N32 C64 56x56 that is 231 MB written
/// and read back, against a 25.7 MB input. The copy kernel alone moves ~500 MB; at ~3 TB/s that is
/// 0.15 ms, as long as the GEMM itself. The GEMM is also shaped badly for cuBLAS when K is small
/// (64 columns).
///
/// **Predicted.** The GEMM part near 70-90% of cuBLAS SGEMM's rate, the whole step 40-60% of it
/// with the copy; faster than v02 on the many-channel layers, slower on the 6-channel image (a
/// 216-long reduction and K = 6 make a thin GEMM).
///
/// **Measured (H100).** 9.6 TFLOP/s on N32 C64 56x56 (0.62x v02: the 220 MiB matrix costs as
/// much as the GEMM), 14.7 on 28x28 and 14.4 on 14x14 (1.4x and 5.9x v02: here the matrix is
/// 55 and 14 MiB and mostly stays in L2), 9.4 on the 1x1 layer (im2col is a 98 MiB copy), and
/// 0.92 on the 6-channel image (a 319 MiB matrix, 35x the input, for a GEMM of K = 6).
/// Recorded run (H100, git 0b3832529293): 0.7692 ms on N32 C64 56x56 (9.62 TFLOP/s), 0.2500 ms on 28x28 (14.79), 0.1281
/// ms on 14x14 (14.44), 0.3495 ms on the 1x1 layer (9.41), 1.0853 ms on the 6-channel image (0.92).
void launch_conv2d_v03_im2col_cublas(const ConvShape& s, const float* x, const float* w, float* y,
                                    cudaStream_t stream) {
  require_valid(s, "v03_im2col_cublas_nchw");
  const std::string why = supports_v03(s);
  if (!why.empty()) throw std::invalid_argument("v03_im2col_cublas_nchw: " + why);
  Im2colState& st = state();
  const std::size_t elems = static_cast<std::size_t>(im2col_bytes(s) / 4.0);
  const tut::Scratch::Lease lease = st.col.lease(elems * sizeof(float), stream);
  float* const col = lease.at<float>();
  const unsigned blocks = tut::grid_stride_blocks(conv2d_v03_im2col, static_cast<std::int64_t>(elems), 256, 256);
  conv2d_v03_im2col<<<blocks, 256, 0, stream>>>(dims_of(s), x, col);
  CUDA_CHECK_LAUNCH();

// [gemm]
  // Column-major: y[n]^T (PQ x K, ld PQ) = col[n]^T (PQ x CRS, ld PQ) * W^T (CRS x K, ld CRS).
  const int pq = static_cast<int>(s.p() * s.q()), k = static_cast<int>(s.k), crs = static_cast<int>(s.reduction());
  const float one = 1.0f, zero = 0.0f;
  CUBLAS_CHECK(cublasSetStream(st.handle, stream));
  CUBLAS_CHECK(cublasSgemmStridedBatched(st.handle, CUBLAS_OP_N, CUBLAS_OP_N, pq, k, crs, &one, col, pq,
                                         static_cast<long long>(pq) * crs, w, crs, 0, &zero, y, pq,
                                         static_cast<long long>(pq) * k, static_cast<int>(s.n)));
// [gemm]
}

}  // namespace conv2d
