/// @file
/// @brief v09's padded B: B copied into rows of 16-byte aligned length (a workspace kept between
/// calls), and the launcher that runs a pipelined FFMA configuration on that copy when B's rows
/// are not aligned. Used by v09 and by the configurations of v09's search (tune/shape_candidates.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "fp32/ffma_pipeline.cuh"
#include "gemm.hpp"
#include "gemm_device.cuh"

namespace gemm {

/// B (k x n, row-major) copied on `stream` into rows of `ldb` floats (a multiple of 4, >= n),
/// zeros in columns n .. ldb-1, in a workspace kept between calls and grown when a problem needs
/// more (one workspace for the process). Defined in fp32/v09_by_shape.cu, with its kernel.
const float* padded_b(const float* b, std::int64_t k, std::int64_t n, std::int64_t ldb, cudaStream_t stream);

// [pad]
/// Runs configuration Cfg as v09 does: when B's rows are not 16-byte aligned (N % 4 != 0 or a
/// misaligned base), B is first copied into rows of ldb = N rounded up to the tile width BN,
/// zeros past N, and the kernel reads the copy with 16-byte copies, every tile as an interior
/// one. The copy is one pass over B on the same stream, part of the timed call.
template <class Cfg>
void launch_padded_b(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a, const float* b,
                     float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  if ((n % 4 == 0 && aligned16(b)) || k == 0) {
    launch_pipelined<Cfg>(m, n, k, alpha, a, b, beta, c, stream);
    return;
  }
  check_dims(m, n, k);
  const std::int64_t ldb = (n + Cfg::BN - 1) / Cfg::BN * Cfg::BN;
  launch_pipelined_ldb<Cfg>(m, n, k, alpha, a, padded_b(b, k, n, ldb, stream), ldb, beta, c, stream);
}
// [pad]

}  // namespace gemm
