/// @file
/// @brief v07's, v09's, v10's, v12's and v13's searches (bf16, sm_90a): other tiles for the
/// warp-specialized kernel (warp_specialized_kernel.cuh), without and with the consumers taking
/// turns, with each consumer's softmax beside its own P V, with three consumers, persistent.
///
/// `attention_tune` times every candidate on the table's shapes next to its version and cuBLAS;
/// v07's tiles at D = 64 (V07Tiles64 in wgmma_tile.cuh) were chosen from the first search, and v09's
/// choice at D = 64 (v07's tiles, no turns) from the second (the chapter page has the measured
/// numbers). Off Hopper, or in a build without sm_90a code, every candidate reports itself
/// skipped, as v07 does.
#include <string>

#include "tune/tune.hpp"
#include "warp_specialized_kernel.cuh"

namespace attention {

namespace tune {

namespace {

// [candidates]
// Each candidate states only what differs from the kernel's first configuration, WgmmaTiles
// (D = 128, 128-key tiles, one block per SM). Two blocks per SM at D = 64 need 64-key tiles: the
// consumers then get 104 registers (S 32, O 32 per thread).
struct G64 : WgmmaTiles { static constexpr int head_dim = 64; };
/// What v07 runs at D = 64 (V07Tiles64 in wgmma_tile.cuh).
struct G64Bc64Blocks2 : G64 {
  static constexpr int keys_per_tile = 64;
  static constexpr int min_blocks_per_sm = 2;
};
struct G64Bc64 : G64 { static constexpr int keys_per_tile = 64; };
// The consumers taking turns (v09) at D = 64, one block per SM: 128-key or 64-key tiles (two
// blocks per SM spill: P of the previous tile does not fit in 80 registers); at D = 128 on v07's
// tiles. (v09 runs v07's tiles without turns at D = 64: these lost to them.)
struct G64PingPong : G64 { static constexpr bool ping_pong = true; };
struct G64Bc64PingPong : G64Bc64 { static constexpr bool ping_pong = true; };
struct G128PingPong : WgmmaTiles { static constexpr bool ping_pong = true; };  // v09 at D = 128: v07's tiles
// A third stage in the ring (225 KiB at D = 128, 113 KiB at D = 64).
struct G128PingPongStages3 : G128PingPong { static constexpr int stages = 3; };
struct G64PingPongStages3 : G64PingPong { static constexpr int stages = 3; };
// Each consumer's softmax beside its own P V (v10), on the turns: at D = 128 on v09's tiles (what
// v10 runs) and with a third stage; at D = 64 on the turns' one block per SM, 128- or 64-key tiles.
struct G128Overlap : G128PingPong { static constexpr bool overlap = true; };
struct G128OverlapStages3 : G128Overlap { static constexpr int stages = 3; };
struct G64Overlap : G64PingPong { static constexpr bool overlap = true; };
struct G64Bc64Overlap : G64Bc64PingPong { static constexpr bool overlap = true; };
// FlashAttention-3's key tile at D = 128 without the mask (its hopper/tile_size.h): 176 keys
// (what v11 runs at D = 128).
struct G128Bc176Overlap : G128Overlap { static constexpr int keys_per_tile = 176; };
// Three consumer warpgroups (v12; 192 query rows per block, consumers at 160 registers) at D = 64:
// on v10's turns and overlap (what v12 runs), with a third stage, on 64-key tiles, on the turns
// alone, and each on its own (v07's schedule); at D = 128 on 64-key tiles (O of 128 columns and S
// of 128 keys would not fit beside P in 160 registers).
struct G64OverlapC3 : G64Overlap { static constexpr int consumers = 3; };
struct G64OverlapC3Stages3 : G64OverlapC3 { static constexpr int stages = 3; };
struct G64Bc64OverlapC3 : G64Bc64Overlap { static constexpr int consumers = 3; };
struct G64PingPongC3 : G64PingPong { static constexpr int consumers = 3; };
struct G64C3 : G64 { static constexpr int consumers = 3; };
struct G128Bc64OverlapC3 : G128Overlap {
  static constexpr int keys_per_tile = 64;
  static constexpr int consumers = 3;
};
// A persistent grid (v13): v12's tiles (what v13 runs), with a third stage at D = 64 (the next
// item's first tiles land while this one's last are read); v07's two blocks per SM at D = 64;
// v10's 128-key tiles with three stages at D = 128 (v11's 176 leave no room for a third).
struct G64OverlapC3P : G64OverlapC3 { static constexpr bool persistent = true; };
struct G64OverlapC3Stages3P : G64OverlapC3Stages3 { static constexpr bool persistent = true; };
struct G64Bc64Blocks2P : G64Bc64Blocks2 { static constexpr bool persistent = true; };
struct G128Bc176OverlapP : G128Bc176Overlap { static constexpr bool persistent = true; };
struct G128OverlapStages3P : G128OverlapStages3 { static constexpr bool persistent = true; };
// [candidates]

/// A candidate's own launcher: the warp-specialized kernel instantiated with `Tiles`.
template <class Tiles>
void run_tiles(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
               __nv_bfloat16* o, float* lse, void* /*workspace*/, cudaStream_t stream) {
  launch_warp_specialized<Tiles>(s, q, k, v, o, lse, stream, "attention_tune");
}

/// The row of `Tiles` in the search of `prefix` ("v07", "v09", "v10", "v12" or "v13"): its name and summary from
/// its fields, run by `kernel`.
template <class Tiles>
Candidate describe(Kernel kernel, const std::string& runs_in, const std::string& prefix) {
  using T = WgmmaConfig<Tiles>;
  const std::string name = prefix + "_d" + std::to_string(T::D) + "_bc" + std::to_string(T::Bc) + "_b" +
                           std::to_string(T::kMinBlocks) + (T::kStages == 2 ? "" : "_s" + std::to_string(T::kStages)) +
                           (T::kConsumers == 2 ? "" : "_c" + std::to_string(T::kConsumers)) +
                           // v12's search tries three schedules (one prefix): the turns alone, or none
                           (T::kConsumers == 2 || T::kOverlap ? "" : T::kPingPong ? "_turns" : "_own") +
                           (T::kPersistent ? "_p" : "");
  const std::string schedule = T::kOverlap    ? "consumers taking turns, each one's softmax beside its own P V"
                               : T::kPingPong ? "consumers taking turns"
                                              : "consumers each on their own";
  const std::string summary = schedule +
                              ", D " + std::to_string(T::D) + ": " + std::to_string(T::Br) +
                              " rows per block (" + std::to_string(T::kConsumers) + " consumer warpgroups), " +
                              std::to_string(T::Bc) + "-key tiles, " +
                              std::to_string(T::kMinBlocks) + " block(s) per SM" +
                              (T::kPersistent ? " (persistent)" : "") + ", " + std::to_string(T::kStages) +
                              " stages, consumers at " +
                              std::to_string(T::kConsumerRegs) + " registers" +
                              (runs_in.empty() ? "" : " (what " + runs_in + " runs)");
  return {name, summary, kernel, T::D, runs_in, 90, unsupported_v7};
}

/// A candidate of the search of `prefix`, run by its own instantiation of the kernel.
template <class Tiles>
Candidate candidate(const std::string& prefix) {
  return describe<Tiles>(Kernel{Precision::bf16, nullptr, run_tiles<Tiles>}, "", prefix);
}

/// The configuration `version` runs (`VersionTiles`, the same fields as `Tiles`): run through the
/// version's own launcher `launch` (see tune/warp_rows_candidates.cu, winner()).
template <class Tiles, class VersionTiles>
Candidate winner(LaunchBF16 launch, const std::string& version) {
  static_assert(same_wgmma_tiles<Tiles, VersionTiles>(), "a row marked as a version's must be the tiles it runs");
  return describe<Tiles>(Kernel{Precision::bf16, nullptr, launch}, version, version.substr(0, version.find('_')));
}

}  // namespace

const std::vector<Candidate>& wgmma_candidates() {
  const auto v07 = launch_attention_v07_wgmma;
  static const std::vector<Candidate> list = {
      candidate<G64>("v07"),
      winner<G64Bc64Blocks2, V07Tiles64>(v07, "v07_wgmma"),
      candidate<G64Bc64>("v07"),
      winner<WgmmaTiles, V07Tiles128>(v07, "v07_wgmma"),
  };
  return list;
}

const std::vector<Candidate>& ping_pong_candidates() {
  const auto v09 = launch_attention_v09_ping_pong;
  static const std::vector<Candidate> list = {
      candidate<G64PingPong>("v09"),
      candidate<G64Bc64PingPong>("v09"),
      candidate<G64PingPongStages3>("v09"),
      winner<G64Bc64Blocks2, V09Tiles64>(v09, "v09_ping_pong"),  // v07's tiles, no turns
      winner<G128PingPong, V09Tiles128>(v09, "v09_ping_pong"),
      candidate<G128PingPongStages3>("v09"),
  };
  return list;
}

const std::vector<Candidate>& overlap_candidates() {
  const auto v10 = launch_attention_v10_overlap;
  static const std::vector<Candidate> list = {
      candidate<G64Overlap>("v10"),
      candidate<G64Bc64Overlap>("v10"),
      winner<G64Bc64Blocks2, V09Tiles64>(v10, "v10_overlap"),  // v07's tiles, no turns (v09's choice)
      winner<G128Overlap, V10Tiles128>(v10, "v10_overlap"),
      candidate<G128OverlapStages3>("v10"),
      candidate<G128Bc176Overlap>("v10"),
  };
  return list;
}

const std::vector<Candidate>& three_consumers_candidates() {
  const auto v12 = launch_attention_v12_three_consumers;
  static const std::vector<Candidate> list = {
      winner<G64OverlapC3, V12Tiles64>(v12, "v12_three_consumers"),
      candidate<G64OverlapC3Stages3>("v12"),
      candidate<G64Bc64OverlapC3>("v12"),
      candidate<G64PingPongC3>("v12"),
      candidate<G64C3>("v12"),
      winner<G128Bc176Overlap, V12Tiles128>(v12, "v12_three_consumers"),  // v11's tiles
      candidate<G128Bc64OverlapC3>("v12"),
  };
  return list;
}

const std::vector<Candidate>& persistent_candidates() {
  const auto v13 = launch_attention_v13_persistent;
  static const std::vector<Candidate> list = {
      winner<G64OverlapC3P, V13Tiles64>(v13, "v13_persistent"),
      candidate<G64OverlapC3Stages3P>("v13"),
      candidate<G64Bc64Blocks2P>("v13"),
      winner<G128Bc176OverlapP, V13Tiles128>(v13, "v13_persistent"),
      candidate<G128OverlapStages3P>("v13"),
  };
  return list;
}

}  // namespace tune

}  // namespace attention
