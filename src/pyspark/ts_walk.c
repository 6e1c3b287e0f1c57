/* The tree walk of ts_walk.h, on tree-sitter 0.20.7's internal representation (lib/src of Debian's
 * source of that version, which scripts/setup.sh fetches; CMake builds this file only against the
 * same version of the runtime). Each rule below is the one the cursor applies, in tree_cursor.c and
 * node.c: a child is visible when its subtree is or when its parent's production aliases it; an
 * invisible child with visible descendants is entered and its children count as its parent's; a
 * node's field is its parent's field-map entry for its structural index, or, through invisible
 * parents that have none, the entry of the nearest one that does. */
#include "pyspark/ts_walk.h"

#include <stdlib.h>

#include "language.h"
#include "subtree.h"
#include "tree.h"

typedef struct {
  const Subtree *children;
  const TSSymbol *alias_sequence;
  uint32_t count, index;
  uint32_t structural_index; /* of the next non-extra child, as the cursor's iterator counts it */
  uint32_t position;         /* the start byte of the next child */
  uint32_t parent;           /* the output index of the visible node these children belong to */
  uint32_t pending_begin;    /* where the parent's children start in the pending list */
  uint16_t production_id;
  uint16_t inherited_field; /* the field a child without its own entry gets (through this node) */
  bool closes_parent;       /* the parent's own children: when they end, its kid lists are written */
} Frame;

static uint16_t field_for(const TSLanguage *language, uint16_t production_id, uint32_t structural_index) {
  const TSFieldMapEntry *entry, *end;
  ts_language_field_map(language, production_id, &entry, &end);
  for (; entry < end; ++entry)
    if (!entry->inherited && entry->child_index == structural_index) return entry->field_id;
  return 0;
}

static TSSymbol public_symbol(const TSLanguage *language, TSSymbol symbol) {
  return symbol == ts_builtin_sym_error ? symbol : language->public_symbol_map[symbol];
}

static int push(PlanlintTsWalk *walk, size_t *depth, Frame frame) {
  if (*depth == walk->frame_capacity) {
    size_t capacity = walk->frame_capacity == 0 ? 64 : walk->frame_capacity * 2;
    void *grown = realloc(walk->frames, capacity * sizeof(Frame));
    if (grown == NULL) return 0;
    walk->frames = grown;
    walk->frame_capacity = capacity;
  }
  ((Frame *)walk->frames)[(*depth)++] = frame;
  return 1;
}

typedef struct {
  PlanlintSyntaxNode *nodes;
  const PlanlintSyntaxNode **kids;
  uint32_t *pending;
  size_t kid_count, pending_count;
} Output;

/* The children of nodes[node] are pending[begin..]: its kid lists are all of them, then the named. */
static void close_node(Output *o, uint32_t node, uint32_t begin) {
  PlanlintSyntaxNode *n = &o->nodes[node];
  const PlanlintSyntaxNode **kids = o->kids + o->kid_count;
  uint32_t count = (uint32_t)(o->pending_count - begin), named = 0;
  for (uint32_t i = 0; i < count; ++i) kids[i] = &o->nodes[o->pending[begin + i]];
  for (uint32_t i = 0; i < count; ++i)
    if (kids[i]->named) kids[count + named++] = kids[i];
  n->kids = kids;
  n->child_count = count;
  n->named_count = named;
  o->kid_count += count + named;
  o->pending_count = begin;
}

static Frame children_of(const TSLanguage *language, Subtree node, uint32_t start, uint32_t parent,
                         uint16_t inherited_field, bool closes_parent, size_t pending_begin) {
  Frame f;
  f.children = ts_subtree_children(node);
  f.count = node.ptr->child_count;
  f.production_id = node.ptr->production_id;
  f.alias_sequence = ts_language_alias_sequence(language, f.production_id);
  f.index = 0;
  f.structural_index = 0;
  f.position = start;
  f.parent = parent;
  f.inherited_field = inherited_field;
  f.closes_parent = closes_parent;
  f.pending_begin = (uint32_t)pending_begin;
  return f;
}

size_t planlint_ts_node_bound(const TSTree *tree) { return tree == NULL ? 0 : ts_subtree_node_count(tree->root); }

size_t planlint_ts_walk(const TSTree *tree, PlanlintTsWalk *walk, size_t *kid_count) {
  *kid_count = 0;
  if (tree == NULL) return 0;
  const TSLanguage *language = tree->language;
  const Subtree root = tree->root;
  Output o = {walk->nodes, walk->kids, walk->pending, 0, 0};
  size_t n = 0, depth = 0;
  PlanlintSyntaxNode *r = &o.nodes[n++];
  r->start_byte = ts_subtree_padding(root).bytes;
  r->end_byte = r->start_byte + ts_subtree_size(root).bytes;
  r->kids = o.kids;
  r->child_count = r->named_count = 0;
  r->symbol = public_symbol(language, ts_subtree_symbol(root));
  r->field = 0;
  r->named = ts_subtree_named(root);
  if (ts_subtree_visible_child_count(root) > 0 &&
      !push(walk, &depth, children_of(language, root, r->start_byte, 0, 0, true, 0)))
    return (size_t)-1;

  while (depth > 0) {
    Frame *f = &((Frame *)walk->frames)[depth - 1];
    if (f->index == f->count) {
      if (f->closes_parent) close_node(&o, f->parent, f->pending_begin);
      --depth;
      continue;
    }
    const Subtree child = f->children[f->index];
    const uint32_t start = f->position;
    const uint32_t structural_index = f->structural_index;
    const bool extra = ts_subtree_extra(child);
    TSSymbol alias = 0;
    if (!extra && f->alias_sequence != NULL) {
      alias = f->alias_sequence[f->structural_index];
      ++f->structural_index;
    }
    f->position += ts_subtree_size(child).bytes;
    if (++f->index < f->count) f->position += ts_subtree_padding(f->children[f->index]).bytes;

    uint16_t field = 0;
    if (!extra) {
      field = field_for(language, f->production_id, structural_index);
      if (field == 0) field = f->inherited_field;
    }
    const uint32_t parent = f->parent;
    const bool has_visible_children = ts_subtree_visible_child_count(child) > 0;
    if (!ts_subtree_visible(child) && alias == 0) {
      /* Hidden: its children are its parent's; a field it has passes to them. */
      if (has_visible_children &&
          !push(walk, &depth, children_of(language, child, start, parent, field, false, o.pending_count)))
        return (size_t)-1;
      continue;
    }
    const uint32_t index = (uint32_t)n++;
    PlanlintSyntaxNode *node = &o.nodes[index];
    node->start_byte = start;
    node->end_byte = start + ts_subtree_size(child).bytes;
    node->kids = o.kids;
    node->child_count = node->named_count = 0;
    node->symbol = public_symbol(language, alias != 0 ? alias : ts_subtree_symbol(child));
    node->field = field;
    node->named = alias != 0 ? language->symbol_metadata[alias].named : ts_subtree_named(child);
    o.pending[o.pending_count++] = index;
    if (has_visible_children &&
        !push(walk, &depth, children_of(language, child, start, index, 0, true, o.pending_count)))
      return (size_t)-1;
  }
  *kid_count = o.kid_count;
  return n;
}

void planlint_ts_walk_free(PlanlintTsWalk *walk) {
  free(walk->frames);
  walk->frames = NULL;
  walk->frame_capacity = 0;
}
