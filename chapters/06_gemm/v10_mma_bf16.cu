/// @file
/// @brief v10: BF16 tensor cores in PTX: mma.sync m16n8k16, ldmatrix from a swizzled shared-memory
/// layout, a 4-stage cp.async pipeline (sm_80+).
#include <climits>
#include <mutex>
#include <stdexcept>

#include "common/check.hpp"
#include "gemm.hpp"
#include "gemm_device.cuh"

namespace gemm {

/// v10's tile hierarchy: block 128 x 256 x 32 -> 8 warps of 64 x 64 -> 4 x 8 mma tiles of 16 x 8.
namespace v10 {
constexpr int BM = 128;                 ///< rows of C per block
constexpr int BN = 256;                 ///< columns of C per block
constexpr int BK = 32;                  ///< k-slice per stage (two mma k-steps of 16)
constexpr int kStages = 4;              ///< k-slices resident in shared memory
constexpr int WM = 64;                  ///< rows of C per warp
constexpr int WN = 64;                  ///< columns of C per warp
constexpr int kWarpsN = BN / WN;        ///< warps along N (4; 2 along M)
constexpr int kThreads = 32 * (BM / WM) * kWarpsN;  ///< 256
constexpr int kMmaM = WM / 16;          ///< m16 tiles per warp (4)
constexpr int kMmaN = WN / 8;           ///< n8 tiles per warp (8)
constexpr int kAChunksPerRow = BK / 8;  ///< 16-byte chunks (8 bf16) per row of the A tile (4)
constexpr int kBChunksPerRow = BN / 8;  ///< 16-byte chunks per row of the B tile (32)
constexpr int kStageElems = BM * BK + BK * BN;                 ///< bf16 elements per stage (A then B)
constexpr int kSmemBytes = kStages * kStageElems * 2;           ///< 96 KiB
constexpr int kAChunks = BM * kAChunksPerRow / kThreads;        ///< A chunks per thread per stage (2)
constexpr int kBChunks = BK * kBChunksPerRow / kThreads;        ///< B chunks per thread per stage (4)
constexpr int kGroupM = 8;  ///< block-tile rows per raster group (L2 reuse, see the launcher)
static_assert(kThreads == 256 && kAChunks * kThreads == BM * kAChunksPerRow &&
                  kBChunks * kThreads == BK * kBChunksPerRow,
              "v10: the tiles must split evenly into 16-byte chunks over 256 threads");
static_assert(kMmaM * 16 == WM && kMmaN * 8 == WN, "v10: warp tiles are made of 16 x 8 mma tiles");
static_assert(kGroupM >= 1, "v10: a raster group holds at least one row of block tiles");
static_assert(BK == 32 && BN % 64 == 0, "v10: the swizzles below assume 64-byte A rows and B rows of 8k chunks");
}  // namespace v10

/// Element offset of 16-byte chunk `chunk` (0..3) of row `row` in the swizzled A tile (BM, BK).
///
/// A row is 64 bytes, so two rows share one 128-byte line of shared-memory banks. ldmatrix reads
/// one chunk from each of 8 consecutive rows: unswizzled, those 8 chunks fall into only 2
/// distinct 16-byte bank groups (a 4-way conflict). XOR-ing the chunk index with bits 1-2 of
/// the row spreads them over all 8 groups; cp.async writes (4 chunks of 2 rows per 8 lanes) stay
/// conflict-free too.
// [swizzle]
__device__ __forceinline__ int a_tile_offset(int row, int chunk) {
  return row * v10::BK + ((chunk ^ ((row >> 1) & 3)) * 8);
}

/// Element offset of 16-byte chunk `chunk` (0..31) of k-row `krow` in the swizzled B tile (BK, BN).
///
/// A row is 512 bytes: without a swizzle the same chunk of 8 consecutive rows sits in the same
/// bank group (an 8-way conflict for ldmatrix.trans). XOR-ing the chunk's low 3 bits with
/// krow % 8 puts the 8 rows' chunks in 8 different groups.
__device__ __forceinline__ int b_tile_offset(int krow, int chunk) {
  return krow * v10::BN + ((chunk ^ (krow & 7)) * 8);
}
// [swizzle]

/// Packs two raw bfloat16 bit patterns into one 32-bit word (lo first, as in memory).
__device__ __forceinline__ unsigned pack_bf16x2(unsigned short lo, unsigned short hi) {
  return static_cast<unsigned>(lo) | (static_cast<unsigned>(hi) << 16);
}

/// Loads one 16-byte chunk (8 bf16) of a row with scalar, predicated loads: element j is read
/// only if j < valid (zero otherwise). The path for rows that are not 16-byte aligned.
__device__ __forceinline__ uint4 load_chunk_scalar(const unsigned short* __restrict__ p, int valid) {
  unsigned short v[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) v[j] = j < valid ? p[j] : static_cast<unsigned short>(0);  // bf16 zero is 0x0000
  return make_uint4(pack_bf16x2(v[0], v[1]), pack_bf16x2(v[2], v[3]), pack_bf16x2(v[4], v[5]),
                    pack_bf16x2(v[6], v[7]));
}

/// Issues the copies of one k-slice into a stage: 16-byte cp.async (zero-filled outside the
/// matrix) when the operand's rows are 16-byte aligned; otherwise synchronous scalar loads and a
/// 16-byte shared store. Both land at the swizzled positions.
__device__ __forceinline__ void load_stage_v10(__nv_bfloat16* __restrict__ As, __nv_bfloat16* __restrict__ Bs, int k0,
                                               int m, int n, int k, const __nv_bfloat16* __restrict__ a,
                                               const __nv_bfloat16* __restrict__ b, int row0, int col0, bool vec_a,
                                               bool vec_b) {
  using namespace v10;
  const int t = threadIdx.x;
#pragma unroll
  for (int i = 0; i < kAChunks; ++i) {
    const int e = t + i * kThreads, r = e / kAChunksPerRow, ch = e % kAChunksPerRow;  // A[row0 + r, k0 + 8ch ..]
    const int gk = k0 + ch * 8;
    const bool row_ok = row0 + r < m;
    const __nv_bfloat16* src = row_ok ? a + static_cast<std::int64_t>(row0 + r) * k + gk : a;
    __nv_bfloat16* dst = As + a_tile_offset(r, ch);
    if (vec_a) {  // k % 8 == 0: a chunk is entirely inside or entirely outside
      const bool ok = row_ok && gk < k;
      cp_async_16(dst, ok ? src : a, ok ? 16 : 0);
    } else {
      const int valid = row_ok ? k - gk : 0;
      *reinterpret_cast<uint4*>(dst) = load_chunk_scalar(reinterpret_cast<const unsigned short*>(src), valid);
    }
  }
#pragma unroll
  for (int i = 0; i < kBChunks; ++i) {
    const int e = t + i * kThreads, kr = e / kBChunksPerRow, ch = e % kBChunksPerRow;  // B[k0 + kr, col0 + 8ch ..]
    const int gc = col0 + ch * 8;
    const bool row_ok = k0 + kr < k;
    const __nv_bfloat16* src = row_ok ? b + static_cast<std::int64_t>(k0 + kr) * n + gc : b;
    __nv_bfloat16* dst = Bs + b_tile_offset(kr, ch);
    if (vec_b) {
      const bool ok = row_ok && gc < n;
      cp_async_16(dst, ok ? src : b, ok ? 16 : 0);
    } else {
      const int valid = row_ok ? n - gc : 0;
      *reinterpret_cast<uint4*>(dst) = load_chunk_scalar(reinterpret_cast<const unsigned short*>(src), valid);
    }
  }
}

/// @brief C = alpha * A B + beta * C, BF16 inputs, fp32 accumulation, on the tensor cores with
/// `mma.sync` (sm_80+; traps on older GPUs, where the runner never launches it).
///
/// Per k-slice of 32, each warp runs two k-steps of 16. Per k-step it loads its A operand with 4
/// `ldmatrix.x4` (four 16 x 16 tiles) and its B operand with 4 `ldmatrix.x4.trans` (eight 16 x 8
/// tiles), then issues 4 x 8 = 32 `mma.sync.m16n8k16`. Accumulators: 4 x 8 tiles x 4 floats =
/// 128 registers per lane.
// [kernel]
__global__ void __launch_bounds__(v10::kThreads, 1) gemm_v10_mma_bf16(int m, int n, int k, float alpha,
                                                                        const __nv_bfloat16* __restrict__ a,
                                                                        const __nv_bfloat16* __restrict__ b,
                                                                        float beta, float* __restrict__ c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using namespace v10;
  extern __shared__ __align__(128) __nv_bfloat16 smem_bf16[];  // kStages x [ As (BM, BK) | Bs (BK, BN) ], swizzled
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_m = warp / kWarpsN, warp_n = warp % kWarpsN;

  // Grouped rasterization: consecutive blocks walk down kGroupM row tiles before moving right, so
  // the blocks resident at one time share A's row panels and B's column panels in L2.
  const int tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
  const int per_group = kGroupM * tiles_n;
  const int first_m = (static_cast<int>(blockIdx.x) / per_group) * kGroupM;
  const int group_rows = min(tiles_m - first_m, kGroupM);
  const int in_group = static_cast<int>(blockIdx.x) % per_group;
  const int row0 = (first_m + in_group % group_rows) * BM;
  const int col0 = (in_group / group_rows) * BN;

  // 16-byte copies need every row to start 16-byte aligned: rows of 8k bf16 and aligned bases.
  const bool vec_a = k % 8 == 0 && aligned16(a);
  const bool vec_b = n % 8 == 0 && aligned16(b);
  const int tiles = (k + BK - 1) / BK;

  float acc[kMmaM][kMmaN][4];
#pragma unroll
  for (int i = 0; i < kMmaM; ++i)
#pragma unroll
    for (int j = 0; j < kMmaN; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < tiles) {
      __nv_bfloat16* As = smem_bf16 + s * kStageElems;
      load_stage_v10(As, As + BM * BK, s * BK, m, n, k, a, b, row0, col0, vec_a, vec_b);
    }
    cp_async_commit();
  }

