// CPU side of chapter 02: the double-precision references, the tolerance, the accuracy
// demonstrations (serial vs pairwise float sums) and the integer-valued inputs.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

#include "reduce.hpp"

namespace reduce {

namespace {

/// Partial reference over [begin, end).
Reference reference_chunk(Operation op, const float* x, const float* y, std::size_t begin, std::size_t end) {
  Reference r;
  if (op == Operation::max) {
    r.value = -std::numeric_limits<double>::infinity();
    for (std::size_t i = begin; i < end; ++i) r.value = std::max(r.value, static_cast<double>(x[i]));
    return r;
  }
  for (std::size_t i = begin; i < end; ++i) {
    const double t = op == Operation::dot ? static_cast<double>(x[i]) * static_cast<double>(y[i])
                                          : static_cast<double>(x[i]);  // a product of floats is exact in double
    r.value += t;
    r.magnitude += std::fabs(t);
  }
  return r;
}

}  // namespace

Reference reference(Operation op, const float* x, const float* y, std::size_t n) {
  if (op == Operation::dot && y == nullptr && n > 0) throw std::invalid_argument("reference: dot needs y");
  const std::size_t hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t workers = n < (std::size_t{1} << 20) ? 1 : std::min<std::size_t>(hw, 32);
  std::vector<Reference> parts(workers);
  std::vector<std::thread> threads;
  const std::size_t per = (n + workers - 1) / workers;
  for (std::size_t w = 0; w < workers; ++w) {
    const std::size_t begin = std::min(n, w * per), end = std::min(n, (w + 1) * per);
    threads.emplace_back([&, w, begin, end] { parts[w] = reference_chunk(op, x, y, begin, end); });
  }
  for (auto& t : threads) t.join();
  Reference total = reference_chunk(op, x, y, 0, 0);  // the identity
  for (const auto& p : parts) {
    total.value = op == Operation::max ? std::max(total.value, p.value) : total.value + p.value;
    total.magnitude += p.magnitude;
  }
  return total;
}

const char* order_name(Order order) { return order == Order::serial ? "serial" : "tree"; }

tut::Tolerance tolerance(Operation op, std::int64_t n, const Reference& ref, Order order) {
  if (op == Operation::max) {
    return {0.0, 0.0, 0.0, "a max involves no rounding: every version must return the exact maximum"};
  }
  const bool dot = op == Operation::dot;
  tut::Tolerance tol;
  if (order == Order::tree) {
    const double levels = n > 1 ? std::ceil(std::log2(static_cast<double>(n))) : 0.0;
    const double c = 2.0 * levels + 16.0 + (dot ? 1.0 : 0.0);
    tol.atol = c * kUnitRoundoff * ref.magnitude;
    tol.why = "tree order: |got - ref| <= (2*ceil(log2 n) + 16" + std::string(dot ? " + 1" : "") +
              ") * 2^-24 * sum|term|: twice the worst-case error of a tree of additions, plus slack for each "
              "thread's short serial run";
  } else {
    // (1 + u)^c - 1 computed without cancellation: expm1(c * log1p(u)).
    const double c = static_cast<double>(n) + (dot ? 1.0 : 0.0);
    const double gamma = std::expm1(c * std::log1p(kUnitRoundoff));
    tol.atol = gamma * ref.magnitude;
    tol.why = "serial order: |got - ref| <= ((1 + 2^-24)^" + std::string(dot ? "(n+1)" : "n") +
              " - 1) * sum|term|, the worst case of n additions in a chain, in any order (v0's atomics)" +
              (gamma >= 1.0 ? "; at this n it exceeds sum|term|: a serial float sum guarantees no accuracy" : "");
  }
  tol.rtol = 0.0;
  // One element: the normwise relative error is |got - ref| / |ref|, held to the same bound.
  tol.max_rel_norm = std::fabs(ref.value) > 0.0 ? tol.atol / std::fabs(ref.value) : tol.atol;
  return tol;
}

float sum_serial_float(const float* x, std::size_t n) {
  float s = 0.0f;
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  return s;
}

float sum_pairwise_float(const float* x, std::size_t n) {
  if (n == 0) return 0.0f;
  if (n == 1) return x[0];
  const std::size_t half = n / 2;
  return sum_pairwise_float(x, half) + sum_pairwise_float(x + half, n - half);
}

int exact_integer_range(Operation op, std::int64_t n) {
  constexpr double kLimit = 16777215.0;  // 2^24 - 1: every integer up to here is a float
  const double per_term = n > 0 ? kLimit / static_cast<double>(n) : kLimit;
  int k = op == Operation::dot ? static_cast<int>(std::floor(std::sqrt(per_term))) : static_cast<int>(per_term);
  k = std::min(k, op == Operation::dot ? 2 : 3);
  return std::max(k, 1);
}

std::vector<float> integer_values(std::size_t n, std::uint64_t seed, int k) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = integer_value(seed, i, k);
  return v;
}

}  // namespace reduce
