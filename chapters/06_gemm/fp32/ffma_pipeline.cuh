/// @file
/// @brief The pipelined FFMA kernel (v07's), a template over a named tile configuration: v07,
/// v08 and v09 each instantiate the configurations they run, the searches (tune/) several more.
///
/// The tile hierarchy, as in v06 but with every size a parameter:
///
///     block tile   BM x BN        (BM/WM) x (BN/WN) warps
///     warp tile    WM x WN        (WM/TM) x (WN/TN) = 32 lanes
///     thread tile  TM x TN        (TM/4) x (TN/4) quads of 4 x 4, spaced one lane-grid apart
///     k-slice      BK             kStages slices in flight (cp.async multi-stage pipeline)
///
/// Two switches, off for v07, exist for v08's search (see gemm_v07_pipelined()); a configuration
/// switches them on by field (FfmaSwitchesOff):
/// - kFragBuffers = 2: the warp-tile fragments are double-buffered in registers, and the barrier of
///   each k-slice moves in front of the slice's last k-step, so the first fragments of the next
///   slice load while the last FFMAs of this one issue.
/// - kInteriorCopies: the copies of a k-slice that lies entirely inside A and B skip the bounds
///   checks and reuse addresses computed once per thread (edge slices keep the guarded copies).
/// And two for v09 (a configuration chosen by shape), off for v07 and v08:
/// - kInteriorAnyB: interior copies also when B's rows are not 16-byte aligned (N % 4 != 0 or a
///   misaligned base), with 4-byte cp.async, consecutive threads copying consecutive columns
///   (v09's first round; v09 now pads such a B instead, and only the search's candidates that
///   read B as it is take this path).
/// - kStagedStores: when C's rows are not 16-byte aligned (no float4 stores), the epilogue goes
///   through shared memory, 64 rows at a time, so that a warp writes 32 consecutive floats of a
///   row (instead of four scalar stores per quad, each touching 16 sectors at 8 useful bytes).
///
/// And one for v26, off for v07-v09:
/// - kSerpentine: each thread's TM x TN FFMAs of a k-step walk its rows in a serpentine order,
///   row i's columns left to right and row i + 1's right to left (outer_product()).
///
/// B's row stride `ldb` is a parameter of its own (>= n): v07 and v08 pass n; v09 passes the
/// stride of its padded copy of B, whose rows are 16-byte aligned and whose columns n .. ldb-1
/// hold zeros. The kernel treats B as K x ldb (the zero columns only reach columns of C that are
/// never stored), so with a padded B the tiles of C's last column copy B as interior tiles do.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "gemm.hpp"
#include "gemm_device.cuh"

namespace gemm {

/// The five switches of the kernel, all off: what v07 runs. A configuration derives from this and
/// switches on what it needs (see FfmaConfig for what each one does).
struct FfmaSwitchesOff {
  static constexpr int frag_buffers = 1;             ///< register buffers of the warp-tile fragments (1 or 2)
  static constexpr bool interior_copies = false;     ///< unchecked copies of interior k-slices
  static constexpr bool interior_any_b = false;      ///< interior copies also for unaligned B (4-byte)
  static constexpr bool staged_stores = false;       ///< epilogue through shared memory for unaligned C
  static constexpr bool serpentine = false;          ///< (v26) FFMAs in a serpentine order over the thread tile
};

/// The compile-time parameters of the pipelined FFMA kernel, and everything derived from them.
/// `Tiles` names the configuration by field (a struct of `static constexpr` members):
///
///     block_m, block_n, block_k    the block tile and the k-slice of one pipeline stage
///     warp_m, warp_n               the warp tile
///     thread_m, thread_n           the thread tile (4 x 4 quads)
///     stages, min_blocks           pipeline depth; blocks per SM promised to the compiler
///     frag_buffers, interior_copies, interior_any_b, staged_stores, serpentine   the switches (FfmaSwitchesOff)
///
/// e.g. `struct V07Tiles : FfmaSwitchesOff { static constexpr int block_m = 128, ...; };` and
/// `FfmaConfig<V07Tiles>`. The short names below (BM, BN, ...) are what the kernel reads.
template <class Tiles>
struct FfmaConfig {
  static constexpr int BM = Tiles::block_m;   ///< rows of C per block
  static constexpr int BN = Tiles::block_n;   ///< columns of C per block
  static constexpr int BK = Tiles::block_k;   ///< k-slice per pipeline stage
  static constexpr int WM = Tiles::warp_m;    ///< rows of C per warp
  static constexpr int WN = Tiles::warp_n;    ///< columns of C per warp
  static constexpr int TM = Tiles::thread_m;  ///< rows of C per thread
  static constexpr int TN = Tiles::thread_n;  ///< columns of C per thread
  static constexpr int kStages = Tiles::stages;  ///< k-slices resident in shared memory (loads in flight: kStages - 1)

