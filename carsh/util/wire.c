#include "util/wire.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util/alloc.h"

struct wire_header {
	char magic[4];
	uint32_t type;
	uint32_t len;
	uint32_t nfds;
};

/* Room for WIRE_MAX_FDS fds: a sender of more gets MSG_CTRUNC here, and the kernel closes
 * the ones that did not fit. */
union wire_cmsg {
	struct cmsghdr align;
	char buf[CMSG_SPACE(sizeof(int) * WIRE_MAX_FDS)];
};

/* The fds that arrived while one frame was read, wherever in the frame they came. */
struct wire_reader {
	int sock;
	int fds[WIRE_MAX_FDS];
	size_t nfds;
	size_t extra; /* more than WIRE_MAX_FDS arrived; those were closed at once */
	bool ctrunc;
};

static void put_fds(struct msghdr *mh, union wire_cmsg *c, const int *fds, size_t nfds)
{
	struct cmsghdr *ch;

	memset(c, 0, sizeof(*c));
	mh->msg_control = c->buf;
	mh->msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
	ch = CMSG_FIRSTHDR(mh);
	ch->cmsg_level = SOL_SOCKET;
	ch->cmsg_type = SCM_RIGHTS;
	ch->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
	memcpy(CMSG_DATA(ch), fds, sizeof(int) * nfds);
}

/* Drop the first n bytes, already sent, from the message's iovecs. */
static void iov_advance(struct msghdr *mh, size_t n)
{
	while (mh->msg_iovlen > 0 && n >= mh->msg_iov->iov_len) {
		n -= mh->msg_iov->iov_len;
		mh->msg_iov++;
		mh->msg_iovlen--;
	}
	if (mh->msg_iovlen > 0) {
		mh->msg_iov->iov_base = (char *)mh->msg_iov->iov_base + n;
		mh->msg_iov->iov_len -= n;
	}
}

