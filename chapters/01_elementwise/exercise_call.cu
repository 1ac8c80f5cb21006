// The runner's side of chapter 01's exercise (common/exercise/runner.hpp): one case, one call of
// the student's launcher. Linked with exercises/01_elementwise/add_float4.cu into
// build/bin/exercise_elementwise, and with the solution into build/bin/solution_elementwise.
#include "common/exercise/runner.hpp"
#include "exercise.hpp"

void tut::exercise::call_exercise(const Call& c, cudaStream_t stream) {
  elementwise::exercise_add_float4(c.f32("a"), c.f32("b"), c.f32("out"), c.i("n"), stream);
}
