// brrr_pybench: the CPython extension tools/bench/python_stack_bench.sh builds (nvcc, against one
// python3) to time libbrrr.so's hooks when the caller is Python: loops of kernel launches or
// stream queries with the GIL released (as PyTorch's bindings do), on the calling Python thread
// or on a C++ thread without Python state. It also plays the collector's part the way
// shim/shim_benchmark.cu does (creates the segment `brrr run` would, keeps the rings drained) and
// reads back what the shim wrote about Python (status, failures, the deepest Python stack seen,
// sampled launches), so the figures come with evidence that the frames were really captured.
//
// Must never: link the shim or the project's libraries (it stands for an unmodified extension).
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "shim/segment_layout.h"

namespace {

namespace ring = brrr::ring;

__global__ void empty_kernel() {}

uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);  // CPU time: robust on a loaded machine
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// n calls of `kind` (0: launch, 1: stream query); returns ns per call.
double Loop(int kind, long n) {
  const uint64_t t0 = NowNs();
  if (kind == 0) {
    for (long i = 0; i < n; ++i) empty_kernel<<<1, 1>>>();
  } else {
    for (long i = 0; i < n; ++i) (void)cudaStreamQuery(0);
  }
  const double ns = static_cast<double>(NowNs() - t0) / static_cast<double>(n);
  cudaDeviceSynchronize();  // outside the timed part: the simulated device catches up
  return ns;
}

// run(kind, calls, repetitions, native_thread) -> [ns per call] * repetitions, after one
// warm-up loop; native_thread: all loops on one C++ thread that has no Python state.
PyObject* Run(PyObject*, PyObject* args) {
  int kind = 0;
  long n = 0;
  int reps = 0;
  int native_thread = 0;
  if (!PyArg_ParseTuple(args, "ilii", &kind, &n, &reps, &native_thread)) return nullptr;
  if (reps < 1 || reps > 1000 || n < 1) {
    PyErr_SetString(PyExc_ValueError, "bad counts");
    return nullptr;
  }
  std::vector<double> ns(static_cast<size_t>(reps));
  auto all = [&] {
    Loop(kind, n);
    for (double& v : ns) v = Loop(kind, n);
  };
  Py_BEGIN_ALLOW_THREADS;
  if (native_thread != 0) {
    std::thread t(all);
    t.join();
  } else {
    all();
  }
  Py_END_ALLOW_THREADS;
  PyObject* list = PyList_New(reps);
  for (int i = 0; i < reps; ++i) PyList_SET_ITEM(list, i, PyFloat_FromDouble(ns[i]));
  return list;
}

void* g_base = nullptr;
ring::SegmentGeometry g_geometry;
ring::SegmentLayout g_layout;
std::atomic<bool> g_stop{false};
std::atomic<uint64_t> g_records{0};
std::atomic<uint64_t> g_launch_samples{0};
std::thread* g_drainer = nullptr;

void Drain() {
  while (!g_stop.load(std::memory_order_relaxed)) {
    for (uint32_t i = 0; i < g_geometry.max_threads; ++i) {
      ring::RingHeader* r = ring::ThreadRingAt(g_base, g_layout, i);
      const uint32_t s = r->state.load(std::memory_order_acquire);
      if (s != static_cast<uint32_t>(ring::RingState::kActive) &&
          s != static_cast<uint32_t>(ring::RingState::kRetired)) {
        continue;
      }
      const uint64_t w = r->write_index.load(std::memory_order_acquire);
      const ring::HostRecord* recs = ring::ThreadRecords(r);
      for (uint64_t k = r->read_index.load(std::memory_order_relaxed); k < w; ++k) {
        const ring::HostRecord& rec = recs[k & (g_geometry.ring_capacity - 1)];
        if (rec.flags & ring::kRecordLaunchSample) g_launch_samples.fetch_add(1);
        g_records.fetch_add(1, std::memory_order_relaxed);
      }
      r->read_index.store(w, std::memory_order_release);
    }
    usleep(200);
  }
}

PyObject* CreateSegment(PyObject*, PyObject*) {
  const std::string name = "/brrr-pybench-" + std::to_string(getpid());
  const ring::SegmentGeometry g;
  const ring::SegmentLayout l = ring::ComputeLayout(g);
  const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0 || ftruncate(fd, static_cast<off_t>(l.segment_size)) != 0) {
    return PyErr_SetFromErrno(PyExc_OSError);
  }
  void* base = mmap(nullptr, l.segment_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (base == MAP_FAILED) return PyErr_SetFromErrno(PyExc_OSError);
  ring::WriteGeometry(g, static_cast<ring::SegmentHeader*>(base));
  munmap(base, l.segment_size);
  return PyUnicode_FromString(name.c_str());
}

