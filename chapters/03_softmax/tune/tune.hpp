/// @file
/// @brief The tuning search of chapter 03 (`softmax_tune`, tune/main.cpp): v7's candidate tiles
/// (threads x float4s per thread), each forced on every shape, as rows of the search's table.
///
/// v7_cluster_rows picks three of them by the row length (v7_tile_for(): kV7TileOneBlock,
/// kV7TileCluster, kV7TileLongRows in v7_cluster_rows.cu), the measured winners of this search.
#pragma once

#include <vector>

#include "softmax.hpp"

namespace softmax {

/// A tile of v7 forced on every shape (v6 where it cannot run): a row of `softmax_tune`, named
/// "v7_t<threads>x<vec>".
struct V7Candidate {
  V7Tile tile;    ///< the tile it always uses
  Launch launch;  ///< runs it (same contract as a registered version)
};

/// The tuning candidates, threads x vec = 128..1024 x 2..8.
const std::vector<V7Candidate>& v7_candidates();

}  // namespace softmax
