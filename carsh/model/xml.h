/*
 * Reading CarSh's XML formats with libxml2, safely (DESIGN §3: no network, no entity
 * expansion, no DTD loading) and strictly: every element and attribute is checked against
 * what the format allows, and every error names the file, the line and the element.
 */
#ifndef CARSH_MODEL_XML_H
#define CARSH_MODEL_XML_H

#include <libxml/tree.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

/* Files larger than this are refused before parsing. */
#define XML_MAX_BYTES (16u << 20)
/* Limits on what a document may hold, far above what CarSh files need (docs/hardening.md). The
 * parser stops as soon as one is passed, so memory stays bounded by the file size:
 * - elements nested deeper than XML_MAX_DEPTH (libxml2's own limit is 256);
 * - more than XML_MAX_ELEMENTS elements: libxml2 needs about 100 bytes per node, so a 16 MiB
 *   file of "<a/>" would otherwise take 400 MB;
 * - an element with more than XML_MAX_ATTRS attributes: libxml2 2.9 looks for duplicate
 *   attributes in quadratic time (a 2 MB tag with 200000 attributes parses for minutes), so
 *   these are counted before libxml2 sees the text. */
#define XML_MAX_DEPTH    64
#define XML_MAX_ELEMENTS (1L << 18)
#define XML_MAX_ATTRS    256

struct xml_doc {
	xmlDocPtr doc;
	char *file; /* as given, for messages */
	char *dir;  /* its directory, for relative paths */
};

/* Load and parse a file. Errors: "x.xml: No such file or directory",
 * "x.xml:7: malformed XML: Opening and ending tag mismatch: ...". */
int xml_load(const char *path, struct xml_doc *out, struct cs_err *e);
/* Parse text already in memory; name is used in messages and dir for relative paths.
 * A <!DOCTYPE> stops the parser where it stands, before any declaration in it is read: no
 * entity is ever declared or expanded ("x.xml:2: document type declarations ..."). */
int xml_load_memory(const char *text, size_t len, const char *name, struct xml_doc *out,
                    struct cs_err *e);
void xml_free(struct xml_doc *d);

/* Name of the root element of a file ("FlowModel", "CarshExe", ...), or NULL with e set. */
char *xml_root_name(const char *path, struct cs_err *e);

/* What errors are reported against. */
struct xml_ctx {
	const char *file;
	const char *dir;
	struct cs_err *e;
};

/* Reads a file's root element into what out points to (a struct exe **, ...): 0, or -1 with
 * x->e set. */
typedef int (*xml_root_reader)(const struct xml_ctx *x, xmlNodePtr root, void *out);

/* Every reader of a CarSh file: load path, refuse a root other than <root_name>
 * ("x.xml:3: <FlowModel name="vadd">: expected a <CarshGraph> file") and hand the root to
 * read. The document is freed on return, so read copies what it keeps. */
int xml_read_file(const char *path, const char *root_name, xml_root_reader read, void *out,
                  struct cs_err *e);

/* Set "FILE:LINE: <Elem name="x">: <message>" in x->e. Returns -1. */
int xml_err(const struct xml_ctx *x, xmlNodePtr n, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* "<Input name="re">" (with the name attribute when there is one) into buf. */
const char *xml_label(xmlNodePtr n, char *buf, size_t len);

bool xml_is(xmlNodePtr n, const char *name);
int xml_line(xmlNodePtr n);
/* First / next element child, skipping text and comments. */
xmlNodePtr xml_child(xmlNodePtr parent);
xmlNodePtr xml_next(xmlNodePtr n);

/* An attribute's value (a new string), or NULL when absent. */
char *xml_attr(xmlNodePtr n, const char *name);
/* Same, but absent is an error: "missing attribute 'count'". */
int xml_attr_req(const struct xml_ctx *x, xmlNodePtr n, const char *name, char **out);
/* Refuse attributes not in the NULL-terminated list allowed:
 * "unknown attribute 'cout' (allowed: name type count partition unit)". */
int xml_check_attrs(const struct xml_ctx *x, xmlNodePtr n, const char *const *allowed);
/* Refuse text other than whitespace inside an element that holds only elements. */
int xml_check_no_text(const struct xml_ctx *x, xmlNodePtr n);
/* An element's text (CDATA included), trimmed of surrounding whitespace when trim. */
char *xml_text(xmlNodePtr n, bool trim);
/* "unknown element <Inptu> in <Arguments> (allowed: Input Output InOut Constant Local)". */
int xml_unknown_child(const struct xml_ctx *x, xmlNodePtr child, const char *const *allowed);

/* Read a whole text file (kernel sources, scripts), refusing files over XML_MAX_BYTES; the
 * text ends with a NUL, *len (when len is not NULL) excludes it. A stream (pipe, FIFO,
 * terminal, /dev/stdin) is read once per command: later reads of the same path in the same
 * command get the same text. */
char *file_read_text(const char *path, size_t *len, struct cs_err *e);
/* path exists and is neither a regular file nor a directory. */
bool file_is_stream(const char *path);
/* A new command starts: forget the streams' texts (filecache_new_generation calls it). */
void file_streams_forget(void);
/* The session ends: every stream's text goes, kept or not (a served session worker's next
 * session reads its own client's). */
void file_streams_clear(void);
/* The stream already read at path keeps its text through the next forget: a front-end read
 * it to decide how to run it, and the command it starts reads it again. */
void file_stream_keep(const char *path);

/* Helpers shared by the readers. */
#include "data/params.h"

/* <Param name="N" value="1024"/> into ps; origin "FILE:LINE". Duplicates are refused. */
int xml_read_param(const struct xml_ctx *x, xmlNodePtr n, struct params *ps);

/* Split "N, max(a,b), 4" at top-level commas into at most max trimmed parts (new strings).
 * Returns the number of parts, or -1 when there are more than max or one is empty. */
int split_top_level(const char *s, char **parts, int max);

#endif
