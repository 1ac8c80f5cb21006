#include "common/tensor_map.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "common/check.hpp"

namespace tut {

EncodeTiled encode_tiled() {
  static const EncodeTiled fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found);
#else
    const cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &p, cudaEnableDefault, &found);
#endif
    if (e != cudaSuccess) cudaGetLastError();  // do not leave the error for the next CUDA_CHECK_LAUNCH
    return e == cudaSuccess && found == cudaDriverEntryPointSuccess ? reinterpret_cast<EncodeTiled>(p) : nullptr;
  }();
  return fn;
}

CUtensorMap encode_tiled_map(const char* who, CUtensorMapDataType type, cuuint32_t rank, const void* base,
                             const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box,
                             const cuuint32_t* element_strides, CUtensorMapSwizzle swizzle,
                             CUtensorMapL2promotion promotion) {
  const EncodeTiled encode = encode_tiled();
  if (encode == nullptr) {
    throw std::runtime_error(std::string(who) + ": the CUDA driver does not provide cuTensorMapEncodeTiled");
  }
  CUtensorMap map;
  const CUresult r = encode(&map, type, rank, const_cast<void*>(base), dims, strides, box, element_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    throw CudaError(format_call_error(__FILE__, __LINE__, "cuTensorMapEncodeTiled",
                                      std::string(who) + ": CUresult " + std::to_string(static_cast<int>(r))));
  }
  return map;
}

}  // namespace tut
