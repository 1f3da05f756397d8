// The metrics endpoint keeps answering scrapes while idle and trickling (slowloris) connections
// are open (with cpp-httplib's defaults, 8 such connections held every worker; with 32 workers and
// a timeout per read, 48-64 connections sending a header line every 0.3 s did), closes each
// connection at its whole-request deadline, and caps connections per client address.
#include "collector/cli/metrics_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace brrr::cli {
namespace {

// A connection to the server from `from` (a loopback address: 127.0.0.1 or another 127.x).
int Connect(int port, const char* from = "127.0.0.1") {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in local{};
  local.sin_family = AF_INET;
  inet_pton(AF_INET, from, &local.sin_addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0) {
    close(fd);
    return -1;
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// GET /metrics on a fresh connection; the body, or "" when no answer came within `limit`.
std::string Scrape(int port, std::chrono::seconds limit, const char* from = "127.0.0.1") {
  const int fd = Connect(port, from);
  if (fd < 0) return "";
  timeval tv{static_cast<time_t>(limit.count()), 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  const std::string request = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  if (write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size())) {
    close(fd);
    return "";
  }
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;) got.append(buf, static_cast<size_t>(n));
  close(fd);
  return got;
}

// A free port on the loopback (bound and released: a race with other processes is unlikely and
// only makes Start fail, which the test reports).
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

TEST(MetricsServerTest, AnswersWhileIdleAndTricklingConnectionsAreOpen) {
  MetricsServer server;
  const int port = FreePort();
  ASSERT_TRUE(server.Start("127.0.0.1:" + std::to_string(port)).ok());
  server.Publish("brrr_up 1\n");
  ASSERT_NE(Scrape(port, std::chrono::seconds(20)).find("brrr_up 1"), std::string::npos);
  // 4 idle connections (nothing sent) and 16 that trickle a request line a byte every 200 ms, so
  // that no read ever times out; they stay open for the whole scrape below.
  std::vector<int> held;
  for (int i = 0; i < 4; ++i) held.push_back(Connect(port));
  std::vector<int> trickling;
  for (int i = 0; i < 16; ++i) trickling.push_back(Connect(port));
  std::atomic<bool> stop{false};
  std::thread trickle([&] {
    const std::string line = "GET /metrics HTTP/1.1\r\nX-Slow: ";
    for (size_t i = 0; !stop.load(); ++i) {
      for (int fd : trickling) (void)!write(fd, &line[i % line.size()], 1);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // every connection is accepted
  server.Publish("brrr_up 2\n");
  const std::string body = Scrape(port, std::chrono::seconds(20));
  stop = true;
  trickle.join();
  for (int fd : held) close(fd);
  for (int fd : trickling) close(fd);
  EXPECT_NE(body.find("brrr_up 2"), std::string::npos) << "no answer while connections were held";
}

// Seconds until the server closes `fd` (read returns 0 or fails), at most `limit`.
double SecondsUntilClosed(int fd, std::chrono::seconds limit) {
  const auto start = std::chrono::steady_clock::now();
  timeval tv{static_cast<time_t>(limit.count()), 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  char buf[256];
  while (read(fd, buf, sizeof(buf)) > 0) {
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The slowloris: 64 connections, each sending a header line every 0.3 s (every read
// succeeds, so a per-read timeout never fires). Scrapes are answered throughout, and the server
// closes each slow connection at its whole-request deadline (1 s), not when the client stops.
TEST(MetricsServerTest, HeaderLinesEvery300msNeitherHoldAScrapeNorKeepTheirConnection) {
  MetricsServer server;
  ASSERT_TRUE(server.Start("127.0.0.1:0").ok());
  const int port = std::stoi(server.address().substr(server.address().rfind(':') + 1));
  server.Publish("brrr_up 1\n");
  std::vector<int> slow;
  for (int i = 0; i < 64; ++i) slow.push_back(Connect(port));
  std::atomic<bool> stop{false};
  std::thread trickle([&] {
    for (int i = 0; !stop.load(); ++i) {
      const std::string line = i == 0 ? "GET /metrics HTTP/1.1\r\n" : "X-Slow: 1\r\n";
      for (int fd : slow) (void)!send(fd, line.data(), line.size(), MSG_NOSIGNAL);
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
  });
  int answered = 0;
  for (int i = 0; i < 10; ++i) {
    answered += Scrape(port, std::chrono::seconds(20)).find("brrr_up 1") != std::string::npos;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(answered, 10);
  // Still sending, yet closed by the server: well before the 30 s a client could go on.
  double longest = 0;
  for (int fd : slow) longest = std::max(longest, SecondsUntilClosed(fd, std::chrono::seconds(30)));
  stop = true;
  trickle.join();
  for (int fd : slow) close(fd);
  EXPECT_LT(longest, 25.0) << "a trickling connection was kept past its deadline";
}

// More connections from one address than the cap: the extra ones are closed at once, and a
// client from another address is served as if they were not there. (A 60 s deadline here: the
// held connections stay open for the whole test, so only the cap can close the extra one.)
TEST(MetricsServerTest, ConnectionsPastThePerAddressCapAreClosedAndOthersServed) {
  MetricsServer server(std::chrono::seconds(60));
  ASSERT_TRUE(server.Start("127.0.0.1:0").ok());
  const int port = std::stoi(server.address().substr(server.address().rfind(':') + 1));
  server.Publish("brrr_up 3\n");
  std::vector<int> held;
  for (int i = 0; i < kMetricsMaxConnectionsPerAddress; ++i) held.push_back(Connect(port));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // all accepted
  const int extra = Connect(port);
  ASSERT_GE(extra, 0);
  EXPECT_LT(SecondsUntilClosed(extra, std::chrono::seconds(20)), 20.0);
  close(extra);
  EXPECT_NE(Scrape(port, std::chrono::seconds(20), "127.0.0.2").find("brrr_up 3"),
            std::string::npos);
  for (int fd : held) close(fd);
}

// Out of descriptors, the listening socket stays readable while accept fails (EMFILE): the server
// must wait, not spin on it. In a child process whose RLIMIT_NOFILE the test's own connections
// fill: over a second of that, the process uses well under a second of CPU.
TEST(MetricsServerTest, OutOfDescriptorsTheServerWaitsInsteadOfSpinning) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    MetricsServer server;
    if (!server.Start("127.0.0.1:0").ok()) _exit(2);
    const int port = std::stoi(server.address().substr(server.address().rfind(':') + 1));
    const int probe = open("/dev/null", O_RDONLY);
    rlimit lim{static_cast<rlim_t>(probe + 24), static_cast<rlim_t>(probe + 24)};
    close(probe);
    if (setrlimit(RLIMIT_NOFILE, &lim) != 0) _exit(3);
    std::vector<int> held;
    for (int i = 0; i < 64; ++i) {
      const int fd = Connect(port);
      if (fd < 0) break;
      held.push_back(fd);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the server has hit EMFILE
    rusage before{}, after{};
    getrusage(RUSAGE_SELF, &before);
    std::this_thread::sleep_for(std::chrono::seconds(1));
    getrusage(RUSAGE_SELF, &after);
    const auto seconds = [](const rusage& r) {
      return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
             static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
    };
    _exit(seconds(after) - seconds(before) < 0.25 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: it spun on the listening socket; 2, 3: set-up failed";
}

// Two processes of a job given the same address (a plain preload): the second cannot bind it, so
// every scrape reaches the same server (with SO_REUSEPORT the kernel spread them over both), and
// the reason says what to do.
TEST(MetricsServerTest, ASecondServerOnTheSameAddressIsRefused) {
  MetricsServer first, second;
  const int port = FreePort();
  const std::string address = "127.0.0.1:" + std::to_string(port);
  ASSERT_TRUE(first.Start(address).ok());
  const absl::Status refused = second.Start(address);
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("under brrr run one endpoint serves them all"),
            absl::string_view::npos)
      << refused;
  first.Publish("brrr_up 1\n");
  for (int i = 0; i < 8; ++i) {
    EXPECT_NE(Scrape(port, std::chrono::seconds(20)).find("brrr_up 1"), std::string::npos) << i;
  }
}

// Port 0: the system picks a free port; address() says which, and it serves there.
TEST(MetricsServerTest, PortZeroServesOnAPortTheSystemPicksAndSaysWhich) {
  MetricsServer server;
  ASSERT_TRUE(server.Start("127.0.0.1:0").ok());
  EXPECT_TRUE(server.port_chosen_by_system());
  const std::string prefix = "127.0.0.1:";
  ASSERT_EQ(server.address().rfind(prefix, 0), 0u) << server.address();
  const int port = std::stoi(server.address().substr(prefix.size()));
  EXPECT_GT(port, 0);
  server.Publish("brrr_up 3\n");
  EXPECT_NE(Scrape(port, std::chrono::seconds(20)).find("brrr_up 3"), std::string::npos);

  MetricsServer told;
  const int free_port = FreePort();
  ASSERT_TRUE(told.Start(std::to_string(free_port)).ok());
  EXPECT_FALSE(told.port_chosen_by_system());
  EXPECT_EQ(told.address(), "127.0.0.1:" + std::to_string(free_port));
}

TEST(MetricsServerTest, AMalformedAddressIsRefusedWithWhatItShouldBe) {
  for (const std::string bad :
       {"127.0.0.1:", "host:-1", "x:65536", "127.0.0.1:http", "nonsense", "+80", ":"}) {
    MetricsServer server;
    const absl::Status s = server.Start(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("0 for any free one"), absl::string_view::npos) << s;
  }
}

TEST(MetricsServerTest, AddressForms) {
  EXPECT_EQ(ParseMetricsAddress("9100")->host, "127.0.0.1");
  EXPECT_EQ(ParseMetricsAddress("9100")->port, 9100);
  EXPECT_EQ(ParseMetricsAddress(":0")->port, 0);
  EXPECT_EQ(ParseMetricsAddress("0.0.0.0:80")->host, "0.0.0.0");
  EXPECT_EQ(ParseMetricsAddress("[::1]:80")->host, "::1");
}

}  // namespace
}  // namespace brrr::cli
