/// @file
/// @brief Thin wrappers around the Hopper PTX of the TMA and wgmma steps (mbarrier, TMA, wgmma,
/// setmaxnreg, clusters), the shared-memory matrix descriptor of wgmma, and the run-time check
/// that a GPU and a build can run them. Shared by chapter 05 (transpose, v8: mbarrier and TMA
/// only), chapter 06 (gemm, v12-v17) and chapter 08 (attention, v7).
///
/// Every wrapper is one PTX instruction (or two) with a comment saying what it does in plain
/// terms. They exist only in device code for Hopper: mbarrier and TMA in code compiled for
/// sm_90 or later (`TUT_SM90`), wgmma, setmaxnreg and TMA multicast only in code compiled for
/// sm_90a (`TUT_SM90A`). A kernel that uses them puts its body under the matching `#if` and
/// traps otherwise, and its chapter's registry reports it as skipped wherever the GPU or the
/// build lacks them (tut::sm90::unavailable() for the sm_90a steps). What is specific to one
/// chapter (its tile sizes, its descriptors' strides, its epilogue) stays in the chapter.
#pragma once

#include <cuda.h>  // CUtensorMap (types only: libcuda is reached through the runtime)
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "common/ampere_ptx.cuh"
#include "common/check.hpp"
#include "common/device_info.hpp"
#include "common/tensor_map.hpp"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
/// 1 in device code compiled for sm_90a (the "a" features: wgmma, setmaxnreg, TMA multicast), else 0.
#define TUT_SM90A 1
#else
/// 0: host code, or device code for a GPU without the sm_90a features (see the branch above).
#define TUT_SM90A 0
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/// 1 in device code compiled for sm_90 or later (mbarrier with transaction counts, TMA), else 0.
#define TUT_SM90 1
#else
/// 0: host code, or device code for a GPU older than Hopper (see the branch above).
#define TUT_SM90 0
#endif

