// The registry of chapter 02: the only list of versions (executable, --list, tests, JSON).
#include "reduce.hpp"

namespace reduce {

const std::vector<Version>& versions() {
  using tut::Kind;
  static const std::vector<Version> list = {
      {{"v0_atomic", "one global atomic per element (all threads queue on one address)", 75, Kind::ours},
       kAllOps, launch_reduce_v0_atomic, false, Order::serial},
      {{"v1_interleaved", "shared-memory tree per block, interleaved addressing (divergent warps)", 75, Kind::ours},
       kAllOps, launch_reduce_v1_interleaved, true, Order::tree},
      {{"v2_strided_index", "interleaved addressing with a strided index (bank conflicts)", 75, Kind::ours},
       kAllOps, launch_reduce_v2_strided_index, true, Order::tree},
      {{"v3_sequential", "sequential addressing: no divergence, no bank conflicts", 75, Kind::ours},
       kAllOps, launch_reduce_v3_sequential, true, Order::tree},
      {{"v4_first_add", "first add during the load: two elements per thread, half the blocks", 75, Kind::ours},
       kAllOps, launch_reduce_v4_first_add, true, Order::tree},
      {{"v5_warp_shuffle", "the last warp reduces with __shfl_xor_sync (no volatile trick)", 75, Kind::ours},
       kAllOps, launch_reduce_v5_warp_shuffle, true, Order::tree},
      {{"v6_float4", "float4 grid-stride loads over one wave of blocks; two launches", 75, Kind::ours},
       kAllOps, launch_reduce_v6_float4, true, Order::tree},
      {{"v7_one_pass", "v6 in one launch: the last block to finish reduces the partials", 75, Kind::ours},
       kAllOps, launch_reduce_v7_one_pass, true, Order::tree},
      {{"cub", "cub::DeviceReduce::Sum / Max (CUDA Toolkit), temp storage allocated once", 75, Kind::library},
       kSum | kMax, launch_reduce_cub, true, Order::tree},
      {{"cublas", "cublasSdot_64, result in device memory", 75, Kind::library},
       kDot, launch_reduce_cublas, true, Order::tree},
  };
  return list;
}

}  // namespace reduce
