// The Prometheus endpoint: serves GET /metrics (text exposition format) on HOST:PORT from a
// thread of its own, with the text last published (cpp-httplib does the HTTP). Binds to what it
// is given; the callers default to localhost. Port 0 takes a free port the system picks (address()
// says which), so that nothing else can hold the port it was told. Idle or trickling connections
// cannot starve it: kMetricsWorkers workers, and a connection that sends no whole request within
// kMetricsReadTimeout is dropped.
//
// Serving once Start returns (it waits for the listen loop: cpp-httplib's stop() before then would
// be lost, and the destructor would wait forever).
//
// Thread-safety: Publish from any thread; the server thread reads under a mutex.
// Must never: block the drain thread (Publish only swaps a string), or serve a half-built text.
#ifndef BRRR_COLLECTOR_CLI_METRICS_SERVER_H_
#define BRRR_COLLECTOR_CLI_METRICS_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace brrr::cli {

inline constexpr int kMetricsWorkers = 32;
inline constexpr int kMetricsReadTimeoutSeconds = 2;

// A metrics address taken apart: "HOST:PORT", "[V6]:PORT", ":PORT" or "PORT" (host 127.0.0.1).
struct MetricsAddress {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port
};
// An error naming the address when it is not one of those forms (a port past 65535, none, text).
absl::StatusOr<MetricsAddress> ParseMetricsAddress(const std::string& address);

class MetricsServer {
 public:
  MetricsServer();
  ~MetricsServer();  // stops the server and joins its thread
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // "HOST:PORT" or ":PORT" (localhost) or "PORT"; starts serving. An error when the address is
  // malformed or cannot be bound.
  absl::Status Start(const std::string& address);
  void Publish(std::string text);
  // Where it listens, once started: "HOST:PORT" with the port bound (the system's pick for 0).
  const std::string& address() const;
  bool port_chosen_by_system() const;  // it was told port 0

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace brrr::cli

#endif  // BRRR_COLLECTOR_CLI_METRICS_SERVER_H_
