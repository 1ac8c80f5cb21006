/// @file
/// @brief transpose_tune: the tuning search of chapter 05, run by tut::chapter_main like the
/// chapter executable (same flags).
// Times every candidate configuration of the wide-tile transpose (wide_candidates.cu), the tiled
// copy of each (the roof of that tile shape and order), and the TMA variants (tma_candidates.cu),
// next to cudaMemcpy, cublasSgeam and the chapter's v06, v08, v09 and v10 (v09 and v10 run two
// of the candidates), on the large shapes. Every row is checked exactly before it is timed (all
// of B up to 2^26 elements, a sample of B above) and re-checked after timing.
//
//   transpose_tune                                  # 8192^2, 16384^2, 8192x1024, 1024x8192
//   transpose_tune --json transpose_tune.json       # for docs/results/ ("Also measured: tune")
//   transpose_tune --rows 4096 --cols 4096 --no-tma
//   transpose_tune --list                           # the candidates and what each one tests
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/harness.hpp"
#include "common/random.hpp"
#include "transpose.hpp"
#include "tune/tune.hpp"

namespace transpose {

namespace {

/// Outputs up to this many elements are checked completely; larger ones on a sample.
constexpr std::size_t kFullCheckLimit = std::size_t{1} << 26;

/// The chapter's rows shown next to the candidates: the roofs, the libraries, the best plain
/// versions so far, and v09 and v10 (which run two of the candidates).
const std::vector<std::string>& anchor_names() {
  static const std::vector<std::string> names = {"cudaMemcpy", "cublasSgeam", "v06_four_tiles", "v08_tma",
                                                 "v09_tuned_tiles", "v10_tma_tuned"};
  return names;
}

/// Every row of the search, in table order.
std::vector<Version> search_rows() {
  std::vector<Version> rows;
  for (const std::string& name : anchor_names()) {
    for (const Version& v : versions()) {
      if (v.info.name == name) rows.push_back(v);
    }
  }
  for (const Version& v : tune_candidates()) rows.push_back(v);
  return rows;
}

/// Checks B (on the device) against A on a sample: all of its first and last 2^20 elements, and
/// runs of 2048 consecutive elements every 69636 between them (an irregular pitch, so the runs
/// fall at drifting positions within B's rows and tiles). About 3% of a 16384^2 matrix.
tut::ErrorStats sampled_check(const float* dB, const std::vector<float>& hA, std::int64_t R, std::int64_t C,
                              Output output) {
  const std::size_t n = hA.size();
  const std::size_t edge = std::min<std::size_t>(std::size_t{1} << 20, n / 2), run = 2048, pitch = 69636;
  const std::size_t middle = n - 2 * edge, runs = middle / pitch;
  std::vector<std::size_t> index;
  index.reserve(2 * edge + runs * run);
  for (std::size_t i = 0; i < edge; ++i) index.push_back(i);
  for (std::size_t k = 0; k < runs; ++k)
    for (std::size_t j = 0; j < run; ++j) index.push_back(edge + k * pitch + j);
  for (std::size_t i = n - edge; i < n; ++i) index.push_back(i);

  std::vector<float> got(index.size());
  CUDA_CHECK(cudaMemcpy(got.data(), dB, edge * sizeof(float), cudaMemcpyDeviceToHost));
  if (runs > 0) {
    CUDA_CHECK(cudaMemcpy2D(got.data() + edge, run * sizeof(float), dB + edge, pitch * sizeof(float),
                            run * sizeof(float), runs, cudaMemcpyDeviceToHost));
  }
  CUDA_CHECK(cudaMemcpy(got.data() + edge + runs * run, dB + (n - edge), edge * sizeof(float),
                        cudaMemcpyDeviceToHost));

  const std::size_t uR = static_cast<std::size_t>(R), uC = static_cast<std::size_t>(C);
  return tut::parallel_check(index.size(), [&](std::size_t begin, std::size_t end, tut::ErrorStats& stats) {
    for (std::size_t k = begin; k < end; ++k) {
      const std::size_t i = index[k];  // B[i]: a copy holds A[i]; a transpose (i = c R + r) holds A[r][c]
      const std::size_t src = output == Output::copied ? i : (i % uR) * uC + i / uR;
      stats.add(i, got[k], hA[src], exact_tolerance());
    }
  });
}

/// transpose_tune for tut::chapter_main().
class TuneChapter final : public tut::Chapter {
 public:
  std::string name() const override { return "transpose_tune"; }
  bool is_search() const override { return true; }
  std::string description() const override {
    return "Chapter 05's tuning search: wide-tile transposes (tile shape, threads, float4, tile order), the tiled "
           "copy of each, TMA variants, next to cudaMemcpy, cublasSgeam, v06, v08, v09 and v10.";
  }

