/// @file
/// @brief v2: interleaved addressing with a strided index: no divergence, but bank conflicts.
#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "multi_pass.cuh"
#include "reduce.hpp"
#include "reduce_ops.cuh"

namespace reduce {

/// Threads per block (and elements per block) of v2.
constexpr int kV2Threads = 256;

/// @brief v1's tree, but the *first* threads of the block do the work at every step.
///
/// Thread t works on slot k = 2 * stride * t, so at step `stride` threads 0 .. 128/stride - 1
/// are active: whole warps work or whole warps idle, and no warp diverges (until fewer than 32
/// threads are left). The same pairs are added as in v1, so the result is bit-identical.
// [kernel]
template <class Op>
__global__ void reduce_v2_strided_index(const float* x, const float* y, float* partial, std::int64_t n) {
  __shared__ float s[kV2Threads];
  const unsigned t = threadIdx.x;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kV2Threads + t;
  s[t] = i < n ? Op::element(x, y, i) : Op::identity();
  __syncthreads();
  for (unsigned stride = 1; stride < kV2Threads; stride *= 2) {
    const unsigned k = 2 * stride * t;  // the slot this thread updates
    if (k < kV2Threads) s[k] = Op::combine(s[k], s[k + stride]);
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}
// [kernel]

/// @brief v2: no divergent warps, but shared-memory bank conflicts.
///
/// **Idea.** Map the active slots to *consecutive* threads instead of every 2^k-th thread, so
/// whole warps are either busy or idle.
///
/// **Changed since v1.** The slot index is computed as 2 * stride * t instead of testing
/// t % (2 * stride); no more modulo either.
///
/// **What is still wrong.** Shared memory has 32 banks, 4 bytes wide; word w lives in bank
/// w % 32, and one bank serves one word per cycle. At stride s, lane l of a warp touches word
/// 2 * s * l: at s = 1 lanes 0 and 16 both hit bank 0 (a 2-way conflict: the access is
/// replayed twice), at s = 2 four lanes share each bank, at s = 4 and beyond eight (all the
/// active lanes of the step). Each thread still does one load.
///
/// **Predicted.** Faster than v1 (about 2x on the tree, as in Harris's measurements), still far
/// from the roof.
///
/// **Measured (H100 run at 0b38325, n = 2^28).** sum: 1.47 ms, 728 GB/s, 24.2% of the copy roof,
/// 0.244x CUB (max the same; dot: 1.54 ms, 46.5%, 0.462x cuBLAS). Missed: *slower* than v1
/// (1.19 ms), where we predicted 2x faster. Harris's 2x was measured on a 2007 GPU; on the H100 the
/// bank conflicts above are the likely cost (not profiled for this table: the chapter page's
/// "Profiling" section shows how to count them).
void launch_reduce_v2_strided_index(Operation op, const float* x, const float* y, float* out, std::int64_t n,
                                    Workspace& ws, cudaStream_t stream) {
  if (n < 0) throw std::invalid_argument("reduce: n must be >= 0");
  if (n == 0) return write_identity(op, out, stream);
  with_operator(op, [&](auto tag) {
    reduce_in_passes<decltype(tag)>(
        x, y, out, n, kV2Threads, ws, stream,
        [](auto level_op, const float* a, const float* b, float* dst, std::int64_t count, cudaStream_t s) {
          reduce_v2_strided_index<decltype(level_op)><<<tut::blocks_for(count, kV2Threads), kV2Threads, 0, s>>>(
              a, b, dst, count);
          CUDA_CHECK_LAUNCH();
        });
  });
}

}  // namespace reduce
