# Script mode (CTest test gemm_sass): disassembles the gemm executable with cuobjdump and checks
# that the tensor-core kernels (gemm_v10_wmma_tf32, gemm_v11_mma_bf16) contain HMMA (and v11 also
# LDSM, i.e. ldmatrix), that the Hopper steps' sm_90a kernels (gemm_v12_tma_wgmma for v12-v13,
# gemm_v14_warp_specialized for v14-v20) contain HGMMA (wgmma) and neither HMMA nor LDSM, and that
# the fp32 kernels (gemm_v00_naive ... gemm_v07_pipelined) contain FFMA and no HMMA, for every
# sm_80+ architecture in the binary. The search's candidates are in bin/gemm_tune, not checked here.
#   cmake -DBINARY=build/bin/gemm -DCUDA_BIN=/usr/local/cuda/bin -P check_sass.cmake
find_program(CUOBJDUMP cuobjdump HINTS "${CUDA_BIN}" /usr/local/cuda/bin)
if(NOT CUOBJDUMP)
  message("SKIPPED: cuobjdump not found (it ships with the CUDA toolkit on the GPU machine)")
  return()
endif()
# The dump, reduced to the tokens we care about, in order:
#   "code for sm_90a" / "Function : <mangled name>" / HMMA / HGMMA / FFMA / LDSM
# With grep and uniq (any Linux), the reduction happens in a pipe and repeated tokens collapse
# (a kernel's thousands of FFMA become one), so CMake loops over a few thousand tokens, not over
# the whole dump. The dump itself took ~20 s for this binary on the H100 machine when every tuning
# candidate was in it: the test is in the `slow` label.
set(pattern "code for sm_[0-9]+[a-z]?|Function : [A-Za-z0-9_]+|HGMMA|HMMA|FFMA|LDSM")
find_program(GREP grep)
find_program(UNIQ uniq)
if(GREP AND UNIQ)
  execute_process(COMMAND "${CUOBJDUMP}" --dump-sass "${BINARY}" COMMAND "${GREP}" -oE "${pattern}" COMMAND "${UNIQ}"
                  OUTPUT_VARIABLE listed ERROR_VARIABLE err RESULTS_VARIABLE rcs)
  list(GET rcs 0 rc)
  string(REPLACE "\n" ";" tokens "${listed}")
else()
  execute_process(COMMAND "${CUOBJDUMP}" --dump-sass "${BINARY}" OUTPUT_VARIABLE sass ERROR_VARIABLE err RESULT_VARIABLE rc)
  string(REGEX MATCHALL "${pattern}" tokens "${sass}")
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cuobjdump --dump-sass ${BINARY} failed: ${err}")
endif()
set(arch "")
set(fn "")
set(functions "")
foreach(tok IN LISTS tokens)
  if(tok MATCHES "^code for sm_([0-9]+)")
    set(arch "${CMAKE_MATCH_1}")
  elseif(tok MATCHES "^Function : (.+)$")
    set(fn "${CMAKE_MATCH_1}__sm_${arch}")
    list(APPEND functions "${fn}")
    set(have_${fn}_HMMA 0)
    set(have_${fn}_HGMMA 0)
    set(have_${fn}_FFMA 0)
    set(have_${fn}_LDSM 0)
    set(arch_${fn} "${arch}")
  elseif(NOT fn STREQUAL "")
    set(have_${fn}_${tok} 1)
  endif()
endforeach()

set(failures "")
set(checked_tc 0)
set(checked_fp32 0)
set(checked_hopper 0)
set(have_sm90 0)
foreach(fn IN LISTS functions)
  if(arch_${fn} LESS 80)
    continue()  # tensor-core kernels are traps below sm_80
  endif()
  if(arch_${fn} EQUAL 90)
    set(have_sm90 1)
  endif()
  if(fn MATCHES "gemm_v12_tma_wgmma|gemm_v14_warp_specialized|gemm_v21_wgmma_tf32")
    if(NOT arch_${fn} EQUAL 90)
      continue()  # wgmma exists only in the sm_90a code; elsewhere these kernels are traps
    endif()
    math(EXPR checked_hopper "${checked_hopper} + 1")
    if(NOT have_${fn}_HGMMA)
      list(APPEND failures "${fn}: no HGMMA instruction (wgmma unused)")
    endif()
    if(have_${fn}_HMMA OR have_${fn}_LDSM)
      list(APPEND failures "${fn}: a wgmma kernel contains HMMA or LDSM (mma.sync / ldmatrix)")
    endif()
    message(STATUS "${fn}: HGMMA ${have_${fn}_HGMMA}")
  elseif(fn MATCHES "gemm_v10_wmma_tf32|gemm_v11_mma_bf16")
    math(EXPR checked_tc "${checked_tc} + 1")
    if(NOT have_${fn}_HMMA)
      list(APPEND failures "${fn}: no HMMA instruction (tensor cores unused)")
    endif()
    if(fn MATCHES "gemm_v11_mma_bf16" AND NOT have_${fn}_LDSM)
      list(APPEND failures "${fn}: no LDSM (ldmatrix) instruction")
    endif()
    message(STATUS "${fn}: HMMA ${have_${fn}_HMMA}, LDSM ${have_${fn}_LDSM}")
  elseif(fn MATCHES "gemm_v0[0-8]_")  # not gemm_v09_pad_b, a copy kernel
    math(EXPR checked_fp32 "${checked_fp32} + 1")
    if(NOT have_${fn}_FFMA)
      list(APPEND failures "${fn}: no FFMA instruction")
    endif()
    if(have_${fn}_HMMA)
      list(APPEND failures "${fn}: an fp32 (CUDA-core) kernel contains HMMA")
    endif()
  endif()
endforeach()
# v10 and v11's two instantiations (aligned and general).
if(checked_tc LESS 3)
  list(APPEND failures "found ${checked_tc} tensor-core kernels for sm_80+ in ${BINARY} (expected 3: v10, v11 x 2)")
endif()
# v12/v13 (two instantiations of one kernel), v14-v20, v24, v25 and v27 (fifteen of another: v15
# runs v14's configuration, v18 v16's and one of its own, v19, v20 and v24 one of their own each,
# v25 four, v27 four) and v21-v23 (four of the TF32 kernel: v21's, v22's, v23's 128 and 64 rows):
# twenty-one sm_90a wgmma kernels.
if(have_sm90 AND checked_hopper LESS 21)
  list(APPEND failures "found ${checked_hopper} sm_90a wgmma kernels in ${BINARY} (expected 21: v12-v25, v27)")
endif()
if(checked_fp32 EQUAL 0)
  list(APPEND failures "found no fp32 kernel (gemm_v00_naive ... gemm_v07_pipelined) in ${BINARY}")
endif()
if(failures)
  string(REPLACE ";" "\n  " text "${failures}")
  message(FATAL_ERROR "SASS check failed:\n  ${text}")
endif()
message(STATUS "SASS check passed: ${checked_tc} tensor-core kernels with HMMA, ${checked_hopper} with HGMMA, "
               "${checked_fp32} fp32 kernels with FFMA only")
