/// @file
/// @brief v03's search (fp32): other tiles for the warp-rows kernel (warp_rows_kernel.cuh).
///
/// `attention_tune` times every candidate on the table's shapes next to v03 and cuBLAS; v03's tiles
/// (V03Tiles64, V03Tiles128 in warp_rows_kernel.cuh) were chosen from it (the chapter page has the
/// measured tables, docs/results/attention_tune.json). None of the candidates spills registers
/// (ptxas -v, sm_90a).
#include <string>

#include "tune/tune.hpp"
#include "warp_rows_kernel.cuh"

namespace attention {

namespace tune {

namespace {

// [candidates]
// Each candidate states only what differs from the kernel's first configuration, WarpRowsTiles
// (D = 64: 64-key tiles, 4 warps, one block per SM promised, blocks head by head).
struct W64Bc32 : WarpRowsTiles { static constexpr int keys_per_tile = 32; };
struct W64Warps8 : WarpRowsTiles { static constexpr int warps = 8; };
/// D = 128 in v03's first tiles: 4 warps, 32-key tiles (two blocks of 77 KiB per SM).
struct W128 : WarpRowsTiles {
  static constexpr int head_dim = 128;
  static constexpr int keys_per_tile = 32;
};
struct W128Bc24 : W128 { static constexpr int keys_per_tile = 24; };
struct W128Warps8 : W128 { static constexpr int warps = 8; };
struct W128Bc64Warps8 : W128Warps8 { static constexpr int keys_per_tile = 64; };
// D = 128 in two blocks per SM (each <= 113 KiB of the SM's 228): one block's K/V loads and
// barriers overlap the other's arithmetic. 4 warps, 48- or 56-key tiles (100 and 108 KiB).
struct W128Bc48Blocks2 : W128 {
  static constexpr int keys_per_tile = 48;
  static constexpr int min_blocks_per_sm = 2;
};
struct W128Bc56Blocks2 : W128Bc48Blocks2 { static constexpr int keys_per_tile = 56; };
// Measured in the second search and removed since (the page has their numbers): 12 warps of
// 64-key tiles (192 rows, 218 KiB, 168 registers, which spill 12 bytes on sm_75), lost 5-14%.
// The causal blocks in v06's order, longest first (what v03 runs at D = 128: with one block per SM
// the GPU otherwise ends on the longest blocks), with 64- to 96-key tiles.
struct W128Heavy64 : W128Bc64Warps8 { static constexpr bool heavy_first = true; };
struct W128Heavy72 : W128Heavy64 { static constexpr int keys_per_tile = 72; };
struct W128Heavy80 : W128Heavy64 { static constexpr int keys_per_tile = 80; };
/// What v03 runs at D = 128 (V03Tiles128 in warp_rows_kernel.cuh).
struct W128Heavy96 : W128Heavy64 { static constexpr int keys_per_tile = 96; };
// [candidates]

/// A candidate's own launcher: the warp-rows kernel instantiated with `Tiles`.
template <class Tiles>
void run_tiles(const Shape& s, const float* q, const float* k, const float* v, float* o, float* lse,
               void* /*workspace*/, cudaStream_t stream) {
  launch_warp_rows<Tiles>(s, q, k, v, o, lse, stream);
}

/// The row of `Tiles`: its name and summary from its fields, run by `kernel`.
template <class Tiles>
Candidate describe(Kernel kernel, const std::string& runs_in) {
  using T = WarpRowsConfig<Tiles>;
  const std::string name = "v03_d" + std::to_string(T::kHeadDim) + "_bc" + std::to_string(T::Bc) + "_w" +
                           std::to_string(T::kWarps) + "_b" + std::to_string(T::kMinBlocks) +
                           (T::kHeavyFirst ? "_heavy" : "");
  const std::string summary = "v03 kernel, D " + std::to_string(T::kHeadDim) + ": " + std::to_string(T::Br) +
                              " rows per block (" + std::to_string(T::kWarps) + " warps), " + std::to_string(T::Bc) +
                              "-key tiles, " + std::to_string(T::kSmemFloats * 4 / 1024) + " KiB shared memory" +
                              (T::kHeavyFirst ? ", causal blocks longest first (v06's order)" : "") +
                              (runs_in.empty() ? "" : " (what v03 runs)");
  return {name, summary, kernel, T::kHeadDim, runs_in};
}

/// A candidate of the search, run by its own instantiation of the kernel.
template <class Tiles>
Candidate candidate() {
  return describe<Tiles>(Kernel{Precision::fp32, run_tiles<Tiles>, nullptr}, "");
}

/// The configuration v03 runs, with the same fields as `Tiles`: run through v03's own launcher, not
/// instantiated again here (a kernel template instantiated in two files is two kernels to the CUDA
/// runtime, and the shared-memory limit raised for one, cudaFuncSetAttribute, would not apply to
/// the other).
template <class Tiles, class V03Tiles>
Candidate winner() {
  static_assert(same_warp_rows_tiles<Tiles, V03Tiles>(), "a row marked as v03's must be the tiles v03 runs");
  return describe<Tiles>(Kernel{Precision::fp32, launch_attention_v03_warp_rows, nullptr}, "v03_warp_rows");
}

}  // namespace

const std::vector<Candidate>& warp_rows_candidates() {
  static const std::vector<Candidate> list = {
      winner<WarpRowsTiles, V03Tiles64>(), candidate<W64Bc32>(), candidate<W64Warps8>(),
      candidate<W128>(), candidate<W128Bc24>(), candidate<W128Warps8>(), candidate<W128Bc64Warps8>(),
      candidate<W128Bc48Blocks2>(), candidate<W128Bc56Blocks2>(),
      candidate<W128Heavy64>(), candidate<W128Heavy72>(), candidate<W128Heavy80>(), winner<W128Heavy96, V03Tiles128>(),
  };
  return list;
}

}  // namespace tune

}  // namespace attention
