/// @file
/// @brief The driver's cuTensorMapEncodeTiled (TMA descriptors), fetched through the runtime.
///
/// Tensor maps are made by a *driver* API function. The programs link only the CUDA runtime, so
/// they start (and report their TMA steps as skipped) where the driver lacks the function; the
/// runtime hands out the driver's entry point by name. Used by chapter 05 (transpose, v8-v10)
/// and chapter 06 (gemm, v12-v17).
#pragma once

#include <cuda.h>  // CUtensorMap and its enums (types only: nothing from libcuda is linked)

namespace tut {

/// cuTensorMapEncodeTiled's signature (the CUDA 12.0 ABI, PFN_cuTensorMapEncodeTiled_v12000).
using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/// The driver's cuTensorMapEncodeTiled, looked up once; null if the driver does not provide it.
EncodeTiled encode_tiled();

}  // namespace tut
