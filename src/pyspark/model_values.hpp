// The building blocks of the SourceModel's records (model.hpp, which includes this): positions, the
// arena and lists that keep records without moving them, and value types the size of a pointer.
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace planlint::pyspark {

// Cell-relative position: byte offsets in the cell text, end exclusive. Lines and columns are
// computed when a finding is reported (SourceModel::place): a large file holds many of these.
struct Pos {
  std::uint32_t start_byte = 0, end_byte = 0;
};

// A Pos as lines and columns: 1-based, columns in bytes, end exclusive.
struct Place {
  std::uint32_t line = 0, column = 0, end_line = 0, end_column = 0;
};

// Where a model keeps its argument, link and column lists: blocks that never move, so spans of them
// stay valid (also when the model is moved), freed with the model. No allocation per list.
class ModelArena {
 public:
  template <class T>
  std::span<T> make(std::size_t n) {
    static_assert(std::is_trivially_destructible_v<T>, "arena records are never destroyed one by one");
    if (n == 0) return {};
    T* out = static_cast<T*>(take(n * sizeof(T), alignof(T)));
    for (std::size_t i = 0; i < n; ++i) new (out + i) T();
    return {out, n};
  }
  template <class T>
  std::span<T> copy(const std::vector<T>& from) {
    std::span<T> out = make<T>(from.size());
    std::copy(from.begin(), from.end(), out.begin());
    return out;
  }

 private:
  void* take(std::size_t bytes, std::size_t align);
  static constexpr std::size_t kBlock = std::size_t{64} * 1024;
  std::vector<std::unique_ptr<std::byte[]>> blocks_;
  std::size_t used_ = 0, capacity_ = 0;
};

// Records that never move, added at the end and read in order, in blocks of 64 KiB (an allocator
// size class: a std::deque's blocks of 480 bytes of chains were rounded up to 512).
template <class T>
class ChunkList {
  static constexpr std::size_t kPerBlock = std::max<std::size_t>(1, std::size_t{64} * 1024 / sizeof(T));

 public:
  ChunkList() = default;
  ChunkList(const ChunkList&) = delete;
  ChunkList& operator=(const ChunkList&) = delete;
  ChunkList(ChunkList&& o) noexcept : blocks_(std::move(o.blocks_)), size_(o.size_) { o.size_ = 0; }
  ChunkList& operator=(ChunkList&& o) noexcept {
    if (this != &o) {
      clear();
      blocks_ = std::move(o.blocks_);
      size_ = o.size_;
      o.size_ = 0;
    }
    return *this;
  }
  ~ChunkList() { clear(); }

  template <class... A>
  T& emplace_back(A&&... args) {
    if (size_ == blocks_.size() * kPerBlock) blocks_.push_back(std::allocator<T>().allocate(kPerBlock));
    T* at = blocks_.back() + size_ % kPerBlock;
    new (at) T(std::forward<A>(args)...);
    ++size_;
    return *at;
  }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] T& operator[](std::size_t i) const { return blocks_[i / kPerBlock][i % kPerBlock]; }
  [[nodiscard]] T& back() const { return (*this)[size_ - 1]; }
  // The blocks records are kept in, kPerBlock records each (the last one filled up to size()).
  [[nodiscard]] std::span<T* const> blocks() const { return blocks_; }
  static constexpr std::size_t per_block() { return kPerBlock; }

  template <class V>
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = V*;
    using reference = V&;
    Iterator() = default;
    Iterator(const ChunkList* list, std::size_t i) : list_(list), block_(i / kPerBlock), at_(i % kPerBlock) {}
    V& operator*() const { return list_->blocks_[block_][at_]; }
    V* operator->() const { return &**this; }
    Iterator& operator++() {
      if (++at_ == kPerBlock) ++block_, at_ = 0;
      return *this;
    }
    Iterator operator++(int) {
      Iterator old = *this;
      ++*this;
      return old;
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.block_ == b.block_ && a.at_ == b.at_; }

   private:
    const ChunkList* list_ = nullptr;
    std::size_t block_ = 0, at_ = 0;  // no division per step
  };
  using iterator = Iterator<T>;
  using const_iterator = Iterator<const T>;
  [[nodiscard]] iterator begin() { return {this, 0}; }
  [[nodiscard]] iterator end() { return {this, size_}; }
  [[nodiscard]] const_iterator begin() const { return {this, 0}; }
  [[nodiscard]] const_iterator end() const { return {this, size_}; }

 private:
  void clear() {
    for (std::size_t i = 0; i < size_; ++i) (*this)[i].~T();
    for (T* b : blocks_) std::allocator<T>().deallocate(b, kPerBlock);
    blocks_.clear();
    size_ = 0;
  }
  std::vector<T*> blocks_;
  std::size_t size_ = 0;
};

