/// @file
/// @brief Results: one row per version, a table per problem, and the JSON/CSV files.
///
/// The JSON shape is a contract read by tools/ and the grader (see DESIGN.md, "JSON result"):
/// `{chapter, git, device{...}, problems[{label, shape{...}, dtype, metric, peak, results[...]}]}`.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "common/device_info.hpp"
#include "common/json.hpp"
#include "common/timing.hpp"

namespace tut {

/// Who wrote a row's code.
enum class Kind {
  ours,      ///< a version of the tutorial's ladder (or one of our baselines)
  library,   ///< the vendor library or the driver (cuBLAS, CUB, cuDNN, cudaMemcpy)
  exercise,  ///< the student's exercise (not run unless asked for by name)
  solution,  ///< the exercise's reference solution
};

/// "ours", "library", "exercise" or "solution".
const char* kind_name(Kind kind);

/// A version as listed by --list and registered by a chapter.
struct VersionInfo {
  std::string name;     ///< stable name, e.g. "v3_float4"; used by --version and in JSON
  std::string summary;  ///< one line: the idea
  int min_cc = 75;      ///< minimum compute capability (75 = sm_75)
  Kind kind = Kind::ours;  ///< who wrote it
};

/// What a row's throughput is measured in.
enum class Metric {
  gbps,    ///< memory-bound: GB/s of minimum traffic
  tflops,  ///< compute-bound: TFLOP/s of the canonical operation count
};

/// One version's outcome on one problem.
struct ResultRow {
  VersionInfo info;          ///< which version
  bool skipped = false;      ///< not run (GPU too old, library missing, ...)
  std::string skip_reason;   ///< why, when skipped
  bool correct = false;      ///< passed the check before and after timing (JSON: null when skipped)
  double rel_err = 0.0;      ///< normwise relative error of the (first) check
  double max_abs_err = 0.0;  ///< max elementwise absolute error of the (first) check
  TimingStats time;          ///< time.reps == 0 when not timed
  double bytes = 0.0;        ///< minimum bytes moved (each input read once, each output written once)
  double flops = 0.0;        ///< canonical floating-point operations
  // Derived by ProblemResult::finalize():
  double gbps = 0.0;           ///< bytes / median time
  double tflops = 0.0;         ///< flops / median time
  double pct_of_peak = 0.0;    ///< throughput as % of the problem's peak
  double speedup = 0.0;        ///< baseline's median time / this median time
  double vs_library = 0.0;     ///< throughput / the library row's throughput (same run, same data)
};

/// All rows of one problem (one shape), plus what they are compared against.
struct ProblemResult {
  std::string label;                                         ///< e.g. "add n=268435456"
  std::vector<std::pair<std::string, std::int64_t>> shape;   ///< e.g. {{"n", 268435456}}
  std::string dtype = "fp32";                                ///< element type
  Metric metric = Metric::gbps;                              ///< what "throughput" means here
  double peak = 0.0;            ///< the roof in that metric (e.g. measured copy GB/s)
  std::string peak_name;        ///< what the roof is, e.g. "device-to-device copy"
  std::string baseline;         ///< version the speedup column is relative to (default: first row of ours)
  std::string library;          ///< library row for vs_library (default: first library row)
  std::vector<ResultRow> rows;  ///< in run order

  /// Computes the derived columns of every row.
  void finalize();
  /// The row of `version`, or null.
  const ResultRow* find(const std::string& version) const;
};

/// The whole run: what the JSON file holds.
struct RunReport {
  std::string chapter;                  ///< e.g. "elementwise"
  std::string git;                      ///< commit, or "unknown"
  DeviceInfo device;                    ///< where it ran
  std::vector<ProblemResult> problems;  ///< one per problem

  /// The JSON document (see the file comment for its shape).
  Json to_json() const;
  /// One CSV line per row, with a header line.
  std::string to_csv() const;
};

/// A relative error for a table cell: "0" when exact, "NaN/Inf" when not finite, else "1.2e-07".
std::string relative_error_text(double rel_err);

/// Prints one problem as an aligned text table (the relative error column is the normwise
/// ||got - ref|| / ||ref|| of the check before timing).
void print_table(std::ostream& os, const ProblemResult& problem);

/// The commit the binary was built from (generated at build time), or "unknown".
const char* git_commit();

/// Formats a byte count as "1.50 GiB".
std::string format_bytes(double bytes);

}  // namespace tut
