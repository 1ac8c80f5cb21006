/// @file
/// @brief The runner: the process that runs one exercise file (the student's or the solution).
///
/// A chapter gives the runner one function, `tut::exercise::call_exercise()`, in its
/// `exercise_call.cu`: it turns a case's named parameters and device arrays into one call of the
/// exercise's launcher. The runner's main() (common/exercise/runner_main.cu) does the rest the same
/// way for every chapter: read the request, allocate guarded arrays, upload, poison, call, capture
/// and replay, time, write the response. See wire.hpp for what goes in and out.
///
/// The runner executable links this harness, the chapter's exercise_call.cu and one exercise file:
/// no CPU reference, no solution, no cuBLAS or cuDNN. A submission that calls any of them does not
/// link, and the build log says which symbol is missing.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/exercise/wire.hpp"

namespace tut::exercise {

/// One call's arguments: the case's parameters and its arrays' device pointers.
class Call {
 public:
  /// The case `request`, with `pointers[i]` the device address of `request.arrays[i]`.
  Call(const CaseRequest& request, std::vector<void*> pointers) : request_(request), pointers_(std::move(pointers)) {}

  /// The integer parameter `name` (std::out_of_range if the case has none).
  std::int64_t i(const std::string& name) const;
  /// The real parameter `name`.
  double r(const std::string& name) const;
  /// The device pointer of array `name`, which must hold floats.
  float* f32(const std::string& name) const;
  /// The device pointer of array `name`, whatever it holds.
  void* ptr(const std::string& name) const;

 private:
  const CaseRequest& request_;
  std::vector<void*> pointers_;
};

/// Defined by each chapter's exercise_call.cu: one call of the exercise's launcher.
void call_exercise(const Call& call, cudaStream_t stream);

}  // namespace tut::exercise
