/*
 * The depth-first spanning tree of 004 §4.3.2 (Algorithm 2, and DFST_Modified of Algorithm 3):
 * preorder and reverse-postorder numbers, tree depths, and the class of every connection.
 */
#ifndef CARSH_GRAPH_SPANTREE_H
#define CARSH_GRAPH_SPANTREE_H

#include <stdbool.h>
#include <stddef.h>

#include "graph/adj.h"

enum edge_class {
	EC_UNREACHED, /* its source is not reached from the root */
	EC_TREE,
	EC_ADVANCING,  /* to a descendant, not a tree edge */
	EC_RETREATING, /* to an ancestor (or to itself) */
	EC_CROSS,      /* to a node neither ancestor nor descendant */
};

struct spantree {
	size_t root;
	size_t n;
	size_t *npre;       /* NPre: preorder number from 1; 0 when not reached */
	size_t *nrpost;     /* NRPost: reverse postorder number */
	size_t *depth;      /* tree edges from the root (nodes[x].depth of Algorithm 3) */
	unsigned char *cls; /* enum edge_class, one per slot of adj.succ */
	size_t reached;
};

/* Algorithm 2 from root: adjacency visited in node order. */
void spantree_build(const struct adj *a, size_t root, struct spantree *t);
void spantree_free(struct spantree *t);
/* The root reaches every node (004 §4.3.2: only then is there a spanning tree). */
bool spantree_spans(const struct spantree *t);
enum edge_class spantree_class(const struct spantree *t, const struct adj *a, size_t x, size_t y);
const char *edge_class_name(enum edge_class c);

#endif
