// The files a folder argument stands for, found in the order their paths sort in, so that each can
// be linted as soon as it is found (a folder walk runs beside the linting).
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace planlint::cli {

struct WalkCallbacks {
  // Whether a file or folder found is left out (folders left out are not entered).
  std::function<bool(const std::string& path)> skip;
  // A folder was listed; `config_named` says whether a configuration file's name is among its entries.
  std::function<void(const std::string& folder, bool config_named)> listed;
  // A file to lint, in the order std::sort would give the paths of all of them.
  std::function<void(const std::string& path)> file;
  // A folder could not be listed (the system's error text); its siblings are still walked.
  std::function<void(const std::string& folder, const std::string& error)> error;
};

// Walks the folder `root` depth first: regular files (and links to them) whose name `wanted`
// accepts, in folders that are not links. Each folder's entries are taken in the order of their names
// with a '/' after folder names, which is the order of the whole paths: files come out sorted without
// waiting for the end of the walk.
void walk_folder(const std::string& root, bool (*wanted)(std::string_view name), const WalkCallbacks& callbacks);

}  // namespace planlint::cli
