// The app of harmless_e2e_test: behaviours that a preloaded profiler can break, each one a mode.
// Its CUDA comes from a shared library (harmless_cuda.cu). Every mode prints what it observed on
// stdout; the test compares the output and exit status with and without brrr.
//
//   threads N [L]     N threads, each doing CUDA work (L launches; default 20); prints
//                     "threads N ok". 17000 launches fill a thread's whole default ring once.
//   reap-all          forks a child that exits 7, does CUDA work, then wait()s until ECHILD (as
//                     PID 1 and subreapers do); prints "reaped K" (K children, any pid)
//   subreaper         reap-all as a subreaper (PR_SET_CHILD_SUBREAPER)
//   sigchld           reaps in a SIGCHLD handler with waitpid(-1, WNOHANG), forks one child, does
//                     CUDA work; prints "known 1 unknown U" (U: pids it never started)
//   close-stdio FILE  CUDA work, prints "closing", closes fds 1 and 2, then waits (at most 60 s)
//                     until FILE exists; exit 0
//   close-stdio-first FILE  prints "closing", closes fds 1 and 2, then does CUDA work (brrr starts
//                     with fds 1 and 2 closed) and checks that fds 0-2 stay as it left them (0
//                     open, 1 and 2 closed: brrr opened nothing there), waits until FILE
//                     exists; exit 0, or 16 when a low fd was taken
//   wait FILE         CUDA work, then waits (at most 60 s) until FILE exists; exit 0
//   reuse-fds DIR     closes fds 0-2, opens DIR/in, DIR/out, DIR/err on them, writes "app out" and
//                     "app err", does CUDA work; exit 0
//   closed-fds        closes fds 0-2 and does CUDA work; exit 0
//   exec              CUDA work, then execs itself as "after-exec"
//   after-exec        CUDA work; prints "after exec"; exit 3
//   plain             CUDA work; prints "plain"; exit 0
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" int harmless_cuda_work(int launches);

namespace {

int g_launches = 20;

int Work() { return harmless_cuda_work(g_launches); }

std::atomic<pid_t> g_known{0};
std::atomic<int> g_known_reaped{0};
std::atomic<int> g_unknown_reaped{0};

void OnSigchld(int) {
  const int saved = errno;
  for (;;) {
    const pid_t pid = waitpid(-1, nullptr, WNOHANG);
    if (pid <= 0) break;
    (pid == g_known.load() ? g_known_reaped : g_unknown_reaped).fetch_add(1);
  }
  errno = saved;
}

pid_t ForkExiting(int code, int delay_ms) {
  const pid_t pid = fork();
  if (pid == 0) {
    usleep(static_cast<useconds_t>(delay_ms) * 1000);
    _exit(code);
  }
  return pid;
}

int ReapAll() {
  ForkExiting(7, 100);
  if (Work() != 0) return 10;
  int reaped = 0;
  while (wait(nullptr) > 0 || errno == EINTR) ++reaped;
  std::printf("reaped %d\n", reaped);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const char* mode = argv[1];
  if (std::strcmp(mode, "threads") == 0 && argc > 2) {
    const int n = std::atoi(argv[2]);
    if (argc > 3) g_launches = std::atoi(argv[3]);
    std::vector<pthread_t> threads(static_cast<size_t>(n));
    std::atomic<int> failed{0};
    for (pthread_t& t : threads) {
      pthread_create(
          &t, nullptr,
          [](void* f) -> void* {
            if (Work() != 0) static_cast<std::atomic<int>*>(f)->fetch_add(1);
            return nullptr;
          },
          &failed);
    }
    for (pthread_t& t : threads) pthread_join(t, nullptr);
    std::printf("threads %d %s\n", n, failed.load() == 0 ? "ok" : "failed");
    return failed.load() == 0 ? 0 : 10;
  }
  if (std::strcmp(mode, "reap-all") == 0) return ReapAll();
  if (std::strcmp(mode, "subreaper") == 0) {
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) return 11;
    return ReapAll();
  }
  if (std::strcmp(mode, "sigchld") == 0) {
    struct sigaction sa {};
    sa.sa_handler = &OnSigchld;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGCHLD, &sa, nullptr);
    // The handler may run on any thread (the CUDA runtime has its own): the child exits only
    // once its pid is known to the handler.
    int go[2];
    if (pipe(go) != 0) return 12;
    const pid_t child = fork();
    if (child == 0) {
      char c;
      close(go[1]);
      (void)!read(go[0], &c, 1);
      _exit(0);
    }
    g_known.store(child);
    close(go[0]);
    (void)!write(go[1], "x", 1);
    close(go[1]);
    if (Work() != 0) return 10;
    for (int i = 0; i < 300 && g_known_reaped.load() == 0; ++i) usleep(10'000);
    usleep(200'000);  // time for any other child's SIGCHLD to arrive
    std::printf("known %d unknown %d\n", g_known_reaped.load(), g_unknown_reaped.load());
    return 0;
  }
  if (std::strcmp(mode, "close-stdio") == 0 && argc > 2) {
    if (Work() != 0) return 10;
    std::printf("closing\n");
    std::fflush(stdout);
    close(1);
    close(2);
    struct stat st {};
    for (int i = 0; i < 6000 && stat(argv[2], &st) != 0; ++i) usleep(10'000);
    return 0;
  }
  if (std::strcmp(mode, "close-stdio-first") == 0 && argc > 2) {
    std::printf("closing\n");
    std::fflush(stdout);
    close(1);
    close(2);
    if (Work() != 0) return 10;
    const bool kept = fcntl(0, F_GETFD) != -1 && fcntl(1, F_GETFD) == -1 && fcntl(2, F_GETFD) == -1;
    struct stat st {};
    for (int i = 0; i < 6000 && stat(argv[2], &st) != 0; ++i) usleep(10'000);
    if (!kept) return 16;
    return 0;
  }
  if (std::strcmp(mode, "wait") == 0 && argc > 2) {
    if (Work() != 0) return 10;
    struct stat st {};
    for (int i = 0; i < 6000 && stat(argv[2], &st) != 0; ++i) usleep(10'000);
    return 0;
  }
  if (std::strcmp(mode, "reuse-fds") == 0 && argc > 2) {
    for (int fd = 0; fd < 3; ++fd) close(fd);
    const std::string dir = argv[2];
    if (open((dir + "/in").c_str(), O_RDONLY | O_CREAT, 0600) != 0) return 12;
    if (open((dir + "/out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600) != 1) return 13;
    if (open((dir + "/err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600) != 2) return 14;
    (void)!write(1, "app out\n", 8);
    (void)!write(2, "app err\n", 8);
    return Work() == 0 ? 0 : 10;
  }
  if (std::strcmp(mode, "closed-fds") == 0) {
    for (int fd = 0; fd < 3; ++fd) close(fd);
    return Work() == 0 ? 0 : 10;
  }
  if (std::strcmp(mode, "exec") == 0) {
    if (Work() != 0) return 10;
    std::fflush(stdout);
    char* const next[] = {argv[0], const_cast<char*>("after-exec"), nullptr};
    execv("/proc/self/exe", next);
    return 15;
  }
  if (std::strcmp(mode, "after-exec") == 0) {
    if (Work() != 0) return 10;
    std::printf("after exec\n");
    return 3;
  }
  if (std::strcmp(mode, "plain") == 0) {
    if (Work() != 0) return 10;
    std::printf("plain\n");
    return 0;
  }
  return 2;
}
