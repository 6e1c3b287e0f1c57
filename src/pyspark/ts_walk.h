/* A walk over a tree-sitter 0.20.7 tree's own subtrees that yields the nodes a TSTreeCursor walk
 * would (visible ones, in document order) with what planlint reads of each, without the cursor's
 * per-step work: tree-sitter's node API recomputes aliases, positions and fields on every call.
 * Only built against the internal headers of the runtime version it links (ts_walk.c); the cursor
 * walk in syntax_tree.cpp is the fallback and the reference the tests compare it with. */
#ifndef PLANLINT_PYSPARK_TS_WALK_H
#define PLANLINT_PYSPARK_TS_WALK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct TSTree;

typedef struct {
  uint32_t start_byte, end_byte;
  uint32_t parent;      /* index of the node's parent in the walk's output; the root's is UINT32_MAX */
  uint32_t child_count; /* its children (what ts_node_child_count answers) */
  uint32_t named_count; /* ... the named ones among them */
  uint16_t symbol;      /* ts_node_symbol */
  uint16_t field;       /* what ts_tree_cursor_current_field_id answers on it, 0 for none */
  uint8_t named;        /* ts_node_is_named */
} PlanlintTsNode;

/* The frames of a walk, kept between walks so that a walk allocates nothing once they have grown. */
typedef struct {
  void *frames;
  size_t capacity;
} PlanlintTsWalkStack;

/* An upper bound of the number of nodes planlint_ts_walk writes for `tree` (every subtree counts). */
size_t planlint_ts_node_bound(const struct TSTree *tree);

/* Writes the tree's visible nodes in preorder into `out` (room for planlint_ts_node_bound nodes) and
 * returns how many; (size_t)-1 if the frame stack could not grow (out of memory). */
size_t planlint_ts_walk(const struct TSTree *tree, PlanlintTsNode *out, PlanlintTsWalkStack *stack);

void planlint_ts_walk_stack_free(PlanlintTsWalkStack *stack);

#ifdef __cplusplus
}
#endif

#endif
