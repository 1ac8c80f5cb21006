#include "common/compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace tut {

void ErrorStats::add(std::size_t index, double got, double expected, const Tolerance& tol) {
  add(index, got, expected, std::fabs(expected), tol);
}

void ErrorStats::add(std::size_t index, double got, double expected, double magnitude, const Tolerance& tol) {
  ++count_;
  if (magnitude != std::fabs(expected)) magnitudes_ = true;
  const double bound = tol.atol + tol.rtol * magnitude;
  sum_sq_ref_ += expected * expected;
  sum_sq_scale_ += magnitude * magnitude;
  Mismatch m{index, got, expected, std::numeric_limits<double>::infinity()};
  if (!std::isfinite(got)) {
    ++nonfinite_;
    ++over_;
    remember(m);
    return;
  }
  const double diff = std::fabs(got - expected);
  sum_sq_diff_ += diff * diff;
  max_abs_ = std::max(max_abs_, diff);
  // bound == 0 means exact equality is required.
  m.excess = bound > 0.0 ? diff / bound : (diff == 0.0 ? 0.0 : std::numeric_limits<double>::infinity());
  if (!(diff <= bound)) ++over_;
  remember(m);
}

void ErrorStats::remember(const Mismatch& m) {
  // Keep the kWorstKept largest excesses, worst first (ties: the lower index stays first).
  if (worst_.size() == kWorstKept && !(m.excess > worst_.back().excess)) return;
  auto pos = std::upper_bound(worst_.begin(), worst_.end(), m,
                              [](const Mismatch& a, const Mismatch& b) { return a.excess > b.excess; });
  worst_.insert(pos, m);
  if (worst_.size() > kWorstKept) worst_.pop_back();
}

void ErrorStats::merge(const ErrorStats& other) {
  count_ += other.count_;
  nonfinite_ += other.nonfinite_;
  over_ += other.over_;
  sum_sq_diff_ += other.sum_sq_diff_;
  sum_sq_ref_ += other.sum_sq_ref_;
  sum_sq_scale_ += other.sum_sq_scale_;
  magnitudes_ = magnitudes_ || other.magnitudes_;
  max_abs_ = std::max(max_abs_, other.max_abs_);
  for (const Mismatch& m : other.worst_) remember(m);
}

ErrorStats ErrorStats::from_totals(std::size_t count, std::size_t nonfinite, std::size_t over, double sum_sq_diff,
                                   double sum_sq_ref, double max_abs) {
  ErrorStats s;
  s.count_ = count;
  s.nonfinite_ = nonfinite;
  s.over_ = over;
  s.sum_sq_diff_ = sum_sq_diff;
  s.sum_sq_ref_ = sum_sq_ref;
  s.sum_sq_scale_ = sum_sq_ref;
  s.max_abs_ = max_abs;
  return s;
}

double ErrorStats::rel_norm_error() const {
  if (nonfinite_ > 0) return std::numeric_limits<double>::infinity();
  const double diff = std::sqrt(sum_sq_diff_);
  const double scale = std::sqrt(sum_sq_scale_);
  return scale > 0.0 ? diff / scale : diff;
}

double ErrorStats::max_abs_error() const {
  return nonfinite_ > 0 ? std::numeric_limits<double>::infinity() : max_abs_;
}

bool ErrorStats::passed(const Tolerance& tol) const {
  if (count_ == 0 || nonfinite_ > 0 || over_ > 0) return false;
  const double rel = rel_norm_error();
  return rel <= tol.max_rel_norm;  // false for NaN
}

std::string ErrorStats::describe(const Tolerance& tol, const IndexFormatter& where) const {
  std::ostringstream os;
  os.precision(9);
  os << (passed(tol) ? "PASS" : "FAIL") << ": " << count_ << " elements, rel. norm error " << rel_norm_error()
     << " (limit " << tol.max_rel_norm << "), max abs error " << max_abs_error() << ", " << over_
     << " over atol " << tol.atol << " + rtol " << tol.rtol << (magnitudes_ ? " * sum|terms|" : " * |ref|");
  if (magnitudes_) os << " (errors relative to the magnitude of each result's terms, sum|terms|)";
  if (nonfinite_ > 0) os << ", " << nonfinite_ << " NaN/Inf outputs (never pass)";
  if (count_ == 0) os << " (nothing was checked: that never passes)";
  if (!tol.why.empty()) os << "\n  tolerance: " << tol.why;
  if (!worst_.empty()) os << "\n  worst elements:";
  for (const Mismatch& m : worst_) {
    os << "\n    [" << (where ? where(m.index) : std::to_string(m.index)) << "] got " << m.got << ", expected "
       << m.expected;
  }
  return os.str();
}

ErrorStats compare(const float* got, const double* expected, std::size_t n, const Tolerance& tol) {
  ErrorStats stats;
  for (std::size_t i = 0; i < n; ++i) stats.add(i, static_cast<double>(got[i]), expected[i], tol);
  return stats;
}

ErrorStats compare(const std::vector<float>& got, const std::vector<double>& expected, const Tolerance& tol) {
  if (got.size() != expected.size()) {
    throw std::invalid_argument("compare: output has " + std::to_string(got.size()) + " elements, reference has " +
                                std::to_string(expected.size()));
  }
  return compare(got.data(), expected.data(), got.size(), tol);
}

}  // namespace tut

#include <thread>

namespace tut {

std::size_t parallel_workers(std::size_t n, std::size_t grain) {
  const std::size_t hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t wanted = (n + std::max<std::size_t>(grain, 1) - 1) / std::max<std::size_t>(grain, 1);
  return std::max<std::size_t>(1, std::min<std::size_t>({wanted, hw, 32}));
}

void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t, std::size_t)>& chunk,
                  std::size_t grain) {
  const std::size_t workers = parallel_workers(n, grain);
  const std::size_t per = (n + workers - 1) / workers;
  std::vector<std::thread> threads;
  for (std::size_t w = 1; w < workers; ++w) {
    const std::size_t begin = std::min(n, w * per), end = std::min(n, (w + 1) * per);
    threads.emplace_back([&, w, begin, end] { chunk(w, begin, end); });
  }
  chunk(0, 0, std::min(n, per));
  for (auto& t : threads) t.join();
}

ErrorStats parallel_check(std::size_t n, const std::function<void(std::size_t, std::size_t, ErrorStats&)>& chunk) {
  std::vector<ErrorStats> parts(parallel_workers(n));
  parallel_for(n, [&](std::size_t w, std::size_t begin, std::size_t end) { chunk(begin, end, parts[w]); });
  for (std::size_t w = 1; w < parts.size(); ++w) parts[0].merge(parts[w]);
  return parts[0];
}

}  // namespace tut