// A list kept by a ModelArena, as a span is, in 12 bytes (a pointer and a 32-bit count, aligned to 4)
// so that the records holding one (Link, Chain) pack it with their other 4-byte fields. Reads as a
// std::span.
template <class T>
class [[gnu::packed, gnu::aligned(4)]] ArenaList {
 public:
  ArenaList() = default;
  ArenaList(std::span<T> s) : data_(s.data()), size_(static_cast<std::uint32_t>(s.size())) {}  // NOLINT
  [[nodiscard]] T* data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] T* begin() const { return data_; }
  [[nodiscard]] T* end() const { return data_ + size_; }
  [[nodiscard]] std::reverse_iterator<T*> rbegin() const { return std::reverse_iterator<T*>(end()); }
  [[nodiscard]] std::reverse_iterator<T*> rend() const { return std::reverse_iterator<T*>(begin()); }
  [[nodiscard]] T& operator[](std::size_t i) const { return data_[i]; }
  [[nodiscard]] T& front() const { return data_[0]; }
  [[nodiscard]] T& back() const { return data_[size_ - 1]; }
  operator std::span<T>() const { return {data_, size_}; }        // NOLINT(google-explicit-constructor)
  operator std::span<const T>() const { return {data_, size_}; }  // NOLINT(google-explicit-constructor)

 private:
  T* data_ = nullptr;
  std::uint32_t size_ = 0;
};

// Small value types for the model's records (Expr, Chain): a large file holds hundreds of thousands
// of them, so each is the size of a pointer or less, with the interface of what it replaces (an
// optional's, a string_view's).

// A tree-sitter node type ("string", "call", ...) as its symbol number.
class Kind {
 public:
  Kind() = default;
  explicit Kind(std::uint16_t symbol) : symbol_(symbol) {}
  [[nodiscard]] std::string_view name() const;          // "" when unset
  operator std::string_view() const { return name(); }  // NOLINT(google-explicit-constructor): reads as a name
  friend bool operator==(Kind k, std::string_view s) { return k.name() == s; }

 private:
  static constexpr std::uint16_t kNone = 0xFFFF;
  std::uint16_t symbol_ = kNone;
};

