// Which lines two texts share: a shortest edit script's kept lines, for unified diffs and for
// rewriting only the changed lines of a notebook cell.
#pragma once

#include <string_view>
#include <vector>

namespace planlint::util {

// For each line of a and of b, whether it is kept (paired with an equal line of the other side, in
// order). Myers' O((N+M)D) diff in linear space; parts too far apart are split at patience anchors.
void diff_lines(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b,
                std::vector<bool>& keep_a, std::vector<bool>& keep_b);

}  // namespace planlint::util
