/// @file
/// @brief The warp-specialized kernel (a TMA producer warpgroup, two wgmma consumer warpgroups)
/// and its launcher, templated on the tiles (WgmmaTiles): v07_wgmma.cu runs the tiles chosen per
/// head dimension, v09_ping_pong.cu the same with the consumers taking turns, v10_overlap.cu the
/// turns with each consumer's softmax overlapping its own P V, v11_wide_tiles.cu that on 176-key
/// tiles, v12-v18 further fields of the tiles, tune/wgmma_candidates.cu the candidates of the
/// searches (sm_90a).
#pragma once

#include <cuda.h>  // CUtensorMap (types only)
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "attention.hpp"
#include "common/check.hpp"
#include "common/device_info.hpp"
#include "common/hopper_ptx.cuh"
#include "flash_mma.cuh"
#include "online_softmax.cuh"
#include "wgmma_tile.cuh"

namespace attention {

/// @brief v07's kernel (and v09's, T::kPingPong; v10's and v11's, T::kOverlap; v12's, three
/// consumers; v13's, T::kPersistent; v15's, T::kAdvanceDescriptors; v16's, T::kLazyRescale; v17's,
/// T::kQBuffers; v18's, T::kMixedItems; v20-v23's, the further fields of WgmmaTiles): one block
/// per item, 64 T::kConsumers query rows of a head (v13: one block per SM, taking items in turn);
/// warpgroups 0 .. kConsumers - 1 consume (64 rows each), the last one produces (sm_90a; traps
/// elsewhere, where the registry never launches it).
///
/// The ring of S stages: the block's f-th K/V tile (counted over its items; for one item, its
/// tile f) goes to stage f % S. k_full[s] and v_full[s] complete when the TMA loads of a tile's
/// K and V have landed (one arrival with expect_tx, plus the bytes), k_empty[s] and v_empty[s]
/// when all consumer warps are done with its K and with its V (one arrival per warp; v07 releases
/// both at the end of a tile, v09 its K a turn before its V). Producer and consumers count the
/// same tiles, so tile f is fill number f / S of its stage: parity (f / S) % 2. Q has a full and
/// an empty barrier the same way, one fill per item (v17: two Q tiles, each with its pair, the
/// block's n-th item using tile n % 2).
// [kernel]
template <class T>
__global__ void __launch_bounds__(T::kThreads, T::kMinBlocks)
    attention_v07_wgmma(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                       const __grid_constant__ CUtensorMap map_v, __nv_bfloat16* __restrict__ o,
                       float* __restrict__ lse, int sq, int sk, int heads, bool causal, float scale_log2) {
#if TUT_SM90A
  using namespace tut::sm90;
  constexpr int D = T::D, Br = T::Br, Bc = T::Bc, S = T::kStages;
  using AllKeys = std::integral_constant<int, Bc>;  // a tile's products over all its keys (v24: not the last)
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = align_1024(smem_raw);  // Q (v17: two) | S x [ K | V ] | barriers, in 64-column boxes
  constexpr int QB = T::kQBuffers;  // Q tiles resident: 1, or (v17) 2, one per item in turn
  const auto q_tile = [&](int buffer) { return smem + buffer * T::kQBytes; };
  const auto k_tile = [&](int stage) { return smem + QB * T::kQBytes + stage * 2 * T::kKVBytes; };
  const auto v_tile = [&](int stage) { return smem + QB * T::kQBytes + stage * 2 * T::kKVBytes + T::kKVBytes; };
  auto* q_full = reinterpret_cast<std::uint64_t*>(smem + QB * T::kQBytes + 2 * S * T::kKVBytes);
  std::uint64_t* k_full = q_full + QB;
  std::uint64_t* v_full = k_full + S;
  std::uint64_t* k_empty = v_full + S;
  std::uint64_t* v_empty = k_empty + S;
  std::uint64_t* q_empty = v_empty + S;

  // The work: one item per (head, tile of Br query rows); for causal, longest first (v06's order).
  // A block takes one item per round: item blockIdx.x of round 0, the only one when the grid has a
  // block per item (v07-v12). On v13's persistent grid (one block per SM) the rounds go on, the
  // next item's loads overlapping this one's end, and odd rounds hand the items out in reverse
  // (a snake: the block that took the longest item of a round takes the shortest of the next), so
  // that with the mask the blocks' totals stay even.
  const int q_tiles = (sq + Br - 1) / Br, items = q_tiles * heads;
  const auto item_of_round = [&](int r) {  // >= items past the last round
    return snake_item(r, static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x));
  };
  const int rounds = T::kPersistent ? (items + static_cast<int>(gridDim.x) - 1) / static_cast<int>(gridDim.x) : 1;
  // v18: items of Br and Br - 64 rows, the short ones scheduled last (mixed_item()).
  const bool mixed = T::kMixedItems;
  // (`masked` is `causal`, passed in so that the producer can compile v18's mapping per mask.)
  const auto item = [&](int w, int& bh, int& row0, int& rows_valid, bool mixed_items, bool masked) {  // returns the item's key tiles
    if (mixed_items) {
      mixed_item(w, sq, heads, Br, masked, bh, row0, rows_valid);
      return key_tiles(row0, rows_valid, sq, sk, masked, Bc);
    }
    int qt = 0;
    block_tile(w, q_tiles, heads, masked, bh, qt);
    row0 = qt * Br;
    rows_valid = min(Br, sq - row0);
    return key_tiles(row0, rows_valid, sq, sk, masked, Bc);
  };
  const int group = static_cast<int>(threadIdx.x) / 128;  // below kConsumers: consumers; kConsumers: the producer

