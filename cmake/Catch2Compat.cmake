# Finds Catch2 v3 (Ubuntu 24.04, the device) or v2 (Debian 12's `catch2`, 2.13) and exposes one
# interface target, tutorial_catch2, plus TUT_CATCH2_MAJOR for common/testing.hpp.
find_package(Catch2 3 QUIET CONFIG)
if(Catch2_FOUND)
  set(TUT_CATCH2_MAJOR 3)
else()
  find_package(Catch2 2 QUIET CONFIG)
  if(Catch2_FOUND)
    set(TUT_CATCH2_MAJOR 2)
  endif()
endif()

if(NOT Catch2_FOUND)
  message(WARNING "Catch2 (v2 or v3) not found: the tests are not built. "
                  "Install it (Debian/Ubuntu: apt-get install catch2).")
  set(TUT_HAVE_CATCH2 OFF)
  return()
endif()

message(STATUS "Catch2 ${Catch2_VERSION} found (major version ${TUT_CATCH2_MAJOR})")
set(TUT_HAVE_CATCH2 ON)
add_library(tutorial_catch2 INTERFACE)
# Both majors provide Catch2::Catch2; we always supply our own main (common/test_main.cpp).
target_link_libraries(tutorial_catch2 INTERFACE Catch2::Catch2)
target_compile_definitions(tutorial_catch2 INTERFACE TUT_CATCH2_MAJOR=${TUT_CATCH2_MAJOR})