  for (int tile = 0; tile < tiles; ++tile) {
    cp_async_wait<kStages - 2>();  // slice `tile` has landed (this thread's copies) ...
    __syncthreads();               // ... everyone's; and everyone is done with slice tile-1
    const int next = tile + kStages - 1;
    if (next < tiles) {
      __nv_bfloat16* As = smem_bf16 + (next % kStages) * kStageElems;
      load_stage_v10(As, As + BM * BK, next * BK, m, n, k, a, b, row0, col0, vec_a, vec_b);
    }
    cp_async_commit();

    const __nv_bfloat16* As = smem_bf16 + (tile % kStages) * kStageElems;
    const __nv_bfloat16* Bs = As + BM * BK;
// [fragments]
#pragma unroll
    for (int ks = 0; ks < BK / 16; ++ks) {
      unsigned af[kMmaM][4];  // A operand: 16 x 16 per m-tile
      unsigned bf[kMmaN][2];  // B operand: 16 x 8 per n-tile
#pragma unroll
      for (int i = 0; i < kMmaM; ++i) {
        // Lanes 0-15 address rows 0-15 of the m-tile at k-chunk 2ks, lanes 16-31 the same rows at
        // chunk 2ks + 1: the four 8x8 matrices are (rows 0-7, k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15).
        const int row = warp_m * WM + i * 16 + lane % 16;
        ldmatrix_x4(af[i], As + a_tile_offset(row, ks * 2 + lane / 16));
      }
#pragma unroll
      for (int j = 0; j < kMmaN / 2; ++j) {
        // One ldmatrix.x4.trans covers k 0-15 x n 0-15: matrices (k 0-7, n 0-7), (k 8-15, n 0-7),
        // (k 0-7, n 8-15), (k 8-15, n 8-15) = b[0], b[1] of n-tile 2j, then of n-tile 2j+1.
        const int krow = ks * 16 + lane % 8 + ((lane / 8) % 2) * 8;
        const int chunk = (warp_n * WN + j * 16) / 8 + lane / 16;
        unsigned r[4];
        ldmatrix_x4_trans(r, Bs + b_tile_offset(krow, chunk));
        bf[2 * j][0] = r[0], bf[2 * j][1] = r[1], bf[2 * j + 1][0] = r[2], bf[2 * j + 1][1] = r[3];
      }
#pragma unroll
      for (int i = 0; i < kMmaM; ++i)
#pragma unroll
        for (int j = 0; j < kMmaN; ++j) mma_bf16_16816(acc[i][j], af[i], bf[j]);
    }
// [fragments]
  }
  cp_async_wait<0>();

