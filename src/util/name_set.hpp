// A fixed set of short names (method names, readers, actions) that the source analysis and rules
// ask about for every link of every chain: an open-addressing table hashed on the length and three
// characters, so that a lookup is a few instructions and usually one comparison, where a
// std::set<std::string> compares strings down a tree. Built once (static storage), never changed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace planlint::util {

class NameSet {
 public:
  NameSet(std::initializer_list<std::string_view> names) : NameSet(std::span(names.begin(), names.size())) {}
  explicit NameSet(std::span<const std::string_view> names) {
    std::size_t size = 8;
    while (size < names.size() * 4) size *= 2;
    mask_ = size - 1;
    slots_.assign(size, kEmpty);
    names_.reserve(names.size());
    for (std::string_view n : names) {
      if (contains(n)) continue;  // listed twice: kept once
      std::size_t at = hash(n) & mask_;
      while (slots_[at] != kEmpty) at = (at + 1) & mask_;
      slots_[at] = static_cast<std::uint32_t>(names_.size());
      names_.emplace_back(n);
    }
  }
  [[nodiscard]] bool contains(std::string_view s) const { return index(s) != names_.size(); }
  // The place of `s` among the names as listed (duplicates dropped), or size() when it is not one.
  [[nodiscard]] std::size_t index(std::string_view s) const {
    for (std::size_t at = hash(s) & mask_;; at = (at + 1) & mask_) {
      const std::uint32_t i = slots_[at];
      if (i == kEmpty) return names_.size();
      if (names_[i] == s) return i;
    }
  }
  // The names, as listed (duplicates dropped).
  [[nodiscard]] std::span<const std::string> names() const { return names_; }
  // As std::set::count: 1 or 0.
  [[nodiscard]] std::size_t count(std::string_view s) const { return contains(s) ? 1 : 0; }
  [[nodiscard]] std::size_t size() const { return names_.size(); }

 private:
  static constexpr std::uint32_t kEmpty = ~std::uint32_t{0};
  static std::size_t hash(std::string_view s) {
    if (s.empty()) return 0;
    const auto c = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(s[i])); };
    return s.size() * 0x9E37U ^ c(0) * 0x2F1U ^ c(s.size() - 1) * 0x85U ^ c(s.size() / 2) * 0x1FU;
  }
  std::vector<std::string> names_;
  std::vector<std::uint32_t> slots_;
  std::size_t mask_ = 0;
};

}  // namespace planlint::util
