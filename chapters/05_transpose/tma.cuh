/// @file
/// @brief What the TMA kernels share (v8 and the tuning search's TMA variants): one thin
/// wrapper per PTX instruction (sm_90 device code only), and the host side of tensor maps,
/// made with the driver's cuTensorMapEncodeTiled fetched through the runtime (the program never
/// links libcuda, so it still starts, and reports TMA versions as skipped, without a driver).
#pragma once

#include <cuda.h>  // CUtensorMap and its enums (types only: nothing from libcuda is linked)
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "common/check.hpp"
#include "common/tensor_map.hpp"

namespace transpose {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// The PTX instructions used by the TMA kernels, one thin wrapper each (PTX ISA 8.0, sm_90).

/// Shared-memory address (32-bit, .shared window) of a generic pointer to shared memory.
__device__ __forceinline__ std::uint32_t smem(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}
/// mbarrier.init: a barrier that completes a phase after `count` arrivals (plus its transactions).
__device__ __forceinline__ void mbar_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)), "r"(count) : "memory");
}
/// One arrival that also announces `bytes` of transactions (the TMA load's bytes) to wait for.
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(bar)), "r"(bytes) : "memory");
}
/// One mbarrier.try_wait: true if the phase with parity `parity` has completed (the hardware may
/// suspend the thread for a while before answering false).
__device__ __forceinline__ bool mbar_try_wait(std::uint64_t* bar, unsigned parity) {
  std::uint32_t done = 0;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n}"
      : "=r"(done)
      : "r"(smem(bar)), "r"(parity)
      : "memory");
  return done != 0;
}
/// Waits until the barrier's phase with parity `parity` has completed; gives up with a trap (a
/// launch error on the host) after about 2^34 clock cycles (seconds): a pipeline that never
/// completes fails loudly instead of hanging the run.
__device__ __forceinline__ void mbar_wait_or_trap(std::uint64_t* bar, unsigned parity) {
  const long long start = clock64();
  while (!mbar_try_wait(bar, parity)) {
    if (clock64() - start > (1ll << 34)) __trap();
  }
}
/// Orders this thread's shared-memory accesses with those of the async proxy (the TMA unit).
__device__ __forceinline__ void fence_proxy_async_shared() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
/// TMA load of the box at (x0 = innermost coordinate, x1) of `map` into `dst`; completes on `bar`.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int x0, int x1, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          smem(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x0), "r"(x1), "r"(smem(bar))
      : "memory");
}
/// An L2 cache policy (createpolicy): every line it touches is evict-first.
__device__ __forceinline__ std::uint64_t l2_evict_first_policy() {
  std::uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}
/// tma_load_2d() with an L2 cache policy for the lines it reads.
__device__ __forceinline__ void tma_load_2d_hint(void* dst, const CUtensorMap* map, int x0, int x1, std::uint64_t* bar,
                                                 std::uint64_t policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x0), "r"(x1), "r"(smem(bar)), "l"(policy)
      : "memory");
}
/// tma_store_2d() with an L2 cache policy for the lines it writes.
__device__ __forceinline__ void tma_store_2d_hint(const CUtensorMap* map, int x0, int x1, const void* src,
                                                  std::uint64_t policy) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group.L2::cache_hint [%0, {%1, %2}], [%3], %4;" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(x0), "r"(x1), "r"(smem(src)), "l"(policy)
               : "memory");
}
/// TMA store of `src` to the box at (x0, x1) of `map`; parts outside the tensor are not written.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, int x0, int x1, const void* src) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(x0), "r"(x1), "r"(smem(src))
               : "memory");
}
/// Closes the group of bulk stores issued so far by this thread.
__device__ __forceinline__ void bulk_commit_group() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
/// Waits until at most N groups are still reading their shared-memory source.
template <int N>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
/// Waits until every bulk store of this thread has completed (its writes are done).
__device__ __forceinline__ void bulk_wait_group_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
#endif

/// The driver's cuTensorMapEncodeTiled (common/tensor_map.hpp), null if absent.
using tut::encode_tiled;

/// A tensor map of a row-major matrix `outer` x `inner` floats at `base`, in boxes of
/// `box_outer` rows x `box_inner` columns (each at most 256; box_inner x 4 bytes a multiple
/// of 16), no swizzle. Loads fill the parts of a box outside the matrix with zeros; stores skip
/// them. `l2_promotion` (0, 64, 128 or 256 bytes) is the size of the L2 requests a load is
/// widened to.
inline CUtensorMap make_map(const float* base, std::int64_t outer, std::int64_t inner, unsigned box_outer,
                            unsigned box_inner, unsigned l2_promotion = 128) {
  const CUtensorMapL2promotion promotion = l2_promotion == 256   ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                                           : l2_promotion == 64  ? CU_TENSOR_MAP_L2_PROMOTION_L2_64B
                                           : l2_promotion == 0   ? CU_TENSOR_MAP_L2_PROMOTION_NONE
                                                                 : CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  CUtensorMap map;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(inner), static_cast<cuuint64_t>(outer)};  // innermost first
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(inner) * sizeof(float)};  // bytes between rows
  const cuuint32_t box[2] = {box_inner, box_outer};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r = encode_tiled()(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(base), dims, strides,
                                    box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                    promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    throw tut::CudaError(tut::format_call_error(__FILE__, __LINE__, "cuTensorMapEncodeTiled",
                                                "CUresult " + std::to_string(static_cast<int>(r))));
  }
  return map;
}

}  // namespace transpose
