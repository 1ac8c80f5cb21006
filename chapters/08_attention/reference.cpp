// Chapter 08: the CPU reference (double precision), its row sampling, the tolerances, the check,
// and the counting helpers (FLOPs, bytes, visible pairs).
#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "attention.hpp"
#include "common/random.hpp"

namespace attention {

const char* precision_name(Precision p) { return p == Precision::bf16 ? "bf16" : "fp32"; }

std::string shape_text(const Shape& s) {
  std::string t = "B" + std::to_string(s.b) + " H" + std::to_string(s.h) + " ";
  t += s.sq == s.sk ? "S" + std::to_string(s.sq) : "Sq" + std::to_string(s.sq) + " Sk" + std::to_string(s.sk);
  t += " D" + std::to_string(s.d);
  if (s.causal) t += " causal";
  return t;
}

double visible_pairs(const Shape& s) {
  const double heads = static_cast<double>(s.heads()), sq = static_cast<double>(s.sq), sk = static_cast<double>(s.sk);
  if (!s.causal) return heads * sq * sk;
  // Row i sees i + Sk - Sq + 1 keys (never more than Sk, since i < Sq), or none while that is <= 0.
  // Sq <= Sk: rows see Sk - Sq + 1, ..., Sk keys; Sq > Sk: the last Sk rows see 1, ..., Sk.
  if (s.sq <= s.sk) return heads * sq * (2.0 * sk - sq + 1.0) / 2.0;
  return heads * sk * (sk + 1.0) / 2.0;
}

double attention_flops(const Shape& s) { return 4.0 * static_cast<double>(s.d) * visible_pairs(s); }

double attention_bytes(const Shape& s, double element_bytes) {
  const double heads = static_cast<double>(s.heads()), d = static_cast<double>(s.d);
  return element_bytes * heads * d * (2.0 * static_cast<double>(s.sq) + 2.0 * static_cast<double>(s.sk)) +
         4.0 * heads * static_cast<double>(s.sq);
}

double score_matrix_bytes(const Shape& s) {
  return 4.0 * static_cast<double>(s.heads()) * static_cast<double>(s.sq) * static_cast<double>(s.sk);
}

void check_shape(const Shape& s) {
  if (s.b < 1 || s.h < 1 || s.sq < 1 || s.sk < 1 || s.d < 1) {
    throw std::invalid_argument("attention: every dimension must be >= 1 (got " + shape_text(s) + ")");
  }
  if (s.sq > INT_MAX || s.sk > INT_MAX || s.d > INT_MAX || s.heads() > INT_MAX) {
    throw std::invalid_argument("attention: Sq, Sk, D and B x H must each be below 2^31 (got " + shape_text(s) + ")");
  }
}

std::string unsupported_unless_d64_d128(const Shape& s) {
  if (s.d == 64 || s.d == 128) return "";
  return "head dim " + std::to_string(s.d) + ": the fused kernels are compiled for D = 64 and 128 only";
}

std::string unsupported_v1(const Shape& s) {
  if (s.d <= 256) return "";
  return "head dim " + std::to_string(s.d) + ": v1 keeps its row of O in registers, D <= 256";
}

double v0_workspace_bytes(const Shape& s) { return score_matrix_bytes(s); }

// ---------------------------------------------------------------------------------------------
// The reference
// ---------------------------------------------------------------------------------------------
void reference_row(const Shape& s, const float* q, const float* k, const float* v, std::int64_t row, double* o,
                   double* lse) {
  const std::int64_t d = s.d, bh = row / s.sq, i = row % s.sq;
  const std::int64_t n = visible_keys(i, s.sq, s.sk, s.causal);
  for (std::int64_t c = 0; c < d; ++c) o[c] = 0.0;
  if (n == 0) {  // a row that sees no key: O = 0, lse = -inf (the documented definition)
    *lse = -std::numeric_limits<double>::infinity();
    return;
  }
  const float* qi = q + row * d;
  const float* kb = k + bh * s.sk * d;
  const float* vb = v + bh * s.sk * d;
  const double scale = static_cast<double>(s.scale());  // the float the kernels use, exactly
  std::vector<double> score(static_cast<std::size_t>(n));
  double m = -std::numeric_limits<double>::infinity();
  for (std::int64_t j = 0; j < n; ++j) {
    double dot = 0.0;
    const float* kj = kb + j * d;
    for (std::int64_t c = 0; c < d; ++c) dot += static_cast<double>(qi[c]) * static_cast<double>(kj[c]);
    score[static_cast<std::size_t>(j)] = scale * dot;
    m = std::max(m, scale * dot);
  }
  double l = 0.0;
  for (std::int64_t j = 0; j < n; ++j) {
    const double p = std::exp(score[static_cast<std::size_t>(j)] - m);  // <= 1: no overflow, whatever the scores
    l += p;
    const float* vj = vb + j * d;
    for (std::int64_t c = 0; c < d; ++c) o[c] += p * static_cast<double>(vj[c]);
  }
  for (std::int64_t c = 0; c < d; ++c) o[c] /= l;
  *lse = m + std::log(l);
}

std::vector<std::int64_t> sample_rows(const Shape& s, std::uint64_t seed) {
  const std::int64_t heads = s.heads(), sq = s.sq;
  std::vector<std::int64_t> picked_heads = {0, heads - 1};
  for (std::uint64_t r = 0; r < 2; ++r) picked_heads.push_back(static_cast<std::int64_t>(tut::mix64(seed + r) % heads));
  std::vector<std::int64_t> rows;
  std::uint64_t draw = 100;
  for (std::int64_t bh : picked_heads) {
    std::vector<std::int64_t> in_head = {0, 1, sq - 2, sq - 1};
    for (std::int64_t edge = 64; edge <= 256; edge += 64) {
      for (std::int64_t delta : {-1, 0, 1}) in_head.push_back(edge + delta);
    }
    if (s.causal && s.sq > s.sk) {  // around the first row that sees a key
      for (std::int64_t delta : {-1, 0, 1}) in_head.push_back(s.sq - s.sk + delta);
    }
    for (int r = 0; r < 48; ++r) in_head.push_back(static_cast<std::int64_t>(tut::mix64(seed + ++draw) % sq));
    for (std::int64_t i : in_head) {
      if (i >= 0 && i < sq) rows.push_back(bh * sq + i);
    }
  }
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

Reference make_reference(const Shape& s, const float* q, const float* k, const float* v, std::uint64_t seed,
                         double full_macs) {
  Reference ref;
  const double macs = 2.0 * static_cast<double>(s.heads()) * static_cast<double>(s.sq) *
                      static_cast<double>(s.sk) * static_cast<double>(s.d);
  ref.full = macs <= full_macs;
  if (ref.full) {
    ref.rows.resize(static_cast<std::size_t>(s.heads() * s.sq));
    for (std::size_t r = 0; r < ref.rows.size(); ++r) ref.rows[r] = static_cast<std::int64_t>(r);
  } else {
    ref.rows = sample_rows(s, seed);
  }
  const std::size_t n = ref.rows.size(), d = static_cast<std::size_t>(s.d);
  ref.o.assign(n * d, 0.0);
  ref.lse.assign(n, 0.0);
  // Rows are independent: split them over the CPU's threads (interleaved: causal rows differ in cost).
  const std::size_t workers = std::max<std::size_t>(1, std::min<std::size_t>(std::thread::hardware_concurrency(), 32));
  const auto work = [&](std::size_t w) {
    for (std::size_t r = w; r < n; r += workers) reference_row(s, q, k, v, ref.rows[r], &ref.o[r * d], &ref.lse[r]);
  };
  std::vector<std::thread> threads;
  for (std::size_t w = 1; w < workers; ++w) threads.emplace_back(work, w);
  work(0);
  for (auto& t : threads) t.join();
  return ref;
}

float max_abs(const float* x, std::size_t n) {
  float m = 0.0f;
  for (std::size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(x[i]));
  return m;
}

// ---------------------------------------------------------------------------------------------
// Tolerances and the check
// ---------------------------------------------------------------------------------------------
// [tolerances]
Tolerances tolerances(Precision p, const Shape& s, double q_max, double k_max, double v_max) {
  const double u = std::ldexp(1.0, -24);  // fp32 unit roundoff
  // |score| <= scale * D * q_max * k_max. Each score is off by a few roundings of numbers of that
  // size (its dot product, the scale, the exp argument); exp(score) moves by that error relative.
  const double score_bound = static_cast<double>(s.scale()) * static_cast<double>(s.d) * q_max * k_max;
  const double eps_score = 8.0 * u * (1.0 + score_bound);
  Tolerances t;
  if (p == Precision::fp32) {
    // O = sum_j p_j v_j with sum_j p_j = 1: relative errors of the p_j move O by at most that error
    // times max|v|; the fp32 sums add a few more roundings.
    t.o = {2e-4 + 4.0 * eps_score, (2.0 * eps_score + std::ldexp(1.0, -17)) * v_max, 4.0 * u,
           "fp32: |dO| <= 2 eps_s max|V| + 2^-17 max|V|, eps_s = 8u (1 + scale D max|Q| max|K|); 2e-4 in norm"};
  } else {
    // P is rounded to bf16 before P V (each p_j off by up to 2^-8 relative: |dO| <= 2^-8 max|V|),
    // and O is stored in bf16 (2^-8 relative): twice both, and 1e-2 in norm (typical: ~2e-3).
    t.o = {1e-2 + 4.0 * eps_score, (2.0 * eps_score + std::ldexp(1.0, -7)) * v_max, std::ldexp(1.0, -7),
           "bf16: P and O rounded to bf16 (2^-8 relative each): atol 2^-7 max|V| + 2 eps_s max|V|, rtol 2^-7; "
           "1e-2 in norm"};
  }
  // lse = max + log(sum): off by the score error plus a few roundings of the sum (fp32 in both).
  t.lse = {1e-4 + eps_score, 2.0 * eps_score + 1e-5, 0.0,
           "lse: |d lse| <= 2 eps_s + 1e-5 (the scores' error; the sum is fp32 in every version)"};
  return t;
}
// [tolerances]

namespace {

/// A row that sees no key must give lse = -inf; a finite stand-in of that expectation for reports.
constexpr double kMinusInfShown = -static_cast<double>(FLT_MAX);

}  // namespace

Check check_output(const Reference& ref, const Shape& s, const float* got_o, const float* got_lse,
                   const Tolerances& tol) {
  const std::size_t d = static_cast<std::size_t>(s.d);
  const tut::Tolerance exact{0.0, 0.0, 0.0, "a row that sees no key: O exactly 0, lse exactly -inf"};
  const auto chunk = [&](std::size_t begin, std::size_t end, Check& c) {
    for (std::size_t r = begin; r < end; ++r) {
      const std::size_t row = static_cast<std::size_t>(ref.rows[r]);
      const bool empty = std::isinf(ref.lse[r]);  // -inf: the row sees no key
      for (std::size_t x = 0; x < d; ++x) {
        c.o.add(row * d + x, got_o[row * d + x], ref.o[r * d + x], empty ? exact : tol.o);
      }
      const double got = got_lse[row];
      if (empty) {
        if (std::isinf(got) && got < 0) {
          c.lse.add(row, 0.0, 0.0, exact);  // as required
        } else {
          c.lse.add(row, got, kMinusInfShown, exact);  // anything else fails (-inf shown as -FLT_MAX)
        }
      } else {
        c.lse.add(row, got, ref.lse[r], tol.lse);
      }
    }
  };
  // Split over the CPU's threads for the big tables (each part its own accumulators, merged).
  const std::size_t n = ref.rows.size();
  const std::size_t workers = n * d < (std::size_t{1} << 16)
                                  ? 1
                                  : std::max<std::size_t>(1, std::min<std::size_t>(std::thread::hardware_concurrency(), 32));
  std::vector<Check> parts(workers);
  std::vector<std::thread> threads;
  const std::size_t per = (n + workers - 1) / workers;
  for (std::size_t w = 1; w < workers; ++w) {
    threads.emplace_back([&, w] { chunk(std::min(n, w * per), std::min(n, (w + 1) * per), parts[w]); });
  }
  chunk(0, std::min(n, per), parts[0]);
  for (auto& t : threads) t.join();
  for (std::size_t w = 1; w < workers; ++w) {
    parts[0].o.merge(parts[w].o);
    parts[0].lse.merge(parts[w].lse);
  }
  return parts[0];
}

std::string format_index(const Shape& s, std::size_t index) {
  const std::size_t d = static_cast<std::size_t>(s.d);
  const std::size_t row = index / d, bh = row / static_cast<std::size_t>(s.sq);
  return "head " + std::to_string(bh) + ", row " + std::to_string(row % static_cast<std::size_t>(s.sq)) + ", d " +
         std::to_string(index % d);
}

std::string Check::describe(const Tolerances& tol, const Shape& s) const {
  std::ostringstream os;
  const std::size_t sq = static_cast<std::size_t>(s.sq);
  os << "O: " << o.describe(tol.o, [&s](std::size_t i) { return format_index(s, i); }) << "\nlse: "
     << lse.describe(tol.lse, [sq](std::size_t i) {
          return "head " + std::to_string(i / sq) + ", row " + std::to_string(i % sq);
        });
  return os.str();
}

}  // namespace attention
