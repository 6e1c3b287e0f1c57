// Reports written to standard output or, atomically, to a file.
#include "cli/output.hpp"

#include <cerrno>
#include <cstring>
#include <iostream>

namespace planlint::cli {

bool write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text << std::flush;
    if (!std::cout) {
      std::cerr << "planlint: error: cannot write the report to standard output (" << std::strerror(errno) << ")\n";
      return false;
    }
    return true;
  }
  if (auto err = util::replace_file_contents(path, text); !err.empty()) {
    std::cerr << "planlint: error: " << err << "\n";
    return false;
  }
  return true;
}

std::string ReportWriter::open(const std::string& path) {
  to_stdout_ = path.empty() || path == "-";
  if (to_stdout_) return {};
  return file_.open(path);
}

void ReportWriter::write(std::string_view chunk) {
  if (failed_ || chunk.empty()) return;
  if (to_stdout_) {
    std::cout.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    if (!std::cout) {
      failed_ = true;
      errno_ = errno;
    }
  } else if (!file_.write(chunk)) {
    failed_ = true;
  }
}

std::string ReportWriter::commit() {
  if (!to_stdout_) return file_.commit();
  if (!failed_) {
    std::cout.flush();
    if (!std::cout) {
      failed_ = true;
      errno_ = errno;
    }
  }
  if (failed_) return std::string("cannot write the report to standard output (") + std::strerror(errno_) + ")";
  return {};
}

}  // namespace planlint::cli
