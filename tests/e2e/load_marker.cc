// A library that leaves a mark when it is loaded: "<its own directory>/loaded-by-<uid>-<euid>".
// harmless_e2e_test names it in BRRR_PM_SAMPLING_LIBRARY to a setuid program: a shim that obeyed
// the user's environment there would load it, as root.
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <string>

namespace {

__attribute__((constructor)) void Mark() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&Mark), &info) == 0 || info.dli_fname == nullptr) return;
  std::string path = info.dli_fname;
  path = path.substr(0, path.rfind('/') + 1) + "loaded-by-" + std::to_string(getuid()) + "-" +
         std::to_string(geteuid());
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) close(fd);
}

}  // namespace
