// The registry of chapter 08: the only list of versions (executable, --list, tests, JSON).
#include "attention.hpp"

namespace attention {

const std::vector<Version>& versions() {
  using tut::Kind;
  constexpr Precision fp32 = Precision::fp32, bf16 = Precision::bf16;
  // max_flops: above it the executable reports "too slow at this size" to keep the default run
  // short; the tests run every version at every size of their sweep.
  static const std::vector<Version> list = {
      {{"v00_naive", "three kernels: S = Q K^T stored in global memory, a row softmax, O = P V", 75, Kind::ours},
       {fp32, launch_attention_v00_naive, nullptr}, 2.0e10, nullptr, v00_workspace_bytes},
      {{"v01_online_row", "one warp per query row, online softmax over 32 keys at a time: S never stored", 75,
        Kind::ours},
       {fp32, launch_attention_v01_online_row, nullptr}, 2.0e10, unsupported_v1, nullptr},
      {{"v02_tiled", "FlashAttention-1 style: 64-row Q tile per block, K/V tiles in shared memory, the block "
                    "cooperates on scores, row statistics and P V",
        75, Kind::ours},
       {fp32, launch_attention_v02_tiled, nullptr}, 3.0e11, unsupported_unless_d64_d128, nullptr},
      {{"v03_warp_rows", "FlashAttention-2 work split: each warp owns 16 rows, softmax by shuffles, O rescaled once "
                        "per tile, register tiles",
        75, Kind::ours},
       {fp32, launch_attention_v03_warp_rows, nullptr}, 0.0, unsupported_unless_d64_d128, nullptr},
      {{"v04_mma", "bf16 mma.sync m16n8k16: S and O in registers, P reused as the A operand, ldmatrix (.trans for "
                  "V), swizzled tiles",
        80, Kind::ours},
       {bf16, nullptr, launch_attention_v04_mma}, 0.0, unsupported_unless_d64_d128, nullptr},
      {{"v05_cp_async", "v04 with K/V tiles copied by cp.async, double-buffered: tile j+1 lands during tile j", 80,
        Kind::ours},
       {bf16, nullptr, launch_attention_v05_cp_async}, 0.0, unsupported_unless_d64_d128, nullptr},
      {{"v06_causal_balance", "v05 with the mask computed only on diagonal/edge tiles and causal blocks launched "
                             "longest first",
        80, Kind::ours},
       {bf16, nullptr, launch_attention_v06_causal_balance}, 0.0, unsupported_unless_d64_d128, nullptr},
      {{"v07_wgmma", "Hopper: a producer warpgroup streams K/V tiles with TMA into an mbarrier ring, two consumer "
                    "warpgroups run Q K^T and P V on wgmma (P from registers)",
        90, Kind::ours},
       {bf16, nullptr, launch_attention_v07_wgmma}, 0.0, unsupported_v7, nullptr},
      {{"v08_split_tf32", "fp32 on the tensor cores: Q, K, P, V split into hi + lo TF32 parts, three mma.sync "
                         "m16n8k8 per product, each tile's P V added to O in fp32",
        80, Kind::ours},
       {fp32, launch_attention_v08_split_tf32, nullptr}, 0.0, unsupported_unless_d64_d128, nullptr},
      {{"v09_ping_pong", "v07 with FlashAttention-3's ping-pong: the two consumer warpgroups take turns on the tensor "
                        "cores (named barriers), one's softmax during the other's products (D = 128; v07's "
                        "tiles at D = 64)",
        90, Kind::ours},
       {bf16, nullptr, launch_attention_v09_ping_pong}, 0.0, unsupported_v7, nullptr},
      {{"v10_overlap", "v09 with FlashAttention-3's intra-warpgroup overlap: S and P V as two wgmma groups, each "
                       "tile's softmax while the previous tile's P V runs (D = 128; v07's tiles at D = 64)",
        90, Kind::ours},
       {bf16, nullptr, launch_attention_v10_overlap}, 0.0, unsupported_v7, nullptr},
      {{"v11_wide_tiles", "v10 with 176-key tiles at D = 128 (wgmma m64n176k16, FlashAttention-3's key tile): fewer "
                          "tiles per row, so fewer per-tile costs (v07's tiles at D = 64)",
        90, Kind::ours},
       {bf16, nullptr, launch_attention_v11_wide_tiles}, 0.0, unsupported_v7, nullptr},
      {{"v12_three_consumers", "v11 with three consumer warpgroups at D = 64: 192 query rows per block on 128-key tiles, "
                               "the turns going round three, each softmax behind two others' products (v11's tiles "
                               "at D = 128)",
        90, Kind::ours},
       {bf16, nullptr, launch_attention_v12_three_consumers}, 0.0, unsupported_v7, nullptr},
      {{"v13_persistent", "v12 on a persistent grid: one block per SM takes item after item, the next item's Q and "
                          "K/V loaded while this one's O is stored",
        90, Kind::ours},
       {bf16, nullptr, launch_attention_v13_persistent}, 0.0, unsupported_v7, nullptr},
      {{"v14_by_shape", "v13, with v07's 128-row tiles at D = 64 where v13's 192-row tiles would compute more than "
                        "1.16x their scores (short sequences, the causal diagonal): tiles chosen per shape",
        90, Kind::ours},
       {bf16, nullptr, launch_attention_v14_by_shape}, 0.0, unsupported_v7, nullptr},
      {{"v15_descriptor_steps", "v14 with each wgmma descriptor built once per operand and tile, advanced by a "
                                "constant for every k-step",
        90, Kind::ours},
       {bf16, nullptr, launch_attention_v15_descriptor_steps}, 0.0, unsupported_v7, nullptr},
      {{"v16_lazy_rescale", "v15 with a lazy running max: it moves only when a tile exceeds it by more than 2^8, so O "
                            "is rescaled in few tiles",
        90, Kind::ours},
       {bf16, nullptr, launch_attention_v16_lazy_rescale}, 0.0, unsupported_v7, nullptr},
      {{"v17_double_q", "v16 with two Q tiles on the persistent grid at D = 64: the next item's Q loads while this "
                        "item's is in use",
        90, Kind::ours},
       {bf16, nullptr, launch_attention_v17_double_q}, 0.0, unsupported_v7, nullptr},
      {{"v18_mixed_items", "v17 with items of 192 and 128 query rows at D = 64: none computes rows past the end, "
                           "and the persistent grid's last round takes the short ones",
        90, Kind::ours},
       {bf16, nullptr, launch_attention_v18_mixed_items}, 0.0, unsupported_v7, nullptr},
      {{"v19_persistent_narrow", "v18 with v07's 128-row tiles, where v14's rule takes them (short sequences and the "
                                 "causal diagonal at D = 64), on the persistent grid too: two blocks per SM",
        90, Kind::ours},
       {bf16, nullptr, launch_attention_v19_persistent_narrow}, 0.0, unsupported_v7, nullptr},
      {{"v20_turns_across_items", "v19 with the consumers' turns running on from one item to the next: the next "
                                  "item's first Q K^T is issued during this item's last P V and output",
        90, Kind::ours},
       {bf16, nullptr, launch_attention_v20_turns_across_items}, 0.0, unsupported_v7, nullptr},
      {{"v21_sleeping_waits", "v20 with every mbarrier wait given a suspend-time hint: a waiting warp sleeps in "
                              "the barrier unit instead of polling it (gemm's v27)",
        90, Kind::ours},
       {bf16, nullptr, launch_attention_v21_sleeping_waits}, 0.0, unsupported_v7, nullptr},
      {{"v22_paired_waits", "v21 with each turn's two barrier waits (K of this tile, V of the last) polled at once: "
                            "one round trip to the barrier unit instead of two in a row",
        90, Kind::ours},
       {bf16, nullptr, launch_attention_v22_paired_waits}, 0.0, unsupported_v7, nullptr},
      {{"v23_pack_as_made", "v22 with each turn's P packed to bf16 pair by pair as the exponentials make it "
                            "(the packs fill the exponentials' gaps) instead of all at once after them",
        90, Kind::ours},
       {bf16, nullptr, launch_attention_v23_pack_as_made}, 0.0, unsupported_v7, nullptr},
      {{"v24_narrow_last_tile", "v23 with an item's last key tile, where its keys end in the tile's first 64 of 176, "
                                "multiplied and softmaxed over those 64 alone (D = 128)",
        90, Kind::ours},
       {bf16, nullptr, launch_attention_v24_narrow_last_tile}, 0.0, unsupported_v7, nullptr},
      {{"v25_wide_o_stores", "v24 with O stored in 16-byte pieces, each thread's bf16 pairs first moved within "
                             "its quad by shuffles (8 stores per thread and row set at D = 128, not 32)",
        90, Kind::ours},
       {bf16, nullptr, launch_attention_v25_wide_o_stores}, 0.0, unsupported_v7, nullptr},
      {{"v26_straight_epilogue", "v25 with the epilogue in a straight line: both rows at once, 1 / l and lse by the "
                                 "hardware's approximations, the stores under predicates",
        90, Kind::ours},
       {bf16, nullptr, launch_attention_v26_straight_epilogue}, 0.0, unsupported_v7, nullptr},
      {{"cublas_fp32", "library attention: cuBLAS strided-batched SGEMM-class GEMMs (no TF32) + softmax kernel", 75,
        Kind::library},
       {fp32, launch_cublas_attention_fp32, nullptr}, 0.0, nullptr, cublas_workspace_bytes_fp32},
      {{"cublas_bf16", "library attention: cuBLAS strided-batched BF16 GEMMs (fp32 accumulate) + softmax kernel", 80,
        Kind::library},
       {bf16, nullptr, launch_cublas_attention_bf16}, 0.0, nullptr, cublas_workspace_bytes_bf16},
  };
  return list;
}

}  // namespace attention
