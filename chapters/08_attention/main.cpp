// Chapter 08 executable: runs every attention version plus the cuBLAS "library attention" on the
// shapes of the default table (each without and with the causal mask, in fp32 and bf16), checks
// each against the CPU reference, times it, prints the tables. (The searches of the versions'
// tiles are a program of their own, attention_tune: tune/main.cpp.)
//
//   attention                                   # 4 shapes x {no mask, causal} x {fp32, bf16}
//   attention --b 2 --h 8 --sq 1000 --sk 4097 --d 128 --mask causal --dtype bf16
//   attention --s 4096 --version v06_causal_balance --version cublas_bf16
//   attention --sweep --json attention_sweep.json   # S = 2^k - 1, 2^k, 2^k + 1 for k = 6..13, D = 64
#include <string>
#include <vector>

#include "attention.hpp"
#include "common/harness.hpp"
#include "tables.hpp"

namespace attention {

namespace {

/// Chapter 08 for tut::chapter_main().
class AttentionChapter final : public tut::Chapter {
 public:
  std::string name() const override { return "attention"; }
  std::string description() const override {
    return "Chapter 08: scaled dot-product attention (forward), from three kernels to a FlashAttention-2-class "
           "fused kernel on the tensor cores, against cuBLAS-based library attention.";
  }

  void add_options(tut::Cli& cli) override {
    sizes_.add_to(cli);
    cli.add_flag("--all-sizes", "run the slow versions (v00-v02) at every size instead of skipping large ones",
                 &all_sizes_);
  }

  std::vector<tut::VersionInfo> versions() const override { return tut::infos_of(attention::versions()); }

  std::vector<tut::Problem> problems(bool sweep) const override { return sizes_.problems(sweep); }

  void run(const tut::Problem& problem, tut::Session& session) override {
    const Case& c = problem.as<Case>();
    std::vector<Row> rows;
    std::string library;
    for (const auto& v : attention::versions()) {
      if (v.kernel.precision != c.precision) continue;
      rows.push_back({v.info, v.kernel, v.max_flops, v.unsupported ? v.unsupported(c.shape) : "",
                      v.workspace_bytes ? v.workspace_bytes(c.shape) : 0.0});
      if (v.info.kind == tut::Kind::library) library = v.info.name;
    }
    run_rows(problem, session, rows, library, all_sizes_, name());
  }

 private:
  SizeFlags sizes_;
  bool all_sizes_ = false;
};

}  // namespace

}  // namespace attention

int main(int argc, char** argv) {
  attention::AttentionChapter chapter;
  return tut::chapter_main(chapter, argc, argv);
}
