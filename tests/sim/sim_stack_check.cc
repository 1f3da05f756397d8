// Implements SimulatedStackProblem and StaticRuntimeStackProblem: where the CUDA libraries were
// loaded from, and whether the BRRR_SIM_* environment matches the compiled-in expectations. Must
// never initialize CUDA.
#include "sim_stack_check.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>

#include <cstring>
#include <string>

namespace brrr::simtest {
namespace {

std::string RealPath(const std::string& path) {
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved) == nullptr) return path;
  return resolved;
}

std::string DirName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// Where the already-loaded library `soname` lives, or a problem description.
std::string LibraryProblem(const std::string& soname) {
  void* handle = dlopen(soname.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return soname + " is not loaded in this process.";
  link_map* map = nullptr;
  const int rc = dlinfo(handle, RTLD_DI_LINKMAP, &map);
  dlclose(handle);
  if (rc != 0 || map == nullptr || map->l_name == nullptr) {
    return "cannot tell where " + soname + " was loaded from.";
  }
  const std::string loaded_dir = DirName(RealPath(map->l_name));
  const std::string sim_dir = RealPath(SIMCUDA_LIB_DIR);
  if (loaded_dir != sim_dir) {
    return soname + " was loaded from " + map->l_name + ", not from the simulated stack in " +
           sim_dir + ".";
  }
  return "";
}

std::string EnvProblem(const char* name, const char* expected) {
  const char* value = getenv(name);
  if (value == nullptr) return std::string(name) + " is unset; the tests expect " + expected + ".";
  if (strcmp(value, expected) != 0) {
    return std::string(name) + "=" + value + "; the tests expect " + expected + ".";
  }
  return "";
}

#define SIM_TEST_STRINGIFY_VALUE(x) #x
#define SIM_TEST_STRINGIFY(x) SIM_TEST_STRINGIFY_VALUE(x)

std::string SettingsProblems() {
  std::string problems;
  for (const std::string& problem :
       {EnvProblem("BRRR_SIM_KERNEL_NS", SIM_TEST_STRINGIFY(SIM_TEST_KERNEL_NS)),
        EnvProblem("BRRR_SIM_LAUNCH_NS", SIM_TEST_STRINGIFY(SIM_TEST_LAUNCH_NS)),
        EnvProblem("BRRR_SIM_COPY_GBPS", SIM_TEST_STRINGIFY(SIM_TEST_COPY_GBPS)),
        EnvProblem("BRRR_SIM_KERNELS", SIM_TEST_KERNELS)}) {
    if (!problem.empty()) problems += "  " + problem + "\n";
  }
  return problems;
}

std::string RunInstructions(const std::string& problems) {
  if (problems.empty()) return "";
  return "This test must run on the simulated CUDA stack (run it through ctest, or set "
         "LD_LIBRARY_PATH=" SIMCUDA_LIB_DIR
         " and the BRRR_SIM_* values from tests/sim/CMakeLists.txt):\n" +
         problems;
}

}  // namespace

std::string SimulatedStackProblem() {
  std::string problems;
  const std::string soversion = SIMCUDA_SOVERSION;
  for (const std::string& problem :
       {LibraryProblem("libcudart.so." + soversion), LibraryProblem("libcupti.so." + soversion)}) {
    if (!problem.empty()) problems += "  " + problem + "\n";
  }
  return RunInstructions(problems + SettingsProblems());
}

std::string StaticRuntimeStackProblem() {
  std::string problems;
  const std::string soversion = SIMCUDA_SOVERSION;
  void* cudart = dlopen(("libcudart.so." + soversion).c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (cudart != nullptr) {
    dlclose(cudart);
    problems += "  libcudart.so." + soversion +
                " is loaded: this program must use no shared "
                "runtime.\n";
  }
  for (const std::string& problem :
       {LibraryProblem("libcuda.so.1"), LibraryProblem("libcupti.so." + soversion)}) {
    if (!problem.empty()) problems += "  " + problem + "\n";
  }
  return RunInstructions(problems + SettingsProblems());
}

}  // namespace brrr::simtest
