/// @file
/// @brief One table of chapter 06: a problem's operands on the device, its CPU reference, and
/// every row (version, library, candidate) checked and timed on it. Shared by the chapter's
/// executable (main.cpp) and its search (tune/main.cpp), so both check the same way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/harness.hpp"
#include "gemm.hpp"

namespace gemm {

/// One row of a table: a version of the registry, a library baseline or a search's candidate.
struct TableRow {
  tut::VersionInfo info;                   ///< name, summary, minimum GPU, kind
  Kernel kernel;                           ///< how to run it (its precision must be the table's)
  double max_flops = 0.0;                  ///< "too slow at this size" above this many FLOPs; 0: no cap
  std::string (*unavailable)() = nullptr;  ///< null, or why it cannot run here (Version::unavailable)
};

/// What a table computes beyond its shape: the precision of its inputs and C = alpha A B + beta C.
struct TableProblem {
  Precision precision = Precision::fp32;  ///< the inputs' precision (the table's rows all have it)
  float alpha = 1.0f;                     ///< alpha
  float beta = 0.0f;                      ///< beta (nonzero: C is read, and restored before every run)
};

/// A tut::Problem for shape `s` and `what` (shape, dtype, memory needs filled in), labelled
/// `label`. `prob.what` holds `what` as a TableProblem.
tut::Problem table_problem(const Shape& s, const TableProblem& what, const std::string& label);

/// The registry's rows of precision `p`: the versions (unless `library_only`) and the libraries.
std::vector<TableRow> registry_rows(Precision p, bool library_only = false);

/// Generates the inputs of `problem` (seeded), computes the CPU reference, and measures every
/// row of `rows` that the session wants: checked against the reference, then timed. The table's
/// peak is the library row's measured rate. `all_sizes`: ignore the rows' max_flops.
void run_table(const tut::Problem& problem, tut::Session& session, const std::vector<TableRow>& rows,
               bool all_sizes, const std::string& chapter);

}  // namespace gemm