/* All `left` bytes of mh sent, its descriptors (if any) with the first. */
static int send_all(int sock, struct msghdr *mh, size_t left, struct cs_err *e)
{
	while (left > 0) {
		ssize_t n = sendmsg(sock, mh, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_errno(e, "wire: send");
		/* The fds went with the first byte; the rest goes without them. */
		mh->msg_control = NULL;
		mh->msg_controllen = 0;
		iov_advance(mh, (size_t)n);
		left -= (size_t)n;
	}
	return 0;
}

int wire_send(int sock, uint32_t type, const void *payload, size_t len, const int *fds, size_t nfds,
              struct cs_err *e)
{
	struct wire_header h = {.type = type, .len = (uint32_t)len, .nfds = (uint32_t)nfds};
	struct iovec iov[2] = {{&h, sizeof(h)}, {(void *)payload, len}};
	struct msghdr mh = {.msg_iov = iov, .msg_iovlen = len ? 2 : 1};
	union wire_cmsg c;
	size_t left = sizeof(h) + len;

	if (nfds > WIRE_MAX_FDS)
		return err_set(e, "wire: %zu file descriptors to send, at most %d", nfds,
		               WIRE_MAX_FDS);
	if (len > WIRE_MAX_PAYLOAD)
		return err_set(e, "wire: a payload of %zu bytes, over the limit of %u", len,
		               WIRE_MAX_PAYLOAD);
	memcpy(h.magic, WIRE_MAGIC, sizeof(h.magic));
	if (nfds)
		put_fds(&mh, &c, fds, nfds);
	return send_all(sock, &mh, left, e);
}

void wire_frame_fds(struct wbuf *out, uint32_t type, const void *payload, size_t len, size_t nfds)
{
	struct wire_header h = {.type = type, .len = (uint32_t)len, .nfds = (uint32_t)nfds};

	memcpy(h.magic, WIRE_MAGIC, sizeof(h.magic));
	wb_bytes(out, &h, sizeof(h));
	if (len)
		wb_bytes(out, payload, len);
}

void wire_frame(struct wbuf *out, uint32_t type, const void *payload, size_t len)
{
	wire_frame_fds(out, type, payload, len, 0);
}

int wire_send_frames_fds(int sock, const struct wbuf *frames, const int *fds, size_t nfds,
                         struct cs_err *e)
{
	struct iovec iov = {frames->p, frames->len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	union wire_cmsg c;
	size_t left = frames->len;

	if (nfds > WIRE_MAX_FDS)
		return err_set(e, "wire: %zu file descriptors to send, at most %d", nfds,
		               WIRE_MAX_FDS);
	if (nfds)
		put_fds(&mh, &c, fds, nfds);
	return send_all(sock, &mh, left, e);
}

int wire_send_frames(int sock, const struct wbuf *frames, struct cs_err *e)
{
	return wire_send_frames_fds(sock, frames, NULL, 0, e);
}

/* Keep the fds one recvmsg brought; past WIRE_MAX_FDS they are closed at once. */
static void take_fds(struct wire_reader *rd, struct msghdr *mh)
{
	for (struct cmsghdr *ch = CMSG_FIRSTHDR(mh); ch; ch = CMSG_NXTHDR(mh, ch)) {
		size_t n;

		if (ch->cmsg_level != SOL_SOCKET || ch->cmsg_type != SCM_RIGHTS)
			continue;
		n = (ch->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(ch) + i * sizeof(int), sizeof(fd));
			if (rd->nfds < WIRE_MAX_FDS) {
				rd->fds[rd->nfds++] = fd;
			} else {
				close(fd);
				rd->extra++;
			}
		}
	}
	if (mh->msg_flags & MSG_CTRUNC)
		rd->ctrunc = true;
}

/* Read n bytes into buf. Returns how many were read: n, or fewer when the stream ended;
 * -1 with e. */
static ssize_t read_full(struct wire_reader *rd, void *buf, size_t n, struct cs_err *e)
{
	size_t got = 0;

	while (got < n) {
		union wire_cmsg c;
		struct iovec v = {(char *)buf + got, n - got};
		struct msghdr mh = {.msg_iov = &v,
		                    .msg_iovlen = 1,
		                    .msg_control = c.buf,
		                    .msg_controllen = sizeof(c.buf)};
		ssize_t r = recvmsg(rd->sock, &mh, MSG_CMSG_CLOEXEC);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return err_errno(e, "wire: receive");
		take_fds(rd, &mh);
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

static int check_header(const struct wire_header *h, struct cs_err *e)
{
	if (memcmp(h->magic, WIRE_MAGIC, sizeof(h->magic)) != 0)
		return err_set(e, "wire: not a CarSh frame (bad magic)");
	if (h->len > WIRE_MAX_PAYLOAD)
		return err_set(e, "wire: a payload of %u bytes announced, over the limit of %u",
		               h->len, WIRE_MAX_PAYLOAD);
	if (h->nfds > WIRE_MAX_FDS)
		return err_set(e, "wire: %u file descriptors announced, at most %d", h->nfds,
		               WIRE_MAX_FDS);
	return 0;
}

static int check_fds(const struct wire_reader *rd, uint32_t announced, struct cs_err *e)
{
	if (rd->ctrunc || rd->extra)
		return err_set(e, "wire: more than %d file descriptors sent with a frame",
		               WIRE_MAX_FDS);
	if (rd->nfds != announced)
		return err_set(e, "wire: %zu file descriptors arrived, %u announced", rd->nfds,
		               announced);
	return 0;
}

static int truncated(ssize_t got, size_t want, const char *part, struct cs_err *e)
{
	return err_set(e, "wire: truncated frame (the peer closed after %zd of %zu %s bytes)", got,
	               want, part);
}

/* Read the payload and check the fds; the header is good. */
static int read_body(struct wire_reader *rd, const struct wire_header *h, struct wire_msg *m,
                     struct cs_err *e)
{
	ssize_t got;

	m->payload = data_alloc((size_t)h->len + 1, 1, "wire: payload", e);
	if (!m->payload)
		return -1;
	got = read_full(rd, m->payload, h->len, e);
	if (got < 0)
		return -1;
	if ((size_t)got < h->len)
		return truncated(got, h->len, "payload", e);
	m->payload[h->len] = '\0';
	m->len = h->len;
	m->type = h->type;
	return check_fds(rd, h->nfds, e);
}

int wire_recv(int sock, struct wire_msg *m, struct cs_err *e)
{
	struct wire_reader rd = {.sock = sock};
	struct wire_header h;
	ssize_t got;

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < WIRE_MAX_FDS; i++)
		m->fds[i] = -1;
	got = read_full(&rd, &h, sizeof(h), e);
	if (got == 0 && rd.nfds == 0 && !rd.ctrunc)
		return 0;
	if (got >= 0 && (size_t)got < sizeof(h))
		truncated(got, sizeof(h), "header", e);
	if (got == (ssize_t)sizeof(h) && check_header(&h, e) == 0 &&
	    read_body(&rd, &h, m, e) == 0) {
		memcpy(m->fds, rd.fds, rd.nfds * sizeof(int));
		m->nfds = rd.nfds;
		return 1;
	}
	for (size_t i = 0; i < rd.nfds; i++)
		close(rd.fds[i]);
	free(m->payload);
	m->payload = NULL;
	m->len = 0;
	return -1;
}

/* A frame read ahead: its payload copied out of the buffer into m, with a NUL after it. */
static int copy_payload(struct wire_msg *m, const unsigned char *at, const struct wire_header *h,
                        struct cs_err *e)
{
	m->payload = data_alloc((size_t)h->len + 1, 1, "wire: payload", e);
	if (!m->payload)
		return -1;
	memcpy(m->payload, at, h->len);
	m->payload[h->len] = '\0';
	m->len = h->len;
	m->type = h->type;
	return 0;
}

/* ---- frames read ahead, with fds (struct wire_inbox) ---- */

static void batch_close(struct wire_fd_batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		close(b->fds[i]);
	b->n = 0;
}

static void batch_pop(struct wire_inbox *in)
{
	memmove(in->batch, in->batch + 1, (in->nbatch - 1) * sizeof(in->batch[0]));
	in->nbatch--;
}

/* The fds one read brought (from..to of the stream), kept in order. */
static int batch_take(struct wire_inbox *in, struct msghdr *mh, uint64_t from, uint64_t to,
                      struct cs_err *e)
{
	struct wire_reader rd = {.sock = -1};
	struct wire_fd_batch *b;

	take_fds(&rd, mh);
	if (rd.ctrunc || rd.extra) {
		for (size_t i = 0; i < rd.nfds; i++)
			close(rd.fds[i]);
		return err_set(e, "wire: more than %d file descriptors sent with a frame",
		               WIRE_MAX_FDS);
	}
	if (rd.nfds == 0)
		return 0;
	/* Never so: a read brings fds with a frame's first byte, and while the kept ones fill
	 * up only the rest of a frame whose first byte came is read (inbox_fill). */
	if (in->nbatch == WIRE_INBOX_BATCHES) {
		for (size_t i = 0; i < rd.nfds; i++)
			close(rd.fds[i]);
		return err_set(e, "wire: file descriptors of more than %d frames read ahead",
		               WIRE_INBOX_BATCHES);
	}
	b = &in->batch[in->nbatch++];
	memcpy(b->fds, rd.fds, rd.nfds * sizeof(int));
	b->n = rd.nfds;
	b->begin = from;
	b->end = to;
	return 0;
}

/* One read into in, at most max bytes: 1, 0 at the end of the stream, -1 with e. */
static int inbox_read(int sock, struct wire_inbox *in, size_t max, struct cs_err *e)
{
	for (;;) {
		union wire_cmsg c;
		struct iovec v = {in->buf + in->len, max};
		struct msghdr mh = {.msg_iov = &v,
		                    .msg_iovlen = 1,
		                    .msg_control = c.buf,
		                    .msg_controllen = sizeof(c.buf)};
		ssize_t r = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
		uint64_t from = in->pos + in->len;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return err_errno(e, "wire: receive");
		in->len += (size_t)r;
		if (batch_take(in, &mh, from, from + (uint64_t)(r ? r : 1), e))
			return -1;
		return r > 0;
	}
}

/* At least want bytes from in->off: 1, 0 when the stream ended first, -1 with e. While the
 * kept fds fill up, only the bytes wanted are read: a read then brings the fds of the frame
 * being read at most. */
static int inbox_fill(int sock, struct wire_inbox *in, size_t want, struct cs_err *e)
{
	if (in->off) {
		memmove(in->buf, in->buf + in->off, in->len - in->off);
		in->len -= in->off;
		in->pos += in->off;
		in->off = 0;
	}
	if (in->cap < want || in->cap < 65536)
		in->buf = xgrow(in->buf, &in->cap, want < 65536 ? 65536 : want, 1);
	while (in->len < want) {
		size_t max =
		        in->nbatch + 1 < WIRE_INBOX_BATCHES ? in->cap - in->len : want - in->len;
		int r = inbox_read(sock, in, max, e);

		if (r <= 0)
			return r;
	}
	return 1;
}

/* The fds of the frame that starts at stream offset at and announces n: the kept ones
 * that came with its first byte. Fds that came before it unclaimed are refused. */
static int inbox_fds(struct wire_inbox *in, uint64_t at, uint32_t n, struct wire_msg *m,
                     struct cs_err *e)
{
	struct wire_fd_batch *b = in->nbatch ? &in->batch[0] : NULL;

	if (b && b->end <= at)
		return err_set(e, "wire: %zu file descriptors arrived, 0 announced", b->n);
	if (n == 0)
		return 0;
	if (!b || b->begin > at || b->n != n)
		return err_set(e, "wire: %zu file descriptors arrived, %u announced",
		               b && b->begin <= at ? b->n : 0, n);
	memcpy(m->fds, b->fds, b->n * sizeof(int));
	m->nfds = b->n;
	b->n = 0;
	batch_pop(in);
	return 0;
}

int wire_inbox_recv(int sock, struct wire_inbox *in, struct wire_msg *m, struct cs_err *e)
{
	struct wire_header h;
	uint64_t at;
	int r;

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < WIRE_MAX_FDS; i++)
		m->fds[i] = -1;
	r = in->len - in->off >= sizeof(h) ? 1 : inbox_fill(sock, in, sizeof(h), e);
	if (r <= 0) {
		if (r == 0 && in->len != in->off)
			return truncated((ssize_t)(in->len - in->off), sizeof(h), "header", e);
		return r;
	}
	memcpy(&h, in->buf + in->off, sizeof(h));
	if (check_header(&h, e))
		return -1;
	if (in->len - in->off < sizeof(h) + h.len) {
		r = inbox_fill(sock, in, sizeof(h) + h.len, e);
		if (r == 0)
			return truncated((ssize_t)(in->len - in->off - sizeof(h)), h.len, "payload",
			                 e);
		if (r < 0)
			return -1;
	}
	at = in->pos + in->off;
	if (inbox_fds(in, at, h.nfds, m, e))
		return -1;
	if (copy_payload(m, in->buf + in->off + sizeof(h), &h, e)) {
		wire_msg_free(m);
		return -1;
	}
	in->off += sizeof(h) + h.len;
	return 1;
}

size_t wire_inbox_left(const struct wire_inbox *in)
{
	return in->len - in->off;
}

void wire_inbox_free(struct wire_inbox *in)
{
	for (size_t i = 0; i < in->nbatch; i++)
		batch_close(&in->batch[i]);
	free(in->buf);
	memset(in, 0, sizeof(*in));
}

int wire_recv_ahead(int sock, struct wire_ahead *a, struct wire_msg *m, struct cs_err *e)
{
	int r = wire_inbox_recv(sock, &a->in, m, e);
	size_t nfds = r == 1 ? m->nfds : 0;

	if (nfds == 0)
		return r;
	wire_msg_free(m); /* closes them */
	return err_set(e, "wire: %zu file descriptors announced where none come", nfds);
}

size_t wire_ahead_left(const struct wire_ahead *a)
{
	return wire_inbox_left(&a->in);
}

void wire_ahead_free(struct wire_ahead *a)
{
	wire_inbox_free(&a->in);
}

void wire_msg_free(struct wire_msg *m)
{
	if (!m)
		return;
	free(m->payload);
	for (size_t i = 0; i < m->nfds && i < WIRE_MAX_FDS; i++)
		if (m->fds[i] >= 0)
			close(m->fds[i]);
	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < WIRE_MAX_FDS; i++)
		m->fds[i] = -1;
}
