// GPU tests of chapter 08: every registered version (and cuBLAS) against the CPU reference over
// the shape sweep, with large-magnitude inputs, rows whose largest scores come last (or rise
// slowly), rows that see no key, unsupported head dimensions, fresh seeds, and beyond 2^31
// elements ([large]).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/device_info.hpp"
#include "test_support.hpp"
#include "tune/tune.hpp"

using namespace attention;
using attention::testing::Ranges;
using attention::testing::require_correct;

namespace {

/// True if this GPU can run `v` on `s`; otherwise says why in the test log (and checks that a
/// version that declines a shape says why).
bool runnable(const Version& v, const Shape& s) {
  if (tut::current_cc() < v.info.min_cc) {
    WARN(v.info.name << " skipped: needs sm_" << v.info.min_cc << ", this GPU is sm_" << tut::current_cc());
    return false;
  }
  if (v.unsupported != nullptr && !v.unsupported(s).empty()) return false;
  return true;
}

double workspace_of(const Version& v, const Shape& s) { return v.workspace_bytes ? v.workspace_bytes(s) : 0.0; }

/// Every version on `shapes` with rising_scores() inputs (scores that grow by `rise` along each
/// row), checked against the reference; `what` names the inputs in the failure message.
void require_correct_on_rising_scores(const std::vector<Shape>& shapes, std::uint64_t seed, float rise,
                                      const std::string& what) {
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      for (const Shape& s : shapes) {
        if (!runnable(v, s)) continue;
        const auto in = attention::testing::rising_scores(s, v.kernel.precision, seed, rise);
        attention::testing::require_correct_on(v.kernel, workspace_of(v, s), v.info.name, s, in,
                                               what + ", seed " + std::to_string(seed));
      }
    }
  }
}

/// The registered version named `name` (REQUIREs that there is one).
const Version& named_version(const std::string& name) {
  const Version* found = nullptr;
  for (const auto& v : versions()) {
    if (v.info.name == name) found = &v;
  }
  REQUIRE(found != nullptr);
  return *found;
}

/// Q, K and V of shape `s` in bf16 on the device (make_inputs() of `seed`).
struct DeviceQkv {
  tut::DeviceBuffer<__nv_bfloat16> q, k, v;
};

DeviceQkv device_qkv(const Shape& s, std::uint64_t seed) {
  const attention::testing::Inputs in = attention::testing::make_inputs(s, Precision::bf16, seed);
  using attention::testing::to_bf16;
  return {tut::DeviceBuffer<__nv_bfloat16>(to_bf16(in.q)), tut::DeviceBuffer<__nv_bfloat16>(to_bf16(in.k)),
          tut::DeviceBuffer<__nv_bfloat16>(to_bf16(in.v))};
}

/// What a bf16 version wrote: O, `offset` elements into a buffer 8 elements longer than O, and lse.
struct Written {
  std::vector<__nv_bfloat16> buffer;
  std::vector<float> lse;
  std::size_t offset = 0;
  const __nv_bfloat16* o() const { return buffer.data() + offset; }
};

/// Runs `ver` on `in` with O `offset` elements into its buffer (offset <= 8), everything poisoned
/// first (0xFF: NaN in bf16 and in fp32, so that an element left unwritten shows and never
/// matches), and REQUIREs that nothing was written around O (the buffer's other elements keep the
/// poison).
Written run_poisoned(const Version& ver, const Shape& s, const DeviceQkv& in, std::size_t offset) {
  const std::size_t rows = static_cast<std::size_t>(s.heads() * s.sq), nq = rows * static_cast<std::size_t>(s.d);
  tut::DeviceBuffer<__nv_bfloat16> o(nq + 8);
  tut::DeviceBuffer<float> lse(rows);
  CUDA_CHECK(cudaMemset(o.data(), 0xFF, o.bytes()));
  CUDA_CHECK(cudaMemset(lse.data(), 0xFF, lse.bytes()));
  ver.kernel.bf16(s, in.q.data(), in.k.data(), in.v.data(), o.data() + offset, lse.data(), nullptr, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  Written w{o.to_host(), lse.to_host(), offset};
  const auto untouched = [&](std::size_t i) { return reinterpret_cast<const std::uint16_t&>(w.buffer[i]) == 0xFFFFu; };
  for (std::size_t i = 0; i < offset; ++i) REQUIRE(untouched(i));
  for (std::size_t i = offset + nq; i < w.buffer.size(); ++i) REQUIRE(untouched(i));
  return w;
}

/// The version named `name` on each of `shapes` against the reference (seeds seed, seed + 1, ...),
/// after `holds(s)` has checked what the test relies on for the shape (the tiles v14's rule takes
/// there, how many items the blocks get).
template <class Holds>
void require_named_version_correct(const std::string& name, const std::vector<Shape>& shapes, std::uint64_t seed,
                                   Holds holds) {
  const Version* found = &named_version(name);
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const Shape& s = shapes[i];
    INFO(shape_text(s));
    holds(s);
    if (runnable(*found, s)) require_correct(found->kernel, workspace_of(*found, s), name, s, seed + i);
  }
}

}  // namespace

