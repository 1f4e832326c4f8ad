/*
 * The messages between a program's server machine (carsh_machine_open_at("server", ...),
 * carsh/api/api-remote.c) and the worker the user's server lent it (carsh/api/api-serve.c), as
 * util/wire.h frames on the worker's socket (docs/api.md, "Machines on the server").
 *
 * The worker is a session worker (server/served.h) that is sent API_OPEN instead of a
 * session. Every request is one call of the embedding API on the worker's side and gets
 * exactly one API_ANSWER, in order: the call's code and message as the worker's local API
 * made them, a number (a handle's id, a size, a flag) and, for API_OPEN and API_STATS,
 * more fields after it. One request at a time: the machine's lock serialises them.
 */
#ifndef CARSH_SERVER_APIWIRE_H
#define CARSH_SERVER_APIWIRE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "util/wirebuf.h"

enum {
	API_OPEN = 201,         /* -> version, directory, umask, device selector (api_open) */
	API_ANSWER = 202,       /* <- every request's (api_answer) */
	API_FM_FILE = 203,      /* -> a path, b the client's directory; <- n the flow-model id */
	API_FM_STRING = 204,    /* -> a XML, b the client's directory, c the name (may be NULL) */
	API_FM_FREE = 205,      /* -> id */
	API_SET_PARAM = 206,    /* -> id, a name, b value */
	API_STREAM_BYTES = 207, /* -> id, a stream; <- n bytes */
	/* -> id, a stream, n bytes, b NULL for a NULL pointer; fd: a memfd of the stream;
	 * <- n 1 when the kernel may write the stream (Output, InOut) */
	API_BIND_MEMORY = 208,
	API_FIRE = 209,       /* -> id */
	API_FIRE_ASYNC = 210, /* -> id */
	API_WAIT = 211,       /* -> id */
	API_TEST = 212,       /* -> id; <- n 1 when done */
	API_PROFILING = 213,  /* -> id, n on */
	API_STATS = 214,      /* -> id; <- the statistics after n (apiwire_stats) */
};

struct api_open {
	char *version; /* PACKAGE_VERSION of the client's library */
	char *cwd;     /* the client's: relative paths are its */
	uint32_t umask;
	char *device; /* a --device selector, or NULL */
};

/* Every request but API_OPEN: a handle's id, up to three strings, a number. */
struct api_req {
	uint32_t id;
	char *a, *b, *c;
	uint64_t n;
};

/* An answer: rc (a carsh_errcode), msg (the worker's message, "" when none), n, and
 * extra_len bytes of more fields (pointing into the decoded payload). */
struct api_answer {
	int rc;
	char *msg;
	uint64_t n;
	const unsigned char *extra;
	size_t extra_len;
};

struct apiwire_stats {
	uint64_t fires, launches;
	double fire_ms, last_fire_ms, build_ms, kernel_ms;
	uint32_t cache_hit;
	char *device;
};

struct apiwire_device {
	char *name, *vendor, *platform, *type;
	uint32_t compute_units, selected;
	uint64_t global_mem, max_alloc;
};

/* Each decoder fills its struct (freed with the matching _free), or returns -1 with e for a
 * truncated or garbled payload: a field past its end, bytes left over, a string missing
 * where one is required. */
void apiwire_encode_open(const struct api_open *o, struct wbuf *out);
int apiwire_decode_open(const void *buf, size_t len, struct api_open *o, struct cs_err *e);
void apiwire_open_free(struct api_open *o);

void apiwire_encode_req(const struct api_req *r, struct wbuf *out);
int apiwire_decode_req(const void *buf, size_t len, struct api_req *r, struct cs_err *e);
void apiwire_req_free(struct api_req *r);

/* extra (may be NULL) is appended after the fixed fields. */
void apiwire_encode_answer(int rc, const char *msg, uint64_t n, const struct wbuf *extra,
                           struct wbuf *out);
/* a->msg is a new string (apiwire_answer_free); a->extra points into buf. */
int apiwire_decode_answer(const void *buf, size_t len, struct api_answer *a, struct cs_err *e);
void apiwire_answer_free(struct api_answer *a);

void apiwire_encode_stats(const struct apiwire_stats *s, struct wbuf *out);
int apiwire_decode_stats(const void *buf, size_t len, struct apiwire_stats *s, struct cs_err *e);
void apiwire_stats_free(struct apiwire_stats *s);

/* The machine's devices: a count, then each. *devs is a new array (apiwire_devices_free). */
void apiwire_encode_devices(const struct apiwire_device *d, size_t n, struct wbuf *out);
int apiwire_decode_devices(const void *buf, size_t len, struct apiwire_device **devs, size_t *n,
                           struct cs_err *e);
void apiwire_devices_free(struct apiwire_device *devs, size_t n);

#endif
