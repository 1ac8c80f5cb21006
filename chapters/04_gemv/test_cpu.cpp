// CPU tests of chapter 04: the references, the tolerance (it accepts fp32 sums in any order and
// rejects wrong answers), the launch planning helpers, and the registry itself.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "common/random.hpp"
#include "common/testing.hpp"
#include "gemv.hpp"

using namespace gemv;

TEST_CASE("references compute what their names say", "[gemv][reference]") {
  // A = [[1, 2, 3], [4, -5, 6]] (2 x 3).
  const std::vector<float> A = {1, 2, 3, 4, -5, 6};
  const std::vector<float> x3 = {1, -1, 2}, x2 = {2, -1};
  const Reference ax = reference(Op::Ax, A.data(), x3.data(), 2, 3);
  REQUIRE(ax.length == 3);
  REQUIRE(ax.y == std::vector<double>{1 - 2 + 6, 4 + 5 + 12});
  REQUIRE(ax.abs_sum == std::vector<double>{1 + 2 + 6, 4 + 5 + 12});
  const Reference atx = reference(Op::ATx, A.data(), x2.data(), 2, 3);
  REQUIRE(atx.length == 2);
  REQUIRE(atx.y == std::vector<double>{2 - 4, 4 + 5, 6 - 6});
  REQUIRE(atx.abs_sum == std::vector<double>{2 + 4, 4 + 5, 6 + 6});
}

TEST_CASE("the hash-based reference equals the reference on the same data", "[gemv][reference]") {
  const std::int64_t M = 37, K = 53;
  const std::uint64_t sa = 11, sx = 12;
  const std::vector<float> A = tut::random_floats(M * K, sa);
  for (const Op op : {Op::Ax, Op::ATx}) {
    const std::vector<float> x = tut::random_floats(x_length(op, M, K), sx);
    const Reference r1 = reference(op, A.data(), x.data(), M, K);
    const Reference r2 = reference_from_hash(op, sa, sx, M, K);
    REQUIRE(r1.y == r2.y);
    REQUIRE(r1.abs_sum == r2.abs_sum);
  }
}

namespace {

/// y = A x in fp32 the way a kernel might sum: `lanes` strided partial sums (fmaf), then a tree.
std::vector<float> fp32_gemv(const std::vector<float>& A, const std::vector<float>& x, std::int64_t M, std::int64_t K,
                             int lanes) {
  std::vector<float> y(static_cast<std::size_t>(M));
  for (std::int64_t i = 0; i < M; ++i) {
    std::vector<float> part(static_cast<std::size_t>(lanes), 0.0f);
    for (std::int64_t k = 0; k < K; ++k) {
      float& p = part[static_cast<std::size_t>(k % lanes)];
      p = std::fma(A[static_cast<std::size_t>(i * K + k)], x[static_cast<std::size_t>(k)], p);
    }
    for (int width = lanes / 2; width > 0; width /= 2)
      for (int l = 0; l < width; ++l) part[static_cast<std::size_t>(l)] += part[static_cast<std::size_t>(l + width)];
    y[static_cast<std::size_t>(i)] = part[0];
  }
  return y;
}

}  // namespace

TEST_CASE("the tolerance accepts fp32 sums in any order", "[gemv][tolerance]") {
  // Sequential (one lane: v0, t0), 32 strided partial sums + tree (a warp), 256 (a block).
  for (const std::int64_t K : {1, 2, 7, 33, 1000, 100000}) {
    const std::int64_t M = K >= 100000 ? 4 : 16;
    const std::vector<float> A = tut::random_floats(M * K, 3), x = tut::random_floats(K, 4);
    const Reference ref = reference(Op::Ax, A.data(), x.data(), M, K);
    for (const int lanes : {1, 32, 256}) {
      const std::vector<float> y = fp32_gemv(A, x, M, K, lanes);
      INFO("K = " << K << ", " << lanes << " partial sums");
      TUT_REQUIRE_MATCH(check(y.data(), ref), tolerance(K));
    }
  }
}

