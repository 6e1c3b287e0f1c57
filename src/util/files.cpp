// See files.hpp. POSIX calls, since std::filesystem cannot open a FIFO without blocking nor keep
// owners and links.
#include "util/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace planlint::util {
namespace {

std::string errno_text(int e) {
  if (e == ENOENT) return "no such file or directory";
  if (e == ELOOP) return "too many levels of symbolic links";
  if (e == EISDIR) return "is a directory";
  std::string s = std::strerror(e);
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

bool write_all(int fd, const std::string& content) {
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

ReadResult read_file_bounded(const std::string& path, std::size_t max_bytes) {
  ReadResult r;
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    r.error = errno_text(errno);
    return r;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    r.error = errno_text(errno);
    ::close(fd);
    return r;
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    r.error = "is a directory";
    return r;
  }
  if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > max_bytes) {
    ::close(fd);
    r.error = "larger than " + std::to_string(max_bytes / (std::size_t{1024} * 1024)) + " MiB: not read";
    return r;
  }
  // Blocking reads from here: a FIFO opened without a writer now reads end-of-file at once.
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  if (S_ISREG(st.st_mode)) r.text.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) break;  // a FIFO with no data and no writer
      r.error = "cannot read: " + errno_text(errno);
      break;
    }
    if (n == 0) break;
    if (r.text.size() + static_cast<std::size_t>(n) > max_bytes) {
      r.error = "larger than " + std::to_string(max_bytes / (std::size_t{1024} * 1024)) + " MiB: not read";
      break;
    }
    r.text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (!r.error.empty()) r.text.clear();
  return r;
}

std::string replace_file_contents(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path target(path);
  // Through symlinks to what they point at (a dangling link: its target is created).
  if (fs::is_symlink(fs::symlink_status(target, ec))) {
    fs::path resolved = fs::weakly_canonical(target, ec);
    if (ec) return "cannot resolve the symbolic link " + path + ": " + ec.message();
    target = resolved;
  }
  struct stat st {};
  bool exists = ::stat(target.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) return "cannot write " + path + ": " + errno_text(errno);
  if (exists && !S_ISREG(st.st_mode)) return "refusing to replace " + path + ": not a regular file";
  if (exists && st.st_nlink > 1) {
    // Hard links share the inode: rewrite it in place so every name sees the new contents.
    int fd = ::open(target.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) return "cannot write " + path + ": " + errno_text(errno);
    bool ok = write_all(fd, content) && ::fsync(fd) == 0;
    int e = errno;
    ::close(fd);
    return ok ? std::string() : "cannot write " + path + ": " + errno_text(e);
  }
  std::string tmpl = (target.parent_path().empty() ? fs::path(".") : target.parent_path()) / ".planlint-XXXXXX";
  std::string tmp = tmpl;
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return "cannot write " + path + ": " + errno_text(errno);
  bool ok = write_all(fd, content);
  int e = errno;
  if (ok && exists) {
    ::fchmod(fd, st.st_mode & 07777);
    if (::geteuid() == 0 || st.st_uid == ::geteuid()) (void)::fchown(fd, st.st_uid, st.st_gid);
  } else if (ok) {
    mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
  }
  if (ok && ::fsync(fd) != 0) {
    ok = false;
    e = errno;
  }
  ::close(fd);
  if (ok && ::rename(tmp.c_str(), target.c_str()) != 0) {
    ok = false;
    e = errno;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    return "cannot write " + path + ": " + errno_text(e);
  }
  return {};
}

}  // namespace planlint::util
