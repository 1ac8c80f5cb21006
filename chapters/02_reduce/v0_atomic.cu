/// @file
/// @brief v0: every element goes straight into the result with one global atomic.
#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "reduce.hpp"
#include "reduce_ops.cuh"

namespace reduce {

/// @brief *out = combine(*out, element i), one atomic per element, one thread per element.
///
/// Correct for any n (threads past n do nothing) and the shortest reduction kernel there is:
/// the hardware's atomic unit does all the adding. That is also what is wrong with it.
// [kernel]
template <class Op>
__global__ void reduce_v0_atomic(const float* x, const float* y, float* out, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) Op::atomic_combine(out, Op::element(x, y, i));
}
// [kernel]

/// Writes the identity of Op to *out (one thread): the starting value the atomics build on.
template <class Op>
__global__ void reduce_set_identity(float* out) {
  *out = Op::identity();
}

void write_identity(Operation op, float* out, cudaStream_t stream) {
  with_operator(op, [&](auto tag) {
    using Op = decltype(tag);
    reduce_set_identity<Op><<<1, 1, 0, stream>>>(out);
    CUDA_CHECK_LAUNCH();
  });
}

/// @brief v0, the naive version: one global atomic per element.
///
/// **Idea.** Let every thread add its element to the result with `atomicAdd` (for max, the
/// integer-atomic trick of atomic_max_float()). The output is reset to the identity *inside*
/// the run, by a one-thread kernel before the atomics: the timing loop runs a version many
/// times, and a result that accumulated across runs would be wrong.
///
/// **What is wrong with it.** All n atomics target one address, so the memory system executes
/// them one after another, at about one per clock cycle of the L2 slice that owns the address.
/// The other thousands of threads only wait. The adding order is whatever order the atomics
/// arrive in: a serial sum in a different order every run, so the result's last bits change
/// from run to run, and on data with a large mean (`--dist positive`) the float accumulator
/// stagnates (see "Accuracy" on the chapter page).
///
/// **Predicted.** Throughput = the atomic rate on one address: ~1-2 G elements/s, i.e. a few
/// GB/s, about 1000x below the memory roof.
///
/// **Measured (H100 run at 0b38325, n = 2^28).** sum: 471 ms, 2.28 GB/s, 0.0758% of the copy roof,
/// 0.000763x CUB; dot: 472 ms (0.00151x cuBLAS); max, on integer atomics: 13.0 ms (82.6 GB/s,
/// 0.0277x CUB). The prediction held in kind and was optimistic in size: 2^28 elements in 471 ms
/// are 0.57 G elements/s, below the 1-2 G/s guessed, about 1300x below the roof.
void launch_reduce_v0_atomic(Operation op, const float* x, const float* y, float* out, std::int64_t n,
                             Workspace& /*ws*/, cudaStream_t stream) {
  if (n < 0) throw std::invalid_argument("reduce: n must be >= 0");
  constexpr int kThreads = 256;
  write_identity(op, out, stream);  // reset inside the run: atomics accumulate into *out
  if (n == 0) return;
  with_operator(op, [&](auto tag) {
    using Op = decltype(tag);
    reduce_v0_atomic<Op><<<tut::blocks_for(n, kThreads), kThreads, 0, stream>>>(x, y, out, n);
    CUDA_CHECK_LAUNCH();
  });
}

}  // namespace reduce
