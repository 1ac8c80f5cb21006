// Tests of the chapter 01 exercise. Built twice: against exercises/01_elementwise/add_float4.cu
// (fails until the TODOs are done) and against solutions/01_elementwise/add_float4.cu.
#include "exercise.hpp"
#include "test_support.hpp"

using namespace elementwise;

TEST_CASE("the float4 add matches the CPU reference at every size", "[elementwise][exercise]") {
  INFO("testing the " TUT_SUBMISSION_KIND " in " TUT_SUBMISSION_FILE
       " -- if this fails, look at its TODO(student) markers: the float4 body and the scalar tail");
  for (std::int64_t n : tut::testing::sizes_1d()) {
    testing::require_correct(exercise_add_float4, 2, reference_add, add_tolerance(), n, {}, tut::testing::seed());
  }
}

TEST_CASE("the float4 add is right for fresh inputs, not one fixed data set", "[elementwise][exercise]") {
  for (std::uint64_t s = 1; s <= 3; ++s) {
    for (std::int64_t n : {5, 4099, 1 << 16}) {
      testing::require_correct(exercise_add_float4, 2, reference_add, add_tolerance(), n, {},
                               tut::testing::seed() * 7 + s);
    }
  }
}
