/// @file
/// @brief v04: v03's work split on the tensor cores (bf16 mma.sync m16n8k16): S and O in registers,
/// P reused from registers as the A operand of P V, ldmatrix (.trans for V), swizzled tiles (sm_80+).
#include <stdexcept>

#include "attention.hpp"
#include "common/check.hpp"
#include "flash_mma.cuh"

namespace attention {

/// @brief v04's kernel: one block per 128 query rows of one head (4 warps of 32 rows); K and V
/// tiles of 64 keys staged in shared memory with ordinary loads, one tile at a time.
// [kernel]
template <int D>
__global__ void __launch_bounds__(FlashConfig<FlashTiles<D>>::kThreads, FlashConfig<FlashTiles<D>>::kMinBlocks)
    attention_v04_mma(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                     const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ o, float* __restrict__ lse,
                     int sq, int sk, bool causal, float scale_log2) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using Cfg = FlashConfig<FlashTiles<D>>;
  extern __shared__ __align__(128) unsigned char smem[];
  __nv_bfloat16* Qs = reinterpret_cast<__nv_bfloat16*>(smem);  // (Br, D), swizzled
  __nv_bfloat16* Ks = Qs + Cfg::kQElems;                         // (Bc, D), swizzled
  __nv_bfloat16* Vs = Ks + Cfg::kKVElems;                        // (Bc, D), swizzled
  const int q_tiles = (sq + Cfg::Br - 1) / Cfg::Br;
  int bh = 0, qt = 0;
  block_tile(static_cast<int>(blockIdx.x), q_tiles, 0, false, bh, qt);
  const int row0 = qt * Cfg::Br, rows_valid = min(Cfg::Br, sq - row0);
  const std::size_t head_q = static_cast<std::size_t>(bh) * sq * D, head_kv = static_cast<std::size_t>(bh) * sk * D;
  const int tiles = key_tiles(row0, rows_valid, sq, sk, causal, Cfg::Bc);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;

  load_tile_sync<Cfg, Cfg::Br>(Qs, q + head_q + static_cast<std::size_t>(row0) * D, rows_valid);
  WarpRows<Cfg> w;
  start_rows(w);
  TilePosition pos{row0 + warp * Cfg::kRowsPerWarp + lane / 4, 0, sk, sk - sq, causal};
  for (int j = 0; j < tiles; ++j) {
    const int kv0 = j * Cfg::Bc;
    __syncthreads();  // every warp is done with the previous K and V tiles
    load_tile_sync<Cfg, Cfg::Bc>(Ks, k + head_kv + static_cast<std::size_t>(kv0) * D, min(Cfg::Bc, sk - kv0));
    load_tile_sync<Cfg, Cfg::Bc>(Vs, v + head_kv + static_cast<std::size_t>(kv0) * D, min(Cfg::Bc, sk - kv0));
    __syncthreads();  // the tiles (and, the first time, Q) are in shared memory
    pos.key = kv0 + 2 * (lane % 4);
    attend_tile<Cfg, true>(w, Qs, Ks, Vs, scale_log2, pos);
  }
  finish_rows(w, o + head_q + static_cast<std::size_t>(row0) * D, lse + static_cast<std::size_t>(bh) * sq + row0,
              rows_valid);
#else
  (void)q, (void)k, (void)v, (void)o, (void)lse, (void)sq, (void)sk, (void)causal, (void)scale_log2;
  __trap();  // mma.sync with bf16 needs sm_80; the registry's min_cc keeps the runner from launching it
#endif
}
// [kernel]

namespace {

template <int D>
void launch_v4(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
               __nv_bfloat16* o, float* lse, cudaStream_t stream) {
  using Cfg = FlashConfig<FlashTiles<D>>;
  const unsigned blocks = flash_blocks(s, q, k, v, Cfg::Br, "v04_mma");
  constexpr int kSmem = (Cfg::kQElems + 2 * Cfg::kKVElems) * 2;
  tut::allow_dynamic_smem(attention_v04_mma<D>, kSmem);
  attention_v04_mma<D><<<blocks, Cfg::kThreads, kSmem, stream>>>(q, k, v, o, lse, static_cast<int>(s.sq),
                                                                static_cast<int>(s.sk), s.causal,
                                                                s.scale() * kLog2e);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

/// @brief v04: tensor cores. The work split of v03 (each warp owns query rows end to end, the
/// softmax never leaves the warp), with both products on `mma.sync.m16n8k16` in bf16.
///
/// **Idea.** Attention is two GEMMs around a row softmax; chapter 06's v11 showed how to feed
/// the tensor cores with `ldmatrix` from a swizzled shared-memory layout. Here the fragment
/// layouts do more: the accumulator of S = Q K^T for 16 keys (two n8 tiles, c[0..3] each) holds,
/// once rounded to bf16 in pairs, exactly the A fragment of the next product P V for those 16
/// keys. So P goes from the S registers through the softmax into the second mma without touching
/// shared memory, and O stays in registers for the whole kernel. V is stored [key][d] and loaded
/// transposed by `ldmatrix.x4.trans`; K needs no transpose (`ldmatrix` of K's rows is already
/// the "col" B operand of Q K^T).
///
/// **Changed since v03.** bf16 inputs and output (fp32 accumulation and softmax); 128 query rows
/// per block, 4 warps of 32 rows (two m16 tiles each, so every K and V fragment feeds 4 mma), 64
/// keys per tile (32 at D = 128, where a lane already holds 128 fp32 of O); Q re-read from shared
/// memory by ldmatrix at every tile, as in FlashAttention-2 (its fragments would take another 32 or
/// 64 registers). The tile's math, attend_tile(), and the tiles, FlashTiles, are in flash_mma.cuh
/// (shared with v05 and v06). Tiles are still loaded by ordinary 16-byte loads and
/// stores between two barriers: each tile's global-memory latency is exposed.
///
/// **Predicted.** Every FLOP now runs on the tensor cores (about 15x the fp32 FFMA rate); the
/// exposed loads, the exp (16 per clock per SM against 1024 FLOP per clock of mma) and the
/// per-tile rescale of O keep it well below a GEMM: 150-200 TFLOP/s on an H100 at S = 4096.
///
/// **Measured (H100, the run at 0b38325).** 240 TFLOP/s at B4 H16 S4096 D64, 237 at B2 H16 S4096
/// D128, 246 at B1 H32 S8192 D128: better than predicted, 30-31% of cuBLAS's BF16 GEMM rate in the
/// same run (789), 3.6-7.2x the cuBLAS-based library attention. Causal: 198, 186 and 219 TFLOP/s;
/// at B4 H16 S1024 D64 181 (causal 113).
void launch_attention_v04_mma(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                             const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                             cudaStream_t stream) {
  if (s.d == 64) {
    launch_v4<64>(s, q, k, v, o, lse, stream);
  } else {
    launch_v4<128>(s, q, k, v, o, lse, stream);
  }
}

}  // namespace attention
