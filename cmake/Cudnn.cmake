# cuDNN, optional: chapters that compare with it (softmax, conv2d, attention) call
# tutorial_link_cudnn(<chapter>); without cuDNN their rows say "cuDNN not found".
#
# Looked for once, at include time, in order:
#   1. the CUDA Toolkit (some installs put cudnn.h and libcudnn next to the toolkit's own);
#   2. the nvidia-cudnn Python package that PyTorch installs (pip's nvidia/cudnn/{include,lib},
#      which may hold only libcudnn.so.9, without the unversioned symlink).
# Header and library are always taken from the same place, so their versions match.
# Sets TUT_CUDNN_INCLUDE_DIR and TUT_CUDNN_LIBRARY (empty when not found).
set(TUT_CUDNN_INCLUDE_DIR "")
set(TUT_CUDNN_LIBRARY "")

# Looks for cudnn.h in INCLUDE_DIRS and libcudnn in LIB_DIRS (nowhere else); sets the two
# variables above if both are there and nothing was found before.
function(tut_find_cudnn include_dirs lib_dirs)
  if(TUT_CUDNN_LIBRARY)
    return()
  endif()
  unset(tut_cudnn_h CACHE)
  unset(tut_cudnn_so CACHE)
  find_path(tut_cudnn_h cudnn.h PATHS ${include_dirs} NO_DEFAULT_PATH)
  find_library(tut_cudnn_so NAMES cudnn libcudnn.so.9 PATHS ${lib_dirs} NO_DEFAULT_PATH)
  if(tut_cudnn_h AND tut_cudnn_so)
    set(TUT_CUDNN_INCLUDE_DIR "${tut_cudnn_h}" PARENT_SCOPE)
    set(TUT_CUDNN_LIBRARY "${tut_cudnn_so}" PARENT_SCOPE)
  endif()
  unset(tut_cudnn_h CACHE)
  unset(tut_cudnn_so CACHE)
endfunction()

tut_find_cudnn("${CUDAToolkit_INCLUDE_DIRS}" "${CUDAToolkit_LIBRARY_DIR}")

# The Python package: ask the interpreter CMake found, then `python3` on the PATH.
find_package(Python3 QUIET COMPONENTS Interpreter)
find_program(TUT_PYTHON3_ON_PATH python3)
foreach(python IN ITEMS "${Python3_EXECUTABLE}" "${TUT_PYTHON3_ON_PATH}")
  if(TUT_CUDNN_LIBRARY OR NOT python)
    continue()
  endif()
  execute_process(
    COMMAND "${python}" -c "import nvidia.cudnn as m; print(list(m.__path__)[0])"
    OUTPUT_VARIABLE tut_py_cudnn RESULT_VARIABLE tut_py_rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(tut_py_rc EQUAL 0 AND IS_DIRECTORY "${tut_py_cudnn}")
    tut_find_cudnn("${tut_py_cudnn}/include" "${tut_py_cudnn}/lib")
  endif()
endforeach()

if(TUT_CUDNN_LIBRARY)
  message(STATUS "cuDNN found: ${TUT_CUDNN_LIBRARY} (headers in ${TUT_CUDNN_INCLUDE_DIR})")
else()
  message(STATUS "cuDNN not found (CUDA Toolkit, nvidia-cudnn Python package): cuDNN rows will be skipped")
endif()

# Links <chapter>_lib to cuDNN and defines TUT_HAVE_CUDNN=1 for it, if cuDNN was found. Call it
# after tutorial_add_chapter(). The chapter's executables and tests get cuDNN's folder as their
# run path, so they run without LD_LIBRARY_PATH wherever the library lives (site-packages too).
function(tutorial_link_cudnn chapter)
  if(NOT TUT_CUDNN_LIBRARY)
    return()
  endif()
  target_include_directories(${chapter}_lib PRIVATE "${TUT_CUDNN_INCLUDE_DIR}")
  target_compile_definitions(${chapter}_lib PRIVATE TUT_HAVE_CUDNN=1)
  target_link_libraries(${chapter}_lib PUBLIC "${TUT_CUDNN_LIBRARY}")
  get_filename_component(dir "${TUT_CUDNN_LIBRARY}" DIRECTORY)
  foreach(t ${chapter} ${chapter}_tune test_${chapter}_cpu test_${chapter}_gpu test_${chapter}_exercise
            test_${chapter}_solution)
    if(TARGET ${t})
      set_property(TARGET ${t} APPEND PROPERTY BUILD_RPATH "${dir}")
      set_property(TARGET ${t} APPEND PROPERTY INSTALL_RPATH "${dir}")
    endif()
  endforeach()
endfunction()
