/// @file
/// @brief The tuning search of chapter 05 (`transpose_tune`): the candidate configurations it
/// times, as registry entries (tune_candidates.cu, tune_tma.cu).
///
/// Each candidate is a transpose::Version like the ladder's, correct for every R, C >= 1 (the
/// GPU tests run all of them over edge shapes), so the executable checks and times them the way
/// the chapter executable does its versions. v9_tuned_tiles runs one of the wide-tile
/// configurations (V9Config in v9_tuned_tiles.cu), set from the search's measured winner.
#pragma once

#include <vector>

#include "transpose.hpp"

namespace transpose {

/// The plain candidates (wide-tile transposes and their copies), then the TMA ones.
const std::vector<Version>& tune_candidates();

/// The TMA candidates alone (box shape, pipeline depth, tiles per block, order); sm_90.
const std::vector<Version>& tune_tma_candidates();

}  // namespace transpose
