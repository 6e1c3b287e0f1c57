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
  uint16_t production_id;
  uint16_t inherited_field; /* the field a child without its own entry gets (through this node) */
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

static int push(PlanlintTsWalkStack *stack, size_t *depth, Frame frame) {
  if (*depth == stack->capacity) {
    size_t capacity = stack->capacity == 0 ? 64 : stack->capacity * 2;
    void *grown = realloc(stack->frames, capacity * sizeof(Frame));
    if (grown == NULL) return 0;
    stack->frames = grown;
    stack->capacity = capacity;
  }
  ((Frame *)stack->frames)[(*depth)++] = frame;
  return 1;
}

static Frame children_of(const TSLanguage *language, Subtree node, uint32_t start, uint32_t parent,
                         uint16_t inherited_field) {
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
  return f;
}

size_t planlint_ts_node_bound(const TSTree *tree) { return tree == NULL ? 0 : ts_subtree_node_count(tree->root); }

size_t planlint_ts_walk(const TSTree *tree, PlanlintTsNode *out, PlanlintTsWalkStack *stack) {
  if (tree == NULL) return 0;
  const TSLanguage *language = tree->language;
  const Subtree root = tree->root;
  size_t n = 0, depth = 0;
  PlanlintTsNode *r = &out[n++];
  r->start_byte = ts_subtree_padding(root).bytes;
  r->end_byte = r->start_byte + ts_subtree_size(root).bytes;
  r->parent = UINT32_MAX;
  r->child_count = r->named_count = 0;
  r->symbol = public_symbol(language, ts_subtree_symbol(root));
  r->field = 0;
  r->named = ts_subtree_named(root);
  if (ts_subtree_visible_child_count(root) > 0 &&
      !push(stack, &depth, children_of(language, root, r->start_byte, 0, 0)))
    return (size_t)-1;

  while (depth > 0) {
    Frame *f = &((Frame *)stack->frames)[depth - 1];
    if (f->index == f->count) {
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
      if (has_visible_children && !push(stack, &depth, children_of(language, child, start, parent, field)))
        return (size_t)-1;
      continue;
    }
    PlanlintTsNode *node = &out[n];
    node->start_byte = start;
    node->end_byte = start + ts_subtree_size(child).bytes;
    node->parent = parent;
    node->child_count = node->named_count = 0;
    node->symbol = public_symbol(language, alias != 0 ? alias : ts_subtree_symbol(child));
    node->field = field;
    node->named = alias != 0 ? language->symbol_metadata[alias].named : ts_subtree_named(child);
    ++out[parent].child_count;
    if (node->named) ++out[parent].named_count;
    const uint32_t index = (uint32_t)n++;
    if (has_visible_children && !push(stack, &depth, children_of(language, child, start, index, 0))) return (size_t)-1;
  }
  return n;
}

void planlint_ts_walk_stack_free(PlanlintTsWalkStack *stack) {
  free(stack->frames);
  stack->frames = NULL;
  stack->capacity = 0;
}
