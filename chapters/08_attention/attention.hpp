/// @file
/// @brief Chapter 08 (attention): declarations shared by the versions, the executable and the tests.
///
/// Every version computes scaled dot-product attention, forward:
///
///     O = softmax(Q K^T * scale [+ causal mask]) V,   lse = logsumexp of each row of Q K^T * scale
///
/// with Q [B, H, Sq, D], K and V [B, H, Sk, D], O [B, H, Sq, D] and lse [B, H, Sq], all contiguous
/// (the layout torch.nn.functional.scaled_dot_product_attention takes), scale = 1 / sqrt(D).
/// The registry, versions(), is the only list of versions: the executable, --list, the tests and
/// the JSON all iterate it.
///
/// **The causal mask, Sq != Sk.** Bottom-right aligned, as in FlashAttention-2: query i sees key
/// j if and only if j <= i + (Sk - Sq). With Sq = Sk that is the usual j <= i; with Sq < Sk
/// (decoding a few new queries against a long cache) every query sees the whole prefix; with
/// Sq > Sk the first Sq - Sk queries see no key at all.
///
/// **Rows that see no key** (only possible with the causal mask and Sq > Sk) have no softmax. We
/// define their output as O = 0 and lse = -inf (the empty sum's log), as FlashAttention does;
/// every version and the reference agree, and the tests check it exactly.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/compare.hpp"
#include "common/launch.hpp"
#include "common/report.hpp"

/// Chapter 08: scaled dot-product attention, from three kernels to a FlashAttention-2-class fused kernel.
namespace attention {

/// The problem: B x H independent heads, each Sq queries against Sk keys of dimension D.
struct Shape {
  std::int64_t b = 1;    ///< batch
  std::int64_t h = 1;    ///< heads
  std::int64_t sq = 1;   ///< queries per head (rows of Q and O)
  std::int64_t sk = 1;   ///< keys (and values) per head
  std::int64_t d = 64;   ///< head dimension
  bool causal = false;   ///< bottom-right causal mask (see the file comment)

