/// @file
/// @brief Checking a result where it lives: a reference uploaded to the GPU once per problem,
/// and the comparison of compare.hpp done there by one reduction kernel.
///
/// A chapter whose outputs hold 10^8 elements or more (elementwise, transpose) checks every
/// version twice (before and after timing). Downloading a GiB and walking it on the CPU each
/// time took most of those chapters' run time; here each check costs one pass over the output
/// and the reference in device memory (a few ms), and nothing is sampled: every element is
/// still compared with the double-precision CPU reference, element by element, with the same
/// rules as ErrorStats::add(). Only when a check fails are the output and the reference
/// downloaded and compared again on the CPU, so the report lists the worst elements.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <vector>

#include "common/compare.hpp"
#include "common/device_buffer.hpp"

namespace tut {

/// A double-precision reference in device memory, with optional per-element absolute bounds.
class DeviceReference {
 public:
  /// An empty reference (size 0).
  DeviceReference() = default;

  /// Uploads `expected` and, if not empty, per-element absolute bounds `atol` (same length;
  /// each replaces Tolerance::atol for its element).
  explicit DeviceReference(const std::vector<double>& expected, const std::vector<double>& atol = {});

  /// Computes `expected[i] = value(i)` for i in [0, n) on the CPU's threads, then uploads it.
  static DeviceReference compute(std::size_t n, const std::function<double(std::size_t)>& value);

  /// Number of elements.
  std::size_t size() const { return expected_.size(); }

  /// Compares the `size()` floats at device address `got` with the reference, on `stream`
  /// (synchronizes). Equivalent to downloading `got` and calling tut::compare() (or
  /// ErrorStats::add() per element with the per-element atol); the returned stats carry the
  /// worst elements only when the check failed.
  ErrorStats check(const float* got, const Tolerance& tol, cudaStream_t stream = nullptr) const;

 private:
  DeviceBuffer<double> expected_;
  DeviceBuffer<double> atol_;
};

}  // namespace tut
