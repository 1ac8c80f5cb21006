// Known-wrong submission (grader corpus): door 3 of issue 23. It computes C on the host with the
// chapter's own CPU reference, gemm::reference_gemm() from gemm.hpp (which the old grader linked
// into the exercise's program), copying A, B and C down and the result back. It compiles (the
// header is on the include path), but the runner links the harness and this file only: the link
// fails with an undefined reference to gemm::reference_gemm, a compile error that names it.
#include <cstdint>
#include <vector>

#include "common/check.hpp"
#include "exercise.hpp"
#include "gemm.hpp"

namespace gemm {

void exercise_gemm_2d_blocktile(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                                const float* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  const auto mk = static_cast<std::size_t>(m * k), kn = static_cast<std::size_t>(k * n),
             mn = static_cast<std::size_t>(m * n);
  std::vector<float> ha(mk), hb(kn), hc(mn);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaMemcpy(ha.data(), a, mk * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(hb.data(), b, kn * sizeof(float), cudaMemcpyDeviceToHost));
  if (beta != 0.0f) CUDA_CHECK(cudaMemcpy(hc.data(), c, mn * sizeof(float), cudaMemcpyDeviceToHost));
  Shape s;
  s.m = m;
  s.n = n;
  s.k = k;
  const std::vector<double> ref = reference_gemm(s, alpha, ha.data(), hb.data(), beta, beta != 0.0f ? hc.data() : nullptr);
  for (std::size_t i = 0; i < mn; ++i) hc[i] = static_cast<float>(ref[i]);
  CUDA_CHECK(cudaMemcpy(c, hc.data(), mn * sizeof(float), cudaMemcpyHostToDevice));
}

}  // namespace gemm
