// Chapter 03 executable: runs every softmax version plus cuDNN on the five shapes of the
// default table (or one shape, or the sweep), checks each against the CPU reference, times it,
// prints the tables.
//
//   softmax                                  # 4096x4096, 16384x1024, 65536x128, 1024x32768, 8192x8192
//   softmax --rows 1000 --cols 1001          # one shape
//   softmax --rows 4096 --cols 4096 --offset 1   # misaligned rows: v6 falls back to scalar kernels
//   softmax --version v6_float4 --version cudnn
//   softmax --sweep --json sweep.json
//
// v7's tiles were chosen by the search in tune/ (bin/softmax_tune).
#include <cstdint>
#include <string>
#include <vector>

#include "common/harness.hpp"
#include "softmax.hpp"
#include "table.hpp"

namespace softmax {

namespace {

/// Chapter 03 for tut::chapter_main().
class SoftmaxChapter final : public tut::Chapter {
 public:
  std::string name() const override { return "softmax"; }
  std::string description() const override {
    return "Chapter 03: row-wise softmax from one thread per row to one read and one write per element, against "
           "cuDNN.";
  }

  void add_options(tut::Cli& cli) override {
    cli.add_int("--rows", "R", "rows of one problem (with --cols; default: the five shapes of the table)", &rows_, 1,
                std::int64_t{1} << 34);
    cli.add_int("--cols", "C", "columns of one problem (with --rows)", &cols_, 1, std::int64_t{1} << 34);
    cli.add_int("--offset", "K", "start x and y K floats past a 16-byte boundary (0..3)", &offset_, 0, 3);
  }

  std::vector<tut::VersionInfo> versions() const override { return tut::infos_of(softmax::versions()); }

  std::vector<tut::Problem> problems(bool sweep) const override {
    if ((rows_ > 0) != (cols_ > 0)) throw tut::UsageError("--rows and --cols go together: give both, or neither");
    std::vector<std::pair<std::int64_t, std::int64_t>> shapes = table_shapes();
    if (rows_ > 0) shapes = {{rows_, cols_}};
    if (sweep) {  // 2^24 elements per problem, C from 32 to 65536, plus odd C
      shapes.clear();
      for (int k = 5; k <= 16; ++k) {
        const std::int64_t c = std::int64_t{1} << k;
        shapes.push_back({(std::int64_t{1} << 24) / c, c});
        if (k % 2 == 1) shapes.push_back({(std::int64_t{1} << 24) / c, c + 1});
      }
    }
    std::vector<tut::Problem> list;
    for (const auto& [r, c] : shapes) list.push_back(table_problem(r, c, offset_));
    return list;
  }

  void run(const tut::Problem& problem, tut::Session& session) override {
    const std::int64_t rows = problem.dim("rows"), cols = problem.dim("cols"), off = problem.dim("offset");
    bool selected = false;
    for (const auto& v : softmax::versions()) selected = selected || session.wants(v.info.name);
    if (!selected) return;

    Table table(problem, session, "v0_thread_per_row", "cudnn");
    for (const auto& v : softmax::versions()) {
      std::string skip = v.unsupported(rows, cols);
      if (skip.empty() && v.info.kind == tut::Kind::library && !v.copy_roof && off != 0) {
        skip = "the library row runs on 16-byte aligned tensors only (--offset 0)";
      }
      table.measure(v.info, v.launch, skip, v.copy_roof, v.order, name());
    }
  }

 private:
  std::int64_t rows_ = 0;  // 0: the default table
  std::int64_t cols_ = 0;
  std::int64_t offset_ = 0;
};

}  // namespace

}  // namespace softmax

int main(int argc, char** argv) {
  softmax::SoftmaxChapter chapter;
  return tut::chapter_main(chapter, argc, argv);
}
