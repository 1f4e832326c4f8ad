/*
 * The files a kernel's source includes, found where the OpenCL compiler may look for them,
 * so that neither the binary cache (runtime/cache.h) nor a session's built programs nor the
 * parsed-file cache (model/filecache.h) ever serve a program built from an older header.
 *
 * Every `#include "NAME"` and `#include <NAME>` line is followed, also inside comments and
 * `#if 0` (a name more than the compiler reads costs nothing but a look). NAME is looked
 * for, in this order, in the including file's folder (the working directory for the main
 * source: PoCL resolves there), the working directory and each -I folder of the build
 * options; every place that holds a file is taken, not only the first, since drivers
 * differ in their order. An `#include MACRO` cannot be followed (the digest says "unknown"):
 * such a program is never stored in the binary cache.
 */
#ifndef CARSH_RUNTIME_INCLUDES_H
#define CARSH_RUNTIME_INCLUDES_H

#include <stdbool.h>
#include <stddef.h>

struct rt_includes {
	/* Every path looked at, present or not: a header appearing in a folder searched
	 * before the one that served it changes what compiles, so watchers watch them all. */
	char **paths;
	size_t npaths;
	/* One line per file found, "SIZE FNV64 PATH\n", in the order met; "" when the source
	 * includes nothing; "unknown ..." when an include could not be followed. */
	char *digest;
};

/* Follow source's includes (options: the build options with their -I folders). */
void rt_includes_scan(const char *source, const char *options, struct rt_includes *inc);
void rt_includes_free(struct rt_includes *inc);

/* Whether a program with this digest may be kept and reused (NULL: nothing included). */
bool rt_includes_known(const char *digest);

/* Whether every file of the digest still has the size and contents it names: checked
 * after a build, so that a header edited while the program compiled does not leave a binary
 * stored under the older contents' key. */
bool rt_includes_unchanged(const char *digest);

#endif
