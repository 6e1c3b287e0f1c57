// Splitting text into lines, shared by the plan and source frontends, the reporters and the fixer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
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

// How many bytes of `text` are `byte`: eight at a time (std::count is a byte at a time, and a file
// is counted whole, twice).
inline std::size_t count_byte(std::string_view text, char byte) {
  constexpr std::uint64_t kLow7 = 0x7f7f7f7f7f7f7f7fULL, kOnes = 0x0101010101010101ULL;
  const std::uint64_t pattern = kOnes * static_cast<unsigned char>(byte);
  std::size_t n = 0, i = 0;
  while (text.size() - i >= 8) {
    // Per byte lane, how many of up to 255 words had `byte` there.
    std::uint64_t lanes = 0;
    for (int w = 0; w < 255 && text.size() - i >= 8; ++w, i += 8) {
      std::uint64_t x = 0;
      std::memcpy(&x, text.data() + i, 8);
      x ^= pattern;  // a zero byte where `byte` was
      // High bit of each lane set where the byte is not zero (exact: no carry between lanes).
      const std::uint64_t nonzero = ((x & kLow7) + kLow7) | x;
      lanes += (~nonzero >> 7) & kOnes;
    }
    lanes = (lanes & 0x00ff00ff00ff00ffULL) + ((lanes >> 8) & 0x00ff00ff00ff00ffULL);
    n += static_cast<std::size_t>((lanes * 0x0001000100010001ULL) >> 48);
  }
  for (; i < text.size(); ++i) n += text[i] == byte ? 1 : 0;
  return n;
}

// How many lines lines_keep_eol gives, without building them.
inline std::size_t line_count(std::string_view text) {
  return count_byte(text, '\n') + (!text.empty() && text.back() != '\n' ? 1 : 0);
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
