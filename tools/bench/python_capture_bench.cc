// The cost of one captured Python stack, measured alone: embeds the CPython it is built against,
// runs Python code that recurses to DEPTH frames and there calls into this program, which (with
// the GIL released, as inside a CUDA call made by PyTorch) times CapturePythonFrames from the
// shim's core library over a segment in heap memory — the walk plus code ids, then also the
// interning of a stack of 30 native PCs + the Python entries, as CommitHostRecord does.
// Built and run by tools/bench/python_stack_bench.sh; prints "name median_ns" lines.
//
// Must never: be part of the shim, or time anything but those calls.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "shim/python_frames.h"
#include "shim/ring_format.h"
#include "shim/slot_tables.h"

namespace {

namespace ring = brrr::ring;
namespace shim = brrr::shim;

uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);  // CPU time: robust on a loaded machine
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void* Lookup(const char* name) { return dlsym(RTLD_DEFAULT, name); }

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

PyObject* Measure(PyObject*, PyObject* args) {
  int calls = 0, reps = 0;
  if (!PyArg_ParseTuple(args, "ii", &calls, &reps) || calls < 1 || reps < 1) return nullptr;
  auto header = std::make_unique<ring::SegmentHeader>();
  std::vector<ring::CodeSlot> codes(ring::kDefaultCodeSlots);
  std::vector<ring::StackSlot> stacks(ring::kDefaultStackSlots);
  shim::PythonFramesSetup setup;
  setup.header = header.get();
  setup.code_slots = codes.data();
  setup.code_slot_count = ring::kDefaultCodeSlots;
  if (shim::InitPythonFrames(setup, &Lookup) != ring::PythonStatus::kActive) {
    PyErr_SetString(PyExc_RuntimeError, "the shim did not accept this CPython");
    return nullptr;
  }
  std::vector<double> capture(static_cast<size_t>(reps)), interned(static_cast<size_t>(reps));
  uint32_t depth = 0;
  Py_BEGIN_ALLOW_THREADS;
  uint64_t pcs[ring::kMaxStackEntries];
  for (uint32_t i = 0; i < ring::kMaxStackDepth; ++i) pcs[i] = 0x400000 + 64 * i;  // native part
  depth = shim::CapturePythonFrames(pcs, ring::kMaxPythonDepth);  // warm: code objects cross
  for (int r = 0; r < reps; ++r) {
    uint64_t t0 = NowNs();
    for (int i = 0; i < calls; ++i) {
      depth = shim::CapturePythonFrames(pcs + ring::kMaxStackDepth, ring::kMaxPythonDepth);
      asm volatile("" : : "r"(pcs) : "memory");
    }
    capture[static_cast<size_t>(r)] = static_cast<double>(NowNs() - t0) / calls;
    t0 = NowNs();
    for (int i = 0; i < calls; ++i) {
      const uint32_t n = shim::CapturePythonFrames(pcs + ring::kMaxStackDepth,
                                                   ring::kMaxPythonDepth);
      const uint32_t id = shim::InternStack(stacks.data(), ring::kDefaultStackSlots, pcs,
                                            ring::kMaxStackDepth + n, &header->stacks_overflow);
      asm volatile("" : : "r"(id) : "memory");
    }
    interned[static_cast<size_t>(r)] = static_cast<double>(NowNs() - t0) / calls;
  }
  Py_END_ALLOW_THREADS;
  shim::DisablePythonFrames();
  return Py_BuildValue("(ddIK)", Median(capture), Median(interned), depth,
                       static_cast<unsigned long long>(header->python_failures.load()));
}

PyMethodDef kMethods[] = {{"measure", Measure, METH_VARARGS, nullptr}, {nullptr, nullptr, 0, nullptr}};
PyModuleDef kModule = {PyModuleDef_HEAD_INIT, "capturebench", nullptr, -1, kMethods};
PyObject* InitModule() { return PyModule_Create(&kModule); }

const char kScript[] = R"(
import os
import capturebench
DEPTH = int(os.environ.get("DEPTH", "30"))
CALLS = int(os.environ.get("CALLS", "20000"))
REPETITIONS = int(os.environ.get("REPETITIONS", "15"))

def nested(levels):
    if levels <= 1:
        return capturebench.measure(CALLS, REPETITIONS)
    return nested(levels - 1)

# This module's frame + DEPTH - 1 nested() frames.
capture, interned, depth, failures = nested(DEPTH - 1)
print("capture_alone %.1f" % capture)
print("capture_and_intern %.1f" % interned)
print("# python_frames %d" % depth)
print("# python_failures %d" % failures)
)";

}  // namespace

int main() {
  PyImport_AppendInittab("capturebench", &InitModule);
  Py_Initialize();
  const int rc = PyRun_SimpleString(kScript);
  Py_FinalizeEx();
  return rc == 0 ? 0 : 1;
}
