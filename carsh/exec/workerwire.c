/* The messages between the shell and a warm worker (exec/workerwire.h). */
#include "exec/workerwire.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "exec/planwire.h"
#include "runtime/icdtypes.h"
#include "util/alloc.h"

extern char **environ;

/* CARSH_SERVER* and CARSH_EXE (the carsh whose server a program uses) choose the server, not
 * a job's device: left out, so that they do not keep clients that differ in them from
 * sharing workers. */
bool workerwire_is_job_env(const char *entry)
{
	static const char *const prefixes[] = {
	        "OCL_", "POCL_", "CUDA_",  "NVIDIA_",         "GPU_",  "HSA_",    "ROCR_", "HIP_",
	        "AMD_", "ZE_",   "CARSH_", "XDG_CACHE_HOME=", "HOME=", "TMPDIR=", NULL};

	if (strncmp(entry, "CARSH_SERVER", 12) == 0 || strncmp(entry, "CARSH_EXE=", 10) == 0)
		return false;
	for (size_t i = 0; prefixes[i]; i++)
		if (strncmp(entry, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

void workerwire_job_env(struct strvec *env)
{
	for (char **e = environ; *e; e++)
		if (workerwire_is_job_env(*e) && strchr(*e, '='))
			sv_push(env, *e);
}

void workerwire_plan_env(const struct kernel_plan *kp, struct strvec *env)
{
	struct strvec loader = STRVEC_INIT;
	bool narrowed = rt_icd_env_for_plan(kp, &loader);

	for (char **e = environ; *e; e++)
		if (workerwire_is_job_env(*e) && strchr(*e, '=') &&
		    !(narrowed && rt_icd_loader_var(*e)))
			sv_push(env, *e);
	for (size_t i = 0; i < loader.n; i++)
		sv_push(env, loader.v[i]);
	sv_free(&loader);
}

void workerwire_apply_env(char *const *env, size_t n)
{
	struct strvec old = STRVEC_INIT;

	workerwire_job_env(&old);
	for (size_t i = 0; i < old.n; i++) {
		*strchr(old.v[i], '=') = '\0';
		unsetenv(old.v[i]);
	}
	sv_free(&old);
	for (size_t i = 0; i < n; i++) {
		char *name = xstrdup(env[i]), *eq = strchr(name, '=');

		if (eq && eq != name && workerwire_is_job_env(env[i])) {
			*eq = '\0';
			setenv(name, eq + 1, 1);
		}
		free(name);
	}
}

void workerwire_encode_job(const char *cwd, const struct strvec *env, const struct job_plan *jp,
                           struct wbuf *out)
{
	wb_str(out, cwd);
	workerwire_encode_env(env, out);
	planwire_encode(jp, out);
}

static int decode_env(struct rbuf *r, struct strvec *env)
{
	uint32_t n = rb_u32(r);

	for (uint32_t i = 0; i < n && !r->bad; i++) {
		char *s = rb_str(r);

		if (!s)
			return -1;
		sv_push_owned(env, s);
	}
	return r->bad ? -1 : 0;
}

int workerwire_decode_job(const void *buf, size_t len, char **cwd, struct strvec *env,
                          struct job_plan **jp, struct cs_err *e)
{
	struct rbuf r = rb_init(buf, len);

	*jp = NULL;
	*cwd = rb_str(&r);
	if (r.bad || !*cwd || decode_env(&r, env)) {
		free(*cwd);
		*cwd = NULL;
		sv_free(env);
		return err_set(e, "job message: no directory or environment");
	}
	if (planwire_decode(r.p, r.left, jp, e)) {
		free(*cwd);
		*cwd = NULL;
		sv_free(env);
		return -1;
	}
	return 0;
}

void workerwire_encode_env(const struct strvec *env, struct wbuf *out)
{
	wb_u32(out, (uint32_t)env->n);
	for (size_t i = 0; i < env->n; i++)
		wb_str(out, env->v[i]);
}

int workerwire_decode_env(const void *buf, size_t len, struct strvec *env, struct cs_err *e)
{
	struct rbuf r = rb_init(buf, len);

	if (decode_env(&r, env) || r.left) {
		sv_free(env);
		return err_set(e, "device list request: truncated or garbled");
	}
	return 0;
}

void workerwire_encode_devices(const struct rt_devinfo *devs, size_t n, struct wbuf *out)
{
	if (n > WORKERWIRE_MAX_DEVS)
		n = WORKERWIRE_MAX_DEVS;
	wb_u32(out, (uint32_t)n);
	wb_bytes(out, devs, n * sizeof(*devs));
}

int workerwire_decode_devices(const void *buf, size_t len, struct rt_devinfo **devs, size_t *n,
                              struct cs_err *e)
{
	struct rbuf r = rb_init(buf, len);
	uint32_t count = rb_u32(&r);

	*devs = NULL;
	*n = 0;
	if (r.bad || count > WORKERWIRE_MAX_DEVS || r.left != count * sizeof(**devs))
		return err_set(e, "device list: truncated or garbled");
	*devs = xcalloc(count ? count : 1, sizeof(**devs));
	rb_bytes(&r, *devs, count * sizeof(**devs));
	*n = count;
	return 0;
}
