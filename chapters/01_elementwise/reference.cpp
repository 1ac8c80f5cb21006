// CPU references (double precision) and the alignment helper shared by the float4 versions.
#include <cmath>
#include <cstdint>

#include "elementwise.hpp"

namespace elementwise {

double reference_add(double a, double b) { return a + b; }
double reference_copy(double x, double /*unused*/) { return x; }
double reference_relu(double x, double /*unused*/) { return x > 0.0 ? x : 0.0; }
double reference_sigmoid(double x, double /*unused*/) { return 1.0 / (1.0 + std::exp(-x)); }
double reference_axpb_relu(double x, double /*unused*/) {
  const double t = static_cast<double>(kAlpha) * x + static_cast<double>(kBeta);
  return t > 0.0 ? t : 0.0;
}

const tut::Tolerance& add_tolerance() {
  // a + b of two fp32 numbers is one correctly rounded operation: |err| <= 2^-24 |a + b|, so a
  // bound relative to the result is exact here (no terms cancel before the one rounding).
  static const tut::Tolerance tol{1.2e-7, 0.0, 1.2e-7,
                                  "one fp32 rounding of the exact result: |err| <= 2^-24 |ref|, plus 1 ulp of slack"};
  return tol;
}

std::int64_t float4_peel(std::int64_t n, const float* a, const float* b, const float* out) {
  // Floats until the next 16-byte boundary: 0..3 (cudaMalloc returns 256-byte aligned memory,
  // so only sub-array views such as `a + 1` need a peel).
  const auto peel = [](const float* p) {
    return static_cast<std::int64_t>((16 - reinterpret_cast<std::uintptr_t>(p) % 16) % 16 / sizeof(float));
  };
  const std::int64_t head = peel(a);
  if (peel(b) != head || peel(out) != head) return n;  // no common boundary: all scalar
  return head < n ? head : n;
}

}  // namespace elementwise