TEST_CASE("every version matches the CPU reference over the shape sweep", "[attention][sweep]") {
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      for (const Shape& s : attention::testing::sweep_shapes()) {
        if (runnable(v, s)) require_correct(v.kernel, workspace_of(v, s), v.info.name, s, tut::testing::seed());
      }
    }
  }
}

TEST_CASE("head dims: v00, v01 and cuBLAS run any D; the fused versions say why they skip others",
          "[attention][head_dim]") {
  for (std::int64_t d : {1, 17, 80, 160, 256}) {
    const Shape s{1, 2, 37, 71, d, true};
    for (const auto& v : versions()) {
      INFO(v.info.name << ", D = " << d);
      std::smatch m;  // the fused versions: the ladder from v02 on
      const bool fused = std::regex_match(v.info.name, m, std::regex("v([0-9]+)_[a-z0-9_]+")) && std::stoi(m[1]) >= 2;
      if (fused) {
        REQUIRE(v.unsupported != nullptr);
        REQUIRE_FALSE(v.unsupported(s).empty());  // reported as skipped with a reason
        continue;
      }
      if (runnable(v, s)) require_correct(v.kernel, workspace_of(v, s), v.info.name, s, tut::testing::seed() + 1);
    }
  }
}

TEST_CASE("the fused launchers refuse what they do not support instead of computing garbage", "[attention][refuse]") {
  const Shape bad_d{1, 1, 8, 8, 80, false};
  tut::DeviceBuffer<float> f(8 * 80), lse(8);
  tut::DeviceBuffer<__nv_bfloat16> h(8 * 80 + 8);
  REQUIRE_THROWS_AS(launch_attention_v02_tiled(bad_d, f.data(), f.data(), f.data(), f.data(), lse.data(), nullptr, nullptr),
                    std::invalid_argument);
  REQUIRE_THROWS_AS(launch_attention_v03_warp_rows(bad_d, f.data(), f.data(), f.data(), f.data(), lse.data(), nullptr,
                                                  nullptr),
                    std::invalid_argument);
  REQUIRE_THROWS_AS(launch_attention_v00_naive({1, 1, 8, 8, 64, false}, f.data(), f.data(), f.data(), f.data(),
                                              lse.data(), nullptr, nullptr),
                    std::invalid_argument);  // v00 without its workspace
  if (tut::current_cc() >= 80) {
    const Shape s{1, 1, 8, 8, 64, false};
    REQUIRE_THROWS_AS(launch_attention_v05_cp_async(s, h.data() + 1, h.data(), h.data(), h.data(), lse.data(), nullptr,
                                                   nullptr),
                      std::invalid_argument);  // misaligned Q: 16-byte copies impossible
  }
  // v07, v09-v25 refuse D = 80 everywhere, and off Hopper (or without sm_90a code) any shape.
  for (const auto launch : {launch_attention_v07_wgmma, launch_attention_v09_ping_pong, launch_attention_v10_overlap,
                            launch_attention_v11_wide_tiles, launch_attention_v12_three_consumers,
                            launch_attention_v13_persistent, launch_attention_v14_by_shape,
                            launch_attention_v15_descriptor_steps, launch_attention_v16_lazy_rescale,
                            launch_attention_v17_double_q, launch_attention_v18_mixed_items,
                            launch_attention_v19_persistent_narrow, launch_attention_v20_turns_across_items,
                            launch_attention_v21_sleeping_waits, launch_attention_v22_paired_waits,
                            launch_attention_v23_pack_as_made, launch_attention_v24_narrow_last_tile,
                            launch_attention_v25_wide_o_stores, launch_attention_v26_straight_epilogue}) {
    REQUIRE_THROWS_AS(launch(bad_d, h.data(), h.data(), h.data(), h.data(), lse.data(), nullptr, nullptr),
                      std::invalid_argument);
    const Shape s{1, 1, 8, 8, 64, false};
    if (unsupported_v7(s).empty()) {
      REQUIRE_THROWS_AS(launch(s, h.data(), h.data() + 1, h.data(), h.data(), lse.data(), nullptr, nullptr),
                        std::invalid_argument);  // misaligned K: TMA needs 16-byte aligned tensors
    } else {
      WARN("v07_wgmma, v09-v25: " << unsupported_v7(s));
      REQUIRE_THROWS_AS(launch(s, h.data(), h.data(), h.data(), h.data(), lse.data(), nullptr, nullptr),
                        std::invalid_argument);
    }
  }
  REQUIRE_THROWS_AS(launch_attention_v01_online_row({0, 1, 8, 8, 64, false}, f.data(), f.data(), f.data(), f.data(),
                                                   lse.data(), nullptr, nullptr),
                    std::invalid_argument);  // B = 0
}

