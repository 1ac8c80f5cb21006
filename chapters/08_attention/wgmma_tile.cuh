/// @file
/// @brief The warp-specialized kernel's tiles (WgmmaTiles, WgmmaConfig) and one consumer
/// warpgroup's work on a tile of keys: S = Q K^T and O += P V on wgmma, and the online softmax on
/// S's accumulator registers (sm_90a; used by v07_wgmma).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/hopper_ptx.cuh"
#include "online_softmax.cuh"

namespace attention {

/// The tiles of the warp-specialized kernel, by name: v07's configuration at D = 128, from which
/// v07's D = 64 one (v07_wgmma.cu) and the candidates of its search (tune/wgmma_candidates.cu)
/// derive, each stating only the fields it changes. 128 query rows per block, one 64-row slice per
/// consumer warpgroup (two of them); K and V in a ring of two stages.
struct WgmmaTiles {
  static constexpr int head_dim = 128;         ///< D: 64 or 128 (one or two 64-column boxes per row)
  static constexpr int keys_per_tile = 128;    ///< Bc: 64, 128 or 176, the n of S's wgmma
  /// Blocks per SM, 1 or 2: the registers the consumers get follow from it.
  static constexpr int min_blocks_per_sm = 1;
  /// v09: the two consumers take turns on the tensor cores (named barriers), each one's softmax
  /// running during the other's products; false: v07, each on its own.
  static constexpr bool ping_pong = false;
  /// v10 (with ping_pong): within a turn, S of tile j and P V of tile j - 1 as two groups; tile
  /// j's softmax runs on S's registers while P V does, O's rescale and P's packing after P V's
  /// wait; false: v09, both waited for.
  static constexpr bool overlap = false;
  /// K/V tiles resident in shared memory (the ring's stages): 2, or 3 where they fit.
  static constexpr int stages = 2;
  /// Consumer warpgroups, 64 query rows each: 2, or (v12) 3, for 192 rows per block sharing each
  /// K and V tile, and each consumer's softmax behind two others' products.
  static constexpr int consumers = 2;
  /// v13: one block per SM (kMinBlocks per SM) for the whole run, each taking item after item
  /// (head, query tile), the next item's Q and K/V loaded while this one's O is stored; false
  /// (v07-v12): one block per item.
  static constexpr bool persistent = false;
  /// v15: each wgmma descriptor built once per tile and advanced by a constant for every k-step;
  /// false (v07-v14): built from its address for every k-step.
  static constexpr bool advance_descriptors = false;
  /// v16: a row's running max moves only when a tile raises it by more than kLazyRescaleLog2
  /// (base 2), so that O is rescaled in few tiles; false (v07-v15): the max of every tile seen.
  static constexpr bool lazy_rescale = false;
  /// v17 (persistent): two Q tiles, so that the producer loads the next item's Q while this
  /// item's is still in use; 1 (v07-v16): the next Q waits until every consumer has read this one.
  static constexpr int q_buffers = 1;
  /// v18 (with ping_pong): each head's rows split into items of Br rows and of Br - 64
  /// (mixed_item()), the short ones scheduled last, and a consumer with none of an item's rows
  /// computes nothing (it keeps the turns and releases the stages); false (v07-v17):
  /// ceil(Sq / Br) items of Br rows, the last one's rows past Sq computed like the others.
  static constexpr bool mixed_items = false;
  /// v20 (with ping_pong, persistent): the last consumer passes the turn on after its last P V of
  /// an item as after every other turn, when the block has another item, so that the next item's
  /// first S is issued during this item's ends; false (v09-v19): it passes it at the start of the
  /// next item, after its P V's wait and its epilogue.
  static constexpr bool early_pass = false;
  /// v21: the suspend-time hint (ns) of every mbarrier wait in the kernel, the producer's and the
  /// consumers' (gemm's v27): a waiting thread may sleep that long inside `mbarrier.try_wait` and
  /// wakes when the phase completes; 0 (v07-v20): no hint, the hardware's own short time.
  static constexpr unsigned wait_suspend_ns = 0;
  /// v22: a consumer's turn waits for its K and V barriers with both polls in flight at once
  /// (mbar_wait_both()); false (v07-v21): one after the other, the second asked only once the
  /// first has answered.
  static constexpr bool paired_waits = false;
  /// v23: a turn's softmax waits for the last tile's P V between the row maxima and the
  /// exponentials and packs each pair of P to bf16 as soon as it is made (softmax_tile_packed());
  /// false (v10-v22): P in fp32 first, packed after the wait, all at once (pack_p in the kernel).
  static constexpr bool pack_as_made = false;
  /// v24 (176-key tiles, with pack_as_made): an item's last key tile, when its keys end in its
  /// first 64, is multiplied and softmaxed over those alone (S m64n64k16, P V of 4 k-steps);
  /// false (v07-v23): every tile over all its Bc keys, those past the end masked.
  static constexpr bool narrow_last_tile = false;
  /// v25: O stored in 16-byte pieces, each thread's bf16 pairs first moved within its quad (a 4 x 4
  /// transpose of 4-byte values by two rounds of shuffles) so that a thread holds 8 adjacent
  /// columns of a row; false (v07-v24): 4 bytes (one pair) per store, 32 stores per thread at D = 128.
  static constexpr bool wide_o_stores = false;
  /// v26: the epilogue without a branch: both rows' sums, reciprocals (rcp.approx) and lse
  /// (lg2.approx) at once, then the stores under predicates; false (v07-v25): row by row, 1 / l by
  /// IEEE division (a slow path for extreme l) and lse by logf() (a polynomial), each under a branch.
  static constexpr bool straight_epilogue = false;
};

/// Everything the kernel needs, derived from the named fields of `Tiles` (a WgmmaTiles or a
/// configuration derived from one). Every tile is stored as TMA writes it with the 128-byte
/// swizzle: in boxes of 64 columns (128 bytes per row), one box per 64 columns of D, one after
/// the other.
template <class Tiles>
struct WgmmaConfig {
  static constexpr int D = Tiles::head_dim;                ///< head dimension
  static constexpr int kConsumers = Tiles::consumers;      ///< consumer warpgroups (the producer is one more)
  static constexpr int kThreads = 128 * (kConsumers + 1);  ///< threads per block
  static constexpr int kMinBlocks = Tiles::min_blocks_per_sm;  ///< blocks per SM (`__launch_bounds__`)
  static constexpr bool kPingPong = Tiles::ping_pong;         ///< v09's turns between the consumers
  static constexpr bool kOverlap = Tiles::overlap;            ///< v10's softmax beside its own P V
  static constexpr bool kPersistent = Tiles::persistent;      ///< v13's grid: one block per SM
  static constexpr bool kAdvanceDescriptors = Tiles::advance_descriptors;  ///< v15's descriptors
  static constexpr bool kLazyRescale = Tiles::lazy_rescale;  ///< v16's running max
  static constexpr int Br = 64 * kConsumers;               ///< query rows per block
  static constexpr int Bc = Tiles::keys_per_tile;          ///< keys per tile: the n of S's wgmma
  static constexpr int kStages = Tiles::stages;            ///< K/V tiles resident in shared memory
  static constexpr int kBoxes = D / 64;                    ///< 64-column TMA boxes per row of a tile
  static constexpr int kQBoxBytes = Br * 128;              ///< one box of Q: Br rows of 128 bytes
  static constexpr int kKVBoxBytes = Bc * 128;             ///< one box of K or V: Bc rows of 128 bytes
  static constexpr int kQBytes = kBoxes * kQBoxBytes;      ///< the Q tile (Br x D bf16)
  static constexpr int kQBuffers = Tiles::q_buffers;       ///< Q tiles resident (v17: 2)
  static constexpr bool kMixedItems = Tiles::mixed_items;  ///< v18's items of Br and Br - 64 rows
  static constexpr bool kEarlyPass = Tiles::early_pass;  ///< v20's turn passed across items
  static constexpr unsigned kWaitSuspendNs = Tiles::wait_suspend_ns;  ///< v21's sleeping waits
  static constexpr bool kPairedWaits = Tiles::paired_waits;  ///< v22's turn waits, both polls in flight
  static constexpr bool kPackAsMade = Tiles::pack_as_made;  ///< v23's P packed as it is made
  static constexpr bool kNarrowLastTile = Tiles::narrow_last_tile;  ///< v24's narrow last key tile
  static constexpr bool kWideOStores = Tiles::wide_o_stores;  ///< v25's 16-byte stores of O
  static constexpr bool kStraightEpilogue = Tiles::straight_epilogue;  ///< v26's epilogue without a branch
  static constexpr int kKVBytes = kBoxes * kKVBoxBytes;    ///< one K (or V) tile (Bc x D bf16)
  static constexpr int kBarriers = 2 * kQBuffers + 4 * kStages;  ///< per Q buffer and per stage: full and empty
  /// Dynamic shared memory: 1024 bytes of slack to align the tiles, Q, the ring, the barriers.
  static constexpr int kSmemBytes = 1024 + kQBuffers * kQBytes + 2 * kStages * kKVBytes + 8 * kBarriers;
  /// Registers per thread the producer keeps (setmaxnreg.dec): it only issues TMA loads. 24; 32
  /// (v19) for persistent blocks two per SM, whose item loop spilled at 24: at two blocks per SM the
  /// consumers keep their 104 either way (the steps of 8 below round the 8 more away).
  static constexpr int kProducerRegs = (kPersistent && kMinBlocks == 2) ? 32 : 24;
  /// Registers per thread the block is launched with: 65536 / (kMinBlocks kThreads), in steps of 8
  /// (168 at one block per SM, 80 at two; 128 with three consumers): what `ptxas -v` reports.
  static constexpr int kLaunchRegs = 65536 / (kMinBlocks * kThreads) / 8 * 8;
  /// Registers per thread the consumers take (setmaxnreg.inc): their launch share plus what the
  /// producer gave back, in steps of 8 (240 at one block per SM, 104 at two; 160 with three
  /// consumers).
  static constexpr int kConsumerRegs = (kLaunchRegs * kThreads - kProducerRegs * 128) / (128 * kConsumers) / 8 * 8;
  static_assert(D == 64 || D == 128, "v07: D is 64 or 128 (one or two 64-column boxes per row)");
  static_assert(Bc == 64 || Bc == 128 || Bc == 176, "v07: S's wgmma is m64n64k16, m64n128k16 or (v11) m64n176k16");
  static_assert(kMinBlocks == 1 || kMinBlocks == 2, "v07: one or two blocks per SM");
  static_assert(kConsumers == 2 || kConsumers == 3, "v07: two consumer warpgroups, or (v12) three");
  static_assert(!kOverlap || kPingPong, "v10: the overlap is built on v09's turns");
  static_assert(kConsumerRegs <= 256, "v07: setmaxnreg goes up to 256 registers");
  static_assert(kMinBlocks * kSmemBytes <= 227 * 1024, "v07: more shared memory than a Hopper SM gives");
  static_assert(kQBuffers == 1 || (kQBuffers == 2 && kPersistent), "v17: two Q buffers, on a persistent grid");
  static_assert(!kMixedItems || kPingPong, "v18: the idle consumer keeps v09's turns");
  static_assert(!kEarlyPass || (kPingPong && kPersistent), "v20: turns across the items of a persistent block");
  static_assert(!kNarrowLastTile || (Bc == 176 && kPackAsMade), "v24: narrower products of v23's 176-key tiles");
};

#if TUT_SM90A

/// S (64 x Bc, fp32) = Q (the warpgroup's 64 rows) K^T for a whole tile: D / 16 wgmma m64nBck16,
/// both operands K-major from shared memory (rows of D contiguous), so transpose-B = 0. k-step kk
/// lies in box kk / 4, 32 (kk % 4) bytes into its rows. The first k-step overwrites S (scale-d 0).
/// (v24: kKeys = 64 of a 176-key tile, its first 64 keys alone: m64n64k16.)
// [scores]
template <class T, int kKeys = T::Bc>
__device__ __forceinline__ void wgmma_scores(float (&s)[kKeys / 2], const unsigned char* q_rows,
                                             const unsigned char* k_tile) {
  using namespace tut::sm90;
  const std::uint64_t desc_q0 = smem_desc(q_rows, 16, 1024), desc_k0 = smem_desc(k_tile, 16, 1024);
#pragma unroll
  for (int kk = 0; kk < T::D / 16; ++kk) {
    const int q_offset = (kk / 4) * T::kQBoxBytes + (kk % 4) * 32, k_offset = (kk / 4) * T::kKVBoxBytes + (kk % 4) * 32;
    // v15: a descriptor's low 14 bits are its address / 16, so a constant step is an addition
    // (the addresses stay below 256 KiB: no carry); v07-v14 build each one from its address.
    const std::uint64_t desc_q = T::kAdvanceDescriptors ? desc_q0 + q_offset / 16 : smem_desc(q_rows + q_offset, 16, 1024);
    const std::uint64_t desc_k = T::kAdvanceDescriptors ? desc_k0 + k_offset / 16 : smem_desc(k_tile + k_offset, 16, 1024);
    if constexpr (kKeys == 64) {
      wgmma_m64n64k16_ss<0>(s, desc_q, desc_k, kk == 0 ? 0 : 1);
    } else if constexpr (kKeys == 128) {
      wgmma_m64n128k16_ss<0>(s, desc_q, desc_k, kk == 0 ? 0 : 1);
    } else {
      wgmma_m64n176k16_ss<0>(s, desc_q, desc_k, kk == 0 ? 0 : 1);
    }
  }
}
// [scores]

/// O (64 x D, fp32) += P (64 x Bc, bf16 in registers) V (Bc x D): Bc / 16 wgmma m64nDk16 with A
/// from registers. V is stored [key][d], row-major K x N for this product: MN-major, so
/// transpose-B = 1, LBO = the distance between its 64-column boxes, and k-step kk (16 keys)
/// starts 16 kk rows = 2048 kk bytes in (as gemm's B). (v24: over the tile's first kKeys keys,
/// kKeys / 16 k-steps.)
// [pv]
template <class T, int kKeys = T::Bc>
__device__ __forceinline__ void wgmma_pv(float (&o)[T::D / 2], const std::uint32_t (&p)[kKeys / 16][4],
                                         const unsigned char* v_tile) {
  using namespace tut::sm90;
  const std::uint64_t desc_v0 = smem_desc(v_tile, T::kKVBoxBytes, 1024);
#pragma unroll
  for (int kk = 0; kk < kKeys / 16; ++kk) {
    const std::uint64_t desc_v = T::kAdvanceDescriptors ? desc_v0 + kk * 2048 / 16 : smem_desc(v_tile + kk * 2048, T::kKVBoxBytes, 1024);
    if constexpr (T::D == 64) {
      wgmma_m64n64k16_rs<1>(o, p[kk], desc_v, 1);
    } else {
      wgmma_m64n128k16_rs<1>(o, p[kk], desc_v, 1);
    }
  }
}
// [pv]

#endif  // TUT_SM90A

/// v25: a 4 x 4 transpose of 4-byte values within each quad of lanes (t = lane % 4), for each of
/// kGroups groups of four: on entry `v[4 k + c]` is this thread's value of column c of group k, on
/// return thread t holds column t of group k from the quad's threads 0-3, in that order. Two
/// rounds of shuffles, lanes 1 then 2 apart: in each round a thread keeps half of the pairs of
/// columns that round pairs and trades the other half with its partner. Every lane of the warp
/// must call it.
// [quad_transpose]
template <int kGroups>
__device__ __forceinline__ void quad_transpose(std::uint32_t (&v)[4 * kGroups], int t) {
#pragma unroll
  for (int m = 1; m <= 2; m *= 2) {
    const bool high = (t & m) != 0;  // keeps the column of the pair with this bit set
#pragma unroll
    for (int k = 0; k < kGroups; ++k) {
#pragma unroll
      for (int a = 0; a < 4; ++a) {
        if ((a & m) != 0) continue;
        std::uint32_t& lo = v[4 * k + a];
        std::uint32_t& hi = v[4 * k + (a | m)];
        const std::uint32_t got = __shfl_xor_sync(0xffffffffu, high ? lo : hi, m);
        if (high) {
          lo = got;
        } else {
          hi = got;
        }
      }
    }
  }
}
// [quad_transpose]

/// v24: the S array of a turn's tile: the whole tile's (`whole`, sc) when kWhole, else a narrowed
/// tile's registers of its own (`narrow`).
template <bool kWhole, int N, int M>
__device__ __forceinline__ auto& select_scores(float (&whole)[N], float (&narrow)[M]) {
  if constexpr (kWhole) {
    return whole;
  } else {
    return narrow;
  }
}
/// v24: a narrowed tile's P, the first kKeys / 16 k-steps of P's A fragments `p`: an m64nKk16
/// product has the layout of the wider one's first K columns, so its P packs as theirs does.
template <int kKeys, int N>
__device__ __forceinline__ auto first_p(std::uint32_t (&p)[N][4]) -> std::uint32_t (&)[kKeys / 16][4] {
  static_assert(kKeys / 16 <= N, "v24: a tile's first keys");
  return reinterpret_cast<std::uint32_t(&)[kKeys / 16][4]>(p);
}

/// Row h of a tile (h = 0: the thread's row g, 1: row g + 8): its max over the tile (this lane's
/// scores, then the quad's), in base-2 units, the running max `m_new` that follows from the old
/// one `m`, and `alpha`, the factor that moves O and l from m to m_new.
// [row_max]
template <int kBc, bool kLazy>
__device__ __forceinline__ void row_max(const float (&s)[kBc / 2], int h, float m, float scale_log2, float& m_new,
                                        float& alpha) {
  float mx4[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};  // 4 independent chains
#pragma unroll
  for (int j = 0; j < kBc / 8; ++j) mx4[j % 4] = fmaxf(mx4[j % 4], fmaxf(s[4 * j + 2 * h], s[4 * j + 2 * h + 1]));
  const float mx = group_max<4>(fmaxf(fmaxf(mx4[0], mx4[1]), fmaxf(mx4[2], mx4[3]))) * scale_log2;
  m_new = kLazy ? lazy_max(m, mx) : fmaxf(m, mx);
  alpha = rescale_factor(m, m_new);
}
// [row_max]

/// The online softmax of one tile on S's accumulators, in place: each thread holds rows g and
/// g + 8 of its warp's 16 (h = 0, 1), 2 scores per 8 keys (s[4 j + 2 h], s[4 j + 2 h + 1]); the
/// row's other scores are in the 3 other lanes of its quad. On return s holds P = 2^(s scale_log2
/// - m_new), `m` the new running max (base 2), `l` this lane's share of the running sum, and
/// `alpha` the factor that moves O from the old max to the new one (as attend_tile() in v04-v06).
/// kLazy (v16): the running max moves only past kLazyRescaleLog2 above it (lazy_max()).
// [softmax]
template <int kBc, bool kLazy = false>
__device__ __forceinline__ void softmax_tile(float (&s)[kBc / 2], float (&m)[2], float (&l)[2], float (&alpha)[2],
                                             float scale_log2) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float m_new;
    row_max<kBc, kLazy>(s, h, m[h], scale_log2, m_new, alpha[h]);
    const float shift = exp_shift(m_new);
    float sum4[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int j = 0; j < kBc / 8; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float p = fast_exp2(fmaf(s[4 * j + 2 * h + e], scale_log2, -shift));  // -inf -> 0
        s[4 * j + 2 * h + e] = p;
        sum4[j % 4] += p;
      }
    }
    l[h] = l[h] * alpha[h] + ((sum4[0] + sum4[1]) + (sum4[2] + sum4[3]));
    m[h] = m_new;
  }
}
// [softmax]

