/// @file
/// @brief The library baseline: cuDNN's softmax forward, where the build found cuDNN.
///
/// Compiled everywhere; the cuDNN calls only where CMake found cudnn.h and libcudnn (it then
/// defines TUT_HAVE_CUDNN). Without cuDNN the row is reported as skipped, "cuDNN not found".
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/check.hpp"
#include "softmax.hpp"

#if defined(TUT_HAVE_CUDNN)
#include <cudnn.h>

#include "common/cudnn_check.hpp"
#endif

namespace softmax {

#if defined(TUT_HAVE_CUDNN)

namespace {


/// The cuDNN handle and the tensor descriptor of the last shape, created on first use and
/// kept for the life of the process (creating a handle takes tens of milliseconds). Destroyed
/// at exit, before the CUDA runtime's own teardown, so compute-sanitizer's leak check stays
/// clean: the handle is created in the constructor, and cudnnCreate starts the runtime if
/// nothing did before, so the object is complete only after the runtime registered its
/// teardown, and static objects are destroyed in the reverse order of their completion. (With
/// the handle created after the constructor, a process whose first CUDA call was this one
/// leaked the handle's 25 KB: the runtime went first.)
/// If cuDNN cannot start (no GPU, a library it loads at run time is missing, a driver too old
/// for it), `error` says why and the row is reported as skipped instead of failing the run.
struct CudnnState {
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t desc = nullptr;
  std::int64_t rows = -1, cols = -1;
  std::string error;  ///< non-empty: cuDNN could not be initialized
  CudnnState() {
    cudnnStatus_t status = cudnnCreate(&handle);
    if (status == CUDNN_STATUS_SUCCESS) status = cudnnCreateTensorDescriptor(&desc);
    if (status != CUDNN_STATUS_SUCCESS) error = cudnnGetErrorString(status);
  }
  ~CudnnState() {
    if (desc != nullptr) cudnnDestroyTensorDescriptor(desc);
    if (handle != nullptr) cudnnDestroy(handle);
  }
  CudnnState(const CudnnState&) = delete;
  CudnnState& operator=(const CudnnState&) = delete;
};

CudnnState& state() {
  static CudnnState s;
  return s;
}

}  // namespace

bool cudnn_available() { return true; }

std::string cudnn_unsupported(std::int64_t rows, std::int64_t cols) {
  if (rows > INT_MAX || cols > INT_MAX || rows * cols > INT_MAX) {
    return "cuDNN's tensors here hold at most 2^31 - 1 elements (R x C = " + std::to_string(rows * cols) + ")";
  }
  const CudnnState& s = state();
  if (!s.error.empty()) {
    return "cuDNN " + std::to_string(cudnnGetVersion()) + " was found at build time but could not start: " + s.error;
  }
  return "";
}

/// @brief cudnnSoftmaxForward(CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE) on an NCHW
/// tensor of N = R, C = C, H = W = 1: one softmax per "instance" (row) over its C x H x W = C values.
///
/// ACCURATE subtracts the max (FAST does not, and overflows for large inputs). cuDNN promises
/// nothing for a row of only -inf, so the tests leave that row to our versions.
void launch_softmax_cudnn(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  if (empty_or_invalid(rows, cols)) return;
  const std::string why = cudnn_unsupported(rows, cols);
  if (!why.empty()) throw std::invalid_argument("softmax cudnn: " + why);
  CudnnState& s = state();
  if (s.rows != rows || s.cols != cols) {
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(s.desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, static_cast<int>(rows),
                                           static_cast<int>(cols), 1, 1));
    s.rows = rows;
    s.cols = cols;
  }
  CUDNN_CHECK(cudnnSetStream(s.handle, stream));
  const float alpha = 1.0f, beta = 0.0f;  // y = 1 * softmax(x) + 0 * y
  CUDNN_CHECK(cudnnSoftmaxForward(s.handle, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &alpha, s.desc, x,
                                  &beta, s.desc, y));
}

#else  // no cuDNN in this build

bool cudnn_available() { return false; }

std::string cudnn_unsupported(std::int64_t /*rows*/, std::int64_t /*cols*/) {
  return "cuDNN not found (looked in the CUDA Toolkit and in the nvidia-cudnn Python package at configure time)";
}

void launch_softmax_cudnn(const float* /*x*/, float* /*y*/, std::int64_t rows, std::int64_t cols,
                          cudaStream_t /*stream*/) {
  if (empty_or_invalid(rows, cols)) return;
  throw std::invalid_argument("softmax cudnn: " + cudnn_unsupported(rows, cols));
}

#endif

}  // namespace softmax