  static constexpr int kWarpsM = BM / WM;                  ///< warps along M
  static constexpr int kWarpsN = BN / WN;                  ///< warps along N
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;  ///< threads per block
  static constexpr int kLanesM = WM / TM;                  ///< lanes along M inside a warp
  static constexpr int kLanesN = WN / TN;                  ///< lanes along N inside a warp
  static constexpr int kQuadsM = TM / 4;                   ///< 4-row quads per thread tile
  static constexpr int kQuadsN = TN / 4;                   ///< 4-column quads per thread tile
  static constexpr int kAStride = BM + 4;                  ///< row length of the transposed A tile (padded)
  static constexpr int kStageFloats = BK * kAStride + BK * BN;  ///< one stage: As (BK, BM+4) then Bs (BK, BN)
  static constexpr int kSmemBytes = kStages * kStageFloats * 4; ///< dynamic shared memory per block
  static constexpr int kALoads = BM * BK / kThreads;            ///< 4-byte copies of A per thread per stage
  static constexpr int kBChunksPerRow = BN / 4;                 ///< 16-byte chunks per row of the B tile
  static constexpr int kBLoads = BK * kBChunksPerRow / kThreads;///< 16-byte copies of B per thread per stage
  /// Blocks per SM promised to the compiler (__launch_bounds__): it caps registers per thread at
  /// 65536 / (kThreads x kMinBlocks). Too many blocks: the accumulators spill (the resource test
  /// fails); too few: fewer warps to hide latency.
  static constexpr int kMinBlocks = Tiles::min_blocks;
  /// Register buffers of the warp-tile fragments: 1 (v07: load a k-step's fragments, then use
  /// them) or 2 (load step p+1's while step p's FFMAs issue, across the slice boundary too).
  static constexpr int kFragBuffers = Tiles::frag_buffers;
  /// Interior slices copied without bounds checks from addresses computed once (false in v07).
  static constexpr bool kInteriorCopies = Tiles::interior_copies;
  /// Interior copies whether or not B's rows are 16-byte aligned (false in v07 and v08).
  static constexpr bool kInteriorAnyB = Tiles::interior_any_b;
  /// Epilogue through shared memory when C's rows are not 16-byte aligned (false in v07 and v08).
  static constexpr bool kStagedStores = Tiles::staged_stores;
  /// FFMAs in a serpentine order over the thread tile (v26; false in v07-v09): see outer_product().
  static constexpr bool kSerpentine = Tiles::serpentine;
  /// Rows of C per pass of the staged epilogue (as many as the pipeline's shared memory holds).
  static constexpr int kStagedRows = (kStages * kStageFloats / BN) >= BM ? BM : 64;

