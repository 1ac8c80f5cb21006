#include "common/tensor_map.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "common/check.hpp"

namespace tut {

namespace {

/// The driver function `name` of the CUDA 12.0 ABI, or null where the driver lacks it.
void* driver_entry_point(const char* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  const cudaError_t e = cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &found);
#else
  const cudaError_t e = cudaGetDriverEntryPoint(name, &p, cudaEnableDefault, &found);
#endif
  if (e != cudaSuccess) cudaGetLastError();  // do not leave the error for the next CUDA_CHECK_LAUNCH
  return e == cudaSuccess && found == cudaDriverEntryPointSuccess ? p : nullptr;
}

/// Throws, naming `who`, where the driver lacks `encoder` (`fn` is null) or refused the arguments.
void check_encoded(const char* who, const char* encoder, const void* fn, CUresult r) {
  if (fn == nullptr) throw std::runtime_error(std::string(who) + ": the CUDA driver does not provide " + encoder);
  if (r != CUDA_SUCCESS) {
    throw CudaError(format_call_error(__FILE__, __LINE__, encoder,
                                      std::string(who) + ": CUresult " + std::to_string(static_cast<int>(r))));
  }
}

}  // namespace

EncodeTiled encode_tiled() {
  static const EncodeTiled fn = reinterpret_cast<EncodeTiled>(driver_entry_point("cuTensorMapEncodeTiled"));
  return fn;
}

EncodeIm2col encode_im2col() {
  static const EncodeIm2col fn = reinterpret_cast<EncodeIm2col>(driver_entry_point("cuTensorMapEncodeIm2col"));
  return fn;
}

CUtensorMap encode_tiled_map(const char* who, CUtensorMapDataType type, cuuint32_t rank, const void* base,
                             const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box,
                             const cuuint32_t* element_strides, CUtensorMapSwizzle swizzle,
                             CUtensorMapL2promotion promotion) {
  const EncodeTiled encode = encode_tiled();
  CUtensorMap map{};
  const CUresult r = encode == nullptr ? CUDA_ERROR_NOT_SUPPORTED
                                       : encode(&map, type, rank, const_cast<void*>(base), dims, strides, box,
                                                element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, promotion,
                                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  check_encoded(who, "cuTensorMapEncodeTiled", reinterpret_cast<const void*>(encode), r);
  return map;
}

CUtensorMap encode_im2col_map(const char* who, CUtensorMapDataType type, cuuint32_t rank, const void* base,
                              const cuuint64_t* dims, const cuuint64_t* strides, const int* lower, const int* upper,
                              cuuint32_t channels, cuuint32_t pixels, const cuuint32_t* element_strides,
                              CUtensorMapSwizzle swizzle, CUtensorMapL2promotion promotion) {
  const EncodeIm2col encode = encode_im2col();
  CUtensorMap map{};
  const CUresult r = encode == nullptr ? CUDA_ERROR_NOT_SUPPORTED
                                       : encode(&map, type, rank, const_cast<void*>(base), dims, strides, lower, upper,
                                                channels, pixels, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                                swizzle, promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  check_encoded(who, "cuTensorMapEncodeIm2col", reinterpret_cast<const void*>(encode), r);
  return map;
}

}  // namespace tut
