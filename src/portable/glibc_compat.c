// The glibc functions newer than glibc 2.31 that GCC 12's static C++ runtime asks for, for the
// portable binary linked against glibc 2.31 (PLANLINT_GLIBC_SYSROOT). libstdc++.a and libgcc_eh.a
// were compiled on Debian 12 (glibc 2.36) and refer to three symbols that glibc 2.31 does not have;
// everything else they use resolves to 2.31's versions at link time (stat and friends come from its
// libc_nonshared.a, the pthread functions from its libpthread). The binary's own definitions below
// are the ones it uses on every glibc, old or new. The glibc_floor test checks that no other newer
// symbol is asked for.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

// glibc 2.32: "this process has one thread", which lets libstdc++ skip atomic reference counts.
// Always 0 here ("not known"): the atomic path, which is right whatever the process does.
char __libc_single_threaded = 0;

// glibc 2.36 (std::random_device's default source): random bits from the kernel, the same source
// glibc's own arc4random uses.
uint32_t arc4random(void) {
  uint32_t value = 0;
  for (;;) {
    const long n = syscall(SYS_getrandom, &value, sizeof value, 0);
    if (n == (long)sizeof value) return value;
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  // A kernel older than 3.17 (no getrandom): the device.
  const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    const ssize_t n = read(fd, &value, sizeof value);
    close(fd);
    if (n == (ssize_t)sizeof value) return value;
  }
  abort();  // no randomness at all: glibc's arc4random also terminates the process
}

// glibc 2.35: which loaded object holds an address, and where its unwind table is (the .eh_frame_hdr
// segment, PT_GNU_EH_FRAME). libgcc's unwinder asks this for every frame of an exception; here it is
// answered by walking the loaded objects, as libgcc itself did before 2.35 (dl_iterate_phdr).
struct planlint_find {
  uintptr_t address;
  struct dl_find_object* result;
  int found;
};

static int planlint_find_in(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  struct planlint_find* find = data;
  uintptr_t start = UINTPTR_MAX;
  uintptr_t end = 0;
  void* eh_frame = NULL;
  int inside = 0;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
    const uintptr_t from = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD) {
      const uintptr_t to = from + ph->p_memsz;
      if (find->address >= from && find->address < to) inside = 1;
      if (from < start) start = from;
      if (to > end) end = to;
    } else if (ph->p_type == PT_GNU_EH_FRAME) {
      eh_frame = (void*)from;
    }
  }
  if (!inside) return 0;
  memset(find->result, 0, sizeof *find->result);
  find->result->dlfo_map_start = (void*)start;
  find->result->dlfo_map_end = (void*)end;
  find->result->dlfo_eh_frame = eh_frame;  // the link map stays NULL: the unwinder does not read it
  find->found = 1;
  return 1;
}

int _dl_find_object(void* address, struct dl_find_object* result) {
  struct planlint_find find = {(uintptr_t)address, result, 0};
  dl_iterate_phdr(planlint_find_in, &find);
  return find.found ? 0 : -1;
}
