/// @file
/// @brief Launch-configuration helpers: grid sizes that are valid for any problem size.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "common/check.hpp"

namespace tut {

/// Blocks of `kernel` resident on the whole GPU at once with `threads` per block: one "full
/// wave" (SM count x occupancy). Cached per kernel and configuration.
int full_wave_blocks_of(const void* kernel, int threads, std::size_t dynamic_smem = 0);

/// full_wave_blocks_of() for a kernel function pointer.
template <class Kernel>
int full_wave_blocks(Kernel* kernel, int threads, std::size_t dynamic_smem = 0) {
  return full_wave_blocks_of(reinterpret_cast<const void*>(kernel), threads, dynamic_smem);
}

/// True when a programmatic dependent launch of `kernel` (cudaLaunchAttributeProgrammaticStream
/// Serialization) is safe and useful: the GPU is sm_90 or newer *and* the code that runs was
/// compiled for sm_90 or newer (the kernel's PTX version), so that its `griddepcontrol.wait`
/// (under `__CUDA_ARCH__ >= 900`) is really there. A build for older GPUs only, run on a Hopper
/// through PTX JIT, has no wait: launching it early would let it read what the previous kernel
/// has not written yet. Cached per kernel and device.
bool can_launch_dependent_early(const void* kernel);

/// Raises `kernel`'s dynamic shared-memory limit to `bytes` on the current device (needed above
/// 48 KiB), once per kernel and device, outside any timed run if the launcher calls it before
/// its first timed launch. Keyed by the kernel's address, not by a flag in a template launcher:
/// every .cu file that instantiates a kernel template holds its own copy of the kernel, and each
/// copy needs the attribute. Throws std::runtime_error, with both sizes, when the GPU gives a
/// block less than `bytes`.
void allow_dynamic_smem(const void* kernel, std::size_t bytes);

/// allow_dynamic_smem() for a kernel function pointer.
template <class... Params>
void allow_dynamic_smem(void (*kernel)(Params...), std::size_t bytes) {
  allow_dynamic_smem(reinterpret_cast<const void*>(kernel), bytes);
}

/// Launches `kernel` on `grid` x `block` (`smem` bytes of dynamic shared memory) on `stream`,
/// allowed to start before the kernel before it on the stream has finished (a programmatic
/// dependent launch: cudaLaunchAttributeProgrammaticStreamSerialization) where
/// can_launch_dependent_early() says so; an ordinary launch, in stream order, elsewhere.
/// `kernel` must execute `griddepcontrol.wait` (under `__CUDA_ARCH__ >= 900`) before it touches
/// anything the previous kernel writes; the previous kernel may say `griddepcontrol.launch_dependents`
/// as soon as it likes.
template <class... Params, class... Args>
void launch_dependent_early(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream,
                            Args... args) {
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  cudaLaunchAttribute early[1] = {};
  early[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = early;
  config.numAttrs = can_launch_dependent_early(reinterpret_cast<const void*>(kernel)) ? 1 : 0;
  CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...));
  CUDA_CHECK_LAUNCH();
}

/// ceil(items / per_block) as a grid size; throws std::invalid_argument if that exceeds CUDA's
/// limit of 2^31 - 1 blocks (one item per thread cannot cover such a problem).
unsigned blocks_for(std::int64_t items, std::int64_t per_block);

/// The grid of a grid-stride kernel: enough blocks for `items` (at `per_block` items each), but
/// no more than one full wave, and at least one.
template <class Kernel>
unsigned grid_stride_blocks(Kernel* kernel, std::int64_t items, int threads, std::int64_t per_block) {
  const std::int64_t wave = full_wave_blocks(kernel, threads);
  const std::int64_t wanted = (items + per_block - 1) / per_block;
  const std::int64_t blocks = wanted < wave ? wanted : wave;
  return static_cast<unsigned>(blocks > 0 ? blocks : 1);
}

}  // namespace tut
