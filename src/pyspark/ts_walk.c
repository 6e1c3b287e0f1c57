/* The tree walk of ts_walk.h, on tree-sitter 0.20.7's internal representation (lib/src of Debian's
 * source of that version, which scripts/setup.sh fetches; CMake builds this file only against the
 * same version of the runtime). Each rule below is the one the cursor applies, in tree_cursor.c and
 * node.c: a child is visible when its subtree is or when its parent's production aliases it; an
 * invisible child with visible descendants is entered and its children count as its parent's; a
 * node's field is its parent's field-map entry for its structural index, or, through invisible
 * parents that have none, the entry of the nearest one that does. */
#include "pyspark/ts_walk.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "language.h"
#include "subtree.h"
#include "tree.h"

typedef struct {
  const Subtree *children;
  const TSSymbol *alias_sequence;
  const uint16_t *field_row; /* the field table's row of the production (FieldTable) */
  uint32_t count, index;
  uint32_t structural_index; /* of the next non-extra child, as the cursor's iterator counts it */
  uint32_t position;         /* the start byte of the next child */
  uint32_t parent;           /* the output index of the visible node these children belong to */
  uint32_t pending_begin;    /* where the parent's children start in the pending list */
  uint16_t inherited_field;  /* the field a child without its own entry gets (through this node) */
  bool closes_parent;        /* the parent's own children: when they end, its kid lists are written */
} Frame;

/* The field of each structural child of each production (0: none), as the first non-inherited
 * field-map entry for that index gives it: one load per child, where a scan of the production's
 * entries cost a loop (and a mispredicted exit) per child. Built once per language; planlint has one. */
typedef struct {
  const TSLanguage *language;
  uint32_t width; /* one more than the largest child index of an entry */
  uint16_t fields[];
} FieldTable;

static _Atomic(FieldTable *) shared_field_table;

static FieldTable *build_field_table(const TSLanguage *language) {
  uint32_t width = 0;
  if (language->field_count > 0)
    for (uint32_t p = 0; p < language->production_id_count; ++p) {
      const TSFieldMapEntry *entry, *end;
      ts_language_field_map(language, p, &entry, &end);
      for (; entry < end; ++entry)
        if (!entry->inherited && (uint32_t)entry->child_index + 1 > width) width = (uint32_t)entry->child_index + 1;
    }
  FieldTable *t = calloc(1, sizeof(FieldTable) + (size_t)language->production_id_count * width * sizeof(uint16_t));
  if (t == NULL) return NULL;
  t->language = language;
  t->width = width;
  for (uint32_t p = 0; width > 0 && p < language->production_id_count; ++p) {
    const TSFieldMapEntry *entry, *end;
    ts_language_field_map(language, p, &entry, &end);
    for (; entry < end; ++entry) {
      uint16_t *slot = &t->fields[(size_t)p * width + entry->child_index];
      if (!entry->inherited && *slot == 0) *slot = entry->field_id;
    }
  }
  return t;
}

/* The table for `language`: the shared one, or *own (built for this walk, freed by the caller) when
 * another language has it. NULL when there is no memory. */
static const FieldTable *field_table_for(const TSLanguage *language, FieldTable **own) {
  FieldTable *t = atomic_load_explicit(&shared_field_table, memory_order_acquire);
  if (t != NULL && t->language == language) return t;
  FieldTable *built = build_field_table(language);
  if (built == NULL) return NULL;
  FieldTable *expected = NULL;
  if (atomic_compare_exchange_strong_explicit(&shared_field_table, &expected, built, memory_order_acq_rel,
                                              memory_order_acquire))
    return built;
  if (expected->language == language) { /* another thread built it first */
    free(built);
    return expected;
  }
  *own = built;
  return built;
}

static TSSymbol public_symbol(const TSLanguage *language, TSSymbol symbol) {
  return symbol == ts_builtin_sym_error ? symbol : language->public_symbol_map[symbol];
}