  void add_options(tut::Cli& cli) override {
    cli.add_int("--rows", "R", "rows of A (with --cols: one shape instead of the default list)", &rows_, 1,
                (std::int64_t{1} << 31) - 1);
    cli.add_int("--cols", "C", "columns of A (with --rows)", &cols_, 1, (std::int64_t{1} << 31) - 1);
    cli.add_flag("--no-tma", "leave out the TMA candidates (tma...)", &no_tma_);
  }

  std::vector<tut::VersionInfo> versions() const override {
    std::vector<tut::VersionInfo> all;
    for (const Version& v : search_rows()) all.push_back(v.info);
    return all;
  }

  std::vector<tut::Problem> problems(bool sweep) const override {
    if (sweep) throw tut::UsageError("--sweep: the search times fixed shapes (choose one with --rows and --cols)");
    if ((rows_ > 0) != (cols_ > 0)) throw tut::UsageError("--rows and --cols go together (one shape)");
    std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {{8192, 8192}, {16384, 16384}, {8192, 1024}, {1024, 8192}};
    if (rows_ > 0) shapes = {{rows_, cols_}};
    std::vector<tut::Problem> list;
    for (const auto& [R, C] : shapes) {
      tut::Problem p;
      p.label = "transpose " + std::to_string(R) + "x" + std::to_string(C);
      p.shape = {{"rows", R}, {"cols", C}};
      const double n = static_cast<double>(R) * static_cast<double>(C);
      p.device_bytes = bytes_moved(R, C);  // A and B
      p.host_bytes = n <= static_cast<double>(kFullCheckLimit) ? 8.0 * n : 4.5 * n;  // A, B
      list.push_back(p);
    }
    return list;
  }

  void run(const tut::Problem& problem, tut::Session& session) override {
    const std::int64_t R = problem.dim("rows"), C = problem.dim("cols");
    const std::vector<Version> rows = search_rows();
    bool selected = false;
    for (const Version& v : rows) selected = selected || session.wants(v.info.name);
    if (!selected) return;

    const std::size_t n = static_cast<std::size_t>(R) * static_cast<std::size_t>(C);
    tut::DeviceBuffer<float> A(n), B(n);
    tut::fill_random_device(A.data(), n, tut::derive_seed(session.seed(), 0));
    const std::vector<float> hA = A.to_host();
    const bool full = n <= kFullCheckLimit;

    session.begin_problem(problem, tut::Metric::gbps, session.device().copy_gbps,
                          "device-to-device cudaMemcpy of 1 GiB, measured at start-up");
    tut::ProblemResult& result = session.current();
    result.baseline = "v06_four_tiles";
    result.library = "cublasSgeam";

    for (const Version& v : rows) {
      if (no_tma_ && v.info.name.rfind("tma", 0) == 0) continue;
      tut::Candidate c;
      c.info = v.info;
      c.bytes = bytes_moved(R, C);
      c.tolerance = exact_tolerance();
      if (session.wants(v.info.name) && v.unavailable != nullptr && session.device().cc() >= v.info.min_cc) {
        c.skip_reason = v.unavailable();
      }
      const Launch launch = v.launch;
      const Output output = v.output;
      c.run = [&, launch](cudaStream_t s) { launch(A.data(), B.data(), R, C, s); };
      c.poison = [&](cudaStream_t s) { B.poison(s); };
      c.check = [&, output]() {
        if (!full) return sampled_check(B.data(), hA, R, C, output);
        return check(B.to_host(), hA, R, C, output);
      };
      c.where = [R, C, output](std::size_t i) {
        const std::int64_t k = static_cast<std::int64_t>(i), cols = output == Output::copied ? C : R;
        return "B[" + std::to_string(k / cols) + "][" + std::to_string(k % cols) + "]";
      };
      session.measure(c, name());
    }
  }

 private:
  std::int64_t rows_ = 0;  // 0: the default shapes
  std::int64_t cols_ = 0;
  bool no_tma_ = false;
};

}  // namespace

}  // namespace transpose

/// Runs the search with the chapter harness (tut::chapter_main): the same flags as the chapter executable.
int main(int argc, char** argv) {
  transpose::TuneChapter chapter;
  return tut::chapter_main(chapter, argc, argv);
}
