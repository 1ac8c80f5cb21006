/// @file
/// @brief Exercise (chapter 08): the tiled online-softmax kernel, FlashAttention-1 style.
///
/// Your task: fill in the three TODO(student) blocks of attention_tiled_kernel so that
/// O = softmax(Q K^T / sqrt(D) [+ causal mask]) V and lse are right for ANY B, H, Sq, Sk (1, 17, 32,
/// 4097, Sq != Sk), with and without the causal mask, and for inputs whose scores reach several
/// hundred. The contract is in chapters/08_attention/exercise.hpp.
///
///  - Read chapters/08_attention/README.md, sections "The online softmax inside the loop", "v2"
///    (the same update in v2's bigger geometry) and "Exercise", and the helpers in
///    chapters/08_attention/online_softmax.cuh (fast_exp2, exp_shift, rescale_factor, inverse_sum,
///    group_max, group_sum) first.
///  - Check and time it, one command:   python3 tools/exercise.py attention
///    It rebuilds your file, checks every case (it fails until you are done; the failing cases and
///    the hint say where to look) and times yours against the solution. Without a GPU its last
///    line says NOT CHECKED.
///
/// Budget per tile: three __syncthreads() (before and after the tile loads, before P V); per
/// thread 8 exponentials (fast_exp2) and two reductions over the row's 4 threads (max and sum);
/// every element of K and V read from global memory once per block; no other global traffic.
///
/// A block of 128 threads owns 32 query rows of one head; 4 threads share a row. K and V pass
/// through shared memory 32 keys at a time. Per tile:
///
///   1. load the K and V tiles (zeros past the last key);
///   2. each thread computes 8 scores of its row (given), then the row's online softmax update:
///      the tile's max over the row's 4 threads, the new running max, the tile's probabilities
///      p = 2^(s - m_new), the new running sum l_new, and O's row factor l_old 2^(m_old - m_new) / l_new;
///      P / l_new goes to shared memory;
///   3. O = O * factor + (P / l_new) V, with O's row slice in registers (kept normalized).
///
/// Scores are in base-2 units (times scale * log2 e), as in chapters/08_attention/online_softmax.cuh.
#include <stdexcept>

#include "common/check.hpp"
#include "exercise.hpp"
#include "online_softmax.cuh"

