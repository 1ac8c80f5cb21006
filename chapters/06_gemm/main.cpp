// Chapter 06 executable: runs every GEMM version plus the cuBLAS baselines, one table per size and
// precision (fp32, tf32, bf16), checks each against the CPU reference, times it, prints the tables.
//
//   gemm                                     # 1024^3 .. 8192^3, 4095 x 4097 x 1023, 1024 x 1024 x 4096
//   gemm --m 4095 --n 4097 --k 1023 --dtype fp32
//   gemm --alpha 1.5 --beta -0.5 --m 1000 --n 1000 --k 1000   # beta != 0: C is restored before each run
//   gemm --version v08_tuned --version cublas_sgemm
// The searches (v08's, v09's, v11's) are another executable: gemm_tune (tune/main.cpp).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/harness.hpp"
#include "gemm.hpp"
#include "table.hpp"

namespace gemm {

namespace {

/// Parses --alpha / --beta.
float parse_scalar(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == nullptr || *end != '\0' || !std::isfinite(v) || std::fabs(v) > 1e30) {
    throw tut::UsageError(flag + ": expected a finite number (got '" + text + "')");
  }
  return static_cast<float>(v);
}

std::string shape_text(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

/// Chapter 06 for tut::chapter_main().
class GemmChapter final : public tut::Chapter {
 public:
  std::string name() const override { return "gemm"; }
  std::string description() const override {
    return "Chapter 06: GEMM (C = alpha A B + beta C, row-major), from a naive kernel to cuBLAS-class SGEMM, "
           "then TF32 and BF16 tensor cores, each against cuBLAS of the same precision.";
  }

  void add_options(tut::Cli& cli) override {
    cli.add_int("--m", "M", "rows of A and C (with --n/--k: one problem; unset ones default to 4096)", &m_, 1,
                std::int64_t{1} << 20);
    cli.add_int("--n", "N", "columns of B and C", &n_, 1, std::int64_t{1} << 20);
    cli.add_int("--k", "K", "inner dimension", &k_, 1, std::int64_t{1} << 20);
    cli.add_choice("--dtype", "which tables: fp32 (CUDA cores), tf32, bf16 (tensor cores), or all (default)",
                   &dtype_, {"all", "fp32", "tf32", "bf16"});
    cli.add_string("--alpha", "X", "alpha (default 1)", &alpha_text_);
    cli.add_string("--beta", "X", "beta (default 0; nonzero: C is read, and restored before every run)", &beta_text_);
    cli.add_flag("--all-sizes", "run the slow versions (v00-v02) at every size instead of skipping large ones",
                 &all_sizes_);
  }

  std::vector<tut::VersionInfo> versions() const override { return tut::infos_of(gemm::versions()); }

  std::vector<tut::Problem> problems(bool sweep) const override {
    alpha_ = alpha_text_.empty() ? 1.0f : parse_scalar("--alpha", alpha_text_);
    beta_ = beta_text_.empty() ? 0.0f : parse_scalar("--beta", beta_text_);
    const bool given = m_ > 0 || n_ > 0 || k_ > 0;
    const auto dim = [](std::int64_t v) { return v > 0 ? v : 4096; };
    std::vector<Shape> shapes;
    if (given) {
      shapes.push_back({dim(m_), dim(n_), dim(k_)});
    } else if (sweep) {
      for (std::int64_t p : tut::around_powers_of_two({7, 8, 9, 10, 11})) shapes.push_back({p, p, p});
      shapes.push_back({1000, 1000, 1000});
      shapes.push_back({4095, 4097, 1023});
    } else {
      // 1024 x 1024 x 4096: few tiles and long k-loops, the problem split-K (v19) is for.
      shapes = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096},
                {8192, 8192, 8192}, {4095, 4097, 1023}, {1024, 1024, 4096}};
    }
    std::vector<Precision> precisions;
    if (dtype_ == "fp32" || dtype_ == "all") precisions.push_back(Precision::fp32);
    if (dtype_ == "tf32" || dtype_ == "all") precisions.push_back(Precision::tf32);
    if (dtype_ == "bf16" || dtype_ == "all") precisions.push_back(Precision::bf16);

    std::vector<tut::Problem> list;
    for (const Shape& s : shapes) {
      for (Precision p : precisions) {
        std::string label = std::string(precision_name(p)) + " " + shape_text(s);
        if (alpha_ != 1.0f || beta_ != 0.0f) {
          label += " alpha=" + alpha_text_ + " beta=" + (beta_text_.empty() ? "0" : beta_text_);
        }
        list.push_back(table_problem(s, TableProblem{p, alpha_, beta_}, label));
      }
    }
    return list;
  }

  /// The table of one problem: the registry's versions and library of its precision.
  void run(const tut::Problem& problem, tut::Session& session) override {
    run_table(problem, session, registry_rows(problem.as<TableProblem>().precision), all_sizes_, name());
  }

 private:
  std::int64_t m_ = -1, n_ = -1, k_ = -1;  // -1: not given
  std::string dtype_ = "all";
  std::string alpha_text_, beta_text_;
  bool all_sizes_ = false;
  mutable float alpha_ = 1.0f, beta_ = 0.0f;  // parsed from the text flags in problems()
};

}  // namespace

}  // namespace gemm

int main(int argc, char** argv) {
  gemm::GemmChapter chapter;
  return tut::chapter_main(chapter, argc, argv);
}
