/// @file
/// @brief NvtxRange: a named range in Nsight Systems / Nsight Compute timelines.
///
/// The chapter runner opens one range per version ("elementwise/add/v3_float4"), so
/// `nsys profile` shows each version's checks and timed repetitions as one labelled block and
/// `ncu --nvtx --nvtx-include "elementwise/add/v3_float4/"` profiles only that version.
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
