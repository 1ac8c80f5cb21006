/// @file
/// @brief The search's candidates: v7's kernel with one tile forced on every shape
/// (launch_softmax_v7_tile(), v7_cluster_rows.cu), for threads x float4s per thread = 128..1024
/// x 2..8.
#include <stdexcept>
#include <string>
#include <vector>

#include "softmax.hpp"
#include "tune/tune.hpp"

namespace softmax {

namespace {

/// A candidate's launcher: always the tile kThreads x kVec (or v6 where it cannot run).
template <int kThreads, int kVec>
void launch_candidate(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  if (empty_or_invalid(rows, cols)) return;
  const std::string why = v7_unsupported(rows, cols);
  if (!why.empty()) throw std::invalid_argument("softmax v7 candidate: " + why);
  launch_softmax_v7_tile({kThreads, kVec}, x, y, rows, cols, stream);
}

}  // namespace

const std::vector<V7Candidate>& v7_candidates() {
  static const std::vector<V7Candidate> list = {
      {{128, 2}, launch_candidate<128, 2>},   {{128, 4}, launch_candidate<128, 4>},
      {{128, 8}, launch_candidate<128, 8>},   {{256, 2}, launch_candidate<256, 2>},
      {{256, 4}, launch_candidate<256, 4>},   {{256, 8}, launch_candidate<256, 8>},
      {{512, 2}, launch_candidate<512, 2>},   {{512, 4}, launch_candidate<512, 4>},
      {{1024, 2}, launch_candidate<1024, 2>}, {{1024, 4}, launch_candidate<1024, 4>},
  };
  return list;
}

}  // namespace softmax
