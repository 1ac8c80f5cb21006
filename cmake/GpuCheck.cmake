# Is there an NVIDIA GPU to run the chapters on? Used two ways:
#
# - included by the top-level CMakeLists.txt at every configure: sets TUT_GPU_FOUND and, when
#   there is no GPU, says so once, with what that means for the `run` and `test` workflows;
# - as a script, `cmake -P cmake/GpuCheck.cmake`: the `check_gpu` target, the first build step
#   of `cmake --workflow --preset run`, which thus stops before building anything when there is
#   no GPU (the chapters would only build for minutes and then say "no usable CUDA device").
#
# "A GPU" here: `nvidia-smi -L` lists one, or, without nvidia-smi, an NVIDIA device node exists
# (/dev/nvidia0, or /dev/dxg under WSL). The chapters' own check (the CUDA runtime, in
# common/device_info.cu) stays the one that counts; this one only spares a useless build.

function(tut_find_gpu found_var why_var)
  find_program(TUT_NVIDIA_SMI nvidia-smi)
  if(TUT_NVIDIA_SMI)
    execute_process(COMMAND "${TUT_NVIDIA_SMI}" -L
                    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_STRIP_TRAILING_WHITESPACE)
    if(rc EQUAL 0 AND out MATCHES "GPU [0-9]+: ([^\n]*)")
      set(${found_var} TRUE PARENT_SCOPE)
      set(${why_var} "${CMAKE_MATCH_1}" PARENT_SCOPE)
      return()
    endif()
    string(REGEX REPLACE "\n.*" "" first_line "${out}${err}")
    if(NOT first_line)
      set(first_line "no output, status ${rc}")
    endif()
    set(${found_var} FALSE PARENT_SCOPE)
    set(${why_var} "nvidia-smi lists no GPU: ${first_line}" PARENT_SCOPE)
    return()
  endif()
  if(EXISTS "/dev/nvidia0" OR EXISTS "/dev/dxg")
    set(${found_var} TRUE PARENT_SCOPE)
    set(${why_var} "an NVIDIA device node (no nvidia-smi)" PARENT_SCOPE)
  else()
    set(${found_var} FALSE PARENT_SCOPE)
    set(${why_var} "no nvidia-smi and no /dev/nvidia0: no NVIDIA driver or GPU on this machine" PARENT_SCOPE)
  endif()
endfunction()

tut_find_gpu(_tut_gpu_found _tut_gpu_why)

if(CMAKE_SCRIPT_MODE_FILE)
  # The `check_gpu` target.
  if(NOT _tut_gpu_found)
    message(NOTICE "no usable CUDA device (${_tut_gpu_why}).\n"
                   "Running the chapters needs an NVIDIA GPU. Without one, build and run the tests instead "
                   "(the GPU tests are reported as skipped): cmake --workflow --preset test")
    message(FATAL_ERROR "no usable CUDA device: stopping before the build")
  endif()
  message(STATUS "GPU: ${_tut_gpu_why}")
  return()
endif()

set(TUT_GPU_FOUND ${_tut_gpu_found})
if(TUT_GPU_FOUND)
  message(STATUS "GPU: ${_tut_gpu_why}")
else()
  message(NOTICE
    "-- No NVIDIA GPU found (${_tut_gpu_why}).\n"
    "   Everything builds and the CPU tests run; the GPU tests will be reported as skipped.\n"
    "   Running the chapters needs a GPU: `cmake --workflow --preset run` stops right after this\n"
    "   configure step, before building, with \"no usable CUDA device\".")
endif()
