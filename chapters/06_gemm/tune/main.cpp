// gemm_tune: the searches of chapter 06. Times every candidate of each search next to the library
// of its precision and the version that runs the search's winner, on the shapes the search was
// about; every row is checked against the CPU reference before it is timed (as in `gemm`).
//
//   gemm_tune                                   # all three searches (under 4 minutes on an H100):
//                                               #   v08's (fp32 FFMA) at 4096^3 and 8192^3,
//                                               #   v09's (tile shapes) at 1024^3, 4095x4097x1023, 4096x4097x1024,
//                                               #   v11's (BF16 mma.sync) at 8192^3
//   gemm_tune --json gemm_tune.json             # for docs/results/ ("Also measured: tune")
//   gemm_tune --dtype fp32 --m 4095 --n 4097 --k 1023   # v08's and v09's candidates at one shape
//   gemm_tune --dtype bf16 --m 4096 --n 4096 --k 4096   # v11's at another
//   gemm_tune --list                            # every candidate and what it is
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/harness.hpp"
#include "gemm.hpp"
#include "table.hpp"
#include "tune/tune.hpp"

namespace gemm::tune {

namespace {

/// Which searches a problem's table holds.
struct Searches {
  bool ffma = false;      ///< v08's candidates (ffma_candidates()), next to v08_tuned
  bool shape = false;     ///< v09's configurations (shape_candidates()), next to v09_by_shape
  bool mma_bf16 = false;  ///< v11's candidates (mma_bf16_candidates()), next to v11_mma_bf16
};

/// What a problem of gemm_tune is: the table's precision (TableProblem) and its searches.
struct SearchProblem {
  TableProblem table;  ///< precision, alpha = 1, beta = 0
  Searches searches;   ///< the candidates it times
};

/// The candidates as table rows: sm_80 for the FFMA ones (cp.async); sm_90 for v11's, sized for
/// Hopper's shared memory (up to 192 KiB per block). The summary names the version that runs one.
std::vector<TableRow> candidate_rows(const std::vector<Candidate>& candidates, int min_cc) {
  std::vector<TableRow> rows;
  for (const Candidate& c : candidates) {
    const std::string summary = c.summary + (c.chosen_by.empty() ? "" : " (" + c.chosen_by + ")");
    rows.push_back({{c.name, summary, min_cc, tut::Kind::ours}, c.kernel, 0.0, nullptr});
  }
  return rows;
}

/// The registry's row named `name` (a version that runs a search's winner, or a library).
TableRow registry_row(const std::string& name) {
  for (const auto& v : versions()) {
    if (v.info.name == name) return {v.info, v.kernel, v.max_flops, v.unavailable};
  }
  throw std::logic_error("gemm_tune: no version named " + name);
}

/// Every row of a table holding `s`, in order: the library, the versions that run the winners,
/// then the candidates.
std::vector<TableRow> search_rows(const Searches& s) {
  std::vector<TableRow> rows;
  const auto append = [&rows](std::vector<TableRow> more) { rows.insert(rows.end(), more.begin(), more.end()); };
  if (s.ffma || s.shape) rows.push_back(registry_row("cublas_sgemm"));
  if (s.mma_bf16) rows.push_back(registry_row("cublas_bf16"));
  if (s.ffma) rows.push_back(registry_row("v08_tuned"));
  if (s.shape) rows.push_back(registry_row("v09_by_shape"));
  if (s.mma_bf16) rows.push_back(registry_row("v11_mma_bf16"));
  if (s.ffma) append(candidate_rows(ffma_candidates(), 80));
  if (s.shape) append(candidate_rows(shape_candidates(), 80));
  if (s.mma_bf16) append(candidate_rows(mma_bf16_candidates(), 90));
  return rows;
}

std::string shape_text(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

/// Chapter 06's searches for tut::chapter_main().
class GemmTune final : public tut::Chapter {
 public:
  std::string name() const override { return "gemm_tune"; }
  bool is_search() const override { return true; }
  std::string description() const override {
    return "Chapter 06's searches: v08's FFMA configurations (4096^3, 8192^3), v09's tile shapes (1024^3, "
           "4095x4097x1023, 4096x4097x1024) and v11's BF16 mma.sync configurations (8192^3), each next to cuBLAS "
           "and the version that runs its winner.";
  }

  void add_options(tut::Cli& cli) override {
    cli.add_int("--m", "M", "rows of A and C (with --n/--k: one problem; unset ones default to 4096)", &m_, 1,
                std::int64_t{1} << 20);
    cli.add_int("--n", "N", "columns of B and C", &n_, 1, std::int64_t{1} << 20);
    cli.add_int("--k", "K", "inner dimension", &k_, 1, std::int64_t{1} << 20);
    cli.add_choice("--dtype", "which searches: fp32 (v08's and v09's), bf16 (v11's), or all (default)", &dtype_,
                   {"all", "fp32", "bf16"});
  }

  std::vector<tut::VersionInfo> versions() const override {
    std::vector<tut::VersionInfo> all;
    for (const TableRow& r : search_rows({true, true, true})) all.push_back(r.info);
    return all;
  }

  std::vector<tut::Problem> problems(bool sweep) const override {
    (void)sweep;  // a search has its own shapes, no sweep
    const bool fp32 = dtype_ != "bf16", bf16 = dtype_ != "fp32";
    std::vector<tut::Problem> list;
    const auto add = [&list](const Shape& s, Precision p, Searches searches) {
      SearchProblem what{{p, 1.0f, 0.0f}, searches};
      tut::Problem prob = table_problem(s, what.table, std::string("tune ") + precision_name(p) + " " + shape_text(s));
      prob.what = what;
      list.push_back(prob);
    };
    if (m_ > 0 || n_ > 0 || k_ > 0) {  // one shape: every search of the chosen precisions
      const auto dim = [](std::int64_t v) { return v > 0 ? v : 4096; };
      const Shape s{dim(m_), dim(n_), dim(k_)};
      if (fp32) add(s, Precision::fp32, {true, true, false});
      if (bf16) add(s, Precision::bf16, {false, false, true});
      return list;
    }
    if (fp32) {
      add({4096, 4096, 4096}, Precision::fp32, {true, false, false});  // v08's search
      add({8192, 8192, 8192}, Precision::fp32, {true, false, false});
      add({1024, 1024, 1024}, Precision::fp32, {false, true, false});  // v09's: too few large tiles
      add({4095, 4097, 1023}, Precision::fp32, {false, true, false});  // unaligned B and C, ragged tiles
      add({4096, 4097, 1024}, Precision::fp32, {false, true, false});  // one odd dimension
    }
    // v11's search at 8192^3, the size its target (half of cuBLAS BF16) is set at.
    if (bf16) add({8192, 8192, 8192}, Precision::bf16, {false, false, true});
    return list;
  }

  /// One search's table: the library, the version that runs the winner, the candidates.
  void run(const tut::Problem& problem, tut::Session& session) override {
    tut::Problem table = problem;
    const SearchProblem& what = problem.as<SearchProblem>();
    table.what = what.table;  // run_table() reads a TableProblem
    run_table(table, session, search_rows(what.searches), true, "gemm");
  }

 private:
  std::int64_t m_ = -1, n_ = -1, k_ = -1;  // -1: not given
  std::string dtype_ = "all";
};

}  // namespace

}  // namespace gemm::tune

int main(int argc, char** argv) {
  gemm::tune::GemmTune chapter;
  return tut::chapter_main(chapter, argc, argv);
}
