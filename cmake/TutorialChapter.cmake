# tutorial_add_chapter(): the one CMake helper that adds a chapter.
#
#   tutorial_add_chapter(NAME <name>
#     REFERENCE <files...>         the CPU reference (and what it needs): library <name>_reference,
#                                  which the exercise checker links (it never needs the ladder)
#     SOURCES <files...>           the ladder: one file per version, the registry, baselines
#     MAIN <file>                  the executable's main()
#     CPU_TESTS <files...>         Catch2 tests that need no GPU (references, models)
#     GPU_TESTS <files...>         Catch2 tests of every version over the size sweep
#     EXERCISE <file>              file name inside exercises/NN_name/ and solutions/NN_name/
#     EXERCISE_CALL <file>         the runner's side: call_exercise() (common/exercise/runner.hpp)
#     EXERCISE_CHECK <file>        the checker's side: the Exercise (common/exercise/checker.hpp)
#     LIBRARIES <targets...>)      extra libraries of the ladder (CUDA::cublas, ...)
#     BAD_ARGS <"args"...>         extra command lines that must exit with status 2, e.g. "--n 0"
#     HUGE_ARGS <"args"...>        problems too large for any GPU: exit 2 (skipped without a GPU)
#
# Every chapter also gets CLI tests: --help, -h and --list exit 0; an unknown flag, an unknown
# version, --reps 0 and a missing value exit 2 with one line on stderr.
#
# Targets: the executable <name> (the ladder), the libraries <name>_reference and <name>_lib, the
# Catch2 tests test_<name>_cpu and test_<name>_gpu, and the exercise's three programs:
#   exercise_<name>  the runner built from the student's file: the harness, exercise_call and the
#                    exercise file only (no reference, no solution, no cuBLAS/cuDNN);
#   solution_<name>  the same runner built from solutions/NN_name/<file>;
#   check_<name>     the checker: makes the cases, runs a runner in its own process, compares.
# None of them builds the ladder, so a student's loop (python3 tools/exercise.py <name>) compiles
# only the exercise, and a half-written exercise never breaks the chapter's build.
# CTest labels: <name>; cpu|gpu; versions|exercise|solution (plus `large` and `slow`, see below).
# GPU tests exit with 77 (CTest SKIP_RETURN_CODE) when there is no CUDA device, so they show as
# skipped, not passed.
#
# TUTORIAL_EXERCISES_DIR points exercise_<name> at another copy of exercises/ (the grader builds
# each student's folder this way); solutions always come from solutions/.

set(TUTORIAL_EXERCISES_DIR "${PROJECT_SOURCE_DIR}/exercises" CACHE PATH
    "Folder holding the exercise sources (a copy of exercises/)")
set(TUTORIAL_GPU_TEST_TIMEOUT 900 CACHE STRING "CTest timeout of one GPU test executable (s)")
set(TUT_GRADING_LIST "" CACHE FILEPATH "The grader's list of students' files (tools/grader/grade.py sets it)")
set(TUT_GRADING_HIDE "--hide;${PROJECT_SOURCE_DIR}/solutions;--hide;${PROJECT_SOURCE_DIR}/tools/grader/corpus"
    CACHE STRING "tut_isolate's arguments for students' compiles: the folders they must not see")

