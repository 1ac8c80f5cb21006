/// @file
/// @brief Chapter 02 (reduce): declarations shared by the versions, the executable and the tests.
///
/// A reduction turns n floats into one: their sum, their maximum, or (with a second input) their
/// dot product. The registry, versions(), is the only list of versions: the executable, --list,
/// the tests and the JSON all iterate it.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/compare.hpp"
#include "common/device_buffer.hpp"
#include "common/random.hpp"
#include "common/report.hpp"

struct cublasContext;  // cuBLAS's handle type (cublasHandle_t); only baselines.cu needs its header

/// Chapter 02: reductions of n floats to one value.
namespace reduce {

/// What is reduced.
enum class Operation {
  sum,  ///< x[0] + x[1] + ... + x[n-1]; identity 0
  max,  ///< max(x[0], ..., x[n-1]); identity -inf
  dot,  ///< x[0]*y[0] + ... + x[n-1]*y[n-1]; identity 0
};

/// "sum", "max" or "dot".
const char* operation_name(Operation op);

/// Scratch memory of one problem size, allocated once, outside the timed runs.
///
/// Multi-pass versions keep their per-block partial results here; the one-launch versions also
/// use a counter of finished blocks, which is zero before and after every run (the last block
/// resets it). The CUB baseline's temporary storage and the cuBLAS handle live here too.
class Workspace {
 public:
  /// Sized for any version and any operation on up to `n` elements.
  explicit Workspace(std::int64_t n);
  /// Borrowed memory, e.g. from PyTorch's caching allocator (pytorch/tutorial_ops.cpp): `floats`
  /// partials (16-byte aligned) and the finished-blocks counter, which must be zero (and which
  /// every one-launch version leaves at zero). Enough for the versions that need no CUB storage
  /// and no cuBLAS (v0-v7); the caller keeps the memory alive while the work is in flight.
  Workspace(float* partials, std::size_t floats, unsigned int* blocks_done);
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  /// The partials area: `count` floats, 16-byte aligned. Throws std::logic_error if `count`
  /// exceeds capacity() (a version asking for more than workspace_floats() promised).
  float* partials(std::size_t count);
  /// Floats in the partials area.
  std::size_t capacity() const { return partials_count_; }
  /// The finished-blocks counter of the one-launch versions (zero between runs).
  unsigned int* blocks_done() { return counter_ptr_; }
  /// CUB's temporary storage: at least `bytes` (throws std::logic_error otherwise).
  void* cub_temp(std::size_t bytes);
  /// The cuBLAS handle (created on first use; the dot baseline only).
  cublasContext* cublas();
  /// Fills the partials with NaN (tests: a version that reads a partial it never wrote fails).
  void poison_partials(cudaStream_t stream = nullptr);

