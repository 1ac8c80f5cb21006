// The check of the executable and of the [large] test: B compared, element by element and
// exactly, with the input each element came from, recomputed from the counter-based hash that
// made A (tut::fill_random_device). No copy of A and no reference array exist, on the host or the
// GPU: a 46341 x 46341 problem (2^31 + 4633 elements, 8.6 GB per matrix) and its check need only
// A and B, 17.2 GB. (The double-precision reference this replaced was 8 bytes per element, one
// per kind of output: 80 GiB in all for that problem, more than an 80 GB H100 holds.)
#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/launch.hpp"
#include "common/random.hpp"
#include "transpose.hpp"

namespace transpose {

namespace {

constexpr int kCheckThreads = 256;

/// Grid-stride pass over B: counts the elements that differ from their source element of A
/// (a NaN or Inf never equals the finite expected value). One atomic per warp that found any.
__global__ void count_wrong_kernel(const float* __restrict__ B, std::uint64_t n, std::uint64_t R, std::uint64_t C,
                                   Output output, std::uint64_t seed, unsigned long long* wrong) {
  unsigned long long mine = 0;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float expected = tut::hash_uniform(seed, source_index(i, R, C, output), -1.0f, 1.0f);
    if (!(B[i] == expected)) ++mine;
  }
  for (int d = 16; d > 0; d /= 2) mine += __shfl_xor_sync(0xFFFFFFFFu, mine, d);
  if (threadIdx.x % 32 == 0 && mine != 0) atomicAdd(wrong, mine);
}

}  // namespace

tut::ErrorStats check_against_hash(const float* B, std::int64_t R, std::int64_t C, Output output, std::uint64_t seed,
                                   cudaStream_t stream) {
  const auto n = static_cast<std::uint64_t>(R) * static_cast<std::uint64_t>(C);
  const auto rows = static_cast<std::uint64_t>(R), cols = static_cast<std::uint64_t>(C);
  tut::DeviceBuffer<unsigned long long> wrong(1);
  CUDA_CHECK(cudaMemsetAsync(wrong.data(), 0, sizeof(unsigned long long), stream));
  const unsigned blocks =
      tut::grid_stride_blocks(count_wrong_kernel, static_cast<std::int64_t>(n), kCheckThreads, kCheckThreads);
  count_wrong_kernel<<<blocks, kCheckThreads, 0, stream>>>(B, n, rows, cols, output, seed, wrong.data());
  CUDA_CHECK_LAUNCH();
  unsigned long long wrong_count = 0;
  CUDA_CHECK(cudaMemcpyAsync(&wrong_count, wrong.data(), sizeof(wrong_count), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  // Every element equal to its expected value: the totals ErrorStats::add() would have reached
  // (no difference anywhere; the norms of the differences are zero).
  if (wrong_count == 0) return tut::ErrorStats::from_totals(n, 0, 0, 0.0, 0.0, 0.0);

  // Wrong somewhere: the same comparison on the CPU, chunk by chunk, which also keeps the worst
  // elements for the report (a failing check costs a download of B; a passing one does not).
  const tut::Tolerance& tol = exact_tolerance();
  const std::uint64_t chunk = std::min<std::uint64_t>(n, static_cast<std::uint64_t>(kHostCheckChunk));
  std::vector<float> got(chunk);
  tut::ErrorStats all;
  for (std::uint64_t first = 0; first < n; first += chunk) {
    const std::uint64_t count = std::min(chunk, n - first);
    CUDA_CHECK(cudaMemcpy(got.data(), B + first, count * sizeof(float), cudaMemcpyDeviceToHost));
    all.merge(tut::parallel_check(count, [&](std::size_t begin, std::size_t end, tut::ErrorStats& stats) {
      for (std::size_t k = begin; k < end; ++k) {
        const std::uint64_t i = first + k;
        const float expected = tut::hash_uniform(seed, source_index(i, rows, cols, output), -1.0f, 1.0f);
        stats.add(i, static_cast<double>(got[k]), static_cast<double>(expected), tol);
      }
    }));
  }
  return all;
}

}  // namespace transpose
