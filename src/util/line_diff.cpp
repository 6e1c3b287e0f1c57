// See line_diff.hpp.
#include "util/line_diff.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <utility>

namespace planlint::util {
namespace {

// Myers' O((N+M)D) diff in linear space (the middle-snake bisection of his paper, section 4b, as
// diff-match-patch does it): for each line of a and b whether it is kept. The trace of the plain
// algorithm kept O((N+M)D) memory (10,000 changed lines: 658 MB). A part whose edit distance passes
// kMaxD is replaced whole: a bound on time for files that have little in common.
class LineDiff {
 public:
  LineDiff(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b, std::vector<bool>& keep_a,
           std::vector<bool>& keep_b)
      : a_(a), b_(b), keep_a_(keep_a), keep_b_(keep_b) {
    keep_a_.assign(a.size(), false);
    keep_b_.assign(b.size(), false);
    diff(0, static_cast<int>(a.size()), 0, static_cast<int>(b.size()));
  }

 private:
  static constexpr int kMaxD = 4000;

  void keep(int x, int y) {
    keep_a_[static_cast<std::size_t>(x)] = true;
    keep_b_[static_cast<std::size_t>(y)] = true;
  }
  [[nodiscard]] bool same(int x, int y) const {
    return a_[static_cast<std::size_t>(x)] == b_[static_cast<std::size_t>(y)];
  }

  void diff(int a0, int a1, int b0, int b1) {
    while (a0 < a1 && b0 < b1 && same(a0, b0)) keep(a0++, b0++);
    while (a0 < a1 && b0 < b1 && same(a1 - 1, b1 - 1)) keep(--a1, --b1);
    if (a0 == a1 || b0 == b1) return;  // only deletions or only insertions left
    int x = 0, y = 0;
    if (!middle(a0, a1, b0, b1, x, y)) {
      // Too far apart for Myers within kMaxD (thousands of lines fixed): the lines that occur once
      // on each side and in the same order (patience diff's anchors) split it into parts that are
      // near; without any, the part is replaced.
      std::vector<std::pair<int, int>> pairs = anchors(a0, a1, b0, b1);
      for (auto [ax, by] : pairs) {
        diff(a0, ax, b0, by);
        keep(ax, by);
        a0 = ax + 1;
        b0 = by + 1;
      }
      if (!pairs.empty()) diff(a0, a1, b0, b1);
      return;
    }
    if ((x == 0 && y == 0) || (x == a1 - a0 && y == b1 - b0)) return;  // no progress: replaced
    diff(a0, a0 + x, b0, b0 + y);
    diff(a0 + x, a1, b0 + y, b1);
  }

  // The lines found once in a[a0,a1) and once in b[b0,b1), the longest run of them in the same order
  // on both sides (by patience sorting), as (x, y) pairs in order.
  [[nodiscard]] std::vector<std::pair<int, int>> anchors(int a0, int a1, int b0, int b1) const {
    struct Seen {
      int in_a = 0, in_b = 0, x = 0, y = 0;
    };
    std::unordered_map<std::string_view, Seen> seen;
    for (int x = a0; x < a1; ++x) {
      Seen& s = seen[a_[static_cast<std::size_t>(x)]];
      ++s.in_a;
      s.x = x;
    }
    for (int y = b0; y < b1; ++y) {
      auto it = seen.find(b_[static_cast<std::size_t>(y)]);
      if (it == seen.end()) continue;
      ++it->second.in_b;
      it->second.y = y;
    }
    std::vector<std::pair<int, int>> unique;  // in the order of a
    for (int x = a0; x < a1; ++x) {
      const Seen& s = seen[a_[static_cast<std::size_t>(x)]];
      if (s.in_a == 1 && s.in_b == 1) unique.emplace_back(x, s.y);
    }
    // Longest increasing run of y: piles' tops and each element's predecessor.
    std::vector<std::size_t> tops, before(unique.size(), SIZE_MAX);
    for (std::size_t i = 0; i < unique.size(); ++i) {
      auto pile = std::lower_bound(tops.begin(), tops.end(), unique[i].second,
                                   [&](std::size_t t, int y) { return unique[t].second < y; });
      if (pile != tops.begin()) before[i] = *(pile - 1);
      if (pile == tops.end())
        tops.push_back(i);
      else
        *pile = i;
    }
    std::vector<std::pair<int, int>> out;
    for (std::size_t i = tops.empty() ? SIZE_MAX : tops.back(); i != SIZE_MAX; i = before[i]) out.push_back(unique[i]);
    std::reverse(out.begin(), out.end());
    return out;
  }