  static_assert(BM % WM == 0 && BN % WN == 0, "the warp tile must divide the block tile");
  static_assert(WM % TM == 0 && WN % TN == 0, "the thread tile must divide the warp tile");
  static_assert(kLanesM * kLanesN == 32, "a warp tile must hold exactly 32 thread tiles");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4 x 4 quads (float4 accesses)");
  static_assert(BM * BK % kThreads == 0, "the A tile must split evenly over the threads");
  static_assert(BK * kBChunksPerRow % kThreads == 0, "the B tile must split evenly over the threads");
  static_assert(kStages >= 2, "a pipeline needs at least two stages");
  static_assert(kThreads <= 1024, "at most 1024 threads per block");
  static_assert(kMinBlocks >= 1 && kThreads * kMinBlocks <= 2048, "an SM holds at most 2048 threads");
  static_assert(kFragBuffers == 1 || kFragBuffers == 2, "fragments are single- or double-buffered");
  static_assert(kFragBuffers == 1 || BK % 2 == 0, "double buffering alternates buffers: BK must be even");
  static_assert(!kInteriorAnyB || kInteriorCopies, "kInteriorAnyB extends the interior copies: switch both on");
  static_assert(!kInteriorAnyB || kThreads % BN == 0, "kInteriorAnyB: each thread copies one column of the B tile");
  static_assert(!kStagedStores || (kStagedRows * BN <= kStages * kStageFloats && BM % kStagedRows == 0 &&
                                   kStagedRows % (4 * kLanesM) == 0),
                "kStagedStores: a pass of 64 (or BM) rows of C must fit in the pipeline's shared memory");
  static_assert(!kInteriorCopies || (kThreads % BK == 0 && kThreads % kBChunksPerRow == 0),
                "interior copies: each thread copies one column of A and one chunk column of B, so the "
                "thread count must be a multiple of BK and of BN / 4");
};

/// True when two tile configurations set every field alike: the same kernel, whatever their
/// names. A search's row for the configuration a version runs is checked with it at compile time
/// (tune/ffma_candidates.cu, tune/shape_candidates.cu).
template <class A, class B>
constexpr bool same_ffma_tiles() {
  return A::block_m == B::block_m && A::block_n == B::block_n && A::block_k == B::block_k && A::warp_m == B::warp_m &&
         A::warp_n == B::warp_n && A::thread_m == B::thread_m && A::thread_n == B::thread_n &&
         A::stages == B::stages && A::min_blocks == B::min_blocks && A::frag_buffers == B::frag_buffers &&
         A::interior_copies == B::interior_copies && A::interior_any_b == B::interior_any_b &&
         A::staged_stores == B::staged_stores && A::serpentine == B::serpentine;
}

/// Issues the cp.async copies of k-slice `tile` into one stage of shared memory: A transposed with
/// 4-byte copies, B (K x ldb, row stride ldb) with 16-byte copies where aligned and in range
/// (4-byte copies otherwise). Elements outside the matrices are zero-filled (src-size 0: nothing
/// is read).
template <class Cfg>
__device__ __forceinline__ void load_stage_ffma(float* __restrict__ As, float* __restrict__ Bs, int tile, int m,
                                                int ldb, int k, const float* __restrict__ a,
                                                const float* __restrict__ b, int row0, int col0, bool vec_b) {
  const int t = threadIdx.x;
  const int k0 = tile * Cfg::BK;
#pragma unroll
  for (int i = 0; i < Cfg::kALoads; ++i) {
    const int e = t + i * Cfg::kThreads, r = e / Cfg::BK, kk = e % Cfg::BK;  // (r, kk) of the (BM, BK) tile
    const bool ok = row0 + r < m && k0 + kk < k;
    const float* src = ok ? a + static_cast<std::int64_t>(row0 + r) * k + (k0 + kk) : a;
    cp_async_4(&As[kk * Cfg::kAStride + r], src, ok);  // As[kk][r] = A[row0 + r, k0 + kk]
  }
#pragma unroll
  for (int i = 0; i < Cfg::kBLoads; ++i) {
    const int e = t + i * Cfg::kThreads, kk = e / Cfg::kBChunksPerRow, cc = (e % Cfg::kBChunksPerRow) * 4;
    const bool row_ok = k0 + kk < k;
    const float* src = row_ok ? b + static_cast<std::int64_t>(k0 + kk) * ldb + (col0 + cc) : b;
    float* dst = &Bs[kk * Cfg::BN + cc];  // Bs[kk][cc .. cc+3] = B[k0 + kk, col0 + cc .. +3]
    if (vec_b) {  // ldb % 4 == 0: a chunk is entirely inside or entirely outside
      const bool ok = row_ok && col0 + cc < ldb;
      cp_async_16(dst, ok ? src : b, ok ? 16 : 0);
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const bool ok = row_ok && col0 + cc + j < ldb;
        cp_async_4(dst + j, ok ? src + j : b, ok);
      }
    }
  }
}

