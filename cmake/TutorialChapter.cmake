# tutorial_add_chapter(): the one CMake helper that adds a chapter.
#
#   tutorial_add_chapter(NAME <name>
#     SOURCES <files...>           chapter library: CPU reference, one file per version, registry
#     MAIN <file>                  the executable's main()
#     CPU_TESTS <files...>         Catch2 tests that need no GPU (references, models)
#     GPU_TESTS <files...>         Catch2 tests of every version over the size sweep
#     EXERCISE <file>              file name inside exercises/NN_name/ and solutions/NN_name/
#     EXERCISE_TESTS <files...>    one test source, built once against each of the two
#     EXERCISE_SYMBOLS <names...>  entry points the exercise defines (each starts with exercise_)
#     LIBRARIES <targets...>)      extra libraries (CUDA::cublas, ...)
#     BAD_ARGS <"args"...>         extra command lines that must exit with status 2, e.g. "--n 0"
#     HUGE_ARGS <"args"...>        problems too large for any GPU: exit 2 (skipped without a GPU)
#
# Every chapter also gets CLI tests: --help and --list exit 0; an unknown flag, an unknown
# version, --reps 0 and a missing value exit 2 with one line on stderr.
# It creates the executable <name>, the library <name>_lib, and the test executables
# test_<name>_cpu, test_<name>_gpu, test_<name>_exercise, test_<name>_solution, registered with
# CTest under the labels <name>; cpu|gpu; versions|exercise|solution (plus `large` and `slow`, see
# below). GPU tests exit with 77
# (CTest SKIP_RETURN_CODE) when there is no CUDA device, so they show as skipped, not passed.
#
# TUTORIAL_EXERCISES_DIR points the exercise targets at another copy of exercises/ (the grader
# builds each student's folder this way); solutions always come from solutions/.

set(TUTORIAL_EXERCISES_DIR "${PROJECT_SOURCE_DIR}/exercises" CACHE PATH
    "Folder holding the exercise sources (a copy of exercises/)")
set(TUTORIAL_GPU_TEST_TIMEOUT 900 CACHE STRING "CTest timeout of one GPU test executable (s)")

