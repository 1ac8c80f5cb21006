// The runner's side of chapter 02's exercise (common/exercise/runner.hpp): one case, one call of
// the student's launcher. Linked with exercises/02_reduce/block_reduce_sum.cu into
// build/bin/exercise_reduce, and with the solution into build/bin/solution_reduce.
#include "common/exercise/runner.hpp"
#include "exercise.hpp"

void tut::exercise::call_exercise(const Call& c, cudaStream_t stream) {
  reduce::exercise_reduce_sum(c.f32("x"), c.f32("out"), c.i("n"), static_cast<int>(c.i("threads")), stream);
}
