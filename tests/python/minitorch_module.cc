// minitorch: a CPython extension that behaves like PyTorch where brrr looks — the test bed of the
// Python end-to-end tests. Like PyTorch's bindings (THPVariable_item, dispatch_to,
// THCPModule_cudaSynchronize) every function releases the GIL (Py_BEGIN_ALLOW_THREADS) around its
// CUDA calls, so the shim sees each call from a thread that holds no GIL; nvtx_push/nvtx_pop are
// torch.cuda.nvtx.range_push/range_pop (nvtx3, header only).
//
//   alloc(n) -> Buffer            cudaMalloc of n floats (a capsule)
//   launch_add(buf)               one kernel launch over the buffer
//   item(buf) -> float            D2H cudaMemcpy of one float: Tensor.item()
//   copy_async_pageable(buf, b)   cudaMemcpyAsync from pageable memory (the bytes-like b)
//   synchronize()                 cudaDeviceSynchronize
//   profiler_start(), profiler_stop()   cudaProfilerStart / cudaProfilerStop
//                                 (torch.cuda.profiler.start/stop)
//   free(buf)                     cudaFree
//   run_in_cpp_thread(buf, k)     k launches + cudaDeviceSynchronize from a std::thread with no
//                                 Python thread state
//   nvtx_push(name) -> depth, nvtx_pop() -> depth
//
// Must never: call CUDA with the GIL held, or touch Python objects while the GIL is released.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <nvtx3/nvToolsExt.h>

#include <cstddef>

#include "tests/python/minitorch_cuda.h"

namespace {

constexpr char kBufferName[] = "minitorch.Buffer";

struct Buffer {
  float* data = nullptr;  // null after free()
  Py_ssize_t n = 0;       // floats
};

void DestroyBuffer(PyObject* capsule) {
  // Device memory is not freed here: a cudaFree the script did not ask for would be a stall the
  // tests do not expect.
  delete static_cast<Buffer*>(PyCapsule_GetPointer(capsule, kBufferName));
}

// The live buffer behind `obj`, or null with an exception set.
Buffer* LiveBuffer(PyObject* obj) {
  auto* buffer = static_cast<Buffer*>(PyCapsule_GetPointer(obj, kBufferName));
  if (buffer == nullptr) return nullptr;
  if (buffer->data == nullptr) {
    PyErr_SetString(PyExc_ValueError, "minitorch: buffer already freed");
    return nullptr;
  }
  return buffer;
}

PyObject* CudaError(const char* what, int status) {
  PyErr_Format(PyExc_RuntimeError, "minitorch: %s failed: %s (%d)", what,
               minitorch::ErrorName(status), status);
  return nullptr;
}

PyObject* Alloc(PyObject*, PyObject* args) {
  Py_ssize_t n = 0;
  if (!PyArg_ParseTuple(args, "n", &n)) return nullptr;
  if (n <= 0) {
    PyErr_SetString(PyExc_ValueError, "minitorch: alloc needs n > 0");
    return nullptr;
  }
  float* data = nullptr;
  int status;
  Py_BEGIN_ALLOW_THREADS
  status = minitorch::DeviceAlloc(static_cast<size_t>(n), &data);
  Py_END_ALLOW_THREADS
  if (status != 0) return CudaError("cudaMalloc", status);
  auto* buffer = new Buffer{data, n};
  PyObject* capsule = PyCapsule_New(buffer, kBufferName, DestroyBuffer);
  if (capsule == nullptr) delete buffer;
  return capsule;
}

PyObject* LaunchAdd(PyObject*, PyObject* args) {
  PyObject* obj;
  if (!PyArg_ParseTuple(args, "O", &obj)) return nullptr;
  Buffer* buffer = LiveBuffer(obj);
  if (buffer == nullptr) return nullptr;
  int status;
  Py_BEGIN_ALLOW_THREADS
  status = minitorch::LaunchAdd(buffer->data, static_cast<int>(buffer->n));
  Py_END_ALLOW_THREADS
  if (status != 0) return CudaError("kernel launch", status);
  Py_RETURN_NONE;
}

PyObject* Item(PyObject*, PyObject* args) {
  PyObject* obj;
  if (!PyArg_ParseTuple(args, "O", &obj)) return nullptr;
  Buffer* buffer = LiveBuffer(obj);
  if (buffer == nullptr) return nullptr;
  float value = 0;
  int status;
  Py_BEGIN_ALLOW_THREADS
  status = minitorch::Item(buffer->data, &value);
  Py_END_ALLOW_THREADS
  if (status != 0) return CudaError("cudaMemcpy", status);
  return PyFloat_FromDouble(value);
}

PyObject* CopyAsyncPageable(PyObject*, PyObject* args) {
  PyObject* obj;
  Py_buffer host;
  if (!PyArg_ParseTuple(args, "Oy*", &obj, &host)) return nullptr;
  Buffer* buffer = LiveBuffer(obj);
  if (buffer == nullptr || host.len > buffer->n * static_cast<Py_ssize_t>(sizeof(float))) {
    if (buffer != nullptr) PyErr_SetString(PyExc_ValueError, "minitorch: host bytes exceed buffer");
    PyBuffer_Release(&host);
    return nullptr;
  }
  int status;
  Py_BEGIN_ALLOW_THREADS
  status = minitorch::CopyAsyncPageable(buffer->data, host.buf, static_cast<size_t>(host.len));
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&host);
  if (status != 0) return CudaError("cudaMemcpyAsync", status);
  Py_RETURN_NONE;
}

