// Launch helpers of chapter 03: shape checks, grid and block sizes, shared-memory limits.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "common/check.hpp"
#include "softmax.hpp"

namespace softmax {

unsigned row_blocks(std::int64_t rows) {
  constexpr std::int64_t kMaxGrid = 2147483647;  // gridDim.x limit; kernels loop over the rest
  return static_cast<unsigned>(std::max<std::int64_t>(1, std::min(rows, kMaxGrid)));
}

int block_threads_for(std::int64_t units, int per_thread) {
  const std::int64_t wanted = (units + per_thread - 1) / per_thread;
  int threads = 128;
  while (threads < 1024 && threads < wanted) threads *= 2;
  return threads;
}

std::int64_t max_shared_row_floats() {
  static std::mutex mutex;
  static std::map<int, std::int64_t> cache;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(device);
  if (it != cache.end()) return it->second;
  int optin = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  // Leave 1 KiB for the kernels' static shared memory (their 32-entry scratch arrays).
  const std::int64_t floats = std::max<std::int64_t>(0, (static_cast<std::int64_t>(optin) - 1024) / 4);
  cache.emplace(device, floats);
  return floats;
}

std::string v4_unsupported(std::int64_t /*rows*/, std::int64_t cols) {
  if (cols <= kWarpRowMaxCols) return "";
  return "one warp holds at most " + std::to_string(kWarpRowMaxCols) + " columns in registers (32 per lane); C = " +
         std::to_string(cols);
}

std::string v5_unsupported(std::int64_t /*rows*/, std::int64_t cols) {
  const std::int64_t limit = max_shared_row_floats();
  if (cols <= limit) return "";
  return "a row of " + std::to_string(cols) + " floats (" + std::to_string(cols * 4 / 1024) +
         " KiB) does not fit in this GPU's shared memory per block (" + std::to_string(limit * 4 / 1024) + " KiB)";
}

void launch_softmax_copy(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  if (empty_or_invalid(rows, cols)) return;
  CUDA_CHECK(cudaMemcpyAsync(y, x, static_cast<std::size_t>(rows * cols) * sizeof(float), cudaMemcpyDeviceToDevice,
                             stream));
}

}  // namespace softmax
