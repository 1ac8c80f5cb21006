/// @file
/// @brief What the TMA kernels share (v08 and the tuning search's TMA variants): the mbarrier
/// and TMA wrappers of common/hopper_ptx.cuh, two cache-hint variants of its own (sm_90 device
/// code only), and the host side of tensor maps,
/// made with the driver's cuTensorMapEncodeTiled fetched through the runtime (the program never
/// links libcuda, so it still starts, and reports TMA versions as skipped, without a driver).
#pragma once

#include <cuda.h>  // CUtensorMap and its enums (types only: nothing from libcuda is linked)
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "common/check.hpp"
#include "common/hopper_ptx.cuh"
#include "common/tensor_map.hpp"

namespace transpose {

/// The mbarrier and TMA wrappers shared with the gemm and attention chapters
/// (common/hopper_ptx.cuh): kernels here call them as sm90::tma_load() and so on.
namespace sm90 = tut::sm90;

#if TUT_SM90
// What only this chapter uses: L2 cache policies on the loads and stores (the tuning search's
// evict-first variants), one thin wrapper per PTX instruction (PTX ISA 8.0, sm_90).

/// An L2 cache policy (createpolicy): every line it touches is evict-first.
__device__ __forceinline__ std::uint64_t l2_evict_first_policy() {
  std::uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}
/// sm90::tma_load() with an L2 cache policy for the lines it reads.
__device__ __forceinline__ void tma_load_hint(void* dst, const CUtensorMap* map, int x0, int x1, std::uint64_t* bar,
                                              std::uint64_t policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(sm90::shared_u32(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x0), "r"(x1), "r"(sm90::shared_u32(bar)), "l"(policy)
      : "memory");
}
/// sm90::tma_store() with an L2 cache policy for the lines it writes.
__device__ __forceinline__ void tma_store_hint(const CUtensorMap* map, int x0, int x1, const void* src,
                                               std::uint64_t policy) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group.L2::cache_hint [%0, {%1, %2}], [%3], %4;" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(x0), "r"(x1), "r"(sm90::shared_u32(src)), "l"(policy)
               : "memory");
}
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
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(inner), static_cast<cuuint64_t>(outer)};  // innermost first
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(inner) * sizeof(float)};  // bytes between rows
  const cuuint32_t box[2] = {box_inner, box_outer};
  const cuuint32_t element_strides[2] = {1, 1};
  return tut::encode_tiled_map("transpose", CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, base, dims, strides, box,
                               element_strides, CU_TENSOR_MAP_SWIZZLE_NONE, promotion);
}

}  // namespace transpose