PyObject* Attach(PyObject*, PyObject* args) {
  const char* name = nullptr;
  if (!PyArg_ParseTuple(args, "s", &name)) return nullptr;
  const int fd = shm_open(name, O_RDWR, 0);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) return PyErr_SetFromErrno(PyExc_OSError);
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  g_base = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (g_base == MAP_FAILED ||
      ring::ValidateHeader(*static_cast<ring::SegmentHeader*>(g_base), size, &g_geometry,
                           &g_layout) != ring::HeaderCheck::kOk) {
    PyErr_SetString(PyExc_RuntimeError, "bad segment");
    return nullptr;
  }
  g_drainer = new std::thread(Drain);
  Py_RETURN_NONE;
}

// What the shim wrote about Python; the deepest Python stack in the stack table, innermost and
// outermost frames named from their code slots.
PyObject* Summary(PyObject*, PyObject*) {
  if (g_base == nullptr) Py_RETURN_NONE;
  const auto* h = static_cast<const ring::SegmentHeader*>(g_base);
  const ring::StackSlot* stacks =
      ring::StackSlotsAt(const_cast<void*>(g_base), g_layout);
  const ring::CodeSlot* codes = ring::CodeSlotsAt(const_cast<void*>(g_base), g_layout);
  uint32_t deepest = 0;
  const ring::StackSlot* best = nullptr;
  for (uint32_t i = 0; i < g_geometry.stack_slots; ++i) {
    const ring::StackSlot& s = stacks[i];
    if (s.ready.load(std::memory_order_acquire) != 1) continue;
    uint32_t python = 0;
    for (uint32_t d = 0; d < s.depth && d < ring::kMaxStackEntries; ++d)
      python += ring::IsPythonFrame(s.pcs[d]) ? 1 : 0;
    if (python > deepest) {
      deepest = python;
      best = &s;
    }
  }
  auto name = [&](uint64_t e) -> std::string {
    const uint32_t id = ring::PythonCodeId(e);
    if (id == 0 || id > g_geometry.code_slots) return "?";
    const ring::CodeSlot& c = codes[id - 1];
    if (c.ready.load(std::memory_order_acquire) != 1) return "?";
    return std::string(c.data + c.filename_length, c.qualname_length) + " (" +
           std::string(c.data, c.filename_length) + ") @" + std::to_string(ring::PythonOffset(e));
  };
  std::string innermost = "-", outermost = "-";
  if (best != nullptr) {
    for (uint32_t d = 0; d < best->depth; ++d) {
      if (!ring::IsPythonFrame(best->pcs[d])) continue;
      if (innermost == "-") innermost = name(best->pcs[d]);
      outermost = name(best->pcs[d]);
    }
  }
  return Py_BuildValue("{s:I,s:I,s:I,s:K,s:K,s:I,s:K,s:K,s:s,s:s}", "python_status",
                       h->python_status.load(), "python_version", h->python_version.load(),
                       "launch_sample_period", h->launch_sample_period, "python_failures",
                       static_cast<unsigned long long>(h->python_failures.load()),
                       "code_overflow", static_cast<unsigned long long>(h->code_overflow.load()),
                       "deepest_python_stack", deepest, "records",
                       static_cast<unsigned long long>(g_records.load()), "launch_samples",
                       static_cast<unsigned long long>(g_launch_samples.load()), "innermost",
                       innermost.c_str(), "outermost", outermost.c_str());
}

PyMethodDef kMethods[] = {
    {"run", Run, METH_VARARGS, "run(kind, n, native_thread) -> ns per call"},
    {"create_segment", CreateSegment, METH_NOARGS, "create a brrr segment; returns its name"},
    {"attach", Attach, METH_VARARGS, "map the segment and keep its rings drained"},
    {"summary", Summary, METH_NOARGS, "what the shim wrote about Python"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef kModule = {PyModuleDef_HEAD_INIT, "brrr_pybench", nullptr, -1, kMethods};

}  // namespace

PyMODINIT_FUNC PyInit_brrr_pybench() { return PyModule_Create(&kModule); }
