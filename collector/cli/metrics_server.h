// The Prometheus endpoint: serves GET /metrics (text exposition format) on HOST:PORT from a
// thread of its own, with the text last published. Binds to what it is given; the callers default
// to localhost. Port 0 takes a free port the system picks (address() says which), so that nothing
// else can hold the port it was told.
//
// Slow or idle clients cannot keep it from answering (issue 48: 48-64 connections sending a header
// line every 0.3 s made scrapes time out behind 32 workers): one poll loop serves every connection
// without ever waiting for one; each has kMetricsRequestDeadlineMs for its whole exchange (request
// and answer), a request of at most kMetricsMaxRequestBytes, and one answer (Connection: close).
// At most kMetricsMaxConnections are open, kMetricsMaxConnectionsPerAddress from one client
// address; past a cap a connection is closed at once. Anyone who can reach the address can scrape
// it: on a host shared between users, bind to an address only you reach (README).
//
// Serving once Start returns (the socket listens before the loop starts).
//
// Thread-safety: Publish from any thread; the server thread reads under a mutex.
// Must never: block the drain thread (Publish only swaps a string), serve a half-built text, or
// wait on a client.
#ifndef BRRR_COLLECTOR_CLI_METRICS_SERVER_H_
#define BRRR_COLLECTOR_CLI_METRICS_SERVER_H_

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace brrr::cli {

inline constexpr int kMetricsRequestDeadlineMs = 1000;
inline constexpr size_t kMetricsMaxRequestBytes = 8192;
inline constexpr int kMetricsMaxConnections = 256;
inline constexpr int kMetricsMaxConnectionsPerAddress = 96;

// A metrics address taken apart: "HOST:PORT", "[V6]:PORT", ":PORT" or "PORT" (host 127.0.0.1).
struct MetricsAddress {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port
};
// An error naming the address when it is not one of those forms (a port past 65535, none, text).
absl::StatusOr<MetricsAddress> ParseMetricsAddress(const std::string& address);

class MetricsServer {
 public:
  // `deadline`: each connection's whole exchange (tests lengthen it).
  explicit MetricsServer(
      std::chrono::milliseconds deadline = std::chrono::milliseconds(kMetricsRequestDeadlineMs));
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
