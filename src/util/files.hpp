// Reading inputs and replacing files without surprises: bounded reads that never block on a FIFO
// or grow without end on a device, read errors reported, and replacements that write through
// symlinks, keep hard links, owner, group and mode, and never replace anything but a regular file.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace planlint::util {

constexpr std::size_t kMaxInputBytes = std::size_t{256} * 1024 * 1024;

struct ReadResult {
  std::string text;
  std::string error;     // empty on success: "no such file or directory", "larger than 256 MiB", ...
  bool stopped = false;  // stop_at_head said so: `text` is only the head
};

// Reads a whole file (FIFOs and devices too: named explicitly, they are read as what they are, up to
// max_bytes; a FIFO without a writer reads as empty instead of blocking). A regular file's first
// read (up to 64 KiB) is shown to `stop_at_head` when one is given, before max_bytes applies: when
// it returns true, reading stops there with `stopped` set (one open of the file both to tell what
// it is and to read it).
ReadResult read_file_bounded(const std::string& path, std::size_t max_bytes = kMaxInputBytes,
                             const std::function<bool(std::string_view head)>& stop_at_head = {});
// Standard input, read to its end under the same bound (`planlint - < /dev/zero` stops at it).
ReadResult read_stdin_bounded(std::size_t max_bytes = kMaxInputBytes);

// One entry of a folder listing: a folder (not a link to one), or a file a walk wants.
struct FolderEntry {
  std::string name;
  bool folder = false;
};

// Lists the folder `dir` into `out` (cleared first), leaving out "." and "..": its folders, and the
// regular files (or links to regular files) whose name `wanted` accepts. The type comes from the
// listing itself; only links and entries of file systems that do not give a type are looked at
// further (a link to a folder is not followed). `names` receives every name listed, whatever its
// type, when given. Returns the system's error text ("Permission denied"), empty on success; on an
// error partway, `out` keeps what was listed before it.
std::string list_folder(const std::string& dir, std::vector<FolderEntry>& out, bool (*wanted)(std::string_view name),
                        const std::function<void(std::string_view name)>& names = {});

// Replaces the contents of `path` (its target when it is a symlink) with `content`: through a
// temporary file beside the target and a rename, keeping mode, owner and group; in place when the
// file has several hard links. Refuses to replace a directory, device, FIFO or socket. Returns an
// error message, empty on success.
std::string replace_file_contents(const std::string& path, const std::string& content);

// The same, written piece by piece (a report streamed as files are linted): open() checks the target
// and creates the temporary file, write() appends, commit() renames it over the target (or rewrites a
// hard-linked file in place). Destroyed or aborted without a commit, the target is left untouched and
// the temporary file removed: a failed run never leaves half a report.
class ReplacementFile {
 public:
  ReplacementFile() = default;
  ReplacementFile(const ReplacementFile&) = delete;
  ReplacementFile& operator=(const ReplacementFile&) = delete;
  ~ReplacementFile() { abort(); }
  std::string open(const std::string& path);  // an error message, empty on success
  bool write(std::string_view chunk);         // false once a write has failed
  std::string commit();                       // an error message (a failed write included), empty on success
  void abort();

 private:
  std::string rewrite_in_place();
  std::string path_, target_, tmp_, held_;
  int fd_ = -1;
  int errno_ = 0;
  bool exists_ = false, in_place_ = false;
  unsigned mode_ = 0, uid_ = 0, gid_ = 0;
};

}  // namespace planlint::util