TEST_CASE("large-magnitude inputs (scores of several hundred) give no NaN or Inf", "[attention][magnitude]") {
  // |Q|, |K| < 24: scores have a standard deviation of ~190; exp() of them overflows fp32 without
  // the max subtraction, and a wrong max (from part of a row) overflows too.
  const Ranges big{24.0f, 1.0f};
  std::vector<Shape> shapes = {{1, 2, 300, 700, 64, false}, {1, 2, 300, 700, 64, true}, {1, 1, 129, 1000, 128, true},
                               {2, 1, 70, 33, 128, true}};
  if (tut::testing::sanitizing()) shapes = {{1, 1, 65, 100, 64, true}};
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      for (const Shape& s : shapes) {
        if (runnable(v, s)) require_correct(v.kernel, workspace_of(v, s), v.info.name, s, tut::testing::seed() + 2, big);
      }
    }
  }
}

TEST_CASE("rows whose scores rise slowly: a lazy running max lets P grow to 2^8 between its moves",
          "[attention][magnitude]") {
  // A rise of 70 (about 100 in base 2) over 4096 keys: 1.6 per 64 keys, 3.1 per 128, so v16's max
  // (lazy_max()) stays put for several tiles while the tiles' P values climb towards 2^8, then
  // jumps; the other versions move it at every tile. Both must give the same O and lse.
  std::vector<Shape> shapes = {{1, 2, 64, 4096, 64, false}, {1, 1, 64, 4096, 128, true}};
  if (tut::testing::sanitizing()) shapes = {{1, 1, 16, 1024, 64, false}};
  require_correct_on_rising_scores(shapes, tut::testing::seed() + 5, 70.0f, "slowly rising scores");
}

TEST_CASE("rows whose largest scores come last: the running max must grow", "[attention][magnitude]") {
  std::vector<Shape> shapes = {{1, 2, 100, 1000, 64, false}, {1, 1, 130, 600, 128, true}};
  if (tut::testing::sanitizing()) shapes = {{1, 1, 33, 200, 64, false}};
  require_correct_on_rising_scores(shapes, tut::testing::seed() + 3, 240.0f, "rising scores");
}

TEST_CASE("rows that see no key give O = 0 and lse = -inf exactly", "[attention][masked_rows]") {
  // Causal with Sq > Sk: query i sees keys j <= i + Sk - Sq, so rows 0 .. Sq - Sk - 1 see none.
  // At D = 128 (v09's and v10's turns) Sq = 300: the first two blocks of 128 rows see no key at
  // all (no tile to take turns on), the third block's last three rows see some; at D = 64 Sq = 450
  // does the same to v12's blocks of 192 rows. With 96 heads (288 such items) v13's persistent
  // blocks take several items each, some with no key tile between others.
  // The section names carry Sq as well as D: two sections of one name are one section to Catch2,
  // which would run the first shape of that name and silently skip the other.
  for (const Shape& s : {Shape{1, 2, 70, 3, 64, true}, Shape{1, 96, 300, 3, 128, true}, Shape{1, 96, 450, 3, 64, true}}) {
    for (const auto& v : versions()) {
      DYNAMIC_SECTION(v.info.name << ", D = " << s.d << ", Sq = " << s.sq) {
        if (runnable(v, s)) {
          const std::uint64_t seed = tut::testing::seed() + 4;
          const auto& in = attention::testing::inputs_for(s, v.kernel.precision, seed, Ranges{});  // made once per shape
          const auto out = attention::testing::run_once(v.kernel, workspace_of(v, s), s, in);
          for (std::int64_t bh = 0; bh < s.heads(); ++bh) {
            for (std::int64_t i = 0; i < s.sq - s.sk; ++i) {
              const std::size_t row = static_cast<std::size_t>(bh * s.sq + i);
              INFO("head " << bh << ", row " << i);
              REQUIRE(std::isinf(out.lse[row]));
              REQUIRE(out.lse[row] < 0.0f);
              std::int64_t nonzero = 0;  // counted, not one REQUIRE per element: 2.7 million of them
              for (std::int64_t c = 0; c < s.d; ++c) nonzero += out.o[row * static_cast<std::size_t>(s.d) + c] != 0.0f;
              REQUIRE(nonzero == 0);
            }
            REQUIRE(std::isfinite(out.lse[static_cast<std::size_t>(bh * s.sq + s.sq - s.sk)]));  // the first that sees a key
          }
          attention::testing::require_correct_on(v.kernel, workspace_of(v, s), v.info.name, s, in,
                                                 attention::testing::input_name(seed, Ranges{}));
        }
      }
    }
  }
}

