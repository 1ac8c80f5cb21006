// CPU side of chapter 02: the double-precision references, the tolerance, the accuracy
// demonstrations (serial vs pairwise float sums) and the integer-valued inputs.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
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

const char* order_name(Order order) {
  switch (order) {
    case Order::serial:
      return "serial";
    case Order::any:
      return "any";
    case Order::tree:
      break;
  }
  return "tree";
}

tut::Tolerance tolerance(Operation op, std::int64_t n, Order order) {
  if (op == Operation::max) {
    return {0.0, 0.0, 0.0, "a max involves no rounding: every version must return the exact maximum"};
  }
  const bool dot = op == Operation::dot;
  const std::string plus_dot = dot ? " + 1" : "";
  // Roundings a term can pass through on its way to the result, in the worst order: n - 1
  // additions, the first add to the identity (exact, counted for simplicity), dot's product.
  const double c = static_cast<double>(n) + (dot ? 1.0 : 0.0);
  const double u = kUnitRoundoff;
  const double worst_chain = std::expm1(c * std::log1p(u));  // (1 + u)^c - 1, without cancellation
  double rel = 0.0;
  std::string why;
  switch (order) {
    case Order::tree: {
      const double levels = n > 1 ? std::ceil(std::log2(static_cast<double>(n))) : 0.0;
      rel = (2.0 * levels + 16.0 + (dot ? 1.0 : 0.0)) * u;
      why = "tree order: |got - ref| <= (2*ceil(log2 n) + 16" + plus_dot +
            ") * 2^-24 * sum|term|: twice the worst case of a tree of additions, plus slack (v6, v7 and the "
            "libraries add serial runs per thread first: see the chapter page, \"Accuracy\")";
      break;
    }
    case Order::serial:
      rel = worst_chain;
      why = "serial order: |got - ref| <= ((1 + 2^-24)^" + std::string(dot ? "(n+1)" : "n") +
            " - 1) * sum|term|, the worst case of n additions in a chain, in any order (v0's atomics)" +
            (rel >= 1.0 ? "; at this n it exceeds sum|term|: a serial float sum guarantees no accuracy" : "");
      break;
    case Order::any: {
      // Any order: a term's error is the sum of the roundings on its path, at most c of them.
      // Modelled as independent, of mean zero and at most u, they exceed lambda sqrt(c) u sum|term|
      // with probability below 2 exp(-lambda^2 / 2) (Hoeffding; Higham and Mary 2019): 3e-8 for
      // lambda = 6. The c u^2 is their second-order term. For c <= 36 the worst case is smaller.
      constexpr double kLambda = 6.0;
      rel = std::min(worst_chain, std::expm1(kLambda * std::sqrt(c) * u + c * u * u));
      why = "any order: |got - ref| <= min((1 + 2^-24)^c - 1, 6 sqrt(c) 2^-24) * sum|term|, c = n" + plus_dot +
            ": the worst case for small n, else the probabilistic bound of any order of c roundings (exceeded "
            "with probability < 3e-8; Higham and Mary 2019)";
      break;
    }
  }
  // Relative to sum|term|, never to |sum|: terms that cancel leave a small sum with the rounding
  // errors of the large terms. ErrorStats::add(i, got, ref.value, ref.magnitude, tol) divides by
  // the magnitude in the normwise error too, so that bound is the same rel.
  tut::Tolerance tol;
  tol.max_rel_norm = rel;
  tol.atol = 0.0;
  tol.rtol = rel;
  tol.why = why;
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
