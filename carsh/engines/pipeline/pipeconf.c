/* Configuration names (engines/pipeline/pipeconf.h). */
#include "engines/pipeline/pipeconf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *pm_config_name(const struct pm_shape *sh, const struct pm_config *c, char *buf,
                           size_t len)
{
	char map[PIPE_MAX_STAGES + 1];
	int n;

	if (c->dp) {
		if (c->mg)
			snprintf(buf, len, "DP-MG");
		else
			snprintf(buf, len, "DP-CG:%u", c->threads);
		return buf;
	}
	for (unsigned k = 0; k < sh->s && k < PIPE_MAX_STAGES; k++)
		map[k] = (char)('0' + ((c->mask >> k) & 1u));
	map[sh->s < PIPE_MAX_STAGES ? sh->s : PIPE_MAX_STAGES] = '\0';
	if (c->mg)
		n = snprintf(buf, len, "CP-MG::%s", map);
	else
		n = snprintf(buf, len, "CP-CG:%u:%s", c->threads, map);
	(void)n;
	return buf;
}

/* The fields after "XX-YY": ":THREADS" and ":STAGES", each possibly empty. */
struct fields {
	const char *threads; /* NULL: absent */
	size_t threads_len;
	const char *map;
	size_t map_len;
};

static int split_fields(const char *rest, struct fields *f, const char *s, struct cs_err *e)
{
	const char *colon;

	memset(f, 0, sizeof(*f));
	if (!*rest)
		return 0;
	if (*rest != ':')
		return err_set(e,
		               "'%s': expected DP-CG, DP-MG, CP-CG or CP-MG, then :THREADS and "
		               ":STAGES (e.g. CP-CG:3:010)",
		               s);
	f->threads = rest + 1;
	colon = strchr(f->threads, ':');
	f->threads_len = colon ? (size_t)(colon - f->threads) : strlen(f->threads);
	if (colon) {
		f->map = colon + 1;
		f->map_len = strlen(f->map);
		if (strchr(f->map, ':'))
			return err_set(
			        e, "'%s': too many ':' fields (MAPPING-GRAIN:THREADS:STAGES)", s);
	}
	return 0;
}

static int parse_threads(const struct pm_shape *sh, const struct fields *f, struct pm_config *c,
                         const char *s, struct cs_err *e)
{
	unsigned maxt = pm_max_threads(sh), v = 0;

	c->threads = c->mg ? sh->nc + 1 : maxt;
	if (!f->threads || f->threads_len == 0)
		return 0;
	for (size_t i = 0; i < f->threads_len; i++) {
		if (!isdigit((unsigned char)f->threads[i]) || v > 100000)
			return err_set(e, "'%s': '%.*s' is not a thread count", s,
			               (int)f->threads_len, f->threads);
		v = v * 10 + (unsigned)(f->threads[i] - '0');
	}
	if (c->mg && v != sh->nc + 1)
		return err_set(e,
		               "'%s': MG always runs nC+1 = %u threads; leave the "
		               "count out",
		               s, sh->nc + 1);
	if (!c->mg && (v < 1 || v > maxt))
		return err_set(e, "'%s': %u threads; this machine takes 1 to %u (%u CPU core%s%s)",
		               s, v, maxt, sh->nc, sh->nc == 1 ? "" : "s",
		               sh->gpu ? " and the GPU's thread" : ", no GPU");
	c->threads = v;
	return 0;
}

static int parse_map(const struct pm_shape *sh, const struct fields *f, struct pm_config *c,
                     const char *s, struct cs_err *e)
{
	c->mask = 0;
	if (!f->map)
		return 0;
	if (f->map_len != sh->s || strspn(f->map, "01") != f->map_len)
		return err_set(e,
		               "'%s': the pipeline has %u stage%s: STAGES needs one 0 or 1 per "
		               "stage, the first stage first (e.g. %s)",
		               s, sh->s, sh->s == 1 ? "" : "s", sh->s == 1 ? "1" : "01");
	for (unsigned k = 0; k < sh->s; k++)
		if (f->map[k] == '1')
			c->mask |= 1u << k;
	return 0;
}

static int check_gpu(const struct pm_shape *sh, const struct pm_config *c, const char *s,
                     struct cs_err *e)
{
	uint32_t all = (1u << sh->s) - 1;

	if ((c->dp || c->mask) && !sh->gpu)
		return err_set(e,
		               "'%s' maps stages to the GPU, and there is none (see 'devices'; "
		               "--gpu cpu lets a CPU core stand in for one)",
		               s);
	if (c->dp && sh->gpu_ok != all)
		return err_set(e,
		               "'%s': DP runs every stage on the GPU, and a stage has gpu=\"no\" "
		               "(use CP with the other stages)",
		               s);
	if (c->mask & ~sh->gpu_ok) {
		for (unsigned k = 0; k < sh->s; k++)
			if (((c->mask & ~sh->gpu_ok) >> k) & 1u)
				return err_set(e,
				               "'%s': stage %u has gpu=\"no\"; its digit must be 0",
				               s, k + 1);
	}
	if (!c->dp && sh->gpu && c->mask == all)
		return err_set(e,
		               "'%s': every stage on the GPU is the decoupled mapping: write "
		               "DP-%s",
		               s, c->mg ? "MG" : "CG");
	return 0;
}

int pm_config_parse(const struct pm_shape *sh, const char *s, struct pm_config *c, bool *baseline,
                    struct cs_err *e)
{
	struct fields f;

	memset(c, 0, sizeof(*c));
	*baseline = strcasecmp(s, "baseline") == 0;
	if (*baseline)
		return 0;
	if (strlen(s) < 5 || s[2] != '-' ||
	    (strncasecmp(s, "DP", 2) != 0 && strncasecmp(s, "CP", 2) != 0) ||
	    (strncasecmp(s + 3, "CG", 2) != 0 && strncasecmp(s + 3, "MG", 2) != 0))
		return err_set(e,
		               "'%s': expected DP-CG, DP-MG, CP-CG or CP-MG, then :THREADS and "
		               ":STAGES (e.g. CP-CG:3:010), or 'baseline'",
		               s);
	c->dp = strncasecmp(s, "DP", 2) == 0;
	c->mg = strncasecmp(s + 3, "MG", 2) == 0;
	if (split_fields(s + 5, &f, s, e) || parse_threads(sh, &f, c, s, e) ||
	    parse_map(sh, &f, c, s, e))
		return -1;
	if (c->dp && f.map)
		return err_set(e, "'%s': DP maps every stage to the GPU; leave STAGES out", s);
	if (c->dp)
		c->mask = (1u << sh->s) - 1;
	return check_gpu(sh, c, s, e);
}