  // Epilogue straight from registers: lane (g, t) = (lane / 4, lane % 4) holds, for each 16 x 8
  // tile, C[g][2t .. 2t+1] and C[g + 8][2t .. 2t+1]: one float2 each when aligned and inside.
  const int g = lane / 4, tq = lane % 4;
  const bool vec_c = n % 2 == 0 && reinterpret_cast<std::uintptr_t>(c) % 8 == 0;
#pragma unroll
  for (int i = 0; i < kMmaM; ++i) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = row0 + warp_m * WM + i * 16 + g + half * 8;
      if (row >= m) continue;
      float* c_row = c + static_cast<std::int64_t>(row) * n;
#pragma unroll
      for (int j = 0; j < kMmaN; ++j) {
        const int col = col0 + warp_n * WN + j * 8 + tq * 2;
        const float v0 = acc[i][j][2 * half], v1 = acc[i][j][2 * half + 1];
        if (vec_c && col + 1 < n) {
          float2* p = reinterpret_cast<float2*>(c_row + col);
          if (beta == 0.0f) {
            *p = make_float2(alpha * v0, alpha * v1);
          } else {
            const float2 old = *p;
            *p = make_float2(fmaf(alpha, v0, beta * old.x), fmaf(alpha, v1, beta * old.y));
          }
        } else {
          if (col < n) c_row[col] = axpby(v0, alpha, beta, c_row + col);
          if (col + 1 < n) c_row[col + 1] = axpby(v1, alpha, beta, c_row + col + 1);
        }
      }
    }
  }