/// v23's softmax of one tile: softmax_tile()'s arithmetic, in another order. Both rows' maxima
/// first, then `before_exps()` (the kernel waits there for the P V of the last tile, which still
/// reads `p`), then the exponentials, each pair of them packed into `p` (the A fragments of P V,
/// laid out as the kernel's pack_p() lays them) as soon as it is made: the packing instructions
/// (F2FP, on the SM's ALU pipe) then fill the gaps between the exponentials (MUFU, another pipe)
/// instead of following all of them. S is left as it was.
// [softmax_packed]
template <int kBc, bool kLazy, class BeforeExps>
__device__ __forceinline__ void softmax_tile_packed(const float (&s)[kBc / 2], std::uint32_t (&p)[kBc / 16][4],
                                                    float (&m)[2], float (&l)[2], float (&alpha)[2], float scale_log2,
                                                    const BeforeExps& before_exps) {
  float m_new[2], shift[2];  // the shifts too before the wait: ready as soon as it ends
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    row_max<kBc, kLazy>(s, h, m[h], scale_log2, m_new[h], alpha[h]);
    shift[h] = exp_shift(m_new[h]);
  }
  before_exps();
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float sum4[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int j = 0; j < kBc / 8; ++j) {  // keys 8 j + 2 t, 8 j + 2 t + 1 of row h
      const float p0 = fast_exp2(fmaf(s[4 * j + 2 * h], scale_log2, -shift[h]));
      const float p1 = fast_exp2(fmaf(s[4 * j + 2 * h + 1], scale_log2, -shift[h]));
      sum4[j % 4] += p0 + p1;
      p[j / 2][2 * (j % 2) + h] = tut::sm80::pack_bf16x2(p0, p1);  // k-step j / 2 of P V, its half j % 2
    }
    l[h] = l[h] * alpha[h] + ((sum4[0] + sum4[1]) + (sum4[2] + sum4[3]));
    m[h] = m_new[h];
  }
}
// [softmax_packed]

