// The shape rules, the CPU reference (double precision, full or sampled), the tolerances, and the
// layout index maths shared by the launchers, the executable and the tests.
#include <algorithm>
#include <array>
#include <climits>
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

/// a * b * ..., or -1 if the product exceeds 2^62 (every factor is positive).
std::int64_t checked_product(std::initializer_list<std::int64_t> factors) {
  constexpr std::int64_t kLimit = std::int64_t{1} << 62;
  std::int64_t prod = 1;
  for (std::int64_t f : factors) {
    if (f != 0 && prod > kLimit / f) return -1;
    prod *= f;
  }
  return prod;
}

}  // namespace

std::string shape_error(const ConvShape& s) {
  const std::pair<const char*, std::int64_t> positive[] = {{"N", s.n}, {"C", s.c}, {"H", s.h}, {"W", s.w},
                                                           {"K", s.k}, {"R", s.r}, {"S", s.s}};
  for (const auto& [name, v] : positive) {
    if (v < 1) return std::string(name) + " must be at least 1 (got " + std::to_string(v) + ")";
    if (v > INT_MAX) return std::string(name) + " = " + std::to_string(v) + " is above 2^31 - 1";
  }
  if (s.stride_h < 1 || s.stride_w < 1) {
    return "the stride must be at least 1 (got " + std::to_string(s.stride_h) + " x " + std::to_string(s.stride_w) + ")";
  }
  if (s.pad_h < 0 || s.pad_w < 0) {
    return "the padding must not be negative (got " + std::to_string(s.pad_h) + " x " + std::to_string(s.pad_w) + ")";
  }
  if (s.stride_h > INT_MAX || s.stride_w > INT_MAX || s.pad_h > INT_MAX / 4 || s.pad_w > INT_MAX / 4 ||
      s.h + 2 * s.pad_h > INT_MAX || s.w + 2 * s.pad_w > INT_MAX) {
    return "the padded input (or the stride) is above 2^31 - 1";
  }
  if (s.r > s.h + 2 * s.pad_h || s.s > s.w + 2 * s.pad_w) {
    return "the " + std::to_string(s.r) + "x" + std::to_string(s.s) + " filter is larger than the padded input (" +
           std::to_string(s.h + 2 * s.pad_h) + "x" + std::to_string(s.w + 2 * s.pad_w) + "): there is no output";
  }
  const std::int64_t p = s.p(), q = s.q();
  if (checked_product({s.n, s.c, s.h, s.w}) < 0 || checked_product({s.k, s.c, s.r, s.s}) < 0 ||
      checked_product({s.n, s.k, p, q}) < 0 || checked_product({s.n, p, q, s.c, s.r, s.s}) < 0 ||
      checked_product({s.n, s.k, p, q, s.c, s.r, s.s}) < 0) {
    return "the tensor sizes overflow 64-bit integers (N C H W = " + std::to_string(s.n) + " x " +
           std::to_string(s.c) + " x " + std::to_string(s.h) + " x " + std::to_string(s.w) + ", K = " +
           std::to_string(s.k) + ")";
  }
  return "";
}

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

void require_valid(const ConvShape& s, const char* who) {
  const std::string why = shape_error(s);
  if (!why.empty()) throw std::invalid_argument(std::string(who) + ": " + why);
}

void require_16_byte_aligned(const void* x, const void* w, const char* who) {
  if (reinterpret_cast<std::uintptr_t>(x) % 16 != 0 || reinterpret_cast<std::uintptr_t>(w) % 16 != 0) {
    throw std::invalid_argument(std::string(who) + ": x and w must be 16-byte aligned");
  }
}

Dims dims_of(const ConvShape& s) {
  const auto i = [](std::int64_t v) { return static_cast<int>(v); };
  return {i(s.n), i(s.c), i(s.h), i(s.w), i(s.k), i(s.r), i(s.s), i(s.pad_h), i(s.pad_w), i(s.stride_h),
          i(s.stride_w), i(s.p()), i(s.q())};
}