/// The copies of load_stage_ffma() for a k-slice that lies entirely inside A and B: no bounds
/// checks. `a_src` is this thread's first source element of slice 0, A[row0 + t / BK, t % BK];
/// copy i of a slice sits kThreads / BK rows of A further on. B (row stride `ldb`), when `vec_b`
/// (rows 16-byte aligned): `b_src` = B[t / (BN/4), col0 + 4 (t % (BN/4))], one 16-byte copy per
/// chunk, copy i kThreads / (BN/4) rows further on. Otherwise (kInteriorAnyB): `b_src` = B[t / BN, col0 +
/// t % BN], one 4-byte copy per element, copy i kThreads / BN rows further on, so that a warp's
/// copy instruction reads 32 consecutive floats (a 16-byte layout of four 4-byte copies per
/// thread would touch each 32-byte sector four times).
template <class Cfg>
__device__ __forceinline__ void load_stage_interior(float* __restrict__ As, float* __restrict__ Bs, int tile, int ldb,
                                                    int k, const float* __restrict__ a_src,
                                                    const float* __restrict__ b_src, bool vec_b) {
  constexpr int kARowStep = Cfg::kThreads / Cfg::BK, kBRowStep = Cfg::kThreads / Cfg::kBChunksPerRow;
  const int t = threadIdx.x;
  const float* a_tile = a_src + tile * Cfg::BK;                                       // A[.., k0 + t % BK]
  const float* b_tile = b_src + static_cast<std::int64_t>(tile) * Cfg::BK * ldb;     // B[k0 + .., ..]
  float* a_dst = &As[(t % Cfg::BK) * Cfg::kAStride + t / Cfg::BK];                   // As[t % BK][t / BK]
  float* b_dst = &Bs[(t / Cfg::kBChunksPerRow) * Cfg::BN + (t % Cfg::kBChunksPerRow) * 4];
#pragma unroll
  for (int i = 0; i < Cfg::kALoads; ++i)  // As[kk][r + i kARowStep] = A[row0 + r + i kARowStep, k0 + kk]
    cp_async_4(a_dst + i * kARowStep, a_tile + static_cast<std::int64_t>(i) * kARowStep * k, true);
  if (!Cfg::kInteriorAnyB || vec_b) {
#pragma unroll
    for (int i = 0; i < Cfg::kBLoads; ++i)  // Bs[kk + i kBRowStep][cc .. cc+3] = B[k0 + kk + i kBRowStep, ..]
      cp_async_16(b_dst + i * kBRowStep * Cfg::BN, b_tile + static_cast<std::int64_t>(i) * kBRowStep * ldb, 16);
  } else {
    constexpr int kRowStep = Cfg::kThreads / Cfg::BN;  // B rows between this thread's 4-byte copies
    float* col_dst = &Bs[(t / Cfg::BN) * Cfg::BN + t % Cfg::BN];  // Bs[t / BN][t % BN]
#pragma unroll
    for (int i = 0; i < Cfg::BK / kRowStep; ++i)  // Bs[kk + i kRowStep][c] = B[k0 + kk + i kRowStep, col0 + c]
      cp_async_4(col_dst + i * kRowStep * Cfg::BN, b_tile + static_cast<std::int64_t>(i) * kRowStep * ldb, true);
  }
}

/// Reads one k-step `p` of this lane's fragments from a stage: TM/4 LDS.128 of A and TN/4
/// LDS.128 of B (`As`, `Bs` point at the lane's first quad of the stage).
template <class Cfg>
__device__ __forceinline__ void load_fragments(float (&ra)[Cfg::TM], float (&rb)[Cfg::TN], const float* As,
                                               const float* Bs, int p) {
#pragma unroll
  for (int q = 0; q < Cfg::kQuadsM; ++q) {  // TM/4 LDS.128 of A
    const float4 v = *reinterpret_cast<const float4*>(As + p * Cfg::kAStride + q * Cfg::kLanesM * 4);
    ra[4 * q] = v.x, ra[4 * q + 1] = v.y, ra[4 * q + 2] = v.z, ra[4 * q + 3] = v.w;
  }
#pragma unroll
  for (int q = 0; q < Cfg::kQuadsN; ++q) {  // TN/4 LDS.128 of B
    const float4 v = *reinterpret_cast<const float4*>(Bs + p * Cfg::BN + q * Cfg::kLanesN * 4);
    rb[4 * q] = v.x, rb[4 * q + 1] = v.y, rb[4 * q + 2] = v.z, rb[4 * q + 3] = v.w;
  }
}

