/// @file
/// @brief The host side of the Hopper steps (v12-v17): can this GPU and build run them, tensor
/// maps (TMA descriptors) through the driver's cuTensorMapEncodeTiled, and operands made
/// TMA-ready (copied into an aligned workspace when their rows are not 16-byte aligned).
#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>

#include "common/check.hpp"
#include "common/tensor_map.hpp"
#include "hopper.cuh"

namespace gemm {

namespace {

using tut::encode_tiled_map;  // cuTensorMapEncodeTiled, checked (common/tensor_map.hpp)

/// dst[r * dst_ld + c] = src[r * src_ld + c] for a rows x cols matrix of W-sized elements (copied
/// as raw words): one block per row (grid-stride), the block's threads along the row.
template <class W>
__global__ void copy_rows(const W* __restrict__ src, std::int64_t src_ld, W* __restrict__ dst, std::int64_t dst_ld,
                          std::int64_t rows, std::int64_t cols) {
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const W* s = src + r * src_ld;
    W* d = dst + r * dst_ld;
    for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) d[c] = s[c];
  }
}

/// The memory of the operands' aligned copies (tut::Scratch: one for the process, lent in stream order).
tut::Scratch& copies_scratch() {
  static tut::Scratch scratch;
  return scratch;
}

/// tma_operands() for elements of type T, copied as the same-sized word W; `a_ld` and `b_ld`: the
/// elements between rows of A and B as given.
template <class T, class W>
sm90::TmaOperandsOf<T> make_tma_ready(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, std::int64_t a_ld,
                                      const T* b, std::int64_t b_ld, cudaStream_t stream) {
  static_assert(sizeof(T) == sizeof(W), "copied as words of the element's size");
  constexpr std::int64_t per16 = 16 / sizeof(T);  // elements per 16 bytes
  const bool a_ok = a_ld % per16 == 0 && aligned16(a);
  const bool b_ok = b_ld % per16 == 0 && aligned16(b);
  sm90::TmaOperandsOf<T> ops{a, a_ld, b, b_ld, std::nullopt};
  if (a_ok && b_ok) return ops;
  // Copy what is not aligned into the workspace, rows padded to 16 bytes. The padding is never
  // read: the tensor maps keep the true k and n, so TMA zero-fills past them.
  const auto round_up = [](std::int64_t v) { return (v + per16 - 1) / per16 * per16; };
  const std::int64_t lda = a_ok ? k : round_up(k), ldb = b_ok ? n : round_up(n);
  const std::size_t a_bytes = a_ok ? 0 : static_cast<std::size_t>(m * lda) * sizeof(T);
  const std::size_t b_bytes = b_ok ? 0 : static_cast<std::size_t>(k * ldb) * sizeof(T);
  ops.copies.emplace(copies_scratch().lease(tut::round_up_256(a_bytes) + b_bytes, stream));
  unsigned char* ws = ops.copies->template at<unsigned char>();
  const auto copy = [stream](const T* src, std::int64_t src_ld, void* dst, std::int64_t dst_ld, std::int64_t rows,
                             std::int64_t cols) {
    const unsigned blocks = static_cast<unsigned>(std::min<std::int64_t>(rows, 8192));
    copy_rows<W><<<blocks, 256, 0, stream>>>(reinterpret_cast<const W*>(src), src_ld, static_cast<W*>(dst), dst_ld,
                                             rows, cols);
    CUDA_CHECK_LAUNCH();
  };
  if (!a_ok) {
    copy(a, a_ld, ws, lda, m, k);
    ops.a = reinterpret_cast<const T*>(ws);
    ops.lda = lda;
  }
  if (!b_ok) {
    unsigned char* dst = ws + tut::round_up_256(a_bytes);
    copy(b, b_ld, dst, ldb, k, n);
    ops.b = reinterpret_cast<const T*>(dst);
    ops.ldb = ldb;
  }
  return ops;
}

}  // namespace

// The probe and its messages are shared with the other chapters' Hopper steps.
std::string hopper_unavailable() { return tut::sm90::unavailable(); }

namespace sm90 {

CUtensorMap make_tensor_map(const void* base, CUtensorMapDataType type, int elem_bytes, std::int64_t rows,
                            std::int64_t cols, std::int64_t ld, unsigned box_rows, unsigned box_cols) {
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};  // innermost first
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * static_cast<cuuint64_t>(elem_bytes)};  // bytes per row
  const cuuint32_t box[2] = {box_cols, box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  // 128-byte swizzle (the box's rows are 128 bytes); L2 requests widened to 256 bytes; zeros
  // outside the matrix (FLOAT_OOB_FILL_NONE fills zeros, the alternative being NaN).
  return encode_tiled_map("gemm", type, 2, base, dims, strides, box, element_strides, CU_TENSOR_MAP_SWIZZLE_128B,
                          CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
}

TmaOperands tma_operands(std::int64_t m, std::int64_t n, std::int64_t k, const __nv_bfloat16* a,
                         const __nv_bfloat16* b, cudaStream_t stream) {
  return make_tma_ready<__nv_bfloat16, unsigned short>(m, n, k, a, k, b, n, stream);
}

TmaOperandsOf<float> tma_operands(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
                                  const float* b, std::int64_t ldb, cudaStream_t stream) {
  return make_tma_ready<float, unsigned>(m, n, k, a, lda, b, ldb, stream);
}

OperandMaps operand_maps(const TmaOperands& ops, std::int64_t m, std::int64_t n, std::int64_t k, unsigned box_m) {
  return {make_tensor_map(ops.a, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, m, k, ops.lda, box_m, kBK),
          make_tensor_map(ops.b, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, k, n, ops.ldb, kBK, kBoxN)};
}

}  // namespace sm90

int sm_count() {
  static const int count = [] {
    int dev = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return sms;
  }();
  return count;
}

}  // namespace gemm
