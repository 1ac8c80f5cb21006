/// @file
/// @brief The online softmax (Milakov & Gimelshein 2018): a running (max, sum) state and its merge.
///
/// This header is self-contained (CUDA runtime headers only) and meant to be reused: the
/// attention chapter's flash-attention kernels keep exactly this state per query row.
///
/// Softmax of a row x[0..C): y[i] = exp(x[i] - m) / d with m = max_i x[i] and
/// d = sum_i exp(x[i] - m). Subtracting m keeps every exponent <= 0, so nothing overflows.
/// Computed naively that takes three passes over the row (max; sum; write). The online
/// algorithm keeps, for the part of the row seen so far, the pair
///
///     max = the largest value seen        (-inf if nothing, or only -inf, was seen)
///     sum = sum of exp(x - max) over it   (0 if nothing was seen)
///
/// and updates it one value, or one other pair, at a time: when the max grows from m to m',
/// the old sum is rescaled by exp(m - m'). Two pairs over disjoint parts merge into the pair of
/// their union, in any order and any grouping (the merge is commutative and associative, up to
/// rounding), which is what lets threads, warps and blocks each summarize a part of a row and
/// combine the summaries with the same shuffles and trees as a sum. One pass over the data then
/// gives both m and d.
///
/// Defined results at the edges (every version of chapter 03 and its reference agree):
/// - entries equal to -inf contribute exp(-inf) = 0, like masked-out entries in attention;
/// - a row whose entries are *all* -inf has no defined softmax; we define its output as all
///   zeros (max = -inf, sum = 0: normalizer() returns shift 0 and scale 0), the convention
///   flash-attention kernels use for fully masked rows;
/// - +inf and NaN entries are not supported (the row's output is then NaN).
#pragma once

#include <cuda_runtime.h>

#include <cmath>

namespace softmax {

/// @brief The online softmax state of a set of values: their max and the sum of exp(value - max).
struct MaxSum {
  float max;  ///< largest value seen; -inf for the empty set (or only -inf seen)
  float sum;  ///< sum of exp(value - max) over the values seen; 0 for the empty set
};

/// The state of the empty set: (-inf, 0). Merging it changes nothing.
__host__ __device__ inline MaxSum max_sum_identity() { return {-INFINITY, 0.0f}; }

/// @brief exp(from - to), the factor that rescales a sum taken relative to max `from` to max
/// `to` (to >= from), with exp(-inf - (-inf)) defined as 1.
///
/// That case is the only one where the formula is undefined (NaN): both maxima are -inf, so
/// both sums are 0 and any finite factor gives the right answer. Attention uses the same factor
/// to rescale its output accumulator when a row's running max grows.
// [rescale]
__host__ __device__ inline float rescale(float from, float to) { return from == to ? 1.0f : expf(from - to); }
// [rescale]

/// @brief The state of the union of two disjoint sets, from the states of the two.
///
///     max = max(a.max, b.max)
///     sum = a.sum * exp(a.max - max) + b.sum * exp(b.max - max)
///
/// Commutative and associative up to rounding (the max exactly), with max_sum_identity() as
/// its identity: warps and blocks can reduce MaxSum states like numbers.
// [merge]
__host__ __device__ inline MaxSum merge(MaxSum a, MaxSum b) {
  const float max = fmaxf(a.max, b.max);
  return {max, a.sum * rescale(a.max, max) + b.sum * rescale(b.max, max)};
}
// [merge]

/// @brief The state after one more value `x`: merge(s, {x, 1}), written to cost one exp.
///
/// If x is a new maximum the old sum is rescaled and x contributes exp(0) = 1; otherwise x
/// contributes exp(x - max). An x of -inf contributes 0 (also when s is still empty).
// [add]
__host__ __device__ inline MaxSum add(MaxSum s, float x) {
  if (x > s.max) return {x, s.sum * expf(s.max - x) + 1.0f};  // s.max = -inf: 0 * 0 + 1
  return {s.max, s.sum + (s.max == -INFINITY ? 0.0f : expf(x - s.max))};
}
// [add]

/// @brief How to turn a row's final state into outputs: y = exp(x - shift) * scale.
struct Normalizer {
  float shift;  ///< the row max (0 for an all -inf row, so exp(-inf - shift) = 0, never NaN)
  float scale;  ///< 1 / sum (0 for an all -inf row, whose sum is 0)
};

/// The shift of a row whose max is `max`: max itself, or 0 if max = -inf (an all -inf row).
__host__ __device__ inline float softmax_shift(float max) { return max == -INFINITY ? 0.0f : max; }

/// The scale of a row whose sum of exponentials is `sum`: 1 / sum, or 0 if sum = 0 (all -inf).
__host__ __device__ inline float softmax_scale(float sum) { return sum > 0.0f ? 1.0f / sum : 0.0f; }

/// The Normalizer of a row's final state. All -inf row: shift 0, scale 0, so every output is
/// exp(-inf) * 0 = 0 (the documented definition).
__host__ __device__ inline Normalizer normalizer(MaxSum s) { return {softmax_shift(s.max), softmax_scale(s.sum)}; }

}  // namespace softmax
