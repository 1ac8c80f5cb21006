// GPU tests of chapter 06: every registered version (and cuBLAS) against the CPU reference over
// the shape sweep with several alpha/beta, at misaligned starts, and beyond 2^31 elements ([large]).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/device_buffer.hpp"
#include "fp32/shape_choice.hpp"
#include "hopper_path_shapes.hpp"
#include "test_support.hpp"
#include "tune/tune.hpp"

using namespace gemm;
using gemm::testing::Offsets;
using gemm::testing::require_correct;

namespace {

/// Why this GPU and build cannot run `v`, or "" if they can.
std::string why_not(const Version& v) {
  if (tut::current_cc() < v.info.min_cc) {
    return "needs sm_" + std::to_string(v.info.min_cc) + ", this GPU is sm_" + std::to_string(tut::current_cc());
  }
  return v.unavailable != nullptr ? v.unavailable() : std::string();
}

/// True if this GPU can run `v`; otherwise says why in the test log.
bool runnable(const Version& v) {
  const std::string why = why_not(v);
  if (why.empty()) return true;
  WARN(v.info.name << " skipped: " << why);
  return false;
}

}  // namespace

TEST_CASE("every version matches the CPU reference over the shape sweep", "[gemm][sweep]") {
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      if (runnable(v)) {
        for (const Shape& s : gemm::testing::sweep_shapes()) {
          // beta = 0 with C poisoned (NaN): C must not be read. beta != 0: C is read and scaled.
          require_correct(v.kernel, v.info.name, s, 1.0f, 0.0f, {}, tut::testing::seed());
          require_correct(v.kernel, v.info.name, s, -1.5f, 0.75f, {}, tut::testing::seed() + 1);
        }
        // alpha = 0, beta = 1 returns C unchanged (to rounding): the epilogue reads the right element.
        require_correct(v.kernel, v.info.name, {65, 130, 33}, 0.0f, 1.0f, {}, tut::testing::seed() + 2);
      }
    }
  }
}

TEST_CASE("every version is correct at misaligned starts (the vector paths fall back)", "[gemm][misaligned]") {
  // K % 8 == 0 and N % 8 == 0, so only the misalignment stops 16-byte accesses.
  const std::vector<Shape> shapes = {{64, 64, 64}, {136, 264, 40}, {200, 136, 72}};
  const std::vector<Offsets> offsets = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {2, 3, 1}, {3, 2, 2}};
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      if (runnable(v)) {
        for (const Shape& s : shapes) {
          for (const Offsets& off : offsets) {
            require_correct(v.kernel, v.info.name, s, 1.25f, -0.5f, off, tut::testing::seed() + 3);
          }
        }
      }
    }
  }
}

TEST_CASE("the Hopper steps over many tiles per block, wrapping rings, odd tile rows, repacked operands",
          "[gemm][hopper]") {
  // 2049 x 2056: 17 x 9 tiles of 128 x 256 (more than 132 SMs: persistent blocks take two; an
  // odd number of tile rows: the last cluster's second CTA has no rows of C); K = 200: four
  // k-slices per tile, so the 4-stage ring wraps from one tile to the next. 1031 x 1029 x 333:
  // K and N not multiples of 8 (both operands copied to the padded workspace), N not of 4 (no
  // TMA store of C).
  const std::vector<Shape> shapes = {{2049, 2056, 200}, {1031, 1029, 333}, {640, 768, 1000}};
  for (const auto& v : versions()) {
    if (v.unavailable == nullptr) continue;  // the Hopper steps only
    DYNAMIC_SECTION(v.info.name) {
      if (runnable(v)) {
        for (const Shape& s : shapes) {
          require_correct(v.kernel, v.info.name, s, 1.0f, 0.0f, {}, tut::testing::seed() + 10);
          require_correct(v.kernel, v.info.name, s, -1.5f, 0.75f, {}, tut::testing::seed() + 11);
        }
      }
    }
  }
}

