/// @file
/// @brief The causal-balance kernel (v05's pipeline, the mask only on the tiles that need it,
/// causal blocks longest first) and its launcher, templated on the tiles (FlashConfig):
/// v06_causal_balance.cu runs the tiles chosen per head dimension, tune/flash_candidates.cu the
/// candidates of the search.
#pragma once

#include <stdexcept>
#include <string>
#include <type_traits>

#include "attention.hpp"
#include "common/check.hpp"
#include "flash_mma.cuh"

namespace attention {

/// @brief v06's kernel: v05's pipeline; masked arithmetic only where a tile needs it; heavy blocks first.
// [kernel]
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    attention_v06_causal_balance(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                                const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ o,
                                float* __restrict__ lse, int sq, int sk, int heads, bool causal, float scale_log2) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int D = Cfg::D;
  extern __shared__ __align__(128) unsigned char smem[];
  __nv_bfloat16* Qs = reinterpret_cast<__nv_bfloat16*>(smem);  // (Br, D), swizzled
  __nv_bfloat16* KVs = Qs + Cfg::kQElems;                        // 2 x [ K (Bc, D) | V (Bc, D) ], swizzled
  const auto k_buf = [&](int j) { return KVs + (j & 1) * 2 * Cfg::kKVElems; };
  const auto v_buf = [&](int j) { return KVs + (j & 1) * 2 * Cfg::kKVElems + Cfg::kKVElems; };
  const int q_tiles = (sq + Cfg::Br - 1) / Cfg::Br;
  int bh = 0, qt = 0;
  // Causal: the last query tiles see the most keys. Blocks start in grid order, so the grid lists
  // the longest blocks first and the short ones fill the gaps at the end (longest job first).
  block_tile(static_cast<int>(blockIdx.x), q_tiles, heads, causal, bh, qt);
  const int row0 = qt * Cfg::Br, rows_valid = min(Cfg::Br, sq - row0);
  const std::size_t head_q = static_cast<std::size_t>(bh) * sq * D, head_kv = static_cast<std::size_t>(bh) * sk * D;
  const int tiles = key_tiles(row0, rows_valid, sq, sk, causal, Cfg::Bc);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const auto issue_kv = [&](int j) {
    const int kv0 = j * Cfg::Bc;
    load_tile_async<Cfg, Cfg::Bc>(k_buf(j), k + head_kv + static_cast<std::size_t>(kv0) * D, min(Cfg::Bc, sk - kv0));
    load_tile_async<Cfg, Cfg::Bc>(v_buf(j), v + head_kv + static_cast<std::size_t>(kv0) * D, min(Cfg::Bc, sk - kv0));
  };

  load_tile_async<Cfg, Cfg::Br>(Qs, q + head_q + static_cast<std::size_t>(row0) * D, rows_valid);
  if (tiles > 0) issue_kv(0);
  cp_async_commit();

  WarpRows<Cfg> w;
  start_rows(w);
  TilePosition pos{row0 + warp * Cfg::kRowsPerWarp + lane / 4, 0, sk, sk - sq, causal};
  // One step of v05's pipeline, with or without the mask (a compile-time choice: two copies of the
  // tile's code, the unmasked one without any index arithmetic).
  const auto step = [&](int j, auto masked) {
    if (j + 1 < tiles) issue_kv(j + 1);
    cp_async_commit();
    cp_async_wait<1>();
    __syncthreads();
    pos.key = j * Cfg::Bc + 2 * (lane % 4);
    attend_tile<Cfg, decltype(masked)::value>(w, Qs, k_buf(j), v_buf(j), scale_log2, pos);
    __syncthreads();
  };
  // A tile needs the mask only if it runs past the end of K, or (causal) past the diagonal of the
  // block's first row, which sees the fewest keys. These are the last one or two tiles: the tiles
  // before them (all of them but the last partial one without the mask) run unmasked.
  int unmasked = sk / Cfg::Bc;  // whole tiles inside K
  if (causal) unmasked = min(unmasked, max(0, (row0 + sk - sq + 1) / Cfg::Bc));  // ... and left of the diagonal
  unmasked = min(unmasked, tiles);
  int j = 0;
  for (; j < unmasked; ++j) step(j, std::false_type{});
  for (; j < tiles; ++j) step(j, std::true_type{});
  cp_async_wait<0>();
  finish_rows(w, o + head_q + static_cast<std::size_t>(row0) * D, lse + static_cast<std::size_t>(bh) * sq + row0,
              rows_valid);
#else
  (void)q, (void)k, (void)v, (void)o, (void)lse, (void)sq, (void)sk, (void)heads, (void)causal, (void)scale_log2;
  __trap();  // cp.async and bf16 mma.sync need sm_80; the registry's min_cc keeps the runner from launching it
#endif
}
// [kernel]

/// Launches the causal-balance kernel with the tiles `Tiles` (a FlashTiles or a configuration
/// derived from one; one block per Br query rows of a head).
template <class Tiles>
void launch_causal_balance(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                           __nv_bfloat16* o, float* lse, cudaStream_t stream) {
  using Cfg = FlashConfig<Tiles>;
  if (s.d != Cfg::D) throw std::invalid_argument("v06: these tiles are compiled for D = " + std::to_string(Cfg::D));
  const unsigned blocks = flash_blocks(s, q, k, v, Cfg::Br, "v06_causal_balance");
  constexpr int kSmem = (Cfg::kQElems + 4 * Cfg::kKVElems) * 2;
  tut::allow_dynamic_smem(attention_v06_causal_balance<Cfg>, kSmem);
  attention_v06_causal_balance<Cfg><<<blocks, Cfg::kThreads, kSmem, stream>>>(
      q, k, v, o, lse, static_cast<int>(s.sq), static_cast<int>(s.sk), static_cast<int>(s.heads()), s.causal,
      s.scale() * kLog2e);
  CUDA_CHECK_LAUNCH();
}

/// True when two FlashTiles configurations set every field alike: the same kernel, whatever their names. The
/// search (tune/) checks with it, at compile time, that its row for what a version runs is that.
template <class A, class B>
constexpr bool same_flash_tiles() {
  return A::head_dim == B::head_dim && A::keys_per_tile == B::keys_per_tile && A::m16_tiles_per_warp == B::m16_tiles_per_warp && A::warps == B::warps && A::min_blocks_per_sm == B::min_blocks_per_sm;
}

// [v06_config]
/// The tiles v06 runs at D = 64: v04's and v05's (FlashTiles<64>), which the search of v06's tiles
/// (tune/flash_candidates.cu, `attention_tune`) kept: 128 query rows per block in 4 warps of two
/// m16 tiles, 64-key tiles, two blocks per SM promised. (Its row in the search: v06_d64_bc64_m2_w4_b2.)
struct V06Tiles64 : FlashTiles<64> {};
/// The tiles v06 runs at D = 128: v04's and v05's (FlashTiles<128>, 32-key tiles), kept by the same
/// search; FlashAttention-2's 64-key tiles spill here (68 bytes) and lost 1-2%. (Its row:
/// v06_d128_bc32_m2_w4_b2.)
struct V06Tiles128 : FlashTiles<128> {};
// [v06_config]

}  // namespace attention