  // Where a shortest edit script of a[a0,a1) -> b[b0,b1) crosses its middle: (x, y) relative to
  // (a0, b0). False when the two share no line on any path within kMaxD.
  bool middle(int a0, int a1, int b0, int b1, int& out_x, int& out_y) const {
    const int n = a1 - a0, m = b1 - b0;
    const int max_d = std::min((n + m + 1) / 2, kMaxD);
    const int offset = max_d + 1, length = 2 * max_d + 3;
    std::vector<int> v1(static_cast<std::size_t>(length), -1), v2(static_cast<std::size_t>(length), -1);
    const int start = offset + 1;  // the diagonal before d = 0
    v1[static_cast<std::size_t>(start)] = 0;
    v2[static_cast<std::size_t>(start)] = 0;
    const int delta = n - m;
    const bool front = delta % 2 != 0;  // the forward path meets the reverse one on odd deltas
    int k1start = 0, k1end = 0, k2start = 0, k2end = 0;
    auto at = [](std::vector<int>& v, int i) -> int& { return v[static_cast<std::size_t>(i)]; };
    for (int d = 0; d < max_d; ++d) {
      for (int k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
        const int i1 = offset + k1;
        int x1 = k1 == -d || (k1 != d && at(v1, i1 - 1) < at(v1, i1 + 1)) ? at(v1, i1 + 1) : at(v1, i1 - 1) + 1;
        int y1 = x1 - k1;
        while (x1 < n && y1 < m && same(a0 + x1, b0 + y1)) ++x1, ++y1;
        at(v1, i1) = x1;
        if (x1 > n) {
          k1end += 2;
        } else if (y1 > m) {
          k1start += 2;
        } else if (front) {
          const int i2 = offset + delta - k1;
          if (i2 >= 0 && i2 < length && at(v2, i2) != -1 && x1 >= n - at(v2, i2)) {
            out_x = x1;
            out_y = y1;
            return true;
          }
        }
      }
      for (int k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
        const int i2 = offset + k2;
        int x2 = k2 == -d || (k2 != d && at(v2, i2 - 1) < at(v2, i2 + 1)) ? at(v2, i2 + 1) : at(v2, i2 - 1) + 1;
        int y2 = x2 - k2;
        while (x2 < n && y2 < m && same(a1 - x2 - 1, b1 - y2 - 1)) ++x2, ++y2;
        at(v2, i2) = x2;
        if (x2 > n) {
          k2end += 2;
        } else if (y2 > m) {
          k2start += 2;
        } else if (!front) {
          const int i1 = offset + delta - k2;
          if (i1 >= 0 && i1 < length && at(v1, i1) != -1) {
            const int x1 = at(v1, i1);
            const int y1 = offset + x1 - i1;
            if (x1 >= n - x2) {
              out_x = x1;
              out_y = y1;
              return true;
            }
          }
        }
      }
    }
    return false;
  }

  const std::vector<std::string_view>& a_;
  const std::vector<std::string_view>& b_;
  std::vector<bool>& keep_a_;
  std::vector<bool>& keep_b_;
};

}  // namespace

void diff_lines(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b,
                std::vector<bool>& keep_a, std::vector<bool>& keep_b) {
  LineDiff(a, b, keep_a, keep_b);
}

}  // namespace planlint::util
