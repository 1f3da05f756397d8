// CUDA graphs, as far as stream capture builds them: which streams are capturing, the graphs
// captured from them (kernel, memcpy and memset nodes in capture order) and their instantiated
// executables. Plain bookkeeping: it never queues work or reports API calls (graph_api.cc does).
// Thread-safe. Handles given out are validated on every use; must never dereference a stale one.
#ifndef BRRR_TOOLS_SIMCUDA_RUNTIME_GRAPH_CAPTURE_H_
#define BRRR_TOOLS_SIMCUDA_RUNTIME_GRAPH_CAPTURE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "simcuda/engine.h"

namespace simcuda::runtime {

struct GraphNode {
  enum class Kind : uint8_t { kKernel, kMemcpy, kMemset };
  Kind kind = Kind::kKernel;
  // kKernel
  const simcuda_kernel* kernel = nullptr;
  simcuda_dim3 grid{}, block{};
  size_t shared_memory = 0;
  // kMemcpy, kMemset
  void* dst = nullptr;
  const void* src = nullptr;
  size_t bytes = 0;
  int copy_kind = 0;  // cudaMemcpyKind
  int value = 0;
};

struct Graph {
  std::vector<GraphNode> nodes;
};

struct GraphExec {
  uint32_t id = 0;                 // CUPTI graphId of the kernels it runs
  std::vector<GraphNode> nodes;    // a copy: the graph may be destroyed after instantiation
  std::vector<uint64_t> node_ids;  // CUPTI graphNodeId of each node
};

// Starts capturing `stream`; false when it already captures.
bool BeginCapture(simcuda_stream* stream);
bool IsCapturing(simcuda_stream* stream);
// Appends `node` to the stream's capture; false when the stream is not capturing (then the caller
// runs the work as usual).
bool CaptureNode(simcuda_stream* stream, const GraphNode& node);
// Ends the capture and returns the new graph; nullptr when the stream was not capturing.
Graph* EndCapture(simcuda_stream* stream);

bool DestroyGraph(Graph* graph);
// A new executable of `graph` (copies its nodes, assigns ids); nullptr for an invalid graph.
GraphExec* Instantiate(Graph* graph);
bool DestroyGraphExec(GraphExec* exec);
// A copy of a live executable's nodes and ids; false for an invalid handle.
bool ReadGraphExec(GraphExec* exec, GraphExec* copy);
// Number of nodes and a pointer to each (the handles cudaGraphGetNodes gives); false if invalid.
bool GraphNodes(Graph* graph, std::vector<const GraphNode*>* nodes);

}  // namespace simcuda::runtime

#endif  // BRRR_TOOLS_SIMCUDA_RUNTIME_GRAPH_CAPTURE_H_
