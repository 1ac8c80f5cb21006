/// @file
/// @brief Warp and block all-reductions (every thread gets the result) of floats and MaxSum states.
///
/// These are chapter 02's shuffle reductions (its v5-v7 and exercise) with one change: a row's
/// max and sum are needed by *every* thread of the row, so the results are broadcast. With
/// `__shfl_xor_sync` (a butterfly) every lane of a warp ends up with the warp's result; for a
/// block, every warp reduces the parked warp totals itself instead of warp 0 alone.
#pragma once

#include <cuda_runtime.h>

#include <cmath>

#include "online_softmax.cuh"

namespace softmax {

/// All 32 lanes take part in every shuffle.
constexpr unsigned kFullWarp = 0xffffffffu;

/// max, for warp_allreduce / block_allreduce.
struct MaxOp {
  /// -inf
  __device__ static float identity() { return -INFINITY; }
  /// fmaxf(a, b)
  __device__ static float combine(float a, float b) { return fmaxf(a, b); }
};

/// +, for warp_allreduce / block_allreduce.
struct SumOp {
  /// 0
  __device__ static float identity() { return 0.0f; }
  /// a + b
  __device__ static float combine(float a, float b) { return a + b; }
};

/// @brief Reduces `v` over aligned groups of `width` lanes (a power of two, 1..32); every lane
/// gets its group's result. width = 32 reduces the whole warp.
///
/// All 32 lanes of the warp must call it (the mask is full); lanes of other groups exchange
/// only among themselves, because lane ^ offset stays inside an aligned group when offset < width.
template <class Op>
__device__ float warp_allreduce(float v, int width = 32) {
  for (int offset = width / 2; offset > 0; offset /= 2) v = Op::combine(v, __shfl_xor_sync(kFullWarp, v, offset));
  return v;
}

/// warp_allreduce for MaxSum states: both fields travel, merge() combines them.
__device__ inline MaxSum warp_allmerge(MaxSum s, int width = 32) {
  for (int offset = width / 2; offset > 0; offset /= 2) {
    const MaxSum other = {__shfl_xor_sync(kFullWarp, s.max, offset), __shfl_xor_sync(kFullWarp, s.sum, offset)};
    s = merge(s, other);
  }
  return s;
}

/// @brief Reduces `v` over the whole block (blockDim.x a multiple of 32); every thread gets the
/// result. `scratch` is 32 floats of shared memory; all threads of the block must call it.
///
/// Warps reduce their 32 values; lane 0 of each parks the warp's total in scratch; after a
/// barrier every warp reduces the parked totals, so every thread holds the block's result
/// without a second barrier. The leading barrier protects scratch from the previous call.
template <class Op>
__device__ float block_allreduce(float v, float* scratch) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  v = warp_allreduce<Op>(v);
  __syncthreads();  // every thread is done reading scratch from a previous call
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : Op::identity();
  return warp_allreduce<Op>(v);
}

/// block_allreduce for MaxSum states; `scratch` is 32 MaxSum of shared memory.
__device__ inline MaxSum block_allmerge(MaxSum s, MaxSum* scratch) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  s = warp_allmerge(s);
  __syncthreads();
  if (lane == 0) scratch[warp] = s;
  __syncthreads();
  s = lane < warps ? scratch[lane] : max_sum_identity();
  return warp_allmerge(s);
}

}  // namespace softmax
