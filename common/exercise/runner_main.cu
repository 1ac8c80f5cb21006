// main() of every exercise runner (exercise_<chapter>, solution_<chapter>):
//
//     exercise_<chapter> REQUEST RESPONSE
//
// Reads the cases, runs each as wire.hpp describes, and appends one response record per case.
// Exit status: 0 every case answered (right or wrong is the checker's business), 3 no usable CUDA
// device, 4 a CUDA error left the GPU unusable (the cases after it are not answered), 2 bad usage.
#include <cuda_runtime.h>
#include <link.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/device_info.hpp"
#include "common/exercise/runner.hpp"
#include "common/timing.hpp"

namespace tut::exercise {

std::int64_t Call::i(const std::string& name) const {
  for (const auto& [k, v] : request_.ints)
    if (k == name) return v;
  throw std::out_of_range("case " + request_.name + " has no integer parameter " + name);
}

double Call::r(const std::string& name) const {
  for (const auto& [k, v] : request_.reals)
    if (k == name) return v;
  throw std::out_of_range("case " + request_.name + " has no real parameter " + name);
}

void* Call::ptr(const std::string& name) const {
  for (std::size_t a = 0; a < request_.arrays.size(); ++a)
    if (request_.arrays[a].name == name) return pointers_[a];
  throw std::out_of_range("case " + request_.name + " has no array " + name);
}

float* Call::f32(const std::string& name) const {
  for (const ArraySpec& a : request_.arrays) {
    if (a.name == name && a.dtype != DType::f32) throw std::invalid_argument("array " + name + " does not hold floats");
  }
  return static_cast<float*>(ptr(name));
}

namespace {

/// A CUDA error after which the context is unusable (every later call fails with it).
bool is_sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorUnknown:
      return true;
    default:
      return false;
  }
}

/// Thrown when the GPU can no longer be used: the runner answers this case and stops.
struct Fatal : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string cuda_text(cudaError_t e) { return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); }

/// Synchronizes `stream`; a failure of the work on it is returned as text ("" if none).
std::string finish(cudaStream_t stream) {
  cudaError_t e = cudaStreamSynchronize(stream);
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e == cudaSuccess) return "";
  if (is_sticky(e)) throw Fatal("the GPU reported " + cuda_text(e) + " (the kernel faulted)");
  return "the GPU reported " + cuda_text(e);
}

/// One case's device arrays, each with its guards.
class Arrays {
 public:
  explicit Arrays(const CaseRequest& c) : c_(c) {
    for (const ArraySpec& a : c.arrays) {
      const std::size_t lead = kGuardBytes + std::size_t{a.offset} * dtype_bytes(a.dtype);
      const std::size_t total = lead + a.bytes() + kGuardBytes;
      unsigned char* base = nullptr;
      CUDA_CHECK(cudaMalloc(&base, total));
      bases_.push_back(base);
      leads_.push_back(lead);
      CUDA_CHECK(cudaMemset(base, kGuardByte, total));
    }
    // cudaMemset may still be running when it returns: finish it before any upload, or a late
    // guard fill could overwrite the inputs.
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  ~Arrays() {
    for (unsigned char* b : bases_) cudaFree(b);
  }
  Arrays(const Arrays&) = delete;
  Arrays& operator=(const Arrays&) = delete;

  unsigned char* data(std::size_t a) const { return bases_[a] + leads_[a]; }
  std::vector<void*> pointers() const {
    std::vector<void*> p;
    for (std::size_t a = 0; a < bases_.size(); ++a) p.push_back(data(a));
    return p;
  }

  /// Uploads input set `set` (from the host request, or from the device copies in `pool`), and
  /// poisons the outputs and workspaces, on `stream`.
  void load(std::uint32_t set, cudaStream_t stream, const std::vector<std::vector<unsigned char*>>* pool = nullptr) {
    const std::vector<std::size_t> up = c_.uploaded();
    for (std::size_t i = 0; i < up.size(); ++i) {
      const std::size_t a = up[i];
      if (pool != nullptr) {
        CUDA_CHECK(cudaMemcpyAsync(data(a), (*pool)[set][i], c_.arrays[a].bytes(), cudaMemcpyDeviceToDevice, stream));
      } else {
        CUDA_CHECK(cudaMemcpyAsync(data(a), c_.data[set][i].data(), c_.arrays[a].bytes(), cudaMemcpyHostToDevice, stream));
      }
    }
    for (std::size_t a = 0; a < c_.arrays.size(); ++a) {
      const Role role = c_.arrays[a].role;
      if (role == Role::out || role == Role::scratch) {
        CUDA_CHECK(cudaMemsetAsync(data(a), kPoisonByte, c_.arrays[a].bytes(), stream));
      }
    }
  }

  /// Downloads every array with its guards (correctness runs), or only the outputs (timed runs).
  std::vector<ArrayBack> download(bool outputs_only) const {
    std::vector<ArrayBack> back(c_.arrays.size());
    for (std::size_t a = 0; a < c_.arrays.size(); ++a) {
      const Role role = c_.arrays[a].role;
      const bool checked = role == Role::out || role == Role::inout;
      if (outputs_only && !checked) continue;
      back[a].data.resize(c_.arrays[a].bytes());
      CUDA_CHECK(cudaMemcpy(back[a].data.data(), data(a), back[a].data.size(), cudaMemcpyDeviceToHost));
      if (outputs_only) continue;
      back[a].before.resize(leads_[a]);
      back[a].after.resize(kGuardBytes);
      CUDA_CHECK(cudaMemcpy(back[a].before.data(), bases_[a], leads_[a], cudaMemcpyDeviceToHost));
      CUDA_CHECK(cudaMemcpy(back[a].after.data(), data(a) + c_.arrays[a].bytes(), kGuardBytes, cudaMemcpyDeviceToHost));
    }
    return back;
  }

 private:
  const CaseRequest& c_;
  std::vector<unsigned char*> bases_;
  std::vector<std::size_t> leads_;
};

/// Calls the launcher; what it throws becomes the case's error.
std::string call_launcher(const CaseRequest& c, const Arrays& arrays, cudaStream_t stream) {
  try {
    call_exercise(Call(c, arrays.pointers()), stream);
  } catch (const std::exception& e) {
    return std::string("the launcher threw: ") + e.what();
  } catch (...) {
    return "the launcher threw something that is not a std::exception";
  }
  return "";
}

/// The shared objects mapped into this process (the checker refuses cuBLAS, cuDNN and the like).
std::vector<std::string> loaded_libraries() {
  std::vector<std::string> names;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') {
          static_cast<std::vector<std::string>*>(out)->push_back(info->dlpi_name);
        }
        return 0;
      },
      &names);
  return names;
}

