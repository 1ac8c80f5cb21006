// GPU tests of chapter 02: every registered version, for every operation it implements,
// against the CPU reference: exactly on integer-valued inputs over the size sweep and at
// misaligned starts, within the documented tolerance on real-valued inputs, with the right
// identity (n = 0, all-negative and -inf inputs for max), and beyond 2^31 elements ([large]).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/device_buffer.hpp"
#include "test_support.hpp"

using namespace reduce;
using reduce::testing::Offsets;
using reduce::testing::require_results;
using reduce::testing::run_three_times;
using reduce::testing::same_bits;

namespace {

const std::vector<Operation> kOperations = {Operation::sum, Operation::max, Operation::dot};

/// The largest size of the sweep: one Workspace of that size serves every smaller case.
std::int64_t largest_size() {
  const auto sizes = tut::testing::sizes_1d();
  return *std::max_element(sizes.begin(), sizes.end());
}

/// A RunOnce for version `v` and operation `op`.
reduce::testing::RunOnce runner(const Version& v, Operation op, std::int64_t n, Workspace& ws) {
  return [&v, op, n, &ws](const float* x, const float* y, float* out) {
    ws.poison_partials();  // a version that reads a partial it never wrote gets NaN
    v.launch(op, x, y, out, n, ws, nullptr);
  };
}

/// Integer-valued inputs for `op` at size n: their sums are exact, so the result must be too.
void make_integer_inputs(Operation op, std::size_t n, std::uint64_t seed, std::vector<float>& x,
                         std::vector<float>& y) {
  const int k = exact_integer_range(op, static_cast<std::int64_t>(n));
  x = integer_values(n, tut::derive_seed(seed, 0), k);
  y = op == Operation::dot ? integer_values(n, tut::derive_seed(seed, 1), k) : std::vector<float>{};
}

/// Requires all results to equal the (exactly representable) reference bit for bit.
void require_exact(const std::vector<float>& results, const Reference& ref) {
  const float expected = static_cast<float>(ref.value);
  REQUIRE(static_cast<double>(expected) == ref.value);  // the reference itself is a float
  for (float got : results) {
    INFO("got " << got << ", expected exactly " << expected);
    REQUIRE(same_bits(got, expected));
  }
}

}  // namespace

TEST_CASE("every version is exact on integer-valued inputs over the size sweep", "[reduce][sweep][exact]") {
  Workspace ws(largest_size());
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      for (Operation op : kOperations) {
        if (!(v.ops & operation_bit(op))) continue;
        for (std::int64_t n : tut::testing::sizes_1d()) {
          INFO(v.info.name << ", " << operation_name(op) << ", n = " << n);
          std::vector<float> hx, hy;
          make_integer_inputs(op, static_cast<std::size_t>(n), tut::testing::seed() + n, hx, hy);
          const Reference ref = reference(op, hx.data(), hy.data(), hx.size());
          require_exact(run_three_times(runner(v, op, n, ws), hx, hy), ref);
        }
      }
    }
  }
}

TEST_CASE("every version is exact at misaligned starts", "[reduce][misaligned]") {
  // Equal offsets exercise the scalar head before the float4 body; unequal ones (dot only),
  // the all-scalar fallback.
  const std::vector<Offsets> offsets = {{1, 1}, {2, 2}, {3, 3}, {1, 2}, {0, 3}, {3, 0}};
  Workspace ws(70000);
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      for (Operation op : kOperations) {
        if (!(v.ops & operation_bit(op))) continue;
        for (std::int64_t n : {1, 2, 3, 4, 5, 7, 33, 1000, 4097, 65537}) {
          for (const Offsets& off : offsets) {
            INFO(v.info.name << ", " << operation_name(op) << ", n = " << n);
            std::vector<float> hx, hy;
            make_integer_inputs(op, static_cast<std::size_t>(n), tut::testing::seed() + 7 * n, hx, hy);
            const Reference ref = reference(op, hx.data(), hy.data(), hx.size());
            require_exact(run_three_times(runner(v, op, n, ws), hx, hy, off), ref);
          }
        }
      }
    }
  }
}

