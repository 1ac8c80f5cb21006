# Script mode: runs `ptxas -v` on one PTX file and writes everything it printed to LOG.
#   cmake -DPTXAS=... -DPTX=file.ptx -DLOG=file.ptxas.txt -DARCH=sm_90a -P run_ptxas.cmake
if(NOT PTXAS)
  message(FATAL_ERROR "run_ptxas.cmake: ptxas not found (it ships with the CUDA toolkit)")
endif()
execute_process(
  COMMAND "${PTXAS}" -arch=${ARCH} -v "${PTX}" -o "${PTX}.cubin"
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
file(WRITE "${LOG}" "${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ptxas failed on ${PTX}:\n${out}${err}")
endif()