/// True when two wgmma tile configurations set every field alike: the same kernel, whatever their names. The
/// search (tune/) checks with it, at compile time, that its row for what a version runs is that.
template <class A, class B>
constexpr bool same_wgmma_tiles() {
  return A::head_dim == B::head_dim && A::keys_per_tile == B::keys_per_tile && A::min_blocks_per_sm == B::min_blocks_per_sm &&
         A::ping_pong == B::ping_pong && A::overlap == B::overlap && A::stages == B::stages &&
         A::consumers == B::consumers && A::persistent == B::persistent &&
         A::advance_descriptors == B::advance_descriptors && A::lazy_rescale == B::lazy_rescale &&
         A::q_buffers == B::q_buffers && A::mixed_items == B::mixed_items && A::early_pass == B::early_pass &&
         A::wait_suspend_ns == B::wait_suspend_ns && A::paired_waits == B::paired_waits &&
         A::pack_as_made == B::pack_as_made && A::narrow_last_tile == B::narrow_last_tile &&
         A::wide_o_stores == B::wide_o_stores;
}

// [v07_config]
/// The tiles v07 runs at D = 64, chosen by the search of v07's tiles (tune/wgmma_candidates.cu,
/// `attention_tune`, H100): 64-key tiles and two blocks per SM (consumers at 104 registers; one
/// block waits for its loads while the other computes) beat 128-key tiles with one block by
/// 7-15%. (Its row in the search: v07_d64_bc64_b2.)
struct V07Tiles64 : WgmmaTiles {
  static constexpr int head_dim = 64;           ///< D
  static constexpr int keys_per_tile = 64;      ///< S's wgmma is m64n64k16
  static constexpr int min_blocks_per_sm = 2;   ///< two blocks of 49 KiB per SM
};
/// The tiles v07 runs at D = 128: the first configuration (WgmmaTiles: 128 x 128 tiles, one block
/// of 161 KiB per SM), the only candidate of its search at this D. (Its row: v07_d128_bc128_b1.)
struct V07Tiles128 : WgmmaTiles {};
// [v07_config]

