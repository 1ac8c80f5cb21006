// attention_tune: the searches of chapter 08's tiles. Every candidate of v03's search (fp32), v06's,
// v07's, v09's, v10's, v12's and v13's (bf16) is checked against the CPU reference and timed on the table's shapes (each
// without and with the causal mask), next to the version that runs the search's winner and the
// cuBLAS-based library attention of the same precision: the tables the versions' tiles were
// chosen from. Same flags as `attention` (tables.hpp): a size flag picks one shape.
//
//   attention_tune                                  # 4 shapes x {no mask, causal} x {fp32, bf16}
//   attention_tune --dtype fp32 --d 128 --s 4096    # v03's search at one shape
//   attention_tune --json attention_tune.json
#include <string>
#include <vector>

#include "attention.hpp"
#include "common/harness.hpp"
#include "tables.hpp"
#include "tune/tune.hpp"

namespace attention {

namespace {

/// Chapter 08's searches for tut::chapter_main().
class AttentionTune final : public tut::Chapter {
 public:
  std::string name() const override { return "attention_tune"; }
  bool is_search() const override { return true; }
  std::string description() const override {
    return "Chapter 08's searches: v03's tiles (fp32), v06's, v07's, v09's, v10's, v12's and v13's (bf16; the last five on "
           "Hopper), each candidate next to "
           "the version that runs the winner and cuBLAS-based library attention, on the chapter's table shapes.";
  }

  void add_options(tut::Cli& cli) override { sizes_.add_to(cli); }

  std::vector<tut::VersionInfo> versions() const override {
    std::vector<tut::VersionInfo> all;
    for (const auto& v : attention::versions()) {
      if (is_searched(v.info.name) || v.info.kind == tut::Kind::library) all.push_back(v.info);
    }
    for (const auto& c : tune::all_candidates()) all.push_back(info_of(c));
    return all;
  }

  std::vector<tut::Problem> problems(bool sweep) const override {
    if (sweep) throw tut::UsageError("--sweep: the searches time the table's shapes (pick one with the size flags)");
    return sizes_.problems(false);
  }

  void run(const tut::Problem& problem, tut::Session& session) override {
    const Case& c = problem.as<Case>();
    std::vector<Row> rows;
    // Each search of this precision: the version that runs its winner, then its candidates of this D.
    for (const tune::Search& search : tune::searches()) {
      if (search.precision != c.precision) continue;
      for (const auto& v : attention::versions()) {
        if (v.info.name != search.version) continue;
        rows.push_back({v.info, v.kernel, 0.0, v.unsupported ? v.unsupported(c.shape) : "", 0.0});
      }
      for (const auto& cand : *search.candidates) {
        if (cand.d != c.shape.d) continue;
        rows.push_back({info_of(cand), cand.kernel, 0.0, cand.unsupported ? cand.unsupported(c.shape) : "", 0.0});
      }
    }
    // The library of this precision, the ratios' reference.
    std::string library;
    for (const auto& v : attention::versions()) {
      if (v.info.kind != tut::Kind::library || v.kernel.precision != c.precision) continue;
      rows.push_back({v.info, v.kernel, 0.0, v.unsupported ? v.unsupported(c.shape) : "",
                      v.workspace_bytes ? v.workspace_bytes(c.shape) : 0.0});
      library = v.info.name;
    }
    run_rows(problem, session, rows, library, false, name());
  }

 private:
  /// True for a version whose tiles a search chose.
  static bool is_searched(const std::string& version) {
    for (const tune::Search& search : tune::searches()) {
      if (search.version == version) return true;
    }
    return false;
  }

  /// A candidate as a row of the table.
  static tut::VersionInfo info_of(const tune::Candidate& c) { return {c.name, c.summary, c.min_cc, tut::Kind::ours}; }

  SizeFlags sizes_;
};

}  // namespace

}  // namespace attention

int main(int argc, char** argv) {
  attention::AttentionTune chapter;
  return tut::chapter_main(chapter, argc, argv);
}
