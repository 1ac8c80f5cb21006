// The runner's side of chapter 07's exercise (common/exercise/runner.hpp): one case, one call of
// the student's launcher. Linked with exercises/07_conv2d/conv2d_smem_tile.cu into
// build/bin/exercise_conv2d, and with the finished file into build/bin/solution_conv2d. It needs
// only conv2d.hpp's inline parts (ConvShape, shape_error, dims_of): no chapter library is linked.
#include "common/exercise/runner.hpp"
#include "exercise.hpp"

void tut::exercise::call_exercise(const Call& c, cudaStream_t stream) {
  conv2d::ConvShape s;
  s.n = c.i("n"), s.c = c.i("c"), s.h = c.i("h"), s.w = c.i("w"), s.k = c.i("k"), s.r = c.i("r"), s.s = c.i("s");
  s.pad_h = c.i("pad_h"), s.pad_w = c.i("pad_w"), s.stride_h = c.i("stride_h"), s.stride_w = c.i("stride_w");
  conv2d::exercise_conv2d_smem_tile(s, c.f32("x"), c.f32("w"), c.f32("y"), stream);
}
