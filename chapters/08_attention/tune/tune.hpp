/// @file
/// @brief The tuning searches of chapter 08 (`attention_tune`): other tiles for the kernels of v03
/// (fp32, tune/warp_rows_candidates.cu), v06 (bf16, tune/flash_candidates.cu), v07 and v09 (bf16 on
/// Hopper, tune/wgmma_candidates.cu).
///
/// Each candidate is a named instantiation of one of those kernels, correct for every shape its
/// version runs (the GPU tests run all of them over the sweep), so attention_tune checks and times
/// them the way the chapter executable does its versions, next to the version that runs the
/// search's winner and the library. The winners are named in the versions' own files (V03Tiles64,
/// V03Tiles128 in v03_warp_rows.cu; V06Tiles64, V06Tiles128 in v06_causal_balance.cu; V07Tiles64,
/// V07Tiles128 in v07_wgmma.cu); the candidate with the same fields is timed through that version's
/// launcher, so its row and the version's run one kernel.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attention.hpp"

namespace attention {

/// The tuning searches (`attention_tune`): their candidates, one list per kernel.
namespace tune {

/// One configuration of a search: a named instantiation of v03's kernel (fp32), v06's or v07's (bf16).
struct Candidate {
  std::string name;     ///< e.g. "v06_d128_bc32_m2_w4_b2" (the fields, as the searches' tables name them)
  std::string summary;  ///< the fields in words
  Kernel kernel;        ///< how to run it
  std::int64_t d;       ///< the head dimension it is compiled for
  /// The version that runs this configuration ("v03_warp_rows", ...), or "" for the others.
  std::string runs_in;
  int min_cc = 75;      ///< the GPU it needs (75 fp32, 80 bf16 mma.sync, 90 wgmma)
  /// Non-empty: why it cannot run `s` here (v07's: not a Hopper GPU or no sm_90a code). Null: it can.
  std::string (*unsupported)(const Shape& s) = nullptr;
};

/// v03's search (fp32): tiles of the warp-rows kernel (tune/warp_rows_candidates.cu).
const std::vector<Candidate>& warp_rows_candidates();
/// v06's search (bf16): tiles of the causal-balance kernel (tune/flash_candidates.cu).
const std::vector<Candidate>& flash_candidates();
/// v07's search (bf16, sm_90a): tiles of the warp-specialized kernel (tune/wgmma_candidates.cu).
const std::vector<Candidate>& wgmma_candidates();
/// v09's search (bf16, sm_90a): the warp-specialized kernel with the consumers taking turns, at
/// D = 64 and 128, beside what v09 runs (v07's tiles without turns at D = 64;
/// tune/wgmma_candidates.cu).
const std::vector<Candidate>& ping_pong_candidates();
/// v10's search (bf16, sm_90a): the turns with each consumer's softmax beside its own P V, at
/// D = 64 and 128, beside what v10 runs (v09's choices: v07's tiles at D = 64;
/// tune/wgmma_candidates.cu).
const std::vector<Candidate>& overlap_candidates();
/// v12's search (bf16, sm_90a): three consumer warpgroups (192 query rows per block), on the turns
/// and the overlap or not, beside what v12 runs (tune/wgmma_candidates.cu).
const std::vector<Candidate>& three_consumers_candidates();
/// v13's search (bf16, sm_90a): the persistent grid on v12's tiles and others, beside what v13
/// runs (tune/wgmma_candidates.cu).
const std::vector<Candidate>& persistent_candidates();

/// One search: the version that runs its winner, its precision, its candidates.
struct Search {
  std::string version;                     ///< the version whose tiles are searched, e.g. "v06_causal_balance"
  Precision precision;                     ///< the table it belongs to
  const std::vector<Candidate>* candidates;  ///< its candidates, every D
};

/// Every search of the chapter, in table order: v03's (fp32), v06's, v07's, v09's, v10's, v12's and
/// v13's (bf16).
std::vector<Search> searches();

/// Every candidate of every search, in table order.
std::vector<Candidate> all_candidates();

}  // namespace tune

}  // namespace attention
