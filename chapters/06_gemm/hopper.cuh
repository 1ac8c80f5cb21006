/// @file
/// @brief What the Hopper steps (v12-v17) share: thin wrappers around the sm_90a PTX they use
/// (mbarrier, TMA, wgmma, setmaxnreg, clusters), the shared-memory matrix descriptor, the tile
/// order, the epilogue straight from wgmma's accumulator registers, and the host side (tensor
/// maps, operands made TMA-ready).
///
/// Every wrapper is one PTX instruction (or two) with a comment saying what it does in plain
/// terms. They exist only in device code compiled for sm_90a (`GEMM_SM90A`); the kernels that
/// use them compile to a trap elsewhere, and the registry reports those versions as skipped
/// (hopper_unavailable()).
#pragma once

#include <cuda.h>  // CUtensorMap and its enums (types only: libcuda is reached through the runtime)
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "gemm.hpp"
#include "gemm_device.cuh"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
/// 1 in device code compiled for sm_90a (the "a" features: wgmma, setmaxnreg, TMA multicast), else 0.
#define GEMM_SM90A 1
#else
/// 0: host code, or device code for a GPU without the sm_90a features (see the branch above).
#define GEMM_SM90A 0
#endif

/// The Hopper steps' shared device and host helpers.
namespace gemm::sm90 {

/// The k-slice of every Hopper step: 64 bf16 = 128 bytes, one row of the 128-byte swizzle.
constexpr int kBK = 64;
/// Columns of B per TMA box: a box row must fit the 128-byte swizzle, so a 256-wide tile of B is
/// loaded as four boxes of 64 columns.
constexpr int kBoxN = 64;
/// Bytes of one B box (64 k-rows x 64 columns of bf16): also the distance between the 64-column
/// groups of a B tile in shared memory, the "leading byte offset" of B's wgmma descriptor.
constexpr int kBoxBytesB = kBK * kBoxN * 2;
/// Row tiles per raster group of the tile order (grouped_tile(), as v10): tiles running at the
/// same time share A's row panels and B's column panels in L2.
constexpr int kGroupM = 8;

#if GEMM_SM90A

/// @name mbarrier: a shared-memory barrier that counts arrivals and bytes (sm_90)
///
/// A phase completes when `count` threads have arrived *and* every byte announced with
/// expect_tx has landed. Waiters name the phase by its parity: phase 0, 1, 0, 1, ... The
/// protocol of every Hopper step is on the chapter page ("The mbarrier phase protocol").
/// @{

/// mbarrier.init: the phase completes after `count` arrivals (plus the announced bytes).
__device__ __forceinline__ void mbar_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}
/// Makes the initialized barriers visible to the TMA unit and to the other CTAs of the cluster.
__device__ __forceinline__ void fence_barrier_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
/// One arrival that also announces `bytes` more bytes (a TMA load's) before the phase can complete.
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
}
/// One arrival (release: this thread's earlier work is visible to whoever waits on the phase).
__device__ __forceinline__ void mbar_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}
/// One arrival on the barrier at the same shared-memory offset in CTA `cta` of the cluster
/// (mapa turns the local address into that CTA's), with the default semantics (release at CTA
/// scope) of a local arrival. The stage it releases was read by wgmma, which wgmma_wait() has
/// already seen complete; a release at cluster scope is not needed (see v17's comment).
__device__ __forceinline__ void mbar_arrive_cluster(std::uint64_t* bar, unsigned cta) {
  asm volatile(
      "{\n\t.reg .b32 remote;\n\t"
      "mapa.shared::cluster.u32 remote, %0, %1;\n\t"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(smem_u32(bar)),
      "r"(cta)
      : "memory");
}
/// One mbarrier.try_wait: true once the phase of parity `parity` has completed (the hardware
/// may suspend the thread a while before answering false).
__device__ __forceinline__ bool mbar_try_wait(std::uint64_t* bar, unsigned parity) {
  std::uint32_t done = 0;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n}"
      : "=r"(done)
      : "r"(smem_u32(bar)), "r"(parity)
      : "memory");
  return done != 0;
}
/// Ends the kernel with a launch error. A function of its own, not inlined: a trap written
/// inline in a loop that has wgmma in flight makes ptxas wait for them there (warning C7517).
__device__ __noinline__ void pipeline_stuck_trap() { __trap(); }
/// Waits until the phase of parity `parity` has completed. A pipeline that never completes
/// (a bug) traps after about 2^34 clock cycles, seconds: a launch error instead of a hang.
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, unsigned parity) {
  if (mbar_try_wait(bar, parity)) return;
  const long long start = clock64();
  while (!mbar_try_wait(bar, parity)) {
    if (clock64() - start > (1ll << 34)) pipeline_stuck_trap();
  }
}
/// @}

