/// @file
/// @brief Catch2 v2/v3 compatibility and helpers shared by every chapter's tests.
///
/// Include this instead of a Catch2 header. It also provides the standard size sweep, the
/// seed (overridable, for hidden grading cases), and REQUIRE-style checks that print the worst
/// elements of a failed comparison.
#pragma once

#if defined(TUT_CATCH2_MAJOR) && TUT_CATCH2_MAJOR >= 3
#include <catch2/catch_test_macros.hpp>
#include <catch2/catch_approx.hpp>
#include <catch2/generators/catch_generators.hpp>
using Catch::Approx;
#else
#include <catch2/catch.hpp>
#endif

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/compare.hpp"

namespace tut::testing {

/// The 1-D size sweep of DESIGN.md: 1, small primes, 31/32/33, non-multiples of every tile and
/// of 4, around 2^20, plus any sizes in $TUTORIAL_EXTRA_SIZES (comma-separated; how graders add
/// hidden cases). Under $TUTORIAL_SANITIZE=1 only sizes up to 70'000 are kept (sanitizers are
/// slow).
std::vector<std::int64_t> sizes_1d();

/// The sizes in $TUTORIAL_EXTRA_SIZES (comma-separated), empty if unset: how graders add hidden
/// cases. Each chapter turns them into its own shapes (n, or n x n, 3 x n, ...).
std::vector<std::int64_t> extra_sizes();

/// A 2-D problem size: (rows, cols).
using Shape2 = std::pair<std::int64_t, std::int64_t>;

/// `shapes` without those of more than 70'000 elements when $TUTORIAL_SANITIZE=1.
std::vector<Shape2> sanitizer_sized(const std::vector<Shape2>& shapes);

/// The seed for test inputs: $TUTORIAL_SEED if set (graders use a secret one), else 20240601.
std::uint64_t seed();

/// True when $TUTORIAL_SANITIZE=1 (tests run under compute-sanitizer: keep sizes small).
bool sanitizing();

/// Marks this run as skipped for `reason` (e.g. a [large] case that does not fit the GPU); the
/// test executable then exits with 77, which CTest reports as skipped, if nothing failed.
void skip_run(const std::string& reason);

/// True if skip_run() was called.
bool run_was_skipped();

/// Free device memory in bytes (0 if unknown).
std::size_t free_device_bytes();

/// The whole text of the file at `path` (a test's REQUIRE fails if it cannot be read).
std::string read_text_file(const std::string& path);

/// REQUIREs of a `ptxas -v` report (the chapters' resource reports, cmake/run_ptxas.cmake): at
/// least one kernel ("Compiling entry function"), and in every kernel a register count ("Used N
/// registers"), no stack frame (the accumulators and tiles live in registers, not local memory)
/// and no spill stores or loads.
void require_no_spills(const std::string& ptxas_log);

/// REQUIREs that a `ptxas -v` report has none of the advisories that say ptxas changed a Hopper
/// kernel's plan: C7517 (a warpgroup.wait it had to insert, because registers a wgmma writes are
/// touched while it runs), C7510 (wgmma serialized), C7513 (serialized because registers a wgmma
/// reads are written while one may run), C7508 (setmaxnreg ignored), and any other that says
/// "serialized" (C7511: too few registers for the wgmma pipeline).
void require_wgmma_as_written(const std::string& ptxas_log);

/// A device float array with guard zones around it, to catch writes outside [0, n).
///
/// data() points `offset` floats past a 16-byte boundary (offset 1..3 gives a misaligned start,
/// as a sub-array view would). The n elements are poisoned with NaN; the guards (and the
/// `offset` floats before data()) hold a sentinel that check_guards() verifies afterwards.
class GuardedBuffer {
 public:
  /// Floats of guard on each side.
  static constexpr std::size_t kGuard = 1024;

  /// n elements starting `offset` floats after an aligned address.
  explicit GuardedBuffer(std::size_t n, std::size_t offset = 0);
  ~GuardedBuffer();
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  /// The first of the n elements.
  float* data() { return base_ + kGuard + offset_; }
  /// Number of elements.
  std::size_t size() const { return n_; }
  /// NaN in the n elements, the sentinel everywhere else.
  void poison();
  /// Uploads exactly n values (guards get the sentinel).
  void upload(const std::vector<float>& values);
  /// Downloads the n elements.
  std::vector<float> to_host() const;
  /// "" if every guard float still holds the sentinel; otherwise which one was overwritten.
  std::string check_guards() const;

 private:
  std::size_t n_, offset_, total_;
  float* base_ = nullptr;
};

/// Elements of a huge device array downloaded for a [large] test: all of [dense_from, n), where
/// 32-bit index overflow shows (indices >= 2^31), plus, before it, the first `run` elements of
/// every `pitch` (runs of consecutive elements, so a whole warp's accesses are checked).
struct DeviceSample {
  std::vector<std::size_t> index;  ///< which elements
  std::vector<float> value;        ///< their values
};

/// The positions of that sample of [0, n), in increasing order. Requires 0 < run <= pitch.
std::vector<std::size_t> sample_indices(std::size_t n, std::size_t dense_from, std::size_t run, std::size_t pitch);

/// Downloads that sample of `device[0, n)` (one pitched 2-D copy plus one contiguous copy).
/// Requires run <= pitch.
DeviceSample sample_device_array(const float* device, std::size_t n, std::size_t dense_from, std::size_t run,
                                 std::size_t pitch);

/// "" if `got` equals `expected` bit for bit; otherwise the first differing index (an input
/// that a kernel must not modify).
std::string compare_bits(const std::vector<float>& got, const std::vector<float>& expected);

}  // namespace tut::testing

/// Requires that `stats` passed `tol`; on failure, prints the errors and the worst elements.
#define TUT_REQUIRE_MATCH(stats, tol)                 \
  do {                                               \
    const auto& tut_stats_ = (stats);                \
    const auto& tut_tol_ = (tol);                    \
    INFO(tut_stats_.describe(tut_tol_));             \
    REQUIRE(tut_stats_.passed(tut_tol_));            \
  } while (0)
