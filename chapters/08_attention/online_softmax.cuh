/// @file
/// @brief The online softmax of one query row, as the fused attention kernels keep it.
///
/// Chapter 03 introduced the online softmax (Milakov & Gimelshein 2018) for a row that is read
/// once; here it runs *inside* a loop over tiles of keys, so it also carries the row's output
/// accumulator. This header is chapter 08's own (chapters stay self-contained).
///
/// For one query row the kernels keep, over the keys seen so far,
///
///     m = max of the scores seen,   l = sum of exp(score - m),   acc = sum of exp(score - m) v
///
/// and after the last tile O = acc / l and lse = m + log(l). When a tile raises the max from m to
/// m', every term already in l and acc was taken relative to the old max: both are multiplied by
/// exp(m - m') (the *rescale*), then the tile's terms are added relative to m'.
///
/// **Base-2 units.** Scores are multiplied by scale * log2(e) as they come out of Q K^T, so that
/// exp(scale * x - scale * m) becomes 2^(x' - m'): one multiply-add and one `ex2.approx` (the
/// hardware's exponential, which is base 2) per score instead of a multiply and a full `expf`.
/// m is kept in these units; lse converts back (m' ln 2 + log l).
///
/// **Rows that see nothing.** Until a row meets a visible key, m = -inf and l = 0. The formulas
/// above would compute 2^(-inf - (-inf)) = NaN; exp_shift() uses 0 as the shift while m = -inf, so
/// every masked score gives 2^(-inf) = 0 and the rescale factor is 0 (l and acc are 0 anyway).
/// A row that never meets a visible key ends with l = 0: O = 0 and lse = -inf, our definition.
#pragma once

#include <cuda_runtime.h>

#include <cmath>

namespace attention {

/// log2(e): scores times scale * kLog2e are in base-2 units.
constexpr float kLog2e = 1.4426950408889634f;
/// ln(2): converts a base-2 max back to natural units.
constexpr float kLn2 = 0.6931471805599453f;

/// 2^x with the hardware's approximation (`ex2.approx.ftz.f32`, about 2 ulp): 2^-inf = 0.
// [fast_exp2]
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
// [fast_exp2]

/// The shift a row's exponents use: its running max, or 0 while the max is -inf (nothing seen),
/// so that masked scores give 2^(-inf - 0) = 0 and never 2^(-inf + inf) = NaN.
__device__ __forceinline__ float exp_shift(float m) { return m == -INFINITY ? 0.0f : m; }

/// The factor that moves l and acc from max `m_old` to max `m_new` (m_new >= m_old):
/// 2^(m_old - m_new), 1 if the max did not change, 0 while nothing was seen.
// [rescale]
__device__ __forceinline__ float rescale_factor(float m_old, float m_new) {
  return fast_exp2(m_old - exp_shift(m_new));
}
// [rescale]

/// v16's threshold, base 2: the running max moves only when a tile's max exceeds it by more.
constexpr float kLazyRescaleLog2 = 8.0f;

/// v16's running max after a tile whose max is `tile_max` (base 2): m while the tile stays within
/// kLazyRescaleLog2 above it, else the new max (and from -inf, whatever the tile brings). Any
/// shift works as long as l, O and lse use the same one, so keeping m only lets the tile's P
/// values reach 2^8 (fp32 and bf16 hold that with the same relative precision), and O is then
/// rescaled only in the tiles that move m: a factor of exactly 1 skips the rescale.
// [lazy_max]
__device__ __forceinline__ float lazy_max(float m, float tile_max) {
  return tile_max - m > kLazyRescaleLog2 ? tile_max : m;  // -inf - -inf is NaN: m stays -inf
}
// [lazy_max]

/// 1 / l, or 0 for a row that saw no key (l = 0): its output is then 0, as defined.
__device__ __forceinline__ float inverse_sum(float l) { return l > 0.0f ? 1.0f / l : 0.0f; }

/// The row's logsumexp in natural units from its base-2 max `m` and sum `l`; -inf if l = 0.
__device__ __forceinline__ float row_lse(float m, float l) { return l > 0.0f ? m * kLn2 + logf(l) : -INFINITY; }

// [fast_epilogue]
/// v26: inverse_sum() by the hardware's approximate reciprocal (`rcp.approx.ftz.f32`, about 1
/// ulp; l >= 1 for a row that saw a key, far from where the approximation loses anything), no
/// slow path.
__device__ __forceinline__ float fast_inverse_sum(float l) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(l));
  return l > 0.0f ? r : 0.0f;
}

/// v26: row_lse() by the hardware's approximate log2 (`lg2.approx.ftz.f32`, absolute error about
/// 2^-22), no polynomial: (m + log2 l) ln 2.
__device__ __forceinline__ float fast_row_lse(float m, float l) {
  float lg;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(lg) : "f"(l));
  return l > 0.0f ? (m + lg) * kLn2 : -INFINITY;
}
// [fast_epilogue]

/// Max over the lanes of a group of `kWidth` consecutive lanes (a power of two <= 32).
template <int kWidth>
__device__ __forceinline__ float group_max(float x) {
#pragma unroll
  for (int offset = kWidth / 2; offset > 0; offset /= 2) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, offset));
  return x;
}

/// Sum over the lanes of a group of `kWidth` consecutive lanes (a power of two <= 32).
template <int kWidth>
__device__ __forceinline__ float group_sum(float x) {
#pragma unroll
  for (int offset = kWidth / 2; offset > 0; offset /= 2) x += __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}

}  // namespace attention
