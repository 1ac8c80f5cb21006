/// @file
/// @brief Warp and block reductions with warp shuffles (v5 introduces them; v6 and v7 use them).
///
/// A warp shuffle (`__shfl_xor_sync`, `__shfl_down_sync`) reads a register of another lane of
/// the same warp: no shared memory, no `__syncthreads()`. Its first argument, the mask, names
/// the lanes that take part, and the instruction waits until all of them have arrived: that
/// is what makes it correct under independent thread scheduling (Volta and later), where the
/// lanes of a warp are *not* guaranteed to execute in lockstep.
#pragma once

#include <cuda_runtime.h>

#include "reduce_ops.cuh"

namespace reduce {

/// Mask of all 32 lanes: every lane of the warp takes part in the shuffle.
constexpr unsigned kFullWarp = 0xffffffffu;

/// @brief Reduces `v` over the 32 lanes of a warp; every lane gets the result.
///
/// A butterfly: at step `offset` lane i combines its value with lane i ^ offset's, so after
/// offsets 16, 8, 4, 2, 1 every lane holds the combination of all 32. All 32 lanes must call it
/// (the mask says so); lanes with no data pass Op::identity().
// [warp_reduce]
template <class Op>
__device__ float warp_reduce(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    v = Op::combine(v, __shfl_xor_sync(kFullWarp, v, offset));
  }
  return v;
}
// [warp_reduce]

/// @brief Reduces `v` over the kThreads threads of a block; the result is valid in warp 0
/// (in particular in thread 0).
///
/// Two levels of warp_reduce: each warp reduces its 32 values, lane 0 of each warp parks the
/// warp's total in shared memory, then warp 0 reduces the kThreads / 32 totals (lanes beyond
/// the number of warps contribute the identity). Every thread of the block must call it, with
/// blockDim.x == kThreads.
// [block_reduce]
template <class Op, int kThreads>
__device__ float block_reduce(float v) {
  static_assert(kThreads % 32 == 0 && kThreads >= 32 && kThreads <= 1024,
                "block_reduce needs whole warps: kThreads must be a multiple of 32 in [32, 1024]");
  constexpr int kWarps = kThreads / 32;
  __shared__ float warp_totals[kWarps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  __syncthreads();  // a previous call's warp 0 may still be reading warp_totals
  v = warp_reduce<Op>(v);             // 1. every warp reduces its own 32 values
  if (lane == 0) warp_totals[warp] = v;
  __syncthreads();                    // 2. all warp totals are in shared memory
  if (warp == 0) {
    v = lane < kWarps ? warp_totals[lane] : Op::identity();
    v = warp_reduce<Op>(v);           // 3. warp 0 reduces the totals
  }
  return v;
}
// [block_reduce]

}  // namespace reduce
