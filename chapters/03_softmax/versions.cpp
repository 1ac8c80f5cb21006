// The registry of chapter 03: the only list of versions (executable, --list, tests, JSON).
#include "softmax.hpp"

namespace softmax {

namespace {

std::string any_shape(std::int64_t /*rows*/, std::int64_t /*cols*/) { return ""; }

}  // namespace

const std::vector<Version>& versions() {
  using tut::Kind;
  static const std::vector<Version> list = {
      {{"v0_thread_per_row", "one thread per row, three passes (uncoalesced)", 75, Kind::ours},
       launch_softmax_v0_thread_per_row, any_shape, true, false, Order::serial},
      {{"v1_block_tree", "one block per row, shared-memory tree reductions, three passes", 75, Kind::ours},
       launch_softmax_v1_block_tree, any_shape, true},
      {{"v2_block_shuffle", "one block per row, warp-shuffle block reductions, three passes", 75, Kind::ours},
       launch_softmax_v2_block_shuffle, any_shape, true},
      {{"v3_online", "online softmax: max and sum in one pass, two passes in all", 75, Kind::ours},
       launch_softmax_v3_online, any_shape, true},
      {{"v4_warp_registers", "one warp per row, row in registers (C <= 1024): one read, one write", 75, Kind::ours},
       launch_softmax_v4_warp_registers, v4_unsupported, true},
      {{"v5_block_shared", "one block per row, row in shared memory (large C): one read, one write", 75, Kind::ours},
       launch_softmax_v5_block_shared, v5_unsupported, true},
      {{"v6_float4", "float4 accesses, several loads in flight per thread; picks v4/v5/v3's scheme by C", 75,
        Kind::ours},
       launch_softmax_v6_float4, any_shape, true},
      {{"v7_cluster_rows", "a row split over a cluster of <= 8 blocks, slices in registers, DSMEM (max, sum) merge",
        90, Kind::ours},
       launch_softmax_v7_cluster_rows, v7_unsupported, true},
      {{"cudnn", "cudnnSoftmaxForward (accurate, per instance) on an R x C x 1 x 1 tensor", 75, Kind::library},
       launch_softmax_cudnn, cudnn_unsupported, false},
      {{"cudaMemcpy", "y = x with cudaMemcpyAsync: the copy roof at this size (not a softmax)", 75, Kind::library},
       launch_softmax_copy, any_shape, true, true},
  };
  return list;
}

}  // namespace softmax
