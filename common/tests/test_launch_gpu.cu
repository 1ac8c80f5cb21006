// GPU tests of common/launch: can_launch_dependent_early() must say yes exactly when the code that
// runs was compiled for sm_90 or newer on an sm_90 or newer GPU (when a kernel's
// `griddepcontrol.wait`, under __CUDA_ARCH__ >= 900, is really there); allow_dynamic_smem() must
// make a launch above 48 KiB of shared memory work, and refuse more than the GPU has.
#include <cuda_runtime.h>

#include <stdexcept>

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

namespace {

/// Writes `value` to every float of its dynamic shared memory, then the sum of them to out[0]:
/// a launch with more than 48 KiB of it fails unless the limit was raised.
__global__ void fill_dynamic_smem(float value, int count, float* out) {
  extern __shared__ float smem[];
  for (int i = threadIdx.x; i < count; i += blockDim.x) smem[i] = value;
  __syncthreads();
  if (threadIdx.x == 0) {
    float sum = 0.0f;
    for (int i = 0; i < count; ++i) sum += smem[i];
    out[0] = sum;
  }
}

}  // namespace

TEST_CASE("allow_dynamic_smem raises the limit once per kernel, and refuses more than the GPU has",
          "[launch][smem]") {
  int device = 0, optin = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  REQUIRE_THROWS_AS(tut::allow_dynamic_smem(fill_dynamic_smem, static_cast<std::size_t>(optin) + 1024),
                    std::runtime_error);
  if (optin <= 48 * 1024) {
    tut::testing::skip_run("this GPU gives a block no more than 48 KiB of shared memory");
    return;
  }
  const int count = 64 * 1024 / 4;  // 64 KiB: above the default limit
  tut::DeviceBuffer<float> out(1);
  tut::allow_dynamic_smem(fill_dynamic_smem, 64 * 1024);
  tut::allow_dynamic_smem(fill_dynamic_smem, 64 * 1024);  // a second call is a no-op
  fill_dynamic_smem<<<1, 256, 64 * 1024>>>(0.5f, count, out.data());
  CUDA_CHECK_LAUNCH();
  float sum = 0.0f;
  CUDA_CHECK(cudaMemcpy(&sum, out.data(), sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(sum == 0.5f * count);
}
