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

// Whether the text starts like an event log: its first line is a Spark listener event.
bool looks_like_event_log(std::string_view head);
// Whether plain `planlint` should read this path as an event log (by codec suffix, a rolling
// directory, or the first bytes).
bool is_event_log_path(const std::string& path);

}  // namespace planlint::eventlog