  /// B x H: the number of independent heads.
  std::int64_t heads() const { return b * h; }
  /// 1 / sqrt(D), the default of every framework.
  float scale() const { return 1.0f / std::sqrt(static_cast<float>(d)); }
  /// Query i sees keys j <= i + causal_offset() (causal only).
  std::int64_t causal_offset() const { return sk - sq; }
};

/// How many keys query row `i` sees: Sk without the mask; with it, clamp(i + Sk - Sq + 1, 0, Sk).
/// Query i sees exactly the keys 0 .. visible_keys(i) - 1.
__host__ __device__ inline std::int64_t visible_keys(std::int64_t i, std::int64_t sq, std::int64_t sk, bool causal) {
  if (!causal) return sk;
  const std::int64_t n = i + sk - sq + 1;
  return n < 0 ? 0 : (n > sk ? sk : n);
}

/// How many keys the query rows [row0, row0 + rows) of a head must visit: all Sk without the
/// mask; with it, up to the last key the last of these rows sees (0 if none sees any).
__host__ __device__ inline long long range_keys(int row0, int rows, int sq, int sk, bool causal) {
  long long keys = sk;
  if (causal) keys = visible_keys(static_cast<long long>(row0) + rows - 1, sq, sk, true);
  return keys;
}

/// How many tiles of `bc` keys those rows must visit: ceil(range_keys() / bc). Tiles after that
/// are masked for every row: the fused versions never visit them.
__host__ __device__ inline int key_tiles(int row0, int rows, int sq, int sk, bool causal, int bc) {
  return static_cast<int>((range_keys(row0, rows, sq, sk, causal) + bc - 1) / bc);
}

/// v24's rule: of `keys` keys (range_keys()) in `tiles` tiles of `bc` (key_tiles()), the last tile
/// is taken over its first `narrow` keys alone when they hold all of its keys, from the second tile
/// on (the first turn stays whole).
__host__ __device__ inline bool narrows_last_tile(int tiles, int keys, int bc, int narrow) {
  return tiles > 1 && keys - (tiles - 1) * bc <= narrow;
}

/// The block of grid index `block` of a fused version: its head `bh` and query tile `qt`. In
/// launch order, blocks walk the query tiles of one head before the next head (`heavy_first` =
/// false), or, for the causal mask, take the query tiles with the most keys first, all heads at a
/// time (v06, v07).
__host__ __device__ inline void block_tile(int block, int q_tiles, int heads, bool heavy_first, int& bh, int& qt) {
  if (heavy_first) {
    qt = q_tiles - 1 - block / heads;
    bh = block % heads;
  } else {
    bh = block / q_tiles;
    qt = block % q_tiles;
  }
}

/// The item a block of a persistent grid (v13) takes in round `round`: round by round the `grid`
/// blocks take the next `grid` items, in block order in even rounds and in reverse in odd ones (a
/// snake: with items longest first, the block that took a round's longest takes the next round's
/// shortest). At or past the number of items, the block has none that round. With one block per
/// item (grid = items) round 0 is the only one: item `block`.
__host__ __device__ inline int snake_item(int round, int block, int grid) {
  return round * grid + (round % 2 == 0 ? block : grid - 1 - block);
}

// [mixed_items]
/// v18's items: how many of a head's ceil(Sq / br) items are *small*, br - 64
/// rows (one consumer warpgroup fewer) instead of br. As many as the rows past the end allow: each
/// small item gives back 64 of the rows past Sq that ceil(Sq / br) items of br rows would compute
/// for nothing (Sq = 1024, br = 192: 128 such rows, so 4 items of 192 and 2 of 128, none past the end).
__host__ __device__ inline int small_items(int sq, int br) {
  const int items = (sq + br - 1) / br;
  const int small = (items * br - sq) / 64;
  return small < items ? small : items;
}

/// v18's item `w` (of ceil(Sq / br) per head, as before). In each head the small items take the
/// first rows (with the mask the rows that see the fewest keys), the large ones the rest. Without
/// the mask the large items of every head come first, head by head, then the small ones, so that a
/// persistent grid's last rounds take the short ones; with it, v06's order, the items with the
/// most keys first, all heads at a time (the small ones, at the top of the sequence, come last).
/// Sets the head `bh`, the item's first row `row0` and its rows inside Sq, `rows_valid`.
__host__ __device__ inline void mixed_item(int w, int sq, int heads, int br, bool causal, int& bh, int& row0,
                                           int& rows_valid) {
  const int small = small_items(sq, br), items = (sq + br - 1) / br, large = items - small;
  int i = 0;  // the item's place in its head: 0 .. small - 1 the small ones, then the large ones
  if (causal) {
    bh = w % heads;
    i = items - 1 - w / heads;
  } else if (w < large * heads) {
    bh = w / large;
    i = small + w % large;
  } else {
    w -= large * heads;
    bh = w / small;
    i = w % small;
  }
  const int rows = i < small ? br - 64 : br;
  row0 = i < small ? i * (br - 64) : small * (br - 64) + (i - small) * br;
  rows_valid = rows < sq - row0 ? rows : sq - row0;
}
// [mixed_items]

/// "B4 H16 Sq1000 Sk4097 D64 causal" (Sq = Sk is written once: "S1024"). Inline, like
/// check_shape(): the exercise's runner links no chapter library.
inline std::string shape_text(const Shape& s) {
  std::string t = "B" + std::to_string(s.b) + " H" + std::to_string(s.h) + " ";
  t += s.sq == s.sk ? "S" + std::to_string(s.sq) : "Sq" + std::to_string(s.sq) + " Sk" + std::to_string(s.sk);
  t += " D" + std::to_string(s.d);
  if (s.causal) t += " causal";
  return t;
}

/// Throws std::invalid_argument unless the shape is valid (every dimension >= 1) and its sizes fit
/// the kernels' index types (Sq, Sk, D < 2^31; B H < 2^31).
inline void check_shape(const Shape& s) {
  if (s.b < 1 || s.h < 1 || s.sq < 1 || s.sk < 1 || s.d < 1) {
    throw std::invalid_argument("attention: every dimension must be >= 1 (got " + shape_text(s) + ")");
  }
  if (s.sq > INT_MAX || s.sk > INT_MAX || s.d > INT_MAX || s.heads() > INT_MAX) {
    throw std::invalid_argument("attention: Sq, Sk, D and B x H must each be below 2^31 (got " + shape_text(s) + ")");
  }
}

/// What a version's inputs are: which table it appears in, and its tolerance.
enum class Precision {
  fp32,  ///< fp32 Q, K, V, O; fp32 arithmetic (CUDA cores; v08: split TF32 on the tensor cores)
  bf16,  ///< bf16 Q, K, V, O; fp32 accumulation and fp32 softmax on the tensor cores
};

/// "fp32" or "bf16" (also the JSON `dtype`).
const char* precision_name(Precision p);

/// Runs attention on fp32 tensors, enqueued on `stream`. `lse` receives B*H*Sq floats. `workspace`
/// points to Version::workspace_bytes(s) bytes (null when a version needs none).
using LaunchF32 = void (*)(const Shape& s, const float* q, const float* k, const float* v, float* o, float* lse,
                           void* workspace, cudaStream_t stream);
/// The same on bf16 tensors (lse stays fp32).
using LaunchBF16 = void (*)(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                            __nv_bfloat16* o, float* lse, void* workspace, cudaStream_t stream);

/// Something that computes attention: its precision and the launcher of that precision.
struct Kernel {
  Precision precision = Precision::fp32;  ///< fp32 uses `f32`, bf16 uses `bf16`
  LaunchF32 f32 = nullptr;                ///< launcher for fp32 tensors (else null)
  LaunchBF16 bf16 = nullptr;              ///< launcher for bf16 tensors (else null)
};

/// A registered version.
struct Version {
  tut::VersionInfo info;  ///< name, one-line idea, minimum GPU, kind
  Kernel kernel;          ///< how to run it
  /// The executable skips problems of more FLOPs than this ("too slow at this size"); 0: no cap.
  /// Only a time budget for the default run: every version is correct at every size.
  double max_flops = 0.0;
  /// Non-empty: why this version does not run `s` (an unsupported head dimension, ...). Null: runs any shape.
  std::string (*unsupported)(const Shape& s) = nullptr;
  /// Device scratch memory the version needs for `s` (the score matrix of the unfused paths). Null: none.
  double (*workspace_bytes)(const Shape& s) = nullptr;
};

/// The registry: every version and library baseline of the chapter, in table order.
const std::vector<Version>& versions();

/// @name Counting
/// @{

/// The (query, key) pairs that are not masked, over all heads: B H Sq Sk without the mask; with
/// it, the sum of visible_keys(i) (S (S + 1) / 2 per head when Sq = Sk = S).
double visible_pairs(const Shape& s);

/// The canonical FLOP count: 4 D per visible pair (2 D for a score, 2 D for its share of P V),
/// i.e. 4 B H Sq Sk D without the mask and about half of that with it. Softmax work is not counted.
double attention_flops(const Shape& s);

/// Minimum traffic: Q, K, V read once, O written once (elements of `element_bytes`), lse written once.
double attention_bytes(const Shape& s, double element_bytes);

/// Bytes of the score matrix S = Q K^T (fp32) of all heads: B H Sq Sk x 4, what the unfused paths store.
double score_matrix_bytes(const Shape& s);
/// @}

/// @name Reference and tolerances (see the chapter page, "Precision and tolerances")
/// @{

/// One query row of the reference, in double: o[0..D) and its lse (O = 0 and lse = -inf for a row
/// that sees no key). `row` is the flat row index bh * Sq + i. If `mag` is not null it receives
/// each output's magnitude, the sum of its terms' sizes: mag[c] = sum_j p_j |v_jc| (p_j the
/// softmax weights; >= |o[c]|, and far larger when the terms cancel). The tolerances of O are
/// relative to it.
void reference_row(const Shape& s, const float* q, const float* k, const float* v, std::int64_t row, double* o,
                   double* lse, double* mag = nullptr);

/// The rows a sampled check looks at (flat indices bh * Sq + i, sorted, no duplicates): for the
/// first and the last head and two random ones, the first two and the last two rows, the rows
/// around every 64-row boundary up to 256, and 48 random rows.
std::vector<std::int64_t> sample_rows(const Shape& s, std::uint64_t seed);

/// Largest problem (in multiply-adds, 2 Sq Sk D per head) whose reference is computed for every row.
constexpr double kFullReferenceMacs = 1.5e9;

/// The reference of one problem: every row, or the rows of sample_rows() when it is large.
struct Reference {
  std::vector<std::int64_t> rows;  ///< flat row indices checked (all rows when `full`)
  std::vector<double> o;           ///< rows.size() x D reference outputs
  std::vector<double> mag;         ///< rows.size() x D magnitudes sum_j p_j |v_jc| (see reference_row())
  std::vector<double> lse;         ///< rows.size() logsumexps (-inf for a row that sees no key)
  bool full = true;                ///< every row
};

/// Builds the reference of `s` on the CPU (in parallel over rows): every row up to `full_macs`
/// multiply-adds, sample_rows(s, seed) above.
Reference make_reference(const Shape& s, const float* q, const float* k, const float* v, std::uint64_t seed,
                         double full_macs = kFullReferenceMacs);

/// The largest |value| of `n` floats (the input bounds the tolerances are derived from).
float max_abs(const float* x, std::size_t n);

/// The two tolerances of a check: one for O, one for lse.
struct Tolerances {
  tut::Tolerance o;    ///< for the outputs: rtol relative to each output's magnitude (Reference::mag)
  tut::Tolerance lse;  ///< for the row logsumexps: an absolute bound (atol)
  /// The magnitude every lse is compared against (its normwise error's denominator): 1 + A, where A
  /// bounds a score and the sum of its terms' sizes; lse = max score + log(sum), so its error scales
  /// with A, not with |lse| (which may be near 0 while the scores are large).
  double lse_magnitude = 1.0;
};

/// The tolerances of precision `p` for inputs bounded by |q| <= q_max, |k| <= k_max, |v| <= v_max:
/// the worst-case error factors of the computation, elementwise (see the chapter page, "Precision
/// and tolerances", and the `why` of each). They grow with A = scale * D * q_max * k_max (a score's
/// error becomes a relative error of exp(score)) and with Sk (the sums over the keys are chains).
Tolerances tolerances(Precision p, const Shape& s, double q_max, double k_max, double v_max);

/// The result of comparing one run with the reference.
struct Check {
  tut::ErrorStats o;    ///< the outputs of the checked rows
  tut::ErrorStats lse;  ///< their logsumexps
  /// True only if both passed. A row that sees no key must have O exactly 0 and lse exactly -inf.
  bool passed(const Tolerances& tol) const { return o.passed(tol.o) && lse.passed(tol.lse); }
  /// Both reports, for a failure message.
  std::string describe(const Tolerances& tol, const Shape& s) const;
};

/// Compares downloaded outputs (all B H Sq D elements of O as floats, all B H Sq of lse) with `ref`:
/// each output within atol + rtol * its magnitude, each lse within atol, the normwise errors
/// relative to the magnitudes (ErrorStats::add with a magnitude).
Check check_output(const Reference& ref, const Shape& s, const float* got_o, const float* got_lse,
                   const Tolerances& tol);

/// "head 3, row 17, d 5" for a flat index of O (bh * Sq + i) * D + d.
std::string format_index(const Shape& s, std::size_t index);
/// @}

/// @name bf16 conversion (convert.cu)
/// @{

/// Rounds x to bfloat16 and back (to nearest, ties to even): the value a bf16 kernel sees.
float round_to_bf16(float x);
/// Converts `n` floats to bfloat16 on the device (round to nearest even).
void convert_to_bf16_device(const float* in, __nv_bfloat16* out, std::int64_t n, cudaStream_t stream);
/// Converts `n` bfloat16 values to float on the device (exact).
void convert_to_float_device(const __nv_bfloat16* in, float* out, std::int64_t n, cudaStream_t stream);
/// @}

/// @name The CUDA-core ladder (fp32)
/// @{
void launch_attention_v00_naive(const Shape& s, const float* q, const float* k, const float* v, float* o, float* lse,
                               void* workspace, cudaStream_t stream);
void launch_attention_v01_online_row(const Shape& s, const float* q, const float* k, const float* v, float* o,
                                    float* lse, void* workspace, cudaStream_t stream);
void launch_attention_v02_tiled(const Shape& s, const float* q, const float* k, const float* v, float* o, float* lse,
                               void* workspace, cudaStream_t stream);
void launch_attention_v03_warp_rows(const Shape& s, const float* q, const float* k, const float* v, float* o,
                                   float* lse, void* workspace, cudaStream_t stream);
/// @}

/// @name Tensor cores (bf16, sm_80 and later)
/// @{
void launch_attention_v04_mma(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                             const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                             cudaStream_t stream);
void launch_attention_v05_cp_async(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                  const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                  cudaStream_t stream);
void launch_attention_v06_causal_balance(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                        const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                        cudaStream_t stream);
/// @}

/// @name Hopper (sm_90a: wgmma, TMA)
/// @{
void launch_attention_v07_wgmma(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                               const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                               cudaStream_t stream);
void launch_attention_v09_ping_pong(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                   const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                   cudaStream_t stream);
void launch_attention_v10_overlap(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                  const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                  cudaStream_t stream);
void launch_attention_v11_wide_tiles(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                     const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                     cudaStream_t stream);
void launch_attention_v12_three_consumers(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                          const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                          cudaStream_t stream);
void launch_attention_v13_persistent(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                     const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                     cudaStream_t stream);
void launch_attention_v14_by_shape(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                   const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                   cudaStream_t stream);
void launch_attention_v15_descriptor_steps(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                           const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                           cudaStream_t stream);
void launch_attention_v16_lazy_rescale(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                       const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                       cudaStream_t stream);
void launch_attention_v17_double_q(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                   const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                   cudaStream_t stream);
void launch_attention_v18_mixed_items(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                      const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                      cudaStream_t stream);
void launch_attention_v19_persistent_narrow(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                            const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                            cudaStream_t stream);
void launch_attention_v20_turns_across_items(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                             const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                             cudaStream_t stream);
void launch_attention_v21_sleeping_waits(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                         const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                         cudaStream_t stream);
void launch_attention_v22_paired_waits(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                       const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                       cudaStream_t stream);
void launch_attention_v23_pack_as_made(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                       const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                       cudaStream_t stream);
void launch_attention_v24_narrow_last_tile(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                           const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                           cudaStream_t stream);
void launch_attention_v25_wide_o_stores(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                        const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                        cudaStream_t stream);
void launch_attention_v26_straight_epilogue(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                            const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                            cudaStream_t stream);
/// v14's choice: true where it runs v13's tiles (192 query rows at D = 64; any D but 64), false
/// where v07's 128-row tiles at D = 64 (v13's would compute more than 1.16x as many scores).
bool v14_wide_tiles(const Shape& s);
/// @}

/// @name fp32 on the tensor cores (split TF32, sm_80 and later)
/// @{
void launch_attention_v08_split_tf32(const Shape& s, const float* q, const float* k, const float* v, float* o,
                                    float* lse, void* workspace, cudaStream_t stream);
/// @}

/// @name Library attention (baselines.cu): cuBLAS batched GEMMs with a softmax kernel between
/// @{
void launch_cublas_attention_fp32(const Shape& s, const float* q, const float* k, const float* v, float* o,
                                  float* lse, void* workspace, cudaStream_t stream);
void launch_cublas_attention_bf16(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                  const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* workspace,
                                  cudaStream_t stream);
/// Workspace of the cuBLAS paths: S in fp32, plus P in bf16 for the bf16 path.
double cublas_workspace_bytes_fp32(const Shape& s);
/// See cublas_workspace_bytes_fp32().
double cublas_workspace_bytes_bf16(const Shape& s);

/// The rate of a large cuBLAS GEMM of precision `p` on this GPU, in TFLOP/s (SGEMM 4096^3 in fp32,
/// GemmEx BF16 8192^3 with fp32 accumulation in bf16; median of 10), measured once per process:
/// the roof that the "% of peak" column of this chapter's tables relates to.
double measured_gemm_tflops(Precision p, cudaStream_t stream);
/// @}

/// @name Launch helpers
/// @{

/// The 1-D grid of the fused versions: one block per (head, tile of `rows_per_block` query rows).
/// Throws std::invalid_argument (naming `who`) above CUDA's 2^31 - 1 blocks.
inline unsigned row_tile_blocks(const Shape& s, int rows_per_block, const char* who) {
  const std::int64_t blocks = s.heads() * ((s.sq + rows_per_block - 1) / rows_per_block);
  if (blocks > 2147483647LL) throw std::invalid_argument(std::string(who) + ": more than 2^31 - 1 blocks");
  return static_cast<unsigned>(blocks);
}

/// @}

/// @name Support checks of the versions (registered with them)
/// @{

/// Non-empty unless D is 64 or 128: the fused versions v02-v06 are compiled for these two only.
std::string unsupported_unless_d64_d128(const Shape& s);
/// Non-empty if D > 256: v01 holds its row of O in registers, 8 values per lane at most.
std::string unsupported_v1(const Shape& s);
/// Non-empty unless D is 64 or 128 and this GPU and build run sm_90a code (tut::sm90::unavailable()):
/// v07 needs wgmma and TMA (v07_wgmma.cu; also its search's candidates).
std::string unsupported_v7(const Shape& s);
/// B H Sq Sk x 4 bytes: v00 materializes S (and P in its place).
double v00_workspace_bytes(const Shape& s);
/// @}

}  // namespace attention
