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
#include <iostream>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/device_compare.hpp"
#include "common/harness.hpp"
#include "common/random.hpp"
#include "softmax.hpp"

namespace softmax {

namespace {

/// Inputs are uniform in [-kRange, kRange).
constexpr float kRange = 8.0f;

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
    std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
        {4096, 4096}, {16384, 1024}, {65536, 128}, {1024, 32768}, {8192, 8192}};
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
    for (const auto& [r, c] : shapes) {
      if (r > (std::int64_t{1} << 40) / c) throw tut::UsageError("--rows x --cols is too large");
      tut::Problem p;
      p.label = std::to_string(r) + "x" + std::to_string(c) + (offset_ ? " offset=" + std::to_string(offset_) : "");
      p.shape = {{"rows", r}, {"cols", c}, {"offset", offset_}};
      const double elems = static_cast<double>(r) * static_cast<double>(c) + static_cast<double>(offset_);
      p.device_bytes = (4.0 + 4.0 + 8.0 + 8.0) * elems;  // x, y, the reference and the copy's (double)
      p.host_bytes = (4.0 + 4.0 + 8.0) * elems;   // x, a downloaded y, the double reference
      list.push_back(p);
    }
    return list;
  }

  void run(const tut::Problem& problem, tut::Session& session) override {
    const std::int64_t rows = problem.dim("rows"), cols = problem.dim("cols"), off = problem.dim("offset");
    bool selected = false;
    for (const auto& v : softmax::versions()) selected = selected || session.wants(v.info.name);
    if (!selected) return;

    const std::size_t n = static_cast<std::size_t>(rows * cols);
    const std::size_t total = n + static_cast<std::size_t>(off);
    tut::DeviceBuffer<float> x(total), y(total);
    tut::fill_random_device(x.data(), total, tut::derive_seed(session.seed(), 0), -kRange, kRange);
    const std::vector<float> hx = x.to_host();
    std::vector<double> ref(n);
    reference_softmax(hx.data() + off, ref.data(), rows, cols);

    session.begin_problem(problem, tut::Metric::gbps, session.device().copy_gbps,
                          "device-to-device cudaMemcpy, measured at start-up (softmax reads x and writes y once)");
    tut::ProblemResult& result = session.current();
    result.baseline = "v0_thread_per_row";
    result.library = "cudnn";

    const tut::Tolerance exact{0.0, 0.0, 0.0, "a copy must reproduce its input exactly"};
    // The reference uploaded once, so that every check compares on the GPU (tut::DeviceReference):
    // downloading y and walking it on the CPU, twice per version, took most of this run's time.
    const tut::DeviceReference device_ref(ref);
    tut::DeviceReference device_copy_ref;  // x itself, for the copy roof (made when first needed)
    const auto copy_reference = [&]() -> const tut::DeviceReference& {
      if (device_copy_ref.size() == 0) {
        device_copy_ref = tut::DeviceReference::compute(n, [&](std::size_t i) {
          return static_cast<double>(hx[i + static_cast<std::size_t>(off)]);
        });
      }
      return device_copy_ref;
    };
    // Each version is held to the bound of the order in which it adds (tolerance()).
    const auto measure = [&](const tut::VersionInfo& info, Launch launch, std::string skip, bool copy,
                             Order order) {
      tut::Candidate c;
      c.info = info;
      c.bytes = 2.0 * 4.0 * static_cast<double>(n);  // x read once, y written once
      c.tolerance = copy ? exact : tolerance(cols, order);
      c.skip_reason = std::move(skip);
      c.where = [cols](std::size_t i) {
        return "row " + std::to_string(static_cast<std::int64_t>(i) / cols) + ", col " +
               std::to_string(static_cast<std::int64_t>(i) % cols);
      };
      c.run = [&, launch](cudaStream_t s) { launch(x.data() + off, y.data() + off, rows, cols, s); };
      c.poison = [&](cudaStream_t s) { y.poison(s); };
      c.check = [&, copy, tol_used = c.tolerance]() {
        return (copy ? copy_reference() : device_ref).check(y.data() + off, tol_used, session.stream());
      };
      session.measure(c, name());
    };

    for (const auto& v : softmax::versions()) {
      std::string skip = v.unsupported(rows, cols);
      if (skip.empty() && v.info.kind == tut::Kind::library && !v.copy_roof && off != 0) {
        skip = "the library row runs on 16-byte aligned tensors only (--offset 0)";
      }
      measure(v.info, v.launch, skip, v.copy_roof, v.order);
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
