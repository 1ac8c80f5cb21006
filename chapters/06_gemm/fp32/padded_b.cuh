/// @file
/// @brief v09's padded B: B copied into rows of 16-byte aligned length (a workspace kept between
/// calls), and the launcher that runs a pipelined FFMA configuration on that copy when B's rows
/// are not aligned. Used by v09 and v26 and by the configurations of v09's search
/// (tune/shape_candidates.cu); launch_chosen_config(), v09's choice between two configurations.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/scratch.hpp"
#include "fp32/ffma_pipeline.cuh"
#include "fp32/shape_choice.hpp"
#include "gemm.hpp"
#include "gemm_device.cuh"

namespace gemm {

/// The memory of the padded copy: kept between calls, one for the process, lent to one call at a
/// time in stream order (tut::Scratch). Defined in fp32/v09_by_shape.cu.
tut::Scratch& padded_b_scratch();

/// B (k x n, row-major) copied on `stream` into `dst`, rows of `ldb` floats (a multiple of 4,
/// >= n), zeros in columns n .. ldb-1. Defined in fp32/v09_by_shape.cu, with its kernel.
void pad_b(const float* b, std::int64_t k, std::int64_t n, std::int64_t ldb, float* dst, cudaStream_t stream);

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
  const tut::Scratch::Lease copy = padded_b_scratch().lease(static_cast<std::size_t>(k * ldb) * sizeof(float), stream);
  pad_b(b, k, n, ldb, copy.at<float>(), stream);
  launch_pipelined_ldb<Cfg>(m, n, k, alpha, a, copy.at<float>(), ldb, beta, c, stream);
}
// [pad]

/// v09's launch (and v26's): `Large` (128 x 256 tiles) where choose_config() says they fill the
/// GPU's rounds, else `Small`, each on a padded copy of B where B's rows are unaligned.
template <class Large, class Small>
void launch_chosen_config(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a, const float* b,
                          float beta, float* c, cudaStream_t stream) {
  static_assert(Large::BM == 128 && Large::BN == 256, "choose_config() counts tiles of 128 x 256");
  if (choose_config(m, n, sm_count()) == ShapeConfig::large) {
    launch_padded_b<Large>(m, n, k, alpha, a, b, beta, c, stream);
  } else {
    launch_padded_b<Small>(m, n, k, alpha, a, b, beta, c, stream);
  }
}

}  // namespace gemm
