#include "pyspark/syntax_tree.hpp"

#include <tree_sitter/api.h>

#include <new>

namespace planlint::pyspark {
namespace {

SyntaxNode make_node(TSNode n, TSFieldId field) {
  SyntaxNode s{};
  s.start_byte = ts_node_start_byte(n);
  s.end_byte = ts_node_end_byte(n);
  s.symbol = ts_node_symbol(n);
  s.field = field;
  s.named = ts_node_is_named(n);
  return s;
}

}  // namespace

#if PLANLINT_TS_WALK
struct SyntaxTree::WalkBuffers {
  PlanlintTsWalk walk{};
  UninitVector<const SyntaxNode*> pending;
  WalkBuffers() = default;
  WalkBuffers(const WalkBuffers&) = delete;
  WalkBuffers& operator=(const WalkBuffers&) = delete;
  ~WalkBuffers() { planlint_ts_walk_free(&walk); }
};

bool SyntaxTree::reads_subtrees() { return true; }

void SyntaxTree::build(const TSTree* tree) { build_from_walk(tree); }

void SyntaxTree::build_from_walk(const TSTree* tree) {
  nodes_.clear();
  kids_.clear();
  if (tree == nullptr) return;
  if (!walk_) walk_ = std::make_unique<WalkBuffers>();
  WalkBuffers& w = *walk_;
  // Room for every subtree; the walk writes the visible ones, and their kid lists, in place.
  const std::size_t bound = planlint_ts_node_bound(tree);
  nodes_.resize(bound);
  kids_.resize(2 * bound);
  w.pending.resize(bound);
  w.walk.nodes = nodes_.data();
  w.walk.kids = kids_.data();
  w.walk.pending = w.pending.data();
  std::size_t kid_count = 0;
  const std::size_t n = planlint_ts_walk(tree, &w.walk, &kid_count);
  if (n == static_cast<std::size_t>(-1)) throw std::bad_alloc();
  nodes_.resize(n);  // smaller: nothing moves
  kids_.resize(kid_count);
}
#else
struct SyntaxTree::WalkBuffers {};
bool SyntaxTree::reads_subtrees() { return false; }
void SyntaxTree::build(const TSTree* tree) { build_with_cursor(tree); }
void SyntaxTree::build_from_walk(const TSTree* tree) { build_with_cursor(tree); }
#endif

SyntaxTree::SyntaxTree() = default;
SyntaxTree::~SyntaxTree() = default;

void SyntaxTree::build_with_cursor(const TSTree* tree) {
  nodes_.clear();
  kids_.clear();
  kid_index_.clear();
  pending_.clear();
  first_kid_.clear();
  frames_.clear();
  if (tree == nullptr) return;
  const TSNode root = ts_tree_root_node(tree);
  nodes_.push_back(make_node(root, 0));
  first_kid_.assign(1, 0);

  // A node's children are known when the walk leaves it: they wait in pending_ (from its frame's
  // pending_begin on) and then go to the child table, all of them and then the named ones.
  auto close = [&](const Frame& f) {
    SyntaxNode& parent = nodes_[f.node];
    first_kid_[f.node] = static_cast<std::uint32_t>(kid_index_.size());
    parent.child_count = static_cast<std::uint32_t>(pending_.size() - f.pending_begin);
    for (std::size_t i = f.pending_begin; i < pending_.size(); ++i) kid_index_.push_back(pending_[i]);
    std::uint32_t named = 0;
    for (std::size_t i = f.pending_begin; i < pending_.size(); ++i) {
      if (!nodes_[pending_[i]].named) continue;
      kid_index_.push_back(pending_[i]);
      ++named;
    }
    parent.named_count = named;
    pending_.resize(f.pending_begin);
  };

  TSTreeCursor cursor = ts_tree_cursor_new(root);
  frames_.push_back({0, 0});
  // Iterative, so a deeply nested expression (100,000 parentheses) needs no stack.
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    for (;;) {
      const auto index = static_cast<std::uint32_t>(nodes_.size());
      const TSNode node = ts_tree_cursor_current_node(&cursor);
      nodes_.push_back(make_node(node, ts_tree_cursor_current_field_id(&cursor)));
      first_kid_.push_back(0);
      pending_.push_back(index);
      // Most nodes are leaves: asking the cursor to descend into one costs more than asking the node.
      if (ts_node_child_count(node) > 0 && ts_tree_cursor_goto_first_child(&cursor)) {
        frames_.push_back({index, static_cast<std::uint32_t>(pending_.size())});
        continue;
      }
      bool moved = false;
      while (!(moved = ts_tree_cursor_goto_next_sibling(&cursor))) {
        close(frames_.back());
        frames_.pop_back();
        if (frames_.empty()) break;
        ts_tree_cursor_goto_parent(&cursor);
      }
      if (!moved) break;
    }
  } else {
    close(frames_.back());
    frames_.pop_back();
  }
  ts_tree_cursor_delete(&cursor);

  kids_.reserve(kid_index_.size());
  for (std::uint32_t i : kid_index_) kids_.push_back(&nodes_[i]);
  for (std::size_t i = 0; i < nodes_.size(); ++i) nodes_[i].kids = kids_.data() + first_kid_[i];
}

}  // namespace planlint::pyspark
