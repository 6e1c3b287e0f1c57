// Baselines: the findings of a run recorded in a file, and left out of later reports.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lint/engine.hpp"

namespace planlint::cli {

class Baseline {
 public:
  std::string load(const std::string& path);  // an error message, empty on success
  void filter(lint::FileResult& result);      // drops the findings the baseline holds
 private:
  std::multiset<std::pair<std::string, std::string>> known_;
};

class BaselineWriter {
 public:
  void add(const lint::FileResult& result);
  [[nodiscard]] std::size_t size() const { return findings_.size(); }
  std::string write(const std::string& path) const;  // an error message, empty on success

 private:
  nlohmann::ordered_json findings_ = nlohmann::ordered_json::array();
};

std::string apply_baseline(const std::string& path, std::vector<lint::FileResult>& results);

// `planlint diff BEFORE AFTER`: what a change did to the plans (text, json, sarif, github, markdown).
}  // namespace planlint::cli
