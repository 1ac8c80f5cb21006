/// @file
/// @brief v25: v24 with each consumer's rows of Q loaded and released on barriers of their own,
/// released as soon as the consumer's last S of an item is done (D = 128, sm_90a).
#include "warp_specialized_kernel.cuh"

namespace attention {

/// @brief v25: v24, Q per consumer.
///
/// **Idea.** At D = 128 there is room for one Q tile (v17's second does not fit beside the two
/// stages of 176-key K and V tiles), and v13-v24 load the next item's Q only when every consumer
/// has released this one, after its last S and the softmax that follows it; the first consumer's
/// first S of the next item waits for that load. Measured on v24 (H200, B1 Sq 4224 D128, 4 to 32
/// heads, Sk 2112 to 8448: one to eight items per block, 12 to 48 tiles per item; the chapter
/// page): a tile costs 2.0 us per block and an item's seam (its first and last turns, its
/// epilogue, the wait for Q) 3.8 us, nearly two tiles. Each consumer reads only its own 64 rows of
/// Q. With a pair of barriers per consumer, its rows of the next item can load as soon as its own
/// last S is done: the first consumer's half a turn before the second's, and both before their
/// last softmax, a turn or more before the first S that needs them.
///
/// **Changed since v24.** One field of the tiles, `q_per_consumer` (V25Tiles128; D = 64 runs v23's
/// tiles, whose two Q tiles load the next item's a whole item ahead): a full and an empty barrier
/// per consumer, the empty one taking that consumer's four warps; the producer loads each
/// consumer's 64 rows of the tile as a box of its own (`[q_slots]` in the kernel; the Q map's
/// boxes 64 rows tall), into the same places of the tile; each consumer releases them in its last
/// turn, right after that S's wait. The tile and its shared memory are v24's. Indexed by the
/// warpgroup's number itself, the barriers made ptxas spill 12 bytes in the D = 128 kernel; by a
/// copy of it broadcast from lane 0, none. v07-v24's PTX is unchanged.
///
/// **Predicted** (written before the first run): the seam's wait for Q is at most the latency of a
/// 32 KiB load from L2 or memory, about 1 us of the 3.8, and this step moves the load about a turn
/// earlier: at B2 H16 S4096 D128 (8 items per busiest block) +1-2%, at B1 H32 S8192 D128 (16
/// items of 47 tiles) +0.5-1%, with the mask about the same; the D = 64 shapes unchanged (v23's
/// kernel).
// [launch]
void launch_attention_v25_q_per_consumer(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                         const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                         cudaStream_t stream) {
  launch_by_shape<V23Tiles64, V21Narrow64, V25Tiles128>(s, q, k, v, o, lse, stream, "v25_q_per_consumer");
}
// [launch]

}  // namespace attention
