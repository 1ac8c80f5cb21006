/// @file
/// @brief What the two executables of the chapter share (`attention` and `attention_tune`): the
/// size flags and the problems they make, and how the rows of one table are checked and timed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attention.hpp"
#include "common/cli.hpp"
#include "common/harness.hpp"

namespace attention {

/// What a problem is beyond its named dimensions, in tut::Problem::what: run() reads it with
/// `problem.as<Case>()`.
struct Case {
  Shape shape;          ///< B, H, Sq, Sk, D and the mask
  Precision precision;  ///< which table: fp32 (CUDA cores) or bf16 (tensor cores)
};

/// The size flags of both executables (--b --h --s --sq --sk --d --mask --dtype) and the problems
/// they make.
struct SizeFlags {
  std::int64_t b = 0;         ///< --b (0: not given)
  std::int64_t h = 0;         ///< --h
  std::int64_t s = 0;         ///< --s: Sq = Sk
  std::int64_t sq = 0;        ///< --sq
  std::int64_t sk = 0;        ///< --sk
  std::int64_t d = 0;         ///< --d
  std::string mask = "both";  ///< --mask: both, none, causal
  std::string dtype = "all";  ///< --dtype: all, fp32, bf16

  /// Declares the flags on `cli`.
  void add_to(tut::Cli& cli);
  /// True if any size flag was given (then they make one shape).
  bool given() const;
  /// The problems: the shape the flags give, or the table's four shapes (B4 H16 S1024 D64, B4 H16
  /// S4096 D64, B2 H16 S4096 D128, B1 H32 S8192 D128), or the size sweep (`sweep`: D = 64, no
  /// mask, S around powers of two); each with the masks and precisions --mask and --dtype ask for.
  /// Throws tut::UsageError for contradicting flags.
  std::vector<tut::Problem> problems(bool sweep) const;
};

/// A row of a table: a version of the registry, a library baseline or a candidate of a search.
struct Row {
  tut::VersionInfo info;   ///< name, summary, minimum GPU, kind
  Kernel kernel;           ///< how to run it
  double max_flops = 0.0;  ///< above it: "too slow at this size" (0: no cap)
  std::string skip;        ///< non-empty: why it does not run this problem
  double workspace = 0.0;  ///< device scratch bytes it needs (the unfused paths' S)
};

/// Runs one problem: makes its inputs (seeded, on the device), its CPU reference and tolerances,
/// then checks and times each row with session.measure() (rows not selected are skipped). The
/// roof of "% of peak" is a large cuBLAS GEMM of the problem's precision, measured in this run.
/// `library` names the row the ratios are taken to ("" for none); `all_sizes` ignores the rows'
/// max_flops; `chapter` prefixes messages.
void run_rows(const tut::Problem& problem, tut::Session& session, std::vector<Row> rows, const std::string& library,
              bool all_sizes, const std::string& chapter);

}  // namespace attention
