/// @file
/// @brief The tuning search of v3 (fp32) and v6 (bf16): other tiles for the same kernels.
///
/// `attention --tune` times every candidate on the table's shapes next to v3 and v6; the
/// configurations v3 and v6 run (V3Config64/128, V6Config64/128) were chosen from it (the chapter
/// page has the measured tables, docs/results/attention_tune.json). None of the candidates spills
/// registers (ptxas -v, sm_90a).
#include <string>
#include <type_traits>
#include <vector>

#include "v3_warp_rows.cuh"
#include "v6_causal_balance.cuh"
#include "v7_wgmma.cuh"

namespace attention {

namespace {

template <class T>
void tune_v3(const Shape& s, const float* q, const float* k, const float* v, float* o, float* lse, void* /*workspace*/,
             cudaStream_t stream) {
  launch_v3<T>(s, q, k, v, o, lse, stream);
}

template <class Cfg>
void tune_v6(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
             __nv_bfloat16* o, float* lse, void* /*workspace*/, cudaStream_t stream) {
  launch_v6<Cfg>(s, q, k, v, o, lse, stream);
}

template <class Cfg>
void tune_v7(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
             __nv_bfloat16* o, float* lse, void* /*workspace*/, cudaStream_t stream) {
  launch_v7<Cfg>(s, q, k, v, o, lse, stream);
}

template <class T>
TuneCandidate v3_candidate() {
  const std::string name = "v3_d" + std::to_string(T::kHeadDim) + "_bc" + std::to_string(T::Bc) + "_w" +
                           std::to_string(T::kWarps) + "_b" + std::to_string(T::kMinBlocks) +
                           (T::kHeavyFirst ? "_heavy" : "");
  const std::string summary = "v3 kernel, D " + std::to_string(T::kHeadDim) + ": " + std::to_string(T::Br) +
                              " rows per block (" + std::to_string(T::kWarps) + " warps), " + std::to_string(T::Bc) +
                              "-key tiles, " + std::to_string(T::kSmemFloats * 4 / 1024) + " KiB shared memory" +
                              (T::kHeavyFirst ? ", causal blocks longest first (v6's order)" : "");
  // What v3 runs is not instantiated again here but called through v3's own launcher: a kernel
  // template instantiated in two files is two kernels to the CUDA runtime, and the shared-memory
  // limit raised for one (cudaFuncSetAttribute) would not apply to the other.
  constexpr bool tuned = std::is_same<T, V3Config64>::value || std::is_same<T, V3Config128>::value;
  if constexpr (tuned) {
    return {name, summary, Kernel{Precision::fp32, launch_attention_v3_warp_rows, nullptr}, T::kHeadDim, true};
  } else {
    return {name, summary, Kernel{Precision::fp32, tune_v3<T>, nullptr}, T::kHeadDim, false};
  }
}

template <class Cfg>
TuneCandidate v6_candidate() {
  const std::string name = "v6_d" + std::to_string(Cfg::D) + "_bc" + std::to_string(Cfg::Bc) + "_m" +
                           std::to_string(Cfg::kMt) + "_w" + std::to_string(Cfg::kWarps) + "_b" +
                           std::to_string(Cfg::kMinBlocks);
  const std::string summary = "v6 kernel, D " + std::to_string(Cfg::D) + ": " + std::to_string(Cfg::Br) +
                              " rows per block (" + std::to_string(Cfg::kWarps) + " warps of " +
                              std::to_string(Cfg::kRowsPerWarp) + "), " + std::to_string(Cfg::Bc) + "-key tiles, " +
                              std::to_string(Cfg::kMinBlocks) + " blocks/SM promised";
  constexpr bool tuned = std::is_same<Cfg, V6Config64>::value || std::is_same<Cfg, V6Config128>::value;
  if constexpr (tuned) {  // through v6's own launcher (see v3_candidate)
    return {name, summary, Kernel{Precision::bf16, nullptr, launch_attention_v6_causal_balance}, Cfg::D, true, 80};
  } else {
    return {name, summary, Kernel{Precision::bf16, nullptr, tune_v6<Cfg>}, Cfg::D, false, 80};
  }
}

template <class Cfg>
TuneCandidate v7_candidate() {
  const std::string name = "v7_d" + std::to_string(Cfg::D) + "_bc" + std::to_string(Cfg::Bc) + "_b" +
                           std::to_string(Cfg::kMinBlocks);
  const std::string summary = "v7 kernel, D " + std::to_string(Cfg::D) + ": " + std::to_string(Cfg::Br) +
                              " rows per block (2 consumer warpgroups), " + std::to_string(Cfg::Bc) + "-key tiles, " +
                              std::to_string(Cfg::kMinBlocks) + " block(s) per SM, consumers at " +
                              std::to_string(Cfg::kConsumerRegs) + " registers";
  constexpr bool tuned = std::is_same<Cfg, V7Config64>::value || std::is_same<Cfg, V7Config128>::value;
  if constexpr (tuned) {  // through v7's own launcher (see v3_candidate)
    return {name, summary, Kernel{Precision::bf16, nullptr, launch_attention_v7_wgmma}, Cfg::D, true, 90, unsupported_v7};
  } else {
    return {name, summary, Kernel{Precision::bf16, nullptr, tune_v7<Cfg>}, Cfg::D, false, 90, unsupported_v7};
  }
}

}  // namespace

// [candidates]
const std::vector<TuneCandidate>& tune_candidates() {
  static const std::vector<TuneCandidate> list = {
      // fp32, v3's kernel: <D, keys per tile, warps, blocks per SM promised>
      v3_candidate<V3Tiles<64, 64, 4, 1>>(), v3_candidate<V3Tiles<64, 32, 4, 1>>(), v3_candidate<V3Tiles<64, 64, 8, 1>>(),
      v3_candidate<V3Tiles<128, 32, 4, 1>>(), v3_candidate<V3Tiles<128, 24, 4, 1>>(),
      v3_candidate<V3Tiles<128, 32, 8, 1>>(), v3_candidate<V3Tiles<128, 64, 8, 1>>(),
      // D = 128 in two blocks per SM (each <= 113 KiB of the SM's 228): one block's K/V loads and
      // barriers overlap the other's arithmetic. 4 warps, 48- or 56-key tiles (100 and 108 KiB).
      v3_candidate<V3Tiles<128, 48, 4, 2>>(), v3_candidate<V3Tiles<128, 56, 4, 2>>(),
      // Measured in the second search and removed since (the page has their numbers): 12 warps of
      // 64-key tiles (192 rows, 218 KiB, 168 registers, which spill 12 bytes on sm_75), lost 5-14%.
      // The causal blocks in v6's order, longest first (what v3 runs at D = 128: with one block
      // per SM the GPU otherwise ends on the longest blocks), with 64- to 96-key tiles.
      v3_candidate<V3Tiles<128, 64, 8, 1, true>>(),
      v3_candidate<V3Tiles<128, 72, 8, 1, true>>(), v3_candidate<V3Tiles<128, 80, 8, 1, true>>(),
      v3_candidate<V3Tiles<128, 96, 8, 1, true>>(),
      // bf16, v6's kernel: <D, keys per tile, m16 tiles per warp, warps, blocks per SM promised>.
      // Measured in the first search and removed since, because ptxas spills them (the chapter
      // page has their numbers): <128, 64, 2, 4, 2> (FlashAttention-2's tiles, 68 bytes),
      // <128, 32, 1, 8, 2> (12 bytes) and <64, 64, 1, 8, 2> (4 bytes).
      v6_candidate<FlashConfig<64, 64, 2, 4, 2>>(), v6_candidate<FlashConfig<64, 64, 1, 8, 1>>(),
      v6_candidate<FlashConfig<64, 128, 1, 8, 1>>(), v6_candidate<FlashConfig<128, 32, 2, 4, 2>>(),
      v6_candidate<FlashConfig<128, 64, 1, 8, 1>>(),
      // bf16, v7's kernel: <D, keys per tile, blocks per SM>. Two blocks per SM at D = 64 need
      // 64-key tiles: the consumers then get 104 registers (S 32, O 32 per thread).
      v7_candidate<WgmmaTiles<64, 128, 1>>(), v7_candidate<WgmmaTiles<64, 64, 2>>(),
      v7_candidate<WgmmaTiles<64, 64, 1>>(), v7_candidate<WgmmaTiles<128, 128, 1>>(),
  };
  return list;
}
// [candidates]

}  // namespace attention
