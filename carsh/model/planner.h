/*
 * From an executable and its caller's parameters to a job plan: every expression evaluated
 * (DESIGN §3.1 scope: the executable's <Param>, then the caller, then the flow-model's
 * defaults), every stream bound, every size checked.
 */
#ifndef CARSH_MODEL_PLANNER_H
#define CARSH_MODEL_PLANNER_H

#include "exec/jobplan.h"
#include "model/exe.h"

/* Looks up a virtual buffer for a <Buffer> binding: checks its type and count against the
 * stream and sets *shm to its shared-memory object name (a new string). */
typedef int (*buffer_resolver)(void *ctx, const char *name, struct cs_type type, size_t count,
                               char **shm, struct cs_err *e);

struct plan_env {
	const struct scope *caller; /* batch params, run NAME=VALUE, shell variables */
	const char *device_cli;     /* --device / CARSH_DEVICE, or NULL */
	buffer_resolver resolve;    /* NULL: <Buffer> bindings are refused */
	void *resolve_ctx;
	bool source_from_cache; /* the flow-model is the file cache's: the plan points at
	                           its kernel source instead of copying it */
};

int plan_exe(const struct exe *exe, const struct plan_env *env, struct job_plan **out,
             struct cs_err *e);
/* A flow-model alone, with params (the caller's, strongest) over its defaults: every
 * argument evaluated and every stream sized, none bound (each plan's stream_bind says
 * BIND_DISCARD): the embedding API binds the caller's memory itself. */
int plan_flowmodel(const struct flowmodel *fm, const struct params *params,
                   const struct plan_env *env, struct job_plan **out, struct cs_err *e);

#endif
