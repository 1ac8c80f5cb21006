/// @file
/// @brief Chapter 06's searches (gemm_tune): the configurations each search times, kept apart
/// from the ladder. The versions that run a search's winner (v08_tuned, v09_by_shape,
/// v11_mma_bf16) name that configuration in their own files; these lists exist for the search
/// executable (tune/main.cpp) and for the tests that check every candidate.
#pragma once

#include <string>
#include <vector>

#include "gemm.hpp"

/// The tuning searches of chapter 06: candidates of v08's, v09's and v11's kernels.
namespace gemm::tune {

/// One configuration a search times: a named instantiation of a version's kernel template.
struct Candidate {
  /// The row name in the search's table and JSON, e.g. "t128x256x16_w64x64_t16x8_s3_b1_db_ic"
  /// (stable across runs: old and new tables compare by it).
  std::string name;
  /// The configuration's parameters in words (block tile, k-slice, threads, stages, switches).
  std::string summary;
  /// How to run it (fp32 launcher for the FFMA candidates, bf16 launcher for the mma ones).
  Kernel kernel;
  /// "" or the version that runs this configuration, e.g. "v08_tuned" (the search's winner).
  std::string chosen_by;
};

/// v08's search (tune/ffma_candidates.cu): the pipelined FFMA kernel of v07 in up to 8
/// configurations, timed at 4096^3 and 8192^3 next to cuBLAS SGEMM; one is v08_tuned's.
const std::vector<Candidate>& ffma_candidates();

/// v09's configurations (tune/shape_candidates.cu): the FFMA kernel in the tile shapes v09
/// chooses from, each on B as it is and on v09's padded copy of B, timed at 1024^3,
/// 4095 x 4097 x 1023 and 4096 x 4097 x 1024 next to cuBLAS SGEMM; those v09 runs say so.
const std::vector<Candidate>& shape_candidates();

/// v11's search (tune/mma_bf16_candidates.cu): the BF16 mma.sync kernel of v11 in up to 8
/// configurations, timed at 8192^3 next to cuBLAS BF16; one is v11_mma_bf16's.
const std::vector<Candidate>& mma_bf16_candidates();

}  // namespace gemm::tune