/// @name TMA: bulk tensor copies between global and shared memory (sm_90)
/// @{

/// Loads the box at (x0 = column, x1 = row) of `map` into `dst` (1024-byte aligned); its bytes
/// complete on `bar`. Parts of the box outside the matrix arrive as zeros.
__device__ __forceinline__ void tma_load(void* dst, const CUtensorMap* map, int x0, int x1, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          smem_u32(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x0), "r"(x1), "r"(smem_u32(bar))
      : "memory");
}
/// tma_load() into every CTA of the cluster named in `cta_mask` (bit i: CTA rank i): the box
/// lands at the same shared-memory offset in each, and completes on each one's barrier at the
/// offset of `bar`. One read of L2 feeds several SMs (sm_90a).
__device__ __forceinline__ void tma_load_multicast(void* dst, const CUtensorMap* map, int x0, int x1,
                                                   std::uint64_t* bar, std::uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem_u32(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x0), "r"(x1), "r"(smem_u32(bar)), "h"(cta_mask)
      : "memory");
}
/// Stores `src` (shared memory) to the box at (x0, x1) of `map`; the parts of the box outside
/// the matrix are not written. Completion is tracked by bulk groups.
__device__ __forceinline__ void tma_store(const CUtensorMap* map, int x0, int x1, const void* src) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(x0), "r"(x1), "r"(smem_u32(src))
               : "memory");
}
/// Closes the group of bulk stores this thread issued since the last commit.
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
/// Waits until at most N of this thread's bulk groups still read their shared-memory source.
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
/// Waits until all of this thread's bulk stores are complete (written to global memory).
__device__ __forceinline__ void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
/// Orders this thread's ordinary shared-memory writes before later reads by the async proxy
/// (the TMA unit, wgmma): needed between st.shared and a TMA store of the same bytes.
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
/// @}

/// @name wgmma: warpgroup matrix multiply-accumulate, operands from shared memory (sm_90a)
///
/// Four consecutive warps (a warpgroup, starting at a warp index divisible by 4) issue one
/// wgmma together. It runs asynchronously: wgmma_commit() closes a group of them and
/// wgmma_wait<N>() waits until at most N groups are still running. The accumulators must not be
/// touched in between (keep_in_registers() tells the compiler so).
/// @{

