/// @file
/// @brief softmax_tune: the tuning search of chapter 03, run by tut::chapter_main like the
/// chapter executable (same flags).
// Times v7's candidate tiles (tune/candidates.cu: threads x float4s per thread, each forced on
// every shape) next to v6_float4 and v7_cluster_rows (which runs the winners, v7_tile_for()) and
// the copy roof, on the five shapes of the chapter's table. Every row is checked against the CPU
// reference before it is timed and re-checked after timing.
//
//   softmax_tune                                # 4096x4096, 16384x1024, 65536x128, 1024x32768, 8192x8192
//   softmax_tune --json softmax_tune.json       # for docs/results/ ("Also measured: tune")
//   softmax_tune --rows 1024 --cols 32768 --version v7_t256x8 --version v7_cluster_rows
//   softmax_tune --list                         # the candidates
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/harness.hpp"
#include "softmax.hpp"
#include "table.hpp"
#include "tune/tune.hpp"

namespace softmax {

namespace {

/// The chapter's rows the candidates compete with: v6, v7 (which runs the winners) and the copy
/// roof of the same bytes.
bool shown_next_to_candidates(const Version& v) {
  return v.info.name == "v6_float4" || v.info.name == "v7_cluster_rows" || v.copy_roof;
}

/// The candidates as rows of the table: "v7_t<threads>x<vec>".
const std::vector<tut::ExtraRow<Launch>>& candidate_rows() {
  static const std::vector<tut::ExtraRow<Launch>> rows = [] {
    std::vector<tut::ExtraRow<Launch>> list;
    for (const auto& c : v7_candidates()) {
      const std::string tile = std::to_string(c.tile.threads) + "x" + std::to_string(c.tile.vec);
      list.push_back({{"v7_t" + tile,
                       "v7 with " + std::to_string(c.tile.threads) + " threads x " + std::to_string(c.tile.vec) +
                           " float4s per block (" + std::to_string(16 * c.tile.threads * c.tile.vec / 1024) +
                           " KiB of the row)",
                       90, tut::Kind::ours},
                      c.launch});
    }
    return list;
  }();
  return rows;
}

/// softmax_tune for tut::chapter_main().
class TuneChapter final : public tut::Chapter {
 public:
  std::string name() const override { return "softmax_tune"; }
  bool is_search() const override { return true; }
  std::string description() const override {
    return "Chapter 03's tuning search: v7's tiles (threads x float4s per thread), each forced on every shape, "
           "next to v6, v7 and the copy roof.";
  }

  void add_options(tut::Cli& cli) override {
    cli.add_int("--rows", "R", "rows of one problem (with --cols; default: the five shapes of the table)", &rows_, 1,
                std::int64_t{1} << 34);
    cli.add_int("--cols", "C", "columns of one problem (with --rows)", &cols_, 1, std::int64_t{1} << 34);
  }

  std::vector<tut::VersionInfo> versions() const override {
    std::vector<tut::VersionInfo> all;
    for (const auto& v : softmax::versions()) {
      if (shown_next_to_candidates(v)) all.push_back(v.info);
    }
    for (const auto& r : candidate_rows()) all.push_back(r.info);
    return all;
  }

  std::vector<tut::Problem> problems(bool sweep) const override {
    if (sweep) throw tut::UsageError("--sweep: the search times fixed shapes (choose one with --rows and --cols)");
    if ((rows_ > 0) != (cols_ > 0)) throw tut::UsageError("--rows and --cols go together: give both, or neither");
    std::vector<std::pair<std::int64_t, std::int64_t>> shapes = table_shapes();
    if (rows_ > 0) shapes = {{rows_, cols_}};
    std::vector<tut::Problem> list;
    for (const auto& [r, c] : shapes) list.push_back(table_problem(r, c, 0));
    return list;
  }

  void run(const tut::Problem& problem, tut::Session& session) override {
    const std::int64_t rows = problem.dim("rows"), cols = problem.dim("cols");
    bool selected = false;
    for (const auto& v : softmax::versions()) {
      selected = selected || (shown_next_to_candidates(v) && session.wants(v.info.name));
    }
    for (const auto& r : candidate_rows()) selected = selected || session.wants(r.info.name);
    if (!selected) return;

    Table table(problem, session, "v6_float4", "");
    for (const auto& v : softmax::versions()) {
      if (!shown_next_to_candidates(v)) continue;
      table.measure(v.info, v.launch, v.unsupported(rows, cols), v.copy_roof, v.order, name());
    }
    for (std::size_t i = 0; i < candidate_rows().size(); ++i) {
      const V7Tile tile = v7_candidates()[i].tile;
      const int cluster = v7_cluster_size(tile, cols);
      std::string skip = v7_unsupported(rows, cols);
      if (skip.empty() && cols % 4 != 0) skip = "no float4 access: the candidate would run v6";
      if (skip.empty() && cluster > kV7MaxCluster) skip = "a row needs more than 8 blocks of this tile";
      if (skip.empty() && cols <= kWarpRowMaxCols) skip = "C <= 1024: v7 runs v6";
      table.measure(candidate_rows()[i].info, candidate_rows()[i].run, skip, false, Order::tree, name());
    }
  }

 private:
  std::int64_t rows_ = 0;  // 0: the table's five shapes
  std::int64_t cols_ = 0;
};

}  // namespace

}  // namespace softmax

/// Runs the search with the chapter harness (tut::chapter_main): the same flags as the chapter executable.
int main(int argc, char** argv) {
  softmax::TuneChapter chapter;
  return tut::chapter_main(chapter, argc, argv);
}
