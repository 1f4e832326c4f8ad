/* The messages between the shell and a warm worker (exec/workerwire.h). */
#include "exec/workerwire.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "exec/planmemo.h"
#include "exec/planwire.h"
#include "runtime/icdtypes.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/envstamp.h"

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

/* The job's entries of environ (workerwire_job_env), kept while environ is unchanged. */
static struct env_stamp job_env_stamp = ENV_STAMP_INIT;
static struct strvec job_env_kept = STRVEC_INIT;
static pthread_mutex_t job_env_lock = PTHREAD_MUTEX_INITIALIZER;

void workerwire_plan_env(const struct kernel_plan *kp, struct strvec *env)
{
	struct strvec loader = STRVEC_INIT;
	bool narrowed = rt_icd_env_for_plan(kp, &loader);

	pthread_mutex_lock(&job_env_lock);
	if (!envstamp_same(&job_env_stamp)) {
		sv_free(&job_env_kept);
		workerwire_job_env(&job_env_kept);
		envstamp_take(&job_env_stamp);
	}
	for (size_t i = 0; i < job_env_kept.n; i++)
		if (!(narrowed && rt_icd_loader_var(job_env_kept.v[i])))
			sv_push(env, job_env_kept.v[i]);
	pthread_mutex_unlock(&job_env_lock);
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

/* How a job message carries its kernel's source: in the plan, by a token, or by a token with
 * the text (its first time to this worker). */
enum { SOURCE_INLINE, SOURCE_TOKEN, SOURCE_DEFINED };

static uint64_t nonce;

static void nonce_forget(void)
{
	nonce = 0;
}

static void nonce_watch_forks(void)
{
	(void)pthread_atfork(NULL, NULL, nonce_forget);
}

uint64_t workerwire_source_nonce(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, nonce_watch_forks);
	while (nonce == 0 && getrandom(&nonce, sizeof(nonce), 0) != (ssize_t)sizeof(nonce))
		nonce = ((uint64_t)getpid() << 32) ^ (uint64_t)clock_ms() ^ 1u;
	return nonce;
}

/* The plan, its source left out where src names it. */
static void encode_plan(const struct job_plan *jp, const struct wire_source *src, struct wbuf *out)
{
	struct job_plan bare;

	if (!src) {
		planwire_encode(jp, out);
		return;
	}
	wb_u64(out, src->nonce);
	wb_u64(out, src->addr);
	bare = *jp;
	bare.kp.source = "";
	planwire_encode(&bare, out);
}

/* What comes before the plan: nargs, the plan's arguments. */
static void encode_head(const char *cwd, const struct strvec *env, const struct job_home *homes,
                        size_t nargs, uint32_t flags, const struct wire_source *src,
                        struct wbuf *out)
{
	wb_u32(out, flags); /* first: workerwire_job_flags reads it from any message */
	wb_str(out, cwd);
	if (flags & WORKER_JOB_SAME_ENV)
		wb_u32(out, 0);
	else
		workerwire_encode_env(env, out);
	wb_u32(out, homes ? (uint32_t)nargs : 0);
	for (size_t i = 0; homes && i < nargs; i++) {
		size_t uniform = homes[i].here ? 0 : homes[i].uniform;

		wb_u64(out, homes[i].gen);
		bool pixels = !homes[i].here && homes[i].pixels;

		wb_u32(out, (homes[i].here ? 1u : 0u) | (uint32_t)uniform << 8 |
		                    (pixels ? (uint32_t)homes[i].scalar + 1 : 0u) << 16);
		wb_bytes(out, homes[i].value, uniform);
	}
	wb_u32(out, !src ? SOURCE_INLINE : src->text ? SOURCE_DEFINED : SOURCE_TOKEN);
	if (src && src->text)
		wb_str(out, src->text);
}

void workerwire_encode_job(const char *cwd, const struct strvec *env, const struct job_home *homes,
                           uint32_t flags, const struct job_plan *jp, const struct wire_source *src,
                           struct wbuf *out)
{
	encode_head(cwd, env, homes, jp->kp.nargs, flags, src, out);
	/* From here on the bytes the worker's memo keys its plans by: the token included. */
	encode_plan(jp, src, out);
}

void workerwire_encode_plan(const struct job_plan *jp, const struct wire_source *src,
                            struct wbuf *out)
{
	encode_plan(jp, src, out);
}

void workerwire_encode_job_kept(const char *cwd, const struct strvec *env,
                                const struct job_home *homes, uint32_t flags, size_t nargs,
                                const struct wire_source *src, const struct wbuf *plan,
                                struct wbuf *out)
{
	encode_head(cwd, env, homes, nargs, flags, src, out);
	wb_bytes(out, plan->p, plan->len);
}

