// See metrics_server.h. One thread runs a poll loop over the listening socket and every
// connection, each non-blocking with a deadline for its whole exchange: a connection is only ever
// waited on, never waited for, so no number of idle or trickling ones holds a scrape up.
#include "collector/cli/metrics_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace brrr::cli {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kAcceptPause{100};

struct Connection {
  int fd = -1;
  std::string peer;      // the client's address, for the per-address cap
  std::string request;   // what it sent so far (at most kMetricsMaxRequestBytes)
  std::string response;  // once the request is whole: what is left to send
  size_t sent = 0;
  Clock::time_point deadline;
};

std::string PeerOf(const sockaddr_storage& a) {
  char text[INET6_ADDRSTRLEN] = "";
  if (a.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(a).sin_addr, text, sizeof(text));
  } else if (a.ss_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6&>(a).sin6_addr, text, sizeof(text));
  }
  return text;
}

std::string HttpResponse(int code, absl::string_view reason, absl::string_view type,
                         absl::string_view body) {
  return absl::StrCat("HTTP/1.1 ", code, " ", reason, "\r\nContent-Type: ", type,
                      "\r\nContent-Length: ", body.size(), "\r\nConnection: close\r\n\r\n", body);
}

}  // namespace

struct MetricsServer::State {
  int listen_fd = -1;
  int wake[2] = {-1, -1};  // the destructor writes a byte: the loop ends
  std::thread thread;
  std::mutex mu;
  std::string text = "# brrr: no snapshot yet\n";
  std::string address;
  bool port_chosen_by_system = false;
  std::chrono::milliseconds deadline{kMetricsRequestDeadlineMs};
  // Out of descriptors (EMFILE, ENFILE): the listening socket stays readable, so it is left out of
  // the poll until then rather than spun on.
  Clock::time_point accept_resumes_at{};

  std::string Text() {
    std::lock_guard<std::mutex> lock(mu);
    return text;
  }
  void Loop();
  void Accept(std::vector<Connection>& conns, std::map<std::string, int>& per_peer);
  // Reads or writes what the connection allows now; false when it is done (answered or failed).
  bool Serve(Connection& c, short revents);
};

void MetricsServer::State::Accept(std::vector<Connection>& conns,
                                  std::map<std::string, int>& per_peer) {
  for (;;) {
    sockaddr_storage peer{};
    socklen_t len = sizeof(peer);
    const int fd = accept4(listen_fd, reinterpret_cast<sockaddr*>(&peer), &len,
                           SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE) accept_resumes_at = Clock::now() + kAcceptPause;
      return;  // EAGAIN: none left (or a transient error: the next poll retries)
    }
    const std::string who = PeerOf(peer);
    if (conns.size() >= static_cast<size_t>(kMetricsMaxConnections) ||
        per_peer[who] >= kMetricsMaxConnectionsPerAddress) {
      close(fd);  // over a cap: refused at once, the others are unaffected
      continue;
    }
    ++per_peer[who];
    Connection& c = conns.emplace_back();
    c.fd = fd;
    c.peer = who;
    c.deadline = Clock::now() + deadline;
  }
}

bool MetricsServer::State::Serve(Connection& c, short revents) {
  if ((revents & (POLLERR | POLLNVAL)) != 0) return false;
  if (c.response.empty()) {
    char buf[1024];
    const ssize_t n = read(c.fd, buf, sizeof(buf));
    if (n == 0) return false;  // closed before a whole request
    if (n < 0) return errno == EAGAIN || errno == EINTR;
    c.request.append(buf, static_cast<size_t>(n));
    const size_t end = c.request.find("\r\n\r\n");
    if (end == std::string::npos) return c.request.size() < kMetricsMaxRequestBytes;
    const absl::string_view line = absl::string_view(c.request).substr(0, c.request.find("\r\n"));
    if (absl::StartsWith(line, "GET /metrics ") || line == "GET /metrics") {
      c.response = HttpResponse(200, "OK", "text/plain; version=0.0.4; charset=utf-8", Text());
    } else if (absl::StartsWith(line, "GET ")) {
      c.response = HttpResponse(404, "Not Found", "text/plain", "only /metrics here\n");
    } else {
      c.response = HttpResponse(405, "Method Not Allowed", "text/plain", "GET /metrics only\n");
    }
  }
  while (c.sent < c.response.size()) {
    const ssize_t n = send(c.fd, c.response.data() + c.sent, c.response.size() - c.sent,
                           MSG_NOSIGNAL);
    if (n < 0) return errno == EAGAIN || errno == EINTR;
    c.sent += static_cast<size_t>(n);
  }
  return false;  // answered
}

