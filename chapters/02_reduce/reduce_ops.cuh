/// @file
/// @brief The three reductions as device-side operators, shared by every kernel of the chapter.
///
/// A kernel is written once as a template on an operator `Op` and instantiated for sum, max and
/// dot. An operator says:
///
/// - `identity()`: the value that changes nothing (0 for a sum, -inf for a max). Threads with no
///   element (past n, in the last block or warp) contribute it, so partial blocks need no
///   special case;
/// - `combine(a, b)`: the associative operation (a + b, fmaxf(a, b));
/// - `element(x, y, i)`: the i-th term (x[i], or x[i] * y[i] for the dot product), and
///   `element4`, the same for four terms at once through a float4 load;
/// - `atomic_combine(p, v)`: *p = combine(*p, v) atomically (v0 and the exercise);
/// - `Finish`: the operator that reduces partial results (a dot product's partials are summed).
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "reduce.hpp"

namespace reduce {

/// @brief float max with integer atomics (CUDA has no floating-point atomicMax).
///
/// IEEE-754 floats with the sign bit clear (+0 ... +inf) are ordered like their bit patterns
/// read as signed ints; floats with the sign bit set (-0 ... -inf) are ordered *opposite* to
/// their bit patterns read as unsigned ints (a larger magnitude is a larger unsigned number).
/// So a non-negative value goes through atomicMax on int and a negative one through atomicMin
/// on unsigned, both on the same 32-bit word. Mixing the two is safe: every candidate word is
/// compared in one of the two orders, and both orders agree with float order between a
/// non-negative and a negative value (any non-negative int beats any word with the top bit set;
/// any unsigned below 2^31 beats a negative value's bits). max_by_integer_order() is the same
/// logic on the host; the CPU tests check it on ±0, ±inf, subnormals and random values.
///
/// The general alternative is a compare-and-swap loop (read, compute fmaxf, atomicCAS, retry if
/// another thread got there first), which works for any operation but retries under contention.
/// NaN inputs are not supported (the result depends on the NaN's sign bit).
__device__ inline void atomic_max_float(float* address, float value) {
  if (__float_as_int(value) >= 0) {  // sign bit clear: +0 ... +inf
    atomicMax(reinterpret_cast<int*>(address), __float_as_int(value));
  } else {  // sign bit set: -0 ... -inf
    atomicMin(reinterpret_cast<unsigned int*>(address), __float_as_uint(value));
  }
}

/// Sum of x[i].
struct SumOp {
  using Finish = SumOp;  ///< partial sums are summed
  /// 0
  __host__ __device__ static float identity() { return 0.0f; }
  /// a + b
  __device__ static float combine(float a, float b) { return a + b; }
  /// x[i]
  __device__ static float element(const float* x, const float* /*y*/, std::int64_t i) { return x[i]; }
  /// x4[v] (four elements)
  __device__ static float4 element4(const float4* x4, const float4* /*y4*/, std::int64_t v) { return x4[v]; }
  /// *out += v, atomically
  __device__ static void atomic_combine(float* out, float v) { atomicAdd(out, v); }
};

/// Maximum of x[i].
struct MaxOp {
  using Finish = MaxOp;  ///< the max of partial maxima
  /// -inf: max(-inf, v) = v for every v, so -inf (not 0, not -FLT_MAX) is the identity
  __host__ __device__ static float identity() { return -INFINITY; }
  /// fmaxf(a, b)
  __device__ static float combine(float a, float b) { return fmaxf(a, b); }
  /// x[i]
  __device__ static float element(const float* x, const float* /*y*/, std::int64_t i) { return x[i]; }
  /// x4[v] (four elements)
  __device__ static float4 element4(const float4* x4, const float4* /*y4*/, std::int64_t v) { return x4[v]; }
  /// *out = max(*out, v), atomically (see atomic_max_float)
  __device__ static void atomic_combine(float* out, float v) { atomic_max_float(out, v); }
};

/// Dot product: the sum of x[i] * y[i].
struct DotOp {
  using Finish = SumOp;  ///< partial dot products are summed
  /// 0
  __host__ __device__ static float identity() { return 0.0f; }
  /// a + b
  __device__ static float combine(float a, float b) { return a + b; }
  /// x[i] * y[i]
  __device__ static float element(const float* x, const float* y, std::int64_t i) { return x[i] * y[i]; }
  /// the four products x4[v] * y4[v], lane by lane
  __device__ static float4 element4(const float4* x4, const float4* y4, std::int64_t v) {
    const float4 a = x4[v], b = y4[v];
    return make_float4(a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w);
  }
  /// *out += v, atomically
  __device__ static void atomic_combine(float* out, float v) { atomicAdd(out, v); }
};

/// Four copies of the identity.
template <class Op>
__device__ float4 identity4() {
  return make_float4(Op::identity(), Op::identity(), Op::identity(), Op::identity());
}

/// combine(), lane by lane.
template <class Op>
__device__ float4 combine4(float4 a, float4 b) {
  return make_float4(Op::combine(a.x, b.x), Op::combine(a.y, b.y), Op::combine(a.z, b.z), Op::combine(a.w, b.w));
}

/// The four lanes of a float4 combined into one value (as a small tree).
template <class Op>
__device__ float fold4(float4 a) {
  return Op::combine(Op::combine(a.x, a.y), Op::combine(a.z, a.w));
}

/// Calls `f(SumOp{})`, `f(MaxOp{})` or `f(DotOp{})`: how a launcher turns the run-time
/// Operation into the compile-time operator its kernel template needs.
template <class F>
void with_operator(Operation op, F&& f) {
  switch (op) {
    case Operation::sum: f(SumOp{}); return;
    case Operation::max: f(MaxOp{}); return;
    case Operation::dot: f(DotOp{}); return;
  }
}

}  // namespace reduce