/// The building blocks of the Hopper steps (common/hopper_ptx.cuh).
namespace tut::sm90 {

/// The suspend-time hint of the steps whose waits sleep (gemm's v27, attention's v21): 10 ms, the
/// value CUTLASS's barrier waits pass. A thread wakes when the phase completes, so this bounds one
/// sleep, not the wait.
constexpr unsigned kSleepingWaitNs = 10000000;

#if TUT_SM90

using tut::sm80::shared_u32;  // the 32-bit shared-state-space address (common/ampere_ptx.cuh)

/// @name mbarrier: a shared-memory barrier that counts arrivals and bytes (sm_90)
///
/// A phase completes when `count` threads have arrived *and* every byte announced with
/// expect_tx has landed. Waiters name the phase by its parity: phase 0, 1, 0, 1, ... (the
/// protocol is on the gemm chapter's page, "The mbarrier phase protocol").
/// @{

/// mbarrier.init: the phase completes after `count` arrivals (plus the announced bytes).
__device__ __forceinline__ void mbar_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_u32(bar)), "r"(count) : "memory");
}
/// Makes the initialized barriers visible to the TMA unit and to the other CTAs of the cluster.
__device__ __forceinline__ void fence_barrier_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
/// One arrival that also announces `bytes` more bytes (a TMA load's) before the phase can complete.
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_u32(bar)), "r"(bytes) : "memory");
}
/// One arrival (release: this thread's earlier work is visible to whoever waits on the phase).
__device__ __forceinline__ void mbar_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_u32(bar)) : "memory");
}
/// The address in CTA `cta` of the cluster of what lies at `local` in this CTA's shared memory
/// (mapa): shared memory of another SM that this thread may store to or arrive on (sm_90).
__device__ __forceinline__ std::uint32_t cluster_address(const void* local, unsigned cta) {
  std::uint32_t remote = 0;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(shared_u32(local)), "r"(cta));
  return remote;
}
/// One arrival on the barrier at the same shared-memory offset in CTA `cta` of the cluster
/// (cluster_address() turns the local address into that CTA's), with the default semantics
/// (release at CTA scope) of a local arrival. Used to release a stage that was read by wgmma
/// which wgmma_wait() has already seen complete: a release at cluster scope is not needed then.
__device__ __forceinline__ void mbar_arrive_cluster(std::uint64_t* bar, unsigned cta) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(cluster_address(bar, cta)) : "memory");
}
/// Stores four floats at `remote` (an address from cluster_address()) as an asynchronous
/// transaction that completes on the barrier at `remote_bar` (cluster_address() of a barrier in
/// the same CTA): the receiver waits on that barrier, with the bytes announced by expect_tx, as
/// for a TMA load; no fence is needed between the stores and its wait (st.async, sm_90).
__device__ __forceinline__ void st_async_v4(std::uint32_t remote, float x, float y, float z, float w,
                                            std::uint32_t remote_bar) {
  asm volatile("st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(
                   remote),
               "f"(x), "f"(y), "f"(z), "f"(w), "r"(remote_bar)
               : "memory");
}
/// One mbarrier.try_wait: true once the phase of parity `parity` has completed (the hardware
/// may suspend the thread a while before answering false). kSuspendNs > 0 passes that as the
/// instruction's suspend-time hint, in nanoseconds: the longest the thread may sleep in it
/// waiting for the phase (gemm's v27); 0 leaves the time to the hardware.
template <unsigned kSuspendNs = 0>
__device__ __forceinline__ bool mbar_try_wait(std::uint64_t* bar, unsigned parity) {
  std::uint32_t done = 0;
  if constexpr (kSuspendNs == 0) {
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(shared_u32(bar)), "r"(parity)
        : "memory");
  } else {
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2, %3;\n\t"
        "selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(shared_u32(bar)), "r"(parity), "n"(kSuspendNs)
        : "memory");
  }
  return done != 0;
}
// [mbar_wait_both]
/// mbar_try_wait() on two barriers at once: true once both phases have completed. Both
/// instructions are issued before either answer is needed, so the thread waits for one answer's
/// latency instead of two in a row (attention's v22).
template <unsigned kSuspendNs = 0>
__device__ __forceinline__ bool mbar_try_wait_both(std::uint64_t* a, unsigned parity_a, std::uint64_t* b,
                                                   unsigned parity_b) {
  std::uint32_t done = 0;
  if constexpr (kSuspendNs == 0) {
    asm volatile(
        "{\n\t.reg .pred p, q;\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 q, [%3], %4;\n\t"
        "and.pred p, p, q;\n\t"
        "selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(shared_u32(a)), "r"(parity_a), "r"(shared_u32(b)), "r"(parity_b)
        : "memory");
  } else {
    asm volatile(
        "{\n\t.reg .pred p, q;\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2, %5;\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 q, [%3], %4, %5;\n\t"
        "and.pred p, p, q;\n\t"
        "selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(shared_u32(a)), "r"(parity_a), "r"(shared_u32(b)), "r"(parity_b), "n"(kSuspendNs)
        : "memory");
  }
  return done != 0;
}
/// Ends the kernel with a launch error. A function of its own, not inlined: a trap written
/// inline in a loop that has wgmma in flight makes ptxas wait for them there (warning C7517).
__device__ __noinline__ void pipeline_stuck_trap() { __trap(); }
/// Waits until the phase of parity `parity` has completed. A pipeline that never completes
/// (a bug) traps after about 2^34 clock cycles, seconds: a launch error instead of a hang.
template <unsigned kSuspendNs = 0>
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, unsigned parity) {
  if (mbar_try_wait<kSuspendNs>(bar, parity)) return;
  const long long start = clock64();
  while (!mbar_try_wait<kSuspendNs>(bar, parity)) {
    if (clock64() - start > (1ll << 34)) pipeline_stuck_trap();
  }
}
/// mbar_wait() on two barriers: polls both until the phases of parity `parity_a` of `a` and
/// `parity_b` of `b` have completed, one round trip per poll. Without mbar_wait()'s trap: a
/// clock (or a counter) kept in this loop, though never reached while the loads are in time,
/// cost attention's v22 2-4% at D = 64 (its chapter page); a pipeline stuck here hangs instead of
/// failing the launch (unless the producer's own waits trap first; the tests' timeout ends it).
template <unsigned kSuspendNs = 0>
__device__ __forceinline__ void mbar_wait_both(std::uint64_t* a, unsigned parity_a, std::uint64_t* b,
                                               unsigned parity_b) {
  while (!mbar_try_wait_both<kSuspendNs>(a, parity_a, b, parity_b)) {
  }
}
// [mbar_wait_both]
/// @}

