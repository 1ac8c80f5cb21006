// Chapter 05 executable: runs every transpose version, the copy roofs, cudaMemcpy and
// cublasSgeam on the default shapes (or one shape, or the size sweep), checks each exactly
// against the input each element came from (check_against_hash()), times it, prints one table
// per shape.
//
//   transpose                               # the default shapes
//   transpose --rows 33 --cols 4097         # one shape
//   transpose --rows 46341 --cols 46341     # above 2^31 elements: A and B, 17.2 GB, and nothing else
//   transpose --version v04_tile_32x8 --version v08_tma
//   transpose --sweep --json sweep.json
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/harness.hpp"
#include "common/random.hpp"
#include "transpose.hpp"

namespace transpose {

namespace {

/// Chapter 05 for tut::chapter_main().
class TransposeChapter final : public tut::Chapter {
 public:
  std::string name() const override { return "transpose"; }
  std::string description() const override {
    return "Chapter 05: out-of-place transpose B = A^T (A row-major R x C, fp32), from naive to TMA, against "
           "cudaMemcpy and cublasSgeam.";
  }

  void add_options(tut::Cli& cli) override {
    cli.add_int("--rows", "R", "rows of A (with --cols: one shape instead of the default list)", &rows_, 1,
                (std::int64_t{1} << 31) - 1);
    cli.add_int("--cols", "C", "columns of A (with --rows)", &cols_, 1, (std::int64_t{1} << 31) - 1);
  }

  std::vector<tut::VersionInfo> versions() const override { return tut::infos_of(transpose::versions()); }

  std::vector<tut::Problem> problems(bool sweep) const override {
    if ((rows_ > 0) != (cols_ > 0)) throw tut::UsageError("--rows and --cols go together (one shape)");
    std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
        {4096, 4096}, {8192, 8192}, {16384, 16384}, {8192, 1024}, {1024, 8192}};
    if (rows_ > 0) shapes = {{rows_, cols_}};
    if (sweep) {
      shapes.clear();
      for (int e : {10, 12, 13}) {
        for (std::int64_t d : {-1, 0, 1}) shapes.push_back({(std::int64_t{1} << e) + d, (std::int64_t{1} << e) + d});
      }
    }
    std::vector<tut::Problem> list;
    for (const auto& [R, C] : shapes) {
      tut::Problem p;
      p.label = "transpose " + std::to_string(R) + "x" + std::to_string(C);
      p.shape = {{"rows", R}, {"cols", C}};
      // A and B; the check stores nothing (check_against_hash()). On the host: one chunk of B,
      // downloaded only when a check fails.
      p.device_bytes = bytes_moved(R, C);
      p.host_bytes = 4.0 * static_cast<double>(std::min(R * C, kHostCheckChunk));
      list.push_back(p);
    }
    return list;
  }

  void run(const tut::Problem& problem, tut::Session& session) override {
    const std::int64_t R = problem.dim("rows"), C = problem.dim("cols");
    bool selected = false;
    for (const auto& v : transpose::versions()) selected = selected || session.wants(v.info.name);
    if (!selected) return;

    const std::size_t n = static_cast<std::size_t>(R) * static_cast<std::size_t>(C);
    tut::DeviceBuffer<float> A(n), B(n);
    // A from the counter-based hash: each check recomputes, on the GPU, the element of A that each
    // element of B must hold (check_against_hash()), so no copy of A and no reference array is
    // kept. (The double-precision references on the GPU this replaced, one per kind of output,
    // took 16 bytes per element: a 46341^2 problem did not fit an 80 GB GPU.)
    const std::uint64_t seed_a = tut::derive_seed(session.seed(), 0);
    tut::fill_random_device(A.data(), n, seed_a, -1.0f, 1.0f, session.stream());  // before every run, in stream order

    session.begin_problem(problem, tut::Metric::gbps, session.device().copy_gbps,
                          "device-to-device cudaMemcpy of 1 GiB, measured at start-up");
    tut::ProblemResult& result = session.current();
    result.baseline = "v00_read_coalesced";
    result.library = "cublasSgeam";

    const auto measure = [&](const tut::VersionInfo& info, Launch launch, Output output, std::string skip) {
      tut::Candidate c;
      c.info = info;
      c.bytes = bytes_moved(R, C);
      c.tolerance = exact_tolerance();
      c.skip_reason = std::move(skip);
      c.run = [&, launch](cudaStream_t s) { launch(A.data(), B.data(), R, C, s); };
      c.poison = [&](cudaStream_t s) { B.poison(s); };
      c.check = [&, output]() { return check_against_hash(B.data(), R, C, output, seed_a, session.stream()); };
      c.where = [R, C, output](std::size_t i) {
        const std::int64_t k = static_cast<std::int64_t>(i);
        return output == Output::copied
                   ? "B[" + std::to_string(k / C) + "][" + std::to_string(k % C) + "]"
                   : "B[" + std::to_string(k / R) + "][" + std::to_string(k % R) + "]";
      };
      session.measure(c, name());
    };

    for (const auto& v : transpose::versions()) {
      std::string skip;
      if (session.wants(v.info.name) && v.unavailable != nullptr && session.device().cc() >= v.info.min_cc) {
        skip = v.unavailable();
      }
      measure(v.info, v.launch, v.output, skip);
    }
  }

 private:
  std::int64_t rows_ = 0;  // 0: the default shapes
  std::int64_t cols_ = 0;
};

}  // namespace

}  // namespace transpose

int main(int argc, char** argv) {
  transpose::TransposeChapter chapter;
  return tut::chapter_main(chapter, argc, argv);
}
