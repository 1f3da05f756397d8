// Bookkeeping of captures, graphs and graph executables behind one mutex. Graph and GraphExec
// objects are owned here and freed only by their destroy calls. Must never hold the mutex while
// calling the engine.
#include "graph_capture.h"

#include <memory>
#include <mutex>
#include <unordered_map>

namespace simcuda::runtime {
namespace {

struct GraphState {
  std::mutex mu;
  std::unordered_map<simcuda_stream*, std::unique_ptr<Graph>> capturing;
  std::unordered_map<Graph*, std::unique_ptr<Graph>> graphs;
  std::unordered_map<GraphExec*, std::unique_ptr<GraphExec>> execs;
  uint32_t next_graph_id = 1;
  uint64_t next_node_id = 1;
};

GraphState& State() {
  static GraphState* const state = new GraphState();  // never destroyed: used until exit
  return *state;
}

}  // namespace

bool BeginCapture(simcuda_stream* stream) {
  GraphState& s = State();
  std::lock_guard lock(s.mu);
  return s.capturing.emplace(stream, std::make_unique<Graph>()).second;
}

bool IsCapturing(simcuda_stream* stream) {
  GraphState& s = State();
  std::lock_guard lock(s.mu);
  return s.capturing.count(stream) != 0;
}

bool CaptureNode(simcuda_stream* stream, const GraphNode& node) {
  GraphState& s = State();
  std::lock_guard lock(s.mu);
  const auto it = s.capturing.find(stream);
  if (it == s.capturing.end()) return false;
  it->second->nodes.push_back(node);
  return true;
}

Graph* EndCapture(simcuda_stream* stream) {
  GraphState& s = State();
  std::lock_guard lock(s.mu);
  const auto it = s.capturing.find(stream);
  if (it == s.capturing.end()) return nullptr;
  std::unique_ptr<Graph> graph = std::move(it->second);
  s.capturing.erase(it);
  Graph* raw = graph.get();
  s.graphs.emplace(raw, std::move(graph));
  return raw;
}

bool DestroyGraph(Graph* graph) {
  GraphState& s = State();
  std::lock_guard lock(s.mu);
  return s.graphs.erase(graph) != 0;
}

GraphExec* Instantiate(Graph* graph) {
  GraphState& s = State();
  std::lock_guard lock(s.mu);
  const auto it = s.graphs.find(graph);
  if (it == s.graphs.end()) return nullptr;
  auto exec = std::make_unique<GraphExec>();
  exec->id = s.next_graph_id++;
  exec->nodes = it->second->nodes;
  for (size_t i = 0; i < exec->nodes.size(); ++i) exec->node_ids.push_back(s.next_node_id++);
  GraphExec* raw = exec.get();
  s.execs.emplace(raw, std::move(exec));
  return raw;
}

bool DestroyGraphExec(GraphExec* exec) {
  GraphState& s = State();
  std::lock_guard lock(s.mu);
  return s.execs.erase(exec) != 0;
}

bool ReadGraphExec(GraphExec* exec, GraphExec* copy) {
  GraphState& s = State();
  std::lock_guard lock(s.mu);
  const auto it = s.execs.find(exec);
  if (it == s.execs.end()) return false;
  *copy = *it->second;
  return true;
}

bool GraphNodes(Graph* graph, std::vector<const GraphNode*>* nodes) {
  GraphState& s = State();
  std::lock_guard lock(s.mu);
  const auto it = s.graphs.find(graph);
  if (it == s.graphs.end()) return false;
  nodes->clear();
  for (const GraphNode& node : it->second->nodes) nodes->push_back(&node);
  return true;
}

}  // namespace simcuda::runtime