TEST_CASE("every version is within the documented tolerance on real-valued inputs", "[reduce][sweep][tolerance]") {
  Workspace ws(largest_size());
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      for (Operation op : kOperations) {
        if (!(v.ops & operation_bit(op))) continue;
        for (std::int64_t n : tut::testing::sizes_1d()) {
          const std::size_t un = static_cast<std::size_t>(n);
          const std::uint64_t seed = tut::testing::seed() * 3 + n;
          // Signed data (mean 0) and positive data (mean 0.5: a large sum, where a serial float
          // sum drifts), each version within the bound of its own summation order.
          for (const bool positive : {false, true}) {
            INFO(v.info.name << " (" << order_name(v.order) << " order), " << operation_name(op) << ", n = " << n
                             << (positive ? ", positive" : ", signed"));
            const float lo = positive ? 0.0f : -1.0f;
            const std::vector<float> hx = tut::random_floats(un, tut::derive_seed(seed, 0), lo, 1.0f);
            const std::vector<float> hy =
                op == Operation::dot ? tut::random_floats(un, tut::derive_seed(seed, 1), lo, 1.0f) : std::vector<float>{};
            const Reference ref = reference(op, hx.data(), hy.data(), un);
            require_results(run_three_times(runner(v, op, n, ws), hx, hy), ref, tolerance(op, n, v.order),
                            v.deterministic);
          }
        }
      }
    }
  }
}

TEST_CASE("positive data at n >= 10^6, misaligned: each version within its own order's bound",
          "[reduce][tolerance][positive]") {
  // What a student runs: `reduce --check-only --n 999999 --offset 1 --dist positive`. v0's
  // serial chain of atomics errs there by ~1e-5 relative, 5x a tree's bound: its verdict
  // must come from the bound of a serial chain, and the trees' from a tree's.
  Workspace ws(1000000);
  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      for (Operation op : {Operation::sum, Operation::dot}) {
        if (!(v.ops & operation_bit(op))) continue;
        for (std::int64_t n : {999999, 1000000}) {
          const std::size_t un = static_cast<std::size_t>(n);
          const std::uint64_t seed = tut::testing::seed() * 5 + n;
          const std::vector<float> hx = tut::random_floats(un, tut::derive_seed(seed, 0), 0.0f, 1.0f);
          const std::vector<float> hy = op == Operation::dot ? tut::random_floats(un, tut::derive_seed(seed, 1), 0.0f, 1.0f)
                                                             : std::vector<float>{};
          const Reference ref = reference(op, hx.data(), hy.data(), un);
          const tut::Tolerance tol = tolerance(op, n, v.order);
          INFO(v.info.name << " (" << order_name(v.order) << " order), " << operation_name(op) << ", n = " << n
                           << ", positive, offset 1; " << tol.why);
          require_results(run_three_times(runner(v, op, n, ws), hx, hy, {1, 1}), ref, tol, v.deterministic);
        }
      }
    }
  }
}

TEST_CASE("max uses -inf as its identity: all-negative inputs and -inf elements", "[reduce][max][identity]") {
  Workspace ws(70000);
  for (const auto& v : versions()) {
    if (!(v.ops & kMax)) continue;
    DYNAMIC_SECTION(v.info.name) {
      for (std::int64_t n : {1, 2, 31, 32, 33, 255, 257, 1000, 4097, 65537}) {
        const std::size_t un = static_cast<std::size_t>(n);
        // All values in [-2, -1): a version that pads partial blocks or warps with 0 returns 0.
        std::vector<float> hx = tut::random_floats(un, tut::derive_seed(tut::testing::seed(), n), -2.0f, -1.0f);
        INFO(v.info.name << ", n = " << n << ", all negative");
        require_exact(run_three_times(runner(v, Operation::max, n, ws), hx, {}),
                      reference(Operation::max, hx.data(), nullptr, un));
        // Every third element -inf (including the first): the max is the largest finite one.
        for (std::size_t i = 0; i < un; i += 3) hx[i] = -std::numeric_limits<float>::infinity();
        if (n > 1) {
          INFO(v.info.name << ", n = " << n << ", with -inf elements");
          require_exact(run_three_times(runner(v, Operation::max, n, ws), hx, {}),
                        reference(Operation::max, hx.data(), nullptr, un));
        }
      }
    }
  }
}

TEST_CASE("our versions return the identity for n = 0 and -inf for all--inf input", "[reduce][identity]") {
  // CUB's Max starts from -FLT_MAX, not -inf, so library rows are left out of these two cases.
  Workspace ws(1000);
  const float inf = std::numeric_limits<float>::infinity();
  for (const auto& v : versions()) {
    if (v.info.kind != tut::Kind::ours) continue;
    DYNAMIC_SECTION(v.info.name) {
      for (Operation op : kOperations) {
        INFO(v.info.name << ", " << operation_name(op) << ", n = 0");
        const float identity = op == Operation::max ? -inf : 0.0f;
        for (float got : run_three_times(runner(v, op, 0, ws), {}, {})) REQUIRE(same_bits(got, identity));
      }
      for (std::int64_t n : {1, 33, 1000}) {
        INFO(v.info.name << ", max of " << n << " x -inf");
        const std::vector<float> hx(static_cast<std::size_t>(n), -inf);
        for (float got : run_three_times(runner(v, Operation::max, n, ws), hx, {})) REQUIRE(same_bits(got, -inf));
      }
    }
  }
}

