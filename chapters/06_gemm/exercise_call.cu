// The runner's side of chapter 06's exercise (common/exercise/runner.hpp): one case, one call of
// the student's launcher. Linked with exercises/06_gemm/gemm_2d_blocktile.cu into
// build/bin/exercise_gemm, and with the solution into build/bin/solution_gemm.
#include "common/exercise/runner.hpp"
#include "exercise.hpp"

void tut::exercise::call_exercise(const Call& c, cudaStream_t stream) {
  // C is an output when beta == 0 (poisoned with NaN: it must not be read) and an input-output
  // otherwise (its initial values are uploaded); the launcher gets the same pointer either way.
  gemm::exercise_gemm_2d_blocktile(c.i("m"), c.i("n"), c.i("k"), static_cast<float>(c.r("alpha")), c.f32("a"),
                                   c.f32("b"), static_cast<float>(c.r("beta")), c.f32("c"), stream);
}
