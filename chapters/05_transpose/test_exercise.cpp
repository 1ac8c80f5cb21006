// Tests of the chapter 05 exercise. Built twice: against exercises/05_transpose/transpose_padded.cu
// (fails until the TODOs are done) and against solutions/05_transpose/transpose_padded.cu.
#include "exercise.hpp"
#include "test_support.hpp"

using namespace transpose;

TEST_CASE("the padded-tile transpose is exact on every shape", "[transpose][exercise]") {
  INFO("testing the " TUT_SUBMISSION_KIND " in " TUT_SUBMISSION_FILE
       " -- if this fails, look at its TODO(student) markers: the tile, the load, the store");
  for (const auto& [R, C] : testing::shapes()) {
    testing::require_correct(exercise_transpose_padded, Output::transposed, R, C, {}, tut::testing::seed());
  }
}

TEST_CASE("the exercise works for misaligned matrices and fresh inputs", "[transpose][exercise]") {
  for (std::uint64_t s = 1; s <= 3; ++s) {
    for (const auto& [R, C] : testing::sanitizer_sized({{5, 3}, {33, 4097}, {1000, 37}})) {
      testing::require_correct(exercise_transpose_padded, Output::transposed, R, C, {s % 4, (s + 1) % 4},
                               tut::testing::seed() * 7 + s);
    }
  }
}
