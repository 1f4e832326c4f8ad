/*
 * Shared by the libFuzzer targets (tests/fuzz/fuzz_*.c). Each target feeds one reader from
 * memory, then runs what the shell runs next on what the reader accepted (the planner, the
 * expression evaluator, the graph analyses), so that a value a reader lets through but a later
 * stage mishandles is found too.
 *
 * Files named relatively by an input (kernel sources, flow-models of executables) are looked
 * up in $FUZZ_DIR, so that seeds taken from the shipped files still find what they name.
 */
#ifndef CARSH_FUZZ_H
#define CARSH_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/xml.h"
#include "util/alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The input as a NUL-terminated string (free() it). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);

	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Exactly BYTES bytes, so that ASan sees a write one byte past them; malloc(0) under ASan
 * gives a pointer with no usable byte, where xmalloc would give one. */
static inline void *fuzz_exact(size_t bytes)
{
	void *p = malloc(bytes);

	if (!p && bytes)
		abort();
	return p;
}

/* "$FUZZ_DIR/fuzz.xml": the name under which every input is parsed. */
static inline const char *fuzz_name(void)
{
	static char *name;

	if (!name) {
		const char *dir = getenv("FUZZ_DIR");

		name = xasprintf("%s/fuzz.xml", dir && *dir ? dir : ".");
	}
	return name;
}

/* Parse the input; NULL when the XML layer refused it. */
static inline xmlNodePtr fuzz_xml(const uint8_t *data, size_t size, struct xml_doc *d,
                                  struct xml_ctx *x, struct cs_err *e)
{
	if (xml_load_memory((const char *)data, size, fuzz_name(), d, e))
		return NULL;
	*x = (struct xml_ctx){d->file, d->dir, e};
	return xmlDocGetRootElement(d->doc);
}

#endif
