// E2E workload for process-lifecycle edge cases under the shim:
//   fork:        launches, forks a child that does host work and exits 3, waits, launches more.
//   thread-exit: launches, then a second thread calls exit(5) while main waits on the device.
// Usage: fork_and_thread_exit fork|thread-exit
#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

__global__ void step(float* x) {
  if (x) x[0] += 1.0f;
}

static void Launch(float* d, int n) {
  for (int i = 0; i < n; ++i) step<<<1, 1>>>(d);
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  float* d = nullptr;
  if (cudaMalloc(&d, 64) != cudaSuccess) return 3;
  if (std::strcmp(argv[1], "fork") == 0) {
    Launch(d, 100);
    std::fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
      std::printf("child done\n");
      std::fflush(stdout);
      _exit(3);
    }
    int status = 0;
    waitpid(child, &status, 0);
    Launch(d, 100);
    cudaDeviceSynchronize();
    std::printf("parent saw child exit %d\n", WEXITSTATUS(status));
    return 0;
  }
  Launch(d, 100);
  std::thread killer([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::printf("thread exits\n");
    std::fflush(stdout);
    std::exit(5);
  });
  for (;;) {
    Launch(d, 1);
    cudaDeviceSynchronize();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}
