// The CPU reference (exact) and the check: what the exercise checker (check_transpose) links of
// the chapter, so nothing of the ladder lives here.
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

tut::ErrorStats check(const float* got, const float* A, std::int64_t R, std::int64_t C, Output output) {
  const tut::Tolerance& tol = exact_tolerance();
  const auto n = static_cast<std::size_t>(R) * static_cast<std::size_t>(C);
  return tut::parallel_check(n, [&](std::size_t begin, std::size_t end, tut::ErrorStats& stats) {
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint64_t src = source_index(i, static_cast<std::uint64_t>(R), static_cast<std::uint64_t>(C), output);
      stats.add(i, static_cast<double>(got[i]), static_cast<double>(A[src]), tol);
    }
  });
}

tut::ErrorStats check(const std::vector<float>& got, const std::vector<float>& A, std::int64_t R, std::int64_t C,
                      Output output) {
  if (got.size() != A.size() || static_cast<std::int64_t>(A.size()) != R * C) {
    throw std::invalid_argument("transpose::check: output and input must both hold R x C elements");
  }
  return check(got.data(), A.data(), R, C, output);
}

// In the reference library (not the ladder's) so that the exercise's checker can use it too.
double bytes_moved(std::int64_t R, std::int64_t C) { return 8.0 * static_cast<double>(R) * static_cast<double>(C); }

}  // namespace transpose
