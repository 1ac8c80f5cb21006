// Known-wrong submission (grader corpus): issue 23's coverage door for attention. The solution with
// one change: the rows of the block's tile are counted as "32, or Sq % 32 in the last tile",
// which gives 0 in the last tile when Sq is a multiple of 32: its 32 rows of O and lse are never
// written (they keep the NaN poison). The old cases never had Sq % 32 == 0. Caught by any case
// with Sq a multiple of 32 (the parameter sq; needs the GPU and the ported attention checker).
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
  float* Ps = Vs + kKeys * D;                 // [kRows][kKeys + 1]: this tile's P / l_new
  float* row_factor = Ps + kRows * (kKeys + 1);  // [kRows]: what O's row is multiplied by this tile

  // Given: which rows this block owns, and this thread's row and part.
  const int q_tiles = (sq + kRows - 1) / kRows;
  const int bh = blockIdx.x / q_tiles, row0 = (blockIdx.x % q_tiles) * kRows;
  // BUG (on purpose): 0 rows in the last tile when sq % 32 == 0
  const int rows_valid = blockIdx.x % q_tiles == q_tiles - 1 ? sq % kRows : kRows;
  const int t = threadIdx.x, row = t / kPerRow, part = t % kPerRow;
  const float* qb = q + (static_cast<long long>(bh) * sq + row0) * D;
  const float* kb = k + static_cast<long long>(bh) * sk * D;
  const float* vb = v + static_cast<long long>(bh) * sk * D;
  for (int e = t; e < kRows * D; e += kThreads) {  // the Q tile, zeros past the last row
    const int r = e / D, c = e % D;
    Qs[r * (D + 1) + c] = r < rows_valid ? qb[r * D + c] : 0.0f;
  }
  float m = -INFINITY, l = 0.0f;  // this row's running max (base 2) and sum (the same in its 4 threads)
  float acc[D / kPerRow] = {};     // O[row][part + 4 c], kept normalized

  // Given: the key tiles this block visits (all of them, or up to its last row's diagonal).
  const int tiles = key_tiles(row0, rows_valid, sq, sk, causal, kKeys);
  for (int tile = 0; tile < tiles; ++tile) {
    const int kv0 = tile * kKeys;

    // 1/3: the K and V tiles, zeros past the last key, between two barriers.
    __syncthreads();  // everyone is done with the previous tile
    for (int e = t; e < kKeys * D; e += kThreads) {
      const int j = e / D, c = e % D;
      const bool inside = kv0 + j < sk;
      Ks[j * (D + 1) + c] = inside ? kb[static_cast<long long>(kv0 + j) * D + c] : 0.0f;
      Vs[j * D + c] = inside ? vb[static_cast<long long>(kv0 + j) * D + c] : 0.0f;
    }
    __syncthreads();  // the tiles are complete

    // Given: this thread's 8 scores, keys kv0 + part + 4 j, base-2 units; -inf where masked.
    float s[kScores];
    for (int j = 0; j < kScores; ++j) {
      const int key = kv0 + part + kPerRow * j;
      float dot = 0.0f;
      for (int c = 0; c < D; ++c) dot = fmaf(Qs[row * (D + 1) + c], Ks[(part + kPerRow * j) * (D + 1) + c], dot);
      const bool visible = key < sk && (!causal || key <= row0 + row + sk - sq);
      s[j] = visible ? dot * scale_log2 : -INFINITY;
    }

    // 2/3: the online softmax update of this row over the tile.
    float mx = -INFINITY;
    for (int j = 0; j < kScores; ++j) mx = fmaxf(mx, s[j]);
    const float m_new = fmaxf(m, group_max<kPerRow>(mx));  // the max over the WHOLE row seen so far
    const float shift = exp_shift(m_new);
    float sum = 0.0f;
    for (int j = 0; j < kScores; ++j) {
      s[j] = fast_exp2(s[j] - shift);
      sum += s[j];
    }
    const float scaled_l = l * rescale_factor(m, m_new);
    const float l_new = scaled_l + group_sum<kPerRow>(sum);
    const float inv = inverse_sum(l_new);
    for (int j = 0; j < kScores; ++j) Ps[row * (kKeys + 1) + part + kPerRow * j] = s[j] * inv;
    if (part == 0) row_factor[row] = scaled_l * inv;
    m = m_new;
    l = l_new;
    __syncthreads();  // P and the factors are complete

    // 3/3: O = O * factor + (P / l_new) V for this thread's columns part + 4 c.
    const float f = row_factor[row];
    for (int c = 0; c < D / kPerRow; ++c) acc[c] *= f;
    for (int j = 0; j < kKeys; ++j) {
      const float p = Ps[row * (kKeys + 1) + j];
      for (int c = 0; c < D / kPerRow; ++c) acc[c] = fmaf(p, Vs[j * D + part + kPerRow * c], acc[c]);
    }
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