/// acc += ra rb^T: the TM x TN FFMA of one k-step, row by row. v26 (kSerpentine) walks the rows
/// in a serpentine: row i's columns left to right, row i + 1's right to left, so that each row's
/// first FFMA reads the same rb[j] as the row before's last, as every FFMA within a row reads the
/// same ra[i] as the one before it.
// [serpentine]
template <class Cfg>
__device__ __forceinline__ void outer_product(float (&acc)[Cfg::TM][Cfg::TN], const float (&ra)[Cfg::TM],
                                              const float (&rb)[Cfg::TN]) {
#pragma unroll
  for (int i = 0; i < Cfg::TM; ++i) {
#pragma unroll
    for (int jj = 0; jj < Cfg::TN; ++jj) {
      const int j = Cfg::kSerpentine && i % 2 == 1 ? Cfg::TN - 1 - jj : jj;
      acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
    }
  }
}
// [serpentine]

/// The epilogue of kStagedStores, for C whose rows are not 16-byte aligned: kStagedRows rows of
/// the block tile at a time, each thread writes its quads (float4) into the now idle pipeline
/// memory as a row-major (kStagedRows, BN) tile, then the block writes those rows to C with
/// consecutive threads on consecutive columns (alpha, beta and the bounds applied there).
template <class Cfg>
__device__ __forceinline__ void store_tile_staged(const float (&acc)[Cfg::TM][Cfg::TN], float* smem,
                                                  float* __restrict__ c, int m, int n, int row0, int col0,
                                                  int frag_row, int frag_col, float alpha, float beta) {
  constexpr int R = Cfg::kStagedRows;
  __syncthreads();  // every warp is done reading the last stage
#pragma unroll
  for (int pass = 0; pass < Cfg::BM / R; ++pass) {
#pragma unroll
    for (int i = 0; i < Cfg::TM; ++i) {
      const int r = frag_row + (i / 4) * Cfg::kLanesM * 4 + i % 4;  // row in the block tile
      if (r / R != pass) continue;
#pragma unroll
      for (int q = 0; q < Cfg::kQuadsN; ++q) {
        *reinterpret_cast<float4*>(smem + (r % R) * Cfg::BN + frag_col + q * Cfg::kLanesN * 4) =
            make_float4(acc[i][4 * q], acc[i][4 * q + 1], acc[i][4 * q + 2], acc[i][4 * q + 3]);
      }
    }
    __syncthreads();
    for (int e = threadIdx.x; e < R * Cfg::BN; e += Cfg::kThreads) {  // C[row0 + pass R + e / BN][col0 + e % BN]
      const int row = row0 + pass * R + e / Cfg::BN, col = col0 + e % Cfg::BN;
      if (row < m && col < n) {
        float* p = c + static_cast<std::int64_t>(row) * n + col;
        *p = axpby(smem[e], alpha, beta, p);
      }
    }
    __syncthreads();  // the next pass overwrites the staging rows
  }
}

