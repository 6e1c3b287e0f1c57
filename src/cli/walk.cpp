// See walk.hpp.
#include "cli/walk.hpp"

#include <algorithm>
#include <vector>

#include "lint/config.hpp"
#include "util/files.hpp"

namespace planlint::cli {

void walk_folder(const std::string& root, bool (*wanted)(std::string_view name), const WalkCallbacks& callbacks) {
  struct Level {
    std::string folder;
    std::vector<util::FolderEntry> entries;  // folder names end with '/'
    std::size_t next = 0;
  };
  std::vector<Level> stack;
  // Lists `folder` as the next level (none when nothing of it could be listed).
  auto enter = [&](std::string folder) {
    Level level;
    bool config_named = false;
    std::string err = util::list_folder(folder, level.entries, wanted,
                                        [&](std::string_view name) { config_named |= lint::is_config_name(name); });
    if (!err.empty()) callbacks.error(folder, err);
    if (err.empty()) callbacks.listed(folder, config_named);
    if (level.entries.empty()) return;
    for (auto& e : level.entries)
      if (e.folder) e.name += '/';
    std::sort(level.entries.begin(), level.entries.end(),
              [](const util::FolderEntry& a, const util::FolderEntry& b) { return a.name < b.name; });
    if (folder.back() != '/') folder += '/';
    level.folder = std::move(folder);
    stack.push_back(std::move(level));
  };
  enter(root);
  std::string path;
  while (!stack.empty()) {
    Level& level = stack.back();
    if (level.next == level.entries.size()) {
      stack.pop_back();
      continue;
    }
    const util::FolderEntry& e = level.entries[level.next++];
    path = level.folder;
    path += e.name;
    if (e.folder) path.pop_back();
    if (callbacks.skip(path)) continue;
    if (e.folder)
      enter(path);  // `level` is not used after this
    else
      callbacks.file(path);
  }
}

}  // namespace planlint::cli
