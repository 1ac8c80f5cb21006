// Tests of the chapter 04 exercise. Built twice: against exercises/04_gemv/gemv_warp_float4.cu
// (fails until the TODOs are done) and against solutions/04_gemv/gemv_warp_float4.cu.
#include "exercise.hpp"
#include "test_support.hpp"

using namespace gemv;

TEST_CASE("the warp-per-row float4 gemv matches the CPU reference on every shape", "[gemv][exercise]") {
  INFO("testing the " TUT_SUBMISSION_KIND " in " TUT_SUBMISSION_FILE
       " -- if this fails, look at its TODO(student) markers: head and tail, float4 body, warp sum");
  for (const auto& [M, K] : testing::shapes()) {
    testing::require_correct(exercise_gemv_warp_float4, Op::Ax, M, K, {}, tut::testing::seed());
  }
}

TEST_CASE("the exercise handles rows and x that are not 16-byte aligned", "[gemv][exercise]") {
  INFO("A or x start 1..3 floats past a 16-byte boundary: head, tail and the scalar path for x");
  for (const testing::Offsets off : {testing::Offsets{1, 0, 0}, testing::Offsets{0, 2, 0}, testing::Offsets{3, 1, 1}}) {
    for (const auto& [M, K] : std::vector<testing::Shape>{{1, 1}, {5, 7}, {33, 33}, {64, 128}, {9, 4097}}) {
      testing::require_correct(exercise_gemv_warp_float4, Op::Ax, M, K, off, tut::testing::seed() + 2);
    }
  }
}

TEST_CASE("the exercise is right for fresh inputs, not one fixed data set", "[gemv][exercise]") {
  for (std::uint64_t s = 1; s <= 3; ++s) {
    for (const auto& [M, K] : testing::sanitizer_sized({{37, 1000}, {1000, 37}, {8, 5000}})) {
      testing::require_correct(exercise_gemv_warp_float4, Op::Ax, M, K, {}, tut::testing::seed() * 7 + s);
    }
  }
}
