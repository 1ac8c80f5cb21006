// Chapter 05 executable: runs every transpose version, the copy roofs, cudaMemcpy and
// cublasSgeam on the default shapes (or one shape, or the size sweep), checks each against the
// CPU reference (exactly), times it, prints one table per shape.
//
//   transpose                               # the default shapes
//   transpose --rows 33 --cols 4097         # one shape
//   transpose --version v4_tile_32x8 --version v8_tma --version exercise
//   transpose --sweep --json sweep.json
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/device_compare.hpp"
#include "common/harness.hpp"
#include "common/random.hpp"
#include "exercise.hpp"
#include "transpose.hpp"

namespace transpose {

namespace {

/// The exercise and its solution, as extra rows of the table.
const std::vector<tut::ExtraRow<Launch>>& exercise_rows() {
  static const auto rows = tut::exercise_rows<Launch>(
      "padded-tile transpose", "exercises/05_transpose/transpose_padded.cu",
      exercise_transpose_padded, solution_transpose_padded);
  return rows;
}

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

  std::vector<tut::VersionInfo> versions() const override {
    std::vector<tut::VersionInfo> all;
    for (const auto& v : transpose::versions()) all.push_back(v.info);
    for (const auto& r : exercise_rows()) all.push_back(r.info);
    return all;
  }

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
      p.device_bytes = 5.0 * bytes_moved(R, C);  // A, B and two references (double): copy, transpose
      p.host_bytes = 1.5 * bytes_moved(R, C);    // the host copy of A, one reference being made (double)
      list.push_back(p);
    }
    return list;
  }

  void run(const tut::Problem& problem, tut::Session& session) override {
    const std::int64_t R = problem.dim("rows"), C = problem.dim("cols");
    bool selected = session.wants("exercise") || session.wants("solution");
    for (const auto& v : transpose::versions()) selected = selected || session.wants(v.info.name);
    if (!selected) return;

    const std::size_t n = static_cast<std::size_t>(R) * static_cast<std::size_t>(C);
    tut::DeviceBuffer<float> A(n), B(n);
    tut::fill_random_device(A.data(), n, tut::derive_seed(session.seed(), 0));
    const std::vector<float> hA = A.to_host();

    // The expected B (A^T, or A for the copy rows), made on the CPU and uploaded once, so that
    // each check compares on the GPU (tut::DeviceReference): at 16384^2, downloading B and
    // walking it in transposed order on the CPU took seconds per check, twice per version.
    tut::DeviceReference expected_copy, expected_transpose;  // made when first needed
    const auto reference_for = [&](Output output) -> const tut::DeviceReference& {
      tut::DeviceReference& ref = output == Output::copied ? expected_copy : expected_transpose;
      if (ref.size() == 0) {
        session.status("CPU reference");
        ref = tut::DeviceReference::compute(n, [&, output](std::size_t i) {
          // Element i of B is B[c][r] (i = c * R + r) for a transpose, B[r][c] = A[i] for a copy.
          const std::size_t rows = static_cast<std::size_t>(R), cols = static_cast<std::size_t>(C);
          return static_cast<double>(hA[output == Output::copied ? i : (i % rows) * cols + i / rows]);
        });
      }
      return ref;
    };

    session.begin_problem(problem, tut::Metric::gbps, session.device().copy_gbps,
                          "device-to-device cudaMemcpy of 1 GiB, measured at start-up");
    tut::ProblemResult& result = session.current();
    result.baseline = "v0_read_coalesced";
    result.library = "cublasSgeam";

    const auto measure = [&](const tut::VersionInfo& info, Launch launch, Output output, std::string skip) {
      tut::Candidate c;
      c.info = info;
      c.bytes = bytes_moved(R, C);
      c.tolerance = exact_tolerance();
      c.skip_reason = std::move(skip);
      c.run = [&, launch](cudaStream_t s) { launch(A.data(), B.data(), R, C, s); };
      c.poison = [&](cudaStream_t s) { B.poison(s); };
      c.check = [&, output]() { return reference_for(output).check(B.data(), exact_tolerance(), session.stream()); };
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
    for (const auto& r : exercise_rows()) measure(r.info, r.run, Output::transposed, "");
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
