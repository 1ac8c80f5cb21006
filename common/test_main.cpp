// The main() of every test executable. With TUT_TEST_NEEDS_GPU, it exits with 77 (CTest's
// SKIP_RETURN_CODE) when no CUDA device is usable, so GPU tests show as skipped, never passed.
#if defined(TUT_CATCH2_MAJOR) && TUT_CATCH2_MAJOR >= 3
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include <cuda_runtime.h>

#include <cstring>
#include <iostream>

#include "common/device_info.hpp"
#include "common/testing.hpp"

#if defined(TUT_TEST_NEEDS_GPU)
namespace {

/// True if Catch2 is asked to list or explain rather than to run: that needs no GPU.
bool only_listing(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strncmp(a, "--list", 6) == 0 || std::strcmp(a, "-l") == 0 || std::strcmp(a, "-t") == 0 ||
        std::strcmp(a, "-h") == 0 || std::strcmp(a, "--help") == 0 || std::strcmp(a, "-?") == 0) {
      return true;
    }
  }
  return false;
}

}  // namespace
#endif

int main(int argc, char** argv) {
#if defined(TUT_TEST_NEEDS_GPU)
  std::string why;
  if (!only_listing(argc, argv) && !tut::cuda_device_available(&why)) {
    std::cout << "SKIPPED: no usable CUDA device (" << why << "); GPU tests need an NVIDIA GPU\n";
    return 77;
  }
#endif
  const int failed = Catch::Session().run(argc, argv);
  if (failed == 0 && tut::testing::run_was_skipped()) return 77;
  return failed;
}