PyObject* ProfilerStart(PyObject*, PyObject*) {
  int status;
  Py_BEGIN_ALLOW_THREADS
  status = minitorch::ProfilerStart();
  Py_END_ALLOW_THREADS
  if (status != 0) return CudaError("cudaProfilerStart", status);
  Py_RETURN_NONE;
}

PyObject* ProfilerStop(PyObject*, PyObject*) {
  int status;
  Py_BEGIN_ALLOW_THREADS
  status = minitorch::ProfilerStop();
  Py_END_ALLOW_THREADS
  if (status != 0) return CudaError("cudaProfilerStop", status);
  Py_RETURN_NONE;
}

PyObject* Synchronize(PyObject*, PyObject*) {
  int status;
  Py_BEGIN_ALLOW_THREADS
  status = minitorch::Synchronize();
  Py_END_ALLOW_THREADS
  if (status != 0) return CudaError("cudaDeviceSynchronize", status);
  Py_RETURN_NONE;
}

PyObject* Free(PyObject*, PyObject* args) {
  PyObject* obj;
  if (!PyArg_ParseTuple(args, "O", &obj)) return nullptr;
  Buffer* buffer = LiveBuffer(obj);
  if (buffer == nullptr) return nullptr;
  float* data = buffer->data;
  buffer->data = nullptr;
  int status;
  Py_BEGIN_ALLOW_THREADS
  status = minitorch::Free(data);
  Py_END_ALLOW_THREADS
  if (status != 0) return CudaError("cudaFree", status);
  Py_RETURN_NONE;
}

PyObject* RunInCppThread(PyObject*, PyObject* args) {
  PyObject* obj;
  int launches = 0;
  if (!PyArg_ParseTuple(args, "Oi", &obj, &launches)) return nullptr;
  Buffer* buffer = LiveBuffer(obj);
  if (buffer == nullptr) return nullptr;
  int status;
  Py_BEGIN_ALLOW_THREADS
  status = minitorch::RunInCppThread(buffer->data, static_cast<int>(buffer->n), launches);
  Py_END_ALLOW_THREADS
  if (status != 0) return CudaError("C++ thread's CUDA calls", status);
  Py_RETURN_NONE;
}

PyObject* NvtxPush(PyObject*, PyObject* args) {
  const char* name;
  if (!PyArg_ParseTuple(args, "s", &name)) return nullptr;
  return PyLong_FromLong(nvtxRangePushA(name));
}

PyObject* NvtxPop(PyObject*, PyObject*) { return PyLong_FromLong(nvtxRangePop()); }

PyMethodDef kMethods[] = {
    {"alloc", Alloc, METH_VARARGS, "alloc(n) -> Buffer: cudaMalloc of n floats"},
    {"launch_add", LaunchAdd, METH_VARARGS, "launch_add(buf): one kernel launch"},
    {"item", Item, METH_VARARGS, "item(buf) -> float: D2H cudaMemcpy of buf[0]"},
    {"copy_async_pageable", CopyAsyncPageable, METH_VARARGS,
     "copy_async_pageable(buf, host_bytes): cudaMemcpyAsync H2D from pageable memory"},
    {"synchronize", Synchronize, METH_NOARGS, "synchronize(): cudaDeviceSynchronize"},
    {"profiler_start", ProfilerStart, METH_NOARGS, "profiler_start(): cudaProfilerStart"},
    {"profiler_stop", ProfilerStop, METH_NOARGS, "profiler_stop(): cudaProfilerStop"},
    {"free", Free, METH_VARARGS, "free(buf): cudaFree"},
    {"run_in_cpp_thread", RunInCppThread, METH_VARARGS,
     "run_in_cpp_thread(buf, k): k launches and a device sync from a C++ thread"},
    {"nvtx_push", NvtxPush, METH_VARARGS, "nvtx_push(name) -> depth: nvtxRangePushA"},
    {"nvtx_pop", NvtxPop, METH_NOARGS, "nvtx_pop() -> depth: nvtxRangePop"},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef kModule = {PyModuleDef_HEAD_INIT, "minitorch",
                       "A PyTorch-like CUDA extension for brrr's tests.", -1, kMethods};

}  // namespace

PyMODINIT_FUNC PyInit_minitorch() { return PyModule_Create(&kModule); }
