/// @file
/// @brief v14: at D = 64, v13's 192-row tiles or v07's 128-row ones, whichever computes fewer
/// wasted scores for the shape, weighed by how much faster the 192-row tiles are per score
/// (sm_90a).
#include <algorithm>

#include "warp_specialized_kernel.cuh"

namespace attention {

namespace {

/// The scores a tile configuration computes for `s`, wasted ones included: Br x Bc per key tile
/// it visits, over every (head, query tile). Rows past Sq (the last query tile of a head) and
/// keys past the diagonal of the mask (the tiles on it) are computed too, then thrown away.
template <class Tiles>
double computed_scores(const Shape& s) {
  using T = WgmmaConfig<Tiles>;
  const int sq = static_cast<int>(s.sq), sk = static_cast<int>(s.sk);
  double key_tiles_per_head = 0.0;
  for (int row0 = 0; row0 < sq; row0 += T::Br) key_tiles_per_head += key_tiles(row0, std::min(T::Br, sq - row0), sq, sk, s.causal, T::Bc);
  return key_tiles_per_head * T::Br * T::Bc * static_cast<double>(s.heads());
}

}  // namespace

bool v14_wide_tiles(const Shape& s) {
  constexpr double kWideTilesSpeedup = 1.16;  // v13's 192-row tiles per score against v07's (measured)
  return s.d != 64 || computed_scores<V13Tiles64>(s) <= kWideTilesSpeedup * computed_scores<V07Tiles64>(s);
}

/// @brief v14: v13, with v07's tiles at D = 64 where v13's waste more than they gain.
///
/// **Idea.** v13's 192-row tiles at D = 64 compute 1.16x as many scores per second as v07's
/// 128-row tiles where neither wastes any (B4 H16 S4096 without the mask: 455 against 393 TFLOP/s,
/// the run at 5e0bdbd). But a tile computes all its rows and keys, visible or not: at S1024 a
/// head's 1024 rows take 5 1/3 tiles of 192 (12.5% of the rows computed are past the end), and with
/// the mask the tiles on the diagonal compute scores that the mask throws away, more of them the
/// larger the tile (33% more scores than v07's tiles at S1024 causal, 9% at S4096). So the better
/// tile depends on the shape: v14 counts the scores each would compute (computed_scores()) and takes
/// the 192-row tiles unless they compute more than 1.16x as many as v07's (v14_wide_tiles()). The same reasoning
/// chooses tiles per shape in the gemm chapter (v09_by_shape) and, with many more candidates, in
/// the libraries' heuristics.
///
/// **Changed since v13.** The launcher only: a choice between V13Tiles64 and V07Tiles64 at D = 64
/// (v07's kernel as it was, one block per item, two blocks per SM). D = 128: v13's tiles.
///
/// **Predicted (H200, written before the run).** The rule picks v07's tiles at B4 H16 S1024 D64
/// with the mask only (1.33x the scores; 1.13x without the mask, 1.09x at S4096 with it): there v14
/// runs at v07's rate, about 215-220 TFLOP/s, +9-11% over v13 (198); elsewhere v13's rate (+-1%).
///
/// **Measured (H200, the device run at 7109b50).** As predicted: at B4 H16 S1024 D64 with the mask
/// v14 runs v07's tiles at 216 TFLOP/s, 1.10x v13 (197) and v07's own 216; on the seven other
/// shapes of the table within 0.3% of v13. Against cuDNN (PyTorch, same call) 0.83x at S1024 D64,
/// 0.94x with the mask; 0.95x and 0.95x at S4096 D64; 0.89x and 0.99x at S4096 D128; 0.93x and
/// 0.95x at S8192 D128.
// [launch]
void launch_attention_v14_by_shape(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                   const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                   cudaStream_t stream) {
  launch_by_shape<V13Tiles64, V07Tiles64, V13Tiles128>(s, q, k, v, o, lse, stream, "v14_by_shape");
}
// [launch]

}  // namespace attention
