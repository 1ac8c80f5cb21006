// The runner's side of chapter 08's exercise (common/exercise/runner.hpp): one case, one call of
// the student's launcher. Linked with exercises/08_attention/attention_tiled.cu into
// build/bin/exercise_attention, and with the solution into build/bin/solution_attention.
#include "common/exercise/runner.hpp"
#include "exercise.hpp"

void tut::exercise::call_exercise(const Call& c, cudaStream_t stream) {
  attention::Shape s;
  s.b = c.i("b");
  s.h = c.i("h");
  s.sq = c.i("sq");
  s.sk = c.i("sk");
  s.d = c.i("d");
  s.causal = c.i("causal") != 0;
  attention::exercise_attention_tiled(s, c.f32("q"), c.f32("k"), c.f32("v"), c.f32("o"), c.f32("lse"),
                                      c.ptr("workspace"), stream);
}