TEST_CASE("items of two sizes on a persistent grid: long and short items, two short ones in a row", "[attention][v18]") {
  // 23 heads of 1024 rows: v18 splits each into 4 items of 192 rows and 2 of 128 (138 items, the
  // short ones numbered last), so on 132 SMs some blocks take a long item, some a short one, and
  // the last 6 a short item after a short item; a short item's third consumer computes nothing.
  // The bf16 versions only (one reference for all of them): the earlier ones on the same shape.
  const Shape s{1, 23, 1024, 128, 64, false};
  REQUIRE(v14_wide_tiles(s));  // v13-v18 run their 192-row tiles here
  if (tut::testing::sanitizing()) {  // no smaller shape gives more items than SMs with these tiles
    WARN("not under the sanitizers: 23 x 1024 x 128 x 64 is past their size limit");
    return;
  }
  for (const auto& v : versions()) {
    if (v.kernel.precision != Precision::bf16) continue;
    DYNAMIC_SECTION(v.info.name) {
      if (runnable(v, s)) require_correct(v.kernel, workspace_of(v, s), v.info.name, s, tut::testing::seed() + 6);
    }
  }
}

TEST_CASE("items of two sizes with the mask: the short ones at the top of each head, scheduled last", "[attention][v18]") {
  // With the mask v18's small items take each head's first rows (the fewest keys): S2048 splits
  // into 1 item of 128 rows and 10 of 192, S2500 into 2 of 128 and 11 of 192, and with Sk > Sq
  // every row sees Sk - Sq keys more. v18 only: the other versions' items are unchanged.
  std::vector<Shape> shapes = {{1, 3, 2048, 2048, 64, true}, {1, 2, 2500, 2500, 64, true}, {1, 2, 2000, 3000, 64, true}};
  if (tut::testing::sanitizing()) shapes = {{1, 1, 257, 457, 64, true}};  // 128 + 192 rows (the first 128 see 201-328 keys)
  require_named_version_correct("v18_mixed_items", shapes, tut::testing::seed() + 40, [](const Shape& s) {
    REQUIRE(v14_wide_tiles(s));                              // v18 runs its 192-row tiles here ...
    REQUIRE(small_items(static_cast<int>(s.sq), 192) >= 1);  // ... and at least one short item per head
  });
}

TEST_CASE("v07's tiles on a persistent grid: blocks that take several items, with and without the mask", "[attention][v19]") {
  // v19 runs v07's 128-row tiles (where v14's rule takes them) two blocks per SM for the whole
  // run: with more items than 2 x 132 blocks, blocks take a second (and third) item, its Q and K/V
  // loaded while the first one ends; with the mask the items are handed out longest first, in a
  // snake. 300 heads of 128 rows: one item each, of 4 key tiles of 64 with the mask (Sk > Sq: every
  // row sees Sk - Sq keys more, the first 73) and of 2 without; S1024 with the mask: 512 items of 2
  // to 16 key tiles.
  std::vector<Shape> shapes = {{1, 300, 128, 200, 64, true}, {1, 300, 128, 128, 64, false}, {4, 16, 1024, 1024, 64, true}};
  if (tut::testing::sanitizing()) shapes.pop_back();  // the small shapes take several items per block already
  require_named_version_correct("v19_persistent_narrow", shapes, tut::testing::seed() + 60, [](const Shape& s) {
    REQUIRE_FALSE(v14_wide_tiles(s));                      // v19 runs its 128-row tiles here ...
    REQUIRE(s.heads() * ((s.sq + 127) / 128) > 2 * 132);  // ... more items than blocks on a 132-SM GPU
  });
}

TEST_CASE("turns across items: many items per persistent block, short ones and ones without keys among them", "[attention][v20]") {
  // v20's last consumer passes the next item's first turn at the end of this one. 140 heads of
  // 1024 rows over 256 keys at D = 64: 840 items of 192 and 128 rows (a short item's third consumer
  // idle), six or seven per block; with the mask and Sq > Sk the first Sq - Sk rows see no key, so
  // the items that hold only those have no turns at all, between items that have: 150 heads of
  // 1500 rows over 1000 keys at D = 64, 140 of 300 rows over 100 keys at D = 128 (the items of
  // rows 0-127 and 128-255 see none or some keys, 256-299 all of them).
  std::vector<Shape> shapes = {{1, 140, 1024, 256, 64, false}, {1, 150, 1500, 1000, 64, true}, {1, 140, 300, 100, 128, true}};
  if (tut::testing::sanitizing()) shapes = {{1, 140, 300, 100, 128, true}};
  // v21 runs v20's kernels with sleeping waits, v22 with each turn's waits paired, v23 with each
  // turn's P packed as it is made, v24 with an item's last tile narrowed, v25 with O stored in
  // 16-byte pieces: the same turns, and their waits meet them here too.
  for (const char* name : {"v20_turns_across_items", "v21_sleeping_waits", "v22_paired_waits", "v23_pack_as_made",
                           "v24_narrow_last_tile", "v25_wide_o_stores", "v26_straight_epilogue"}) {
    DYNAMIC_SECTION(name) {
      require_named_version_correct(name, shapes, tut::testing::seed() + 70, [](const Shape& s) {
        REQUIRE(v14_wide_tiles(s));  // the tiles that take turns (192 rows at D = 64, 128 at D = 128) ...
        REQUIRE(s.heads() * ((s.sq + 191) / 192) > 2 * 132);  // ... and more than two items per block on 132 SMs
      });
    }
  }
}

