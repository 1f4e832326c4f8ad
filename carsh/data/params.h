/*
 * Parameters: NAME=VALUE pairs from <Param>, `run NAME=VALUE` and `set`. A scope is a lookup
 * order over several sets, strongest first (DESIGN §3.1: the executable's, then the caller's,
 * then the flow-model's defaults). A parameter's value may itself be an integer expression
 * over other parameters of the same scope.
 */
#ifndef CARSH_DATA_PARAMS_H
#define CARSH_DATA_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

struct param {
	char *name;
	char *value;
	char *origin; /* where it was set, for messages: "fft.exe.xml:4", "command line" */
};

struct params {
	struct param *v;
	size_t n;
	size_t cap;
};

#define PARAMS_INIT        \
	{                  \
		NULL, 0, 0 \
	}

/* Set or replace; origin may be NULL. */
void params_set(struct params *ps, const char *name, const char *value, const char *origin);
const struct param *params_get(const struct params *ps, const char *name);
bool params_unset(struct params *ps, const char *name);
void params_copy(struct params *dst, const struct params *src);
void params_free(struct params *ps);
/* A valid parameter name: a letter or '_' then letters, digits, '_'. */
bool param_name_valid(const char *name);

#define SCOPE_MAX 32

struct scope {
	const struct params *layer[SCOPE_MAX];
	size_t n;
};

void scope_init(struct scope *sc);
/* Add a weaker layer (ignored silently past SCOPE_MAX, which nesting limits prevent). */
void scope_push(struct scope *sc, const struct params *ps);
/* Add all layers of another scope, weaker than those already present. */
void scope_append(struct scope *sc, const struct scope *weaker);
const struct param *scope_get(const struct scope *sc, const char *name);
/* Every parameter the scope sees, each with the value of its strongest layer, into dst (which
 * must be initialised): a snapshot that no longer depends on the layers. */
void scope_flatten(const struct scope *sc, struct params *dst);
/* Evaluate an integer expression whose names are parameters of this scope. */
int scope_eval(const struct scope *sc, const char *text, long long *out, struct cs_err *e);
/* Like scope_eval, but the result must lie in [min, max]; what names the quantity in errors
 * ("count of 'x' is -3: it must be at least 1"). */
int scope_eval_range(const struct scope *sc, const char *text, const char *what, long long min,
                     long long max, long long *out, struct cs_err *e);
/* Evaluate a floating expression (data/fexpr.h) in double; a name is a parameter whose
 * value is a number, an integer expression or a floating expression itself. */
int scope_eval_float(const struct scope *sc, const char *text, double *out, struct cs_err *e);
/* text with every ${NAME} replaced by the parameter's value (as written, not evaluated);
 * a '$' not followed by "{...}" stays. *out is NULL on error: "${B}: no such parameter". */
int scope_expand(const struct scope *sc, const char *text, char **out, struct cs_err *e);
/* When text is exactly "${NAME}" with a valid name: NAME, copied to buf (len bytes); else
 * NULL. */
const char *param_reference(const char *text, char *buf, size_t len);

#endif
