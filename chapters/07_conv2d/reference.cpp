// The CPU reference (double precision, full or sampled, with each output's sum of |x w|), the
// tolerances, and the layout index maths shared by the launchers, the executable, the tests and
// the exercise's checker (this file is the chapter's REFERENCE library; the shape rules are
// inline in conv2d.hpp, because the exercise's runner links no chapter library).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/compare.hpp"
#include "common/random.hpp"
#include "conv2d.hpp"

namespace conv2d {

namespace {

/// Runs fn(begin, end) over [0, n) split into contiguous chunks, one per CPU thread (each item
/// is a row or an output: worth a thread of its own).
void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& fn) {
  tut::parallel_for(n, [&](std::size_t, std::size_t begin, std::size_t end) { fn(begin, end); }, 1);
}

}  // namespace

std::string shape_text(const ConvShape& s) {
  std::string t = "N" + std::to_string(s.n) + " C" + std::to_string(s.c) + " " + std::to_string(s.h) + "x" +
                  std::to_string(s.w) + " K" + std::to_string(s.k) + " " + std::to_string(s.r) + "x" +
                  std::to_string(s.s);
  if (s.stride_h != 1 || s.stride_w != 1) {
    t += " stride" + (s.stride_h == s.stride_w ? std::to_string(s.stride_h)
                                               : std::to_string(s.stride_h) + "x" + std::to_string(s.stride_w));
  }
  t += " pad" + (s.pad_h == s.pad_w ? std::to_string(s.pad_h) : std::to_string(s.pad_h) + "x" + std::to_string(s.pad_w));
  return t;
}

double conv_flops(const ConvShape& s) {
  return 2.0 * static_cast<double>(s.n) * static_cast<double>(s.k) * static_cast<double>(s.p()) *
         static_cast<double>(s.q()) * static_cast<double>(s.reduction());
}

double conv_bytes(const ConvShape& s, double in_bytes, double out_bytes) {
  return in_bytes * (static_cast<double>(s.input_elements()) + static_cast<double>(s.filter_elements())) +
         out_bytes * static_cast<double>(s.output_elements());
}

const char* layout_name(Layout l) { return l == Layout::nchw ? "NCHW" : "NHWC"; }

const char* precision_name(Precision p) { return p == Precision::fp32 ? "fp32" : "bf16"; }

std::string unsupported_reason(const Version& v, const ConvShape& s) {
  std::string why = shape_error(s);
  if (why.empty() && v.supports != nullptr) why = v.supports(s);
  return why;
}

void require_16_byte_aligned(const void* x, const void* w, const char* who) {
  if (reinterpret_cast<std::uintptr_t>(x) % 16 != 0 || reinterpret_cast<std::uintptr_t>(w) % 16 != 0) {
    throw std::invalid_argument(std::string(who) + ": x and w must be 16-byte aligned");
  }
}

namespace {

constexpr double kUnitRoundoff = 1.0 / 16777216.0;  // u = 2^-24, fp32's unit roundoff

/// The error factor of an fp32 sum of L products, relative to the sum of their magnitudes.
/// Summed in any order (a serial chain, a tree, split-K's atomics), the error is at most
/// gamma_L sum |x w|, gamma_L ~ L u (Higham, "Accuracy and Stability of Numerical Algorithms",
/// eq. 3.5). If the roundings are independent and of mean zero, it stays below
/// lambda sqrt(L) u sum |x w| except with a probability below 2 L exp(-lambda^2 / 2)
/// (Higham and Mary, SIAM J. Sci. Comput. 41, 2019). lambda = 8: that probability is below
/// 3e-14 L, and 8 sqrt(L) u is also at least the worst case L u up to L = 64.
double sum_factor(std::int64_t reduction) {
  return 8.0 * std::sqrt(static_cast<double>(std::max<std::int64_t>(reduction, 1))) * kUnitRoundoff;
}

/// bf16 tensor cores accumulate in fp32 but may truncate and align the addends of one
/// instruction: 4x the fp32 factor.
double bf16_sum_factor(std::int64_t reduction) { return 4.0 * sum_factor(reduction); }

/// A bf16 output is the fp32 result rounded once more: at most 2^-9 |ref|, allowed as 2^-8.
constexpr double kBf16OutputRounding = 1.0 / 256.0;

}  // namespace

