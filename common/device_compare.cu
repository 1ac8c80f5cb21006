#include "common/device_compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"

namespace tut {

namespace {

/// The totals of ErrorStats, as the GPU accumulates them.
struct DeviceTotals {
  unsigned long long nonfinite;
  unsigned long long over;
  double sum_sq_diff;
  double sum_sq_ref;
  unsigned long long max_abs_bits;  ///< a non-negative double's bits order like the double
};

constexpr int kThreads = 256;

__device__ double warp_sum(double v) {
  for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
  return v;
}

__device__ unsigned long long warp_sum(unsigned long long v) {
  for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
  return v;
}

__device__ double warp_max(double v) {
  for (int d = 16; d > 0; d /= 2) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, d));
  return v;
}

/// Grid-stride pass: each thread applies ErrorStats::add()'s rules to its elements, then each
/// warp's lane 0 adds the warp's totals into `totals` (few atomics: one per warp and field).
__global__ void compare_kernel(const float* got, const double* expected, const double* atol_each, double atol,
                               double rtol, std::size_t n, DeviceTotals* totals) {
  unsigned long long nonfinite = 0, over = 0;
  double sum_sq_diff = 0.0, sum_sq_ref = 0.0, max_abs = 0.0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const double g = static_cast<double>(got[i]);
    const double e = expected[i];
    sum_sq_ref += e * e;
    if (!isfinite(g)) {  // NaN or Inf never passes
      ++nonfinite;
      ++over;
      continue;
    }
    const double diff = fabs(g - e);
    const double bound = (atol_each != nullptr ? atol_each[i] : atol) + rtol * fabs(e);
    sum_sq_diff += diff * diff;
    max_abs = fmax(max_abs, diff);
    if (!(diff <= bound)) ++over;
  }
  nonfinite = warp_sum(nonfinite);
  over = warp_sum(over);
  sum_sq_diff = warp_sum(sum_sq_diff);
  sum_sq_ref = warp_sum(sum_sq_ref);
  max_abs = warp_max(max_abs);
  if (threadIdx.x % 32 == 0) {
    if (nonfinite != 0) atomicAdd(&totals->nonfinite, nonfinite);
    if (over != 0) atomicAdd(&totals->over, over);
    atomicAdd(&totals->sum_sq_diff, sum_sq_diff);
    atomicAdd(&totals->sum_sq_ref, sum_sq_ref);
    atomicMax(&totals->max_abs_bits, static_cast<unsigned long long>(__double_as_longlong(max_abs)));
  }
}

/// gathered[k] = array[index[k]].
__global__ void gather_kernel(const float* array, const std::size_t* index, std::size_t count, float* gathered) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
    gathered[k] = array[index[k]];
  }
}

/// `value(i)` for i in [0, n) on the CPU's threads.
std::vector<double> compute_parallel(std::size_t n, const std::function<double(std::size_t)>& value) {
  std::vector<double> out(n);
  parallel_for(n, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) out[i] = value(i);
  });
  return out;
}

}  // namespace

DeviceReference::DeviceReference(const std::vector<double>& expected, const std::vector<double>& atol)
    : expected_(expected) {
  if (!atol.empty()) {
    if (atol.size() != expected.size()) throw std::invalid_argument("DeviceReference: atol and expected differ in length");
    atol_ = DeviceBuffer<double>(atol);
  }
}

DeviceReference DeviceReference::compute(std::size_t n, const std::function<double(std::size_t)>& value) {
  return DeviceReference(compute_parallel(n, value));
}

ErrorStats DeviceReference::check(const float* got, const Tolerance& tol, cudaStream_t stream,
                                  const std::vector<std::size_t>* report_index) const {
  const std::size_t n = size();
  DeviceBuffer<DeviceTotals> totals(1);
  CUDA_CHECK(cudaMemsetAsync(totals.data(), 0, sizeof(DeviceTotals), stream));
  if (n > 0) {
    const unsigned blocks = grid_stride_blocks(compare_kernel, static_cast<std::int64_t>(n), kThreads, kThreads);
    compare_kernel<<<blocks, kThreads, 0, stream>>>(got, expected_.data(), atol_.size() ? atol_.data() : nullptr,
                                                    tol.atol, tol.rtol, n, totals.data());
    CUDA_CHECK_LAUNCH();
  }
  DeviceTotals t{};
  CUDA_CHECK(cudaMemcpyAsync(&t, totals.data(), sizeof(t), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  double max_abs = 0.0;
  static_assert(sizeof(max_abs) == sizeof(t.max_abs_bits), "a double is 64 bits");
  std::memcpy(&max_abs, &t.max_abs_bits, sizeof(max_abs));
  const ErrorStats stats = ErrorStats::from_totals(n, t.nonfinite, t.over, t.sum_sq_diff, t.sum_sq_ref, max_abs);
  if (stats.passed(tol)) return stats;

  // Failed: the same comparison on the CPU, which also keeps the worst elements for the report.
  std::vector<float> host_got(n);
  if (n > 0) CUDA_CHECK(cudaMemcpy(host_got.data(), got, n * sizeof(float), cudaMemcpyDeviceToHost));
  const std::vector<double> host_expected = expected_.to_host();
  const std::vector<double> host_atol = atol_.to_host();
  return parallel_check(n, [&](std::size_t begin, std::size_t end, ErrorStats& s) {
    Tolerance each = tol;
    for (std::size_t i = begin; i < end; ++i) {
      if (!host_atol.empty()) each.atol = host_atol[i];
      s.add(report_index != nullptr ? (*report_index)[i] : i, static_cast<double>(host_got[i]), host_expected[i],
            each);
    }
  });
}

DeviceSampleReference::DeviceSampleReference(std::vector<std::size_t> index,
                                             const std::function<double(std::size_t)>& expected)
    : index_(std::move(index)),
      device_index_(index_),
      reference_(compute_parallel(index_.size(), [&](std::size_t k) { return expected(index_[k]); })),
      gathered_(index_.size()) {}

ErrorStats DeviceSampleReference::check(const float* array, const Tolerance& tol, cudaStream_t stream) const {
  const std::size_t count = size();
  if (count > 0) {
    const unsigned blocks = grid_stride_blocks(gather_kernel, static_cast<std::int64_t>(count), kThreads, kThreads);
    gather_kernel<<<blocks, kThreads, 0, stream>>>(array, device_index_.data(), count, gathered_.data());
    CUDA_CHECK_LAUNCH();
  }
  return reference_.check(gathered_.data(), tol, stream, &index_);
}

}  // namespace tut
