// The runner's side of chapter 05's exercise (common/exercise/runner.hpp): one case, one call of
// the student's launcher. Linked with exercises/05_transpose/transpose_padded.cu into
// build/bin/exercise_transpose, and with the solution into build/bin/solution_transpose.
#include "common/exercise/runner.hpp"
#include "exercise.hpp"

void tut::exercise::call_exercise(const Call& c, cudaStream_t stream) {
  transpose::exercise_transpose_padded(c.f32("A"), c.f32("B"), c.i("r"), c.i("c"), stream);
}