/// Orders earlier register writes (the accumulators) before the wgmma that follow.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
/// Closes the group of wgmma issued since the last commit.
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
/// Waits until at most N committed groups are still running.
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
/// An empty asm that "reads and writes" every accumulator: the compiler can move no access to
/// them across it, so reads after wgmma_wait() really see the finished results.
template <int R>
__device__ __forceinline__ void keep_in_registers(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

/// The 64-bit shared-memory matrix descriptor of a wgmma operand (PTX ISA, "Matrix Descriptor
/// Format"): bits 0-13 the start address / 16, 16-29 the leading-dimension byte offset / 16,
/// 32-45 the stride-dimension byte offset / 16, 62-63 the swizzle mode (1 = 128-byte swizzle).
/// The base offset (bits 49-51) stays 0: every tile starts on a 1024-byte boundary.
///
/// - A (K-major, rows of 64 k = 128 bytes, 128-byte swizzle): SBO = 1024, the distance between
///   groups of 8 rows; LBO is unused (the 16 k of one instruction lie inside one 128-byte row).
///   k-step kk starts 32 kk bytes into the rows: the swizzle is applied to the address the
///   hardware computes, exactly as TMA applied it when it wrote the tile.
/// - B (MN-major: B is K x N row-major, rows of 64 n = 128 bytes per box): LBO = 8192, the
///   distance between the 64-column boxes; SBO = 1024, between groups of 8 k-rows. k-step kk
///   starts 16 kk rows = 2048 kk bytes in.
__device__ __forceinline__ std::uint64_t smem_desc(const void* tile, std::uint32_t lbo, std::uint32_t sbo) {
  const std::uint32_t addr = smem_u32(tile);
  return static_cast<std::uint64_t>((addr & 0x3FFFF) >> 4) | (static_cast<std::uint64_t>(lbo >> 4) << 16) |
         (static_cast<std::uint64_t>(sbo >> 4) << 32) | (std::uint64_t{1} << 62);
}

// wgmma_m64n128k16 / wgmma_m64n256k16: the register lists are long, not deep. Accumulator d[r]
// of lane l in warp w (of the warpgroup) is C[16 w + l / 4 + 8 ((r / 2) % 2)][8 (r / 4) + 2 (l % 4) + r % 2]:
// per 8 columns, the m16n8 layout of mma.sync (v10) for each warp's 16 rows.
// [wgmma]
/// wgmma m64n128k16, bf16 x bf16 -> fp32: d (64 x 128: 64 registers per thread) = A (64 x 16, `desc_a`,
/// K-major) x B (16 x 128, `desc_b`, MN-major: transpose-B = 1) + (scale_d ? d : 0).
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b,
                                                 int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, %64, %65, p, 1, 1, 0, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}
// [wgmma]

/// wgmma m64n256k16, bf16 x bf16 -> fp32: d (64 x 256: 128 registers per thread) = A (64 x 16, `desc_a`,
/// K-major) x B (16 x 256, `desc_b`, MN-major: transpose-B = 1) + (scale_d ? d : 0).
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], std::uint64_t desc_a, std::uint64_t desc_b,
                                                 int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
      "}, %128, %129, p, 1, 1, 0, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

/// One wgmma m64nNk16 for N = 128 or 256 (the tile widths the steps use).
template <int N>
__device__ __forceinline__ void wgmma_m64k16(float (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b,
                                             int scale_d) {
  static_assert(N == 128 || N == 256, "wgmma_m64k16: the steps use n = 128 or n = 256");
  if constexpr (N == 128) {
    wgmma_m64n128k16(d, desc_a, desc_b, scale_d);
  } else {
    wgmma_m64n256k16(d, desc_a, desc_b, scale_d);
  }
}

/// The four k-steps (k = 16 each) of one 64-wide k-slice for a warpgroup's 64 x N accumulators:
/// A rows [64 mi, 64 mi + 64) of the stage's A tile (`a_tile`: BM rows of 128 bytes), B the whole
/// stage's B tile (`b_tile`: N / 64 boxes of 64 k-rows x 64 columns). `first`: the slice is the
/// tile's first, so the first k-step overwrites the accumulators (scale-d = 0) instead of adding.
// [kslice]
template <int N>
__device__ __forceinline__ void wgmma_kslice(float (&d)[N / 2], const unsigned char* a_tile, const unsigned char* b_tile,
                                             bool first) {
#pragma unroll
  for (int kk = 0; kk < kBK / 16; ++kk) {
    const std::uint64_t desc_a = smem_desc(a_tile + kk * 32, 16, 1024);         // 16 k = 32 bytes further in each row
    const std::uint64_t desc_b = smem_desc(b_tile + kk * 2048, kBoxBytesB, 1024);  // 16 k-rows of 128 bytes further
    wgmma_m64k16<N>(d, desc_a, desc_b, (first && kk == 0) ? 0 : 1);
  }
}
// [kslice]
/// @}

/// @name Warp specialization and clusters (sm_90a)
/// @{

/// setmaxnreg.dec: this warpgroup gives registers back, down to R per thread (a producer needs few).
template <int R>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(R));
}
/// setmaxnreg.inc: this warpgroup takes registers, up to R per thread (the consumers' accumulators).
template <int R>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(R));
}
/// Waits at named barrier `id` (1-15; 0 is __syncthreads) until `threads` threads have arrived:
/// a barrier for one warpgroup (or two) without stopping the others.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
/// Every thread of every CTA of the cluster arrives, then waits for all the others (release /
/// acquire at cluster scope).
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
/// @}