TEST_CASE("a negative n is refused with std::invalid_argument", "[reduce][bad-input]") {
  Workspace ws(16);
  tut::DeviceBuffer<float> x(16), out(1);
  for (const auto& v : versions()) {
    for (Operation op : kOperations) {
      if (!(v.ops & operation_bit(op))) continue;
      INFO(v.info.name << ", " << operation_name(op));
      REQUIRE_THROWS_AS(v.launch(op, x.data(), x.data(), out.data(), -1, ws, nullptr), std::invalid_argument);
    }
  }
}

namespace {

/// Sum over [0, n) of f(i) in int64, on all the CPU's threads (the [large] references).
template <class F>
std::int64_t parallel_integer_sum(std::size_t n, F f) {
  const std::size_t workers = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::int64_t> parts(workers, 0);
  std::vector<std::thread> threads;
  const std::size_t per = (n + workers - 1) / workers;
  for (std::size_t w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      std::int64_t s = 0;
      for (std::size_t i = w * per; i < std::min(n, (w + 1) * per); ++i) s += f(i);
      parts[w] = s;
    });
  }
  for (auto& t : threads) t.join();
  std::int64_t total = 0;
  for (std::int64_t p : parts) total += p;
  return total;
}

}  // namespace

TEST_CASE("n above 2^31: no 32-bit index overflow", "[reduce][large]") {
  const std::int64_t n = (std::int64_t{1} << 31) + (1 << 20) + 3;
  const std::size_t un = static_cast<std::size_t>(n);
  const double needed = 2.0 * 4.0 * static_cast<double>(n) + (2ull << 30);  // x and y, plus workspace and slack
  if (tut::testing::sanitizing() || static_cast<double>(tut::testing::free_device_bytes()) < needed) {
    tut::testing::skip_run("the [large] case needs 2 x 8.6 GB of free GPU memory (and no sanitizer)");
    return;
  }
  // Integer inputs in {-1, 0, 1}, made on the GPU; the references recomputed on the CPU in
  // exact integer arithmetic. Every partial sum of any order stays far below 2^24 with
  // overwhelming probability (Hoeffding: P(|any partial| >= 2^24) < 2^32 * 2 exp(-2^16)),
  // so every correct version is exact; an index that wraps at 2^31 changes the sum.
  const std::uint64_t sx = tut::derive_seed(tut::testing::seed(), 10), sy = tut::derive_seed(tut::testing::seed(), 11);
  tut::DeviceBuffer<float> x(un), y(un), out(1);
  fill_integers_device(x.data(), un, sx, 1);
  fill_integers_device(y.data(), un, sy, 1);
  // Catch2 runs the test case once per section: compute the CPU references only once.
  static std::uint64_t cached_seed = 0;
  static std::int64_t exact_sum = 0, exact_dot = 0;
  if (cached_seed != sx) {
    exact_sum = parallel_integer_sum(un, [&](std::size_t i) { return static_cast<std::int64_t>(integer_value(sx, i, 1)); });
    exact_dot = parallel_integer_sum(un, [&](std::size_t i) {
      return static_cast<std::int64_t>(integer_value(sx, i, 1) * integer_value(sy, i, 1));
    });
    cached_seed = sx;
  }
  Workspace ws(n);
  const auto result_of = [&](const Version& v, Operation op, const float* in) {
    out.poison();
    ws.poison_partials();
    v.launch(op, in, y.data(), out.data(), n, ws, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    return out.to_host()[0];
  };

  for (const auto& v : versions()) {
    DYNAMIC_SECTION(v.info.name) {
      if (v.ops & kSum) {
        INFO(v.info.name << ": sum of " << n << " integers in {-1, 0, 1}");
        REQUIRE(result_of(v, Operation::sum, x.data()) == static_cast<float>(exact_sum));
      }
      if (v.ops & kDot) {
        INFO(v.info.name << ": dot of " << n << " integers in {-1, 0, 1}");
        REQUIRE(result_of(v, Operation::dot, x.data()) == static_cast<float>(exact_dot));
      }
      if (v.ops & kMax) {
        // x's values are at most 1; a single 2.5 placed past 2^31 must be found.
        const float big = 2.5f;
        float saved = 0.0f;
        CUDA_CHECK(cudaMemcpy(&saved, x.data() + (n - 7), sizeof saved, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(x.data() + (n - 7), &big, sizeof big, cudaMemcpyHostToDevice));
        INFO(v.info.name << ": max with the largest element at index n - 7 > 2^31");
        const float got = result_of(v, Operation::max, x.data());
        CUDA_CHECK(cudaMemcpy(x.data() + (n - 7), &saved, sizeof saved, cudaMemcpyHostToDevice));
        REQUIRE(got == big);
      }
    }
  }
}