/* n homes (0: none sent, all in shared memory) for nargs arguments. */
static int decode_homes(struct rbuf *r, size_t *n, struct job_home **homes)
{
	uint32_t count = rb_u32(r);

	*n = count;
	*homes = NULL;
	if (r->bad || count > r->left / 12)
		return -1;
	*homes = xcalloc(count ? count : 1, sizeof(**homes));
	for (uint32_t i = 0; i < count && !r->bad; i++) {
		uint32_t word;

		(*homes)[i].gen = rb_u64(r);
		word = rb_u32(r);
		(*homes)[i].here = (word & 1) != 0;
		(*homes)[i].uniform = word >> 8 & 0xffu;
		(*homes)[i].pixels = (word >> 16) != 0;
		if ((*homes)[i].pixels)
			(*homes)[i].scalar = (enum scalar)((word >> 16) - 1);
		if ((*homes)[i].uniform > sizeof((*homes)[i].value) || (word >> 16) > SC_COUNT ||
		    !rb_bytes(r, (*homes)[i].value, (*homes)[i].uniform))
			r->bad = true;
	}
	return r->bad ? -1 : 0;
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

uint32_t workerwire_job_flags(const void *buf, size_t len)
{
	struct rbuf r = rb_init(buf, len);
	uint32_t flags = rb_u32(&r);

	return r.bad ? 0 : flags;
}

static void job_parts_free(char **cwd, struct strvec *env, struct job_home **homes)
{
	free(*cwd);
	*cwd = NULL;
	sv_free(env);
	free(*homes);
	*homes = NULL;
}

/* The plan that ends a job message, its source by reference defined first where it came. */
static int decode_plan(struct rbuf *r, struct plan_memo *memo, struct job_plan **jp,
                       struct cs_err *e)
{
	uint32_t how = rb_u32(r);
	char *text = how == SOURCE_DEFINED ? rb_str(r) : NULL;
	struct rbuf token = *r;
	uint64_t tn = rb_u64(&token), ta = rb_u64(&token);
	int rc;

	if (r->bad || how > SOURCE_DEFINED || (how == SOURCE_DEFINED && !text))
		rc = err_set(e, "job message: no plan source");
	else if (how == SOURCE_INLINE)
		rc = memo ? planmemo_get(memo, r->p, r->left, false, jp, e)
		          : planwire_decode(r->p, r->left, jp, e);
	else if (!memo || token.bad)
		rc = err_set(e, "job message: a kernel source by reference outside a window");
	else {
		if (text)
			planmemo_define_source(memo, tn, ta, text);
		rc = planmemo_get(memo, r->p, r->left, true, jp, e);
	}
	free(text);
	return rc;
}

int workerwire_decode_job(const void *buf, size_t len, char **cwd, struct strvec *env,
                          struct job_home **homes, uint32_t *flags, struct job_plan **jp,
                          struct cs_err *e)
{
	return workerwire_decode_job_memo(buf, len, NULL, cwd, env, homes, flags, jp, e);
}

int workerwire_decode_job_memo(const void *buf, size_t len, struct plan_memo *memo, char **cwd,
                               struct strvec *env, struct job_home **homes, uint32_t *flags,
                               struct job_plan **jp, struct cs_err *e)
{
	struct rbuf r = rb_init(buf, len);
	size_t nhomes = 0;

	*jp = NULL;
	*homes = NULL;
	*flags = rb_u32(&r);
	*cwd = rb_str(&r);
	if (r.bad || !*cwd || decode_env(&r, env) || decode_homes(&r, &nhomes, homes)) {
		job_parts_free(cwd, env, homes);
		return err_set(e, "job message: no directory, environment, buffer homes or flags");
	}
	if (decode_plan(&r, memo, jp, e)) {
		job_parts_free(cwd, env, homes);
		return -1;
	}
	if (nhomes != 0 && nhomes != (*jp)->kp.nargs) {
		err_set(e, "job message: %zu buffer homes for %zu arguments", nhomes,
		        (*jp)->kp.nargs);
		if (!memo)
			job_plan_free(*jp);
		*jp = NULL;
		job_parts_free(cwd, env, homes);
		return -1;
	}
	if (nhomes == 0) { /* every buffer in shared memory */
		free(*homes);
		*homes = xcalloc((*jp)->kp.nargs ? (*jp)->kp.nargs : 1, sizeof(**homes));
	}
	return 0;
}

void workerwire_encode_buffer(const char *shm, uint64_t gen, struct wbuf *out)
{
	wb_str(out, shm);
	wb_u64(out, gen);
}

int workerwire_decode_buffer(const void *buf, size_t len, char **shm, uint64_t *gen,
                             struct cs_err *e)
{
	struct rbuf r = rb_init(buf, len);

	*shm = rb_str(&r);
	*gen = rb_u64(&r);
	if (r.bad || !*shm || r.left) {
		free(*shm);
		*shm = NULL;
		return err_set(e, "buffer message: truncated or garbled");
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
