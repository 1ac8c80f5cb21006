/// @file
/// @brief Exercise (chapter 01): vector add with float4 loads/stores and a scalar tail.
///
/// Your task: fill in the two TODO(student) blocks of add_float4_kernel so that
/// out[i] = a[i] + b[i] for every i in [0, n), for ANY n (1, 3, 4097, ...).
///
///  - Read chapters/01_elementwise/README.md, section "v3: float4 loads and stores", first.
///  - After every edit:  python3 tools/exercise.py elementwise
///    It rebuilds this file, checks your kernel on every case against the CPU reference, and
///    times it against the reference solution. The last line is the verdict.
///
/// Budget: per float4 of output, one 16-byte load from each input and one 16-byte store; each
/// tail element (at most 3) one 4-byte load per input and one 4-byte store.
#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "exercise.hpp"

namespace elementwise {

namespace {

/// out[i] = a[i] + b[i]: float4 body over whole vectors, then the scalar tail.
__global__ void add_float4_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
                                  std::int64_t n) {
  // Given: this thread's first index and the grid-wide stride (a grid-stride loop, as in v2).
  [[maybe_unused]] const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  [[maybe_unused]] const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  [[maybe_unused]] const std::int64_t n_vec = n / 4;  // whole float4s; elements [4 * n_vec, n) are the tail

  // TODO(student) 1/2 -- the float4 body (about 6 lines):
  //   view a, b and out as arrays of float4 (reinterpret_cast<const float4*>(a), ...), then
  //   for v = first, first + stride, ... while v < n_vec: load one float4 from each input,
  //   add the four lanes (.x .y .z .w), store one float4 to out.

  // TODO(student) 2/2 -- the scalar tail (about 1 line):
  //   for i = 4 * n_vec + first, ... while i < n: out[i] = a[i] + b[i].
}

}  // namespace

void exercise_add_float4(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  for (const void* p : {static_cast<const void*>(a), static_cast<const void*>(b), static_cast<const void*>(out)}) {
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0) {
      throw std::invalid_argument("exercise_add_float4: arrays must be 16-byte aligned");
    }
  }
  constexpr int kThreads = 256;
  const unsigned blocks = tut::grid_stride_blocks(add_float4_kernel, n / 4 + 1, kThreads, kThreads);
  add_float4_kernel<<<blocks, kThreads, 0, stream>>>(a, b, out, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace elementwise