TEST_CASE("v18-v20 on each of their paths: half and narrow tiles, split-K with beta = 0 and beta != 0, no split",
          "[gemm][hopper]") {
  // The shapes and the paths they take on an H100: hopper_path_shapes.hpp (test_cpu.cpp checks
  // the paths). The sanitizers get the smallest split, 130 x 132 x 2048 (4 tiles, 2 shares).
  const std::vector<Shape> shapes = tut::testing::sanitizing() ? std::vector<Shape>{{130, 132, 2048}}
                                                               : gemm::testing::v18_v20_path_shapes();
  for (const auto& v : versions()) {
    if (v.info.name != "v18_tile_by_waves" && v.info.name != "v19_split_k" && v.info.name != "v20_narrow_tiles") {
      continue;
    }
    DYNAMIC_SECTION(v.info.name) {
      if (runnable(v)) {
        for (const Shape& s : shapes) {
          INFO("v18 half tiles: " << v18_takes_half_tiles(s.m, s.n, sm_count())
                                  << ", v19 splits: " << v19_splits(s.m, s.n, s.k, sm_count())
                                  << ", v20 tile width: " << v20_tile_n(s.m, s.n, sm_count()));
          require_correct(v.kernel, v.info.name, s, 1.0f, 0.0f, {}, tut::testing::seed() + 20);
          require_correct(v.kernel, v.info.name, s, -1.5f, 0.75f, {}, tut::testing::seed() + 21);
        }
      }
    }
  }
}

namespace {

/// v24's pairs whatever its rule says, on at most three clusters (each pair takes many tiles in
/// turn, so its pair buffer's barriers go through many phases) or as many as the GPU runs.
void v24_pairs_on_three(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                        const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  launch_gemm_v24_pairs_on(m, n, k, alpha, a, b, beta, c, stream, 3);
}
void v24_pairs_everywhere(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                          const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  launch_gemm_v24_pairs_on(m, n, k, alpha, a, b, beta, c, stream, 0);
}

}  // namespace

TEST_CASE("v24, v25 and v27 on each of their paths, and v24's pairs over many tiles each", "[gemm][hopper][v24]") {
  // The registry's v24, v25 and v27 (v24's choice; descriptors advanced; waits that sleep) on the shapes of
  // hopper_path_shapes.hpp (test_cpu.cpp checks the paths); v25's other tiles run in the Hopper
  // test above (2049 x 2056: 128 x 256, 1031 x 1029: 128 x 128, 640 x 768: 128 x 64).
  // Then the pairs where the rule would not take them: 2049 x 2056 x 200 (289 tiles on three
  // clusters, 4 k-slices: 2 each), 1031 x 1029 x 333 (operands repacked, C from the registers),
  // 640 x 768 x 1000 (the Hopper test's third shape), 130 x 132 x 100 (one k-slice each, the
  // second partial), each on three clusters and on all of them.
  const bool small = tut::testing::sanitizing();
  const std::vector<Shape> paths = small ? std::vector<Shape>{{130, 132, 2048}} : gemm::testing::v24_path_shapes();
  const std::vector<Shape> many =
      small ? std::vector<Shape>{{300, 300, 200}, {130, 132, 100}}
            : std::vector<Shape>{{2049, 2056, 200}, {1031, 1029, 333}, {640, 768, 1000}, {130, 132, 100}};
  for (const auto& v : versions()) {
    if ((v.info.name != "v24_cluster_split_k" && v.info.name != "v25_descriptor_steps" &&
         v.info.name != "v27_sleeping_waits") ||
        !runnable(v)) {
      continue;
    }
    const int slots = v24_pair_slots();
    WARN("this GPU runs " << slots << " of v24's clusters of two at once (" << sm_count() << " SMs)");
    REQUIRE(slots >= 1);
    for (const Shape& s : paths) {
      INFO("v24 pairs: " << v24_takes_pairs(s.m, s.n, s.k, slots));
      require_correct(v.kernel, v.info.name, s, 1.0f, 0.0f, {}, tut::testing::seed() + 40);
      require_correct(v.kernel, v.info.name, s, -1.5f, 0.75f, {}, tut::testing::seed() + 41);
    }
    if (v.info.name != "v24_cluster_split_k") continue;  // the pairs' kernel once, with its descriptors rebuilt
    const Kernel three{Precision::bf16, nullptr, v24_pairs_on_three};
    const Kernel everywhere{Precision::bf16, nullptr, v24_pairs_everywhere};
    for (const Shape& s : many) {
      require_correct(three, "v24's pairs on three clusters", s, 1.0f, 0.0f, {}, tut::testing::seed() + 42);
      require_correct(three, "v24's pairs on three clusters", s, -1.5f, 0.75f, {}, tut::testing::seed() + 43);
      if (!small) require_correct(everywhere, "v24's pairs", s, 0.5f, 2.0f, {}, tut::testing::seed() + 44);
    }
  }
}