// [v09_config]
/// v09's tiles at D = 64: v07's, without turns. With turns, P of the previous tile no longer fits
/// beside S and O in the 80 registers of two blocks per SM (ptxas spills); at one block per SM
/// the turns lost 5-12% to v07's two blocks, whose four consumers fill each other's softmax gaps
/// unordered (v09's search, `attention_tune`; the chapter page, v09).
struct V09Tiles64 : V07Tiles64 {};
/// v09's tiles at D = 128: v07's (V07Tiles128), the consumers taking turns.
struct V09Tiles128 : V07Tiles128 {
  static constexpr bool ping_pong = true;  ///< turns on the tensor cores
};
// [v09_config]

// [v10_config]
/// v10's tiles at D = 128: v09's, each consumer's softmax overlapping its own P V (S, O and the P
/// that P V is still reading live together: 160 registers per thread, within the consumers' 240).
struct V10Tiles128 : V09Tiles128 {
  static constexpr bool overlap = true;  ///< S and P V as two groups, softmax between their waits
};
// [v10_config]

// [v11_config]
/// v11's tiles at D = 128: v10's with 176 keys per tile (S's wgmma m64n176k16: 88 registers of S
/// per thread; K and V tiles of 44 KiB, 210 KiB of shared memory in all). Its row in v10's search:
/// v10_d128_bc176_b1.
struct V11Tiles128 : V10Tiles128 {
  static constexpr int keys_per_tile = 176;  ///< Bc (v10: 128)
};
// [v11_config]

