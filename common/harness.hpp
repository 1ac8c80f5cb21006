/// @file
/// @brief The chapter runner: command line, version selection, check-then-time, table, JSON.
///
/// A chapter implements the small Chapter interface (its flags, its versions, its problems, and
/// how to run one problem); chapter_main() does everything else the same way for all chapters:
///
///     parse flags -> --help / --list -> pick versions -> find the GPU -> for each problem:
///       check it fits in memory, Chapter::run() -> Session::measure() per version
///       -> print the table -> write JSON/CSV -> exit status
///
/// Session::measure() is where the rules of DESIGN.md live: skip a version the GPU cannot run,
/// poison the output, run once, check against the CPU reference, time (warm-up, repetitions,
/// L2 flush, median), then poison, run and check again, so that a result that only appears
/// correct by luck of the timing loop, or is corrupted by repetition, is caught.
#pragma once

#include <cuda_runtime.h>

#include <any>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "common/compare.hpp"
#include "common/device_info.hpp"
#include "common/report.hpp"
#include "common/timing.hpp"

namespace tut {

/// Exit statuses of every chapter executable.
enum ExitStatus : int {
  kExitOk = 0,         ///< every selected version was correct
  kExitWrong = 1,      ///< at least one result was wrong
  kExitUsage = 2,      ///< bad command line (unknown flag, bad size, too large for memory, ...)
  kExitNoDevice = 3,   ///< no usable CUDA device
  kExitCudaError = 4,  ///< a CUDA or library call failed
};

/// One problem to run: named dimensions plus the memory it needs.
struct Problem {
  std::string label;                                        ///< e.g. "add n=268435456"
  std::vector<std::pair<std::string, std::int64_t>> shape;  ///< named dimensions
  std::string dtype = "fp32";                               ///< element type
  double device_bytes = 0.0;  ///< device memory the problem allocates (checked before running)
  double host_bytes = 0.0;    ///< host memory it allocates (inputs, reference, copies)
  /// What the chapter needs to know to run it beyond the shape, as the chapter's own type (an
  /// operation, a precision): Chapter::run() reads it with as<T>(), never by parsing `label`.
  std::any what;

  /// The chapter's description of this problem, `what`, as a T (throws std::bad_any_cast when
  /// `what` holds something else: a programming error, never a user's).
  template <class T>
  const T& as() const {
    return std::any_cast<const T&>(what);
  }

  /// The dimension called `name` (throws std::out_of_range if absent).
  std::int64_t dim(const std::string& name) const;
};

/// Everything Session::measure() needs to check and time one version on the current problem.
struct Candidate {
  VersionInfo info;                    ///< which version (name, kind, minimum GPU)
  double bytes = 0.0;                  ///< minimum bytes moved by one run
  double flops = 0.0;                  ///< canonical flop count of one run
  std::function<void(cudaStream_t)> run;          ///< one run, writing the output buffer
  std::function<void(cudaStream_t)> poison;       ///< fill the output with NaN
  std::function<ErrorStats()> check;              ///< copy the output back and compare
  std::function<void(cudaStream_t)> before_each;  ///< optional untimed reset before each run
  Tolerance tolerance;                 ///< what check() is judged against
  IndexFormatter where;                ///< optional: flat index -> readable position
  std::string skip_reason;             ///< non-empty: report as skipped without running
};

/// The state of one run of a chapter executable, handed to Chapter::run().
class Session {
 public:
  /// Created by chapter_main().
  Session(const CommonOptions& options, const DeviceInfo& device, std::vector<std::string> selected);
  ~Session();

  /// The shared flags.
  const CommonOptions& options() const { return options_; }
  /// The GPU.
  const DeviceInfo& device() const { return device_; }
  /// The stream every version runs on.
  cudaStream_t stream() const { return stream_; }
  /// True if `version` was selected on the command line (or by default).
  bool wants(const std::string& version) const;
  /// The seed for this run's inputs.
  std::uint64_t seed() const { return static_cast<std::uint64_t>(options_.seed); }