TEST_CASE("an item's last key tile narrowed: keys that end in its first 64 of 176, or past them", "[attention][v24]") {
  // v24 multiplies an item's last 176-key tile over its first 64 keys when the item's keys end
  // there (from its second tile on). At D = 128 without the mask: Sk 1, 64 and 65 keys into the
  // second tile (narrowed, narrowed, whole), 128 and 129 (whole), two tiles and 64 keys (narrowed);
  // with the mask every item's keys end elsewhere (Sq < Sk, Sq > Sk: rows that see no key, items
  // without tiles among them).
  const std::vector<Shape> shapes = {{1, 4, 200, 177, 128, false}, {1, 4, 200, 240, 128, false},
                                     {1, 4, 200, 241, 128, false}, {1, 4, 200, 304, 128, false},
                                     {1, 4, 200, 305, 128, false}, {1, 4, 130, 416, 128, false},
                                     {1, 4, 300, 416, 128, true},  {1, 4, 500, 400, 128, true},
                                     {2, 3, 1000, 1000, 128, true}};
  int narrowed = 0, whole = 0;  // shapes with an item whose last tile is narrowed; with none
  require_named_version_correct("v24_narrow_last_tile", shapes, tut::testing::seed() + 80, [&](const Shape& s) {
    REQUIRE(s.d == 128);  // the 176-key tiles ...
    REQUIRE(s.sk > 176);  // ... and items of two tiles or more
    bool any = false;     // the kernel's rule (narrows_last_tile()), over the shape's 128-row items
    const int sq = static_cast<int>(s.sq), sk = static_cast<int>(s.sk);
    for (int row0 = 0; row0 < sq; row0 += 128) {
      const int rows = std::min(128, sq - row0);
      any = any || narrows_last_tile(key_tiles(row0, rows, sq, sk, s.causal, 176),
                                     static_cast<int>(range_keys(row0, rows, sq, sk, s.causal)), 176, 64);
    }
    (any ? narrowed : whole) += 1;
  });
  REQUIRE(narrowed >= 4);  // the shapes take both paths
  REQUIRE(whole >= 3);
}

TEST_CASE("O in 16-byte pieces: v25's O and lse are v24's bit for bit, with O aligned or not", "[attention][v25]") {
  // v25 moves each thread's bf16 pairs of O within its quad (quad_transpose()) and stores 16 bytes
  // at a time; the values are v24's, so the bits must be too: at D = 64 (three consumers, 192-row
  // items; v19's 128-row tiles at S1024 with the mask) and D = 128, rows past Sq among them. With O
  // 4 bytes off a 16-byte boundary (v24's stores of one bf16 pair need 4) v25 runs v24's kernel.
  const Version* v24 = &named_version("v24_narrow_last_tile");
  const Version* v25 = &named_version("v25_wide_o_stores");
  const std::vector<Shape> shapes = {{1, 140, 300, 400, 64, false}, {2, 4, 1024, 1024, 64, true},
                                     {1, 140, 200, 300, 128, false}, {1, 3, 777, 500, 128, true}};
  for (const Shape& s : shapes) {
    INFO(shape_text(s));
    if (!runnable(*v25, s)) {
      WARN("v25_wide_o_stores: " << v25->unsupported(s));
      continue;
    }
    const DeviceQkv in = device_qkv(s, tut::testing::seed() + 95);
    const std::size_t nq = static_cast<std::size_t>(s.heads() * s.sq * s.d);
    const Written want = run_poisoned(*v24, s, in, 0);
    REQUIRE(std::all_of(want.o(), want.o() + nq, [](__nv_bfloat16 x) { return std::isfinite(__bfloat162float(x)); }));
    REQUIRE(std::none_of(want.lse.begin(), want.lse.end(), [](float x) { return std::isnan(x); }));
    for (const std::size_t offset : {std::size_t{0}, std::size_t{2}}) {  // elements: O at 16-byte alignment, then 4 bytes off
      INFO("O offset by " << offset << " elements");
      const Written got = run_poisoned(*v25, s, in, offset);  // (nothing written around O)
      REQUIRE(std::memcmp(got.o(), want.o(), nq * sizeof(__nv_bfloat16)) == 0);
      REQUIRE(tut::testing::compare_bits(got.lse, want.lse) == "");
    }
  }
}

