/// @file
/// @brief The driver's cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col (TMA descriptors),
/// fetched through the runtime.
///
/// Tensor maps are made by *driver* API functions. The programs link only the CUDA runtime, so
/// they start (and report their TMA steps as skipped) where the driver lacks the function; the
/// runtime hands out the driver's entry point by name. Used by chapter 05 (transpose, v8-v10),
/// chapter 06 (gemm, v12-v17), chapter 07 (conv2d, v11: the im2col map) and chapter 08 (attention, v7).
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

/// cuTensorMapEncodeIm2col's signature (the CUDA 12.0 ABI, PFN_cuTensorMapEncodeIm2col_v12000).
using EncodeIm2col = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                  const cuuint64_t*, const int*, const int*, cuuint32_t, cuuint32_t,
                                  const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                  CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/// The driver's cuTensorMapEncodeIm2col, looked up once; null if the driver does not provide it.
EncodeIm2col encode_im2col();

/// An im2col tensor map of the `rank`-dimensional channels-last tensor at `base` (dims and byte
/// strides as for encode_tiled_map(), innermost first: C, W, H, N for NHWC). A load brings
/// `pixels` pixels of `channels` channels each: the pixels are walked in the order of the tensor
/// (W fastest, then H, then N), `element_strides` apart, inside the bounding box that starts
/// `lower` after the first pixel of each spatial dimension and ends `upper` after its last
/// (innermost first: W, H); a load's offsets shift every pixel it reads, and what lies outside
/// the tensor arrives as zeros. Throws like encode_tiled_map().
CUtensorMap encode_im2col_map(const char* who, CUtensorMapDataType type, cuuint32_t rank, const void* base,
                              const cuuint64_t* dims, const cuuint64_t* strides, const int* lower, const int* upper,
                              cuuint32_t channels, cuuint32_t pixels, const cuuint32_t* element_strides,
                              CUtensorMapSwizzle swizzle, CUtensorMapL2promotion promotion);

}  // namespace tut
