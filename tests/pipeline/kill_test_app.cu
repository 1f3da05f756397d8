// The program the kill tests profile: launches kernels, says "ready" on stdout (its pid goes to a
// file), waits for a go-file, launches more, prints a summary and exits with a chosen status. Its
// stdout is deterministic, so a run under brrr can be compared with a run without it.
//
// Usage: kill_test_app LAUNCHES_BEFORE LAUNCHES_AFTER GO_FILE EXIT_CODE PID_FILE
// Must never: print anything that differs between runs (no pids, no times) on stdout.
#include <cuda_runtime.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

__global__ void step(float* data) { data[0] += 1.0f; }

static bool Exists(const char* path) { return access(path, F_OK) == 0; }

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s BEFORE AFTER GO_FILE EXIT_CODE PID_FILE\n", argv[0]);
    return 2;
  }
  const int before = std::atoi(argv[1]);
  const int after = std::atoi(argv[2]);
  const char* go_file = argv[3];
  const int exit_code = std::atoi(argv[4]);
  std::ofstream(argv[5]) << getpid() << "\n";
  float* data = nullptr;
  int errors = cudaMalloc(&data, sizeof(float)) != cudaSuccess;
  for (int i = 0; i < before; ++i) {
    step<<<1, 1>>>(data);
    errors += cudaGetLastError() != cudaSuccess;
  }
  errors += cudaDeviceSynchronize() != cudaSuccess;
  std::printf("ready after %d launches\n", before);
  std::fflush(stdout);
  for (int waited_ms = 0; !Exists(go_file) && waited_ms < 60'000; waited_ms += 5) usleep(5'000);
  for (int i = 0; i < after; ++i) {
    step<<<1, 1>>>(data);
    errors += cudaGetLastError() != cudaSuccess;
  }
  errors += cudaDeviceSynchronize() != cudaSuccess;
  errors += cudaFree(data) != cudaSuccess;
  std::printf("done: %d launches, %d errors\n", before + after, errors);
  return exit_code;
}
