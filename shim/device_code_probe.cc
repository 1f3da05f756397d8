// The ".nv_fatbin" section probe (see device_code_probe.h): pread of the ELF header, the section
// headers one at a time and each section's name, all checked against the file size.
//
// Must never: allocate or read past what the file says it holds.
#include "shim/device_code_probe.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace brrr::shim {
namespace {

constexpr char kFatbinSection[] = ".nv_fatbin";
constexpr uint32_t kMaxSections = 1u << 16;

bool ReadAt(int fd, void* out, uint64_t size, uint64_t offset, uint64_t file_size) {
  if (offset > file_size || size > file_size - offset) return false;
  return pread(fd, out, size, static_cast<off_t>(offset)) == static_cast<ssize_t>(size);
}

bool HasFatbinSection(int fd, uint64_t file_size) {
  Elf64_Ehdr eh;
  if (!ReadAt(fd, &eh, sizeof(eh), 0, file_size)) return false;
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_shentsize != sizeof(Elf64_Shdr)) {
    return false;
  }
  const uint32_t count = eh.e_shnum;
  if (count == 0 || count > kMaxSections || eh.e_shstrndx >= count) return false;
  Elf64_Shdr names;
  if (!ReadAt(fd, &names, sizeof(names), eh.e_shoff + uint64_t{eh.e_shstrndx} * sizeof(Elf64_Shdr),
              file_size)) {
    return false;
  }
  for (uint32_t i = 0; i < count; ++i) {
    Elf64_Shdr sh;
    if (!ReadAt(fd, &sh, sizeof(sh), eh.e_shoff + uint64_t{i} * sizeof(Elf64_Shdr), file_size)) {
      return false;
    }
    if (sh.sh_name >= names.sh_size || names.sh_size - sh.sh_name < sizeof(kFatbinSection)) {
      continue;  // the name cannot be ".nv_fatbin" (or is out of the string table)
    }
    char name[sizeof(kFatbinSection)];
    if (!ReadAt(fd, name, sizeof(name), names.sh_offset + sh.sh_name, file_size)) return false;
    if (memcmp(name, kFatbinSection, sizeof(kFatbinSection)) == 0) return true;
  }
  return false;
}

}  // namespace

bool FileCarriesDeviceCode(const char* path) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  const bool found = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                     HasFatbinSection(fd, static_cast<uint64_t>(st.st_size));
  close(fd);
  return found;
}

}  // namespace brrr::shim