/// @name TMA: bulk tensor copies between global and shared memory (sm_90)
/// @{

/// Loads the box at (x0 = column, x1 = row) of the 2-D `map` into `dst` (1024-byte aligned for
/// the 128-byte swizzle); its bytes complete on `bar`. Parts of the box outside the matrix arrive
/// as zeros (and still count as bytes of the box).
__device__ __forceinline__ void tma_load(void* dst, const CUtensorMap* map, int x0, int x1, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          shared_u32(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x0), "r"(x1), "r"(shared_u32(bar))
      : "memory");
}
/// tma_load() for a 3-D `map`: the box at (x0 = column, x1 = row, x2 = matrix). A box never
/// crosses from one matrix into the next: rows past the end of matrix x2 arrive as zeros.
__device__ __forceinline__ void tma_load_3d(void* dst, const CUtensorMap* map, int x0, int x1, int x2,
                                            std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
      "[%5];" ::"r"(shared_u32(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x0), "r"(x1), "r"(x2), "r"(shared_u32(bar))
      : "memory");
}
/// tma_load() for a 4-D *im2col* `map` (NHWC; encode_im2col_map()): the map's pixels x channels
/// box, its first pixel at tensor coordinates (c, w, h, n) and every pixel read `s` columns right
/// of and `r` rows below its own place (the filter tap). Pixels past the end of a row of the
/// map's bounding box continue at the start of the next row (and image), and what lies outside
/// the image arrives as zeros: one instruction brings a tile of the implicit GEMM's A, padding
/// included.
__device__ __forceinline__ void tma_load_im2col(void* dst, const CUtensorMap* map, int c, int w, int h, int n,
                                                std::uint16_t s, std::uint16_t r, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, "
      "%5}], [%6], {%7, %8};" ::"r"(shared_u32(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c), "r"(w), "r"(h), "r"(n), "r"(shared_u32(bar)), "h"(s), "h"(r)
      : "memory");
}
#if TUT_SM90A
/// tma_load() into every CTA of the cluster named in `cta_mask` (bit i: CTA rank i): the box
/// lands at the same shared-memory offset in each, and completes on each one's barrier at the
/// offset of `bar`. One read of L2 feeds several SMs (sm_90a).
__device__ __forceinline__ void tma_load_multicast(void* dst, const CUtensorMap* map, int x0, int x1,
                                                   std::uint64_t* bar, std::uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(shared_u32(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x0), "r"(x1), "r"(shared_u32(bar)), "h"(cta_mask)
      : "memory");
}
#endif  // TUT_SM90A
/// Stores `src` (shared memory) to the box at (x0, x1) of `map`; the parts of the box outside
/// the matrix are not written. Completion is tracked by bulk groups.
__device__ __forceinline__ void tma_store(const CUtensorMap* map, int x0, int x1, const void* src) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(x0), "r"(x1), "r"(shared_u32(src))
               : "memory");
}
/// Adds `src` (shared memory, fp32) to the box at (x0, x1) of `map` in global memory: the TMA
/// unit reads, adds and writes each element atomically (split-K's reduction; the parts of the box
/// outside the matrix are left alone). Completion is tracked by bulk groups, as tma_store().
__device__ __forceinline__ void tma_reduce_add(const CUtensorMap* map, int x0, int x1, const void* src) {
  asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(x0), "r"(x1), "r"(shared_u32(src))
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

#endif  // TUT_SM90

#if TUT_SM90A

/// @name wgmma: warpgroup matrix multiply-accumulate (sm_90a)
///
/// Four consecutive warps (a warpgroup, starting at a warp index divisible by 4) issue one
/// wgmma together. It runs asynchronously: wgmma_commit() closes a group of them and
/// wgmma_wait<N>() waits until at most N groups are still running. The accumulators (and A's
/// registers) must not be touched in between; keep_in_registers() after the wait tells the
/// compiler so.
///
/// Accumulator d[r] of lane l in warp w (of the warpgroup) is D[16 w + l / 4 + 8 ((r / 2) % 2)]
/// [8 (r / 4) + 2 (l % 4) + r % 2]: per 8 columns, the m16n8 layout of mma.sync for each warp's 16
/// rows. The register form of A (64 x 16 bf16, four registers of two) is mma.sync's m16n8k16 A
/// fragment for each warp's 16 rows: a[0] = (row g, cols 2t, 2t+1), a[1] = (row g+8, same),
/// a[2] = (row g, cols 2t+8, 2t+9), a[3] = (row g+8, same), g = l / 4, t = l % 4.
/// @{

/// Orders earlier register writes (the accumulators, A's registers) before the wgmma that follow.
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
/// keep_in_registers() for register fragments of A (wgmma's register form reads them while it
/// runs, so they too must stay put until the wait).
template <int R>
__device__ __forceinline__ void keep_in_registers(std::uint32_t (&a)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+r"(a[i])::"memory");
}

/// The 64-bit shared-memory matrix descriptor of a wgmma operand (PTX ISA, "Matrix Descriptor
/// Format") for tiles stored with the 128-byte swizzle (rows of 128 bytes, as TMA writes them):
/// bits 0-13 the start address / 16, 16-29 the leading-dimension byte offset (LBO) / 16, 32-45
/// the stride-dimension byte offset (SBO) / 16, 62-63 the swizzle mode (1 = 128-byte swizzle).
/// The base offset (bits 49-51) stays 0: every tile starts on a 1024-byte boundary.
///
/// - K-major operand (rows of 64 k = 128 bytes): SBO = 1024, the distance between groups of 8
///   rows; LBO is unused (the 16 k of one instruction lie inside one 128-byte row). k-step kk
///   starts 32 kk bytes into the rows: the swizzle is applied to the address the hardware
///   computes, exactly as TMA applied it when it wrote the tile.
/// - MN-major operand (rows of 64 n = 128 bytes, one 64-column box after another): LBO = the
///   distance between the 64-column boxes, SBO = 1024, between groups of 8 k-rows. k-step kk
///   starts 16 kk rows = 2048 kk bytes in.
__device__ __forceinline__ std::uint64_t smem_desc(const void* tile, std::uint32_t lbo, std::uint32_t sbo) {
  const std::uint32_t addr = shared_u32(tile);
  return static_cast<std::uint64_t>((addr & 0x3FFFF) >> 4) | (static_cast<std::uint64_t>(lbo >> 4) << 16) |
         (static_cast<std::uint64_t>(sbo >> 4) << 32) | (std::uint64_t{1} << 62);
}

// The register lists are long, not deep: one "+f" per accumulator.
// [wgmma]
/// wgmma m64n64k16, bf16 x bf16 -> fp32, both operands in shared memory: d (64 x 64: 32 registers
/// per thread) = A (64 x 16, `desc_a`, K-major) x B (16 x 64, `desc_b`; kTransB = 0: K-major, rows of
/// B^T; 1: MN-major, rows of B) + (scale_d ? d : 0).
template <int kTransB>
__device__ __forceinline__ void wgmma_m64n64k16_ss(float (&d)[32], std::uint64_t desc_a, std::uint64_t desc_b,
                                                 int scale_d) {
  static_assert(kTransB == 0 || kTransB == 1, "wgmma: the transpose flag is 0 or 1");
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
      "}, %32, %33, p, 1, 1, 0, %35;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(kTransB));
}

/// wgmma m64n128k16, bf16 x bf16 -> fp32, both operands in shared memory: d (64 x 128: 64 registers
/// per thread) = A (64 x 16, `desc_a`, K-major) x B (16 x 128, `desc_b`; kTransB = 0: K-major, rows of
/// B^T; 1: MN-major, rows of B) + (scale_d ? d : 0).
template <int kTransB>
__device__ __forceinline__ void wgmma_m64n128k16_ss(float (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b,
                                                  int scale_d) {
  static_assert(kTransB == 0 || kTransB == 1, "wgmma: the transpose flag is 0 or 1");
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, %64, %65, p, 1, 1, 0, %67;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(kTransB));
}

/// wgmma m64n176k16, bf16 x bf16 -> fp32, both operands in shared memory: d (64 x 176: 88 registers
/// per thread) = A (64 x 16, `desc_a`, K-major) x B (16 x 176, `desc_b`; kTransB as above) +
/// (scale_d ? d : 0). (n may be any multiple of 8 up to 256 for bf16; chapter 08's v11 uses 176.)
template <int kTransB>
__device__ __forceinline__ void wgmma_m64n176k16_ss(float (&d)[88], std::uint64_t desc_a, std::uint64_t desc_b,
                                                  int scale_d) {
  static_assert(kTransB == 0 || kTransB == 1, "wgmma: the transpose flag is 0 or 1");
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %90, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n176k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87"
      "}, %88, %89, p, 1, 1, 0, %91;\n}\n"
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
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(kTransB));
}

