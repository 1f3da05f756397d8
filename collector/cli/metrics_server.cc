// See metrics_server.h.
#include "collector/cli/metrics_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "absl/strings/numbers.h"
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

absl::Status MetricsServer::Start(const std::string& address) {
  std::string host = "127.0.0.1";
  std::string port_text = address;
  if (const size_t colon = address.rfind(':'); colon != std::string::npos) {
    if (colon > 0) host = address.substr(0, colon);
    port_text = address.substr(colon + 1);
  }
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  int port = 0;
  if (!absl::SimpleAtoi(port_text, &port) || port < 0 || port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        "metrics address '", address, "' is not HOST:PORT (port 1..65535, or 0 for any free one)"));
  }
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