// An optional string view in the size of a view: a present value always has a non-null pointer
// (an empty literal views the cell where it is written).
class OptView {
 public:
  OptView() = default;
  OptView(std::nullopt_t) {}  // NOLINT(google-explicit-constructor)
  OptView(std::string_view v) : data_(v.data() == nullptr ? "" : v.data()), size_(v.size()) {}  // NOLINT
  OptView(const std::optional<std::string_view>& v) {  // NOLINT(google-explicit-constructor)
    if (v) *this = OptView(*v);
  }
  [[nodiscard]] bool has_value() const { return data_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  [[nodiscard]] std::string_view operator*() const { return {data_, size_}; }
  [[nodiscard]] std::string_view value_or(std::string_view other) const { return has_value() ? **this : other; }
  operator std::optional<std::string_view>() const {  // NOLINT(google-explicit-constructor)
    return has_value() ? std::optional<std::string_view>(**this) : std::nullopt;
  }
  friend bool operator==(const OptView& a, std::string_view b) { return a.has_value() && *a == b; }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

// An optional integer in eight bytes: the smallest int64 stands for "none" (a Python literal never
// reads as it: its digits overflow, and a negation is of a positive value).
class OptInt {
 public:
  OptInt() = default;
  OptInt(std::nullopt_t) {}              // NOLINT(google-explicit-constructor)
  OptInt(std::int64_t v) : value_(v) {}  // NOLINT(google-explicit-constructor)
  [[nodiscard]] bool has_value() const { return value_ != kNone; }
  explicit operator bool() const { return has_value(); }
  [[nodiscard]] std::int64_t operator*() const { return value_; }
  operator std::optional<std::int64_t>() const {  // NOLINT(google-explicit-constructor)
    return has_value() ? std::optional<std::int64_t>(value_) : std::nullopt;
  }
  friend bool operator==(const OptInt& a, std::int64_t b) { return a.has_value() && a.value_ == b; }

 private:
  static constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();
  std::int64_t value_ = kNone;
};

// A name the model keeps (SourceModel::keep_name), as one pointer.
class KeptName {
 public:
  KeptName() = default;
  explicit KeptName(const std::string* s) : s_(s) {}
  operator std::string_view() const { return s_ == nullptr ? std::string_view{} : std::string_view(*s_); }  // NOLINT
  [[nodiscard]] bool empty() const { return s_ == nullptr || s_->empty(); }
  friend bool operator==(const KeptName& a, std::string_view b) { return std::string_view(a) == b; }
  // With a literal: its length is a constant, and the comparison inlines (no call to memcmp).
  template <std::size_t N>
  friend bool operator==(const KeptName& a, const char (&literal)[N]) {
    const std::string_view v = a;
    if constexpr (N == 1) {
      return v.empty();
    } else {
      return v.size() == N - 1 && std::memcmp(v.data(), literal, N - 1) == 0;
    }
  }
  friend std::strong_ordering operator<=>(const KeptName& a, std::string_view b) {
    return std::string_view(a).compare(b) <=> 0;
  }
  // What a string_view reads of it.
  [[nodiscard]] std::string_view view() const { return *this; }
  [[nodiscard]] std::size_t size() const { return view().size(); }
  [[nodiscard]] std::size_t find(std::string_view s, std::size_t at = 0) const { return view().find(s, at); }
  [[nodiscard]] std::size_t find(char c, std::size_t at = 0) const { return view().find(c, at); }
  [[nodiscard]] std::size_t rfind(std::string_view s, std::size_t at = std::string_view::npos) const {
    return view().rfind(s, at);
  }
  [[nodiscard]] std::string_view substr(std::size_t at, std::size_t n = std::string_view::npos) const {
    return view().substr(at, n);
  }

 private:
  const std::string* s_ = nullptr;
};

// An optional Pos in the size of a Pos (no cell holds 4 GiB, so the largest offsets say "none").
class OptPos {
 public:
  OptPos() = default;
  OptPos(std::nullopt_t) {}          // NOLINT(google-explicit-constructor)
  OptPos(const Pos& p) : pos_(p) {}  // NOLINT(google-explicit-constructor)
  [[nodiscard]] bool has_value() const { return pos_.start_byte != kNone || pos_.end_byte != kNone; }
  explicit operator bool() const { return has_value(); }
  [[nodiscard]] const Pos& operator*() const { return pos_; }
  [[nodiscard]] const Pos* operator->() const { return &pos_; }
  operator std::optional<Pos>() const {  // NOLINT(google-explicit-constructor)
    return has_value() ? std::optional<Pos>(pos_) : std::nullopt;
  }

 private:
  static constexpr std::uint32_t kNone = 0xFFFFFFFF;
  Pos pos_{kNone, kNone};
};

}  // namespace planlint::pyspark
