/// @file
/// @brief The driver's cuTensorMapEncodeTiled (TMA descriptors), fetched through the runtime.
///
/// Tensor maps are made by a *driver* API function. The programs link only the CUDA runtime, so
/// they start (and report their TMA steps as skipped) where the driver lacks the function; the
/// runtime hands out the driver's entry point by name. Used by chapter 05 (transpose, v8-v10),
/// chapter 06 (gemm, v12-v17) and chapter 08 (attention, v7).
#pragma once

#include <cuda.h>  // CUtensorMap and its enums (types only: nothing from libcuda is linked)

namespace tut {

/// cuTensorMapEncodeTiled's signature (the CUDA 12.0 ABI, PFN_cuTensorMapEncodeTiled_v12000).
using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/// The driver's cuTensorMapEncodeTiled, looked up once; null if the driver does not provide it.
EncodeTiled encode_tiled();

/// A tiled tensor map of the `rank`-dimensional tensor at `base` (dims, byte strides of every
/// dimension but the innermost, box and element strides innermost first; no interleave; loads
/// fill what lies outside the tensor with zeros). Throws std::runtime_error naming `who` where
/// the driver lacks cuTensorMapEncodeTiled, and tut::CudaError with the CUresult where it
/// refuses the arguments.
CUtensorMap encode_tiled_map(const char* who, CUtensorMapDataType type, cuuint32_t rank, const void* base,
                             const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box,
                             const cuuint32_t* element_strides, CUtensorMapSwizzle swizzle,
                             CUtensorMapL2promotion promotion);

}  // namespace tut
