// GPU test of tut::can_launch_dependent_early(): it must say yes exactly when the code that runs
// was compiled for sm_90 or newer on an sm_90 or newer GPU, i.e. when a kernel's
// `griddepcontrol.wait` (under __CUDA_ARCH__ >= 900) is really in the code that runs.
#include <cuda_runtime.h>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/device_info.hpp"
#include "common/launch.hpp"
#include "common/testing.hpp"

namespace {

/// Writes the __CUDA_ARCH__ its running code was compiled for (the GPU's own view).
__global__ void report_compiled_arch(int* arch) {
#if defined(__CUDA_ARCH__)
  *arch = __CUDA_ARCH__;
#endif
}

}  // namespace

TEST_CASE("an early (programmatic dependent) launch is allowed only where the wait is compiled in",
          "[launch][pdl]") {
  tut::DeviceBuffer<int> arch(1);
  CUDA_CHECK(cudaMemset(arch.data(), 0, sizeof(int)));
  report_compiled_arch<<<1, 1>>>(arch.data());
  CUDA_CHECK_LAUNCH();
  int compiled = 0;
  CUDA_CHECK(cudaMemcpy(&compiled, arch.data(), sizeof(int), cudaMemcpyDeviceToHost));
  REQUIRE(compiled >= 750);  // the kernel ran and reported its architecture
  const bool expected = tut::current_cc() >= 90 && compiled >= 900;
  CHECK(tut::can_launch_dependent_early(reinterpret_cast<const void*>(report_compiled_arch)) == expected);
}