TEST_CASE("the epilogue in a straight line: v26's O is v25's but for the reciprocal's last bit, its lse within a few ulp",
          "[attention][v26]") {
  // v26 takes 1 / l by rcp.approx and lse by lg2.approx where v25 takes an IEEE reciprocal and
  // logf(): at D = 64 (192-row items, rows past Sq; v19's 128-row tiles at S1024 with the mask;
  // Sq > Sk with the mask, whose first rows see no key: O exactly 0, lse exactly -inf) O may move
  // by one bf16 step where the product lands next to a rounding boundary, lse by a few fp32 ulp.
  // At D = 128 v26 runs v25's kernel: bit for bit. With O 4 bytes off a 16-byte boundary both run v24's.
  const Version* v25 = &named_version("v25_wide_o_stores");
  const Version* v26 = &named_version("v26_straight_epilogue");
  const std::vector<Shape> shapes = {{1, 140, 300, 400, 64, false}, {2, 4, 1024, 1024, 64, true},
                                     {1, 3, 777, 500, 64, true},    {1, 140, 200, 300, 128, false},
                                     {1, 3, 777, 500, 128, true}};
  for (const Shape& s : shapes) {
    INFO(shape_text(s));
    if (!runnable(*v26, s)) {
      WARN("v26_straight_epilogue: " << v26->unsupported(s));
      continue;
    }
    const DeviceQkv in = device_qkv(s, tut::testing::seed() + 97);
    const std::size_t rows = static_cast<std::size_t>(s.heads() * s.sq), nq = rows * static_cast<std::size_t>(s.d);
    const Written want = run_poisoned(*v25, s, in, 0);
    REQUIRE(std::all_of(want.o(), want.o() + nq, [](__nv_bfloat16 x) { return std::isfinite(__bfloat162float(x)); }));
    REQUIRE(std::none_of(want.lse.begin(), want.lse.end(), [](float x) { return std::isnan(x); }));
    for (const std::size_t offset : {std::size_t{0}, std::size_t{2}}) {  // elements: O at 16-byte alignment, then 4 bytes off
      INFO("O offset by " << offset << " elements");
      const Written got = run_poisoned(*v26, s, in, offset);  // (nothing written around O)
      if (s.d == 128 || offset != 0) {  // v25's kernel (or v24's for both): the same bits
        REQUIRE(std::memcmp(got.o(), want.o(), nq * sizeof(__nv_bfloat16)) == 0);
        REQUIRE(tut::testing::compare_bits(got.lse, want.lse) == "");
        continue;
      }
      // One bf16 step apart at most (none where either is 0); counted, then required once.
      std::size_t same = 0, zeros = 0, apart = 0, first_apart = nq;
      for (std::size_t i = 0; i < nq; ++i) {
        const float a = __bfloat162float(got.o()[i]), b = __bfloat162float(want.o()[i]);
        const float big = std::max(std::fabs(a), std::fabs(b));
        int exponent = 0;
        std::frexp(big, &exponent);  // big = f 2^exponent, 0.5 <= f < 1: bf16's step there is 2^(exponent - 8)
        const bool near = std::isfinite(a) && std::isfinite(b) &&
                          (a == b || (big > 0.0f && std::fabs(a - b) <= std::ldexp(1.0f, exponent - 8)));
        if (!near && apart++ == 0) first_apart = i;
        same += std::memcmp(got.o() + i, want.o() + i, sizeof(__nv_bfloat16)) == 0 ? 1 : 0;
        zeros += a == 0.0f && b == 0.0f ? 1 : 0;
      }
      INFO(same << " of " << nq << " elements the same bits, " << zeros << " zeros both; " << apart
                << " more than a step apart, the first at " << first_apart);
      REQUIRE(apart == 0);
      REQUIRE(same * 100 >= nq * 99);  // a last-bit difference is rare (a product next to a rounding boundary)
      if (s.causal && s.sq > s.sk) REQUIRE(zeros >= static_cast<std::size_t>(s.heads() * (s.sq - s.sk) * s.d));
      std::size_t lse_apart = 0, first_lse = rows;
      for (std::size_t r = 0; r < rows; ++r) {
        const float a = got.lse[r], b = want.lse[r];
        const float tol = 2e-7f + 4.0f * FLT_EPSILON * std::max(std::fabs(a), std::fabs(b));
        const bool near = std::isinf(b) ? a == b : std::isfinite(a) && std::isfinite(b) && std::fabs(a - b) <= tol;
        if (!near && lse_apart++ == 0) first_lse = r;  // (a row that sees no key: -inf in both)
      }
      INFO(lse_apart << " lse rows apart, the first " << first_lse);
      REQUIRE(lse_apart == 0);
    }
  }
}

TEST_CASE("fresh inputs, not one fixed data set", "[attention][seeds]") {
  const Shape s{1, 3, 131, 200, 64, true};
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      if (runnable(v, s)) {
        for (std::uint64_t k = 1; k <= 3; ++k) {
          require_correct(v.kernel, workspace_of(v, s), v.info.name, s, tut::testing::seed() * 7 + k);
        }
      }
    }
  }
}

TEST_CASE("small shapes, exhaustively: every Sq, Sk around the tile sizes (64, 128, v11's 176 keys, v12's 192 rows), both masks", "[attention][slow]") {
  const std::vector<std::int64_t> sizes = {1, 2, 3, 5, 8, 13, 31, 32, 33, 63, 64, 65, 127, 128, 129, 175, 176, 177, 191, 192, 193};
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      for (std::int64_t sq : sizes)
        for (std::int64_t sk : sizes)
          for (bool causal : {false, true}) {
            const Shape s{1, 2, sq, sk, (sq + sk) % 2 == 0 ? 64 : 128, causal};
            if (runnable(v, s)) require_correct(v.kernel, workspace_of(v, s), v.info.name, s, tut::testing::seed() + 5);
          }
    }
  }
}

