/// @file
/// @brief Device helpers shared by the GEMM kernels: the epilogue, guarded vector loads and
/// stores, the order of the block tiles; and the sm_80 PTX wrappers (cp.async, ldmatrix,
/// mma.sync) of common/ampere_ptx.cuh by the short names the kernels use.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/ampere_ptx.cuh"

namespace gemm {

/// @name Epilogue: C = alpha * acc + beta * C
/// @{

/// alpha * acc + beta * (*c). When beta == 0, C is not read: a NaN already in C (our tests poison
/// it) must not reach the output, as the BLAS standard requires.
// [axpby]
__device__ __forceinline__ float axpby(float acc, float alpha, float beta, const float* c) {
  return beta == 0.0f ? alpha * acc : fmaf(alpha, acc, beta * *c);
}
// [axpby]

/// Stores alpha * acc + beta * C into the first `valid` (0..4, or more: clamped) elements at p.
/// One 16-byte load/store when `vec` (p is 16-byte aligned) and all four are valid; otherwise
/// one guarded scalar access per element. `p` is not dereferenced when valid <= 0.
__device__ __forceinline__ void store_float4_guarded(float* p, int valid, bool vec, float4 acc, float alpha,
                                                     float beta) {
  if (vec && valid >= 4) {
    float4 out;
    if (beta == 0.0f) {
      out = make_float4(alpha * acc.x, alpha * acc.y, alpha * acc.z, alpha * acc.w);
    } else {
      const float4 old = *reinterpret_cast<const float4*>(p);
      out = make_float4(fmaf(alpha, acc.x, beta * old.x), fmaf(alpha, acc.y, beta * old.y),
                        fmaf(alpha, acc.z, beta * old.z), fmaf(alpha, acc.w, beta * old.w));
    }
    *reinterpret_cast<float4*>(p) = out;
    return;
  }
  if (valid > 0) p[0] = axpby(acc.x, alpha, beta, p);
  if (valid > 1) p[1] = axpby(acc.y, alpha, beta, p + 1);
  if (valid > 2) p[2] = axpby(acc.z, alpha, beta, p + 2);
  if (valid > 3) p[3] = axpby(acc.w, alpha, beta, p + 3);
}

/// Stores alpha * v0 + beta * C and alpha * v1 + beta * C to c_row[col] and c_row[col + 1]
/// (columns at or beyond n are skipped): one float2 when `vec` (C's rows 8-byte aligned: n even,
/// C aligned) and both columns are inside, else one guarded scalar each. The epilogue of the
/// tensor-core steps, whose accumulators come in pairs of adjacent columns.
__device__ __forceinline__ void store_pair(float* c_row, int col, int n, float v0, float v1, float alpha, float beta,
                                           bool vec) {
  if (vec && col + 1 < n) {
    float2* p = reinterpret_cast<float2*>(c_row + col);
    if (beta == 0.0f) {
      *p = make_float2(alpha * v0, alpha * v1);
    } else {
      const float2 old = *p;
      *p = make_float2(fmaf(alpha, v0, beta * old.x), fmaf(alpha, v1, beta * old.y));
    }
    return;
  }
  if (col < n) c_row[col] = axpby(v0, alpha, beta, c_row + col);
  if (col + 1 < n) c_row[col + 1] = axpby(v1, alpha, beta, c_row + col + 1);
}
/// @}

/// @name The order of the block tiles
/// @{

/// A tile of C by its tile row and tile column.
struct TileIndex {
  int row;  ///< tile row: rows row * BM .. row * BM + BM - 1
  int col;  ///< tile column
};

/// The tile that linear index `index` stands for in the grouped order (tensor-core steps):
/// consecutive indices walk down `group` tile rows, then move one tile column to the right, so
/// the tiles running at the same time share A's row panels and B's column panels in L2.
__host__ __device__ __forceinline__ TileIndex grouped_tile(int index, int tiles_m, int tiles_n, int group) {
  const int per_group = group * tiles_n;
  const int first_row = (index / per_group) * group;
  const int rows = tiles_m - first_row < group ? tiles_m - first_row : group;
  const int in_group = index % per_group;
  return {first_row + in_group % rows, in_group / rows};
}
/// @}

/// @name Guarded loads
/// @{

/// True if p is 16-byte aligned (a float4 access at p is legal).
__host__ __device__ __forceinline__ bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

/// Loads p[0..3], with zeros for elements at or beyond `valid` (p is not dereferenced when
/// valid <= 0). One 16-byte load when `vec` (p is 16-byte aligned) and all four are valid,
/// else up to four scalar loads: the edge of a matrix costs a few extra instructions, the
/// interior none.
// [load_float4_guarded]
__device__ __forceinline__ float4 load_float4_guarded(const float* __restrict__ p, int valid, bool vec) {
  float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (vec && valid >= 4) return *reinterpret_cast<const float4*>(p);
  if (valid > 0) v.x = p[0];
  if (valid > 1) v.y = p[1];
  if (valid > 2) v.z = p[2];
  if (valid > 3) v.w = p[3];
  return v;
}
// [load_float4_guarded]
/// @}

// The sm_80 instructions (cp.async, ldmatrix, mma.sync) are written once, for every chapter, in
// common/ampere_ptx.cuh (namespace tut::sm80); the GEMM kernels call them by their short names.
using tut::sm80::cp_async_16;
using tut::sm80::cp_async_4;
using tut::sm80::cp_async_commit;
using tut::sm80::cp_async_wait;
using tut::sm80::ldmatrix_x4;
using tut::sm80::ldmatrix_x4_trans;
using tut::sm80::mma_bf16_16816;

}  // namespace gemm