/// Captures one call into a graph with set 0 loaded, then launches the graph on set 1.
void captured_run(const CaseRequest& c, Arrays& arrays, cudaStream_t stream, CaseBack& back, RunBack& run) {
  arrays.load(0, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
  std::string thrown = call_launcher(c, arrays, stream);
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  cudaGetLastError();  // a launch refused during capture is reported by EndCapture
  if (!thrown.empty() || ended != cudaSuccess || graph == nullptr) {
    back.capture_error = !thrown.empty() ? thrown : "capture failed: " + cuda_text(ended);
    if (graph != nullptr) cudaGraphDestroy(graph);
    return;
  }
  std::size_t count = 0;
  CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  if (count > 0) CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &count));
  back.kernel_nodes = 0;
  back.host_nodes = 0;
  for (cudaGraphNode_t n : nodes) {
    cudaGraphNodeType type{};
    CUDA_CHECK(cudaGraphNodeGetType(n, &type));
    if (type == cudaGraphNodeTypeKernel) ++back.kernel_nodes;
    if (type == cudaGraphNodeTypeHost) ++back.host_nodes;
  }
  cudaGraphExec_t exec = nullptr;
  const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  if (made != cudaSuccess) {
    back.capture_error = "the captured graph does not instantiate: " + cuda_text(made);
    return;
  }
  arrays.load(1, stream);
  const cudaError_t launched = cudaGraphLaunch(exec, stream);
  std::string error = launched == cudaSuccess ? finish(stream) : "graph launch failed: " + cuda_text(launched);
  cudaGraphExecDestroy(exec);
  if (!error.empty()) {
    back.capture_error = error;
    return;
  }
  run.set = 1;
  run.captured = true;
  run.arrays = arrays.download(false);
}

/// A correctness case: the direct run on set 0, then (with two sets) the captured run on set 1.
void correctness_case(std::uint32_t index, const CaseRequest& c, cudaStream_t stream, ResponseWriter& out) {
  CaseBack back;
  std::vector<RunBack> runs;
  Arrays arrays(c);
  arrays.load(0, stream);
  back.error = call_launcher(c, arrays, stream);
  if (back.error.empty()) back.error = finish(stream);
  if (back.error.empty()) {
    RunBack direct;
    direct.arrays = arrays.download(false);
    runs.push_back(std::move(direct));
    if (c.sets >= 2) {
      RunBack replay;
      captured_run(c, arrays, stream, back, replay);
      if (replay.captured) runs.push_back(std::move(replay));
    }
  }
  back.libraries = loaded_libraries();
  out.begin_case(index, back, static_cast<std::uint32_t>(runs.size()));
  for (const RunBack& r : runs) out.run(r);
  out.end_case();
}

