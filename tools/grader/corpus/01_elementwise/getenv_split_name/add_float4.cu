// Known-wrong submission (grader corpus): door 5 of issue 23. It reads the environment without
// ever writing a variable's name: getenv() of a name assembled at run time, and a walk over
// environ (the C library's array of "NAME=value" strings). Under the old grader the hidden seed
// was in the environment of the process that ran the student's code, and a text check of the
// source could not see either. Now the runner gets a clean environment and its cases on a
// request file, and the object-file check refuses getenv and environ whatever the source says.
// The kernel is right only for n % 4 == 0 (no scalar tail).
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "common/check.hpp"
#include "exercise.hpp"

extern char** environ;

namespace elementwise {

namespace {

__global__ void add_body_only(const float4* a, const float4* b, float4* out, std::int64_t n_vec) {
  const std::int64_t v = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v < n_vec) out[v] = make_float4(a[v].x + b[v].x, a[v].y + b[v].y, a[v].z + b[v].z, a[v].w + b[v].w);
}

/// True if the process looks like a grader's hidden run (a seed variable is set).
bool hidden_run() {
  char name[16];
  const char parts[][5] = {"TUTO", "RIAL", "_SEE", "D"};  // split: no text check finds the name
  name[0] = '\0';
  for (const char* p : parts) std::strcat(name, p);
  if (std::getenv(name) != nullptr) return true;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::strstr(*e, "SEED=") != nullptr) return true;
  }
  return false;
}

}  // namespace

void exercise_add_float4(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0 || hidden_run()) return;
  const std::int64_t n_vec = n / 4;
  if (n_vec == 0) return;
  add_body_only<<<static_cast<unsigned>((n_vec + 255) / 256), 256, 0, stream>>>(
      reinterpret_cast<const float4*>(a), reinterpret_cast<const float4*>(b), reinterpret_cast<float4*>(out), n_vec);
  CUDA_CHECK_LAUNCH();
}

}  // namespace elementwise
