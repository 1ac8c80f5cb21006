// Known-wrong submission (grader corpus): door 2 of issue 23. Exit status 77 means "not checked:
// no GPU" to CTest and to the checker; the old grader took it as "skipped" before anything else,
// even on a machine with a GPU. This launcher ends the process with status 77 on its first call.
// Now only the checker's own device check (in a process that never loads this code) can say "not
// checked"; a runner that stops with status 77 has stopped in a case, which fails (the checker
// restarts it after that case, up to four times). And a grader that gets "not checked" on a
// machine with a GPU reports an error, never "skipped". (exit() itself is an allowed call: nvcc's
// host copy of every __device__ function with external linkage calls it.)
#include <cstdint>
#include <cstdlib>

#include "exercise.hpp"

namespace elementwise {

void exercise_add_float4(const float* /*a*/, const float* /*b*/, float* /*out*/, std::int64_t n,
                         cudaStream_t /*stream*/) {
  if (n >= 0) std::exit(77);  // BUG (on purpose): "skipped: no GPU"
}

}  // namespace elementwise
