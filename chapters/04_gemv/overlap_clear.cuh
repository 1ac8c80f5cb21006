/// @file
/// @brief t4's launch: clear y with a small kernel and let the main kernel start before that
/// one has finished (programmatic dependent launch, sm_90; plain stream order elsewhere).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/check.hpp"
#include "common/device_info.hpp"
#include "common/launch.hpp"

namespace gemv {

/// @brief In a kernel launched with programmatic stream serialization: waits until the grids
/// it depends on (the previous kernel in the stream) have completed and their writes are
/// visible (PTX `griddepcontrol.wait`, sm_90). Before sm_90 the launch is ordinary, the previous
/// kernel has already finished, and this is nothing.
__device__ __forceinline__ void wait_for_prior_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// @brief y[0 .. n) = 0. Its first instruction tells the GPU that the next kernel in the stream
/// (launched with programmatic stream serialization) may start now (PTX
/// `griddepcontrol.launch_dependents`, sm_90): that kernel overlaps this one and waits for it
/// only where it needs y (wait_for_prior_grids()).
__global__ void clear_for_dependent(float* __restrict__ y, std::int64_t n);

/// Threads per block of clear_for_dependent.
constexpr int kClearThreads = 256;

/// @brief Clears y[0 .. n), then launches `kernel` on `grid` x `block` with `args`, allowed to
/// start before the clearing kernel has finished (cudaLaunchKernelEx with
/// cudaLaunchAttributeProgrammaticStreamSerialization) on GPUs that support it. `kernel` must
/// call wait_for_prior_grids() before it touches y.
template <class... Params, class... Args>
void launch_clear_then(float* y, std::int64_t n, cudaStream_t stream, void (*kernel)(Params...), dim3 grid, dim3 block,
                       Args... args) {
  clear_for_dependent<<<tut::grid_stride_blocks(clear_for_dependent, n, kClearThreads, kClearThreads), kClearThreads,
                        0, stream>>>(y, n);
  CUDA_CHECK_LAUNCH();
  tut::launch_dependent_early(kernel, grid, block, 0, stream, args...);
}

}  // namespace gemv
