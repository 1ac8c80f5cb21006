// Known-wrong submission (grader corpus): ends the process with status 0 on its first call, before
// it answers a case. A grader that trusted the exit status alone would pass it; the checker counts
// the cases the runner answered, and fails a runner that stopped in a case ("the runner stopped in
// this case: it exited with status 0").
#include <cstdint>
#include <cstdlib>

#include "exercise.hpp"

namespace elementwise {

void exercise_add_float4(const float* /*a*/, const float* /*b*/, float* /*out*/, std::int64_t /*n*/,
                         cudaStream_t /*stream*/) {
  std::exit(0);  // BUG (on purpose): "all tests passed"
}

}  // namespace elementwise