/// wgmma m64n256k16, bf16 x bf16 -> fp32, both operands in shared memory: d (64 x 256: 128 registers
/// per thread) = A (64 x 16, `desc_a`, K-major) x B (16 x 256, `desc_b`; kTransB = 0: K-major, rows of
/// B^T; 1: MN-major, rows of B) + (scale_d ? d : 0).
template <int kTransB>
__device__ __forceinline__ void wgmma_m64n256k16_ss(float (&d)[128], std::uint64_t desc_a, std::uint64_t desc_b,
                                                  int scale_d) {
  static_assert(kTransB == 0 || kTransB == 1, "wgmma: the transpose flag is 0 or 1");
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
      "}, %128, %129, p, 1, 1, 0, %131;\n}\n"
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
      : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(kTransB));
}

/// wgmma m64n64k16, bf16 x bf16 -> fp32, A from registers: d (64 x 64: 32 registers per thread)
/// = A (64 x 16, `a`: four registers of two bf16, the layout of mma.sync's m16n8k16 A fragment for
/// each warp's 16 rows) x B (16 x 64, `desc_b`, kTransB as in the shared-memory form) + (scale_d ? d : 0).
template <int kTransB>
__device__ __forceinline__ void wgmma_m64n64k16_rs(float (&d)[32], const std::uint32_t (&a)[4], std::uint64_t desc_b,
                                                  int scale_d) {
  static_assert(kTransB == 0 || kTransB == 1, "wgmma: the transpose flag is 0 or 1");
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
      "}, {%32, %33, %34, %35}, %36, p, 1, 1, %38;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d), "n"(kTransB));
}

