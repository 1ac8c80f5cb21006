// Known-wrong submission (grader corpus): door 1 of issue 23. The kernel writes zeros, and an
// atexit() handler, run when the process that ran it ends, rewrites what a grader might read:
// it opens every report and response file it can guess with fopen() and std::ofstream and writes
// a "passed" verdict into them. The old grader read its verdict from files written by the process
// that ran the student's code; now the verdict is the checker's (a process that never loads this
// code), the runner's file system is read-only except its work folder, and the object-file check
// refuses fopen and file streams before anything runs.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "common/check.hpp"
#include "exercise.hpp"

namespace elementwise {

namespace {

__global__ void zeros_kernel(float* out, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 0.0f;  // BUG (on purpose): no addition at all
}

const char kPassed[] = "{\"verdict\": \"passed\", \"line\": \"PASSED: all cases are correct.\"}\n";

void rewrite_reports() {
  // The checker's JSON report, the grader's per-student copy, and the runner's own response.
  for (const char* path : {"report.json", "../report.json", "cases.response.0", "../../logs/report.json"}) {
    if (std::FILE* f = std::fopen(path, "w")) {
      std::fputs(kPassed, f);
      std::fclose(f);
    }
    std::ofstream again(path, std::ios::app);
    again << kPassed;
  }
}

const bool registered = [] { return std::atexit(rewrite_reports) == 0; }();

}  // namespace

void exercise_add_float4(const float* /*a*/, const float* /*b*/, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0 || !registered) return;
  zeros_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(out, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace elementwise