  if (threadIdx.x == 0) {
    for (int b = 0; b < QB; ++b) {
      mbar_init(&q_full[b], 1);
      mbar_init(&q_empty[b], 4 * T::kConsumers);  // one arrival per consumer warp, after its last S of an item
    }
    for (int s = 0; s < S; ++s) {
      mbar_init(&k_full[s], 1);                   // the producer's arrive.expect_tx (and the bytes)
      mbar_init(&v_full[s], 1);
      mbar_init(&k_empty[s], 4 * T::kConsumers);  // one arrival per consumer warp
      mbar_init(&v_empty[s], 4 * T::kConsumers);
    }
    fence_barrier_init();
  }
  __syncthreads();

  if (group == T::kConsumers) {
    // ---- Producer warpgroup: gives registers away; one thread issues every TMA load. ----
    setmaxnreg_dec<T::kProducerRegs>();
    if (threadIdx.x == 128 * T::kConsumers) {
// [producer]
      // Fill f of the ring (the block's f-th K/V tile, over all its items) goes to stage f % S.
      // (The loop is compiled once for each kind of item, v07-v17's and v18's with and without the
      // mask: the producer's 24 registers do not hold two mappings' values at once.)
      const auto produce = [&](auto mixed_items, auto mixed_masked) {
        constexpr bool kMixed = decltype(mixed_items)::value;
        const bool masked = kMixed ? decltype(mixed_masked)::value : causal;  // v18's: a constant
        int fills = 0, q_fills = 0;
        for (int r = 0; r < rounds; ++r) {
          const int w = item_of_round(r);
          if (w >= items) continue;  // the last round has fewer items than blocks
          int bh = 0, row0 = 0, rows_valid = 0;
          const int tiles = item(w, bh, row0, rows_valid, kMixed, masked);
          if (tiles == 0) continue;  // its rows see no key: the consumers write zeros
          // v13: the previous item's Q is read (v17: the one before it, which used this buffer)
          const int qb = q_fills % QB;
          if (q_fills >= QB) mbar_wait<T::kWaitSuspendNs>(&q_empty[qb], (q_fills / QB - 1) % 2);
          mbar_arrive_expect_tx(&q_full[qb], T::kQBytes);
          for (int b = 0; b < T::kBoxes; ++b) {
            tma_load_3d(q_tile(qb) + b * T::kQBoxBytes, &map_q, 64 * b, row0, bh, &q_full[qb]);
          }
          ++q_fills;
          for (int j = 0; j < tiles; ++j) {
            const int f = fills + j, s = f % S;
            if (f >= S) mbar_wait<T::kWaitSuspendNs>(&k_empty[s], (f / S + 1) % 2);  // the consumers released K of fill f - S
            mbar_arrive_expect_tx(&k_full[s], T::kKVBytes);  // rows past Sk land as zeros (and count)
            for (int b = 0; b < T::kBoxes; ++b) {
              tma_load_3d(k_tile(s) + b * T::kKVBoxBytes, &map_k, 64 * b, j * Bc, bh, &k_full[s]);
            }
            if (f >= S) mbar_wait<T::kWaitSuspendNs>(&v_empty[s], (f / S + 1) % 2);  // ... and V of fill f - S
            mbar_arrive_expect_tx(&v_full[s], T::kKVBytes);
            for (int b = 0; b < T::kBoxes; ++b) {
              tma_load_3d(v_tile(s) + b * T::kKVBoxBytes, &map_v, 64 * b, j * Bc, bh, &v_full[s]);
            }
          }
          fills += tiles;
        }
      };
      if (!mixed) {
        produce(std::false_type{}, std::false_type{});
      } else if (causal) {
        produce(std::true_type{}, std::true_type{});
      } else {
        produce(std::true_type{}, std::false_type{});
      }
// [producer]
    }
    __syncwarp();
  } else {
    // ---- Consumer warpgroups: take the registers; S, softmax, P V for 64 query rows each. ----
    setmaxnreg_inc<T::kConsumerRegs>();
    const int consumer = group, warp = static_cast<int>(threadIdx.x) / 32 % 4, lane = static_cast<int>(threadIdx.x) % 32;
    const int g = lane / 4, t = lane % 4;
    const int wg_row = consumer * 64;                  // this warpgroup's first row in the block
    const unsigned char* q_rows0 = q_tile(0) + wg_row * 128;  // its 64 rows in each box of Q (buffer 0)
    int fills = 0, q_fills = 0;  // K/V tiles and Q tiles of the block's items before this one
    bool passed_ahead = false;   // (v20) the last consumer passed this item's first turn already
    for (int r = 0; r < rounds; ++r) {
      const int w = item_of_round(r);
      if (w >= items) continue;
      int bh = 0, row0 = 0, rows_valid = 0;
      const int tiles = item(w, bh, row0, rows_valid, mixed, causal);
// [across_items]
      // v20: does the block take another item with turns (one with key tiles) after this one?
      bool next_turns = false;
      if constexpr (T::kEarlyPass) {
        for (int r2 = r + 1; r2 < rounds && !next_turns; ++r2) {
          const int w2 = item_of_round(r2);
          int bh2 = 0, row2 = 0, valid2 = 0;
          if (w2 < items) next_turns = item(w2, bh2, row2, valid2, mixed, causal) > 0;
        }
      }
      // The last consumer's turn passes: after its last turn of an item when v20 passes ahead and
      // another item follows, else at the start of the next item (the first turn is warpgroup 0's).
      const bool passed_first = passed_ahead;
      const auto pass_first = [&] { return consumer == T::kConsumers - 1 && !passed_first; };
      const auto pass_last = [&] { return consumer < T::kConsumers - 1 || (T::kEarlyPass && next_turns); };
      if (tiles > 0) passed_ahead = T::kEarlyPass && next_turns;
// [across_items]
      const int my_row = row0 + wg_row + warp * 16 + g;  // this thread's rows in the head: my_row, my_row + 8
      float o_acc[D / 2];  // O, 64 x D per warpgroup, wgmma's accumulator layout (unnormalized)
#pragma unroll
      for (int i = 0; i < D / 2; ++i) o_acc[i] = 0.0f;
      float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};  // rows my_row and my_row + 8
      // This item's Q rows; with one Q tile the address computed once above (the code v07-v16 measured).
      const unsigned char* q_rows = QB == 1 ? q_rows0 : q_tile(q_fills % QB) + wg_row * 128;
      if (tiles > 0) mbar_wait<T::kWaitSuspendNs>(&q_full[q_fills % QB], (q_fills / QB) % 2);

      // The pieces of one key tile j: the block's fill fills + j of the ring (stage (fills + j) % S,
      // that stage's fill number (fills + j) / S, hence the parity).
      float sc[Bc / 2];               // S, then P in fp32: 64 x Bc per warpgroup, the accumulator layout
      std::uint32_t p[Bc / 16][4];    // P in bf16: the A fragments of P V, one per 16 keys
      const auto stage = [&](int j) { return (fills + j) % S; };
      const auto parity = [&](int j) { return static_cast<unsigned>((fills + j) / S) % 2; };
      // This warp is done with tile j's K (or V): one arrival per warp on its stage's barrier.
      const auto release_k = [&](int j) {
        if (lane == 0) mbar_arrive(&k_empty[stage(j)]);
      };
      const auto release_v = [&](int j) {
        if (lane == 0) mbar_arrive(&v_empty[stage(j)]);
      };
      // ... and with Q: its last S has been waited for (the producer may load the next item's).
      const auto release_q = [&] {
        if (lane == 0) mbar_arrive(&q_empty[q_fills % QB]);
      };
// [turns]
      // v09's turns (the ping-pong below, and v18's idle consumer): named barriers 1, 2 (, 3), one
      // per warpgroup, of 256 threads: its own 128 wait, the 128 of the one before it arrive.
      // (v12: three consumers pass the turn round, 0 -> 1 -> 2 -> 0.)
      const auto wait_turn = [&] { named_barrier_sync(1 + consumer, 256); };
      const auto pass_turn = [&] { named_barrier_arrive(1 + (consumer + 1) % T::kConsumers, 256); };
// [turns]
      // S -> P in fp32, in S's registers: mask (if `masked`), online softmax, and `factor`, what O
      // must be rescaled by (rescale_o()) before tile j's P V.
      // (v24: an item's narrowed last tile has its S in an array of its own, `s_tile`, and its P
      // in the first k-steps of p.)
      const auto mask_scores = [&](int j, auto masked, auto& s_tile) {  // s_tile: sc, or (v24) a narrow tile's S
        if constexpr (decltype(masked)::value) {
          // A key past the end, or (causal) after the query's diagonal, scores -inf.
#pragma unroll
          for (int i = 0; i < static_cast<int>(sizeof(s_tile) / sizeof(float)); ++i) {
            const int key = j * Bc + 8 * (i / 4) + 2 * t + i % 2, row = my_row + 8 * ((i / 2) % 2);
            const bool visible = key < sk && (!causal || key <= row + sk - sq);
            if (!visible) s_tile[i] = -INFINITY;
          }
        }
      };
      const auto softmax_scores = [&](int j, auto masked, float (&factor)[2]) {
        mask_scores(j, masked, sc);
        softmax_tile<Bc, T::kLazyRescale>(sc, m, l, factor, scale_log2);
      };
      // O moves to the new running max: only if a row of this warp has one (factor == 1 exactly
      // when it has not).
      const auto rescale_o = [&](const float (&factor)[2]) {
        if (__any_sync(0xffffffffu, factor[0] != 1.0f || factor[1] != 1.0f)) {
#pragma unroll
          for (int i = 0; i < D / 2; ++i) o_acc[i] *= factor[(i / 2) % 2];
        }
      };
      // P in bf16: the accumulators of keys 16 kk .. 16 kk + 15 (8-column groups 2 kk, 2 kk + 1)
      // are, in pairs, exactly the A fragment of k-step kk of P V. No shuffle, no shared memory.
      const auto pack_p = [&] {
#pragma unroll
        for (int kk = 0; kk < Bc / 16; ++kk) {
          p[kk][0] = pack_bf16x2(sc[8 * kk + 0], sc[8 * kk + 1]);  // row g,     keys 2t, 2t+1
          p[kk][1] = pack_bf16x2(sc[8 * kk + 2], sc[8 * kk + 3]);  // row g + 8, keys 2t, 2t+1
          p[kk][2] = pack_bf16x2(sc[8 * kk + 4], sc[8 * kk + 5]);  // row g,     keys 2t+8, 2t+9
          p[kk][3] = pack_bf16x2(sc[8 * kk + 6], sc[8 * kk + 7]);  // row g + 8, keys 2t+8, 2t+9
        }
      };
// [pack_as_made]
      // v23: the rest of a turn once tile j's S has landed: the maxima, the wait for tile j - 1's
      // P V (it reads p), then the exponentials, each pair packed into p as soon as it is made.
      const auto softmax_pack_as_made = [&](int j, auto masked, float (&factor)[2], auto& s_tile) {
        constexpr int K = 2 * static_cast<int>(sizeof(s_tile) / sizeof(float));  // the tile's keys (v24: 64 in a narrowed one)
        mask_scores(j, masked, s_tile);
        softmax_tile_packed<K, T::kLazyRescale>(s_tile, first_p<K>(p), m, l, factor, scale_log2, [&] {
          wgmma_wait<0>();  // P V of tile j - 1 is done: o_acc and p are free again
          keep_in_registers(o_acc);
          release_v(j - 1);
        });
        rescale_o(factor);
      };
// [pack_as_made]
      // The whole of v07's and v09's softmax step: S -> P in bf16, O rescaled.
      const auto softmax_to_p = [&](int j, auto masked) {
        float factor[2];
        softmax_scores(j, masked, factor);
        rescale_o(factor);
        pack_p();
      };
      // As v06: the mask only on tiles past the end of K or past the diagonal of this warpgroup's
      // first row; the tiles before them run without it.
      int unmasked = sk / Bc;
      if (causal) unmasked = min(unmasked, max(0, (row0 + wg_row + sk - sq + 1) / Bc));
      unmasked = min(unmasked, tiles);

      if constexpr (!T::kPingPong) {
// [consumer]
        // v07, one tile at a time: S = Q K^T, wait, softmax, O += P V, wait, release the stage.
        const auto step = [&](int j, auto masked) {
          mbar_wait<T::kWaitSuspendNs>(&k_full[stage(j)], parity(j));
          wgmma_fence();  // sc and o_acc were last written by ordinary instructions
          wgmma_scores<T>(sc, q_rows, k_tile(stage(j)));
          wgmma_commit();
          wgmma_wait<0>();
          keep_in_registers(sc);
          softmax_to_p(j, masked);
          mbar_wait<T::kWaitSuspendNs>(&v_full[stage(j)], parity(j));
          wgmma_fence();
          wgmma_pv<T>(o_acc, p, v_tile(stage(j)));
          wgmma_commit();
          wgmma_wait<0>();
          keep_in_registers(o_acc);
          release_k(j);
          release_v(j);
        };
        int j = 0;
        for (; j < unmasked; ++j) step(j, std::false_type{});
        for (; j < tiles; ++j) step(j, std::true_type{});
        if (tiles > 0) release_q();
// [consumer]
      } else if (T::kMixedItems && tiles > 0 && __any_sync(0xffffffffu, wg_row >= rows_valid)) {
// [idle]
        // v18: none of this warpgroup's rows is among the item's (a short item's third 64 rows, or
        // the rows past Sq of a head's last item): no product, no softmax, no store. It
        // still takes its turns, so that the others' pass round the ring as always, and releases
        // each stage once the stage is full (the arrival then counts towards that fill's empty
        // phase, not an earlier one). The test is a vote: its result is the same in every lane,
        // so ptxas knows the branch is warp-uniform and keeps the ping-pong's stage and parity
        // arithmetic on the uniform datapath; a plain branch on wg_row (from threadIdx) moved it
        // to the vector one and cost 4% with the mask.
        if (pass_first()) pass_turn();
        for (int j = 0; j <= tiles; ++j) {  // the turns of the ping-pong below: S of tile j, P V of tile j - 1
          if (j < tiles) mbar_wait<T::kWaitSuspendNs>(&k_full[stage(j)], parity(j));
          if (j > 0) mbar_wait<T::kWaitSuspendNs>(&v_full[stage(j - 1)], parity(j - 1));
          wait_turn();
          if (j < tiles || pass_last()) pass_turn();
          if (j < tiles) release_k(j);
          if (j > 0) release_v(j - 1);
          if (j == tiles - 1) release_q();
        }
// [idle]
      } else if (tiles > 0) {
// [ping_pong]
        // v09, the ping-pong: the two consumers take turns on the tensor cores. A turn issues
        // one warpgroup's O += P V of tile j - 1 and S = Q K^T of tile j as one group, then passes
        // the turn, then waits for its products; its softmax of tile j runs while the other
        // warpgroup's turn keeps the tensor cores busy (wait_turn() and pass_turn(), defined above).
        if (pass_first()) pass_turn();  // warpgroup 0 has the first turn
        const auto turn = [&](int j, auto masked, auto keys) {  // tiles j - 1 (P V) and j (Q K^T), 0 < j < tiles
// [paired_waits]
          if constexpr (T::kPairedWaits) {  // v22: both polls in flight, one round trip
            mbar_wait_both<T::kWaitSuspendNs>(&k_full[stage(j)], parity(j), &v_full[stage(j - 1)], parity(j - 1));
          } else {
            mbar_wait<T::kWaitSuspendNs>(&k_full[stage(j)], parity(j));
            mbar_wait<T::kWaitSuspendNs>(&v_full[stage(j - 1)], parity(j - 1));
          }
// [paired_waits]
          wait_turn();
          wgmma_fence();
          if constexpr (!T::kOverlap) {
            wgmma_pv<T>(o_acc, p, v_tile(stage(j - 1)));
            wgmma_scores<T>(sc, q_rows, k_tile(stage(j)));
            wgmma_commit();
            pass_turn();
            wgmma_wait<0>();
            keep_in_registers(o_acc);
            keep_in_registers(sc);
            release_k(j);      // K of tile j is free now, V of tile j - 1 too: a stage's K and V are
            release_v(j - 1);  // released a turn apart, so the producer refills K a turn earlier
            softmax_to_p(j, masked);
          } else {
// [overlap]
            // v10: S of tile j and P V of tile j - 1 as two groups, S first; wait for S alone and
            // run tile j's softmax on S's registers while P V still runs (it reads p and adds into
            // o_acc, so both wait: O's rescale and P's packing come after P V's wait).
            constexpr int K = decltype(keys)::value;
            float s_narrow[K < Bc ? K / 2 : 1];  // v24: a narrowed tile's S, apart from sc
            auto& s_tile = select_scores<K == Bc>(sc, s_narrow);
            wgmma_scores<T, K>(s_tile, q_rows, k_tile(stage(j)));
            wgmma_commit();
            wgmma_pv<T>(o_acc, p, v_tile(stage(j - 1)));
            wgmma_commit();
            pass_turn();
            wgmma_wait<1>();  // S of tile j is done; P V of tile j - 1 may still run
            keep_in_registers(s_tile);
            release_k(j);
            float factor[2];
            if constexpr (!T::kPackAsMade) {
              softmax_scores(j, masked, factor);
              wgmma_wait<0>();  // P V of tile j - 1 is done: o_acc and p are free again
              keep_in_registers(o_acc);
              release_v(j - 1);
              rescale_o(factor);
              pack_p();
            } else {
              softmax_pack_as_made(j, masked, factor, s_tile);  // v23 (above): the same steps, reordered
            }
// [overlap]
          }
        };
        // The first turn has only tile 0's S, the last only tile tiles - 1's P V (no branch
        // between the products of a turn: ptxas would serialize them).
        mbar_wait<T::kWaitSuspendNs>(&k_full[stage(0)], parity(0));
        wait_turn();
        wgmma_fence();
        wgmma_scores<T>(sc, q_rows, k_tile(stage(0)));
        wgmma_commit();
        pass_turn();
        wgmma_wait<0>();
        keep_in_registers(sc);
        release_k(0);
        if (unmasked > 0) {
          softmax_to_p(0, std::false_type{});
        } else {
          softmax_to_p(0, std::true_type{});
        }
// [narrow_last]
        // v24: where the item's last tile holds 64 of its keys or fewer (narrows_last_tile()), the
        // last turn takes S, the softmax and (below) P V over the first 64 of the tile's 176 keys
        // alone (such a tile ends inside itself, so it is one of the masked ones).
        using Narrow = std::integral_constant<int, 64>;
        bool narrow = false;
        if constexpr (T::kNarrowLastTile) {
          if (tiles > 1) {
            // (range_keys(), in int arithmetic: its 64-bit form made ptxas spill 24 bytes here)
            const int keys = causal ? static_cast<int>(visible_keys(row0 + rows_valid - 1, sq, sk, true)) : sk;
            narrow = narrows_last_tile(tiles, keys, Bc, Narrow::value);
          }
        }
        int j = 1;
        for (; j < unmasked; ++j) turn(j, std::false_type{}, AllKeys{});
        for (; j < tiles - (narrow ? 1 : 0); ++j) turn(j, std::true_type{}, AllKeys{});
        if constexpr (T::kNarrowLastTile) {
          if (narrow) turn(tiles - 1, std::true_type{}, Narrow{});
        }
// [narrow_last]
        release_q();  // the last S has been waited for
        const auto last_pv = [&](auto keys) {  // the last turn: P V of the last tile alone
          mbar_wait<T::kWaitSuspendNs>(&v_full[stage(tiles - 1)], parity(tiles - 1));
          wait_turn();
          wgmma_fence();
          wgmma_pv<T, decltype(keys)::value>(o_acc, first_p<decltype(keys)::value>(p), v_tile(stage(tiles - 1)));
          wgmma_commit();
          if (pass_last()) pass_turn();  // the next one's last turn; after the last, none (v20: the next item's first)
          wgmma_wait<0>();
          keep_in_registers(o_acc);
          release_v(tiles - 1);
        };
        if constexpr (T::kNarrowLastTile) {
          if (narrow) {
            last_pv(Narrow{});
          } else {
            last_pv(AllKeys{});
          }
        } else {
          last_pv(AllKeys{});
        }
// [ping_pong]
      }

      // The end: each row's l summed over its quad, O / l in bf16, lse; rows past Sq are not stored.
      if constexpr (T::kStraightEpilogue) {
// [straight_epilogue]
        // v26: v25's steps for both rows at once, with nothing that branches before the stores:
        // the two rows' shuffles in flight together, 1 / l and lse by the hardware's approximations
        // (no slow path, no polynomial), then each row's stores under a predicate.
        static_assert(T::kWideOStores, "v26: v25's 16-byte stores");
        float l_row[2], inv[2];
#pragma unroll
        for (int h = 0; h < 2; ++h) l_row[h] = group_sum<4>(l[h]);
#pragma unroll
        for (int h = 0; h < 2; ++h) inv[h] = fast_inverse_sum(l_row[h]);
        std::uint32_t piece[2][D / 8];  // as v25's, one array per row
#pragma unroll
        for (int h = 0; h < 2; ++h) {
#pragma unroll
          for (int c = 0; c < D / 8; ++c) piece[h][c] = pack_bf16x2(o_acc[4 * c + 2 * h] * inv[h], o_acc[4 * c + 2 * h + 1] * inv[h]);
        }
#pragma unroll
        for (int h = 0; h < 2; ++h) quad_transpose<D / 32>(piece[h], t);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int row = wg_row + warp * 16 + g + 8 * h;  // in the block
          const float row_lse_h = fast_row_lse(m[h], l_row[h]);
          if (row < rows_valid) {
            __nv_bfloat16* out = o + (static_cast<std::size_t>(bh) * sq + row0 + row) * D;
#pragma unroll
            for (int k = 0; k < D / 32; ++k) {
              *reinterpret_cast<uint4*>(out + 8 * (4 * k + t)) =
                  make_uint4(piece[h][4 * k], piece[h][4 * k + 1], piece[h][4 * k + 2], piece[h][4 * k + 3]);
            }
            if (t == 0) lse[static_cast<std::size_t>(bh) * sq + row0 + row] = row_lse_h;
          }
        }
// [straight_epilogue]
      } else {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const float l_row = group_sum<4>(l[h]);
          const float inv = inverse_sum(l_row);
          const int row = wg_row + warp * 16 + g + 8 * h;  // in the block
          if constexpr (T::kWideOStores) {
// [wide_o_stores]
            // v25: chunk c (columns 8c .. 8c + 7 of the row) is spread over the quad, 4 bytes per
            // thread; a 4 x 4 transpose of each four chunks' values within the quad gives thread t
            // the whole of chunks t, t + 4, ...: one 16-byte store each (8 at D = 128, not 32).
            std::uint32_t piece[D / 8];  // piece[c]: this thread's pair of chunk c; then chunk 4 (c / 4) + t's pairs
#pragma unroll
            for (int c = 0; c < D / 8; ++c) piece[c] = pack_bf16x2(o_acc[4 * c + 2 * h] * inv, o_acc[4 * c + 2 * h + 1] * inv);
            quad_transpose<D / 32>(piece, t);  // (every lane: the shuffles need the whole warp)
            if (row < rows_valid) {
              __nv_bfloat16* out = o + (static_cast<std::size_t>(bh) * sq + row0 + row) * D;
#pragma unroll
              for (int k = 0; k < D / 32; ++k) {
                *reinterpret_cast<uint4*>(out + 8 * (4 * k + t)) =
                    make_uint4(piece[4 * k], piece[4 * k + 1], piece[4 * k + 2], piece[4 * k + 3]);
              }
              if (t == 0) lse[static_cast<std::size_t>(bh) * sq + row0 + row] = row_lse(m[h], l_row);
            }
// [wide_o_stores]
          } else {
            if (row >= rows_valid) continue;
            __nv_bfloat16* out = o + (static_cast<std::size_t>(bh) * sq + row0 + row) * D + 2 * t;
#pragma unroll
            for (int jd = 0; jd < D / 8; ++jd) {
              *reinterpret_cast<std::uint32_t*>(out + 8 * jd) =
                  pack_bf16x2(o_acc[4 * jd + 2 * h] * inv, o_acc[4 * jd + 2 * h + 1] * inv);
            }
            if (t == 0) lse[static_cast<std::size_t>(bh) * sq + row0 + row] = row_lse(m[h], l_row);
          }
        }
      }
      fills += tiles;
      q_fills += tiles > 0 ? 1 : 0;
    }
  }
