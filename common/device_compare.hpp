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
  /// worst elements only when the check failed. `report_index`, if given, names the index a
  /// failure reports for element i (a sample's position in the whole array).
  ErrorStats check(const float* got, const Tolerance& tol, cudaStream_t stream = nullptr,
                   const std::vector<std::size_t>* report_index = nullptr) const;

 private:
  DeviceBuffer<double> expected_;
  DeviceBuffer<double> atol_;
};

/// A reference for a sample of a huge device array (the [large] tests: > 2^31 elements): the
/// expected values of the elements at `index`, computed once on the CPU's threads; check()
/// gathers those elements on the GPU and compares there, so checking many versions costs one
/// gather each instead of a download and a CPU pass each.
class DeviceSampleReference {
 public:
  /// `index`: positions in the array (each < the array's length); `expected(i)`: the value the
  /// element at position i must hold.
  DeviceSampleReference(std::vector<std::size_t> index, const std::function<double(std::size_t)>& expected);

  /// Number of sampled elements.
  std::size_t size() const { return index_.size(); }

  /// Gathers the sampled elements of the device array `array` and compares them (synchronizes);
  /// a failure reports positions in `array`.
  ErrorStats check(const float* array, const Tolerance& tol, cudaStream_t stream = nullptr) const;

 private:
  std::vector<std::size_t> index_;
  DeviceBuffer<std::size_t> device_index_;
  DeviceReference reference_;
  mutable DeviceBuffer<float> gathered_;
};

}  // namespace tut
