/// @file
/// @brief The Workspace (scratch memory allocated once per problem size) and the input helpers.
#include <cublas_v2.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/check.hpp"
#include "common/cublas_check.hpp"
#include "common/harness.hpp"
#include "common/launch.hpp"
#include "reduce.hpp"

namespace reduce {

std::size_t workspace_floats(std::int64_t n) {
  if (n < 0) throw std::invalid_argument("workspace_floats: n must be >= 0");
  // Multi-pass versions (tile >= 256): sum over levels of ceil(count / 256) rounded up to 4.
  std::size_t total = 0;
  for (std::int64_t count = n; count > 1;) {
    const std::int64_t blocks = tut::ceil_div(count, 256);
    total += static_cast<std::size_t>(tut::ceil_div(blocks, 4) * 4);
    count = blocks;
  }
  constexpr std::size_t kOneWave = 65536;  // > SMs x resident blocks of any GPU (e.g. 132 x 8)
  return total > kOneWave ? total : kOneWave;
}

Workspace::Workspace(std::int64_t n)
    : partials_(workspace_floats(n)),
      counter_(1),
      cub_temp_(std::max<std::size_t>(cub_temp_bytes(n), 16)),
      partials_ptr_(partials_.data()),
      partials_count_(partials_.size()),
      counter_ptr_(counter_.data()) {
  CUDA_CHECK(cudaMemset(counter_.data(), 0, sizeof(unsigned int)));
}

Workspace::Workspace(float* partials, std::size_t floats, unsigned int* blocks_done)
    : partials_ptr_(partials), partials_count_(floats), counter_ptr_(blocks_done) {
  if (partials == nullptr || blocks_done == nullptr || reinterpret_cast<std::uintptr_t>(partials) % 16 != 0) {
    throw std::invalid_argument("reduce::Workspace: borrowed memory must be non-null and 16-byte aligned");
  }
}

Workspace::~Workspace() {
  if (cublas_ != nullptr) cublasDestroy(cublas_);
}

float* Workspace::partials(std::size_t count) {
  if (count > partials_count_) {
    throw std::logic_error("reduce::Workspace: a version needs " + std::to_string(count) + " partials, only " +
                           std::to_string(partials_count_) + " were allocated");
  }
  return partials_ptr_;
}

void* Workspace::cub_temp(std::size_t bytes) {
  if (bytes > cub_temp_.size()) {
    throw std::logic_error("reduce::Workspace: CUB needs " + std::to_string(bytes) + " bytes of temporary storage, " +
                           std::to_string(cub_temp_.size()) + " were allocated");
  }
  return cub_temp_.data();
}

cublasContext* Workspace::cublas() {
  if (cublas_ == nullptr) CUBLAS_CHECK(cublasCreate(&cublas_));
  return cublas_;
}

void Workspace::poison_partials(cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(partials_ptr_, 0xff, partials_count_ * sizeof(float), stream));  // all-ones: NaN
}

unsigned operation_bit(Operation op) {
  switch (op) {
    case Operation::sum: return kSum;
    case Operation::max: return kMax;
    case Operation::dot: return kDot;
  }
  return 0;
}

const char* operation_name(Operation op) {
  switch (op) {
    case Operation::sum: return "sum";
    case Operation::max: return "max";
    case Operation::dot: return "dot";
  }
  return "?";
}

std::int64_t float4_peel(std::int64_t n, const float* x, const float* y) {
  // Floats until the next 16-byte boundary: 0..3 (cudaMalloc returns 256-byte aligned memory,
  // so only sub-array views such as x + 1 need a peel).
  const auto peel = [](const float* p) {
    return static_cast<std::int64_t>((16 - reinterpret_cast<std::uintptr_t>(p) % 16) % 16 / sizeof(float));
  };
  const std::int64_t head = peel(x);
  if (y != nullptr && peel(y) != head) return n;  // no common boundary: all scalar
  return head < n ? head : n;
}

/// Writes integer_value(seed, i, k) to p[i] for i in [0, n), grid-stride.
__global__ void reduce_fill_integers(float* p, std::size_t n, std::uint64_t seed, int k) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    p[i] = integer_value(seed, i, k);
  }
}

void fill_integers_device(float* device, std::size_t n, std::uint64_t seed, int k, cudaStream_t stream) {
  if (n == 0) return;
  constexpr int kThreads = 256;
  const unsigned blocks =
      tut::grid_stride_blocks(reduce_fill_integers, static_cast<std::int64_t>(n), kThreads, kThreads);
  reduce_fill_integers<<<blocks, kThreads, 0, stream>>>(device, n, seed, k);
  CUDA_CHECK_LAUNCH();
}

}  // namespace reduce
