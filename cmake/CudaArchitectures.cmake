# Chooses CMAKE_CUDA_ARCHITECTURES before project() enables CUDA.
#
# - If the user set CMAKE_CUDA_ARCHITECTURES (or the CUDAARCHS environment variable), keep it.
# - Else, if nvidia-smi reports a GPU, build for that GPU only (fast builds, native code).
#   Hopper (9.0) becomes "90a" so that the wgmma/TMA steps are compiled too.
# - Else (no GPU, e.g. CI): "75;90a". 75 is the floor for ordinary versions; 90a compiles every
#   tensor-core (sm_80) and Hopper-only (sm_90a) step, so CI compiles every version.
if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
  return()
endif()

set(_tut_default_archs "75;90a")
find_program(TUT_NVIDIA_SMI nvidia-smi)
if(TUT_NVIDIA_SMI)
  execute_process(
    COMMAND "${TUT_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
    OUTPUT_VARIABLE _tut_caps RESULT_VARIABLE _tut_rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(_tut_rc EQUAL 0 AND _tut_caps MATCHES "^([0-9]+)\\.([0-9]+)")
    set(_tut_arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
    if(_tut_arch STREQUAL "90")
      set(_tut_arch "90a")
    endif()
    message(STATUS "CUDA architectures: local GPU (compute capability ${CMAKE_MATCH_1}.${CMAKE_MATCH_2}) -> ${_tut_arch}")
    set(CMAKE_CUDA_ARCHITECTURES "${_tut_arch}" CACHE STRING "CUDA architectures to build for")
    return()
  endif()
endif()
message(STATUS "CUDA architectures: no GPU found, using the default ${_tut_default_archs}")
set(CMAKE_CUDA_ARCHITECTURES "${_tut_default_archs}" CACHE STRING "CUDA architectures to build for")
