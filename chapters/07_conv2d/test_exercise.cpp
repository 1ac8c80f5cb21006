// Tests of the chapter 07 exercise. Built twice: against exercises/07_conv2d/conv2d_smem_tile.cu
// (fails until the TODOs are done) and against solutions/07_conv2d/conv2d_smem_tile.cu.
#include "exercise.hpp"
#include "test_support.hpp"

using namespace conv2d;
using conv2d::testing::make;

namespace {

const Kernel kSubmission{Precision::fp32, Layout::nchw, exercise_conv2d_smem_tile, nullptr, false};

const char* const kWhere = "testing the " TUT_SUBMISSION_KIND " in " TUT_SUBMISSION_FILE
                           " -- if this fails, look at its TODO(student) markers: 1/2 stages the tile with its halo, "
                           "2/2 sums the window";

}  // namespace

TEST_CASE("the shared-memory tile convolution matches the CPU reference on every shape", "[conv2d][exercise]") {
  INFO(kWhere);
  // The sweep (with $TUTORIAL_EXTRA_SIZES): padding 0..3 on every side, strides 1..3, filters
  // 1x1..11x11, P or Q = 1, images that are not multiples of the 16 x 16 tile.
  for (const ConvShape& s : conv2d::testing::sweep_shapes()) {
    conv2d::testing::require_correct(kSubmission, TUT_SUBMISSION_KIND, s, tut::testing::seed() + static_cast<std::uint64_t>(s.w));
  }
}

TEST_CASE("the shared-memory tile convolution on many tiles and channels, fresh seeds, misaligned starts",
          "[conv2d][exercise]") {
  INFO(kWhere);
  std::vector<ConvShape> shapes = {make(2, 24, 45, 47, 5, 3, 3, 1, 1, 1, 1), make(1, 3, 70, 66, 4, 5, 5, 2, 2, 2, 2)};
  if (tut::testing::sanitizing()) shapes = {make(1, 4, 20, 18, 2, 3, 3, 1, 1, 1, 1)};
  for (const ConvShape& s : shapes) {
    for (std::uint64_t k = 1; k <= 3; ++k) {
      conv2d::testing::require_correct(kSubmission, TUT_SUBMISSION_KIND, s, tut::testing::seed() * 7 + k);
    }
    conv2d::testing::require_correct(kSubmission, TUT_SUBMISSION_KIND, s, tut::testing::seed() + 9, {1, 2, 3});
  }
}
