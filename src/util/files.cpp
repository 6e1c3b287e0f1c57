// See files.hpp. POSIX calls, since std::filesystem cannot open a FIFO without blocking nor keep
// owners and links.
#include "util/files.hpp"

#include <dirent.h>
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

bool write_all(int fd, std::string_view content) {
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

std::string list_folder(const std::string& dir, std::vector<FolderEntry>& out, bool (*wanted)(std::string_view name),
                        const std::function<void(std::string_view name)>& names) {
  out.clear();
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return std::strerror(errno);
  // getdents64 straight into a buffer: a folder costs an open, two reads and a close (opendir and
  // std::filesystem add a stat and an fcntl, which on a virtual machine cost as much as a read).
  alignas(8) char buf[32768];
  std::string error;
  for (;;) {
    ssize_t n = ::getdents64(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      error = std::strerror(errno);
      break;
    }
    if (n == 0) break;
    for (ssize_t at = 0; at < n;) {
      const auto* d = reinterpret_cast<const struct dirent64*>(buf + at);
      at += d->d_reclen;
      std::string_view name(d->d_name);
      if (name == "." || name == "..") continue;
      if (names) names(name);
      unsigned char type = d->d_type;
      if (type == DT_UNKNOWN) {
        struct stat st {};
        if (::fstatat(fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN;
      }
      if (type == DT_DIR) {
        out.push_back({std::string(name), true});
      } else if ((type == DT_REG || type == DT_LNK) && wanted(name)) {
        struct stat st {};
        if (type == DT_LNK && (::fstatat(fd, d->d_name, &st, 0) != 0 || !S_ISREG(st.st_mode))) continue;
        out.push_back({std::string(name), false});
      }
    }
  }
  ::close(fd);
  return error;
}

ReadResult read_file_bounded(const std::string& path, std::size_t max_bytes,
                             const std::function<bool(std::string_view head)>& stop_at_head) {
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
  bool too_large = S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > max_bytes;
  bool probe = S_ISREG(st.st_mode) && stop_at_head;
  auto too_large_text = [&] {
    return "larger than " + std::to_string(max_bytes / (std::size_t{1024} * 1024)) + " MiB: not read";
  };
  if (too_large && !probe) {
    ::close(fd);
    r.error = too_large_text();
    return r;
  }
  // Blocking reads from here: a FIFO opened without a writer now reads end-of-file at once. A regular
  // file keeps O_NONBLOCK, which local file systems ignore (two system calls a file less: a tree of
  // 6,400 small plans spent a quarter of its time in system calls); a network or FUSE file system
  // that honours it and answers EAGAIN gets blocking reads then, so that it cannot cut a read short.
  const bool regular = S_ISREG(st.st_mode);
  auto make_blocking = [fd] {
    int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  };
  bool blocking = !regular;
  if (blocking) make_blocking();
  if (regular && !too_large) r.text.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN && !blocking) {
        make_blocking();
        blocking = true;
        continue;
      }
      if (errno == EAGAIN) break;  // a FIFO with no data and no writer
      r.error = "cannot read: " + errno_text(errno);
      break;
    }
    if (n == 0) break;
    if (probe) {
      probe = false;
      if (stop_at_head(std::string_view(buf, static_cast<std::size_t>(n)))) {
        r.text.assign(buf, static_cast<std::size_t>(n));
        r.stopped = true;
        break;
      }
      if (too_large) break;
    }
    if (r.text.size() + static_cast<std::size_t>(n) > max_bytes) {
      r.error = too_large_text();
      break;
    }
    r.text.append(buf, static_cast<std::size_t>(n));
    // A regular file read up to the size fstat gave ends there, without a last read to find its end
    // (a file written while it is read is read as far as it was when opened). Files that report no
    // size (/proc) or a size they do not have (sysfs) are read to the end.
    if (regular && st.st_size > 0 && r.text.size() == static_cast<std::size_t>(st.st_size)) break;
  }
  ::close(fd);
  if (too_large && !r.stopped && r.error.empty()) r.error = too_large_text();
  if (!r.error.empty()) r.text.clear();
  return r;
}

ReadResult read_stdin_bounded(std::size_t max_bytes) {
  ReadResult r;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
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
  if (!r.error.empty()) r.text.clear();
  return r;
}

