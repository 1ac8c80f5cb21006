// The CPU reference (exact), the check, and the vector-path test
// shared by v5-v9.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "transpose.hpp"

namespace transpose {

std::vector<float> reference_transpose(const std::vector<float>& A, std::int64_t R, std::int64_t C) {
  if (R < 1 || C < 1 || static_cast<std::int64_t>(A.size()) != R * C) {
    throw std::invalid_argument("reference_transpose: A must hold R x C >= 1 elements");
  }
  std::vector<float> B(A.size());
  for (std::int64_t r = 0; r < R; ++r)
    for (std::int64_t c = 0; c < C; ++c) B[static_cast<std::size_t>(c * R + r)] = A[static_cast<std::size_t>(r * C + c)];
  return B;
}

const tut::Tolerance& exact_tolerance() {
  static const tut::Tolerance t{0.0, 0.0, 0.0, "a transpose or a copy moves bits: every element must be exact"};
  return t;
}

tut::ErrorStats check(const std::vector<float>& got, const std::vector<float>& A, std::int64_t R, std::int64_t C,
                      Output output) {
  if (got.size() != A.size()) throw std::invalid_argument("transpose::check: output and input sizes differ");
  const tut::Tolerance& tol = exact_tolerance();
  return tut::parallel_check(got.size(), [&](std::size_t begin, std::size_t end, tut::ErrorStats& stats) {
    for (std::size_t i = begin; i < end; ++i) {
      // Output element i is B[c][r] (i = c * R + r) for a transpose, B[r][c] = A[i] for a copy.
      const std::size_t src =
          output == Output::copied ? i : static_cast<std::size_t>((static_cast<std::int64_t>(i) % R) * C +
                                                                  static_cast<std::int64_t>(i) / R);
      stats.add(i, static_cast<double>(got[i]), static_cast<double>(A[src]), tol);
    }
  });
}

bool vector_path(const float* A, const float* B, std::int64_t R, std::int64_t C) {
  const auto aligned = [](const float* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  return R % 4 == 0 && C % 4 == 0 && aligned(A) && aligned(B);
}

}  // namespace transpose