TEST_CASE("cancelling terms: an honest rounding difference passes, a real error fails", "[gemv][tolerance]") {
  // Issue 23: a correct warp-per-row kernel was rejected at M = 1, K = 2 (got -0.00678649545,
  // expected -0.00678647668) by a bound relative to |y|. Products of about 0.6 that cancel to
  // -0.0068 are rounded with errors up to 3e-8 each: the bound must scale with sum |a_k x_k|.
  SECTION("the issue's numbers") {
    Reference ref;
    ref.y = {-0.00678647668};
    ref.abs_sum = {1.2};
    ref.length = 2;
    const float honest = -0.00678649545f;
    REQUIRE(check(&honest, ref).passed(tolerance(2)));
    REQUIRE(std::fabs(honest - ref.y[0]) > 8.0 * std::sqrt(2.0) * 0x1p-24 * std::fabs(ref.y[0]));  // the old bound's failure
    const float wrong = -0.0068f;  // 1.4e-5 away: 100 times the bound
    REQUIRE_FALSE(check(&wrong, ref).passed(tolerance(2)));
  }
  SECTION("rows whose last term cancels the others, summed in fp32 in several orders") {
    // As check_gemv makes them: A[i][K-1] = -(sum of the other terms) / x[K-1], so y_i ~ u sum |terms|.
    int old_bound_failures = 0;
    for (const std::int64_t K : {2, 3, 5, 33, 1000}) {
      const std::int64_t M = 64;
      std::vector<float> A = tut::random_floats(M * K, 7), x = tut::random_floats(K, 8);
      x[K - 1] = 0.75f;
      for (std::int64_t i = 0; i < M; ++i) {
        double partial = 0.0;
        for (std::int64_t k = 0; k < K - 1; ++k) partial += static_cast<double>(A[i * K + k]) * x[k];
        A[i * K + K - 1] = static_cast<float>(-partial / x[K - 1]);
      }
      const Reference ref = reference(Op::Ax, A.data(), x.data(), M, K);
      for (const int lanes : {1, 32}) {
        const std::vector<float> y = fp32_gemv(A, x, M, K, lanes);
        INFO("K = " << K << ", " << lanes << " partial sums");
        TUT_REQUIRE_MATCH(check(y.data(), ref), tolerance(K));
        for (std::int64_t i = 0; i < M; ++i) {
          const double err = std::fabs(y[i] - ref.y[i]);
          if (err > 8.0 * std::sqrt(static_cast<double>(K)) * 0x1p-24 * std::fabs(ref.y[i])) ++old_bound_failures;
        }
        // A real error: the cancelling term left out of one row (a forgotten tail element).
        std::vector<float> bad = y;
        bad[5] = static_cast<float>(ref.y[5] - static_cast<double>(A[5 * K + K - 1]) * x[K - 1]);
        REQUIRE_FALSE(check(bad.data(), ref).passed(tolerance(K)));
      }
    }
    REQUIRE(old_bound_failures > 0);  // without the magnitudes these honest results would fail
  }
}

TEST_CASE("the check rejects wrong answers", "[gemv][tolerance]") {
  const std::int64_t M = 16, K = 1000;
  const std::vector<float> A = tut::random_floats(M * K, 5), x = tut::random_floats(K, 6);
  const Reference ref = reference(Op::Ax, A.data(), x.data(), M, K);
  const tut::Tolerance tol = tolerance(K);
  std::vector<float> good(static_cast<std::size_t>(M));
  for (std::size_t i = 0; i < good.size(); ++i) good[i] = static_cast<float>(ref.y[i]);
  REQUIRE(check(good.data(), ref).passed(tol));

  SECTION("one term of one row missing (a forgotten element, e.g. a head or tail)") {
    std::vector<float> bad = good;
    float largest = 0.0f;
    for (std::int64_t k = 0; k < K; ++k) largest = std::max(largest, std::fabs(A[7 * K + k] * x[k]));
    bad[7] = static_cast<float>(ref.y[7] - largest);
    REQUIRE_FALSE(check(bad.data(), ref).passed(tol));
  }
  SECTION("a NaN") {
    std::vector<float> bad = good;
    bad[3] = std::numeric_limits<float>::quiet_NaN();
    REQUIRE_FALSE(check(bad.data(), ref).passed(tol));
  }
  SECTION("all zeros") {
    const std::vector<float> bad(good.size(), 0.0f);
    REQUIRE_FALSE(check(bad.data(), ref).passed(tol));
  }
  SECTION("two rows swapped") {
    std::vector<float> bad = good;
    std::swap(bad[0], bad[1]);
    REQUIRE_FALSE(check(bad.data(), ref).passed(tol));
  }
}

