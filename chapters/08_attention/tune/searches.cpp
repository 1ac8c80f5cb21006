// The list of the chapter's searches (tune/tune.hpp).
#include "tune/tune.hpp"

namespace attention {

namespace tune {

std::vector<Search> searches() {
  return {{"v03_warp_rows", Precision::fp32, &warp_rows_candidates()},
          {"v06_causal_balance", Precision::bf16, &flash_candidates()},
          {"v07_wgmma", Precision::bf16, &wgmma_candidates()},
          {"v09_ping_pong", Precision::bf16, &ping_pong_candidates()},
          {"v10_overlap", Precision::bf16, &overlap_candidates()},
          {"v12_three_consumers", Precision::bf16, &three_consumers_candidates()},
          {"v13_persistent", Precision::bf16, &persistent_candidates()}};
}

std::vector<Candidate> all_candidates() {
  std::vector<Candidate> all;
  for (const Search& search : searches()) all.insert(all.end(), search.candidates->begin(), search.candidates->end());
  return all;
}

}  // namespace tune

}  // namespace attention