/// @brief C = alpha * A B + beta * C with a kStages-deep cp.async pipeline (sm_80+; traps on older GPUs,
/// where the runner never launches it).
///
/// Shared memory holds kStages k-slices. While the warps compute on slice t, the copies of
/// slices t+1 .. t+kStages-1 are in flight:
///
///     prologue: issue slices 0 .. S-2                          (one commit group each)
///     for t in 0 .. tiles-1:
///         wait until slice t has landed (at most S-2 groups pending), __syncthreads()
///         issue slice t+S-1 into the stage slice t-1 used     (everyone is past it: the barrier)
///         compute slice t from its stage
///
/// v08's switches (both off in v07): with kFragBuffers = 2 the loop becomes
///
///     wait for slice 0, __syncthreads(), load step 0's fragments into buffer 0
///     for t in 0 .. tiles-1:
///         issue slice t+S-1 into the stage slice t-1 used
///         for p in 0 .. BK-1:
///             p < BK-1: load step p+1's fragments (other buffer)
///             p = BK-1: wait for slice t+1, __syncthreads(), load its step 0 (buffer 0)
///             TM x TN FFMA from buffer p % 2
///
/// so no k-step waits for its own shared loads, not even the first one after a barrier. With
/// kInteriorCopies, slices inside A and B are copied by load_stage_interior() (no bounds checks,
/// addresses computed once); edge slices and edge blocks keep load_stage_ffma().
// [kernel]
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    gemm_v07_pipelined(int m, int n, int k, float alpha, const float* __restrict__ a, const float* __restrict__ b,
                      int ldb, float beta, float* __restrict__ c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int BK = Cfg::BK, TM = Cfg::TM, TN = Cfg::TN, S = Cfg::kStages;
  extern __shared__ __align__(16) float smem[];  // S x [ As (BK, BM + 4) | Bs (BK, BN) ]
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int warp_m = warp / Cfg::kWarpsN, warp_n = warp % Cfg::kWarpsN;
  const int lane_m = lane / Cfg::kLanesN, lane_n = lane % Cfg::kLanesN;
  const int row0 = blockIdx.y * Cfg::BM, col0 = blockIdx.x * Cfg::BN;
  const bool vec_b = ldb % 4 == 0 && aligned16(b);
  const bool vec_c = n % 4 == 0 && aligned16(c);
  const int tiles = (k + BK - 1) / BK;
  // This lane's first A and B fragment positions inside a stage (quads kLanesM*4 / kLanesN*4 apart).
  const int frag_row = warp_m * Cfg::WM + lane_m * 4;
  const int frag_col = warp_n * Cfg::WN + lane_n * 4;

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  // kInteriorCopies: a slice inside A and B (block tile inside M x ldb, k0 + BK <= K, B's rows
  // aligned unless kInteriorAnyB) is copied from this thread's precomputed addresses, without
  // bounds checks.
  const bool inside_mn =
      Cfg::kInteriorCopies && (vec_b || Cfg::kInteriorAnyB) && row0 + Cfg::BM <= m && col0 + Cfg::BN <= ldb;
  const float* a_src = inside_mn ? a + static_cast<std::int64_t>(row0 + t / BK) * k + t % BK : a;
  const float* b_src =
      !inside_mn ? b
      : vec_b    ? b + static_cast<std::int64_t>(t / Cfg::kBChunksPerRow) * ldb + col0 + (t % Cfg::kBChunksPerRow) * 4
                 : b + static_cast<std::int64_t>(t / Cfg::BN) * ldb + col0 + t % Cfg::BN;  // kInteriorAnyB

// [pipeline]
  // Issues the copies of k-slice `tile` into its stage, tile % S.
  const auto issue = [&](int tile) {
    float* As = smem + (tile % S) * Cfg::kStageFloats;
    if (inside_mn && k - tile * BK >= BK) {
      load_stage_interior<Cfg>(As, As + BK * Cfg::kAStride, tile, ldb, k, a_src, b_src, vec_b);
    } else {
      load_stage_ffma<Cfg>(As, As + BK * Cfg::kAStride, tile, m, ldb, k, a, b, row0, col0, vec_b);
    }
  };
  // Prologue: slices 0 .. S-2 in flight.
#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    if (s < tiles) issue(s);
    cp_async_commit();  // committed even when empty: the group count stays one per slice
  }

  if constexpr (Cfg::kFragBuffers == 1) {
    for (int tile = 0; tile < tiles; ++tile) {
      cp_async_wait<S - 2>();  // this thread's copies of slice `tile` have landed ...
      __syncthreads();         // ... and everyone's; everyone is also done computing slice tile-1
      if (tile + S - 1 < tiles) issue(tile + S - 1);  // into the stage slice tile-1 used
      cp_async_commit();

// [pipeline]
      const float* As = smem + (tile % S) * Cfg::kStageFloats + frag_row;
      const float* Bs = smem + (tile % S) * Cfg::kStageFloats + BK * Cfg::kAStride + frag_col;
#pragma unroll
      for (int p = 0; p < BK; ++p) {
        float ra[TM], rb[TN];
        load_fragments<Cfg>(ra, rb, As, Bs, p);  // TM/4 + TN/4 LDS.128
        outer_product<Cfg>(acc, ra, rb);         // TM x TN FFMA
      }
    }
  } else {
// [double_buffer]
    // Fragments in two register buffers: step p computes from buffer p % 2 while step p+1's
    // loads fill the other. The barrier of slice t+1 comes before the last step of slice t, so
    // slice t+1's first fragments load while slice t's last TM x TN FFMAs issue.
    const auto stage = [&](int tile) { return smem + (tile % S) * Cfg::kStageFloats; };  // As, then Bs
    float ra[2][TM], rb[2][TN];
    cp_async_wait<S - 2>();
    __syncthreads();                                            // slice 0 is visible
    if (tiles > 0) load_fragments<Cfg>(ra[0], rb[0], stage(0) + frag_row, stage(0) + BK * Cfg::kAStride + frag_col, 0);
    for (int tile = 0; tile < tiles; ++tile) {
      // Everyone is past the barrier that followed their last read of slice tile-1's stage.
      if (tile + S - 1 < tiles) issue(tile + S - 1);
      cp_async_commit();
      const float* As = stage(tile) + frag_row;
      const float* Bs = stage(tile) + BK * Cfg::kAStride + frag_col;
#pragma unroll
      for (int p = 0; p < BK; ++p) {
        if (p < BK - 1) {
          load_fragments<Cfg>(ra[(p + 1) % 2], rb[(p + 1) % 2], As, Bs, p + 1);
        } else {
          cp_async_wait<S - 2>();  // slice tile+1 has landed (this thread's copies) ...
          __syncthreads();         // ... everyone's too; everyone has read all of slice tile
          if (tile + 1 < tiles) {  // step 0 of slice tile+1
            load_fragments<Cfg>(ra[0], rb[0], stage(tile + 1) + frag_row,
                                stage(tile + 1) + BK * Cfg::kAStride + frag_col, 0);
          }
        }
        outer_product<Cfg>(acc, ra[p % 2], rb[p % 2]);  // BK even: step BK-1 uses buffer 1
      }
    }
// [double_buffer]
  }
  cp_async_wait<0>();  // nothing real is pending (only empty groups), but leave no copy behind

  if constexpr (Cfg::kStagedStores) {
    if (!vec_c) {
      store_tile_staged<Cfg>(acc, smem, c, m, n, row0, col0, frag_row, frag_col, alpha, beta);
      return;
    }
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = row0 + frag_row + (i / 4) * Cfg::kLanesM * 4 + i % 4;
#pragma unroll
    for (int q = 0; q < Cfg::kQuadsN; ++q) {
      const int col = col0 + frag_col + q * Cfg::kLanesN * 4;
      const bool inside = row < m && col < n;
      float* out = inside ? c + static_cast<std::int64_t>(row) * n + col : c;
      store_float4_guarded(out, inside ? n - col : 0, vec_c,
                           make_float4(acc[i][4 * q], acc[i][4 * q + 1], acc[i][4 * q + 2], acc[i][4 * q + 3]),
                           alpha, beta);
    }
  }
