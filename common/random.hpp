/// @file
/// @brief Seeded, reproducible random inputs, identical on the host and on the device.
///
/// Values come from a counter-based hash of (seed, index), not from a sequential generator, so
/// element i has the same value whether it is made on the CPU or by a GPU kernel, in any order.
/// Large tests use that: the GPU fills 10 GiB of input, the CPU recomputes any element it checks.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tut {

/// SplitMix64's finalizer: a strong 64-bit mixing function (Steele, Lea & Flood 2014).
__host__ __device__ inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Uniform float in [lo, hi) for element `index` of the stream named by `seed`.
__host__ __device__ inline float hash_uniform(std::uint64_t seed, std::uint64_t index, float lo, float hi) {
  const std::uint64_t bits = mix64(mix64(seed) ^ index);
  const float unit = static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);  // 24 bits -> [0, 1)
  // One correctly rounded fma on both sides: host and device results are bit-identical
  // (a separate multiply and add could be contracted into an fma on one side only).
  return fmaf(hi - lo, unit, lo);
}

/// Host vector of `n` uniform floats in [lo, hi) from `seed`.
std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f);

/// Fills host memory with the same values random_floats() would return.
void fill_random(float* host, std::size_t n, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f);

/// Fills device memory with the same values random_floats() would return (asynchronous).
void fill_random_device(float* device, std::size_t n, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f,
                        cudaStream_t stream = nullptr);

/// Derives an independent seed for input number `stream` of a case seeded by `seed`.
inline std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) { return mix64(seed + 0x1234567ull * (stream + 1)); }

}  // namespace tut
