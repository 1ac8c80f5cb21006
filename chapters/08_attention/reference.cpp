// Chapter 08: the CPU reference (double precision), its row sampling, the tolerances, the check,
// and the counting helpers (FLOPs, bytes, visible pairs).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <sstream>
#include <thread>

#include "attention.hpp"
#include "common/random.hpp"

namespace attention {

const char* precision_name(Precision p) { return p == Precision::bf16 ? "bf16" : "fp32"; }

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

std::string unsupported_unless_d64_d128(const Shape& s) {
  if (s.d == 64 || s.d == 128) return "";
  return "head dim " + std::to_string(s.d) + ": the fused kernels are compiled for D = 64 and 128 only";
}

std::string unsupported_v1(const Shape& s) {
  if (s.d <= 256) return "";
  return "head dim " + std::to_string(s.d) + ": v01 keeps its row of O in registers, D <= 256";
}

double v00_workspace_bytes(const Shape& s) { return score_matrix_bytes(s); }

// ---------------------------------------------------------------------------------------------
// The reference
// ---------------------------------------------------------------------------------------------
void reference_row(const Shape& s, const float* q, const float* k, const float* v, std::int64_t row, double* o,
                   double* lse, double* mag) {
  const std::int64_t d = s.d, bh = row / s.sq, i = row % s.sq;
  const std::int64_t n = visible_keys(i, s.sq, s.sk, s.causal);
  for (std::int64_t c = 0; c < d; ++c) o[c] = 0.0;
  if (mag != nullptr) {
    for (std::int64_t c = 0; c < d; ++c) mag[c] = 0.0;
  }
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
    // Four partial sums: in double the order does not matter, and four independent chains run
    // about four times faster than one (the timed case's reference is B H Sq Sk dot products).
    double dot[4] = {0.0, 0.0, 0.0, 0.0};
    const float* kj = kb + j * d;
    std::int64_t c = 0;
    for (; c + 4 <= d; c += 4) {
      for (int x = 0; x < 4; ++x) dot[x] += static_cast<double>(qi[c + x]) * static_cast<double>(kj[c + x]);
    }
    for (; c < d; ++c) dot[0] += static_cast<double>(qi[c]) * static_cast<double>(kj[c]);
    const double sc = scale * ((dot[0] + dot[1]) + (dot[2] + dot[3]));
    score[static_cast<std::size_t>(j)] = sc;
    m = std::max(m, sc);
  }
  double l = 0.0;
  for (std::int64_t j = 0; j < n; ++j) {
    const double p = std::exp(score[static_cast<std::size_t>(j)] - m);  // <= 1: no overflow, whatever the scores
    l += p;
    const float* vj = vb + j * d;
    for (std::int64_t c = 0; c < d; ++c) o[c] += p * static_cast<double>(vj[c]);
    if (mag != nullptr) {
      for (std::int64_t c = 0; c < d; ++c) mag[c] += p * std::fabs(static_cast<double>(vj[c]));
    }
  }
  for (std::int64_t c = 0; c < d; ++c) o[c] /= l;
  if (mag != nullptr) {
    for (std::int64_t c = 0; c < d; ++c) mag[c] /= l;
  }
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
  ref.mag.assign(n * d, 0.0);
  ref.lse.assign(n, 0.0);
  // Rows are independent: split them over the CPU's threads (interleaved: causal rows differ in cost).
  const std::size_t workers = std::max<std::size_t>(1, std::min<std::size_t>(std::thread::hardware_concurrency(), 32));
  const auto work = [&](std::size_t w) {
    for (std::size_t r = w; r < n; r += workers) {
      reference_row(s, q, k, v, ref.rows[r], &ref.o[r * d], &ref.lse[r], &ref.mag[r * d]);
    }
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
  const double d = static_cast<double>(s.d), n = static_cast<double>(s.sk);
  // A bounds every score and the sum of the sizes of its dot product's terms (natural units).
  const double a = static_cast<double>(s.scale()) * d * q_max * k_max;
  // A score: D additions, each off by at most 2u of its running sum (u in an fp32 fma, 2u in a
  // tensor core's truncating add), then the scale and the base-2 conversions (a few u of A).
  const double e_score = (2.0 * d + 8.0) * u * a;
  // A probability 2^(s_j - m) (or exp): the errors of s_j and of the max, the rounding of s_j - m
  // (|s_j - m| <= 2A) and of the exponential (2 ulp) make it off by at most e_p, relative.
  const double e_p = 2.0 * e_score + 2.0 * u * a + 8.0 * u;
  // The sums over the keys (l, and each column of P V): chains of at most Sk steps, each off by at
  // most 6u of the running sum (the add, and the rescale's exponential and product where the max
  // moves: v00's softmax may rescale at every key).
  const double e_sum = (6.0 * n + 8.0) * u;
  // O[i, c] = sum_j w_j v_jc with w_j = p_j / l: each weight off by 2 e_p + e_sum relative, the sum by
  // e_sum, the division and the store by a few u; all relative to the magnitude sum_j w_j |v_jc|.
  // Weights below 2^-126 are flushed to zero by ex2.approx.ftz: at most Sk 2^-126 max|V| more.
  const double rtol32 = 2.0 * e_p + 2.0 * e_sum + 4.0 * u;
  const double atol = n * std::ldexp(1.0, -126) * v_max;
  // The normwise error (over the magnitudes) is held to the typical error instead: rounding errors
  // of independent outputs do not all reach the worst case. Measured on the H100 relative to ||O||
  // (>= relative to the magnitudes): fp32 at most 1.7e-6, bf16 at most 2.4e-3 (docs/results).
  const double typical_slack = 32.0 * u * (1.0 + a);
  Tolerances t;
  if (p == Precision::fp32) {
    t.o = {std::min(rtol32, 1e-5 + typical_slack), atol, rtol32,
           "fp32, worst case: |dO| <= (2 e_p + 2 e_sum) sum_j p_j |v_j|, e_p = 2 (2D + 8) u A + 2uA + 8u (a "
           "probability), e_sum = (6 Sk + 8) u (the chains over the keys), A = scale D max|Q| max|K|; normwise "
           "the typical error, 1e-5 + 32u (1 + A)"};
  } else {
    // P is rounded to bf16 before P V (each weight off by 2^-8 more) and O is stored in bf16 (2^-8 of
    // |O| <= the magnitude): 2^-7 of the magnitude on top of the fp32 parts.
    const double rtol = rtol32 + std::ldexp(1.0, -7);
    t.o = {std::min(rtol, 1e-2 + typical_slack), atol, rtol,
           "bf16: P and O rounded to bf16 (2^-8 each) on top of fp32's worst case: |dO| <= (2^-7 + 2 e_p + "
           "2 e_sum) sum_j p_j |v_j|; normwise 1e-2 + 32u (1 + A)"};
  }
  // lse = m + log(l): the scores' error moves it by at most e_score; l's relative error (the
  // exponentials' own roundings, the chain) adds to it; then the conversions of m and the log.
  const double e_lse = e_score + e_sum + 4.0 * u * a + 8.0 * u * (1.0 + std::log(n));
  t.lse_magnitude = 1.0 + a;
  t.lse = {e_lse / t.lse_magnitude, e_lse, 0.0,
           "lse, worst case: |d lse| <= e_score + e_sum + 4uA + 8u (1 + ln Sk), the same factors as O's, fp32 in "
           "every version; normwise over 1 + A (lse may be near 0 while the scores are large)"};
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
        // Relative to the magnitude sum_j p_j |v_jx|, not to |O| (which cancellation can make tiny).
        c.o.add(row * d + x, got_o[row * d + x], ref.o[r * d + x], empty ? 0.0 : ref.mag[r * d + x],
                empty ? exact : tol.o);
      }
      const double got = got_lse[row];
      if (empty) {
        if (std::isinf(got) && got < 0) {
          c.lse.add(row, 0.0, 0.0, exact);  // as required
        } else {
          c.lse.add(row, got, kMinusInfShown, exact);  // anything else fails (-inf shown as -FLT_MAX)
        }
      } else {
        c.lse.add(row, got, ref.lse[r], tol.lse_magnitude, tol.lse);
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