TEST_CASE("v23 on each of its tiles (256, 128 and 64 rows), K odd and not a multiple of the slice", "[gemm][hopper]") {
  // The shapes and the paths they take on an H100: hopper_path_shapes.hpp (test_cpu.cpp checks
  // the paths).
  const std::vector<Shape> shapes = tut::testing::sanitizing() ? std::vector<Shape>{{200, 300, 333}}
                                                               : gemm::testing::v23_path_shapes();
  for (const auto& v : versions()) {
    if (v.info.name != "v23_tf32_tile_by_waves") continue;
    DYNAMIC_SECTION(v.info.name) {
      if (runnable(v)) {
        for (const Shape& s : shapes) {
          INFO("v23 rows: " << v23_tile_rows(s.m, s.n, sm_count()));
          require_correct(v.kernel, v.info.name, s, 1.0f, 0.0f, {}, tut::testing::seed() + 30);
          require_correct(v.kernel, v.info.name, s, -1.5f, 0.75f, {}, tut::testing::seed() + 31);
        }
      }
    }
  }
}

namespace {

/// v09's two configurations and its padded B, at shapes beyond the sweep, for `name` (v09, or v26
/// with the same choice). On an H100 (132 SMs): 4097 x 2047 runs Large (264 tiles: two full
/// rounds) on the padded copy of B (N odd); 2048 x 2048 runs Large on B as it is, and on the
/// padded copy when B starts one float past a 16-byte boundary; 4095 x 4097 (the table's odd
/// shape, with K = 40 and K = 1: a short pipeline and a single slice) and 2047 x 2051 (misaligned
/// A and C) run the small tile on the padded copy. The sweep covers the small tile at small sizes,
/// padded and not.
void require_by_shape_correct(const Kernel& kernel, const char* name, std::uint64_t seed) {
  if (tut::current_cc() < 80) {
    tut::testing::skip_run(std::string(name) + " needs sm_80");
    return;
  }
  if (tut::testing::sanitizing()) {
    tut::testing::skip_run("these shapes are too big for the sanitizers (the sweep covers them there)");
    return;
  }
  struct Case {
    Shape s;
    Offsets off;
  };
  for (const Case& c : std::vector<Case>{{{4097, 2047, 40}, {}},
                                         {{2048, 2048, 40}, {}},
                                         {{2048, 2048, 40}, {0, 1, 0}},
                                         {{4095, 4097, 40}, {}},
                                         {{4095, 4097, 1}, {}},
                                         {{2047, 2051, 33}, {1, 0, 3}}}) {
    INFO("configuration " << (choose_config(c.s.m, c.s.n, sm_count()) == ShapeConfig::large ? "Large" : "SmallFat"));
    require_correct(kernel, name, c.s, 1.0f, 0.0f, c.off, seed);
    require_correct(kernel, name, c.s, -1.5f, 0.75f, c.off, seed + 1);
  }
}

}  // namespace

TEST_CASE("v09 on both of its configurations, B padded or not, at shapes beyond the sweep", "[gemm][v09]") {
  require_by_shape_correct({Precision::fp32, launch_gemm_v09_by_shape, nullptr}, "v09_by_shape",
                           tut::testing::seed() + 13);
}