#else
  (void)map_q, (void)map_k, (void)map_v, (void)o, (void)lse, (void)sq, (void)sk, (void)heads, (void)causal;
  (void)scale_log2;
  __trap();  // wgmma needs sm_90a; unsupported_v7() keeps the runner from launching this
#endif
}
// [kernel]

/// The tensor map of Q, K or V ([heads, rows, D] bf16, contiguous) as a 3-D tensor (D, rows,
/// heads), loaded in boxes of 64 columns x `box_rows` rows of one head, 128-byte swizzled. A box
/// that reaches past the head's last row gets zeros there, never the next head's rows.
CUtensorMap head_map(const __nv_bfloat16* base, std::int64_t rows, std::int64_t heads, int d, unsigned box_rows);

/// Launches the warp-specialized kernel with the tiles `Tiles` (one block per Br query rows of a
/// head; persistent tiles, v13 on: at most one per SM and kMinBlocks) for the version `name` (its
/// errors name it). Throws std::invalid_argument for another D,
/// off Hopper, or without sm_90a code (unsupported_v7()).
template <class Tiles>
void launch_warp_specialized(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                             __nv_bfloat16* o, float* lse, cudaStream_t stream, const std::string& name) {
  using T = WgmmaConfig<Tiles>;
  const std::string why = unsupported_v7(s);
  if (!why.empty()) throw std::invalid_argument(name + ": " + why);
  if (s.d != T::D) throw std::invalid_argument(name + ": these tiles are compiled for D = " + std::to_string(T::D));
  unsigned blocks = flash_blocks(s, q, k, v, T::Br, name.c_str());  // one per item; 16-byte alignment (TMA needs it)
  if (T::kPersistent) {  // v13: as many blocks as fit on the GPU at once, each taking items in turn
    blocks = std::min(blocks, static_cast<unsigned>(tut::current_sm_count() * T::kMinBlocks));
  }
  tut::allow_dynamic_smem(attention_v07_wgmma<T>, T::kSmemBytes);
  const CUtensorMap map_q = head_map(q, s.sq, s.heads(), T::D, T::Br);
  const CUtensorMap map_k = head_map(k, s.sk, s.heads(), T::D, T::Bc);
  const CUtensorMap map_v = head_map(v, s.sk, s.heads(), T::D, T::Bc);
  attention_v07_wgmma<T><<<blocks, T::kThreads, T::kSmemBytes, stream>>>(
      map_q, map_k, map_v, o, lse, static_cast<int>(s.sq), static_cast<int>(s.sk), static_cast<int>(s.heads()),
      s.causal, s.scale() * kLog2e);
  CUDA_CHECK_LAUNCH();
}