function(tutorial_add_chapter)
  cmake_parse_arguments(CH "" "NAME;MAIN;EXERCISE"
    "SOURCES;CPU_TESTS;GPU_TESTS;EXERCISE_TESTS;EXERCISE_SYMBOLS;LIBRARIES;BAD_ARGS;HUGE_ARGS" ${ARGN})
  if(NOT CH_NAME)
    message(FATAL_ERROR "tutorial_add_chapter: NAME is required")
  endif()
  get_filename_component(chapter_dir "${CMAKE_CURRENT_SOURCE_DIR}" NAME)   # e.g. 01_elementwise

  # The chapter library: everything but main and the tests.
  add_library(${CH_NAME}_lib STATIC ${CH_SOURCES})
  target_include_directories(${CH_NAME}_lib PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}")
  target_link_libraries(${CH_NAME}_lib PUBLIC tutorial_common ${CH_LIBRARIES})
  tutorial_set_warnings(${CH_NAME}_lib)

  set(exercise_src "")
  set(solution_src "")
  if(CH_EXERCISE)
    set(exercise_src "${TUTORIAL_EXERCISES_DIR}/${chapter_dir}/${CH_EXERCISE}")
    set(solution_src "${PROJECT_SOURCE_DIR}/solutions/${chapter_dir}/${CH_EXERCISE}")
    # In the chapter executable both the student's exercise and the solution are linked, so
    # the solution's entry points are renamed exercise_* -> solution_* (the source is unchanged).
    add_library(${CH_NAME}_solution_obj OBJECT "${solution_src}")
    target_link_libraries(${CH_NAME}_solution_obj PRIVATE ${CH_NAME}_lib)
    foreach(sym IN LISTS CH_EXERCISE_SYMBOLS)
      string(REGEX REPLACE "^exercise_" "solution_" renamed "${sym}")
      if(renamed STREQUAL sym)
        message(FATAL_ERROR "tutorial_add_chapter: exercise symbol '${sym}' must start with exercise_")
      endif()
      target_compile_definitions(${CH_NAME}_solution_obj PRIVATE "${sym}=${renamed}")
    endforeach()
    add_library(${CH_NAME}_exercise_obj OBJECT "${exercise_src}")
    target_link_libraries(${CH_NAME}_exercise_obj PRIVATE ${CH_NAME}_lib)
  endif()

  # The executable students run.
  add_executable(${CH_NAME} ${CH_MAIN})
  target_link_libraries(${CH_NAME} PRIVATE ${CH_NAME}_lib)
  if(CH_EXERCISE)
    target_sources(${CH_NAME} PRIVATE $<TARGET_OBJECTS:${CH_NAME}_exercise_obj>
                                      $<TARGET_OBJECTS:${CH_NAME}_solution_obj>)
    target_compile_definitions(${CH_NAME} PRIVATE TUT_HAVE_EXERCISE=1)
  endif()
  tutorial_set_warnings(${CH_NAME})
  set_property(GLOBAL APPEND PROPERTY TUTORIAL_CHAPTER_TARGETS ${CH_NAME})

  # Command-line behaviour (needs no GPU, except the too-large-for-memory cases).
  # Each case is "<expected status>|<arguments separated by spaces>".
  set(cli_cases "0|--help" "0|--list" "2|--frobnicate" "2|--version no_such_version" "2|--reps 0" "2|--json")
  foreach(args IN LISTS CH_BAD_ARGS)
    list(APPEND cli_cases "2|${args}")
  endforeach()
  set(i 0)
  foreach(case IN LISTS cli_cases)
    string(FIND "${case}" "|" bar)
    string(SUBSTRING "${case}" 0 ${bar} expect)
    math(EXPR bar "${bar} + 1")
    string(SUBSTRING "${case}" ${bar} -1 args)
    separate_arguments(args UNIX_COMMAND "${args}")
    add_test(NAME ${CH_NAME}_cli_${i} COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${CH_NAME}>
             "-DARGS=${args}" -DEXPECT=${expect} -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
    set_tests_properties(${CH_NAME}_cli_${i} PROPERTIES LABELS "${CH_NAME};cpu;cli")
    math(EXPR i "${i} + 1")
  endforeach()
  foreach(args IN LISTS CH_HUGE_ARGS)
    separate_arguments(args UNIX_COMMAND "${args}")
    add_test(NAME ${CH_NAME}_cli_${i} COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${CH_NAME}>
             "-DARGS=${args}" -DEXPECT=2 -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
    set_tests_properties(${CH_NAME}_cli_${i} PROPERTIES LABELS "${CH_NAME};gpu;cli"
                         SKIP_REGULAR_EXPRESSION "no usable CUDA device")
    math(EXPR i "${i} + 1")
  endforeach()

  if(NOT TUT_HAVE_CATCH2)
    return()
  endif()

  # CPU tests: always run.
  if(CH_CPU_TESTS)
    tutorial_add_test_executable(test_${CH_NAME}_cpu cpu ${CH_NAME}_lib "${CH_CPU_TESTS}")
    add_test(NAME ${CH_NAME}_cpu COMMAND test_${CH_NAME}_cpu)
    set_tests_properties(${CH_NAME}_cpu PROPERTIES LABELS "${CH_NAME};cpu")
  endif()

  # GPU tests of every version: the sweep; separately the [large] case (> 2^31 elements); and
  # separately the Catch2 test cases tagged [slow] (every candidate of a tuning search, exhaustive
  # sweeps), under the CTest label `slow`, which the default test preset leaves out (students'
  # test runs stay under a minute per chapter) and tools/device_check.sh runs.
  if(CH_GPU_TESTS)
    tutorial_add_test_executable(test_${CH_NAME}_gpu gpu ${CH_NAME}_lib "${CH_GPU_TESTS}")
    add_test(NAME ${CH_NAME}_gpu COMMAND test_${CH_NAME}_gpu "~[large]~[slow]")
    add_test(NAME ${CH_NAME}_gpu_large COMMAND test_${CH_NAME}_gpu "[large]")
    set_tests_properties(${CH_NAME}_gpu PROPERTIES
      LABELS "${CH_NAME};gpu;versions" SKIP_RETURN_CODE 77 TIMEOUT ${TUTORIAL_GPU_TEST_TIMEOUT})
    # Large cases take tens of GiB: never two at once.
    set_tests_properties(${CH_NAME}_gpu_large PROPERTIES
      LABELS "${CH_NAME};gpu;versions;large" SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
      TIMEOUT ${TUTORIAL_GPU_TEST_TIMEOUT})
    # The slow test exists only where a GPU test source has a [slow] case.
    set(has_slow FALSE)
    foreach(src IN LISTS CH_GPU_TESTS)
      file(READ "${CMAKE_CURRENT_SOURCE_DIR}/${src}" text)
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/${src}")
      string(FIND "${text}" "[slow]" at)
      if(at GREATER -1)
        set(has_slow TRUE)
      endif()
    endforeach()
    if(has_slow)
      add_test(NAME ${CH_NAME}_gpu_slow COMMAND test_${CH_NAME}_gpu "[slow]~[large]")
      set_tests_properties(${CH_NAME}_gpu_slow PROPERTIES
        LABELS "${CH_NAME};gpu;versions;slow" SKIP_RETURN_CODE 77 TIMEOUT ${TUTORIAL_GPU_TEST_TIMEOUT})
    endif()
  endif()

  # The exercise and its solution, checked by the same test source.
  if(CH_EXERCISE AND CH_EXERCISE_TESTS)
    foreach(which exercise solution)
      set(src "${${which}_src}")
      tutorial_add_test_executable(test_${CH_NAME}_${which} gpu ${CH_NAME}_lib
                                   "${CH_EXERCISE_TESTS};${src}")
      target_compile_definitions(test_${CH_NAME}_${which} PRIVATE
        TUT_SUBMISSION_KIND="${which}" TUT_SUBMISSION_FILE="${src}")
      add_test(NAME ${CH_NAME}_${which} COMMAND test_${CH_NAME}_${which})
      set_tests_properties(${CH_NAME}_${which} PROPERTIES
        LABELS "${CH_NAME};gpu;${which}" SKIP_RETURN_CODE 77 TIMEOUT ${TUTORIAL_GPU_TEST_TIMEOUT})
    endforeach()
  endif()
endfunction()

# A Catch2 test executable; KIND is cpu or gpu (the gpu main skips with 77 without a device).
function(tutorial_add_test_executable target kind chapter_lib sources)
  add_executable(${target} ${sources})
  target_link_libraries(${target} PRIVATE ${chapter_lib} tutorial_test_main_${kind})
  tutorial_set_warnings(${target})
endfunction()
