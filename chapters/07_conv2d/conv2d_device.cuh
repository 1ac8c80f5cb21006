/// @file
/// @brief Device helpers of the GEMM-style kernels (v4-v9): thin wrappers around the sm_80 PTX
/// instructions cp.async, ldmatrix and mma.sync, the 128-byte swizzle of v8 and v9, and the
/// bf16 versions' pair store. (Chapter 06 has the same ones; chapters stay
/// self-contained, so they are written again here.)
///
/// Each wrapper says in plain terms what it stands for. On targets below sm_80 they trap: the
/// kernels that call them are registered with min_cc 80 and never launched there.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace conv2d {

/// The 32-bit shared-state-space address of a pointer into shared memory (what PTX wants).
__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// dst[0] = valid ? src[0] : 0 for one 4-byte value, asynchronously (cached in L1: .ca).
__device__ __forceinline__ void cp_async_4(void* dst, const void* src, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_u32(dst)), "l"(src), "r"(valid ? 4 : 0));
#else
  (void)dst, (void)src, (void)valid;
  __trap();
#endif
}

/// Copies 16 bytes (valid) or writes 16 zero bytes (not valid: nothing is read), asynchronously,
/// to the 32-bit shared-state-space address `dst` (a loader that keeps its destinations as
/// numbers, adding stage offsets, calls this one: v9). dst and src 16-byte aligned. The
/// zero-fill is how the padding of the image gets its zeros.
// [cp_async_16]
__device__ __forceinline__ void cp_async_16_shared(std::uint32_t dst, const void* src, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0));
#else
  (void)dst, (void)src, (void)valid;
  __trap();
#endif
}
// [cp_async_16]

/// cp_async_16_shared() to a pointer into shared memory.
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, bool valid) {
  cp_async_16_shared(smem_u32(dst), src, valid);
}

/// Byte offset of 16-byte chunk `chunk` (0..7) of row `row` in a tile of 128-byte rows stored
/// with the 128-byte swizzle: the physical chunk is chunk ^ (row % 8). This is the pattern TMA's
/// CU_TENSOR_MAP_SWIZZLE_128B writes and wgmma's descriptor (layout type 1) reads, for a tile
/// that starts on a 1024-byte boundary (8 rows of 128 bytes: one swizzle atom). v8 and v9.
// [swizzle128]
__device__ __forceinline__ int swizzle128(int row, int chunk) { return row * 128 + ((chunk ^ (row & 7)) << 4); }
// [swizzle128]

/// The epilogue of the bf16 versions (v7-v9): out[0], out[1] = v0, v1 (rounded to bf16) for the
/// output channels `col` and `col` + 1 of one output pixel, those below `k_total` only; one
/// 4-byte store where `pairs` (K even and y 4-byte aligned) and both exist, else one per value.
__device__ __forceinline__ void store_bf16_pair(__nv_bfloat16* out, int col, int k_total, float v0, float v1,
                                                bool pairs) {
  if (pairs && col + 1 < k_total) {
    *reinterpret_cast<__nv_bfloat162*>(out) = __floats2bfloat162_rn(v0, v1);
  } else {
    if (col < k_total) out[0] = __float2bfloat16_rn(v0);
    if (col + 1 < k_total) out[1] = __float2bfloat16_rn(v1);
  }
}

/// Closes the group of cp.async issued by this thread since the last commit.
__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

/// Waits until at most `kPending` of this thread's committed groups are in flight (a
/// __syncthreads() must follow before other threads' copies are read).
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
#endif
}

/// ldmatrix.x4: the warp loads four 8x8 matrices of 16-bit elements; lane l gives the address of
/// one 16-byte row (lanes 0-7: the rows of matrix 0, 8-15: matrix 1, 16-23: matrix 2, 24-31:
/// matrix 3). Afterwards r[i] of lane l holds row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 of
/// matrix i: the fragment layout mma.sync expects.
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

/// d += A B on the tensor cores for one 16 x 8 x 16 tile: A 16 x 16 bf16 (row-major fragment, 4
/// registers of 2 values), B 16 x 8 bf16 ("col": stored n-major, 2 registers), d 16 x 8 fp32.
/// With g = lane / 4, t = lane % 4: d[0], d[1] are (row g, cols 2t, 2t+1), d[2], d[3] (row g + 8).
// [mma]
__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  (void)d, (void)a, (void)b;
  __trap();
#endif
}
// [mma]

}  // namespace conv2d