tut::Tolerance tolerance(Precision p, std::int64_t reduction, bool winograd) {
  // Inputs are uniform in [-1, 1): each product x w has standard deviation 1/3, and an output is
  // a sum of L = C R S of them, a random walk whose partial sums stay below sqrt(L) (3 sigma). An
  // fp32 accumulation rounds each partial sum once (at most u |s_i|, u = 2^-24), so the whole sum
  // errs by at most sum_i u sqrt(i) <= u L^1.5, whatever the order of the additions (direct,
  // im2col + GEMM, split-K, cuDNN's algorithms).
  const double u = std::ldexp(1.0, -24);
  const double l = static_cast<double>(std::max<std::int64_t>(reduction, 1));
  const double sum_bound = u * l * std::sqrt(l);
  tut::Tolerance t;
  if (p == Precision::bf16) {
    // bf16 inputs (the reference uses the same rounded values), fp32 accumulation (4x the fp32
    // bound: tensor cores may truncate and align the addends of one instruction), and one
    // rounding of the output to bf16: at most 2^-9 relative, allowed as 2^-8. In norm the output
    // rounding alone is about 1e-3 (2^-9 / sqrt(3)); 4e-3 still fails a bf16 accumulation
    // (errors near 2^-9 sqrt(L), above 1e-2) or a dropped channel.
    t.max_rel_norm = 4e-3;
    t.atol = 4.0 * sum_bound;
    t.rtol = std::ldexp(1.0, -8) + 2.0 * u;
    t.why = "bf16 inputs (reference on the same rounded inputs), fp32 accumulation, bf16 output: per element "
            "4 u L^1.5 + 2^-8 |ref| (L = C R S, u = 2^-24); in norm 4e-3";
  } else if (winograd) {
    // Winograd F(2x2, 3x3) adds the roundings of three transforms: the input transform (sums of
    // four inputs, |V| <= 4), the filter transform (|U| <= 2.25 max |w|, with halves), and the
    // output transform (sums of nine products of the Winograd domain, each larger than the
    // result, so the cancellation loses bits). We allow 16x the direct element bound and 1e-4 in
    // norm; the [precision] test prints the measured cost next to the direct versions'.
    t.max_rel_norm = 1e-4;
    t.atol = 16.0 * sum_bound;
    t.rtol = 8.0 * u;
    t.why = "fp32 Winograd F(2x2,3x3): per element 16 u L^1.5 + 8u |ref| (three transforms' roundings); "
            "in norm 1e-4";
  } else {
    t.max_rel_norm = 1e-5;
    t.atol = sum_bound;
    t.rtol = 2.0 * u;
    t.why = "fp32 accumulation: per element u L^1.5 + 2u |ref| (L = C R S products of [-1,1) inputs, "
            "u = 2^-24); in norm 1e-5";
  }
  return t;
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
                        std::int64_t p, std::int64_t q) {
  double acc = 0.0;
  for (std::int64_t c = 0; c < s.c; ++c) {
    for (std::int64_t r = 0; r < s.r; ++r) {
      const std::int64_t h = p * s.stride_h - s.pad_h + r;
      if (h < 0 || h >= s.h) continue;  // zero padding
      const float* x_row = x + ((n * s.c + c) * s.h + h) * s.w;
      const float* w_row = w + ((k * s.c + c) * s.r + r) * s.s;
      for (std::int64_t t = 0; t < s.s; ++t) {
        const std::int64_t col = q * s.stride_w - s.pad_w + t;
        if (col < 0 || col >= s.w) continue;
        acc += static_cast<double>(x_row[col]) * static_cast<double>(w_row[t]);  // not flipped: cross-correlation
      }
    }
  }
  return acc;
}

std::vector<double> reference_conv(const ConvShape& s, const float* x, const float* w) {
  const std::int64_t P = s.p(), Q = s.q();
  std::vector<double> out(static_cast<std::size_t>(s.output_elements()));
  parallel_for(static_cast<std::size_t>(s.n * s.k), [&](std::size_t first, std::size_t last) {
    for (std::size_t plane = first; plane < last; ++plane) {
      const std::int64_t n = static_cast<std::int64_t>(plane) / s.k, k = static_cast<std::int64_t>(plane) % s.k;
      double* acc = out.data() + plane * static_cast<std::size_t>(P * Q);  // the (n, k) plane, P x Q
      for (std::int64_t c = 0; c < s.c; ++c) {
        for (std::int64_t r = 0; r < s.r; ++r) {
          for (std::int64_t t = 0; t < s.s; ++t) {
            const double wv = w[((k * s.c + c) * s.r + r) * s.s + t];
            for (std::int64_t p = 0; p < P; ++p) {
              const std::int64_t h = p * s.stride_h - s.pad_h + r;
              if (h < 0 || h >= s.h) continue;
              const float* x_row = x + ((n * s.c + c) * s.h + h) * s.w;
              double* acc_row = acc + p * Q;
              for (std::int64_t q = 0; q < Q; ++q) {
                const std::int64_t col = q * s.stride_w - s.pad_w + t;
                if (col >= 0 && col < s.w) acc_row[q] += static_cast<double>(x_row[col]) * wv;
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
    ref.value = reference_conv(s, x, w);
    return ref;
  }
  ref.full = false;
  ref.index = sample_indices(s, seed);
  ref.value.resize(ref.index.size());
  const std::size_t P = static_cast<std::size_t>(s.p()), Q = static_cast<std::size_t>(s.q()),
                    K = static_cast<std::size_t>(s.k);
  parallel_for(ref.index.size(), [&](std::size_t first, std::size_t last) {
    for (std::size_t j = first; j < last; ++j) {
      const std::size_t i = ref.index[j];
      ref.value[j] = reference_output(s, x, w, static_cast<std::int64_t>(i / (Q * P * K)),
                                      static_cast<std::int64_t>(i / (Q * P) % K), static_cast<std::int64_t>(i / Q % P),
                                      static_cast<std::int64_t>(i % Q));
    }
  });
  return ref;
}

tut::ErrorStats check_output(const ConvShape& s, Layout l, const Reference& ref, const float* got,
                             const tut::Tolerance& tol) {
  if (ref.full) {
    return tut::parallel_check(ref.value.size(), [&](std::size_t begin, std::size_t end, tut::ErrorStats& st) {
      for (std::size_t i = begin; i < end; ++i) st.add(i, got[output_offset(s, l, i)], ref.value[i], tol);
    });
  }
  return tut::parallel_check(ref.index.size(), [&](std::size_t begin, std::size_t end, tut::ErrorStats& st) {
    for (std::size_t j = begin; j < end; ++j) st.add(ref.index[j], got[output_offset(s, l, ref.index[j])], ref.value[j], tol);
  });
}

}  // namespace conv2d
