/// @file
/// @brief The library baselines: CUB's DeviceReduce (sum, max) and cuBLAS's dot product.
#include <cub/device/device_reduce.cuh>
#include <cublas_v2.h>

#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "common/cublas_check.hpp"
#include "reduce.hpp"

namespace reduce {

std::size_t cub_temp_bytes(std::int64_t n) {
  // A size query: with a null temp pointer CUB only reports the bytes it needs.
  std::size_t sum_bytes = 0, max_bytes = 0;
  CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, sum_bytes, static_cast<const float*>(nullptr),
                                    static_cast<float*>(nullptr), n));
  CUDA_CHECK(cub::DeviceReduce::Max(nullptr, max_bytes, static_cast<const float*>(nullptr),
                                    static_cast<float*>(nullptr), n));
  return sum_bytes > max_bytes ? sum_bytes : max_bytes;
}

/// @brief cub::DeviceReduce::Sum or cub::DeviceReduce::Max: NVIDIA's tuned reduction, the baseline of the tables.
///
/// Two kernels (a grid of per-tile partials, then one block), with the temporary storage
/// allocated once in the Workspace, outside the timed runs. CUB's Max starts from
/// numeric_limits<float>::lowest() = -FLT_MAX, not -inf: for n = 0, or all elements -inf, it
/// returns -3.4e38 where our versions return -inf (the tests leave those cases to our versions).
void launch_reduce_cub(Operation op, const float* x, const float* /*y*/, float* out, std::int64_t n, Workspace& ws,
                       cudaStream_t stream) {
  if (n < 0) throw std::invalid_argument("reduce: n must be >= 0");
  std::size_t bytes = 0;
  if (op == Operation::sum) {
    CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, x, out, n, stream));
    CUDA_CHECK(cub::DeviceReduce::Sum(ws.cub_temp(bytes), bytes, x, out, n, stream));
  } else if (op == Operation::max) {
    CUDA_CHECK(cub::DeviceReduce::Max(nullptr, bytes, x, out, n, stream));
    CUDA_CHECK(cub::DeviceReduce::Max(ws.cub_temp(bytes), bytes, x, out, n, stream));
  } else {
    throw std::invalid_argument("launch_reduce_cub: CUB is the baseline of sum and max only");
  }
}

/// @brief cublasSdot_64: cuBLAS's dot product, the baseline of the dot table.
///
/// The result goes to device memory (CUBLAS_POINTER_MODE_DEVICE), so the call is asynchronous
/// like every other version; the 64-bit API takes n above 2^31.
void launch_reduce_cublas(Operation op, const float* x, const float* y, float* out, std::int64_t n,
                          Workspace& ws, cudaStream_t stream) {
  if (op != Operation::dot) throw std::invalid_argument("launch_reduce_cublas: cuBLAS is the baseline of dot only");
  if (n < 0) throw std::invalid_argument("reduce: n must be >= 0");
  if (n == 0) return write_identity(op, out, stream);
  cublasHandle_t handle = ws.cublas();
  CUBLAS_CHECK(cublasSetStream(handle, stream));
  CUBLAS_CHECK(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE));
  CUBLAS_CHECK(cublasSdot_64(handle, n, x, 1, y, 1, out));
}

}  // namespace reduce
