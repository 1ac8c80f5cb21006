/// @file
/// @brief Device helpers shared by the GEMM kernels: the epilogue, guarded vector loads and
/// stores, and thin wrappers around the sm_80 PTX instructions (cp.async, ldmatrix, mma.sync).
///
/// Each wrapper is followed by a comment with what it stands for in plain terms, so a reader
/// never has to take a helper on trust.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

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

/// @name Asynchronous copies global -> shared (cp.async, sm_80+)
///
/// `cp.async` copies 4, 8 or 16 bytes from global to shared memory without passing through
/// registers, and without making the thread wait. `src_bytes` < size zero-fills the rest of the
/// destination: that is how an edge tile gets its zeros (src_bytes = 0: nothing is read).
/// Copies are grouped with commit(); wait<N>() blocks until at most N groups are pending.
/// Only sm_80+ kernels call these; on older targets they trap (and are never launched).
/// @{

/// The 32-bit shared-state-space address of a pointer into shared memory (what PTX wants).
__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// dst[0] = valid ? src[0] : 0 for one float, asynchronously (4-byte cp.async, cached in L1).
__device__ __forceinline__ void cp_async_4(void* dst, const void* src, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_u32(dst)), "l"(src),
               "r"(valid ? 4 : 0));
#else
  (void)dst, (void)src, (void)valid;
  __trap();
#endif
}

/// Copies src_bytes (0 or 16) bytes to dst and zero-fills the rest of the 16, asynchronously
/// (16-byte cp.async, bypassing L1: .cg). dst and src must be 16-byte aligned.
// [cp_async_16]
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(dst)), "l"(src), "r"(src_bytes));
#else
  (void)dst, (void)src, (void)src_bytes;
  __trap();
#endif
}
// [cp_async_16]

/// Closes the group of cp.async issued since the last commit.
__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

/// Waits until at most `kPending` committed groups are still in flight (this thread's copies
/// only: a __syncthreads() must follow before other threads' data is read).
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
#endif
}
/// @}

/// @name Tensor-core fragments (sm_80+): ldmatrix and mma.sync
/// @{

/// ldmatrix.x4: the warp loads four 8x8 matrices of 16-bit elements from shared memory. Lane l
/// gives the address of one 16-byte row: lanes 0-7 the rows of matrix 0, 8-15 of matrix 1,
/// 16-23 of matrix 2, 24-31 of matrix 3. Afterwards lane l holds, in r[i], the two elements
/// (row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1) of matrix i: exactly the register layout
/// mma.sync expects for its A operand.
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* row_address) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_u32(row_address)));
#else
  (void)r, (void)row_address;
  __trap();
#endif
}

/// ldmatrix.x4.trans: as ldmatrix_x4, but each 8x8 matrix arrives transposed: lane l holds
/// elements (rows 2 (l % 4) and 2 (l % 4) + 1, column l / 4). Loading a row-major (k, n) tile of
/// B this way gives the "col" B operand of mma.sync without any shuffling.
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const void* row_address) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_u32(row_address)));
#else
  (void)r, (void)row_address;
  __trap();
#endif
}

/// d += A B for one 16x8x16 tile on the tensor cores: A 16x16 bf16 (4 registers of 2 values),
/// B 16x8 bf16 (2 registers), d 16x8 fp32 (4 registers). With g = lane / 4 and t = lane % 4,
/// lane l holds d[0], d[1] at (row g, cols 2t, 2t+1) and d[2], d[3] at (row g + 8, same cols).
// [mma]
__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  // Not volatile: mma reads and writes registers only, so the compiler may schedule it freely
  // between the ldmatrix loads (which are volatile: they read shared memory written by others).
  asm(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  (void)d, (void)a, (void)b;
  __trap();
#endif
}
// [mma]
/// @}

}  // namespace gemm
