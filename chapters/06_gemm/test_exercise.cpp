// Tests of the chapter 06 exercise. Built twice: against exercises/06_gemm/gemm_2d_blocktile.cu
// (fails until the TODOs are done) and against solutions/06_gemm/gemm_2d_blocktile.cu.
#include "exercise.hpp"
#include "test_support.hpp"

using namespace gemm;

namespace {
const Kernel kSubmission{Precision::fp32, exercise_gemm_2d_blocktile, nullptr};
}  // namespace

TEST_CASE("the 2-D register-blocked GEMM matches the CPU reference on every shape", "[gemm][exercise]") {
  INFO("testing the " TUT_SUBMISSION_KIND " in " TUT_SUBMISSION_FILE
       " -- if this fails, look at its TODO(student) markers: 1/2 loads the tiles, 2/2 the outer products");
  for (const Shape& s : gemm::testing::sweep_shapes()) {
    gemm::testing::require_correct(kSubmission, TUT_SUBMISSION_KIND, s, 1.0f, 0.0f, {}, tut::testing::seed());
    gemm::testing::require_correct(kSubmission, TUT_SUBMISSION_KIND, s, -1.5f, 0.75f, {}, tut::testing::seed() + 1);
  }
}

TEST_CASE("the 2-D register-blocked GEMM is right for fresh inputs and misaligned starts", "[gemm][exercise]") {
  INFO("testing the " TUT_SUBMISSION_KIND " in " TUT_SUBMISSION_FILE);
  for (std::uint64_t s = 1; s <= 3; ++s) {
    gemm::testing::require_correct(kSubmission, TUT_SUBMISSION_KIND, {131, 67, 45}, 1.0f, 0.0f, {},
                                   tut::testing::seed() * 7 + s);
  }
  gemm::testing::require_correct(kSubmission, TUT_SUBMISSION_KIND, {136, 264, 40}, 0.5f, 2.0f, {1, 2, 3},
                                 tut::testing::seed() + 9);
}
