/// @file
/// @brief The checker: makes an exercise's cases, runs a runner on them, and judges what comes back.
///
/// Each chapter describes its exercise once, as a tut::exercise::Exercise (in
/// `chapters/NN_name/exercise_check.cpp`): its public cases, the hidden cases a secret seed makes,
/// the timed case, the inputs of a case, and how one output is compared with the CPU reference.
/// checker_main() does the rest the same way for every chapter:
///
///     make the cases and their inputs -> write the request -> run the runner in its own,
///     isolated process (restarted after a case that kills it) -> read the response -> for every
///     case: the launcher's error, the loaded libraries, the captured graph (a kernel, no host
///     callback), the guards, the inputs, and every output against the reference
///     -> optionally the timed case, for the runner and the solution, every repetition checked
///     -> one line per case, a verdict on the last line, and a JSON report
///
/// This process never loads the code it judges, and nothing the runner writes but its outputs
/// reaches the verdict. See docs/guides/grading.md for the trust model.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/compare.hpp"
#include "common/exercise/wire.hpp"

namespace tut::exercise {

/// The arrays of one run as the checker sees them: the inputs it sent (for the run's input set)
/// and the outputs that came back.
class RunView {
 public:
  /// The run `run` (null: inputs only) of case `c` on its input set `set`.
  RunView(const CaseRequest& c, std::uint32_t set, const RunBack* run) : c_(c), set_(set), run_(run) {}

  /// The input set.
  std::uint32_t set() const { return set_; }
  /// The bytes of input array `name` (role in or inout) that were uploaded for this run.
  const std::vector<unsigned char>& input_bytes(const std::string& name) const;
  /// input_bytes() as floats.
  const float* input(const std::string& name) const;
  /// The bytes of output array `name` (role out or inout) that came back.
  const std::vector<unsigned char>& output_bytes(const std::string& name) const;
  /// output_bytes() as floats.
  const float* output(const std::string& name) const;

 private:
  std::size_t index_of(const std::string& name) const;
  const CaseRequest& c_;
  std::uint32_t set_;
  const RunBack* run_;
};

/// What a chapter's reference computes for one input set of one case; kept while that set's runs
/// are compared (a timed case compares many runs against the same few references).
struct Expected {
  virtual ~Expected() = default;
};

/// The result of comparing one output with its reference.
struct Finding {
  bool passed = false;   ///< the output is right
  std::string summary;   ///< one line, e.g. "normwise error 3.1e-07 (tolerance 1.2e-06)"
  std::string details;   ///< several lines: the worst elements, the tolerance's reason
};

/// The Finding of one comparison: passed as `stats` says, a one-line summary of what is wrong
/// ("3 of 500 outputs wrong (1 not written or not finite)", or the normwise error when every
/// element is within its bound), and the details: the errors and the worst elements, placed by
/// `where`. `what` names the elements ("outputs", "elements of C"); `nonfinite` says what a NaN or
/// Inf output means for this exercise.
Finding finding_of(const tut::ErrorStats& stats, const tut::Tolerance& tol, const std::string& what,
                   const tut::IndexFormatter& where, const std::string& nonfinite = "not written or not finite");

/// One chapter's exercise, as the checker needs it.
class Exercise {
 public:
  virtual ~Exercise() = default;

  /// The chapter's name, e.g. "gemm".
  virtual std::string chapter() const = 0;
  /// The exercise file, e.g. "exercises/06_gemm/gemm_2d_blocktile.cu".
  virtual std::string file() const = 0;
  /// One line printed under a failure: where to look.
  virtual std::string hint() const = 0;

  /// The public cases (parameters and arrays; no data): the size sweep every student sees.
  virtual std::vector<CaseRequest> public_cases() const = 0;
  /// Hidden cases drawn from `seed`: every parameter of the launcher varies independently.
  /// `extra_sizes` are the grader's extra sizes (the chapter turns them into its shapes).
  virtual std::vector<CaseRequest> hidden_cases(std::uint64_t seed, const std::vector<std::int64_t>& extra_sizes) const = 0;
  /// The timed case (a problem big enough to time).
  virtual CaseRequest speed_case() const = 0;

  /// The bytes of every uploaded array of `c` (in the order of CaseRequest::uploaded()), from `seed`.
  virtual std::vector<std::vector<unsigned char>> make_inputs(const CaseRequest& c, std::uint64_t seed) const = 0;
  /// The reference for the inputs of `view` (its outputs are not looked at).
  virtual std::unique_ptr<Expected> expect(const CaseRequest& c, const RunView& view) const = 0;
  /// Compares the outputs of `view` with `expected`.
  virtual Finding compare(const CaseRequest& c, const Expected& expected, const RunView& view) const = 0;

  /// Minimum bytes one call moves (each input read once, each output written once), for GB/s.
  virtual double bytes(const CaseRequest& c) const = 0;
  /// Canonical floating-point operations of one call (0: a memory-bound exercise), for TFLOP/s.
  virtual double flops(const CaseRequest& c) const = 0;
};

/// The draws of a chapter's hidden cases: the same sequence for the same seed, a new one for
/// another seed (SplitMix64 steps, tut::mix64).
class SeededDraw {
 public:
  /// Draws that start from `seed`.
  explicit SeededDraw(std::uint64_t seed) : state_(seed) {}
  /// A number in [0, count) (count > 0).
  std::uint64_t below(std::uint64_t count);
  /// A number in [lo, hi] (lo <= hi).
  std::int64_t between(std::int64_t lo, std::int64_t hi);

 private:
  std::uint64_t state_;
};

/// The integer parameter `name` of `c` (std::out_of_range if absent).
std::int64_t int_param(const CaseRequest& c, const std::string& name);
/// The real parameter `name` of `c`.
double real_param(const CaseRequest& c, const std::string& name);
/// An fp32 array of `count` elements, `offset` elements past an aligned address.
ArraySpec f32_array(const std::string& name, Role role, std::uint64_t count, std::uint32_t offset = 0);
/// `count` random floats in [lo, hi) from `seed` (tut::random_floats), as bytes.
std::vector<unsigned char> random_f32_bytes(std::uint64_t count, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f);

/// The whole checker program: `check_<chapter> --runner PATH ...` (see --help).
/// Exit status: 0 every case passed, 1 a case failed, 2 bad command line, 77 not checked (no GPU).
int checker_main(int argc, char** argv, const Exercise& exercise);

}  // namespace tut::exercise
