// Chapter 01 executable: runs every elementwise version plus the copy roofs on one problem (or
// the size sweep), checks each against the CPU reference, times it, prints the tables.
//
//   elementwise                       # n = 2^28 floats, all versions
//   elementwise --n 2^20 --offset 1   # a misaligned start: the float4 versions peel 1..3 elements
//   elementwise --version v3_float4 --version v4_float4_ilp
//   elementwise --sweep --json sweep.json
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/device_compare.hpp"
#include "common/harness.hpp"
#include "common/random.hpp"
#include "elementwise.hpp"

namespace elementwise {

namespace {

/// Chapter 01 for tut::chapter_main().
class ElementwiseChapter final : public tut::Chapter {
 public:
  std::string name() const override { return "elementwise"; }
  std::string description() const override {
    return "Chapter 01: elementwise kernels (vector add ladder, ReLU, sigmoid, fusion) against the copy roof.";
  }

  void add_options(tut::Cli& cli) override {
    cli.add_int("--n", "N", "elements per array (default 2^28)", &n_, 1, std::int64_t{1} << 36);
    cli.add_int("--offset", "K", "start every array K floats past a 16-byte boundary (0..3)", &offset_, 0, 3);
  }

  std::vector<tut::VersionInfo> versions() const override { return tut::infos_of(elementwise::versions()); }

  std::vector<tut::Problem> problems(bool sweep) const override {
    const std::vector<std::int64_t> sizes = sweep ? tut::around_powers_of_two({10, 14, 18, 22, 26}) : std::vector{n_};
    std::vector<tut::Problem> list;
    for (std::int64_t n : sizes) {
      for (const Tables table : {kAddTable, kOpsTable}) {
        tut::Problem p;
        p.label = std::string(table == kAddTable ? "add" : "ops") + " n=" + std::to_string(n) +
                  (offset_ ? " offset=" + std::to_string(offset_) : "");
        p.what = table;  // which table: run() reads it back with as<Tables>()
        p.shape = {{"n", n}, {"offset", offset_}};
        const double elems = static_cast<double>(n + offset_);
        p.device_bytes = 3.0 * 4.0 * elems + 8.0 * elems;  // two inputs, one output, the reference (double)
        p.host_bytes = 2.0 * 4.0 * elems + 8.0 * elems;    // host copies of the inputs, the reference
        list.push_back(p);
      }
    }
    return list;
  }

  void run(const tut::Problem& problem, tut::Session& session) override {
    const Tables table = problem.as<Tables>();
    const bool add = table == kAddTable;
    const std::int64_t n = problem.dim("n");
    const std::int64_t off = problem.dim("offset");
    bool selected = false;
    for (const auto& v : elementwise::versions()) selected = selected || ((v.tables & table) && session.wants(v.info.name));
    if (!selected) return;  // nothing to show in this table

    // Inputs: the add ladder on [-1, 1); the other operations on [-4, 4), where ReLU and the
    // sigmoid have both halves of their range to get right.
    const float lo = add ? -1.0f : -4.0f, hi = add ? 1.0f : 4.0f;
    const std::size_t total = static_cast<std::size_t>(n + off);
    tut::DeviceBuffer<float> a(total), b(total), out(total);
    tut::fill_random_device(a.data(), total, tut::derive_seed(session.seed(), 0), lo, hi);
    tut::fill_random_device(b.data(), total, tut::derive_seed(session.seed(), 1), lo, hi);
    const std::vector<float> ha = a.to_host(), hb = b.to_host();

    // The CPU reference of one operation, in double, uploaded once and compared on the GPU
    // (tut::DeviceReference): checking 2^28 elements twice per version on the CPU took most
    // of this chapter's run time. Versions of the same operation share it.
    double (*ref_of)(double, double) = nullptr;
    tut::DeviceReference device_ref;
    const auto reference_for = [&](double (*reference)(double, double)) -> const tut::DeviceReference& {
      if (reference != ref_of) {
        session.status("CPU reference");
        device_ref = tut::DeviceReference();  // free the previous one first
        device_ref = tut::DeviceReference::compute(static_cast<std::size_t>(n), [&](std::size_t i) {
          const std::size_t k = i + static_cast<std::size_t>(off);
          return reference(ha[k], hb[k]);
        });
        ref_of = reference;
      }
      return device_ref;
    };

    session.begin_problem(problem, tut::Metric::gbps, session.device().copy_gbps,
                          "device-to-device cudaMemcpy, measured at start-up");
    tut::ProblemResult& result = session.current();
    result.baseline = add ? "v0_block32" : "axpb_relu_unfused";
    result.library = "cudaMemcpy";

    const auto measure = [&](const tut::VersionInfo& info, Launch launch, int inputs, int streams,
                             double (*reference)(double, double), const tut::Tolerance& tol, std::string skip) {
      tut::Candidate c;
      c.info = info;
      c.bytes = 4.0 * streams * static_cast<double>(n);
      c.tolerance = tol;
      c.skip_reason = std::move(skip);
      const float* in1 = inputs == 2 ? b.data() + off : nullptr;
      c.run = [&, launch, in1](cudaStream_t s) { launch(a.data() + off, in1, out.data() + off, n, s); };
      c.poison = [&](cudaStream_t s) { out.poison(s); };
      c.check = [&, reference]() { return reference_for(reference).check(out.data() + off, tol, session.stream()); };
      session.measure(c, name());
    };

    for (const auto& v : elementwise::versions()) {
      if (v.tables & table) measure(v.info, v.launch, v.inputs, v.streams, v.reference, v.tolerance, "");
    }
  }

 private:
  std::int64_t n_ = std::int64_t{1} << 28;
  std::int64_t offset_ = 0;
};

}  // namespace

}  // namespace elementwise

int main(int argc, char** argv) {
  elementwise::ElementwiseChapter chapter;
  return tut::chapter_main(chapter, argc, argv);
}