tut::Tolerance tolerance(Precision p, std::int64_t reduction, bool winograd) {
  const double l = static_cast<double>(std::max<std::int64_t>(reduction, 1));
  tut::Tolerance t;
  if (p == Precision::bf16) {
    // Per element 2^-8 |ref| + 4 x 8 sqrt(L) u sum |x w|: the scale of error_scale(), which adds
    // the accumulation's part, times the output rounding's rtol. In norm the output rounding
    // alone is about 1.1e-3 of ||ref|| (2^-9 / sqrt(3)); 4e-3 still fails an accumulation in
    // bf16 (errors near 2^-9 sqrt(L) of the terms) or a dropped channel.
    t.max_rel_norm = 4e-3;
    t.atol = 0.0;
    t.rtol = kBf16OutputRounding;
    t.why = "bf16 inputs (reference on the same rounded inputs), fp32 accumulation, bf16 output: per element "
            "2^-8 |ref| + 32 sqrt(L) u sum|x w| (the scale is |ref| + kappa sum|x w|; L = C R S, u = 2^-24); "
            "in norm 4e-3 of the scales";
  } else if (winograd) {
    // Winograd F(2x2, 3x3) rounds in three transforms and in the channel sum of the Winograd
    // domain, whose terms come from the whole 4x4 input tile and the transformed filter, not from
    // the output's own products: an output whose window lies mostly in the padding has a small
    // sum |x w| but the rounding of its whole tile. So its element bound keeps an absolute part
    // written in the inputs' range, |x|, |w| < 1: 16x a random walk of L rounded partial sums that
    // stay below sqrt(L), 16 u L^1.5; plus the direct bound on sum |x w|. In norm 10x the direct
    // versions' (the [precision] test measures v05 and v06 within 1.7x of v04).
    t.max_rel_norm = 1e-5;
    t.atol = 16.0 * kUnitRoundoff * l * std::sqrt(l);
    t.rtol = sum_factor(reduction);
    t.why = "fp32 Winograd F(2x2,3x3): per element 16 u L^1.5 (the transforms' roundings, from |x|, |w| < 1) + "
            "8 sqrt(L) u sum|x w| (L = C R S, u = 2^-24); in norm 1e-5 of ||sum|x w|||";
  } else {
    // A direct sum in any order: sum_factor(). In norm the errors are far smaller: with inputs of
    // random sign the partial sums wander like sqrt(i) while sum |x w| grows like i, so the
    // rounding adds up to about 0.5 u ||sum |x w||| in any order. 1e-6 (17 u) leaves a wide
    // margin and still fails products rounded to tf32 (about 3.5e-4 / sqrt(L)) up to L ~ 10^5.
    t.max_rel_norm = 1e-6;
    t.atol = 0.0;
    t.rtol = sum_factor(reduction);
    t.why = "fp32 accumulation in any order: per element 8 sqrt(L) u sum|x w| (L = C R S, u = 2^-24; "
            "Higham and Mary's probabilistic bound, lambda = 8); in norm 1e-6 of ||sum|x w|||";
  }
  return t;
}

double error_scale(Precision p, std::int64_t reduction, double ref, double magnitude) {
  if (p == Precision::fp32) return magnitude;
  return std::fabs(ref) + bf16_sum_factor(reduction) / kBf16OutputRounding * magnitude;
}

float round_to_bf16(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }

std::vector<float> to_channels_last(const std::vector<float>& in, std::int64_t n, std::int64_t c, std::int64_t hw) {
  std::vector<float> out(in.size());
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t ch = 0; ch < c; ++ch)
      for (std::int64_t j = 0; j < hw; ++j) out[(i * hw + j) * c + ch] = in[(i * c + ch) * hw + j];
  return out;
}

std::size_t canonical_index(const ConvShape& s, std::int64_t n, std::int64_t k, std::int64_t p, std::int64_t q) {
  return static_cast<std::size_t>(((n * s.k + k) * s.p() + p) * s.q() + q);
}