 private:
  tut::DeviceBuffer<float> partials_;         // empty when borrowed
  tut::DeviceBuffer<unsigned int> counter_;    // empty when borrowed
  tut::DeviceBuffer<unsigned char> cub_temp_;  // empty when borrowed
  float* partials_ptr_ = nullptr;              // owned or borrowed
  std::size_t partials_count_ = 0;
  unsigned int* counter_ptr_ = nullptr;
  cublasContext* cublas_ = nullptr;
};

/// Floats of partials a Workspace for `n` elements holds: enough for every level of the
/// multi-pass versions (at least 256 elements per block: n/256 + n/256^2 + ... < n/255 + levels),
/// each level rounded up to a multiple of 4 floats (16-byte aligned), plus one full wave of
/// blocks for the grid-stride versions (at most 65,536 on any GPU).
std::size_t workspace_floats(std::int64_t n);

/// One run of a version: reduce `n` elements of `x` (and `y`, for the dot product; null
/// otherwise) into the single float `*out`, enqueued on `stream`. n = 0 writes the identity
/// (0 for sum and dot, -inf for max); n < 0 throws std::invalid_argument.
using Launch = void (*)(Operation op, const float* x, const float* y, float* out, std::int64_t n, Workspace& ws,
                        cudaStream_t stream);

/// Operations a version implements (a bit set).
enum OperationMask : unsigned {
  kSum = 1,                     ///< Operation::sum
  kMax = 2,                     ///< Operation::max
  kDot = 4,                     ///< Operation::dot
  kAllOps = kSum | kMax | kDot,  ///< every operation
};

/// The bit of `op` in an OperationMask.
unsigned operation_bit(Operation op);

/// The order in which a version adds its n terms: it decides the version's error bound.
enum class Order {
  tree,    ///< a tree (or serial runs per thread, then a tree): error grows like log2 n
  serial,  ///< one chain of n additions in any order (v0's atomics): error grows like n
  any,     ///< an order the checker does not know (the exercise's atomics of block sums)
};

/// "tree", "serial" or "any".
const char* order_name(Order order);

/// A registered version: everything the executable and the tests need to run and check it.
struct Version {
  tut::VersionInfo info;  ///< name, one-line idea, minimum GPU, kind
  unsigned ops;           ///< OperationMask: which operations it implements
  Launch launch;          ///< runs it
  bool deterministic;     ///< the same bits on every run (no floating-point atomics)
  Order order;            ///< how it adds: the error bound it is held to (tolerance())
};

/// The registry: every version of the chapter, in table order (ladder, then baselines).
const std::vector<Version>& versions();

/// @name The ladder (one file each: v0_atomic.cu ... v7_one_pass.cu)
/// @{
void launch_reduce_v0_atomic(Operation op, const float* x, const float* y, float* out, std::int64_t n,
                             Workspace& ws, cudaStream_t stream);
void launch_reduce_v1_interleaved(Operation op, const float* x, const float* y, float* out, std::int64_t n,
                                  Workspace& ws, cudaStream_t stream);
void launch_reduce_v2_strided_index(Operation op, const float* x, const float* y, float* out, std::int64_t n,
                                    Workspace& ws, cudaStream_t stream);
void launch_reduce_v3_sequential(Operation op, const float* x, const float* y, float* out, std::int64_t n,
                                 Workspace& ws, cudaStream_t stream);
void launch_reduce_v4_first_add(Operation op, const float* x, const float* y, float* out, std::int64_t n,
                                Workspace& ws, cudaStream_t stream);
void launch_reduce_v5_warp_shuffle(Operation op, const float* x, const float* y, float* out, std::int64_t n,
                                   Workspace& ws, cudaStream_t stream);
void launch_reduce_v6_float4(Operation op, const float* x, const float* y, float* out, std::int64_t n,
                             Workspace& ws, cudaStream_t stream);
void launch_reduce_v7_one_pass(Operation op, const float* x, const float* y, float* out, std::int64_t n,
                               Workspace& ws, cudaStream_t stream);
/// @}

/// @name Library baselines (baselines.cu)
/// @{

/// cub::DeviceReduce::Sum / Max (sum and max only), temporary storage from the Workspace.
void launch_reduce_cub(Operation op, const float* x, const float* y, float* out, std::int64_t n, Workspace& ws,
                       cudaStream_t stream);
/// cublasSdot_64 with the result written to device memory (dot only).
void launch_reduce_cublas(Operation op, const float* x, const float* y, float* out, std::int64_t n,
                          Workspace& ws, cudaStream_t stream);
/// Bytes of CUB temporary storage that cub::DeviceReduce::Sum and cub::DeviceReduce::Max need for n elements.
std::size_t cub_temp_bytes(std::int64_t n);
/// @}

/// Enqueues `*out = identity of op` (what every version writes for n = 0).
void write_identity(Operation op, float* out, cudaStream_t stream);

/// Number of elements to peel, one at a time, before `x` (and `y`, if not null) reach a 16-byte
/// boundary together, so that float4 loads can start; `n` if their misalignments differ (then
/// everything is done with scalar loads).
std::int64_t float4_peel(std::int64_t n, const float* x, const float* y);

// ------------------------------------------------------------------------------------------
// CPU side: the reference, the tolerance, and the accuracy demonstrations (reference.cpp).

/// The reference result of one reduction, computed in double precision.
///
/// Checks pass both fields to tut::ErrorStats::add(index, got, value, magnitude, tolerance):
/// the error of a sum is bounded relative to the magnitude of its terms, never to the sum
/// itself, which cancellation can make arbitrarily small (see tolerance()).
struct Reference {
  double value = 0.0;      ///< the exact-as-double result (the sum, the max, or the dot product)
  double magnitude = 0.0;  ///< sum of |term| (|x_i|, or |x_i y_i| for dot): the scale of the rounding error; 0 for max
};

/// The reference for `n` elements (y only for dot), on all the CPU's threads.
Reference reference(Operation op, const float* x, const float* y, std::size_t n);

/// Unit roundoff of fp32: 2^-24, the largest relative error of one rounding to nearest.
constexpr double kUnitRoundoff = 1.0 / 16777216.0;

/// The error a float result of `op` over `n` elements, added in `order`, may have, and why.
///
/// The bound is relative to the magnitude of the terms, M = sum|term| (Reference::magnitude):
/// |got - ref| <= rtol * M per result, and the normwise error |got - ref| / M <= max_rel_norm
/// (= rtol); atol is 0. max: exact (a max never rounds), in any order. sum and dot, u = 2^-24:
/// - Order::tree: rtol = (2 * ceil(log2 n) + 16 (+1 for dot's rounded products)) * u: twice the
///   worst case of a tree, ceil(log2 n) * u (Higham 2002, section 4.2), plus slack. A worst
///   case for the pure trees v1-v5; for v6, v7 and the libraries, whose threads first add
///   serial runs of up to n / (resident threads) terms, a probabilistic bound (see the chapter
///   page, "Accuracy").
/// - Order::serial: rtol = (1 + u)^c - 1, c = n (n + 1 for dot): the worst case of recursive
///   summation in any order (Higham 2002, (4.4)), about c u. Rigorous for every n; from n ~ 2^24
///   on it exceeds 1: a serial float sum then guarantees nothing (it can stagnate), and only
///   NaN, Inf or an error beyond M fail.
/// - Order::any: rtol = min((1 + u)^c - 1, exp(6 sqrt(c) u + c u^2) - 1): the worst case for
///   small n, else the probabilistic bound of any order of c roundings (Higham and Mary 2019):
///   exceeded with probability below 2 exp(-6^2 / 2) = 3e-8 when rounding errors are independent
///   and of mean zero. About 6 sqrt(n) u.
tut::Tolerance tolerance(Operation op, std::int64_t n, Order order = Order::tree);

/// The sum of `n` floats added left to right in float (what one thread, or a chain of
/// atomics, computes): error up to (n-1) * u * sum|x|, and it stagnates once the running sum
/// is 2^24 times larger than the terms.
float sum_serial_float(const float* x, std::size_t n);

/// The sum of `n` floats added pairwise in float (split in halves recursively, as a tree
/// reduction does): error at most ceil(log2 n) * u * sum|x|.
float sum_pairwise_float(const float* x, std::size_t n);

/// What the two integer atomics of v0's float max compute, on bit patterns: for a value with
/// the sign bit clear (+0 up to +inf), the larger of the two as signed ints; with the sign bit
/// set (-0 down to -inf), the smaller as unsigned ints. Returns the new contents of the word.
/// A host-and-device function, so the CPU tests can check the ordering argument exhaustively.
__host__ __device__ inline std::uint32_t max_by_integer_order(std::uint32_t current, std::uint32_t value) {
  if (static_cast<std::int32_t>(value) >= 0) {
    return static_cast<std::int32_t>(current) > static_cast<std::int32_t>(value) ? current : value;
  }
  return current < value ? current : value;
}

// ------------------------------------------------------------------------------------------
// Inputs.

/// Element `index` of the integer-valued inputs of the exact tests: an integer in [-k, k] from
/// the same counter-based hash as tut::random_floats (identical on host and device). Sums of
/// such values are exact in float as long as every partial sum stays below 2^24 in magnitude.
__host__ __device__ inline float integer_value(std::uint64_t seed, std::uint64_t index, int k) {
  return floorf(tut::hash_uniform(seed, index, -static_cast<float>(k), static_cast<float>(k) + 1.0f));
}

/// Largest k such that any sum of n values in [-k, k] (or of n products of two such values,
/// for dot) stays below 2^24, so integer inputs sum exactly in any order; at least 1 (for
/// n > 2^24, exactness then holds with overwhelming probability, not for every order: see
/// the chapter page).
int exact_integer_range(Operation op, std::int64_t n);

/// Host vector of `n` integer_value()s.
std::vector<float> integer_values(std::size_t n, std::uint64_t seed, int k);

/// Fills device memory with the integer_value()s (asynchronous).
void fill_integers_device(float* device, std::size_t n, std::uint64_t seed, int k, cudaStream_t stream = nullptr);

}  // namespace reduce
