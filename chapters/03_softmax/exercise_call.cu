// The runner's side of chapter 03's exercise (common/exercise/runner.hpp): one case, one call of
// the student's launcher. Linked with exercises/03_softmax/softmax_warp_online.cu into
// build/bin/exercise_softmax, and with the solution into build/bin/solution_softmax.
#include "common/exercise/runner.hpp"
#include "exercise.hpp"

void tut::exercise::call_exercise(const Call& c, cudaStream_t stream) {
  softmax::exercise_softmax_warp_online(c.f32("x"), c.f32("y"), c.i("rows"), c.i("cols"), stream);
}