/// wgmma m64n128k16, bf16 x bf16 -> fp32, A from registers: d (64 x 128: 64 registers per thread)
/// = A (64 x 16, `a`: four registers of two bf16, the layout of mma.sync's m16n8k16 A fragment for
/// each warp's 16 rows) x B (16 x 128, `desc_b`, kTransB as in the shared-memory form) + (scale_d ? d : 0).
template <int kTransB>
__device__ __forceinline__ void wgmma_m64n128k16_rs(float (&d)[64], const std::uint32_t (&a)[4], std::uint64_t desc_b,
                                                  int scale_d) {
  static_assert(kTransB == 0 || kTransB == 1, "wgmma: the transpose flag is 0 or 1");
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, {%64, %65, %66, %67}, %68, p, 1, 1, %70;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d), "n"(kTransB));
}

/// wgmma m64n256k8, tf32 x tf32 -> fp32, A from registers: d (64 x 256: 128 registers per thread) =
/// A (64 x 8, `a`: four fp32 registers read as TF32, the layout of mma.sync's m16n8k8 TF32 A
/// fragment for each warp's 16 rows: a[0] = (row g, col t), a[1] = (row g+8, col t), a[2] = (row
/// g, col t+4), a[3] = (row g+8, col t+4)) x B (8 x 256, `desc_b`, K-major: TF32 has no transposed
/// form) + (scale_d ? d : 0). The tensor core reads the top 19 bits of each fp32 value (sign,
/// exponent, 10 mantissa bits): inputs not already TF32 are truncated.
__device__ __forceinline__ void wgmma_m64n256k8_tf32_rs(float (&d)[128], const std::uint32_t (&a)[4],
                                                        std::uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
      "}, {%128, %129, %130, %131}, %132, p, 1, 1;\n}\n"
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
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
}