// [v12_config]
/// v12's tiles at D = 64: three consumer warpgroups, 192 query rows per block, one block per SM
/// (consumers at 160 registers: S 64, O 32 and P 32 per thread), on 128-key tiles with v10's turns
/// and overlap: FlashAttention-3's choice at this D (its `hopper/tile_size.h`: 192 x 128). Two
/// consumers on the same tiles are v10's search row v10_d64_bc128_b1, which lost to v07's two
/// blocks per SM. (Its row in v12's search: v12_d64_bc128_b1_c3.)
struct V12Tiles64 : WgmmaTiles {
  static constexpr int head_dim = 64;       ///< D
  static constexpr bool ping_pong = true;   ///< the turns go round three consumers
  static constexpr bool overlap = true;     ///< v10's overlap inside each turn
  static constexpr int consumers = 3;       ///< 192 query rows per block (v07-v11: 2, 128 rows)
};
/// v12's tiles at D = 128: v11's (with three consumers, O and S of 176 keys do not fit in 160
/// registers).
struct V12Tiles128 : V11Tiles128 {};
// [v12_config]

// [v13_config]
/// v13's tiles: v12's, on a persistent grid (one block per SM taking item after item).
struct V13Tiles64 : V12Tiles64 {
  static constexpr bool persistent = true;  ///< grid: one block per SM (v12: one per item)
};
/// v13's tiles at D = 128: v12's (v11's), on the persistent grid.
struct V13Tiles128 : V12Tiles128 {
  static constexpr bool persistent = true;  ///< grid: one block per SM (v12: one per item)
};
// [v13_config]

