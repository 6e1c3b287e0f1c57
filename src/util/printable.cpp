// See printable.hpp.
#include "util/printable.hpp"

#include <cstdint>
#include <cstring>

namespace planlint::util {
namespace {

bool is_c0(unsigned char u, bool keep_newlines) {
  return (u < 0x20 && u != '\t' && !(keep_newlines && u == '\n')) || u == 0x7f;
}

// Whether `s` may hold a control character: eight bytes at a time (a byte below 0x20, 0x7f, or any
// byte past ASCII: a C1 control is U+0080..U+009F, or a lone byte 0x80..0x9f), a byte at a time only
// in such a word. Almost no line has one.
bool may_have_control(std::string_view s) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  auto has_byte = [](std::uint64_t x, unsigned char b) {
    const std::uint64_t y = x ^ (kOnes * b);
    return ((y - kOnes) & ~y & kHigh) != 0;
  };
  std::size_t i = 0;
  for (; s.size() - i >= 8; i += 8) {
    std::uint64_t x = 0;
    std::memcpy(&x, s.data() + i, 8);
    if (((x - kOnes * 0x20) & ~x & kHigh) != 0 || has_byte(x, 0x7f) || (x & kHigh) != 0) return true;
  }
  for (; i < s.size(); ++i) {
    auto u = static_cast<unsigned char>(s[i]);
    if (u < 0x20 || u >= 0x7f) return true;
  }
  return false;
}

constexpr char kHex[] = "0123456789abcdef";

}  // namespace

void append_printable(std::string& out, std::string_view s, bool keep_newlines) {
  if (!may_have_control(s)) {
    out += s;
    return;
  }
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto u = static_cast<unsigned char>(s[i]);
    if (is_c0(u, keep_newlines)) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
      continue;
    }
    if (u < 0x80) {
      out += s[i];
      continue;
    }
    // A whole UTF-8 sequence is copied (U+0080..U+009F, the C1 controls, escaped); a byte that
    // starts none is copied too unless it is 0x80..0x9f, which an 8-bit terminal reads as C1.
    const std::size_t n = u >= 0xF0 && u <= 0xF4 ? 4 : u >= 0xE0 && u <= 0xEF ? 3 : u >= 0xC2 && u < 0xE0 ? 2 : 0;
    bool valid = n > 0 && i + n <= s.size();
    for (std::size_t k = 1; valid && k < n; ++k) valid = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (valid && u == 0xC2 && static_cast<unsigned char>(s[i + 1]) <= 0x9F) {
      auto c1 = static_cast<unsigned char>(s[i + 1]);
      out += "\\u00";
      out += kHex[c1 >> 4];
      out += kHex[c1 & 15];
    } else if (valid) {
      out.append(s.substr(i, n));
    } else if (u <= 0x9F) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
      continue;
    } else {
      out += s[i];
      continue;
    }
    i += n - 1;
  }
}

std::string printable(std::string_view s, bool keep_newlines) {
  std::string out;
  out.reserve(s.size());
  append_printable(out, s, keep_newlines);
  return out;
}

namespace {

// The HTML entity for c (&, <, >, and the quotes), or nullptr.
const char* entity(char c) {
  switch (c) {
    case '&':
      return "&amp;";
    case '<':
      return "&lt;";
    case '>':
      return "&gt;";
    case '"':
      return "&quot;";
    case '\'':
      return "&#39;";
    default:
      return nullptr;
  }
}

}  // namespace

std::string markdown_text(std::string_view s) {
  static constexpr std::string_view kMarkup = "|\\`*_[]!#~";  // backslash-escaped: literal in Markdown
  std::string safe = printable(s, true);
  std::string out;
  out.reserve(safe.size());
  for (char c : safe) {
    if (c == '\n' || c == '\r') {
      out += ' ';
    } else if (const char* e = c == '"' || c == '\'' ? nullptr : entity(c)) {
      out += e;
    } else {
      if (kMarkup.find(c) != std::string_view::npos) out += '\\';
      out += c;
    }
  }
  return out;
}

std::string html_text(std::string_view s) {
  std::string safe = printable(s, true);
  std::string out;
  out.reserve(safe.size());
  for (char c : safe) {
    const char* e = entity(c);
    if (e != nullptr)
      out += e;
    else
      out += c;
  }
  return out;
}

}  // namespace planlint::util
