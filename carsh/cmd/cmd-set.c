/* set: list variables, or set them. Variables are also parameters of every `run`. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "runner/devplace.h"
#include "util/alloc.h"

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct param *)a)->name, ((const struct param *)b)->name);
}

static void list_vars(const struct params *vars, FILE *out)
{
	struct param *sorted = xmalloc((vars->n + 1) * sizeof(*sorted));

	memcpy(sorted, vars->v, vars->n * sizeof(*sorted));
	qsort(sorted, vars->n, sizeof(*sorted), by_name);
	for (size_t i = 0; i < vars->n; i++)
		fprintf(out, "%s=%s\n", sorted[i].name, sorted[i].value);
	free(sorted);
}

/* set device=SEL: as --device (an empty value: back to none). */
static int set_device(struct session *s, const char *value, struct cs_err *e)
{
	enum place_crit crit;

	if (place_mode(value, &crit) < 0)
		return err_set(e, "set: device '%s': expected auto, auto:time or auto:energy",
		               value);
	free(s->device_cli);
	s->device_cli = *value ? xstrdup(value) : NULL;
	return 0;
}

/* set timeout=SECONDS: a whole number of seconds a job may run (0: no limit). A job's
 * worker past it is killed; the thread executor runs kernels in the shell, where nothing
 * can stop one, so there it is refused rather than ignored. */
static int check_timeout(const struct session *s, const char *value, struct cs_err *e)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(value, &end, 10);
	if (!*value || *end || value[0] == '-' || errno || v > 86400UL * 365)
		return err_set(e,
		               "set: timeout must be a whole number of seconds (0: no limit), "
		               "not '%s'",
		               value);
	if (s->thread_mode && strcmp(value, "0") != 0)
		return err_set(e, "set: timeout: the thread executor (-T, exec=thread) cannot stop "
		                  "a running kernel; run without -T for a time limit");
	return 0;
}

/* Settings with a fixed set of values are checked when set, not when used. */
static int check_setting(struct session *s, const char *name, const char *value, struct cs_err *e)
{
	if (strcmp(name, "stats") == 0 && strcmp(value, "on") != 0 && strcmp(value, "off") != 0)
		return err_set(e, "set: stats must be 'on' or 'off', not '%s'", value);
	if (strcmp(name, "device") == 0)
		return set_device(s, value, e);
	if (strcmp(name, "timeout") == 0)
		return check_timeout(s, value, e);
	if (strcmp(name, "exec") != 0)
		return 0;
	if (strcmp(value, "thread") == 0) {
		s->thread_mode = true;
		return 0;
	}
	if (strcmp(value, "process") != 0)
		return err_set(e, "set: exec must be 'process' or 'thread', not '%s'", value);
	/* Forking a process whose OpenCL runtime has started its threads is not safe. */
	if (s->texec)
		return err_set(e, "set: exec=process: the thread executor has started OpenCL in "
		                  "this shell, which makes forking jobs unsafe; start a new carsh");
	s->thread_mode = false;
	return 0;
}

static int set_run(struct run_ctx *c, void *args, int n, char **words, struct cs_err *e)
{
	(void)args;
	if (n == 0) {
		list_vars(c->vars, c->out);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		char *eq = strchr(words[i], '=');
		char *name;

		if (!eq)
			return cmd_error(e, 2, "set: '%s': expected NAME=VALUE", words[i]);
		name = xstrndup(words[i], (size_t)(eq - words[i]));
		if (!param_name_valid(name) || check_setting(c->s, name, eq + 1, e)) {
			if (!param_name_valid(name))
				err_set(e, "set: '%s' is not a valid variable name", name);
			free(name);
			return 1;
		}
		params_set(c->vars, name, eq + 1, "set");
		free(name);
	}
	return 0;
}

const struct carsh_cmd cmd_set = {
        .name = "set",
        .summary = "list or set variables (also parameters of every run); stats=on, "
                   "exec=thread|process, device=SEL (as --device; auto, auto:energy), "
                   "timeout=SECONDS (a job's time limit, process executor)",
        .args = {.usage = "set [NAME=VALUE]...", .min = 0, .max = OPT_ANY},
        .run = set_run,
};