// [v15_config]
/// v15's tiles: v14's two choices at D = 64 (v13's 192-row tiles, v07's 128-row ones) and v13's
/// at D = 128, each with its wgmma descriptors advanced by constants.
struct V15Tiles64 : V13Tiles64 {
  static constexpr bool advance_descriptors = true;  ///< one descriptor per operand and tile
};
/// v15's 128-row tiles at D = 64, where v14 takes v07's (v14_wide_tiles()).
struct V15Narrow64 : V07Tiles64 {
  static constexpr bool advance_descriptors = true;  ///< one descriptor per operand and tile
};
/// v15's tiles at D = 128.
struct V15Tiles128 : V13Tiles128 {
  static constexpr bool advance_descriptors = true;  ///< one descriptor per operand and tile
};
// [v15_config]

// [v16_config]
/// v16's tiles: v15's, with the lazy running max (lazy_max()).
struct V16Tiles64 : V15Tiles64 {
  static constexpr bool lazy_rescale = true;  ///< the max moves only by more than 2^8
};
/// v16's 128-row tiles at D = 64, where v14 takes v07's (v14_wide_tiles()).
struct V16Narrow64 : V15Narrow64 {
  static constexpr bool lazy_rescale = true;  ///< the max moves only by more than 2^8
};
/// v16's tiles at D = 128.
struct V16Tiles128 : V15Tiles128 {
  static constexpr bool lazy_rescale = true;  ///< the max moves only by more than 2^8
};
// [v16_config]

