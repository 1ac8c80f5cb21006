// The runner's side of chapter 04's exercise (common/exercise/runner.hpp): one case, one call of
// the student's launcher. Linked with exercises/04_gemv/gemv_warp_float4.cu into
// build/bin/exercise_gemv, and with the solution into build/bin/solution_gemv.
#include "common/exercise/runner.hpp"
#include "exercise.hpp"

void tut::exercise::call_exercise(const Call& c, cudaStream_t stream) {
  gemv::exercise_gemv_warp_float4(c.f32("A"), c.f32("x"), c.f32("y"), c.i("m"), c.i("k"), stream);
}