function(tutorial_add_chapter)
  cmake_parse_arguments(CH "" "NAME;MAIN;EXERCISE;EXERCISE_CALL;EXERCISE_CHECK"
    "REFERENCE;SOURCES;CPU_TESTS;GPU_TESTS;LIBRARIES;BAD_ARGS;HUGE_ARGS" ${ARGN})
  if(NOT CH_NAME)
    message(FATAL_ERROR "tutorial_add_chapter: NAME is required")
  endif()
  get_filename_component(chapter_dir "${CMAKE_CURRENT_SOURCE_DIR}" NAME)   # e.g. 01_elementwise

  # The CPU reference: what the exercise checker needs of the chapter.
  if(CH_REFERENCE)
    add_library(${CH_NAME}_reference STATIC ${CH_REFERENCE})
    target_include_directories(${CH_NAME}_reference PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}")
    target_link_libraries(${CH_NAME}_reference PUBLIC tutorial_common)
    tutorial_set_warnings(${CH_NAME}_reference)
  endif()

  # The chapter library: the ladder (everything but the reference, main and the tests).
  add_library(${CH_NAME}_lib STATIC ${CH_SOURCES})
  target_include_directories(${CH_NAME}_lib PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}")
  target_link_libraries(${CH_NAME}_lib PUBLIC tutorial_common ${CH_LIBRARIES})
  if(CH_REFERENCE)
    target_link_libraries(${CH_NAME}_lib PUBLIC ${CH_NAME}_reference)
  endif()
  tutorial_set_warnings(${CH_NAME}_lib)

  set(exercise_src "")
  set(solution_src "")
  if(CH_EXERCISE)
    set(exercise_src "${TUTORIAL_EXERCISES_DIR}/${chapter_dir}/${CH_EXERCISE}")
    set(solution_src "${PROJECT_SOURCE_DIR}/solutions/${chapter_dir}/${CH_EXERCISE}")
  endif()

  # The executable students run: the ladder and its baselines.
  add_executable(${CH_NAME} ${CH_MAIN})
  target_link_libraries(${CH_NAME} PRIVATE ${CH_NAME}_lib)
  tutorial_set_warnings(${CH_NAME})
  set_property(GLOBAL APPEND PROPERTY TUTORIAL_CHAPTER_TARGETS ${CH_NAME})

  # Command-line behaviour (needs no GPU, except the too-large-for-memory cases). Each case is
  # "<expected status>|<arguments>"; the test's name says what it checks, e.g.
  # elementwise_cli_accepts_help, elementwise_cli_rejects_n_0.
  set(cli_cases "0|--help" "0|-h" "0|--list" "2|--frobnicate" "2|--version no_such_version" "2|--reps 0" "2|--json")
  foreach(args IN LISTS CH_BAD_ARGS)
    list(APPEND cli_cases "2|${args}")
  endforeach()
  foreach(args IN LISTS CH_HUGE_ARGS)
    list(APPEND cli_cases "huge|${args}")
  endforeach()
  tutorial_add_cli_tests(${CH_NAME} ${CH_NAME} "${cli_cases}")

  # The exercise: runner (student's file or solution) and checker, and their tests.
  if(CH_EXERCISE AND CH_EXERCISE_CHECK)
    # The runner's call of the launcher, compiled once for every runner of this chapter.
    add_library(${CH_NAME}_exercise_call OBJECT "${CMAKE_CURRENT_SOURCE_DIR}/${CH_EXERCISE_CALL}")
    target_include_directories(${CH_NAME}_exercise_call PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
    target_link_libraries(${CH_NAME}_exercise_call PRIVATE tutorial_runtime)
    tutorial_set_warnings(${CH_NAME}_exercise_call)
    foreach(which exercise solution)
      set(runner ${which}_${CH_NAME})
      add_executable(${runner} "${${which}_src}" $<TARGET_OBJECTS:${CH_NAME}_exercise_call>)
      target_include_directories(${runner} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
      target_link_libraries(${runner} PRIVATE tutorial_exercise_runner)
      tutorial_set_warnings(${runner})
    endforeach()
    add_executable(check_${CH_NAME} "${CMAKE_CURRENT_SOURCE_DIR}/${CH_EXERCISE_CHECK}")
    target_link_libraries(check_${CH_NAME} PRIVATE ${CH_NAME}_reference tutorial_exercise_checker)
    tutorial_set_warnings(check_${CH_NAME})
    set_property(GLOBAL APPEND PROPERTY TUTORIAL_EXERCISE_CHAPTERS ${CH_NAME})
    # "name|chapter folder|student's file|solution": pytorch/ builds them into torch operators.
    set_property(GLOBAL APPEND PROPERTY TUTORIAL_EXERCISE_SOURCES
                 "${CH_NAME}|${CMAKE_CURRENT_SOURCE_DIR}|${exercise_src}|${solution_src}")

    # The checker lists its cases anywhere (no GPU needed).
    add_test(NAME ${CH_NAME}_exercise_lists_its_cases COMMAND check_${CH_NAME} --list)
    set_tests_properties(${CH_NAME}_exercise_lists_its_cases PROPERTIES LABELS "${CH_NAME};cpu;checker")
    # The solution passes every public case and the timed run (every repetition checked).
    add_test(NAME ${CH_NAME}_solution_passes_its_checks
             COMMAND check_${CH_NAME} --runner $<TARGET_FILE:solution_${CH_NAME}> --speed --reps 3)
    set_tests_properties(${CH_NAME}_solution_passes_its_checks PROPERTIES
      LABELS "${CH_NAME};gpu;solution" SKIP_RETURN_CODE 77 TIMEOUT ${TUTORIAL_GPU_TEST_TIMEOUT})
    # The student's file: rebuilt first (a fixture), so `ctest --preset exercise` never tests a
    # stale binary. Students use python3 tools/exercise.py <name>, which does the same.
    add_test(NAME ${CH_NAME}_exercise_is_rebuilt
             COMMAND ${CMAKE_COMMAND} --build "${PROJECT_BINARY_DIR}" --target exercise_${CH_NAME} check_${CH_NAME})
    set_tests_properties(${CH_NAME}_exercise_is_rebuilt PROPERTIES
      LABELS "${CH_NAME};exercise" FIXTURES_SETUP ${CH_NAME}_exercise_built)
    add_test(NAME ${CH_NAME}_exercise_passes_its_checks
             COMMAND check_${CH_NAME} --runner $<TARGET_FILE:exercise_${CH_NAME}>)
    set_tests_properties(${CH_NAME}_exercise_passes_its_checks PROPERTIES
      LABELS "${CH_NAME};gpu;exercise" SKIP_RETURN_CODE 77 FIXTURES_REQUIRED ${CH_NAME}_exercise_built
      TIMEOUT ${TUTORIAL_GPU_TEST_TIMEOUT})

    # Grading (tools/grader/grade.py): one runner per student and chapter, all in this build tree,
    # from the lines "student|chapter|file" of TUT_GRADING_LIST. Each student's file is compiled
    # through tut_isolate, which hides solutions/ and the grader's corpus from the compiler.
    if(TUT_GRADING_LIST)
      file(STRINGS "${TUT_GRADING_LIST}" grading_lines)
      foreach(line IN LISTS grading_lines)
        string(REPLACE "|" ";" fields "${line}")
        list(LENGTH fields nfields)
        if(NOT nfields EQUAL 3)
          continue()
        endif()
        list(GET fields 0 student)
        list(GET fields 1 chapter)
        list(GET fields 2 file)
        if(NOT chapter STREQUAL CH_NAME)
          continue()
        endif()
        set(t grade_${student}__${CH_NAME})
        add_executable(${t} "${file}" $<TARGET_OBJECTS:${CH_NAME}_exercise_call>)
        target_include_directories(${t} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
        target_link_libraries(${t} PRIVATE tutorial_exercise_runner)
        tutorial_set_warnings(${t})
        add_dependencies(${t} tut_isolate)
        set_target_properties(${t} PROPERTIES
          OUTPUT_NAME exercise_${CH_NAME}
          RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/grading/${student}"
          CUDA_COMPILER_LAUNCHER "${PROJECT_BINARY_DIR}/bin/tut_isolate;${TUT_GRADING_HIDE};--")
        set_property(GLOBAL APPEND PROPERTY TUTORIAL_GRADING_TARGETS ${t})
      endforeach()
    endif()
  endif()

  if(NOT TUT_HAVE_CATCH2)
    return()
  endif()

  # CPU tests: always run.
  if(CH_CPU_TESTS)
    tutorial_add_test_executable(test_${CH_NAME}_cpu cpu ${CH_NAME}_lib "${CH_CPU_TESTS}")
    add_test(NAME ${CH_NAME}_cpu_references_and_models COMMAND test_${CH_NAME}_cpu)
    set_tests_properties(${CH_NAME}_cpu_references_and_models PROPERTIES LABELS "${CH_NAME};cpu")
  endif()

  # GPU tests of every version: the sweep; separately the [large] case (> 2^31 elements); and
  # separately the Catch2 test cases tagged [slow] (every candidate of a tuning search, exhaustive
  # sweeps), under the CTest label `slow`, which the default test preset leaves out (students'
  # test runs stay under a minute per chapter) and tools/device_check.sh runs.
  if(CH_GPU_TESTS)
    tutorial_add_test_executable(test_${CH_NAME}_gpu gpu ${CH_NAME}_lib "${CH_GPU_TESTS}")
    add_test(NAME ${CH_NAME}_versions_match_the_reference COMMAND test_${CH_NAME}_gpu "~[large]~[slow]")
    add_test(NAME ${CH_NAME}_versions_past_2pow31_elements COMMAND test_${CH_NAME}_gpu "[large]")
    set_tests_properties(${CH_NAME}_versions_match_the_reference PROPERTIES
      LABELS "${CH_NAME};gpu;versions" SKIP_RETURN_CODE 77 TIMEOUT ${TUTORIAL_GPU_TEST_TIMEOUT})
    # Large cases take tens of GiB: never two at once.
    set_tests_properties(${CH_NAME}_versions_past_2pow31_elements PROPERTIES
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
      add_test(NAME ${CH_NAME}_tuning_candidates_match_the_reference COMMAND test_${CH_NAME}_gpu "[slow]~[large]")
      set_tests_properties(${CH_NAME}_tuning_candidates_match_the_reference PROPERTIES
        LABELS "${CH_NAME};gpu;versions;slow" SKIP_RETURN_CODE 77 TIMEOUT ${TUTORIAL_GPU_TEST_TIMEOUT})
    endif()
  endif()

endfunction()

# A Catch2 test executable; KIND is cpu or gpu (the gpu main skips with 77 without a device).
function(tutorial_add_test_executable target kind chapter_lib sources)
  add_executable(${target} ${sources})
  target_link_libraries(${target} PRIVATE ${chapter_lib} tutorial_test_main_${kind})
  tutorial_set_warnings(${target})
endfunction()

# tutorial_add_search(): a chapter's tuning search, kept apart from the ladder in tune/.
#
#   tutorial_add_search(NAME <chapter>
#     SOURCES <files...>       the candidates (tune/*.cu): library <chapter>_tune_lib, which the
#                              chapter's tests may link to check every candidate
#     MAIN <file>              tune/main.cpp: a tut::Chapter whose versions are the candidates
#     BAD_ARGS <"args"...>)    extra command lines that must exit with status 2
#
# Every search is run the same way: `<chapter>_tune [--json FILE] [size flags] [--version NAME]`,
# the chapter's command line (tut::chapter_main), its default run timing every candidate on the
# shapes the search is about (tools/device_check.sh --phases tune runs each bin/<chapter>_tune).
# Building the chapter builds its search too, and the chapter's tests link the search's library
# (they check every candidate). CLI tests as the chapter's (tutorial_add_cli_tests).
function(tutorial_add_search)
  cmake_parse_arguments(TS "" "NAME;MAIN" "SOURCES;BAD_ARGS" ${ARGN})
  add_library(${TS_NAME}_tune_lib STATIC ${TS_SOURCES})
  target_link_libraries(${TS_NAME}_tune_lib PUBLIC ${TS_NAME}_lib)
  tutorial_set_warnings(${TS_NAME}_tune_lib)

  add_executable(${TS_NAME}_tune ${TS_MAIN})
  target_link_libraries(${TS_NAME}_tune PRIVATE ${TS_NAME}_tune_lib)
  tutorial_set_warnings(${TS_NAME}_tune)
  add_dependencies(${TS_NAME} ${TS_NAME}_tune)

  set(cases "0|--help" "0|-h" "0|--list" "2|--frobnicate" "2|--version no_such_version" "2|--reps 0" "2|--json")
  foreach(args IN LISTS TS_BAD_ARGS)
    list(APPEND cases "2|${args}")
  endforeach()
  tutorial_add_cli_tests(${TS_NAME}_tune ${TS_NAME} "${cases}")

  # The tests that check every candidate link the search's library.
  foreach(t test_${TS_NAME}_cpu test_${TS_NAME}_gpu)
    if(TARGET ${t})
      target_link_libraries(${t} PRIVATE ${TS_NAME}_tune_lib)
    endif()
  endforeach()
endfunction()

# tutorial_add_cli_tests(<executable> <chapter> "<status>|<args>;..."): one CTest per command line
# of `executable`, named for what it checks (e.g. gemm_cli_rejects_m_0, gemm_tune_cli_accepts_list):
# status 0 or 2, or "huge" (a problem too large for any GPU: status 2, skipped without a GPU).
function(tutorial_add_cli_tests exe chapter cases)
  foreach(case IN LISTS cases)
    string(FIND "${case}" "|" bar)
    string(SUBSTRING "${case}" 0 ${bar} expect)
    math(EXPR bar "${bar} + 1")
    string(SUBSTRING "${case}" ${bar} -1 args)
    string(REGEX REPLACE "[^A-Za-z0-9^]+" "_" words "${args}")
    string(REGEX REPLACE "^_+|_+$" "" words "${words}")
    string(REPLACE "^" "pow" words "${words}")
    if(expect STREQUAL "0")
      set(test_name ${exe}_cli_accepts_${words})
    elseif(expect STREQUAL "huge")
      set(test_name ${exe}_cli_refuses_too_large_${words})
      set(expect 2)
    else()
      set(test_name ${exe}_cli_rejects_${words})
    endif()
    if(args STREQUAL "--json")
      set(test_name ${exe}_cli_rejects_json_without_file)
    endif()
    separate_arguments(argv UNIX_COMMAND "${args}")
    add_test(NAME ${test_name} COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${exe}>
             "-DARGS=${argv}" -DEXPECT=${expect} -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
    if(case MATCHES "^huge[|]")
      set_tests_properties(${test_name} PROPERTIES LABELS "${chapter};gpu;cli"
                           SKIP_REGULAR_EXPRESSION "no usable CUDA device")
    else()
      set_tests_properties(${test_name} PROPERTIES LABELS "${chapter};cpu;cli")
    endif()
  endforeach()
endfunction()

# tutorial_resource_report(<name> SOURCES <files...> HEADERS <files...> CPU_TEST <target> DEFINE <macro>)
#
# What the compiler made of a chapter's kernels, for its CPU tests: every file of SOURCES (paths
# inside the chapter, without .cu) compiled once more to PTX for sm_90a, then `ptxas -v` on it
# (cmake/run_ptxas.cmake), both kept in <build>/chapters/NN_name/resource_report/ as
# <stem>.sm_90a.ptx and <stem>.sm_90a.ptxas.txt. Target <name>_resource_report (in ALL);
# CPU_TEST depends on it and sees the folder as the string macro DEFINE. HEADERS are what the
# sources include (a change to one rebuilds the report). Needs only the toolkit, no GPU.
function(tutorial_resource_report name)
  cmake_parse_arguments(RR "" "CPU_TEST;DEFINE" "SOURCES;HEADERS" ${ARGN})
  find_program(TUT_PTXAS ptxas HINTS "${CUDAToolkit_BIN_DIR}" NO_DEFAULT_PATH)
  find_program(TUT_PTXAS ptxas)
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/resource_report")
  set(outputs "")
  foreach(source IN LISTS RR_SOURCES)
    get_filename_component(stem "${source}" NAME)
    set(ptx "${dir}/${stem}.sm_90a.ptx")
    set(log "${dir}/${stem}.sm_90a.ptxas.txt")
    add_custom_command(
      OUTPUT "${ptx}" "${log}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${dir}"
      COMMAND "${CMAKE_CUDA_COMPILER}" -ptx -arch=sm_90a -std=c++17 -O3 -DNDEBUG
              "-I${PROJECT_SOURCE_DIR}" "-I${CMAKE_CURRENT_SOURCE_DIR}"
              "${CMAKE_CURRENT_SOURCE_DIR}/${source}.cu" -o "${ptx}"
      COMMAND "${CMAKE_COMMAND}" "-DPTXAS=${TUT_PTXAS}" "-DPTX=${ptx}" "-DLOG=${log}" -DARCH=sm_90a
              -P "${PROJECT_SOURCE_DIR}/cmake/run_ptxas.cmake"
      DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/${source}.cu" ${RR_HEADERS} "${PROJECT_SOURCE_DIR}/cmake/run_ptxas.cmake"
      COMMENT "${name} resource report: ${stem}.cu -> PTX -> ptxas -v (sm_90a)"
      VERBATIM)
    list(APPEND outputs "${ptx}" "${log}")
  endforeach()
  add_custom_target(${name}_resource_report ALL DEPENDS ${outputs})
  if(TARGET ${RR_CPU_TEST})
    add_dependencies(${RR_CPU_TEST} ${name}_resource_report)
    target_compile_definitions(${RR_CPU_TEST} PRIVATE ${RR_DEFINE}="${dir}")
  endif()
endfunction()