// [v17_config]
/// v17's tiles: v16's, with two Q buffers on the persistent grids.
struct V17Tiles64 : V16Tiles64 {
  static constexpr int q_buffers = 2;  ///< the next item's Q loads during this item
};
/// v17's 128-row tiles at D = 64 (v07's: one block per item, so one Q buffer, as v16).
struct V17Narrow64 : V16Narrow64 {};
/// v17's tiles at D = 128: v16's (a second 32 KiB Q tile does not fit beside two stages of 176-key
/// K and V tiles: 241 KiB).
struct V17Tiles128 : V16Tiles128 {};
// [v17_config]

// [v18_config]
/// v18's tiles at D = 64: v17's, with items of 192 and 128 rows (mixed_item()).
struct V18Tiles64 : V17Tiles64 {
  static constexpr bool mixed_items = true;  ///< items of 192 and 128 rows, the short ones scheduled last
};
// [v18_config]

// [v19_config]
/// v19's 128-row tiles at D = 64 (where v14_wide_tiles() takes them): v17's (v07's, two blocks per
/// SM, descriptors advanced, the lazy max), on the persistent grid. v19 keeps v18's 192-row tiles
/// and v17's tiles at D = 128.
struct V19Narrow64 : V17Narrow64 {
  static constexpr bool persistent = true;  ///< two blocks per SM for the whole run (v17: one block per item)
};
// [v19_config]