TEST_CASE("v26 (serpentine FFMAs) on both of v09's configurations, B padded or not", "[gemm][v26]") {
  require_by_shape_correct({Precision::fp32, launch_gemm_v26_serpentine_ffma, nullptr}, "v26_serpentine_ffma",
                           tut::testing::seed() + 17);
}

namespace {

/// Every fp32 candidate of `cands` over the sweep plus `extra` shapes (with alpha/beta) and at
/// misaligned starts; `seed` and the next two seeds.
void require_fp32_candidates(const std::vector<tune::Candidate>& cands, const std::vector<Shape>& extra,
                             std::uint64_t seed) {
  std::vector<Shape> shapes = gemm::testing::sweep_shapes();
  if (!tut::testing::sanitizing()) shapes.insert(shapes.end(), extra.begin(), extra.end());
  for (const auto& cand : cands) {
    DYNAMIC_SECTION(cand.name) {
      if (tut::current_cc() < 80) {
        WARN(cand.name << " skipped: needs sm_80");
      } else {
        const Kernel kern = cand.kernel;
        for (const Shape& s : shapes) {
          require_correct(kern, cand.name, s, 1.0f, 0.0f, {}, seed);
          require_correct(kern, cand.name, s, -1.5f, 0.75f, {}, seed + 1);
        }
        for (const Offsets& off : std::vector<Offsets>{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}) {
          require_correct(kern, cand.name, {136, 264, 40}, 1.25f, -0.5f, off, seed + 2);
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("every configuration v09 chooses from matches the CPU reference", "[gemm][tune][slow]") {
  // The sweep plus shapes with interior tiles of every configuration, aligned and unaligned B.
  require_fp32_candidates(tune::shape_candidates(), {{300, 520, 40}, {257, 769, 33}, {384, 256, 100}, {259, 517, 67}},
                          tut::testing::seed() + 12);
}

TEST_CASE("every tuning candidate of v08 matches the CPU reference", "[gemm][tune][slow]") {
  // The sweep (whose 136 x 264 x 40 and 256 x 512 x 64 already hold interior 128 x 256 block
  // tiles), plus more shapes mixing interior and edge tiles and k-slices, so that every path of
  // the candidates' copies runs.
  require_fp32_candidates(tune::ffma_candidates(), {{300, 520, 40}, {257, 769, 33}, {384, 256, 100}},
                          tut::testing::seed() + 4);
}

TEST_CASE("every bf16 tuning candidate of v11 matches the CPU reference", "[gemm][tune][slow]") {
  // The sweep plus shapes of many k-slices on the 16-byte path (K % 8 == 0: the pipeline wraps
  // around its stages several times) and off it, with interior and edge block tiles.
  std::vector<Shape> shapes = gemm::testing::sweep_shapes();
  if (!tut::testing::sanitizing()) {
    for (const Shape& s : std::vector<Shape>{{384, 256, 520}, {129, 264, 1024}, {300, 520, 200}, {130, 260, 517}}) {
      shapes.push_back(s);
    }
  }
  for (const auto& cand : tune::mma_bf16_candidates()) {
    DYNAMIC_SECTION(cand.name) {
      if (tut::current_cc() < 90) {
        WARN(cand.name << " skipped: the bf16 search's candidates need sm_90's shared memory");
      } else {
        const Kernel kern = cand.kernel;
        for (const Shape& s : shapes) {
          require_correct(kern, cand.name, s, 1.0f, 0.0f, {}, tut::testing::seed() + 7);
          require_correct(kern, cand.name, s, -1.5f, 0.75f, {}, tut::testing::seed() + 8);
        }
        for (const Offsets& off : std::vector<Offsets>{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}) {
          require_correct(kern, cand.name, {136, 264, 72}, 1.25f, -0.5f, off, tut::testing::seed() + 9);
        }
      }
    }
  }
}

TEST_CASE("fresh inputs, not one fixed data set", "[gemm][seeds]") {
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      if (runnable(v)) {
        for (std::uint64_t s = 1; s <= 3; ++s) {
          require_correct(v.kernel, v.info.name, {131, 67, 45}, 1.0f, 0.0f, {}, tut::testing::seed() * 7 + s);
        }
      }
    }
  }
}

TEST_CASE("the conversion kernels round exactly like the host", "[gemm][convert]") {
  const std::size_t n = 100003;
  std::vector<float> x = tut::random_floats(n, 77, -3.0f, 3.0f);
  x[0] = 1.0f + std::ldexp(1.0f, -11);  // a TF32 tie: rounds away from zero
  x[1] = -x[0];
  x[2] = 1.0f + std::ldexp(1.0f, -8);   // a BF16 tie: rounds to even
  tut::DeviceBuffer<float> in(x), out(n);
  tut::DeviceBuffer<__nv_bfloat16> out16(n);
  round_to_tf32_device(in.data(), out.data(), static_cast<std::int64_t>(n), nullptr);
  convert_to_bf16_device(in.data(), out16.data(), static_cast<std::int64_t>(n), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> tf = out.to_host();
  const std::vector<__nv_bfloat16> bf = out16.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    INFO("element " << i << " = " << x[i]);
    REQUIRE(tf[i] == round_to_tf32(x[i]));
    REQUIRE(__bfloat162float(bf[i]) == round_to_bf16(x[i]));
  }
}

TEST_CASE("tensor-core steps: the error is accumulation only; input rounding is separate", "[gemm][precision]") {
  // With the reference on the rounded inputs (our check), the error is fp32 accumulation: a few
  // u of the magnitudes sum |a b|. Against the unrounded fp32 inputs it is the input rounding,
  // ~1e-3 (TF32) and ~3e-3 (BF16) relative to |ref|, a few 1e-5 (TF32) and 1e-4 (BF16) relative
  // to sum |a b| at K = 1024: a check against fp32 inputs could not tell a correct BF16 kernel
  // from one that accumulates in BF16.
  const Shape s{192, 320, 1024};
  const std::uint64_t seed = tut::testing::seed() + 5;
  const gemm::testing::Inputs exact = gemm::testing::make_inputs(s, Precision::fp32, false, seed);
  const Reference ref_exact = make_reference(s, 1.0f, exact.a.data(), exact.b.data(), 0.0f, nullptr, seed);
  for (const auto& v : versions()) {
    if (v.kernel.precision == Precision::fp32) continue;
    DYNAMIC_SECTION(v.info.name) {
      if (runnable(v)) {
        const gemm::testing::Inputs in = gemm::testing::make_inputs(s, v.kernel.precision, false, seed);
        const std::vector<float> got = gemm::testing::run_once(v.kernel, s, 1.0f, 0.0f, in, {});
        const Reference ref = make_reference(s, 1.0f, in.a.data(), in.b.data(), 0.0f, nullptr, seed);
        const tut::Tolerance tol = tolerance(v.kernel.precision, s.k);
        const tut::ErrorStats vs_rounded = check_output(ref, got.data(), tol);
        tut::Tolerance loose{1e-2, 1.0, 0.0, "input rounding"};
        const tut::ErrorStats vs_exact = check_output(ref_exact, got.data(), loose);
        WARN(v.info.name << ": normwise error (relative to sum |a b|) vs the rounded inputs "
                         << vs_rounded.rel_norm_error() << ", vs the unrounded fp32 inputs " << vs_exact.rel_norm_error());
        INFO(vs_rounded.describe(tol));
        REQUIRE(vs_rounded.passed(tol));
        REQUIRE(vs_exact.rel_norm_error() < 1e-2);
        REQUIRE(vs_exact.rel_norm_error() > 10.0 * vs_rounded.rel_norm_error());
      }
    }
  }
}

TEST_CASE("v22 (split TF32) is as accurate as fp32 FFMA, and v21's TF32 is not", "[gemm][precision]") {
  // fp32 inputs (not rounded to TF32), K = 4096. The normwise error relative to sum |a b|: the
  // fp32 versions' is accumulation only (about u = 6e-8 and below); TF32 on these inputs adds
  // the inputs' rounding (about 2^-11 per input, averaging down to ~1e-5 over K). v22 must stay
  // within 4x of the CUDA-core ladder's last step (v09) and of cuBLAS SGEMM, and v21 must be 100x
  // worse than v22: the split is what buys the accuracy.
  const Shape s{256, 384, 4096};
  const std::uint64_t seed = tut::testing::seed() + 6;
  const gemm::testing::Inputs in = gemm::testing::make_inputs(s, Precision::fp32, false, seed);
  const Reference ref = make_reference(s, 1.0f, in.a.data(), in.b.data(), 0.0f, nullptr, seed);
  std::map<std::string, double> error;
  for (const char* name : {"v09_by_shape", "v21_wgmma_tf32", "v22_split_tf32", "cublas_sgemm"}) {
    const auto it = std::find_if(versions().begin(), versions().end(), [&](const Version& v) { return v.info.name == name; });
    REQUIRE(it != versions().end());
    if (!runnable(*it)) return;
    const std::vector<float> got = gemm::testing::run_once(it->kernel, s, 1.0f, 0.0f, in, {});
    const tut::Tolerance loose{1e-2, 1.0, 0.0, "TF32 input rounding"};
    error[name] = check_output(ref, got.data(), loose).rel_norm_error();
    WARN(name << ": normwise error on fp32 inputs (relative to sum |a b|) " << error[name]);
  }
  REQUIRE(error["v22_split_tf32"] <= 4.0 * error["v09_by_shape"]);
  REQUIRE(error["v22_split_tf32"] <= 4.0 * error["cublas_sgemm"]);
  REQUIRE(error["v21_wgmma_tf32"] >= 100.0 * error["v22_split_tf32"]);
}

namespace {

/// One [large] case: a shape with more than 2^31 elements in one operand or in C, and the
/// elements of C to check.
struct LargeCase {
  const char* what;  ///< which operand is huge
  Shape s;           ///< the shape
};

/// The value a kernel of precision p sees for element i of an input made by fill_random_device.
float input_value(std::uint64_t seed, std::size_t i, Precision p) {
  const float x = tut::hash_uniform(seed, i, -1.0f, 1.0f);
  return p == Precision::tf32 ? round_to_tf32(x) : p == Precision::bf16 ? round_to_bf16(x) : x;
}

}  // namespace

TEST_CASE("operands or output above 2^31 elements: no 32-bit index overflow", "[gemm][large]") {
  // K % 8 == 0 and N % 8 == 0: the vector paths (the fastest code) are the ones under test here;
  // the scalar paths' index maths is the same and the sweep covers them at small sizes.
  const std::vector<LargeCase> cases = {
      {"C has more than 2^31 elements", {46341, 46344, 8}},
      {"A has more than 2^31 elements", {65537, 16, 32776}},
      {"B has more than 2^31 elements", {16, 65544, 32776}},
  };
  const std::uint64_t seed = tut::testing::seed();
  const std::uint64_t sa = tut::derive_seed(seed, 0), sb = tut::derive_seed(seed, 1);
  for (const LargeCase& lc : cases) {
    DYNAMIC_SECTION(lc.what) {
      const Shape s = lc.s;
      const std::size_t mk = static_cast<std::size_t>(s.m * s.k), kn = static_cast<std::size_t>(s.k * s.n),
                        mn = static_cast<std::size_t>(s.m * s.n);
      const double needed = 4.0 * (mk + kn + mn) + 2.0 * (mk + kn) + (1ull << 30);
      if (tut::testing::sanitizing() || static_cast<double>(tut::testing::free_device_bytes()) < needed) {
        tut::testing::skip_run(std::string("the [large] case '") + lc.what + "' needs " +
                               std::to_string(static_cast<long long>(needed / 1e9)) +
                               " GB of free GPU memory (and no sanitizer)");
        continue;
      }
      // The elements of C to check. Huge C: every element from 2^31 - 2^22 on (where a 32-bit
      // index wraps) and the first 4096 of every 2^20 before. Huge A: all columns of rows 0, 1,
      // 200 random rows and the last 64 (row * K passes 2^31 at row 65521). Huge B: all rows at
      // columns 0, 1, 200 random ones and the last 64 (every column reaches k * N > 2^31).
      std::vector<std::size_t> index;
      const bool sample_c = mn > (std::size_t{1} << 31);
      if (!sample_c) {
        std::vector<std::int64_t> rows, cols;
        const auto pick = [&](std::int64_t len, std::vector<std::int64_t>& out) {
          out = {0, 1};
          for (std::uint64_t r = 0; r < 200; ++r) out.push_back(static_cast<std::int64_t>(tut::mix64(seed + r) % len));
          for (std::int64_t x = std::max<std::int64_t>(0, len - 64); x < len; ++x) out.push_back(x);
        };
        if (s.m > s.n) {
          pick(s.m, rows);
          for (std::int64_t j = 0; j < s.n; ++j) cols.push_back(j);
        } else {
          pick(s.n, cols);
          for (std::int64_t i = 0; i < s.m; ++i) rows.push_back(i);
        }
        for (auto i : rows)
          for (auto j : cols) index.push_back(static_cast<std::size_t>(i * s.n + j));
        std::sort(index.begin(), index.end());
        index.erase(std::unique(index.begin(), index.end()), index.end());
      }

      for (Precision p : {Precision::fp32, Precision::tf32, Precision::bf16}) {
        // Inputs made on the GPU from the counter-based hash; the CPU recomputes any element.
        tut::DeviceBuffer<float> a(mk), b(kn), c(mn);
        tut::fill_random_device(a.data(), mk, sa, -1.0f, 1.0f);
        tut::fill_random_device(b.data(), kn, sb, -1.0f, 1.0f);
        tut::DeviceBuffer<__nv_bfloat16> a16, b16;
        if (p == Precision::tf32) {
          round_to_tf32_device(a.data(), a.data(), static_cast<std::int64_t>(mk), nullptr);
          round_to_tf32_device(b.data(), b.data(), static_cast<std::int64_t>(kn), nullptr);
        }
        if (p == Precision::bf16) {
          a16 = tut::DeviceBuffer<__nv_bfloat16>(mk);
          b16 = tut::DeviceBuffer<__nv_bfloat16>(kn);
          convert_to_bf16_device(a.data(), a16.data(), static_cast<std::int64_t>(mk), nullptr);
          convert_to_bf16_device(b.data(), b16.data(), static_cast<std::int64_t>(kn), nullptr);
          a = tut::DeviceBuffer<float>();
          b = tut::DeviceBuffer<float>();
        }
        CUDA_CHECK(cudaDeviceSynchronize());

        // The reference of the checked elements, from the hash (no huge host copies).
        const float alpha = 1.25f;
        std::vector<std::size_t> checked = index;
        if (sample_c) {
          // Same positions sample_device_array() downloads below.
          const std::size_t dense_from = (std::size_t{1} << 31) - (std::size_t{1} << 22);
          for (std::size_t q = 0; q < dense_from / (1u << 20); ++q)
            for (std::size_t j = 0; j < 4096; ++j) checked.push_back(q * (1u << 20) + j);
          for (std::size_t i = dense_from; i < mn; ++i) checked.push_back(i);
        }
        // The hash is the costly part: each distinct row of A and column of B among the checked
        // elements is made once (K values each), in parallel, then every element is a dot product.
        const std::size_t kk_count = static_cast<std::size_t>(s.k), n_cols = static_cast<std::size_t>(s.n);
        constexpr std::size_t kUnused = ~std::size_t{0};
        std::vector<std::size_t> row_at(static_cast<std::size_t>(s.m), kUnused), col_at(n_cols, kUnused);
        std::vector<std::size_t> rows, cols;  // the distinct rows and columns; row_at / col_at: where in these
        for (std::size_t e : checked) {
          const std::size_t i = e / n_cols, j = e % n_cols;
          if (row_at[i] == kUnused) {
            row_at[i] = rows.size();
            rows.push_back(i);
          }
          if (col_at[j] == kUnused) {
            col_at[j] = cols.size();
            cols.push_back(j);
          }
        }
        std::vector<float> a_rows(rows.size() * kk_count), b_cols(cols.size() * kk_count);
        tut::parallel_for(
            rows.size() + cols.size(),
            [&](std::size_t, std::size_t begin, std::size_t end) {
              for (std::size_t r = begin; r < end; ++r) {
                for (std::size_t kk = 0; kk < kk_count; ++kk) {
                  if (r < rows.size()) {
                    a_rows[r * kk_count + kk] = input_value(sa, rows[r] * kk_count + kk, p);
                  } else {
                    const std::size_t c_at = r - rows.size();
                    b_cols[c_at * kk_count + kk] = input_value(sb, kk * n_cols + cols[c_at], p);
                  }
                }
              }
            },
            1);
        std::vector<double> expected(checked.size()), magnitude(checked.size());  // sum a b, |alpha| sum |a b|
        tut::parallel_for(
            checked.size(),
            [&](std::size_t, std::size_t begin, std::size_t end) {
              for (std::size_t q = begin; q < end; ++q) {
                const float* ar = &a_rows[row_at[checked[q] / n_cols] * kk_count];
                const float* bc = &b_cols[col_at[checked[q] % n_cols] * kk_count];
                double acc = 0.0, mag = 0.0;
                for (std::size_t kk = 0; kk < kk_count; ++kk) {
                  const double term = static_cast<double>(ar[kk]) * static_cast<double>(bc[kk]);
                  acc += term;
                  mag += std::fabs(term);
                }
                expected[q] = alpha * acc;
                magnitude[q] = std::fabs(alpha) * mag;
              }
            },
            std::max<std::size_t>(1, (std::size_t{1} << 16) / kk_count));  // about 2^16 multiply-adds a chunk at least

        for (const auto& v : versions()) {
          if (v.kernel.precision != p || !why_not(v).empty()) continue;
          if (v.info.name == "v23_tf32_tile_by_waves" && v23_tile_rows(s.m, s.n, sm_count()) == 256) {
            continue;  // v23 runs v21's tiles here, v21's very kernel, checked in this loop already
          }
          if (v.info.name == "v24_cluster_split_k" && !v24_takes_pairs(s.m, s.n, s.k, v24_pair_slots())) {
            continue;  // v24 runs v20's very kernel here (no pairs), checked in this loop already
          }
          INFO(lc.what << ": " << v.info.name << " on " << gemm::testing::text(s));
          c.poison();
          if (p == Precision::bf16) {
            v.kernel.bf16(s.m, s.n, s.k, alpha, a16.data(), b16.data(), 0.0f, c.data(), nullptr);
          } else {
            v.kernel.f32(s.m, s.n, s.k, alpha, a.data(), b.data(), 0.0f, c.data(), nullptr);
          }
          CUDA_CHECK(cudaDeviceSynchronize());
          std::vector<float> got(checked.size());
          if (sample_c) {
            const auto sample = tut::testing::sample_device_array(c.data(), mn, (std::size_t{1} << 31) - (std::size_t{1} << 22),
                                                                  4096, std::size_t{1} << 20);
            REQUIRE(sample.index == checked);
            got = sample.value;
          } else {
            const std::vector<float> all = c.to_host();
            for (std::size_t q = 0; q < checked.size(); ++q) got[q] = all[checked[q]];
          }
          const tut::Tolerance tol = tolerance(p, s.k);
          const tut::ErrorStats stats =
              tut::parallel_check(checked.size(), [&](std::size_t begin, std::size_t end, tut::ErrorStats& st) {
                for (std::size_t q = begin; q < end; ++q) st.add(checked[q], got[q], expected[q], magnitude[q], tol);
              });
          const std::int64_t n = s.n;
          INFO(stats.describe(tol, [n](std::size_t i) { return format_index(i, n); }));
          CHECK(stats.passed(tol));
        }
      }
    }
  }
}
