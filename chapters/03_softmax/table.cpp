// One problem of chapter 03's tables, checked then timed (table.hpp).
#include "table.hpp"

#include <string>
#include <utility>
#include <vector>

#include "common/random.hpp"

namespace softmax {

namespace {

/// Inputs are uniform in [-kRange, kRange).
constexpr float kRange = 8.0f;

}  // namespace

const std::vector<std::pair<std::int64_t, std::int64_t>>& table_shapes() {
  static const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
      {4096, 4096}, {16384, 1024}, {65536, 128}, {1024, 32768}, {8192, 8192}};
  return shapes;
}

tut::Problem table_problem(std::int64_t rows, std::int64_t cols, std::int64_t offset) {
  if (rows > (std::int64_t{1} << 40) / cols) throw tut::UsageError("--rows x --cols is too large");
  tut::Problem p;
  p.label = std::to_string(rows) + "x" + std::to_string(cols) + (offset ? " offset=" + std::to_string(offset) : "");
  p.shape = {{"rows", rows}, {"cols", cols}, {"offset", offset}};
  const double elems = static_cast<double>(rows) * static_cast<double>(cols) + static_cast<double>(offset);
  p.device_bytes = (4.0 + 4.0 + 8.0 + 8.0) * elems;  // x, y, the reference and the copy's (double)
  p.host_bytes = (4.0 + 4.0 + 8.0) * elems;          // x, a downloaded y, the double reference
  return p;
}

Table::Table(const tut::Problem& problem, tut::Session& session, const std::string& baseline,
             const std::string& library)
    : session_(session),
      rows_(problem.dim("rows")),
      cols_(problem.dim("cols")),
      off_(problem.dim("offset")),
      n_(static_cast<std::size_t>(rows_ * cols_)),
      x_(n_ + static_cast<std::size_t>(off_)),
      y_(n_ + static_cast<std::size_t>(off_)) {
  tut::fill_random_device(x_.data(), x_.size(), tut::derive_seed(session.seed(), 0), -kRange, kRange);
  hx_ = x_.to_host();
  std::vector<double> ref(n_);
  reference_softmax(hx_.data() + off_, ref.data(), rows_, cols_);
  // The reference uploaded once, so that every check compares on the GPU (tut::DeviceReference):
  // downloading y and walking it on the CPU, twice per version, took most of a run's time.
  reference_ = tut::DeviceReference(ref);

  session.begin_problem(problem, tut::Metric::gbps, session.device().copy_gbps,
                        "device-to-device cudaMemcpy, measured at start-up (softmax reads x and writes y once)");
  tut::ProblemResult& result = session.current();
  result.baseline = baseline;
  result.library = library;
}

const tut::DeviceReference& Table::copy_reference() {
  if (copy_reference_.size() == 0) {
    copy_reference_ = tut::DeviceReference::compute(n_, [&](std::size_t i) {
      return static_cast<double>(hx_[i + static_cast<std::size_t>(off_)]);
    });
  }
  return copy_reference_;
}

void Table::measure(const tut::VersionInfo& info, Launch launch, std::string skip, bool copy, Order order,
                    const std::string& chapter) {
  const tut::Tolerance exact{0.0, 0.0, 0.0, "a copy must reproduce its input exactly"};
  tut::Candidate c;
  c.info = info;
  c.bytes = 2.0 * 4.0 * static_cast<double>(n_);  // x read once, y written once
  c.tolerance = copy ? exact : tolerance(cols_, order);  // each version: the bound of its summation order
  c.skip_reason = std::move(skip);
  const std::int64_t cols = cols_;
  c.where = [cols](std::size_t i) {
    return "row " + std::to_string(static_cast<std::int64_t>(i) / cols) + ", col " +
           std::to_string(static_cast<std::int64_t>(i) % cols);
  };
  float* x = x_.data() + off_;
  float* y = y_.data() + off_;
  const std::int64_t rows = rows_;
  c.run = [launch, x, y, rows, cols](cudaStream_t s) { launch(x, y, rows, cols, s); };
  c.poison = [this](cudaStream_t s) { y_.poison(s); };
  c.check = [this, copy, y, tol = c.tolerance]() {
    return (copy ? copy_reference() : reference_).check(y, tol, session_.stream());
  };
  session_.measure(c, chapter);
}

}  // namespace softmax