/* Room for one more frame; 0 if the stack could not grow. */
static int grow(PlanlintTsWalk *walk) {
  size_t capacity = walk->frame_capacity == 0 ? 64 : walk->frame_capacity * 2;
  void *grown = realloc(walk->frames, capacity * sizeof(Frame));
  if (grown == NULL) return 0;
  walk->frames = grown;
  walk->frame_capacity = capacity;
  return 1;
}

/* What the walk reads of a subtree, read once: an inline subtree (a leaf token) keeps it in the
 * handle, any other in the heap record (tree-sitter's accessors test which on every call). */
typedef struct {
  uint32_t size;
  TSSymbol symbol;
  bool visible, named, extra, has_visible_children;
} Facts;

static inline Facts facts_of(Subtree s) {
  Facts f;
  if (s.data.is_inline) {
    f.size = s.data.size_bytes;
    f.symbol = s.data.symbol;
    f.visible = s.data.visible;
    f.named = s.data.named;
    f.extra = s.data.extra;
    f.has_visible_children = false;
  } else {
    f.size = s.ptr->size.bytes;
    f.symbol = s.ptr->symbol;
    f.visible = s.ptr->visible;
    f.named = s.ptr->named;
    f.extra = s.ptr->extra;
    f.has_visible_children = s.ptr->child_count > 0 && s.ptr->visible_child_count > 0;
  }
  return f;
}

static inline uint32_t padding_of(Subtree s) { return s.data.is_inline ? s.data.padding_bytes : s.ptr->padding.bytes; }

typedef struct {
  PlanlintSyntaxNode *nodes;
  const PlanlintSyntaxNode **kids;
  const PlanlintSyntaxNode **pending;
  size_t kid_count, pending_count;
} Output;

/* The children of nodes[node] are pending[begin..]: its kid lists are all of them, then the named. */
static void close_node(Output *o, uint32_t node, uint32_t begin) {
  PlanlintSyntaxNode *n = &o->nodes[node];
  const PlanlintSyntaxNode **kids = o->kids + o->kid_count;
  uint32_t count = (uint32_t)(o->pending_count - begin), named = 0;
  memcpy((void *)kids, (const void *)(o->pending + begin), count * sizeof *kids);
  for (uint32_t i = 0; i < count; ++i)
    if (kids[i]->named) kids[count + named++] = kids[i];
  n->kids = kids;
  n->child_count = count;
  n->named_count = named;
  o->kid_count += count + named;
  o->pending_count = begin;
}

/* The frame stack: `top` is the current frame, below `base` when the stack is empty. */
typedef struct {
  Frame *base, *top, *limit;
} Stack;

/* Room for one more frame above `top`; 0 if the stack could not grow. */
static int grow_stack(PlanlintTsWalk *walk, Stack *st) {
  const size_t depth = (size_t)(st->top - st->base) + 1;
  if (!grow(walk)) return 0;
  st->base = (Frame *)walk->frames;
  st->top = st->base + depth - 1;
  st->limit = st->base + walk->frame_capacity;
  return 1;
}

/* Pushes the frame of `node`'s children (a heap subtree with children); 0 if the stack could not grow. */
static inline int push_children(const TSLanguage *language, const FieldTable *fields, PlanlintTsWalk *walk, Stack *st,
                                Subtree node, uint32_t start, uint32_t parent, uint16_t inherited_field,
                                bool closes_parent, size_t pending_begin) {
  if (st->top + 1 == st->limit && !grow_stack(walk, st)) return 0;
  Frame *f = ++st->top;
  f->children = ts_subtree_children(node);
  f->count = node.ptr->child_count;
  const uint16_t production_id = node.ptr->production_id;
  f->alias_sequence = ts_language_alias_sequence(language, production_id);
  f->field_row = fields->fields + (size_t)production_id * fields->width;
  f->index = 0;
  f->structural_index = 0;
  f->position = start;
  f->parent = parent;
  f->inherited_field = inherited_field;
  f->closes_parent = closes_parent;
  f->pending_begin = (uint32_t)pending_begin;
  return 1;
}