TEST_CASE("every tuning candidate matches the CPU reference", "[attention][tune][slow]") {
  for (const auto& c : tune::all_candidates()) {
    DYNAMIC_SECTION(c.name) {
      const Shape probe{1, 1, 8, 8, c.d, false};
      if (tut::current_cc() < c.min_cc) {
        WARN(c.name << " skipped: needs sm_" << c.min_cc);
      } else if (c.unsupported != nullptr && !c.unsupported(probe).empty()) {
        WARN(c.name << " skipped: " << c.unsupported(probe));
      } else {
        for (Shape s : attention::testing::sweep_shapes()) {
          s.d = c.d;  // every shape of the sweep at the candidate's head dimension
          require_correct(c.kernel, 0.0, c.name, s, tut::testing::seed() + 6);
        }
        const Shape big{1, 1, 129, 1000, c.d, true};
        require_correct(c.kernel, 0.0, c.name, big, tut::testing::seed() + 7, Ranges{24.0f, 1.0f});
      }
    }
  }
}

namespace {

/// The value element i of an input made by fill_random_device(seed, lo, hi) has, as the kernel
/// sees it (bf16-rounded for bf16).
float input_value(std::uint64_t seed, std::size_t i, float range, Precision p) {
  const float x = tut::hash_uniform(seed, i, -range, range);
  return p == Precision::bf16 ? round_to_bf16(x) : x;
}

}  // namespace

