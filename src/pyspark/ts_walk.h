/* planlint's node of a syntax tree (SyntaxNode in syntax_tree.hpp), and a walk over a tree-sitter
 * 0.20.7 tree's own subtrees that writes them: the nodes a TSTreeCursor walk would visit (visible
 * ones, in document order), each with its children, without the cursor's per-step work (tree-sitter's
 * node API recomputes aliases, positions and fields on every call). The walk is only built against
 * the internal headers of the runtime version it links (ts_walk.c); the cursor walk in
 * syntax_tree.cpp is the fallback and the reference the tests compare it with. */
#ifndef PLANLINT_PYSPARK_TS_WALK_H
#define PLANLINT_PYSPARK_TS_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct TSTree;

/* Trivial (no initialisers in C++ either): a tree's nodes are written whole, never zeroed first. */
typedef struct PlanlintSyntaxNode {
  uint32_t start_byte, end_byte;
  const struct PlanlintSyntaxNode *const *kids; /* child_count nodes, then the named_count named ones */
  uint32_t child_count;
  uint32_t named_count;
  uint16_t symbol; /* tree-sitter's public symbol (its type), as ts_node_symbol gives it */
  uint16_t field;  /* the field its parent gives it (ts_tree_cursor_current_field_id), 0 for none */
  bool named;      /* ts_node_is_named */
} PlanlintSyntaxNode;

/* What a walk writes into, all owned by the caller: `nodes` and `pending` with room for
 * planlint_ts_node_bound(tree) entries, `kids` for twice that. The frame stack is kept between walks
 * (allocated by the walk, freed by planlint_ts_walk_free), so that a walk allocates nothing once it
 * has grown. */
typedef struct {
  PlanlintSyntaxNode *nodes;
  const PlanlintSyntaxNode **kids;
  const PlanlintSyntaxNode **pending; /* the children found of the nodes being walked */
  void *frames;
  size_t frame_capacity;
} PlanlintTsWalk;

/* An upper bound of the number of nodes planlint_ts_walk writes for `tree` (every subtree counts). */
size_t planlint_ts_node_bound(const struct TSTree *tree);

/* Writes the tree's nodes in preorder (the root first) and their kid lists; returns the number of
 * nodes and sets *kid_count to the kid entries used. (size_t)-1 if the frame stack could not grow. */
size_t planlint_ts_walk(const struct TSTree *tree, PlanlintTsWalk *walk, size_t *kid_count);

void planlint_ts_walk_free(PlanlintTsWalk *walk);

#ifdef __cplusplus
}
#endif

#endif