// [v20_config]
/// v20's tiles: v18's at D = 64 (192 and 128-row items) and v17's at D = 128, with the turn passed
/// across items (v19's 128-row tiles do not take turns: v20 keeps them as they are).
struct V20Tiles64 : V18Tiles64 {
  static constexpr bool early_pass = true;  ///< the next item's first turn passed after this one's last
};
/// v20's tiles at D = 128.
struct V20Tiles128 : V17Tiles128 {
  static constexpr bool early_pass = true;  ///< the next item's first turn passed after this one's last
};
// [v20_config]

// [v21_config]
/// v21's tiles: v20's (v18's 192- and 128-row items at D = 64, v17's at D = 128) with their waits sleeping.
struct V21Tiles64 : V20Tiles64 {
  static constexpr unsigned wait_suspend_ns = tut::sm90::kSleepingWaitNs;  ///< 10 ms (v20: 0, no hint)
};
/// v19's 128-row tiles at D = 64 (v20 keeps them), their waits sleeping.
struct V21Narrow64 : V19Narrow64 {
  static constexpr unsigned wait_suspend_ns = tut::sm90::kSleepingWaitNs;  ///< 10 ms (v19, v20: 0, no hint)
};
/// v20's tiles at D = 128, their waits sleeping.
struct V21Tiles128 : V20Tiles128 {
  static constexpr unsigned wait_suspend_ns = tut::sm90::kSleepingWaitNs;  ///< 10 ms (v20: 0, no hint)
};
// [v21_config]

// [v22_config]
/// v22's tiles: v21's, each turn waiting for its K and V with both polls in flight. (v21's 128-row
/// tiles at D = 64 take no turns: v22 runs them as v21 does, V21Narrow64.)
struct V22Tiles64 : V21Tiles64 {
  static constexpr bool paired_waits = true;  ///< (v21: false, one poll after the other)
};
/// v21's tiles at D = 128, each turn's two waits paired.
struct V22Tiles128 : V21Tiles128 {
  static constexpr bool paired_waits = true;  ///< (v21: false, one poll after the other)
};
// [v22_config]

// [v23_config]
/// v23's tiles: v22's, each turn's P packed as it is made. (v21's 128-row tiles at D = 64 take no
/// turns: v23 runs them as v21 and v22 do, V21Narrow64.)
struct V23Tiles64 : V22Tiles64 {
  static constexpr bool pack_as_made = true;  ///< (v22: false, P packed after the exponentials)
};
/// v22's tiles at D = 128, each turn's P packed as it is made.
struct V23Tiles128 : V22Tiles128 {
  static constexpr bool pack_as_made = true;  ///< (v22: false, P packed after the exponentials)
};
// [v23_config]

// [v24_config]
/// v24's tiles at D = 128: v23's, an item's last key tile narrowed to its first 64 keys where it
/// has no others.
/// (At D = 64 the tiles have 128 keys, which the default shapes fill: v24 runs v23's there.)
struct V24Tiles128 : V23Tiles128 {
  static constexpr bool narrow_last_tile = true;  ///< (v23: false, the last tile over all 176 keys)
};
// [v24_config]

// [v25_config]
/// v25's tiles: v23's at D = 64 (and v21's 128-row ones, V25Narrow64) and v24's at D = 128, each
/// storing O in 16-byte pieces.
struct V25Tiles64 : V23Tiles64 {
  static constexpr bool wide_o_stores = true;  ///< (v24: false, 4 bytes per store)
};
/// v21's 128-row tiles at D = 64 (v23 and v24 run them), O stored in 16-byte pieces.
struct V25Narrow64 : V21Narrow64 {
  static constexpr bool wide_o_stores = true;  ///< (v24: false, 4 bytes per store)
};
/// v24's tiles at D = 128, O stored in 16-byte pieces.
struct V25Tiles128 : V24Tiles128 {
  static constexpr bool wide_o_stores = true;  ///< (v24: false, 4 bytes per store)
};
// [v25_config]

// [v26_config]
/// v26's 192-row tiles at D = 64: v25's, with the epilogue in a straight line (at D = 128 v26 runs
/// V25Tiles128: the same epilogue was slower there).
struct V26Tiles64 : V25Tiles64 {
  static constexpr bool straight_epilogue = true;  ///< (v25: false, row by row under branches)
};
/// v25's 128-row tiles at D = 64, the epilogue in a straight line.
struct V26Narrow64 : V25Narrow64 {
  static constexpr bool straight_epilogue = true;  ///< (v25: false, row by row under branches)
};
// [v26_config]

}  // namespace attention