/// wgmma m64n128k8, tf32 x tf32 -> fp32, A from registers: wgmma_m64n256k8_tf32_rs() for a 64 x
/// 128 tile (64 accumulator registers per thread).
__device__ __forceinline__ void wgmma_m64n128k8_tf32_rs(float (&d)[64], const std::uint32_t (&a)[4],
                                                        std::uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, {%64, %65, %66, %67}, %68, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
}

/// wgmma m64n64k8, tf32 x tf32 -> fp32, A from registers: wgmma_m64n256k8_tf32_rs() for a 64 x 64
/// tile (32 accumulator registers per thread).
__device__ __forceinline__ void wgmma_m64n64k8_tf32_rs(float (&d)[32], const std::uint32_t (&a)[4],
                                                       std::uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
      "}, {%32, %33, %34, %35}, %36, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
}
// [wgmma]
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
/// Arrives at named barrier `id` without waiting: counts this warp's threads toward the
/// `threads` that release the threads waiting there (named_barrier_sync()), a signal.
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
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

#endif  // TUT_SM90A

/// Writes 1 if this kernel was compiled for sm_90a (so the Hopper steps' kernels are real), else 0.
template <int kUnused>
__global__ void sm90a_probe(int* out) {
  *out = TUT_SM90A + kUnused;
}

/// Why this GPU and this build cannot run the Hopper steps ("" if they can): a compute
/// capability other than 9.0 (wgmma exists on sm_90 only), a build without sm_90a code, or a
/// driver without cuTensorMapEncodeTiled. Probed once per process. (A template only so that the
/// probe kernel is compiled into the files that call it, not into every file that includes this.)
template <int kUnused = 0>
std::string unavailable() {
  const int cc = tut::current_cc();
  if (cc < 90) return "needs sm_90a (wgmma, TMA), this GPU is sm_" + std::to_string(cc);
  if (cc != 90) return "wgmma exists only on sm_90 (Hopper); this GPU is sm_" + std::to_string(cc);
  static const std::string reason = [] {
    int* flag = nullptr;
    CUDA_CHECK(cudaMalloc(&flag, sizeof(int)));
    CUDA_CHECK(cudaMemset(flag, 0, sizeof(int)));
    sm90a_probe<kUnused><<<1, 1>>>(flag);
    const cudaError_t launched = cudaGetLastError();
    int value = 0;
    if (launched == cudaSuccess) CUDA_CHECK(cudaMemcpy(&value, flag, sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(flag));
    if (launched != cudaSuccess) return std::string("no kernel image for this GPU in this build");
    if (value != 1) return std::string("this build has no sm_90a code (set CMAKE_CUDA_ARCHITECTURES to 90a)");
    if (tut::encode_tiled() == nullptr) return std::string("the CUDA driver does not provide cuTensorMapEncodeTiled");
    return std::string();
  }();
  return reason;
}

}  // namespace tut::sm90
