/// @file
/// @brief Thin wrappers around the sm_80 PTX that the tensor-core and pipelined steps use:
/// asynchronous copies (cp.async), fragment loads (ldmatrix) and the bf16 tensor-core product
/// (mma.sync m16n8k16). Shared by chapter 06 (gemm, v07 onwards), chapter 07 (conv2d: the
/// implicit GEMMs, v6's fused Winograd and the tensor-core steps) and chapter 08 (attention, v4
/// onwards); the Hopper instructions are in common/hopper_ptx.cuh.
///
/// Each wrapper is one PTX instruction with a comment saying what it does in plain terms, so a
/// reader never has to take a helper on trust. On targets older than sm_80 the copies and the
/// fragment instructions trap: the kernels that call them are registered with a minimum compute
/// capability of 8.0, so the runner never launches them there.
///
/// The fragment layouts are those of the PTX ISA for `mma.sync.aligned.m16n8k16.row.col.f32.bf16.
/// bf16.f32`. With g = lane / 4 and t = lane % 4:
///
///     A (16 x 16, row-major):  a[0] = (row g,   cols 2t, 2t+1)    a[1] = (row g+8, cols 2t, 2t+1)
///                              a[2] = (row g,   cols 2t+8, 2t+9)  a[3] = (row g+8, cols 2t+8, 2t+9)
///     B (16 x 8, "col"):       b[0] = (rows 2t, 2t+1, col g)      b[1] = (rows 2t+8, 2t+9, col g)
///     C (16 x 8, fp32):        c[0], c[1] = (row g, cols 2t, 2t+1) c[2], c[3] = (row g+8, same cols)
///
/// Each a[], b[] register holds two bf16 values, the lower column (or row) in the low half.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

/// The building blocks of the sm_80 steps (common/ampere_ptx.cuh).
namespace tut::sm80 {

/// The 32-bit shared-state-space address of a pointer into shared memory (what PTX wants).
__device__ __forceinline__ unsigned shared_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// @name Asynchronous copies global -> shared (cp.async)
///
/// `cp.async` copies 4, 8 or 16 bytes from global to shared memory without passing through
/// registers, and without making the thread wait. A source size below the copy's size
/// zero-fills the rest of the destination: that is how an edge tile gets its zeros (source size
/// 0: nothing is read). Copies are grouped with cp_async_commit(); cp_async_wait<N>() blocks
/// until at most N groups are pending.
/// @{

/// dst[0] = valid ? src[0] : 0 for one 4-byte value, asynchronously (cached in L1: .ca).
__device__ __forceinline__ void cp_async_4(void* dst, const void* src, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(shared_u32(dst)), "l"(src), "r"(valid ? 4 : 0));
#else
  (void)dst, (void)src, (void)valid;
  __trap();
#endif
}

/// Copies `src_bytes` (0 or 16) bytes to the shared-state-space address `dst` and zero-fills the
/// rest of the 16, asynchronously, bypassing L1 (.cg). dst and src must be 16-byte aligned. A
/// loader that keeps its destinations as numbers (adding stage offsets) calls this form.
// [cp_async_16]
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
#else
  (void)dst, (void)src, (void)src_bytes;
  __trap();
#endif
}
// [cp_async_16]

/// cp_async_16() to a pointer into shared memory.
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, int src_bytes) {
  cp_async_16(shared_u32(dst), src, src_bytes);
}

/// Not defined: a bool would be taken as a source size of 0 or 1 byte. Pass `ok ? 16 : 0`.
__device__ void cp_async_16(void* dst, const void* src, bool valid) = delete;
/// Not defined: as above, for the shared-address form.
__device__ void cp_async_16(unsigned dst, const void* src, bool valid) = delete;

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

/// @name Tensor-core fragments: ldmatrix and mma.sync
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
               : "r"(shared_u32(row_address)));
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
               : "r"(shared_u32(row_address)));
#else
  (void)r, (void)row_address;
  __trap();
#endif
}

/// d += A B for one 16x8x16 tile on the tensor cores: A 16x16 bf16 (4 registers of 2 values),
/// B 16x8 bf16 (2 registers: b0, b1), d 16x8 fp32 (4 registers), in the layouts of the file's
/// comment.
// [mma]
__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  // Not volatile: mma reads and writes registers only, so the compiler may schedule it freely
  // between the ldmatrix loads (which are volatile: they read shared memory written by others).
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  (void)d, (void)a, (void)b0, (void)b1;
  __trap();
#endif
}
// [mma]

/// mma_bf16_16816() with B's two registers as an array (b[0], b[1]).
__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  mma_bf16_16816(d, a, b[0], b[1]);
}

/// d += A B for one 16x8x8 tile on the tensor cores in TF32: A 16x8 (4 registers: a[0] = (row g,
/// col t), a[1] = (row g+8, col t), a[2] = (row g, col t+4), a[3] = (row g+8, col t+4)), B 8x8 (b0 =
/// (row t, col g), b1 = (row t+4, col g)), d 16x8 fp32 as for mma_bf16_16816(); g = lane / 4,
/// t = lane % 4. The registers hold fp32 bit patterns read as TF32 (round them with cvt_rna_tf32()).
__device__ __forceinline__ void mma_tf32_1688(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  (void)d, (void)a, (void)b0, (void)b1;
  __trap();
#endif
}

/// x rounded to TF32 (to nearest, ties away from zero: cvt.rna.tf32.f32), as a 32-bit pattern whose
/// low 13 bits are zero.
__device__ __forceinline__ unsigned cvt_rna_tf32(float x) {
  unsigned r = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
#else
  (void)x;
  __trap();
#endif
  return r;
}

/// Two floats rounded to bf16 (to nearest even) in one register, `lo` in the low half: the
/// layout of an mma.sync operand register.
__device__ __forceinline__ unsigned pack_bf16x2(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const unsigned*>(&v);
}
/// @}

}  // namespace tut::sm80