#else
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)b, (void)ldb, (void)beta, (void)c;
  __trap();  // sm_80+ only (cp.async); the registry's min_cc keeps the runner from launching it
#endif
}
// [kernel]

/// Launches gemm_v07_pipelined<Cfg> on a B of row stride `ldb` >= n whose columns n .. ldb-1
/// hold zeros (opting in to more than 48 KB of shared memory when needed).
template <class Cfg>
void launch_pipelined_ldb(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                          const float* b, std::int64_t ldb, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, ldb, k);
  if (ldb < n) throw std::invalid_argument("gemm: B's row stride ldb is less than n");
  // Keyed by the kernel's address (tut::allow_dynamic_smem): every instantiation (v08's, v09's
  // and each candidate's, in their own files) needs the attribute once.
  tut::allow_dynamic_smem(gemm_v07_pipelined<Cfg>, Cfg::kSmemBytes);
  gemm_v07_pipelined<Cfg><<<tile_grid(m, n, Cfg::BM, Cfg::BN), Cfg::kThreads, Cfg::kSmemBytes, stream>>>(
      static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, b, static_cast<int>(ldb), beta, c);
  CUDA_CHECK_LAUNCH();
}

/// Launches gemm_v07_pipelined<Cfg> on B as it is (row stride n): v07, v08 and the searches.
template <class Cfg>
void launch_pipelined(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a, const float* b,
                      float beta, float* c, cudaStream_t stream) {
  launch_pipelined_ldb<Cfg>(m, n, k, alpha, a, b, n, beta, c, stream);
}

}  // namespace gemm