  /// Starts a new result table; rows added by measure() go into it.
  ProblemResult& begin_problem(const Problem& problem, Metric metric, double peak, std::string peak_name);
  /// The table being filled.
  ProblemResult& current();
  /// All tables so far.
  const std::vector<ProblemResult>& problems() const { return problems_; }

  /// Checks, times and re-checks one version (skipped if not selected), appending its row.
  /// Returns false only if the version ran and was wrong. Says which version it is on (status()).
  bool measure(const Candidate& candidate, const std::string& chapter);

  /// Progress, so that a long run never leaves a silent terminal: on a terminal, one line on
  /// stderr rewritten in place ("problem: what"), erased before the next table; when stderr is
  /// a file or a pipe, one line per call, prefixed with "... ". Chapters call it for their own
  /// slow steps (the CPU reference of a big problem, say).
  void status(const std::string& what);
  /// Erases a status line left on the terminal (before a table is printed).
  void clear_status();
  /// Called by chapter_main() before Chapter::run(): status lines start with "[i/count] label: ".
  void start_problem_status(const Problem& problem, std::size_t index, std::size_t count);

 private:
  CommonOptions options_;
  DeviceInfo device_;
  std::vector<std::string> selected_;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<L2Flusher> flusher_;
  std::vector<ProblemResult> problems_;
  std::string status_prefix_;   // "[i/count] label: " of the problem being prepared or measured
  bool status_shown_ = false;   // a status line is on the terminal
};

/// What a chapter provides to chapter_main().
class Chapter {
 public:
  virtual ~Chapter() = default;
  /// Short name: executable, JSON "chapter", NVTX prefix (e.g. "elementwise").
  virtual std::string name() const = 0;
  /// One line for --help.
  virtual std::string description() const = 0;
  /// Declares the chapter's own flags (problem sizes, --op, --dtype, ...).
  virtual void add_options(Cli& cli) = 0;
  /// Every version it can run, in table order (ladder, baselines, extra rows such as tuning candidates).
  virtual std::vector<VersionInfo> versions() const = 0;
  /// The problems to run: the default problem(s), or the size sweep when `sweep` is true.
  /// Throws UsageError for invalid flag combinations.
  virtual std::vector<Problem> problems(bool sweep) const = 0;
  /// Sets up one problem (inputs, reference) and calls session.measure() for each version.
  virtual void run(const Problem& problem, Session& session) = 0;
  /// True for a chapter's tuning search (bin/\<chapter\>_tune): it has no exercise of its own.
  virtual bool is_search() const { return false; }
};

/// A row of a chapter's table that is not in its registry (e.g. a tuning candidate). The
/// exercise is not a row of any table: it has its own check (common/exercise/checker.hpp).
template <class Run>
struct ExtraRow {
  VersionInfo info;  ///< its name, summary, minimum GPU and kind
  Run run;           ///< how to run it (the chapter's launcher type)
};

/// The whole executable: returns the exit status (see ExitStatus). Never throws.
int chapter_main(Chapter& chapter, int argc, const char* const* argv);

/// The VersionInfo of every entry of a chapter's registry (any list of structs with a member
/// `info`), in order: what Chapter::versions() returns for a chapter whose rows are its registry.
template <class Registry>
std::vector<VersionInfo> infos_of(const Registry& registry) {
  std::vector<VersionInfo> infos;
  for (const auto& entry : registry) infos.push_back(entry.info);
  return infos;
}

/// The sizes of a size sweep around powers of two: 2^e - 1, 2^e and 2^e + 1 for each exponent e
/// (one below, at and above every power: where tails and partial tiles go wrong).
std::vector<std::int64_t> around_powers_of_two(const std::vector<int>& exponents);

/// Integer ceil(a / b) for positive b.
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace tut
