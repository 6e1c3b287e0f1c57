/* LD_PRELOAD shim for the fault tests: the first pwrite() to a file whose name contains
   $STALL_WRITE_MATCH writes half of what it was given, creates $STALL_WRITE_MARK, and sleeps, so
   that the test can kill the process in the middle of rewriting a file. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int stalled;

static int matches(int fd) {
  const char* want = getenv("STALL_WRITE_MATCH");
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (want == NULL || n <= 0) return 0;
  path[n] = '\0';
  return strstr(path, want) != NULL;
}

static ssize_t stall(int fd, const void* buf, size_t count, off_t offset,
                     ssize_t (*real)(int, const void*, size_t, off_t)) {
  if (!stalled && count > 1 && matches(fd)) {
    stalled = 1;
    ssize_t n = real(fd, buf, count / 2, offset);
    fsync(fd);
    const char* mark = getenv("STALL_WRITE_MARK");
    if (mark != NULL) close(open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
    sleep(60);
    return n;
  }
  return real(fd, buf, count, offset);
}

ssize_t pwrite(int fd, const void* buf, size_t count, off_t offset) {
  static ssize_t (*real)(int, const void*, size_t, off_t);
  if (real == NULL) real = (ssize_t(*)(int, const void*, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
  return stall(fd, buf, count, offset, real);
}

ssize_t pwrite64(int fd, const void* buf, size_t count, off_t offset) {
  static ssize_t (*real)(int, const void*, size_t, off_t);
  if (real == NULL) real = (ssize_t(*)(int, const void*, size_t, off_t))dlsym(RTLD_NEXT, "pwrite64");
  return stall(fd, buf, count, offset, real);
}
