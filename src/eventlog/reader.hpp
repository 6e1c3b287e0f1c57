// Reading an event log (one file, or a rolling eventlog_v2_* directory) into the Application IR in
// one streaming pass; memory grows with stages and tasks kept, not with the log's size.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "eventlog/model.hpp"

namespace planlint::eventlog {

// `path` is a file or a rolling-log directory. Problems (unreadable file, codec errors, malformed
// lines) are recorded in Application::problems; `io_error` is set when nothing could be read.
Application read_event_log(const std::string& path, std::string& io_error);

// The event files of a rolling-log directory (events_<n>_<app>[.codec]), in order; empty if the
// directory is not one.
std::vector<std::string> rolling_log_files(const std::string& dir);

// The files of a rolling-log directory to read, as Spark's reader chooses them: from the last
// compacted part on, each index once, no index missing (`error` names the missing ones: the gap
// would read as a time when nothing ran); `notes` say what was skipped and why.
struct RollingSelection {
  std::vector<std::string> files;
  std::vector<std::string> notes;
  std::string error;
};
RollingSelection select_rolling_parts(const std::string& dir);

// Whether the text starts like an event log: its first line is a Spark listener event.
bool looks_like_event_log(std::string_view head);
// Whether plain `planlint` should read this path as an event log (by codec suffix, a rolling
// directory, or the first bytes).
bool is_event_log_path(const std::string& path);

}  // namespace planlint::eventlog
