// E2E workload for multi-process jobs: one rank of a job. Its rank comes from the launcher's
// environment (RANK, else OMPI_COMM_WORLD_RANK); rank r launches 100 * (r + 1) tiny kernels and
// synchronizes once. Options:
//   --slow-rank R MS   rank R also spends MS milliseconds on the host (in 10 sleeps between
//                      launches) while its device idles: the straggler
//   --kill-rank R      rank R SIGKILLs itself halfway through its launches
//   --fork N           every rank forks N children that never use CUDA (they sleep 20 ms, exit)
//   --scale K          rank r launches 100 * (r + 1) * K kernels instead (benchmarks)
//   --exit-delay-ms D  rank r sleeps (3 - r) * D ms before exiting, after its last CUDA call, so
//                      that ranks end in the reverse of their rank order
//   --all-reduce N R US  instead of the launches above: N steps of a compute kernel, an NCCL
//                      all-reduce kernel and a stream sync; rank R first spends US microseconds
//                      on the host each step, so it arrives late at every all-reduce (run with
//                      BRRR_SIM_NCCL_GROUP/BRRR_SIM_NCCL_SIZE so that the others wait for it)
// Prints "rank R launched N" on success.
#include <cuda_runtime.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void rank_step(float* x) {
  if (x) x[threadIdx.x] += 1.0f;
}

// Named as NCCL names its kernels (DESIGN.md fact 16): the simulated device makes it a collective.
__global__ void ncclDevKernel_AllReduce_Sum_f32_RING_LL(float* x) {
  if (x) x[threadIdx.x] *= 0.5f;
}

namespace {

int AllReduceSteps(int rank, int steps, int late_rank, int late_us, float* d) {
  for (int step = 0; step < steps; ++step) {
    if (rank == late_rank) usleep(static_cast<useconds_t>(late_us));
    rank_step<<<1, 32>>>(d);
    ncclDevKernel_AllReduce_Sum_f32_RING_LL<<<1, 32>>>(d);
    if (cudaStreamSynchronize(nullptr) != cudaSuccess) return 4;
  }
  std::printf("rank %d all-reduced %d\n", rank, steps);
  return 0;
}

int RankFromEnvironment() {
  for (const char* name : {"RANK", "OMPI_COMM_WORLD_RANK"}) {
    const char* v = std::getenv(name);
    if (v != nullptr && v[0] != '\0') return std::atoi(v);
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  int slow_rank = -1, slow_ms = 0, kill_rank = -1, forks = 0, exit_delay_ms = 0, scale = 1;
  int all_reduce_steps = 0, late_rank = -1, late_us = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--slow-rank") == 0 && i + 2 < argc) {
      slow_rank = std::atoi(argv[++i]);
      slow_ms = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--kill-rank") == 0 && i + 1 < argc) {
      kill_rank = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--fork") == 0 && i + 1 < argc) {
      forks = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--scale") == 0 && i + 1 < argc) {
      scale = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--all-reduce") == 0 && i + 3 < argc) {
      all_reduce_steps = std::atoi(argv[++i]);
      late_rank = std::atoi(argv[++i]);
      late_us = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--exit-delay-ms") == 0 && i + 1 < argc) {
      exit_delay_ms = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "rank_worker: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  const int rank = RankFromEnvironment();
  if (rank < 0) {
    std::fprintf(stderr, "rank_worker: no RANK or OMPI_COMM_WORLD_RANK\n");
    return 2;
  }
  float* d = nullptr;
  if (cudaMalloc(&d, 1024) != cudaSuccess) return 3;
  if (all_reduce_steps > 0) return AllReduceSteps(rank, all_reduce_steps, late_rank, late_us, d);
  for (int c = 0; c < forks; ++c) {
    const pid_t child = fork();
    if (child == 0) {
      usleep(20'000);
      _exit(0);
    }
  }
  const int launches = 100 * (rank + 1) * (scale > 0 ? scale : 1);
  for (int i = 0; i < launches; ++i) {
    if (rank == kill_rank && i == launches / 2) {
      cudaDeviceSynchronize();
      kill(getpid(), SIGKILL);
    }
    if (rank == slow_rank && i % (launches / 10) == 0) usleep(static_cast<useconds_t>(slow_ms) * 100);
    rank_step<<<1, 32>>>(d);
  }
  if (cudaDeviceSynchronize() != cudaSuccess) return 4;
  while (forks > 0 && wait(nullptr) > 0) {
  }
  if (exit_delay_ms > 0) usleep(static_cast<useconds_t>((3 - rank % 4) * exit_delay_ms) * 1000);
  std::printf("rank %d launched %d\n", rank, launches);
  return 0;
}