TEST_CASE("Q, K, V and O above 2^31 elements: no 32-bit index overflow", "[attention][large]") {
  // B H = 65536 heads of Sq = Sk = 257, D = 128: 2^31 + 2^23 elements per tensor. The rows of
  // heads 65281 on start beyond element 2^31; the check samples rows there and early on. (Short
  // heads: a quarter of the work of 16384 heads of 1025 rows, the form before, for the same
  // offsets past 2^31; 257 = 2 x 128 + 1 leaves a nearly empty last tile, as 1025 did.)
  const Shape s{256, 256, 257, 257, 128, false};
  const std::size_t n = static_cast<std::size_t>(s.heads() * s.sq * s.d), rows = static_cast<std::size_t>(s.heads() * s.sq);
  const std::uint64_t seed = tut::testing::seed();
  const std::uint64_t sq_seed = tut::derive_seed(seed, 0), sk_seed = tut::derive_seed(seed, 1), sv_seed = tut::derive_seed(seed, 2);
  const float range = std::sqrt(3.0f);
  const double needed = 4.0 * 4.0 * static_cast<double>(n) + 4.0 * rows + (1ull << 30);
  if (tut::testing::sanitizing() || static_cast<double>(tut::testing::free_device_bytes()) < needed) {
    tut::testing::skip_run("the [large] case needs " + std::to_string(static_cast<long long>(needed / 1e9)) +
                           " GB of free GPU memory (and no sanitizer)");
    return;
  }
  // The checked rows: the first two of the first heads, and rows of the last heads.
  std::vector<std::int64_t> check_rows = {0, 1, s.sq, 2 * s.sq + 1};
  for (std::int64_t bh : {s.heads() - 40, s.heads() - 2, s.heads() - 1}) {
    for (std::int64_t i : {std::int64_t{0}, std::int64_t{127}, std::int64_t{128}, std::int64_t{200}, s.sq - 1}) {
      check_rows.push_back(bh * s.sq + i);
    }
  }
  for (Precision p : {Precision::fp32, Precision::bf16}) {
    DYNAMIC_SECTION(precision_name(p)) {
      // Inputs made on the GPU from the counter-based hash; the CPU recomputes the heads it checks.
      tut::DeviceBuffer<float> q32(n), k32(n), v32(n), o32, lse(rows);
      tut::fill_random_device(q32.data(), n, sq_seed, -range, range);
      tut::fill_random_device(k32.data(), n, sk_seed, -range, range);
      tut::fill_random_device(v32.data(), n, sv_seed, -1.0f, 1.0f);
      tut::DeviceBuffer<__nv_bfloat16> q16, k16, v16, o16;
      if (p == Precision::bf16) {
        q16 = tut::DeviceBuffer<__nv_bfloat16>(n);
        convert_to_bf16_device(q32.data(), q16.data(), static_cast<std::int64_t>(n), nullptr);
        q32 = tut::DeviceBuffer<float>();
        k16 = tut::DeviceBuffer<__nv_bfloat16>(n);
        convert_to_bf16_device(k32.data(), k16.data(), static_cast<std::int64_t>(n), nullptr);
        k32 = tut::DeviceBuffer<float>();
        v16 = tut::DeviceBuffer<__nv_bfloat16>(n);
        convert_to_bf16_device(v32.data(), v16.data(), static_cast<std::int64_t>(n), nullptr);
        v32 = tut::DeviceBuffer<float>();
        o16 = tut::DeviceBuffer<__nv_bfloat16>(n);
      } else {
        o32 = tut::DeviceBuffer<float>(n);
      }
      CUDA_CHECK(cudaDeviceSynchronize());

      // The reference of the checked rows: each needs its query row and its head's K and V.
      Reference ref;
      ref.full = false;
      ref.rows = check_rows;
      ref.o.assign(check_rows.size() * static_cast<std::size_t>(s.d), 0.0);
      ref.mag.assign(check_rows.size() * static_cast<std::size_t>(s.d), 0.0);
      ref.lse.assign(check_rows.size(), 0.0);
      const Shape one{1, 1, s.sq, s.sk, s.d, s.causal};
      for (std::size_t r = 0; r < check_rows.size(); ++r) {
        const std::size_t bh = static_cast<std::size_t>(check_rows[r] / s.sq), i = static_cast<std::size_t>(check_rows[r] % s.sq);
        const std::size_t head = static_cast<std::size_t>(s.sk * s.d), qrow = static_cast<std::size_t>(s.d);
        std::vector<float> hq(qrow), hk(head), hv(head);
        for (std::size_t e = 0; e < qrow; ++e) hq[e] = input_value(sq_seed, check_rows[r] * qrow + e, range, p);
        for (std::size_t e = 0; e < head; ++e) {
          hk[e] = input_value(sk_seed, bh * head + e, range, p);
          hv[e] = input_value(sv_seed, bh * head + e, 1.0f, p);
        }
        // Row i of a one-head problem whose Q is this row alone at position i: reference_row of
        // the flat row i with Q pointing i rows before hq.
        std::vector<float> qhead(static_cast<std::size_t>(s.sq * s.d), 0.0f);
        std::copy(hq.begin(), hq.end(), qhead.begin() + static_cast<std::ptrdiff_t>(i * qrow));
        const std::size_t at = r * static_cast<std::size_t>(s.d);
        reference_row(one, qhead.data(), hk.data(), hv.data(), static_cast<std::int64_t>(i), &ref.o[at], &ref.lse[r],
                      &ref.mag[at]);
      }
      const Tolerances tol = tolerances(p, s, range, range, 1.0);

      for (const auto& v : versions()) {
        if (v.kernel.precision != p || tut::current_cc() < v.info.min_cc || workspace_of(v, s) > 0.0) continue;
        if (v.unsupported != nullptr && !v.unsupported(s).empty()) continue;
        INFO(v.info.name << " on " << shape_text(s));
        lse.poison();
        if (p == Precision::bf16) {
          o16.poison();
          v.kernel.bf16(s, q16.data(), k16.data(), v16.data(), o16.data(), lse.data(), nullptr, nullptr);
        } else {
          o32.poison();
          v.kernel.f32(s, q32.data(), k32.data(), v32.data(), o32.data(), lse.data(), nullptr, nullptr);
        }
        CUDA_CHECK(cudaDeviceSynchronize());
        // Download only the checked rows (a full copy would be 8.6 GB).
        std::vector<float> got_o(check_rows.size() * static_cast<std::size_t>(s.d));
        std::vector<float> got_lse(check_rows.size());
        for (std::size_t r = 0; r < check_rows.size(); ++r) {
          const std::size_t off = static_cast<std::size_t>(check_rows[r]) * static_cast<std::size_t>(s.d);
          if (p == Precision::bf16) {
            std::vector<__nv_bfloat16> tmp(static_cast<std::size_t>(s.d));
            CUDA_CHECK(cudaMemcpy(tmp.data(), o16.data() + off, tmp.size() * 2, cudaMemcpyDeviceToHost));
            for (std::size_t c = 0; c < tmp.size(); ++c) got_o[r * s.d + c] = __bfloat162float(tmp[c]);
          } else {
            CUDA_CHECK(cudaMemcpy(&got_o[r * s.d], o32.data() + off, static_cast<std::size_t>(s.d) * 4,
                                  cudaMemcpyDeviceToHost));
          }
          CUDA_CHECK(cudaMemcpy(&got_lse[r], lse.data() + check_rows[r], 4, cudaMemcpyDeviceToHost));
        }
        // Compare with a reference whose rows are renumbered 0 .. n - 1 (the order of got_*).
        Reference compact = ref;
        for (std::size_t r = 0; r < compact.rows.size(); ++r) compact.rows[r] = static_cast<std::int64_t>(r);
        const Shape view{1, 1, static_cast<std::int64_t>(check_rows.size()), s.sk, s.d, false};
        const Check chk = check_output(compact, view, got_o.data(), got_lse.data(), tol);
        INFO(chk.describe(tol, view));
        CHECK(chk.passed(tol));
      }
    }
  }
}