/// A timed case: every repetition on a freshly loaded input set with poisoned outputs and a cold
/// L2, timed with events around the launcher alone; every repetition's outputs are sent.
void timed_case(std::uint32_t index, const CaseRequest& c, cudaStream_t stream, ResponseWriter& out) {
  CaseBack back;
  Arrays arrays(c);
  // Device copies of every input set, so that reloading between repetitions is a fast D2D copy.
  const std::vector<std::size_t> up = c.uploaded();
  std::vector<std::vector<unsigned char*>> pool(c.sets);
  for (std::uint32_t s = 0; s < c.sets; ++s) {
    for (std::size_t i = 0; i < up.size(); ++i) {
      unsigned char* p = nullptr;
      CUDA_CHECK(cudaMalloc(&p, c.data[s][i].size()));
      CUDA_CHECK(cudaMemcpy(p, c.data[s][i].data(), c.data[s][i].size(), cudaMemcpyHostToDevice));
      pool[s].push_back(p);
    }
  }
  CUDA_CHECK(cudaDeviceSynchronize());  // every copy into the pool has landed
  const auto free_pool = [&pool] {
    for (auto& set : pool)
      for (unsigned char* p : set) cudaFree(p);
  };
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  int l2 = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  L2Flusher flusher(static_cast<std::size_t>(l2));
  cudaEvent_t start = nullptr, stop = nullptr;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<RunBack> runs;
  try {
    for (std::uint32_t w = 0; w < c.warmup && back.error.empty(); ++w) {
      arrays.load(0, stream, &pool);
      back.error = call_launcher(c, arrays, stream);
      if (back.error.empty()) back.error = finish(stream);
    }
    for (std::uint32_t r = 0; r < c.reps && back.error.empty(); ++r) {
      const std::uint32_t set = r < c.order.size() ? c.order[r] : 0;
      if (set >= c.sets) throw std::invalid_argument("a repetition names an input set that does not exist");
      arrays.load(set, stream, &pool);
      flusher.flush(stream);
      CUDA_CHECK(cudaEventRecord(start, stream));
      back.error = call_launcher(c, arrays, stream);
      CUDA_CHECK(cudaEventRecord(stop, stream));
      if (back.error.empty()) back.error = finish(stream);
      if (!back.error.empty()) break;
      float ms = 0.0f;
      CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      RunBack run;
      run.set = set;
      run.ms = ms;
      run.arrays = arrays.download(true);
      runs.push_back(std::move(run));
    }
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    free_pool();
    throw;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  free_pool();
  back.libraries = loaded_libraries();
  out.begin_case(index, back, static_cast<std::uint32_t>(runs.size()));
  for (const RunBack& r : runs) out.run(r);
  out.end_case();
}

}  // namespace
}  // namespace tut::exercise

int main(int argc, char** argv) {
  using namespace tut::exercise;
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr,
                 "usage: %s REQUEST RESPONSE [FIRST]\n"
                 "Runs one exercise file on the cases of REQUEST (written by check_<chapter>), from case FIRST\n"
                 "on, and writes what came back to RESPONSE. The verdict is the checker's: run\n"
                 "python3 tools/exercise.py <chapter> instead of this.\n",
                 argv[0]);
    return 2;
  }
  std::string why;
  if (!tut::cuda_device_available(&why)) {
    std::fprintf(stderr, "no usable CUDA device (%s)\n", why.c_str());
    return 3;
  }
  std::uint32_t index = 0;
  try {
    const std::vector<CaseRequest> cases = read_request(argv[1]);
    const std::uint32_t first = argc == 4 ? static_cast<std::uint32_t>(std::stoul(argv[3])) : 0;
    ResponseWriter out(argv[2]);
    // A blocking stream: work a launcher puts on the legacy default stream by mistake is still
    // ordered with it (and the harness's own copies on the legacy stream are too).
    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreate(&stream));
    for (index = first; index < cases.size(); ++index) {
      std::fprintf(stderr, "case %u: %s\n", index, cases[index].name.c_str());
      if (cases[index].reps > 0) {
        timed_case(index, cases[index], stream, out);
      } else {
        correctness_case(index, cases[index], stream, out);
      }
    }
    cudaStreamDestroy(stream);
  } catch (const Fatal& e) {
    std::fprintf(stderr, "case %u: %s; stopping\n", index, e.what());
    return 4;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "case %u: %s\n", index, e.what());
    return 4;
  }
  return 0;
}
