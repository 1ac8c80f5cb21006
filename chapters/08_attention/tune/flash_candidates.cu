/// @file
/// @brief v06's search (bf16): other tiles for the causal-balance kernel (causal_balance_kernel.cuh).
///
/// `attention_tune` times every candidate on the table's shapes next to v06 and cuBLAS; v06's tiles
/// (V06Tiles64, V06Tiles128 in causal_balance_kernel.cuh) were chosen from it (the chapter page has the
/// measured tables, docs/results/attention_tune.json). None of the candidates spills registers
/// (ptxas -v, sm_90a).
#include <string>

#include "causal_balance_kernel.cuh"
#include "tune/tune.hpp"

namespace attention {

namespace tune {

namespace {

// [candidates]
// Each candidate states only what differs from v04's and v05's tiles, FlashTiles<D> (4 warps of two
// m16 tiles, 64-key tiles at D = 64 and 32-key at D = 128, two blocks per SM promised).
// Measured in the first search and removed since, because ptxas spills them (the chapter page has
// their numbers): D = 128 with 64-key tiles (FlashAttention-2's tiles, 68 bytes), D = 128 with
// 8 warps of one m16 tile and two blocks (12 bytes), and D = 64 likewise (4 bytes).
/// 8 warps of 16 rows (one m16 tile each), one block per SM promised.
struct F64Warps8 : FlashTiles<64> {
  static constexpr int m16_tiles_per_warp = 1;
  static constexpr int warps = 8;
  static constexpr int min_blocks_per_sm = 1;
};
struct F64Warps8Bc128 : F64Warps8 { static constexpr int keys_per_tile = 128; };
/// D = 128: 8 warps of 16 rows, 64-key tiles, one block per SM promised.
struct F128Warps8Bc64 : FlashTiles<128> {
  static constexpr int keys_per_tile = 64;
  static constexpr int m16_tiles_per_warp = 1;
  static constexpr int warps = 8;
  static constexpr int min_blocks_per_sm = 1;
};
// [candidates]

/// A candidate's own launcher: the causal-balance kernel instantiated with `Tiles`.
template <class Tiles>
void run_tiles(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
               __nv_bfloat16* o, float* lse, void* /*workspace*/, cudaStream_t stream) {
  launch_causal_balance<Tiles>(s, q, k, v, o, lse, stream);
}

/// The row of `Tiles`: its name and summary from its fields, run by `kernel`.
template <class Tiles>
Candidate describe(Kernel kernel, const std::string& runs_in) {
  using Cfg = FlashConfig<Tiles>;
  const std::string name = "v06_d" + std::to_string(Cfg::D) + "_bc" + std::to_string(Cfg::Bc) + "_m" +
                           std::to_string(Cfg::kMt) + "_w" + std::to_string(Cfg::kWarps) + "_b" +
                           std::to_string(Cfg::kMinBlocks);
  const std::string summary = "v06 kernel, D " + std::to_string(Cfg::D) + ": " + std::to_string(Cfg::Br) +
                              " rows per block (" + std::to_string(Cfg::kWarps) + " warps of " +
                              std::to_string(Cfg::kRowsPerWarp) + "), " + std::to_string(Cfg::Bc) + "-key tiles, " +
                              std::to_string(Cfg::kMinBlocks) + " blocks/SM promised" +
                              (runs_in.empty() ? "" : " (what v06 runs)");
  return {name, summary, kernel, Cfg::D, runs_in, 80};
}

/// A candidate of the search, run by its own instantiation of the kernel.
template <class Tiles>
Candidate candidate() {
  return describe<Tiles>(Kernel{Precision::bf16, nullptr, run_tiles<Tiles>}, "");
}

/// The configuration v06 runs, with the same fields as `Tiles`: run through v06's own launcher (see
/// tune/warp_rows_candidates.cu, winner()).
template <class Tiles, class V06Tiles>
Candidate winner() {
  static_assert(same_flash_tiles<Tiles, V06Tiles>(), "a row marked as v06's must be the tiles v06 runs");
  return describe<Tiles>(Kernel{Precision::bf16, nullptr, launch_attention_v06_causal_balance}, "v06_causal_balance");
}

}  // namespace

const std::vector<Candidate>& flash_candidates() {
  static const std::vector<Candidate> list = {
      winner<FlashTiles<64>, V06Tiles64>(), candidate<F64Warps8>(), candidate<F64Warps8Bc128>(),
      winner<FlashTiles<128>, V06Tiles128>(), candidate<F128Warps8Bc64>(),
  };
  return list;
}

}  // namespace tune

}  // namespace attention
