// Reading inputs and replacing files without surprises: bounded reads that never block on a FIFO
// or grow without end on a device, read errors reported, and replacements that write through
// symlinks, keep hard links, owner, group and mode, and never replace anything but a regular file.
#pragma once

#include <cstddef>
#include <string>

namespace planlint::util {

constexpr std::size_t kMaxInputBytes = std::size_t{256} * 1024 * 1024;

struct ReadResult {
  std::string text;
  std::string error;  // empty on success: "no such file or directory", "larger than 256 MiB", ...
};

// Reads a whole file (FIFOs and devices too: named explicitly, they are read as what they are, up to
// max_bytes; a FIFO without a writer reads as empty instead of blocking).
ReadResult read_file_bounded(const std::string& path, std::size_t max_bytes = kMaxInputBytes);

// Replaces the contents of `path` (its target when it is a symlink) with `content`: through a
// temporary file beside the target and a rename, keeping mode, owner and group; in place when the
// file has several hard links. Refuses to replace a directory, device, FIFO or socket. Returns an
// error message, empty on success.
std::string replace_file_contents(const std::string& path, const std::string& content);

}  // namespace planlint::util