size_t planlint_ts_node_bound(const TSTree *tree) { return tree == NULL ? 0 : ts_subtree_node_count(tree->root); }

static size_t walk_tree(const TSTree *tree, const FieldTable *fields, PlanlintTsWalk *walk, size_t *kid_count) {
  const TSLanguage *language = tree->language;
  const uint32_t field_width = fields->width;
  const Subtree root = tree->root;
  Output o = {walk->nodes, walk->kids, walk->pending, 0, 0};
  size_t n = 0;
  if (walk->frame_capacity == 0 && !grow(walk)) return (size_t)-1;
  Stack st = {(Frame *)walk->frames, (Frame *)walk->frames - 1, (Frame *)walk->frames + walk->frame_capacity};
  PlanlintSyntaxNode *r = &o.nodes[n++];
  r->start_byte = ts_subtree_padding(root).bytes;
  r->end_byte = r->start_byte + ts_subtree_size(root).bytes;
  r->kids = o.kids;
  r->child_count = r->named_count = 0;
  r->symbol = public_symbol(language, ts_subtree_symbol(root));
  r->field = 0;
  r->named = ts_subtree_named(root);
  if (ts_subtree_visible_child_count(root) > 0 &&
      !push_children(language, fields, walk, &st, root, r->start_byte, 0, 0, true, 0))
    return (size_t)-1;

  while (st.top >= st.base) {
    Frame *f = st.top;
    if (f->index == f->count) {
      if (f->closes_parent) close_node(&o, f->parent, f->pending_begin);
      --st.top;
      continue;
    }
    const Subtree child = f->children[f->index];
    const Facts c = facts_of(child);
    const uint32_t start = f->position;
    TSSymbol alias = 0;
    uint16_t field = 0;
    if (!c.extra) {
      const uint32_t structural_index = f->structural_index;
      if (f->alias_sequence != NULL) { /* as the cursor counts: only with an alias sequence */
        alias = f->alias_sequence[structural_index];
        ++f->structural_index;
      }
      if (structural_index < field_width) field = f->field_row[structural_index];
      if (field == 0) field = f->inherited_field;
    }
    f->position = start + c.size;
    if (++f->index < f->count) f->position += padding_of(f->children[f->index]);

    if (!c.visible && alias == 0) {
      /* Hidden: its children are its parent's; a field it has passes to them. */
      if (c.has_visible_children &&
          !push_children(language, fields, walk, &st, child, start, f->parent, field, false, o.pending_count))
        return (size_t)-1;
      continue;
    }
    const uint32_t index = (uint32_t)n++;
    PlanlintSyntaxNode *node = &o.nodes[index];
    node->start_byte = start;
    node->end_byte = start + c.size;
    node->kids = o.kids;
    node->child_count = node->named_count = 0;
    node->symbol = public_symbol(language, alias != 0 ? alias : c.symbol);
    node->field = field;
    node->named = alias != 0 ? language->symbol_metadata[alias].named : c.named;
    o.pending[o.pending_count++] = node;
    if (c.has_visible_children &&
        !push_children(language, fields, walk, &st, child, start, index, 0, true, o.pending_count))
      return (size_t)-1;
  }
  *kid_count = o.kid_count;
  return n;
}

size_t planlint_ts_walk(const TSTree *tree, PlanlintTsWalk *walk, size_t *kid_count) {
  *kid_count = 0;
  if (tree == NULL) return 0;
  FieldTable *own_table = NULL;
  const FieldTable *fields = field_table_for(tree->language, &own_table);
  if (fields == NULL) return (size_t)-1;
  const size_t n = walk_tree(tree, fields, walk, kid_count);
  free(own_table);
  return n;
}

void planlint_ts_walk_free(PlanlintTsWalk *walk) {
  free(walk->frames);
  walk->frames = NULL;
  walk->frame_capacity = 0;
}