#else
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)b, (void)beta, (void)c;
  __trap();  // BF16 mma.sync and cp.async need sm_80+; the registry's min_cc keeps the runner from launching it
#endif
}
// [kernel]

/// @brief v10: mma.sync in PTX with ldmatrix, a swizzled layout and a 4-stage cp.async pipeline (BF16).
///
/// **Idea.** Go one level below WMMA, to the instructions it is made of, and take control of
/// everything WMMA hid: the register layout of the fragments (documented in the PTX ISA for
/// `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`), the instruction that loads them
/// (`ldmatrix`, which hands each lane exactly the registers mma wants, transposing B on the way
/// with `.trans`), and therefore the shared-memory layout: an XOR swizzle of the 16-byte chunks
/// makes every ldmatrix and every cp.async conflict-free without padding. BF16 halves the bytes
/// per input element (tensor-core rate is the same as FP16's, twice TF32's).
///
/// **Changed since v9.** PTX fragments instead of WMMA; 128 x 256 x 32 block tile, 8 warps of
/// 64 x 64 (128 accumulator registers per lane); 4 pipeline stages; grouped rasterization of
/// the block tiles for L2 reuse; epilogue directly from the accumulator registers.
///
/// **Edges.** 16-byte cp.async needs K % 8 == 0 (A) and N % 8 == 0 (B) and aligned bases; otherwise
/// that operand's chunks are loaded with predicated 2-byte loads and one 16-byte shared store
/// (synchronous, slower, correct). Out-of-range rows, columns and k are zero-filled.
///
/// **Why it stops short of Hopper's peak.** `mma.sync` is the Ampere interface. On an H100 the
/// tensor cores reach their full rate only through `wgmma` (warpgroup MMA, sm_90a): four warps
/// issue one asynchronous instruction reading A and B straight from shared memory, so the
/// operands never pass through the register file and no warp waits on ldmatrix. With mma.sync
/// every operand byte goes shared memory -> registers -> tensor core, costing issue slots and
/// register bandwidth. The copies are also issued thread by thread; on Hopper the TMA engine moves
/// whole tiles with one instruction and signals an mbarrier. Both are the next chapter's subject.
///
/// **Predicted.** 50-65% of cuBLAS BF16 at 8192^3 (cuBLAS uses wgmma + TMA on an H100).
///
/// **Measured.** See the chapter page's table (bf16).
void launch_gemm_v10_mma_bf16(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                              const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, n, k);
  const std::int64_t blocks = ((m + v10::BM - 1) / v10::BM) * ((n + v10::BN - 1) / v10::BN);
  if (blocks > INT_MAX) throw std::invalid_argument("gemm v10: too many block tiles for a 1-D grid");
  static std::once_flag once;
  std::call_once(once, [] {
    CUDA_CHECK(cudaFuncSetAttribute(gemm_v10_mma_bf16, cudaFuncAttributeMaxDynamicSharedMemorySize, v10::kSmemBytes));
  });
  gemm_v10_mma_bf16<<<static_cast<unsigned>(blocks), v10::kThreads, v10::kSmemBytes, stream>>>(
      static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, b, beta, c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemm
