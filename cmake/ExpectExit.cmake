# Script mode: runs EXE with ARGS (a ;-list) and requires exit status EXPECT. For EXPECT 2
# (bad command line) it also requires exactly one line on stderr, starting with the program name.
#   cmake -DEXE=path -DARGS="--n;0" -DEXPECT=2 -P ExpectExit.cmake
execute_process(COMMAND "${EXE}" ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL EXPECT)
  message(FATAL_ERROR "expected exit status ${EXPECT}, got ${rc}")
endif()
if(EXPECT EQUAL 2)
  string(STRIP "${err}" err_stripped)
  string(FIND "${err_stripped}" "\n" newline)
  get_filename_component(program "${EXE}" NAME)
  if(NOT newline EQUAL -1 OR NOT err_stripped MATCHES "^${program}: error: ")
    message(FATAL_ERROR "expected one line '${program}: error: ...' on stderr, got:\n${err}")
  endif()
endif()