std::size_t output_offset(const ConvShape& s, Layout l, std::size_t canonical) {
  if (l == Layout::nchw) return canonical;
  const std::size_t P = static_cast<std::size_t>(s.p()), Q = static_cast<std::size_t>(s.q()),
                    K = static_cast<std::size_t>(s.k);
  const std::size_t q = canonical % Q, p = canonical / Q % P, k = canonical / (Q * P) % K, n = canonical / (Q * P * K);
  return ((n * P + p) * Q + q) * K + k;  // N P Q K
}

std::string format_index(const ConvShape& s, std::size_t canonical) {
  const std::size_t P = static_cast<std::size_t>(s.p()), Q = static_cast<std::size_t>(s.q()),
                    K = static_cast<std::size_t>(s.k);
  return "n " + std::to_string(canonical / (Q * P * K)) + ", k " + std::to_string(canonical / (Q * P) % K) + ", p " +
         std::to_string(canonical / Q % P) + ", q " + std::to_string(canonical % Q);
}

double reference_output(const ConvShape& s, const float* x, const float* w, std::int64_t n, std::int64_t k,
                        std::int64_t p, std::int64_t q, double* magnitude) {
  double acc = 0.0, mag = 0.0;
  for (std::int64_t c = 0; c < s.c; ++c) {
    for (std::int64_t r = 0; r < s.r; ++r) {
      const std::int64_t h = p * s.stride_h - s.pad_h + r;
      if (h < 0 || h >= s.h) continue;  // zero padding
      const float* x_row = x + ((n * s.c + c) * s.h + h) * s.w;
      const float* w_row = w + ((k * s.c + c) * s.r + r) * s.s;
      for (std::int64_t t = 0; t < s.s; ++t) {
        const std::int64_t col = q * s.stride_w - s.pad_w + t;
        if (col < 0 || col >= s.w) continue;
        const double term = static_cast<double>(x_row[col]) * static_cast<double>(w_row[t]);  // exact in double
        acc += term;  // not flipped: cross-correlation
        mag += std::fabs(term);
      }
    }
  }
  if (magnitude != nullptr) *magnitude = mag;
  return acc;
}

std::vector<double> reference_conv(const ConvShape& s, const float* x, const float* w,
                                   std::vector<double>* magnitude) {
  const std::int64_t P = s.p(), Q = s.q();
  std::vector<double> out(static_cast<std::size_t>(s.output_elements()));
  if (magnitude != nullptr) magnitude->assign(out.size(), 0.0);
  parallel_for(static_cast<std::size_t>(s.n * s.k), [&](std::size_t first, std::size_t last) {
    for (std::size_t plane = first; plane < last; ++plane) {
      const std::int64_t n = static_cast<std::int64_t>(plane) / s.k, k = static_cast<std::int64_t>(plane) % s.k;
      double* acc = out.data() + plane * static_cast<std::size_t>(P * Q);  // the (n, k) plane, P x Q
      double* mag = magnitude != nullptr ? magnitude->data() + plane * static_cast<std::size_t>(P * Q) : nullptr;
      for (std::int64_t c = 0; c < s.c; ++c) {
        for (std::int64_t r = 0; r < s.r; ++r) {
          for (std::int64_t t = 0; t < s.s; ++t) {
            const double wv = w[((k * s.c + c) * s.r + r) * s.s + t];
            for (std::int64_t p = 0; p < P; ++p) {
              const std::int64_t h = p * s.stride_h - s.pad_h + r;
              if (h < 0 || h >= s.h) continue;
              const float* x_row = x + ((n * s.c + c) * s.h + h) * s.w;
              double* acc_row = acc + p * Q;
              double* mag_row = mag != nullptr ? mag + p * Q : nullptr;
              for (std::int64_t q = 0; q < Q; ++q) {
                const std::int64_t col = q * s.stride_w - s.pad_w + t;
                if (col < 0 || col >= s.w) continue;
                const double term = static_cast<double>(x_row[col]) * wv;  // exact: a product of two floats
                acc_row[q] += term;
                if (mag_row != nullptr) mag_row[q] += std::fabs(term);
              }
            }
          }
        }
      }
    }
  });
  return out;
}

