// See metrics_server.h.
#include "collector/cli/metrics_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace brrr::cli {

struct MetricsServer::State {
  httplib::Server server;
  std::thread thread;
  std::mutex mu;
  std::string text = "# brrr: no snapshot yet\n";
  std::string address;
  bool port_chosen_by_system = false;
  std::atomic<bool> listen_returned{false};
};

MetricsServer::MetricsServer() : state_(std::make_unique<State>()) {}

MetricsServer::~MetricsServer() {
  state_->server.stop();
  if (state_->thread.joinable()) state_->thread.join();
}

absl::StatusOr<MetricsAddress> ParseMetricsAddress(const std::string& address) {
  MetricsAddress a;
  std::string port_text = address;
  if (const size_t colon = address.rfind(':'); colon != std::string::npos) {
    if (colon > 0) a.host = address.substr(0, colon);
    port_text = address.substr(colon + 1);
  }
  if (a.host.size() > 2 && a.host.front() == '[' && a.host.back() == ']') {
    a.host = a.host.substr(1, a.host.size() - 2);
  }
  if (port_text.empty() || !absl::ascii_isdigit(static_cast<unsigned char>(port_text[0])) ||
      !absl::SimpleAtoi(port_text, &a.port) || a.port < 0 || a.port > 65535 || a.host.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "metrics address '", address, "' is not HOST:PORT (port 1..65535, or 0 for any free one)"));
  }
  return a;
}

absl::Status MetricsServer::Start(const std::string& address) {
  const absl::StatusOr<MetricsAddress> parsed = ParseMetricsAddress(address);
  if (!parsed.ok()) return parsed.status();
  const std::string host = parsed->host;
  int port = parsed->port;
  State* s = state_.get();
  // cpp-httplib's defaults (8 workers, 5 s per read, keep-alive) let a few idle or trickling
  // connections hold every worker: scrapes then go unanswered.
  s->server.new_task_queue = [] { return new httplib::ThreadPool(kMetricsWorkers); };
  s->server.set_read_timeout(kMetricsReadTimeoutSeconds, 0);
  s->server.set_keep_alive_timeout(kMetricsReadTimeoutSeconds);
  // One process per address: cpp-httplib's default SO_REUSEPORT lets a second process bind the
  // same port and the kernel then spreads scrapes over both (each serving only its own figures).
  // SO_REUSEADDR alone lets a restarted collector bind past TIME_WAIT, and a second one fail.
  s->server.set_socket_options([](socket_t sock) {  // cpp-httplib's global socket_t
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  s->server.Get("/metrics", [s](const httplib::Request&, httplib::Response& res) {
    std::string text;
    {
      std::lock_guard<std::mutex> lock(s->mu);
      text = s->text;
    }
    res.set_content(text, "text/plain; version=0.0.4; charset=utf-8");
  });
  if (port == 0) {
    s->port_chosen_by_system = true;
    port = s->server.bind_to_any_port(host.c_str());
    if (port < 0) return absl::UnavailableError(absl::StrCat("cannot listen on ", host, ":0"));
  } else if (!s->server.bind_to_port(host.c_str(), port)) {
    return absl::UnavailableError(absl::StrCat(
        "cannot listen on ", host, ":", port,
        " (taken: by another process of this job? under brrr run one endpoint serves them all)"));
  }
  s->address = host.find(':') == std::string::npos ? absl::StrCat(host, ":", port)
                                                   : absl::StrCat("[", host, "]:", port);
  s->thread = std::thread([s] {
    s->server.listen_after_bind();
    s->listen_returned.store(true);
  });
  // Serving once this returns. And cpp-httplib's stop() does nothing before its listen loop has
  // started: a server stopped right after Start (an app that ends at once) would never return.
  while (!s->server.is_running() && !s->listen_returned.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return absl::OkStatus();
}

const std::string& MetricsServer::address() const { return state_->address; }
bool MetricsServer::port_chosen_by_system() const { return state_->port_chosen_by_system; }

void MetricsServer::Publish(std::string text) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->text = std::move(text);
}

}  // namespace brrr::cli