/// How a version of this kernel picks its tiles: `Tiles64` at D = 64, `Tiles128` for any other D
/// (which launch_warp_specialized() refuses unless it is 128). The versions differ only in these
/// two arguments (v07_wgmma.cu, v09_ping_pong.cu, v10_overlap.cu, v11_wide_tiles.cu,
/// v12_three_consumers.cu, v13_persistent.cu).
template <class Tiles64, class Tiles128>
void launch_by_head_dim(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                        __nv_bfloat16* o, float* lse, cudaStream_t stream, const std::string& name) {
  static_assert(WgmmaConfig<Tiles64>::D == 64 && WgmmaConfig<Tiles128>::D == 128, "tiles for D = 64, then D = 128");
  if (s.d == 64) {
    launch_warp_specialized<Tiles64>(s, q, k, v, o, lse, stream, name);
  } else {
    launch_warp_specialized<Tiles128>(s, q, k, v, o, lse, stream, name);
  }
}

// [by_shape]
/// v14's choice of tiles (and v15's): at D = 64 `Wide64` (three consumers, 192 query rows) unless
/// v14_wide_tiles() finds they would compute more than 1.16x the scores of `Narrow64` (two
/// consumers, 128 rows); `Tiles128` at D = 128.
template <class Wide64, class Narrow64, class Tiles128>
void launch_by_shape(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                     __nv_bfloat16* o, float* lse, cudaStream_t stream, const std::string& name) {
  // v14_wide_tiles() counts the scores of v13's and v07's tiles: these must have their shapes.
  using W = WgmmaConfig<Wide64>;
  using N = WgmmaConfig<Narrow64>;
  static_assert(W::Br == WgmmaConfig<V13Tiles64>::Br && W::Bc == WgmmaConfig<V13Tiles64>::Bc,
                "the wide tiles are v13's 192 x 128");
  static_assert(N::Br == WgmmaConfig<V07Tiles64>::Br && N::Bc == WgmmaConfig<V07Tiles64>::Bc,
                "the narrow tiles are v07's 128 x 64");
  if (v14_wide_tiles(s)) {
    launch_by_head_dim<Wide64, Tiles128>(s, q, k, v, o, lse, stream, name);
  } else {
    launch_warp_specialized<Narrow64>(s, q, k, v, o, lse, stream, name);  // D = 64
  }
}
// [by_shape]

}  // namespace attention