std::vector<std::size_t> sample_indices(const ConvShape& s, std::uint64_t seed, std::size_t random_count) {
  const std::int64_t P = s.p(), Q = s.q();
  std::vector<std::size_t> idx;
  std::uint64_t draw = 0;
  const auto rnd = [&](std::int64_t bound) {
    return static_cast<std::int64_t>(tut::mix64(seed ^ tut::mix64(++draw)) % static_cast<std::uint64_t>(bound));
  };
  // Pixels with every output channel: the corners of the first and last image, then random ones.
  std::vector<std::array<std::int64_t, 3>> pixels;  // (n, p, q)
  for (std::int64_t n : {std::int64_t{0}, s.n - 1})
    for (std::int64_t p : {std::int64_t{0}, P - 1})
      for (std::int64_t q : {std::int64_t{0}, Q - 1}) pixels.push_back({n, p, q});
  while (pixels.size() < 64) pixels.push_back({rnd(s.n), rnd(P), rnd(Q)});
  for (const auto& px : pixels)
    for (std::int64_t k = 0; k < s.k; ++k) idx.push_back(canonical_index(s, px[0], k, px[1], px[2]));
  // Planes with their whole border (where the padding is read).
  std::vector<std::pair<std::int64_t, std::int64_t>> planes = {{0, 0}, {s.n - 1, s.k - 1}, {0, s.k - 1}, {s.n - 1, 0}};
  while (planes.size() < 32) planes.push_back({rnd(s.n), rnd(s.k)});
  for (const auto& [n, k] : planes) {
    for (std::int64_t q = 0; q < Q; ++q) {
      idx.push_back(canonical_index(s, n, k, 0, q));
      idx.push_back(canonical_index(s, n, k, P - 1, q));
    }
    for (std::int64_t p = 0; p < P; ++p) {
      idx.push_back(canonical_index(s, n, k, p, 0));
      idx.push_back(canonical_index(s, n, k, p, Q - 1));
    }
  }
  const std::uint64_t total = static_cast<std::uint64_t>(s.output_elements());
  for (std::size_t i = 0; i < random_count; ++i) {
    idx.push_back(static_cast<std::size_t>(tut::mix64(seed + 0x9e3779b97f4a7c15ull * (i + 1)) % total));
  }
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  return idx;
}

Reference make_reference(const ConvShape& s, const float* x, const float* w, std::uint64_t seed, double full_macs) {
  Reference ref;
  const double outputs = static_cast<double>(s.output_elements());
  if (outputs * static_cast<double>(s.reduction()) <= full_macs && outputs <= 67108864.0) {
    ref.full = true;
    ref.value = reference_conv(s, x, w, &ref.magnitude);
    return ref;
  }
  ref.full = false;
  ref.index = sample_indices(s, seed);
  ref.value.resize(ref.index.size());
  ref.magnitude.resize(ref.index.size());
  const std::size_t P = static_cast<std::size_t>(s.p()), Q = static_cast<std::size_t>(s.q()),
                    K = static_cast<std::size_t>(s.k);
  parallel_for(ref.index.size(), [&](std::size_t first, std::size_t last) {
    for (std::size_t j = first; j < last; ++j) {
      const std::size_t i = ref.index[j];
      ref.value[j] = reference_output(s, x, w, static_cast<std::int64_t>(i / (Q * P * K)),
                                      static_cast<std::int64_t>(i / (Q * P) % K), static_cast<std::int64_t>(i / Q % P),
                                      static_cast<std::int64_t>(i % Q), &ref.magnitude[j]);
    }
  });
  return ref;
}

tut::ErrorStats check_output(const ConvShape& s, Precision p, Layout l, const Reference& ref, const float* got,
                             const tut::Tolerance& tol) {
  const std::int64_t len = s.reduction();
  return tut::parallel_check(ref.value.size(), [&](std::size_t begin, std::size_t end, tut::ErrorStats& st) {
    for (std::size_t j = begin; j < end; ++j) {
      const std::size_t i = ref.full ? j : ref.index[j];  // the canonical (NKPQ) index
      st.add(i, got[output_offset(s, l, i)], ref.value[j], error_scale(p, len, ref.value[j], ref.magnitude[j]), tol);
    }
  });
}

}  // namespace conv2d
