/*
 * Framed messages over a connected Unix-domain stream socket, with file descriptors passed
 * alongside (SCM_RIGHTS): how a carsh talks to its workers and to its server (issue 18).
 *
 * A frame is a 16-byte header {magic "CSW1", type, payload length, number of fds} and then
 * the payload. The numbers are in host byte order: both ends are processes of one machine
 * (a Unix socket never leaves it), so there is nothing to convert.
 *
 * The fds travel with the frame's first byte, so a reader that has the whole header has all
 * of them. The socket is a blocking one: a full socket waits, it is not an error. A frame
 * that is refused (truncated, bad magic, too large, wrong fds) leaves the stream at an
 * unknown place: the caller closes the socket, it does not read on.
 */
#ifndef CARSH_UTIL_WIRE_H
#define CARSH_UTIL_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "util/wirebuf.h"

#define WIRE_MAGIC       "CSW1"
#define WIRE_MAX_FDS     4
#define WIRE_MAX_PAYLOAD (64u << 20) /* a job plan is kilobytes; data goes by shared memory */

struct wire_msg {
	uint32_t type;
	unsigned char *payload; /* len bytes and a NUL after them (text payloads are strings) */
	size_t len;
	int fds[WIRE_MAX_FDS]; /* close-on-exec; -1 past nfds */
	size_t nfds;
};

/* Send one whole frame: partial writes and EINTR are retried; a closed peer is EPIPE (an
 * error, never SIGPIPE). At most WIRE_MAX_FDS fds and WIRE_MAX_PAYLOAD bytes; the fds stay
 * the caller's (the peer gets duplicates). Returns 0, or -1 with e. */
int wire_send(int sock, uint32_t type, const void *payload, size_t len, const int *fds, size_t nfds,
              struct cs_err *e);

/* Append a frame without fds to out: frames gathered so, sent by one wire_send_frames, cost
 * the peer one wake-up instead of one each (a worker's answers to several jobs). */
void wire_frame(struct wbuf *out, uint32_t type, const void *payload, size_t len);
/* Send what wire_frame gathered in frames, whole, as wire_send sends one. 0, or -1 with e. */
int wire_send_frames(int sock, const struct wbuf *frames, struct cs_err *e);
/* As wire_frame, for the first of the frames that wire_send_frames_fds sends: the frame
 * announces nfds fds (at most WIRE_MAX_FDS), which travel with its first byte. */
void wire_frame_fds(struct wbuf *out, uint32_t type, const void *payload, size_t len, size_t nfds);
/* As wire_send_frames, with nfds fds (the first frame's, announced by wire_frame_fds; they
 * stay the caller's). 0, or -1 with e. */
int wire_send_frames_fds(int sock, const struct wbuf *frames, const int *fds, size_t nfds,
                         struct cs_err *e);

/* Receive one frame into m (which the caller frees with wire_msg_free). Returns 1 with a
 * message; 0 when the peer closed the stream between frames; -1 with e for a truncated
 * frame, a bad magic, a payload over WIRE_MAX_PAYLOAD (refused before allocating), fds other
 * than announced or over WIRE_MAX_FDS, or control data cut short (MSG_CTRUNC). On 0 and -1
 * m holds nothing to free and every fd that arrived is closed. */
int wire_recv(int sock, struct wire_msg *m, struct cs_err *e);

/* Frames read ahead from a socket whose peer sends fds with some of them (a warm worker's
 * jobs from its shell): one recvmsg takes every byte that has arrived, up to the room here,
 * and the frames after the first are handed out without a system call. The fds of a frame
 * come with its first byte, so the reader sees them no later than the frame; they are kept
 * in order with the stream range of the read that brought them, and a frame that announces
 * fds takes those of the read that brought its first byte: the fds a frame announces must
 * be exactly those sent with it, as wire_recv checks. Only for a stream that nobody else
 * reads. Zeroed to start. */
#define WIRE_INBOX_BATCHES 32
struct wire_inbox {
	unsigned char *buf;
	size_t off, len, cap; /* the bytes read, not yet taken: buf[off, len) */
	uint64_t pos;         /* the stream offset of buf[0] */
	struct wire_fd_batch {
		int fds[WIRE_MAX_FDS];
		size_t n;
		uint64_t begin, end; /* the stream range of the read that brought them */
	} batch[WIRE_INBOX_BATCHES];
	size_t nbatch;
};
/* As wire_recv, from in and the socket behind it. */
int wire_inbox_recv(int sock, struct wire_inbox *in, struct wire_msg *m, struct cs_err *e);
/* Bytes read and not taken yet: the start of the next frame at least, when not 0. */
size_t wire_inbox_left(const struct wire_inbox *in);
/* Frees what in holds, closing the fds no frame took. */
void wire_inbox_free(struct wire_inbox *in);

/* The same, for a socket whose peer sends no fds (a worker's answers to a window's jobs). A
 * frame that comes with fds anyway is refused and its fds closed. Zeroed to start. */
struct wire_ahead {
	struct wire_inbox in;
};
/* As wire_recv, from a and the socket behind it. */
int wire_recv_ahead(int sock, struct wire_ahead *a, struct wire_msg *m, struct cs_err *e);
/* Bytes read ahead and not taken: 0 where every frame read was taken. */
size_t wire_ahead_left(const struct wire_ahead *a);
void wire_ahead_free(struct wire_ahead *a);

/* Free the payload and close the fds still in m; one who keeps an fd sets m->fds[i] = -1. */
void wire_msg_free(struct wire_msg *m);

#endif