std::string ReplacementFile::open(const std::string& path) {
  namespace fs = std::filesystem;
  abort();
  path_ = path;
  std::error_code ec;
  fs::path target(path);
  // Through symlinks to what they point at (a dangling link: its target is created).
  if (fs::is_symlink(fs::symlink_status(target, ec))) {
    fs::path resolved = fs::weakly_canonical(target, ec);
    if (ec) return "cannot resolve the symbolic link " + path + ": " + ec.message();
    target = resolved;
  }
  target_ = target.string();
  struct stat st {};
  exists_ = ::stat(target_.c_str(), &st) == 0;
  if (!exists_ && errno != ENOENT) return "cannot write " + path + ": " + errno_text(errno);
  if (exists_ && !S_ISREG(st.st_mode)) return "refusing to replace " + path + ": not a regular file";
  mode_ = st.st_mode;
  uid_ = st.st_uid;
  gid_ = st.st_gid;
  // A file the user may not write is left alone, as editors do: replacing it through a writable
  // folder would change its owner and bypass its mode. A mode without any write bit is read-only for
  // root too.
  if (exists_ && (::access(target_.c_str(), W_OK) != 0 || (st.st_mode & 0222) == 0))
    return "cannot write " + path + ": read-only file";
  // Hard links share the inode: it is rewritten in place at commit, so every name sees the new
  // contents. The new contents go to a temporary file first (so a full disk is found before the
  // original is touched, and a stop during the rewrite leaves them beside it).
  in_place_ = exists_ && st.st_nlink > 1;
  // Named after the file (a name cut to 200 bytes: the whole must stay under the 255 of a name).
  const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  const std::string name = target.filename().string().substr(0, 200);
  tmp_ = (folder / ("." + name + ".planlint-XXXXXX")).string();
  fd_ = ::mkstemp(tmp_.data());
  if (fd_ < 0 && in_place_) {
    // A hard-linked file in a folder it cannot create files in is still rewritten in place: its
    // temporary copy goes to the temporary folder (renaming is not needed for it).
    const char* tmpdir = std::getenv("TMPDIR");
    tmp_ = (fs::path(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp") / (name + ".planlint-XXXXXX")).string();
    fd_ = ::mkstemp(tmp_.data());
  }
  if (fd_ < 0) {
    tmp_.clear();
    return "cannot write " + path + ": " + errno_text(errno);
  }
  return {};
}

bool ReplacementFile::write(std::string_view chunk) {
  if (errno_ != 0) return false;
  if (in_place_) held_.append(chunk);
  if (fd_ < 0) {
    errno_ = EBADF;
    return false;
  }
  if (!write_all(fd_, chunk)) {
    errno_ = errno;
    return false;
  }
  return true;
}

// The hard-linked target gets the new contents in its own inode, in a way that cannot lose both
// versions: the temporary copy is complete and on disk first; the target's blocks for the new size
// are reserved before any byte of it changes; a write that fails after all puts the original back;
// and until the target holds the new contents in full, the temporary copy stays beside it (a stop
// half-way through leaves it there, named after the file).
std::string ReplacementFile::rewrite_in_place() {
  auto fail = [&](int e) { return "cannot write " + path_ + ": " + errno_text(e); };
  if (::fsync(fd_) != 0) return fail(errno);
  int fd = ::open(target_.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return fail(errno);
  std::string original;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::pread(fd, buf, sizeof buf, static_cast<off_t>(original.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      return fail(e);
    }
    if (n == 0) break;
    original.append(buf, static_cast<std::size_t>(n));
  }
  if (!held_.empty() && held_.size() > original.size() &&
      ::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(held_.size())) != 0 && errno != EOPNOTSUPP &&
      errno != ENOSYS && errno != EINVAL) {  // a file system (or sandbox) without it: the copy still guards
    int e = errno;
    ::close(fd);
    return fail(e);  // nothing of the target has changed
  }
  auto put = [fd](std::string_view text) {
    std::size_t done = 0;
    while (done < text.size()) {
      ssize_t n = ::pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return ::ftruncate(fd, static_cast<off_t>(text.size())) == 0 && ::fsync(fd) == 0;
  };
  std::string err;
  if (!put(held_)) {
    int e = errno;
    err = fail(e);
    if (!put(original)) {
      // Neither version is in the target now: the new one is kept in the temporary copy.
      err += "; the file is damaged, its fixed contents are in " + tmp_;
      tmp_.clear();
    }
  }
  ::close(fd);
  return err;
}

std::string ReplacementFile::commit() {
  std::string err;
  if (errno_ != 0) {
    err = "cannot write " + path_ + ": " + errno_text(errno_);
  } else if (fd_ < 0) {
    err = "cannot write " + path_ + ": not open";
  } else if (in_place_) {
    err = rewrite_in_place();
  } else {
    bool ok = true;
    int e = 0;
    if (exists_) {
      ::fchmod(fd_, mode_ & 07777);
      if (::geteuid() == 0 || uid_ == ::geteuid()) (void)::fchown(fd_, uid_, gid_);
    } else {
      mode_t mask = ::umask(0);
      ::umask(mask);
      ::fchmod(fd_, 0666 & ~mask);
    }
    if (::fsync(fd_) != 0) {
      ok = false;
      e = errno;
    }
    ::close(fd_);
    fd_ = -1;
    if (ok && ::rename(tmp_.c_str(), target_.c_str()) != 0) {
      ok = false;
      e = errno;
    }
    if (ok) tmp_.clear();
    if (!ok) err = "cannot write " + path_ + ": " + errno_text(e);
  }
  abort();
  return err;
}

void ReplacementFile::abort() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
  tmp_.clear();
  in_place_ = false;
  held_.clear();
  errno_ = 0;
}

std::string replace_file_contents(const std::string& path, const std::string& content) {
  ReplacementFile f;
  if (auto err = f.open(path); !err.empty()) return err;
  f.write(content);
  return f.commit();
}

}  // namespace planlint::util
