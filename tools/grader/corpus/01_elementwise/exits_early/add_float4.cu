// Known-wrong submission (grader corpus): ends the process with status 0 on its first call, so
// no check ever runs and no test report is written. A grader that trusts the exit status alone
// would pass it; ours requires each case's JUnit report.
#include <cstdint>
#include <cstdlib>

#include "exercise.hpp"

namespace elementwise {

void exercise_add_float4(const float* /*a*/, const float* /*b*/, float* /*out*/, std::int64_t /*n*/,
                         cudaStream_t /*stream*/) {
  std::exit(0);  // BUG (on purpose): "all tests passed"
}

}  // namespace elementwise
