/// @file
/// @brief Checking a result against a double-precision reference.
///
/// Two measures, both required to pass:
/// - the normwise relative error ||got - ref||_2 / ||ref||_2 (how wrong the result is overall);
/// - every element within atol + rtol * |ref| (catches a few wrong elements a norm would hide).
///
/// A result that is a sum of terms (a dot product, a reduction, a convolution) can be much
/// smaller than its terms when they cancel, and then an honest rounding error is large relative
/// to |ref|. Such checks pass each element's *magnitude* m = sum |term| as well
/// (ErrorStats::add with a magnitude): the element bound becomes atol + rtol * m and the normwise
/// error ||got - ref|| / ||m||. Set rtol to the error factor of the summation order the version
/// uses (about n u for a serial chain of n terms, log2(n) u for a tree, u = 2^-24 in fp32).
/// A NaN or infinite output element always fails, whatever the tolerances: all checks are written
/// as `!(err <= tol)`, which is true for NaN. On failure the worst few indices are reported.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace tut {

/// What a check accepts, and why (the why is printed with failures and documented per chapter).
struct Tolerance {
  double max_rel_norm = 1e-6;  ///< bound on ||got - ref|| / ||ref||
  double atol = 0.0;           ///< absolute part of the elementwise bound
  double rtol = 1e-6;          ///< relative part of the elementwise bound
  std::string why;             ///< one line: where these numbers come from
};

/// One element that missed its bound (or came closest to it).
struct Mismatch {
  std::size_t index = 0;  ///< flat index into the output
  double got = 0.0;       ///< the kernel's value
  double expected = 0.0;  ///< the reference value
  double excess = 0.0;    ///< |got - expected| / (atol + rtol*|expected|); > 1 fails; +inf for NaN/Inf
};

/// Turns a flat index into a readable position, e.g. "(row 3, col 17)".
using IndexFormatter = std::function<std::string(std::size_t)>;

/// Accumulates the error of an output against its reference, element by element.
/// Accumulators of disjoint chunks can be merged, so huge outputs can be checked piecewise.
class ErrorStats {
 public:
  /// How many worst elements are remembered for the report.
  static constexpr std::size_t kWorstKept = 5;

  /// Adds one element (its magnitude is |expected|).
  void add(std::size_t index, double got, double expected, const Tolerance& tol);
  /// Adds one element that is a sum of terms: `magnitude` = sum of |term| (>= |expected|) scales
  /// both its bound (atol + rtol * magnitude) and the normwise error's denominator.
  void add(std::size_t index, double got, double expected, double magnitude, const Tolerance& tol);
  /// Adds the elements of another accumulator (for a disjoint set of indices).
  void merge(const ErrorStats& other);

  /// An accumulator made from totals computed elsewhere (on the GPU: device_compare.hpp), with
  /// the same meaning as the fields add() maintains; it keeps no worst elements.
  static ErrorStats from_totals(std::size_t count, std::size_t nonfinite, std::size_t over, double sum_sq_diff,
                                double sum_sq_ref, double max_abs);

  /// Number of elements checked.
  std::size_t count() const { return count_; }
  /// Number of NaN or infinite output elements.
  std::size_t nonfinite() const { return nonfinite_; }
  /// Number of elements outside atol + rtol*|ref| (non-finite ones included).
  std::size_t over_tolerance() const { return over_; }
  /// ||got - ref|| / ||m||, where m is each element's magnitude (|ref|, or the sum of its terms'
  /// magnitudes where add() was given them); ||got - ref|| when m is all zeros; +inf if any
  /// output is non-finite.
  double rel_norm_error() const;
  /// Largest |got - ref| over finite elements (+inf if any output is non-finite).
  double max_abs_error() const;
  /// The worst elements, worst first.
  const std::vector<Mismatch>& worst() const { return worst_; }

  /// True only if there is at least one element, none is non-finite, none is over its bound,
  /// and the normwise error is within `tol.max_rel_norm`.
  bool passed(const Tolerance& tol) const;

  /// A multi-line report: the two errors, the counts, and the worst elements.
  std::string describe(const Tolerance& tol, const IndexFormatter& where = {}) const;

 private:
  void remember(const Mismatch& m);

  std::size_t count_ = 0;
  std::size_t nonfinite_ = 0;
  std::size_t over_ = 0;
  double sum_sq_diff_ = 0.0;
  double sum_sq_ref_ = 0.0;
  double sum_sq_scale_ = 0.0;  // sum of magnitude^2: the normwise error's denominator
  bool magnitudes_ = false;    // some element came with a magnitude of its terms
  double max_abs_ = 0.0;
  std::vector<Mismatch> worst_;
};

/// Compares `n` floats against a double reference.
ErrorStats compare(const float* got, const double* expected, std::size_t n, const Tolerance& tol);

/// Compares two vectors of equal length (a length mismatch throws std::invalid_argument).
ErrorStats compare(const std::vector<float>& got, const std::vector<double>& expected, const Tolerance& tol);

}  // namespace tut

namespace tut {

/// Number of CPU threads parallel_for() uses for n items of which each thread should get at
/// least `grain`: ceil(n / grain), at least 1, at most one per hardware thread (and 32).
std::size_t parallel_workers(std::size_t n, std::size_t grain = std::size_t{1} << 16);

/// Splits [0, n) into parallel_workers(n, grain) contiguous chunks and runs
/// `chunk(worker, begin, end)` for each on its own thread (the calling thread takes worker 0);
/// returns when all are done. The default grain suits cheap items (comparing elements); a
/// reference whose items are whole rows or outputs passes a grain of 1.
void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t, std::size_t)>& chunk,
                  std::size_t grain = std::size_t{1} << 16);

/// Checks [0, n) in parallel on the CPU's threads: `chunk(begin, end, stats)` adds the elements
/// of one chunk to its own accumulator; the accumulators are merged. For outputs of 10^8+
/// elements, where a single-threaded check would dominate a run.
ErrorStats parallel_check(std::size_t n, const std::function<void(std::size_t, std::size_t, ErrorStats&)>& chunk);

}  // namespace tut
