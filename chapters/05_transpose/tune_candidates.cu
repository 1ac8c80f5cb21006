/// @file
/// @brief The tuning search's plain candidates (the configurations tune::T0 .. T19 of tune.hpp)
/// as registry entries: wide-tile transposes (wide_tiles.cuh), and the tiled copy of each (the
/// roof of that shape and order).
#include <string>
#include <vector>

#include "tune.hpp"
#include "wide_tiles.cuh"

namespace transpose {

namespace {

template <class Cfg>
Version transpose_candidate() {
  return {{config_name<Cfg>("tr"), "transpose: " + config_summary<Cfg>(), 75, tut::Kind::ours}, Output::transposed,
          launch_transpose_wide_tiles<Cfg>, smem_unavailable<Cfg>};
}

template <class Cfg>
Version copy_candidate() {
  const bool vec = Cfg::kVecRead && Cfg::kVecWrite;
  return {{config_name<Cfg>("cp"),
           "copy B = A: " + std::to_string(Cfg::kRows) + "x" + std::to_string(Cfg::kCols) + " tiles, " +
               std::to_string(Cfg::kThreads) + " threads, " + (vec ? "float4" : "scalar") +
               ", no shared memory, " + (Cfg::kStreaming ? "streaming hints, " : "") + order_summary(Cfg::kBand),
           75, tut::Kind::ours},
          Output::copied, launch_copy_wide_tiles<Cfg>, nullptr};
}

}  // namespace

const std::vector<Version>& tune_candidates() {
  static const std::vector<Version> list = [] {
    using namespace tune;
    std::vector<Version> all = {
        transpose_candidate<T0>(), transpose_candidate<T1>(), transpose_candidate<T2>(),
        transpose_candidate<T3>(), transpose_candidate<T4>(), transpose_candidate<T5>(),
        transpose_candidate<T6>(), transpose_candidate<T7>(), transpose_candidate<T8>(),
        transpose_candidate<T9>(), transpose_candidate<T10>(), transpose_candidate<T11>(),
        transpose_candidate<T12>(), transpose_candidate<T13>(), transpose_candidate<T14>(),
        transpose_candidate<T15>(), transpose_candidate<T16>(), transpose_candidate<T17>(),
        transpose_candidate<T18>(), transpose_candidate<T19>(), transpose_candidate<T20>(),
        transpose_candidate<T21>(), transpose_candidate<T22>(), transpose_candidate<T23>(),
        transpose_candidate<T24>(),
        copy_candidate<Copy1D>(), copy_candidate<T0>(), copy_candidate<T1>(), copy_candidate<T2>(),
        copy_candidate<T3>(), copy_candidate<T4>(), copy_candidate<T5>(), copy_candidate<T6>(),
        copy_candidate<T7>(), copy_candidate<T8>(), copy_candidate<T9>(), copy_candidate<T10>(),
        copy_candidate<T13>(), copy_candidate<T20>(), copy_candidate<T21>(), copy_candidate<T23>(),
        copy_candidate<T24>(), copy_candidate<Copy1DStreaming>(),
    };
    for (const Version& v : tune_tma_candidates()) all.push_back(v);
    return all;
  }();
  return list;
}

}  // namespace transpose
