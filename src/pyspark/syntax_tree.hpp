// A tree-sitter syntax tree copied, in one walk, into planlint's own nodes: each node's
// children (all of them, and the named ones) are a contiguous list, and each child carries the
// field its parent gives it. The analyzer asks for the same node's children and fields again and
// again; tree-sitter 0.20's node API answers each of those by walking siblings from the first
// (ts_node_child, ts_node_child_by_field_id), here they are an array read and a short scan.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "pyspark/ts_walk.h"

struct TSTree;

namespace planlint::pyspark {

// planlint's copy of a syntax node: a C struct (ts_walk.h), so that the direct walk writes the nodes
// the analyzer reads. Its children and fields are read from the node alone (no tree needed).
using SyntaxNode = PlanlintSyntaxNode;
// A node of a SyntaxTree, or nullptr where tree-sitter would give a null node (a missing field,
// a child past the last). Valid while its tree lives and is not rebuilt.
using Node = const SyntaxNode*;
using NodeSpan = std::span<const Node>;

// An allocator whose resize() leaves trivial elements uninitialised (std::vector's value-initialises
// them: a memset of every node before the walk writes it).
template <class T>
struct UninitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitAllocator<U>;
  };
  UninitAllocator() = default;
  template <class U>
  explicit UninitAllocator(const UninitAllocator<U>& /*other*/) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... A>
  void construct(U* p, A&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(args)...);
  }
};
template <class T>
using UninitVector = std::vector<T, UninitAllocator<T>>;

inline NodeSpan children(Node n) { return n == nullptr ? NodeSpan{} : NodeSpan(n->kids, n->child_count); }
inline NodeSpan named_children(Node n) {
  return n == nullptr ? NodeSpan{} : NodeSpan(n->kids + n->child_count, n->named_count);
}
// The first child with that field (what ts_node_child_by_field_id answers), or nullptr.
inline Node child_by_field(Node n, std::uint16_t field_id) {
  for (Node c : children(n))
    if (c->field == field_id) return c;
  return nullptr;
}

class SyntaxTree {
 public:
  SyntaxTree();
  SyntaxTree(const SyntaxTree&) = delete;
  SyntaxTree& operator=(const SyntaxTree&) = delete;
  ~SyntaxTree();
  // Replaces what the tree held by a copy of `tree`. Node handles of the previous copy are invalid.
  // Reads tree-sitter's subtrees directly where planlint was built against the runtime's own
  // headers (ts_walk.h), else walks a TSTreeCursor; the two give the same copy.
  void build(const TSTree* tree);
  // The copy by a TSTreeCursor walk, whichever way build() reads trees (the reference for tests).
  void build_with_cursor(const TSTree* tree);
  // Whether build() reads tree-sitter's subtrees directly.
  static bool reads_subtrees();
  [[nodiscard]] Node root() const { return nodes_.empty() ? nullptr : nodes_.data(); }
  [[nodiscard]] std::size_t size() const { return nodes_.size(); }
  // Every node in document order (preorder): the root first.
  [[nodiscard]] std::span<const SyntaxNode> nodes() const { return nodes_; }

 private:
  UninitVector<SyntaxNode> nodes_;
  UninitVector<Node> kids_;
  // Reused between builds: no allocation per tree once they have grown.
  std::vector<std::uint32_t> kid_index_, pending_, first_kid_;
  struct Frame {
    std::uint32_t node, pending_begin;
  };
  std::vector<Frame> frames_;
  // The direct walk's frame stack and pending list (ts_walk.h), reused between builds.
  struct WalkBuffers;
  std::unique_ptr<WalkBuffers> walk_;
  void build_from_walk(const TSTree* tree);
};

}  // namespace planlint::pyspark