void MetricsServer::State::Loop() {
  std::vector<Connection> conns;
  std::map<std::string, int> per_peer;
  std::vector<pollfd> fds;
  for (;;) {
    fds.clear();
    fds.push_back({wake[0], POLLIN, 0});
    const Clock::time_point now = Clock::now();
    const bool accepting = now >= accept_resumes_at;
    fds.push_back({accepting ? listen_fd : -1, POLLIN, 0});  // -1: poll skips it
    int timeout_ms = accepting ? -1 : static_cast<int>(kAcceptPause.count());
    for (const Connection& c : conns) {
      fds.push_back({c.fd, static_cast<short>(c.response.empty() ? POLLIN : POLLOUT), 0});
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(c.deadline - now).count();
      const int ms = left < 0 ? 0 : static_cast<int>(left) + 1;
      timeout_ms = timeout_ms < 0 ? ms : std::min(timeout_ms, ms);
    }
    if (poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) return;
    if (fds[0].revents != 0) break;  // stopping
    const Clock::time_point after = Clock::now();
    std::vector<Connection> kept;
    kept.reserve(conns.size());
    for (size_t i = 0; i < conns.size(); ++i) {
      Connection& c = conns[i];
      const short revents = fds[i + 2].revents;
      const bool alive = after < c.deadline && (revents == 0 || Serve(c, revents));
      if (alive) {
        kept.push_back(std::move(c));
      } else {
        close(c.fd);
        if (--per_peer[c.peer] <= 0) per_peer.erase(c.peer);
      }
    }
    conns = std::move(kept);
    if (fds[1].revents != 0) Accept(conns, per_peer);
  }
  for (const Connection& c : conns) close(c.fd);
}

MetricsServer::MetricsServer(std::chrono::milliseconds deadline)
    : state_(std::make_unique<State>()) {
  state_->deadline = deadline;
}

MetricsServer::~MetricsServer() {
  State* s = state_.get();
  if (s->wake[1] >= 0) (void)!write(s->wake[1], "x", 1);
  if (s->thread.joinable()) s->thread.join();
  for (int fd : {s->listen_fd, s->wake[0], s->wake[1]}) {
    if (fd >= 0) close(fd);
  }
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
  State* s = state_.get();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port_text = std::to_string(parsed->port);
  if (getaddrinfo(parsed->host.c_str(), port_text.c_str(), &hints, &found) != 0 ||
      found == nullptr) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", parsed->host, ":",
                                               parsed->port, " (no such host)"));
  }
  int fd = -1;
  for (addrinfo* ai = found; ai != nullptr && fd < 0; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    // SO_REUSEADDR lets a restarted collector bind past TIME_WAIT; no SO_REUSEPORT: a second
    // process must fail to bind, or the kernel would spread scrapes over both (each serving only
    // its own figures).
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 128) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat(
        "cannot listen on ", parsed->host, ":", parsed->port,
        parsed->port == 0 ? ""
                          : " (taken: by another process of this job? under brrr run one "
                            "endpoint serves them all)"));
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof(bound);
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
  const int port = ntohs(bound.ss_family == AF_INET6
                             ? reinterpret_cast<sockaddr_in6&>(bound).sin6_port
                             : reinterpret_cast<sockaddr_in&>(bound).sin_port);
  if (pipe2(s->wake, O_CLOEXEC) != 0) {
    close(fd);
    return absl::UnavailableError("cannot start the metrics server (pipe)");
  }
  s->listen_fd = fd;
  s->port_chosen_by_system = parsed->port == 0;
  const std::string& host = parsed->host;
  s->address = host.find(':') == std::string::npos ? absl::StrCat(host, ":", port)
                                                   : absl::StrCat("[", host, "]:", port);
  s->thread = std::thread([s] { s->Loop(); });  // serving: the socket listens already
  return absl::OkStatus();
}

const std::string& MetricsServer::address() const { return state_->address; }
bool MetricsServer::port_chosen_by_system() const { return state_->port_chosen_by_system; }

void MetricsServer::Publish(std::string text) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->text = std::move(text);
}

}  // namespace brrr::cli
