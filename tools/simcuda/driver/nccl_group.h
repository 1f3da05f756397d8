// Collectives of the simulated device. The processes of one group (BRRR_SIM_NCCL_GROUP, of
// BRRR_SIM_NCCL_SIZE ranks) meet in a small shared-memory file, /dev/shm/simcuda-nccl-UID-GROUP
// (mode 0600). Each rank publishes the start of its k-th collective kernel there and waits until
// every rank has started its k-th; the latest of those starts is when the collective's work can
// begin on every rank (DESIGN.md fact 16: the kernel spins until its peers arrive).
//
// Ranks: BRRR_SIM_NCCL_RANK, else RANK / OMPI_COMM_WORLD_RANK / PMI_RANK when one is below the
// size, else the first free slot. A slot holds its process's pid; a file whose every pid is dead
// is stale and starts over. The last rank to leave removes the file.
//
// Must never: hang forever (a missing rank makes Arrive fail after the timeout), or trust the
// file's contents beyond the ranks and indices it checks.
#ifndef BRRR_TOOLS_SIMCUDA_DRIVER_NCCL_GROUP_H_
#define BRRR_TOOLS_SIMCUDA_DRIVER_NCCL_GROUP_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace simcuda {

struct NcclGroupLayout;

class NcclGroup {
 public:
  // Joins the group; nullptr and *error when the file cannot be made or no rank is free.
  static std::unique_ptr<NcclGroup> Join(const std::string& name, uint32_t size,
                                         std::optional<uint32_t> rank, uint64_t timeout_ns,
                                         std::string* error);
  ~NcclGroup();
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;

  // This process's collective number `index` started at `start_ns` (CLOCK_MONOTONIC). Blocks
  // until every rank has started its collective `index`, and returns the latest start among
  // them; nullopt after the timeout, with *missing naming the ranks that never came.
  std::optional<uint64_t> Arrive(uint64_t index, uint64_t start_ns, std::string* missing);

  // Leaves the group (the last to leave removes the file). Idempotent.
  void Leave();

  uint32_t rank() const { return rank_; }
  uint32_t size() const { return size_; }

 private:
  NcclGroup() = default;

  std::string path_;  // the shm name ("/simcuda-nccl-UID-GROUP")
  NcclGroupLayout* layout_ = nullptr;
  uint32_t size_ = 0;
  uint32_t rank_ = 0;
  uint64_t timeout_ns_ = 0;
  int fd_ = -1;
  bool left_ = false;
};

}  // namespace simcuda

#endif  // BRRR_TOOLS_SIMCUDA_DRIVER_NCCL_GROUP_H_
