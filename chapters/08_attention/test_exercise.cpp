// Tests of the chapter 08 exercise. Built twice: against exercises/08_attention/attention_tiled.cu
// (fails until the TODOs are done) and against solutions/08_attention/attention_tiled.cu.
#include "exercise.hpp"
#include "test_support.hpp"

using namespace attention;
using attention::testing::Ranges;
using attention::testing::require_correct;

namespace {

const Kernel kSubmission{Precision::fp32, exercise_attention_tiled, nullptr};

const char* const kWhere = "testing the " TUT_SUBMISSION_KIND " in " TUT_SUBMISSION_FILE
                           " -- if this fails, look at its TODO(student) markers: 1/3 the K and V tiles, 2/3 the "
                           "online softmax update, 3/3 O = O * factor + P V";

/// The sweep's shapes that the exercise supports (D = 64 and 128; all of them are).
std::vector<Shape> exercise_shapes() {
  std::vector<Shape> shapes;
  for (const Shape& s : attention::testing::sweep_shapes()) {
    if (s.d == 64 || s.d == 128) shapes.push_back(s);
  }
  return shapes;
}

}  // namespace

TEST_CASE("the tiled kernel matches the CPU reference on every shape, with and without the mask",
          "[attention][exercise]") {
  INFO(kWhere);
  for (const Shape& s : exercise_shapes()) require_correct(kSubmission, 0.0, TUT_SUBMISSION_KIND, s, tut::testing::seed());
}

TEST_CASE("the tiled kernel survives scores of several hundred (the max over the whole row)", "[attention][exercise]") {
  INFO(kWhere);
  INFO("scores this large overflow exp() unless the running max covers the whole row seen so far, and the old "
       "sum and O are rescaled when it grows");
  const Ranges big{24.0f, 1.0f};
  std::vector<Shape> shapes = {{1, 2, 100, 300, 64, false}, {1, 2, 100, 300, 128, true}, {2, 1, 70, 33, 64, true}};
  if (tut::testing::sanitizing()) shapes = {{1, 1, 40, 100, 64, true}};
  for (const Shape& s : shapes) require_correct(kSubmission, 0.0, TUT_SUBMISSION_KIND, s, tut::testing::seed() + 2, big);
  for (const Shape& s : {Shape{1, 2, 100, 1000, 64, false}, Shape{1, 1, 65, 600, 128, true}}) {
    const auto in = attention::testing::rising_scores(s, Precision::fp32, tut::testing::seed() + 3);
    attention::testing::require_correct_on(kSubmission, 0.0, TUT_SUBMISSION_KIND, s, in, "rising scores");
  }
}

TEST_CASE("the tiled kernel is right for fresh inputs", "[attention][exercise]") {
  INFO(kWhere);
  for (std::uint64_t k = 1; k <= 3; ++k) {
    require_correct(kSubmission, 0.0, TUT_SUBMISSION_KIND, {1, 3, 131, 200, 64, true}, tut::testing::seed() * 7 + k);
  }
}