/// The first 1024-byte boundary at or after `p` (128-byte-swizzled tiles must start on one).
__device__ __forceinline__ unsigned char* align_1024(unsigned char* p) {
  return reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(p) + 1023) & ~std::uintptr_t{1023});
}

#endif  // GEMM_SM90A

/// Stores one warpgroup's 64 x N tile of accumulators (wgmma's layout, see wgmma_m64n128k16)
/// to C at (row0, col0): alpha * acc + beta * C, one float2 per pair of columns when `vec_c`
/// (C's rows 8-byte aligned) and inside C, else guarded scalars. Rows and columns outside C
/// are skipped. `warp` is the warp's index inside its warpgroup.
// [epilogue]
template <int N>
__device__ __forceinline__ void store_accumulators(const float (&acc)[N / 2], float* __restrict__ c, int m, int n,
                                                   int row0, int col0, float alpha, float beta, bool vec_c, int warp,
                                                   int lane) {
  const int g = lane / 4, tq = lane % 4;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int row = row0 + warp * 16 + g + half * 8;
    if (row >= m) continue;
    float* c_row = c + static_cast<std::int64_t>(row) * n;
#pragma unroll
    for (int j = 0; j < N / 8; ++j) {
      store_pair(c_row, col0 + 8 * j + 2 * tq, n, acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1], alpha, beta,
                 vec_c);
    }
  }
}
// [epilogue]

/// @name Host side (hopper_support.cu)
/// @{

/// A and B as the TMA unit needs them: base addresses and row strides multiples of 16 bytes.
/// `lda` and `ldb` are the elements between consecutive rows (>= k and >= n).
struct TmaOperands {
  const __nv_bfloat16* a;  ///< A (m x k), row stride lda
  std::int64_t lda;        ///< elements between rows of A
  const __nv_bfloat16* b;  ///< B (k x n), row stride ldb
  std::int64_t ldb;        ///< elements between rows of B
};

/// Returns A and B ready for TMA: unchanged when their bases are 16-byte aligned and k (for A),
/// n (for B) are multiples of 8; otherwise the operand is first copied, on `stream`, into a
/// workspace whose rows are padded to a multiple of 8 elements (one extra pass over it, counted
/// in the timed run). The workspace is kept between calls and grows when needed.
TmaOperands tma_operands(std::int64_t m, std::int64_t n, std::int64_t k, const __nv_bfloat16* a,
                         const __nv_bfloat16* b, cudaStream_t stream);

/// A tensor map (the TMA descriptor) of the row-major `rows` x `cols` matrix at `base`, `ld`
/// elements of `elem_bytes` bytes between rows, loaded or stored in boxes of `box_rows` x
/// `box_cols`, swizzled in shared memory with the 128-byte swizzle. Parts of a box outside the
/// matrix load as zeros and are not stored. Throws tut::CudaError if the driver refuses it.
CUtensorMap make_tensor_map(const void* base, CUtensorMapDataType type, int elem_bytes, std::int64_t rows,
                            std::int64_t cols, std::int64_t ld, unsigned box_rows, unsigned box_cols);

/// The tensor maps of A (boxes of `box_m` rows x 64 k) and B (boxes of 64 k-rows x 64 columns).
struct OperandMaps {
  CUtensorMap a;  ///< A, m x k
  CUtensorMap b;  ///< B, k x n
};
/// make_tensor_map() for both operands of a TMA-ready problem.
OperandMaps operand_maps(const TmaOperands& ops, std::int64_t m, std::int64_t n, std::int64_t k, unsigned box_m);

/// Sets a kernel's dynamic shared-memory limit to `bytes` (once per kernel; throws if the GPU
/// gives a block less).
void set_smem_limit(const void* kernel, int bytes);
/// @}

}  // namespace gemm::sm90