namespace attention {

namespace {

constexpr int kRows = 32;     // query rows per block
constexpr int kKeys = 32;     // keys per tile
constexpr int kThreads = 128; // 4 threads per row
constexpr int kPerRow = 4;    // threads per row
constexpr int kScores = kKeys / kPerRow;  // scores per thread and tile: keys part + 4 j, j < 8

/// Shared memory of one block, in floats: Qs, Ks (rows padded by one float against bank
/// conflicts), Vs, Ps and the rows' factors.
template <int D>
constexpr int smem_floats() {
  return kRows * (D + 1) + kKeys * (D + 1) + kKeys * D + kRows * (kKeys + 1) + kRows;
}

template <int D>
__global__ void __launch_bounds__(kThreads) attention_tiled_kernel(const float* q, const float* k, const float* v,
                                                                   float* o, float* lse, int sq, int sk, bool causal,
                                                                   float scale_log2) {
  extern __shared__ float smem[];
  float* Qs = smem;                           // [kRows][D + 1]
  float* Ks = Qs + kRows * (D + 1);           // [kKeys][D + 1]
  float* Vs = Ks + kKeys * (D + 1);           // [kKeys][D]
  [[maybe_unused]] float* Ps = Vs + kKeys * D;  // [kRows][kKeys + 1]: this tile's P / l_new
  [[maybe_unused]] float* row_factor = Ps + kRows * (kKeys + 1);  // [kRows]: what O's row is multiplied by this tile

  // Given: which rows this block owns, and this thread's row and part.
  const int q_tiles = (sq + kRows - 1) / kRows;
  const int bh = blockIdx.x / q_tiles, row0 = (blockIdx.x % q_tiles) * kRows;
  const int rows_valid = min(kRows, sq - row0);
  const int t = threadIdx.x, row = t / kPerRow, part = t % kPerRow;
  const float* qb = q + (static_cast<long long>(bh) * sq + row0) * D;
  [[maybe_unused]] const float* kb = k + static_cast<long long>(bh) * sk * D;
  [[maybe_unused]] const float* vb = v + static_cast<long long>(bh) * sk * D;
  for (int e = t; e < kRows * D; e += kThreads) {  // the Q tile, zeros past the last row
    const int r = e / D, c = e % D;
    Qs[r * (D + 1) + c] = r < rows_valid ? qb[r * D + c] : 0.0f;
  }
  [[maybe_unused]] float m = -INFINITY, l = 0.0f;  // this row's running max (base 2) and sum (same in its 4 threads)
  float acc[D / kPerRow] = {};                      // O[row][part + 4 c], kept normalized

  // Given: the key tiles this block visits (all of them, or up to its last row's diagonal).
  const int tiles = key_tiles(row0, rows_valid, sq, sk, causal, kKeys);
  for (int tile = 0; tile < tiles; ++tile) {
    [[maybe_unused]] const int kv0 = tile * kKeys;

    // TODO(student) 1/3 -- the K and V tiles (about 8 lines):
    //   __syncthreads() first (every thread is done with the previous tile); then, for
    //   e = t, t + kThreads, ... < kKeys * D: key j = e / D, column c = e % D,
    //     Ks[j * (D + 1) + c] = K[kv0 + j, c] and Vs[j * D + c] = V[kv0 + j, c] if kv0 + j < sk, else 0.0f
    //   (K[key, c] is kb[static_cast<long long>(key) * D + c]; zeros keep the math below check-free);
    //   then __syncthreads() again: every thread reads keys that other threads loaded.

    // Given: this thread's 8 scores, keys kv0 + part + 4 j, base-2 units; -inf where masked.
    [[maybe_unused]] float s[kScores];
    for (int j = 0; j < kScores; ++j) {
      const int key = kv0 + part + kPerRow * j;
      float dot = 0.0f;
      for (int c = 0; c < D; ++c) dot = fmaf(Qs[row * (D + 1) + c], Ks[(part + kPerRow * j) * (D + 1) + c], dot);
      const bool visible = key < sk && (!causal || key <= row0 + row + sk - sq);
      s[j] = visible ? dot * scale_log2 : -INFINITY;
    }

    // TODO(student) 2/3 -- the online softmax update of this row over the tile (about 14 lines):
    //   - the tile's max over the row: the max of s[0 .. kScores) combined over the row's 4 threads
    //     with group_max<kPerRow>(); m_new = max(m, that): the max over the WHOLE row seen so far;
    //   - shift = exp_shift(m_new); s[j] = fast_exp2(s[j] - shift); their sum over the 4 threads
    //     (group_sum<kPerRow>);
    //   - scaled_l = l * rescale_factor(m, m_new) (the old sum moved to the new max);
    //     l_new = scaled_l + the tile's sum; inv = inverse_sum(l_new) (0 when nothing is visible);
    //   - Ps[row * (kKeys + 1) + part + kPerRow * j] = s[j] * inv; the thread with part == 0 writes
    //     row_factor[row] = scaled_l * inv; then m = m_new, l = l_new;
    //   - __syncthreads(): phase 3 reads every P of the row.

    // TODO(student) 3/3 -- O = O * factor + (P / l_new) V (about 6 lines): multiply acc[c] (the
    //   columns part + kPerRow * c, c < D / kPerRow) by row_factor[row], then for every key j of the
    //   tile add Ps[row * (kKeys + 1) + j] * Vs[j * D + part + kPerRow * c] to acc[c].
  }

  // Given: the rows that exist get O (already normalized) and lse.
  if (row < rows_valid) {
    float* orow = o + (static_cast<long long>(bh) * sq + row0 + row) * D;
    for (int c = 0; c < D / kPerRow; ++c) orow[part + kPerRow * c] = acc[c];
    if (part == 0) lse[static_cast<long long>(bh) * sq + row0 + row] = row_lse(m, l);
  }
}

template <int D>
void launch(const Shape& s, const float* q, const float* k, const float* v, float* o, float* lse,
            cudaStream_t stream) {
  constexpr int kSmem = smem_floats<D>() * 4;
  static const bool ready = [] {
    CUDA_CHECK(cudaFuncSetAttribute(attention_tiled_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
    return true;
  }();
  (void)ready;
  const long long blocks = s.heads() * ((s.sq + kRows - 1) / kRows);
  attention_tiled_kernel<D><<<static_cast<unsigned>(blocks), kThreads, kSmem, stream>>>(
      q, k, v, o, lse, static_cast<int>(s.sq), static_cast<int>(s.sk), s.causal, s.scale() * kLog2e);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void exercise_attention_tiled(const Shape& s, const float* q, const float* k, const float* v, float* o, float* lse,
                              void* /*workspace*/, cudaStream_t stream) {
  check_shape(s);
  if (s.d == 64) {
    launch<64>(s, q, k, v, o, lse, stream);
  } else if (s.d == 128) {
    launch<128>(s, q, k, v, o, lse, stream);
  } else {
    throw std::invalid_argument("exercise: D must be 64 or 128 (got " + std::to_string(s.d) + ")");
  }
}

}  // namespace attention