TEST_CASE("plan_split covers the dimension with non-empty chunks", "[gemv][plan]") {
  for (const std::int64_t length : {1, 2, 63, 64, 65, 1000, 4096, 65536, 100000, 1 << 24}) {
    for (const std::int64_t blocks : {1, 8, 128, 2048, 100000}) {
      for (const std::int64_t align : {1, 4}) {
        const SplitPlan p = plan_split(length, blocks, 2112, 64, align);
        INFO("length " << length << ", blocks " << blocks << ", align " << align);
        REQUIRE(p.splits >= 1);
        REQUIRE(p.splits <= 65535);
        REQUIRE(p.chunk >= 1);
        REQUIRE(p.chunk % align == 0);
        REQUIRE(p.splits * p.chunk >= length);          // covers [0, length)
        REQUIRE((p.splits - 1) * p.chunk < length);     // the last chunk is not empty
        if (blocks >= 2112) REQUIRE(p.splits == 1);     // enough blocks already: no split
        if (p.splits > 1) REQUIRE(p.chunk >= 64);       // chunks are not tiny
      }
    }
  }
  const SplitPlan short_fat = plan_split(65536, 128, 2112, 1024, 4);  // 1024 x 65536 in v6
  REQUIRE(short_fat.splits == 17);
  REQUIRE(short_fat.splits * 128 >= 2112);
}

TEST_CASE("short_row_lanes and float4_peel", "[gemv][plan]") {
  REQUIRE(short_row_lanes(1, false) == 1);
  REQUIRE(short_row_lanes(3, false) == 4);
  REQUIRE(short_row_lanes(33, false) == 32);
  REQUIRE(short_row_lanes(4, true) == 1);
  REQUIRE(short_row_lanes(32, true) == 8);
  REQUIRE(short_row_lanes(100, true) == 32);
  REQUIRE(short_row_lanes(128, true) == 32);
  REQUIRE(short_row_lanes(100000, true) == 32);
  alignas(16) static float buf[16];
  REQUIRE(float4_peel(buf, 100) == 0);
  REQUIRE(float4_peel(buf + 1, 100) == 3);
  REQUIRE(float4_peel(buf + 3, 100) == 1);
  REQUIRE(float4_peel(buf + 1, 2) == 2);
}

TEST_CASE("the registry: unique names, ladders in order, ranges, one cuBLAS row per product", "[gemv][registry]") {
  std::set<std::string> names;
  int ax_ladder = 0, atx_ladder = 0, libraries = 0;
  const std::regex ax_name("v([0-9]+)_[a-z0-9_]+"), atx_name("t([0-9]+)_[a-z0-9_]+");
  for (const auto& v : versions()) {
    INFO(v.info.name);
    REQUIRE(names.insert(v.info.name).second);
    REQUIRE_FALSE(v.info.summary.empty());
    REQUIRE(v.launch != nullptr);
    std::smatch m;
    if (std::regex_match(v.info.name, m, ax_name)) {
      REQUIRE(v.op == Op::Ax);
      REQUIRE(std::stoi(m[1]) == ax_ladder++);
    } else if (std::regex_match(v.info.name, m, atx_name)) {
      REQUIRE(v.op == Op::ATx);
      REQUIRE(std::stoi(m[1]) == atx_ladder++);
    } else {
      REQUIRE(v.info.kind == tut::Kind::library);
      ++libraries;
    }
    if (v.outside_range != nullptr) {
      REQUIRE(v.outside_range(4096, 4096) != v.outside_range(4096, 32));  // a range that means something
    }
  }
  REQUIRE(ax_ladder == 7);
  REQUIRE(atx_ladder == 6);
  REQUIRE(libraries == 2);
  for (const auto& v : versions()) {
    if (v.info.name == "v5_short_rows") {
      REQUIRE(v.outside_range(65536, 128).empty());
      REQUIRE_FALSE(v.outside_range(65536, 129).empty());
    }
    if (v.info.name == "v6_split_k") {
      REQUIRE(v.outside_range(1024, 4096).empty());
      REQUIRE_FALSE(v.outside_range(65536, 1024).empty());
    }
  }
}

TEST_CASE("the traffic model counts A, x and y once", "[gemv][model]") {
  REQUIRE(bytes_moved(16384, 16384) == 4.0 * (16384.0 * 16384.0 + 2 * 16384.0));
  REQUIRE(bytes_moved(65536, 1024) == 4.0 * (65536.0 * 1024.0 + 65536.0 + 1024.0));
  REQUIRE(flops(1024, 65536) == 2.0 * 1024.0 * 65536.0);
  REQUIRE(x_length(Op::Ax, 3, 5) == 5);
  REQUIRE(y_length(Op::Ax, 3, 5) == 3);
  REQUIRE(x_length(Op::ATx, 3, 5) == 3);
  REQUIRE(y_length(Op::ATx, 3, 5) == 5);
}
