/// @file
/// @brief NvtxRange: a named range in Nsight Systems / Nsight Compute timelines.
///
/// The chapter runner opens a range named after the chapter ("elementwise") and, nested inside
/// it, one range per version ("v3_float4"). `nsys profile` shows each version's checks and timed
/// repetitions as one labelled block, and `ncu --nvtx --nvtx-include "elementwise/v3_float4/"`
/// (ncu's syntax for a push/pop range nested in another) profiles only that version.
#pragma once

#include <nvtx3/nvToolsExt.h>

#include <string>

namespace tut {

/// Pushes an NVTX range on construction and pops it on destruction.
class NvtxRange {
 public:
  /// Opens the range `name`.
  explicit NvtxRange(const std::string& name) { nvtxRangePushA(name.c_str()); }
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace tut
