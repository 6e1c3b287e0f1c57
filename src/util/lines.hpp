// Splitting text into lines, shared by the plan and source frontends, the reporters and the fixer.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace planlint::util {

// Each line with its '\n' (the last one may have none); views into `text`.
inline std::vector<std::string_view> lines_keep_eol(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    out.push_back(text.substr(start, end - start));
    start = end;
  }
  return out;
}

// fn(number, line) for each line without its "\n" or "\r\n" (numbered from 1), without building a list.
template <class Fn>
void for_each_line_without_eol(std::string_view text, Fn&& fn) {
  std::size_t start = 0;
  std::size_t number = 0;
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view l = text.substr(start, end - start);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    fn(++number, l);
    start = nl == std::string_view::npos ? text.size() : nl + 1;
  }
}

// Lines without their "\n" or "\r\n", as views into `text`.
inline std::vector<std::string_view> line_views_without_eol(std::string_view text) {
  std::vector<std::string_view> out;
  for_each_line_without_eol(text, [&](std::size_t, std::string_view line) { out.push_back(line); });
  return out;
}

// How many lines lines_keep_eol gives, without building them.
inline std::size_t line_count(std::string_view text) {
  const auto n = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  return n + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

// Lines without their "\n" or "\r\n".
inline std::vector<std::string> lines_without_eol(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view l : lines_keep_eol(text)) {
    if (!l.empty() && l.back() == '\n') l.remove_suffix(1);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    out.emplace_back(l);
  }
  return out;
}

}  // namespace planlint::util
