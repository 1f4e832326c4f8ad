/* Framed messages with fds over a Unix socket (util/wire.h), their payload encoding
 * (util/wirebuf.h) and a job plan as bytes (exec/planwire.h): what a worker receives. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec/planenc.h"
#include "exec/planmemo.h"
#include "exec/planwire.h"
#include "exec/workerwire.h"
#include "util/alloc.h"
#include "util/wire.h"
#include "util/wirebuf.h"
#include "suites.h"

/* The header as wire.c lays it out, written here independently to forge frames. */
struct forged_header {
	char magic[4];
	uint32_t type, len, nfds;
};

static void pair(int sv[2])
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
}

static void write_all(int fd, const void *p, size_t n)
{
	ck_assert_int_eq(write(fd, p, n), (ssize_t)n);
}

static void forge(int fd, const char *magic, uint32_t type, uint32_t len, uint32_t nfds)
{
	struct forged_header h = {.type = type, .len = len, .nfds = nfds};

	memcpy(h.magic, magic, 4);
	write_all(fd, &h, sizeof(h));
}

/* Send bytes with fds attached to them, as a sender that does not use wire_send might. */
static void send_with_fds(int sock, const void *p, size_t n, const int *fds, size_t nfds)
{
	char buf[CMSG_SPACE(sizeof(int) * 8)];
	struct iovec v = {(void *)p, n};
	struct msghdr mh = {.msg_iov = &v, .msg_iovlen = 1};
	struct cmsghdr *ch;

	memset(buf, 0, sizeof(buf));
	mh.msg_control = buf;
	mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
	ch = CMSG_FIRSTHDR(&mh);
	ch->cmsg_level = SOL_SOCKET;
	ch->cmsg_type = SCM_RIGHTS;
	ch->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
	memcpy(CMSG_DATA(ch), fds, sizeof(int) * nfds);
	ck_assert_int_eq(sendmsg(sock, &mh, 0), (ssize_t)n);
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static bool fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

START_TEST(test_wire_frame_without_fds_round_trips)
{
	struct cs_err e;
	struct wire_msg m;
	int sv[2];

	pair(sv);
	ck_assert_int_eq(wire_send(sv[0], 7, "hello", 5, NULL, 0, &e), 0);
	ck_assert_int_eq(wire_send(sv[0], 8, NULL, 0, NULL, 0, &e), 0);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), 1);
	ck_assert_uint_eq(m.type, 7);
	ck_assert_uint_eq(m.len, 5);
	ck_assert_str_eq((char *)m.payload, "hello");
	ck_assert_uint_eq(m.nfds, 0);
	wire_msg_free(&m);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), 1);
	ck_assert_uint_eq(m.type, 8);
	ck_assert_uint_eq(m.len, 0);
	wire_msg_free(&m);
	close(sv[0]);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), 0);
	close(sv[1]);
}
END_TEST

/* Frames gathered and sent in one write arrive as the same frames one by one, and the
 * bytes on the socket are those of wire_send's frames (a forged header, written here). */
START_TEST(test_wire_frames_sent_together_arrive_one_by_one)
{
	struct wbuf frames = WBUF_INIT;
	struct forged_header h;
	struct cs_err e;
	struct wire_msg m;
	int sv[2];

	pair(sv);
	wire_frame(&frames, 2, "first", 5);
	wire_frame(&frames, 3, NULL, 0);
	wire_frame(&frames, 4, "third\0", 6);
	ck_assert_uint_eq(frames.len, 3 * sizeof(h) + 5 + 6);
	memcpy(&h, frames.p, sizeof(h));
	ck_assert_int_eq(memcmp(h.magic, "CSW1", 4), 0);
	ck_assert_uint_eq(h.type, 2);
	ck_assert_uint_eq(h.len, 5);
	ck_assert_uint_eq(h.nfds, 0);
	ck_assert_int_eq(wire_send_frames(sv[0], &frames, &e), 0);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), 1);
	ck_assert_uint_eq(m.type, 2);
	ck_assert_uint_eq(m.len, 5);
	ck_assert_int_eq(memcmp(m.payload, "first", 5), 0);
	wire_msg_free(&m);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), 1);
	ck_assert_uint_eq(m.type, 3);
	ck_assert_uint_eq(m.len, 0);
	wire_msg_free(&m);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), 1);
	ck_assert_uint_eq(m.type, 4);
	ck_assert_uint_eq(m.len, 6);
	ck_assert_str_eq((char *)m.payload, "third");
	wire_msg_free(&m);
	close(sv[0]);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), 0);
	close(sv[1]);
	wb_free(&frames);
}
END_TEST

/* A run of frames in one write, the first announcing fds (a window's run of jobs): the fds
 * arrive with the first frame, which refers to the pipe sent; the next frames come whole,
 * without fds. */
START_TEST(test_wire_frames_with_fds_arrive_with_the_first)
{
	struct wbuf frames = WBUF_INIT;
	struct forged_header h;
	struct cs_err e;
	struct wire_msg m;
	int sv[2], p[2];
	char got[4] = "";

	pair(sv);
	ck_assert_int_eq(pipe(p), 0);
	wire_frame_fds(&frames, 1, "one", 3, 1);
	wire_frame(&frames, 1, "two", 3);
	memcpy(&h, frames.p, sizeof(h));
	ck_assert_uint_eq(h.nfds, 1);
	memcpy(&h, frames.p + sizeof(h) + 3, sizeof(h));
	ck_assert_uint_eq(h.nfds, 0);
	ck_assert_int_eq(wire_send_frames_fds(sv[0], &frames, &p[1], 1, &e), 0);
	close(p[1]);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), 1);
	ck_assert_uint_eq(m.nfds, 1);
	ck_assert_int_eq(memcmp(m.payload, "one", 3), 0);
	ck_assert_int_eq(write(m.fds[0], "abc", 3), 3);
	wire_msg_free(&m);
	ck_assert_int_eq(read(p[0], got, 3), 3);
	ck_assert_str_eq(got, "abc");
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), 1);
	ck_assert_uint_eq(m.nfds, 0);
	ck_assert_int_eq(memcmp(m.payload, "two", 3), 0);
	wire_msg_free(&m);
	close(sv[0]);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), 0);
	close(sv[1]);
	close(p[0]);
	wb_free(&frames);
}
END_TEST

/* Frames read ahead: one recv takes all three, each is handed out whole and in order, and
 * the end of the stream after the last is 0, as wire_recv's. */
START_TEST(test_wire_recv_ahead_takes_arrived_frames_in_order)
{
	struct wire_ahead ahead = {0};
	char big[100000];
	struct cs_err e;
	struct wire_msg m;
	int sv[2];

	pair(sv);
	memset(big, 'x', sizeof(big));
	ck_assert_int_eq(wire_send(sv[0], 5, "one", 3, NULL, 0, &e), 0);
	ck_assert_int_eq(wire_send(sv[0], 6, NULL, 0, NULL, 0, &e), 0);
	ck_assert_int_eq(wire_send(sv[0], 7, "three", 5, NULL, 0, &e), 0);
	ck_assert_int_eq(wire_recv_ahead(sv[1], &ahead, &m, &e), 1);
	ck_assert_uint_eq(m.type, 5);
	ck_assert_str_eq((char *)m.payload, "one");
	wire_msg_free(&m);
	ck_assert_uint_eq(wire_ahead_left(&ahead), 2 * sizeof(struct forged_header) + 5);
	ck_assert_int_eq(wire_recv_ahead(sv[1], &ahead, &m, &e), 1);
	ck_assert_uint_eq(m.type, 6);
	ck_assert_uint_eq(m.len, 0);
	wire_msg_free(&m);
	ck_assert_int_eq(wire_recv_ahead(sv[1], &ahead, &m, &e), 1);
	ck_assert_uint_eq(m.type, 7);
	ck_assert_str_eq((char *)m.payload, "three");
	wire_msg_free(&m);
	ck_assert_uint_eq(wire_ahead_left(&ahead), 0);
	/* Larger than what one read takes: read on until the payload is whole. */
	if (fork() == 0) {
		_exit(wire_send(sv[0], 8, big, sizeof(big), NULL, 0, &e) ? 1 : 0);
	}
	ck_assert_int_eq(wire_recv_ahead(sv[1], &ahead, &m, &e), 1);
	ck_assert_uint_eq(m.type, 8);
	ck_assert_uint_eq(m.len, sizeof(big));
	ck_assert_int_eq(memcmp(m.payload, big, sizeof(big)), 0);
	wire_msg_free(&m);
	ck_assert_int_eq(wait(NULL) > 0, 1);
	close(sv[0]);
	ck_assert_int_eq(wire_recv_ahead(sv[1], &ahead, &m, &e), 0);
	close(sv[1]);
	wire_ahead_free(&ahead);
}
END_TEST

/* A frame cut short by the peer's end is refused as wire_recv refuses it. */
START_TEST(test_wire_recv_ahead_truncated_frame_refused)
{
	struct wire_ahead ahead = {0};
	struct cs_err e;
	struct wire_msg m;
	int sv[2];

	pair(sv);
	forge(sv[0], "CSW1", 2, 10, 0);
	write_all(sv[0], "abc", 3);
	close(sv[0]);
	ck_assert_int_eq(wire_recv_ahead(sv[1], &ahead, &m, &e), -1);
	ck_assert_str_eq(e.msg,
	                 "wire: truncated frame (the peer closed after 3 of 10 payload bytes)");
	close(sv[1]);
	wire_ahead_free(&ahead);
}
END_TEST

/* Reads from the pipe p what the fd that came with a frame wrote into it. */
static void check_pipe_fd(const struct wire_msg *m, int p, const char *text)
{
	char got[8] = "";

	ck_assert_uint_eq(m->nfds, 1);
	ck_assert_int_eq(write(m->fds[0], text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(read(p, got, strlen(text)), (ssize_t)strlen(text));
	ck_assert_str_eq(got, text);
}

/* Frames read ahead with their fds (a worker's jobs): a run of two in one write, the first
 * with a pipe, then a frame alone with another pipe, then one without: each frame gets the
 * fds sent with it and no other's, the second of the run comes from what was read already,
 * and the end of the stream is 0. */
START_TEST(test_wire_inbox_frames_get_their_own_fds)
{
	struct wire_inbox in = {0};
	struct wbuf run = WBUF_INIT;
	struct cs_err e;
	struct wire_msg m;
	int sv[2], p1[2], p2[2];
	int before = open_fds();

	pair(sv);
	ck_assert_int_eq(pipe(p1), 0);
	ck_assert_int_eq(pipe(p2), 0);
	wire_frame_fds(&run, 1, "one", 3, 1);
	wire_frame(&run, 2, "two", 3);
	ck_assert_int_eq(wire_send_frames_fds(sv[0], &run, &p1[1], 1, &e), 0);
	ck_assert_int_eq(wire_send(sv[0], 3, "three", 5, &p2[1], 1, &e), 0);
	ck_assert_int_eq(wire_send(sv[0], 4, "four", 4, NULL, 0, &e), 0);
	close(p1[1]);
	close(p2[1]);
	ck_assert_int_eq(wire_inbox_recv(sv[1], &in, &m, &e), 1);
	ck_assert_uint_eq(m.type, 1);
	ck_assert_str_eq((char *)m.payload, "one");
	check_pipe_fd(&m, p1[0], "a");
	wire_msg_free(&m);
	ck_assert_uint_eq(wire_inbox_left(&in), sizeof(struct forged_header) + 3);
	ck_assert_int_eq(wire_inbox_recv(sv[1], &in, &m, &e), 1);
	ck_assert_str_eq((char *)m.payload, "two");
	ck_assert_uint_eq(m.nfds, 0);
	wire_msg_free(&m);
	ck_assert_int_eq(wire_inbox_recv(sv[1], &in, &m, &e), 1);
	ck_assert_str_eq((char *)m.payload, "three");
	check_pipe_fd(&m, p2[0], "b");
	wire_msg_free(&m);
	ck_assert_int_eq(wire_inbox_recv(sv[1], &in, &m, &e), 1);
	ck_assert_str_eq((char *)m.payload, "four");
	ck_assert_uint_eq(m.nfds, 0);
	wire_msg_free(&m);
	close(sv[0]);
	ck_assert_int_eq(wire_inbox_recv(sv[1], &in, &m, &e), 0);
	close(sv[1]);
	close(p1[0]);
	close(p2[0]);
	wire_inbox_free(&in);
	wb_free(&run);
	ck_assert_int_eq(open_fds(), before);
}
END_TEST

/* More writes with fds waiting than the inbox keeps batches of fds for: read on, each
 * frame still gets its own pipe. */
START_TEST(test_wire_inbox_many_writes_with_fds)
{
	struct wire_inbox in = {0};
	struct cs_err e;
	struct wire_msg m;
	int sv[2], p[2];
	const int n = WIRE_INBOX_BATCHES + 8;

	pair(sv);
	ck_assert_int_eq(pipe(p), 0);
	for (int i = 0; i < n; i++) {
		char tag = (char)('A' + i);

		ck_assert_int_eq(wire_send(sv[0], (uint32_t)i, &tag, 1, &p[1], 1, &e), 0);
	}
	close(p[1]);
	for (int i = 0; i < n; i++) {
		char text[2] = {(char)('A' + i), '\0'};

		ck_assert_int_eq(wire_inbox_recv(sv[1], &in, &m, &e), 1);
		ck_assert_uint_eq(m.type, (uint32_t)i);
		ck_assert_int_eq(m.payload[0], 'A' + i);
		check_pipe_fd(&m, p[0], text);
		wire_msg_free(&m);
	}
	close(sv[0]);
	ck_assert_int_eq(wire_inbox_recv(sv[1], &in, &m, &e), 0);
	close(sv[1]);
	close(p[0]);
	wire_inbox_free(&in);
}
END_TEST

/* Fds that no frame announces, and a frame that announces fds none came with, are refused
 * as wire_recv refuses them; the refused fds are closed. */
START_TEST(test_wire_inbox_refuses_fds_not_as_announced)
{
	struct wire_inbox in = {0};
	struct wbuf one = WBUF_INIT;
	struct cs_err e;
	struct wire_msg m;
	int sv[2], p[2];
	int before = open_fds();

	pair(sv);
	ck_assert_int_eq(pipe(p), 0);
	wire_frame(&one, 1, "one", 3); /* announces none, sent with one */
	ck_assert_int_eq(wire_send_frames_fds(sv[0], &one, &p[1], 1, &e), 0);
	ck_assert_int_eq(wire_send(sv[0], 2, "two", 3, NULL, 0, &e), 0);
	ck_assert_int_eq(wire_inbox_recv(sv[1], &in, &m, &e), 1);
	wire_msg_free(&m);
	ck_assert_int_eq(wire_inbox_recv(sv[1], &in, &m, &e), -1);
	ck_assert_str_eq(e.msg, "wire: 1 file descriptors arrived, 0 announced");
	wire_inbox_free(&in);
	close(sv[0]);
	close(sv[1]);
	pair(sv);
	wb_free(&one);
	wire_frame_fds(&one, 1, "one", 3, 1); /* announces one, sent with none */
	ck_assert_int_eq(wire_send_frames(sv[0], &one, &e), 0);
	ck_assert_int_eq(wire_inbox_recv(sv[1], &in, &m, &e), -1);
	ck_assert_str_eq(e.msg, "wire: 0 file descriptors arrived, 1 announced");
	wire_inbox_free(&in);
	close(sv[0]);
	close(sv[1]);
	close(p[0]);
	close(p[1]);
	wb_free(&one);
	ck_assert_int_eq(open_fds(), before);
}
END_TEST

/* A file and a pipe's write end: what arrives refers to the same objects. */
START_TEST(test_wire_fds_arrive_as_the_same_files_close_on_exec)
{
	char path[] = "/tmp/carsh-wire-XXXXXX", back[4] = "";
	struct cs_err e;
	struct wire_msg m;
	int sv[2], p[2], fds[2];

	pair(sv);
	ck_assert_int_eq(pipe(p), 0);
	fds[0] = mkstemp(path);
	ck_assert_int_ge(fds[0], 0);
	unlink(path);
	fds[1] = p[1];
	ck_assert_int_eq(wire_send(sv[0], 1, "fd", 2, fds, 2, &e), 0);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), 1);
	ck_assert_uint_eq(m.nfds, 2);
	for (size_t i = 0; i < 2; i++) {
		ck_assert_int_ne(m.fds[i], fds[i]);
		ck_assert(fcntl(m.fds[i], F_GETFD) & FD_CLOEXEC);
	}
	ck_assert_int_eq(pwrite(m.fds[0], "abc", 3, 0), 3);
	ck_assert_int_eq(pread(fds[0], back, 3, 0), 3);
	ck_assert_str_eq(back, "abc");
	ck_assert_int_eq(write(m.fds[1], "xyz", 3), 3);
	ck_assert_int_eq(read(p[0], back, 3), 3);
	ck_assert_str_eq(back, "xyz");
	wire_msg_free(&m);
	close(fds[0]);
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* Larger than the socket's buffer: the sender writes in pieces while the reader reads. */
START_TEST(test_wire_large_payload_in_pieces)
{
	size_t n = 3u << 20;
	unsigned char *big = xmalloc(n);
	struct cs_err e;
	struct wire_msg m;
	int sv[2], status;
	pid_t pid;

	for (size_t i = 0; i < n; i++)
		big[i] = (unsigned char)(i * 31 + (i >> 12));
	pair(sv);
	pid = fork();
	if (pid == 0) {
		int rc = wire_send(sv[0], 3, big, n, &sv[0], 1, &e);

		free(big);
		close(sv[0]);
		close(sv[1]);
		_exit(rc == 0 ? 0 : 1);
	}
	close(sv[0]);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), 1);
	ck_assert_uint_eq(m.len, n);
	ck_assert_uint_eq(m.nfds, 1);
	ck_assert(memcmp(m.payload, big, n) == 0);
	wire_msg_free(&m);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(sv[1]);
	free(big);
}
END_TEST

static void on_alarm(int sig)
{
	(void)sig;
}

/* A signal that interrupts the wait (no SA_RESTART) does not end it. */
START_TEST(test_wire_recv_retries_after_a_signal)
{
	struct sigaction sa = {.sa_handler = on_alarm};
	struct itimerval every = {{0, 20000}, {0, 20000}}, off = {{0, 0}, {0, 0}};
	struct cs_err e;
	struct wire_msg m;
	int sv[2], status;
	pid_t pid;

	pair(sv);
	pid = fork();
	if (pid == 0) {
		int rc;

		usleep(200000);
		rc = wire_send(sv[0], 5, "late", 4, NULL, 0, &e);
		close(sv[0]);
		close(sv[1]);
		_exit(rc == 0 ? 0 : 1);
	}
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &every, NULL);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), 1);
	setitimer(ITIMER_REAL, &off, NULL);
	ck_assert_str_eq((char *)m.payload, "late");
	wire_msg_free(&m);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(test_wire_peer_closing_mid_payload_is_a_truncated_frame)
{
	struct cs_err e;
	struct wire_msg m;
	int sv[2];

	pair(sv);
	forge(sv[0], WIRE_MAGIC, 1, 100, 0);
	write_all(sv[0], "0123456789", 10);
	close(sv[0]);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), -1);
	ck_assert_str_eq(e.msg,
	                 "wire: truncated frame (the peer closed after 10 of 100 payload bytes)");
	ck_assert_ptr_null(m.payload);
	close(sv[1]);
}
END_TEST

START_TEST(test_wire_peer_closing_mid_header_is_a_truncated_frame)
{
	struct cs_err e;
	struct wire_msg m;
	int sv[2];

	pair(sv);
	write_all(sv[0], "CSW", 3);
	close(sv[0]);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), -1);
	ck_assert_str_eq(e.msg,
	                 "wire: truncated frame (the peer closed after 3 of 16 header bytes)");
	close(sv[1]);
}
END_TEST

START_TEST(test_wire_garbage_magic_refused)
{
	struct cs_err e;
	struct wire_msg m;
	int sv[2];

	pair(sv);
	forge(sv[0], "GET ", 1, 0, 0);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), -1);
	ck_assert_str_eq(e.msg, "wire: not a CarSh frame (bad magic)");
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* Refused from the header alone: the reader neither allocates nor waits for 4 GiB. */
START_TEST(test_wire_oversize_length_refused_from_the_header)
{
	struct cs_err e;
	struct wire_msg m;
	int sv[2];

	pair(sv);
	forge(sv[0], WIRE_MAGIC, 1, UINT32_MAX, 0);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), -1);
	ck_assert_str_eq(
	        e.msg, "wire: a payload of 4294967295 bytes announced, over the limit of 67108864");
	ck_assert_ptr_null(m.payload);
	forge(sv[0], WIRE_MAGIC, 1, WIRE_MAX_PAYLOAD + 1, 0);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), -1);
	ck_assert_int_eq(wire_send(sv[0], 1, "", WIRE_MAX_PAYLOAD + 1, NULL, 0, &e), -1);
	ck_assert_str_eq(e.msg, "wire: a payload of 67108865 bytes, over the limit of 67108864");
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(test_wire_fds_other_than_announced_refused_and_closed)
{
	struct forged_header h = {.type = 1, .len = 0, .nfds = 0};
	struct cs_err e;
	struct wire_msg m;
	int sv[2], fds[6], before;

	memcpy(h.magic, WIRE_MAGIC, 4);
	pair(sv);
	for (int i = 0; i < 6; i++)
		fds[i] = dup(0);
	before = open_fds();
	/* two fds, none announced */
	send_with_fds(sv[0], &h, sizeof(h), fds, 2);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), -1);
	ck_assert_str_eq(e.msg, "wire: 2 file descriptors arrived, 0 announced");
	ck_assert_int_eq(open_fds(), before);
	/* six fds, four announced: more than a frame may carry */
	h.nfds = WIRE_MAX_FDS;
	send_with_fds(sv[0], &h, sizeof(h), fds, 6);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), -1);
	ck_assert_str_eq(e.msg, "wire: more than 4 file descriptors sent with a frame");
	ck_assert_int_eq(open_fds(), before);
	/* two announced, none sent */
	h.nfds = 2;
	write_all(sv[0], &h, sizeof(h));
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), -1);
	ck_assert_str_eq(e.msg, "wire: 0 file descriptors arrived, 2 announced");
	h.nfds = 9;
	write_all(sv[0], &h, sizeof(h));
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), -1);
	ck_assert_str_eq(e.msg, "wire: 9 file descriptors announced, at most 4");
	ck_assert_int_eq(wire_send(sv[0], 1, NULL, 0, fds, 5, &e), -1);
	ck_assert_str_eq(e.msg, "wire: 5 file descriptors to send, at most 4");
	for (int i = 0; i < 6; i++)
		close(fds[i]);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(test_wire_msg_free_closes_only_fds_not_taken)
{
	struct cs_err e;
	struct wire_msg m;
	int sv[2], fds[2] = {0, 0}, kept, dropped;

	pair(sv);
	ck_assert_int_eq(wire_send(sv[0], 1, NULL, 0, fds, 2, &e), 0);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), 1);
	kept = m.fds[0];
	dropped = m.fds[1];
	m.fds[0] = -1;
	wire_msg_free(&m);
	ck_assert(fd_is_open(kept));
	ck_assert(!fd_is_open(dropped));
	close(kept);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* The default action of SIGPIPE would kill this test's process. */
START_TEST(test_wire_send_to_a_closed_peer_is_epipe_not_a_signal)
{
	struct cs_err e;
	int sv[2];

	signal(SIGPIPE, SIG_DFL);
	pair(sv);
	close(sv[1]);
	ck_assert_int_eq(wire_send(sv[0], 1, "x", 1, NULL, 0, &e), -1);
	ck_assert_str_eq(e.msg, "wire: send: Broken pipe");
	close(sv[0]);
}
END_TEST

START_TEST(test_wirebuf_every_kind_round_trips)
{
	struct wbuf w = WBUF_INIT;
	struct rbuf r;
	unsigned char raw[3];
	char *s;

	wb_u32(&w, 0xdeadbeef);
	wb_u64(&w, UINT64_MAX - 1);
	wb_i64(&w, INT64_MIN);
	wb_f64(&w, -0.0);
	wb_f64(&w, 0.1);
	wb_bytes(&w, "\0\1\2", 3);
	wb_str(&w, "text");
	wb_str(&w, "");
	wb_str(&w, NULL);
	r = rb_init(w.p, w.len);
	ck_assert_uint_eq(rb_u32(&r), 0xdeadbeef);
	ck_assert_uint_eq(rb_u64(&r), UINT64_MAX - 1);
	ck_assert(rb_i64(&r) == INT64_MIN);
	ck_assert(signbit(rb_f64(&r)));
	ck_assert(rb_f64(&r) == 0.1);
	ck_assert(rb_bytes(&r, raw, 3));
	ck_assert(memcmp(raw, "\0\1\2", 3) == 0);
	s = rb_str(&r);
	ck_assert_str_eq(s, "text");
	free(s);
	s = rb_str(&r);
	ck_assert_str_eq(s, "");
	free(s);
	ck_assert_ptr_null(rb_str(&r));
	ck_assert(!r.bad);
	ck_assert_uint_eq(r.left, 0);
	wb_free(&w);
}
END_TEST

START_TEST(test_wirebuf_reads_past_the_end_are_bad_and_stay_bad)
{
	struct wbuf w = WBUF_INIT;
	struct rbuf r;
	unsigned char raw[4] = {9, 9, 9, 9};

	wb_u32(&w, 5);
	wb_u32(&w, 6);
	r = rb_init(w.p, 6);
	ck_assert_uint_eq(rb_u32(&r), 5);
	ck_assert_uint_eq(rb_u64(&r), 0);
	ck_assert(r.bad);
	ck_assert_uint_eq(r.left, 0);
	ck_assert(!rb_bytes(&r, raw, 4));
	ck_assert(raw[0] == 0 && raw[3] == 0);
	ck_assert_uint_eq(rb_u32(&r), 0);
	ck_assert_ptr_null(rb_str(&r));
	wb_free(&w);
}
END_TEST

/* A string's length larger than the rest is a truncation (nothing allocated); a NUL inside
 * is malformed and leaves left alone. */
START_TEST(test_wirebuf_strings_checked)
{
	struct wbuf w = WBUF_INIT;
	struct rbuf r;

	wb_u64(&w, UINT64_MAX - 1);
	r = rb_init(w.p, w.len);
	ck_assert_ptr_null(rb_str(&r));
	ck_assert(r.bad);
	ck_assert_uint_eq(r.left, 0);
	wb_free(&w);
	wb_u64(&w, 3);
	wb_bytes(&w, "a\0b", 3);
	r = rb_init(w.p, w.len);
	ck_assert_ptr_null(rb_str(&r));
	ck_assert(r.bad);
	ck_assert_uint_eq(r.left, 3);
	wb_free(&w);
}
END_TEST

static void set_arg(struct kernel_arg *a, enum arg_kind kind, const char *name, enum scalar sc,
                    unsigned width, size_t count, int line)
{
	a->kind = kind;
	a->name = xstrdup(name);
	a->type = (struct cs_type){sc, width};
	a->count = count;
	a->bytes = count * type_size(a->type);
	a->line = line;
}

/* Every field set to something other than its zero, host-side fields included. */
static struct job_plan *make_plan(void)
{
	struct job_plan *jp = xcalloc(1, sizeof(*jp));
	struct kernel_plan *kp = &jp->kp;

	kp->label = xstrdup("scale.exe.xml");
	kp->source = xstrdup("__kernel void k(__global float4 *x) { x[0] *= 2; }\n");
	kp->source_name = xstrdup("<inline in scale.xml>");
	kp->fm_file = xstrdup("flowmodels/scale.xml");
	kp->source_line = 12;
	kp->kernel_line = 4;
	kp->worksize_line = 5;
	kp->args_line = 6;
	kp->kernel = xstrdup("k");
	kp->build_options = xstrdup("-cl-fast-relaxed-math");
	kp->dims = 2;
	kp->global[0] = 256, kp->global[1] = 128, kp->global[2] = 1;
	kp->local[0] = 16, kp->local[1] = 8, kp->local[2] = 1;
	kp->has_local = true;
	kp->nargs = 5;
	kp->args = xcalloc(kp->nargs, sizeof(*kp->args));
	set_arg(&kp->args[0], ARG_INPUT, "x", SC_FLOAT, 4, 1000, 7);
	kp->args[0].count_expr = xstrdup("N/4");
	kp->args[0].host = xmalloc(kp->args[0].bytes);
	kp->args[0].host_shared = true;
	set_arg(&kp->args[1], ARG_OUTPUT, "y", SC_DOUBLE, 1, 250, 8);
	/* an image of 25 x 10 x 3 pixels: CL_R (0x10B0), CL_FLOAT (0x10DE) */
	kp->args[1].image_dims = 3;
	kp->args[1].image_order = 0x10B0;
	kp->args[1].image_type = 0x10DE;
	kp->args[1].width = 25;
	kp->args[1].height = 10;
	kp->args[1].depth = 3;
	set_arg(&kp->args[2], ARG_CONSTANT, "a", SC_INT, 2, 1, 9);
	memcpy(kp->args[2].value, "\x01\x00\x00\x00\xfe\xff\xff\xff", 8);
	kp->args[2].is_sampler = true; /* normalized, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR */
	kp->args[2].sampler_normalized = true;
	kp->args[2].sampler_address = 0x1133;
	kp->args[2].sampler_filter = 0x1141;
	set_arg(&kp->args[3], ARG_LOCAL, "tmp", SC_UCHAR, 16, 64, 10);
	kp->args[3].count_expr = xstrdup("64");
	/* a stream of struct Node { int starting; int no_of_edges; }: 8 bytes a record */
	set_arg(&kp->args[4], ARG_INOUT, "nodes", SC_UCHAR, 8, 3, 11);
	kp->args[4].record = xcalloc(1, sizeof(*kp->args[4].record));
	record_init(kp->args[4].record, "Node");
	record_add(kp->args[4].record, "starting", (struct cs_type){SC_INT, 1}, 1);
	record_add(kp->args[4].record, "no_of_edges", (struct cs_type){SC_INT, 1}, 1);
	record_finish(kp->args[4].record);
	kp->swap_count = 9;
	kp->swap_method = SWAP_COPY_HOST;
	kp->npairs = 1;
	kp->pairs = xcalloc(1, sizeof(*kp->pairs));
	kp->pairs[0] = (struct swap_pair_idx){1, 0};
	kp->device_exe = xstrdup("gpu");
	kp->device_fm = xstrdup("cpu");
	jp->binds = xcalloc(kp->nargs, sizeof(*jp->binds));
	jp->binds[0] = (struct stream_bind){.how = BIND_BUFFER,
	                                    .buffer = xstrdup("xs"),
	                                    .shm = xstrdup("/carsh-123-xs"),
	                                    .host_owned = true};
	jp->binds[1] = (struct stream_bind){
	        .how = BIND_FILE, .path = xstrdup("-"), .columns = 5, .columns_given = true};
	jp->binds[2].how = BIND_DISCARD;
	jp->binds[3].how = BIND_FILL;
	memset(jp->binds[3].fill, 0xab, 16);
	jp->in = stdin;
	jp->out = stdout;
	return jp;
}

static void encode(const struct job_plan *jp, struct wbuf *w)
{
	*w = (struct wbuf)WBUF_INIT;
	planwire_encode(jp, w);
}

static void compare_arg(const struct kernel_arg *a, const struct kernel_arg *b)
{
	ck_assert_int_eq(a->kind, b->kind);
	ck_assert_pstr_eq(a->name, b->name);
	ck_assert_int_eq(a->type.scalar, b->type.scalar);
	ck_assert_uint_eq(a->type.width, b->type.width);
	ck_assert_uint_eq(a->count, b->count);
	ck_assert_uint_eq(a->bytes, b->bytes);
	ck_assert(memcmp(a->value, b->value, sizeof(a->value)) == 0);
	ck_assert_int_eq(a->line, b->line);
	ck_assert_pstr_eq(a->count_expr, b->count_expr);
	ck_assert_int_eq(a->record != NULL, b->record != NULL);
	if (a->record) {
		ck_assert_str_eq(a->record->name, b->record->name);
		ck_assert_uint_eq(a->record->size, b->record->size);
		ck_assert_uint_eq(a->record->align, b->record->align);
		ck_assert_uint_eq(a->record->nfields, b->record->nfields);
		for (size_t i = 0; i < a->record->nfields; i++) {
			const struct rec_field *f = &a->record->fields[i],
			                       *g = &b->record->fields[i];

			ck_assert_str_eq(f->name, g->name);
			ck_assert_int_eq(f->type.scalar, g->type.scalar);
			ck_assert_uint_eq(f->type.width, g->type.width);
			ck_assert_uint_eq(f->count, g->count);
			ck_assert_uint_eq(f->offset, g->offset);
		}
	}
	ck_assert_uint_eq(a->image_dims, b->image_dims);
	ck_assert_uint_eq(a->image_order, b->image_order);
	ck_assert_uint_eq(a->image_type, b->image_type);
	ck_assert_uint_eq(a->width, b->width);
	ck_assert_uint_eq(a->height, b->height);
	ck_assert_uint_eq(a->depth, b->depth);
	ck_assert_int_eq(a->is_sampler, b->is_sampler);
	ck_assert_int_eq(a->sampler_normalized, b->sampler_normalized);
	ck_assert_uint_eq(a->sampler_address, b->sampler_address);
	ck_assert_uint_eq(a->sampler_filter, b->sampler_filter);
	ck_assert_ptr_null(b->host);
	ck_assert(!b->host_shared);
}

static void compare_bind(const struct stream_bind *a, const struct stream_bind *b)
{
	ck_assert_int_eq(a->how, b->how);
	ck_assert_pstr_eq(a->path, b->path);
	ck_assert_uint_eq(a->columns, b->columns);
	ck_assert_int_eq(a->columns_given, b->columns_given);
	ck_assert_pstr_eq(a->buffer, b->buffer);
	ck_assert_pstr_eq(a->shm, b->shm);
	ck_assert(memcmp(a->fill, b->fill, sizeof(a->fill)) == 0);
	ck_assert(!b->host_owned && !b->host_mapped);
}

/* b is a's decoding: everything a worker needs equal, nothing of the host's side. */
static void compare_plans(const struct job_plan *a, const struct job_plan *b)
{
	const struct kernel_plan *p = &a->kp, *q = &b->kp;

	ck_assert_pstr_eq(p->label, q->label);
	ck_assert_pstr_eq(p->source, q->source);
	ck_assert(!q->source_kept);
	ck_assert_pstr_eq(p->source_name, q->source_name);
	ck_assert_pstr_eq(p->fm_file, q->fm_file);
	ck_assert_int_eq(p->source_line, q->source_line);
	ck_assert_int_eq(p->kernel_line, q->kernel_line);
	ck_assert_int_eq(p->worksize_line, q->worksize_line);
	ck_assert_int_eq(p->args_line, q->args_line);
	ck_assert_pstr_eq(p->kernel, q->kernel);
	ck_assert_pstr_eq(p->build_options, q->build_options);
	ck_assert_uint_eq(p->dims, q->dims);
	ck_assert(memcmp(p->global, q->global, sizeof(p->global)) == 0);
	ck_assert(memcmp(p->local, q->local, sizeof(p->local)) == 0);
	ck_assert_int_eq(p->has_local, q->has_local);
	ck_assert_uint_eq(p->nargs, q->nargs);
	for (size_t i = 0; i < p->nargs; i++)
		compare_arg(&p->args[i], &q->args[i]);
	ck_assert_int_eq(p->swap_count, q->swap_count);
	ck_assert_int_eq(p->swap_method, q->swap_method);
	ck_assert_uint_eq(p->npairs, q->npairs);
	for (size_t i = 0; i < p->npairs; i++) {
		ck_assert_uint_eq(p->pairs[i].input, q->pairs[i].input);
		ck_assert_uint_eq(p->pairs[i].output, q->pairs[i].output);
	}
	ck_assert_pstr_eq(p->device_exe, q->device_exe);
	ck_assert_pstr_eq(p->device_cli, q->device_cli);
	ck_assert_pstr_eq(p->device_fm, q->device_fm);
	ck_assert_int_eq(a->binds != NULL, b->binds != NULL);
	for (size_t i = 0; a->binds && i < p->nargs; i++)
		compare_bind(&a->binds[i], &b->binds[i]);
	ck_assert_ptr_null(b->in);
	ck_assert_ptr_null(b->out);
}

START_TEST(test_planwire_plan_round_trips_field_by_field)
{
	struct job_plan *jp = make_plan(), *back;
	struct wbuf w;
	struct cs_err e;

	encode(jp, &w);
	ck_assert_int_eq(planwire_decode(w.p, w.len, &back, &e), 0);
	compare_plans(jp, back);
	job_plan_free(back);
	wb_free(&w);
	/* without binds (a plan that is not a job's) and with no arguments at all */
	free(jp->binds[0].buffer), free(jp->binds[0].shm), free(jp->binds[1].path);
	free(jp->binds);
	jp->binds = NULL;
	free(jp->kp.args[0].host);
	encode(jp, &w);
	ck_assert_int_eq(planwire_decode(w.p, w.len, &back, &e), 0);
	compare_plans(jp, back);
	job_plan_free(back);
	wb_free(&w);
	job_plan_free(jp);
	jp = xcalloc(1, sizeof(*jp));
	jp->kp.dims = 1;
	encode(jp, &w);
	ck_assert_int_eq(planwire_decode(w.p, w.len, &back, &e), 0);
	compare_plans(jp, back);
	job_plan_free(back);
	wb_free(&w);
	job_plan_free(jp);
}
END_TEST

/* A worker's kept plans (exec/planmemo.h): the same bytes give the plan decoded the first
 * time; a plan that differs in one buffer's object, in an argument's value or in its kernel
 * source is decoded afresh, with its own values; 33 other plans push the first out (it is
 * decoded again, to the same values). */
START_TEST(test_planmemo_same_bytes_same_plan_else_decoded)
{
	struct plan_memo *m = planmemo_new();
	struct job_plan *jp = make_plan(), *a, *b, *c;
	struct wbuf w1, w2, w3;
	struct cs_err e;

	encode(jp, &w1);
	ck_assert_int_eq(planmemo_get(m, w1.p, w1.len, false, &a, &e), 0);
	compare_plans(jp, a);
	ck_assert_int_eq(planmemo_get(m, w1.p, w1.len, false, &b, &e), 0);
	ck_assert_ptr_eq(a, b);
	free(jp->binds[0].shm); /* the same length: only the bytes tell */
	jp->binds[0].shm = xstrdup("/carsh-123-xt");
	encode(jp, &w2);
	ck_assert_uint_eq(w1.len, w2.len);
	ck_assert_int_eq(planmemo_get(m, w2.p, w2.len, false, &b, &e), 0);
	ck_assert_ptr_ne(a, b);
	ck_assert_str_eq(b->binds[0].shm, "/carsh-123-xt");
	ck_assert_str_eq(a->binds[0].shm, "/carsh-123-xs");
	jp->kp.args[2].value[0] = 7;
	encode(jp, &w3);
	ck_assert_int_eq(planmemo_get(m, w3.p, w3.len, false, &c, &e), 0);
	ck_assert_ptr_ne(c, b);
	ck_assert_int_eq(c->kp.args[2].value[0], 7);
	ck_assert_int_eq(b->kp.args[2].value[0], 1);
	wb_free(&w3);
	for (int i = 0; i < 33; i++) {
		struct job_plan *o;

		free(jp->kp.source);
		jp->kp.source = xstrdup("__kernel void k(__global float4 *x) { x[0] *= 3; }\n");
		jp->kp.source[40] = (char)('A' + i);
		encode(jp, &w3);
		ck_assert_int_eq(planmemo_get(m, w3.p, w3.len, false, &o, &e), 0);
		ck_assert_int_eq(o->kp.source[40], 'A' + i);
		wb_free(&w3);
	}
	ck_assert_int_eq(planmemo_get(m, w1.p, w1.len, false, &a, &e), 0);
	ck_assert_str_eq(a->binds[0].shm, "/carsh-123-xs");
	ck_assert_int_eq(a->kp.args[2].value[0], 1);
	ck_assert_int_ne(planmemo_get(m, w1.p, w1.len - 1, false, &b, &e), 0);
	wb_free(&w1);
	wb_free(&w2);
	job_plan_free(jp);
	planmemo_free(m);
}
END_TEST

/* What a worker resolved for a kept plan (planmemo_bound): kept with that plan and no other;
 * none for a plan the memo does not hold; gone when the plan is pushed out and decoded again
 * (its slot may hold another plan by then). */
START_TEST(test_planmemo_bound_kept_with_its_plan_only)
{
	struct plan_memo *m = planmemo_new();
	struct job_plan *jp = make_plan(), *a, *b;
	struct rt_dev *fake_dev = (struct rt_dev *)&m;
	struct rt_kernel *fake_kern = (struct rt_kernel *)&jp;
	struct plan_bound *ba, *bb;
	struct wbuf w1, w2;
	struct cs_err e;

	ck_assert_ptr_null(planmemo_bound(m, jp));
	encode(jp, &w1);
	ck_assert_int_eq(planmemo_get(m, w1.p, w1.len, false, &a, &e), 0);
	ba = planmemo_bound(m, a);
	ck_assert_ptr_nonnull(ba);
	ck_assert_ptr_null(ba->dev);
	*ba = (struct plan_bound){fake_dev, fake_kern};
	ck_assert_int_eq(planmemo_get(m, w1.p, w1.len, false, &a, &e), 0);
	ck_assert_ptr_eq(planmemo_bound(m, a), ba);
	ck_assert_ptr_eq(ba->dev, fake_dev);
	ck_assert_ptr_eq(ba->kern, fake_kern);
	jp->kp.args[2].value[0] = 7;
	encode(jp, &w2);
	ck_assert_int_eq(planmemo_get(m, w2.p, w2.len, false, &b, &e), 0);
	bb = planmemo_bound(m, b);
	ck_assert_ptr_nonnull(bb);
	ck_assert_ptr_ne(bb, ba);
	ck_assert_ptr_null(bb->dev);
	wb_free(&w2);
	for (int i = 0; i < 33; i++) {
		struct job_plan *o;

		jp->kp.args[2].value[0] = (char)(10 + i);
		encode(jp, &w2);
		ck_assert_int_eq(planmemo_get(m, w2.p, w2.len, false, &o, &e), 0);
		ck_assert_ptr_null(planmemo_bound(m, o)->dev);
		wb_free(&w2);
	}
	ck_assert_int_eq(planmemo_get(m, w1.p, w1.len, false, &a, &e), 0);
	ck_assert_ptr_null(planmemo_bound(m, a)->dev);
	wb_free(&w1);
	job_plan_free(jp);
	planmemo_free(m);
}
END_TEST

/* A job message of a window whose kernel source goes by reference (struct wire_source):
 * the first message of a token carries the text and the plan decodes with it; the next has
 * only the token and gives the plan kept; another token with the same plan otherwise is
 * another plan with its own source; a token never defined, or defined 64 definitions
 * before, is refused with a message, as is a reference in a message decoded without a memo. */
static int decode_ref(struct plan_memo *m, const struct job_plan *jp, uint64_t addr,
                      const char *text, struct job_plan **back, struct cs_err *e)
{
	struct wire_source src = {workerwire_source_nonce(), addr, text};
	struct wbuf w = WBUF_INIT;
	struct strvec env = STRVEC_INIT;
	struct job_home *homes;
	uint32_t flags;
	char *cwd;
	int rc;

	workerwire_encode_job("/", &env, NULL, WORKER_JOB_WINDOW, jp, &src, &w);
	rc = m ? workerwire_decode_job_memo(w.p, w.len, m, &cwd, &env, &homes, &flags, back, e)
	       : workerwire_decode_job(w.p, w.len, &cwd, &env, &homes, &flags, back, e);
	if (rc == 0) {
		free(cwd);
		free(homes);
		sv_free(&env);
	}
	wb_free(&w);
	return rc;
}

/* A window's plan encoded once (exec/planenc.h): a job message made from the kept part is
 * byte for byte the one encoded whole; the same stamp, token and objects give the kept
 * bytes; another object bound (a swap), another token or another stamp (planned again)
 * gives that plan's own bytes, never the kept ones; a plan without a stamp is encoded each
 * time. */
static bool same_bytes(const struct wbuf *a, const struct wbuf *b)
{
	return a->len == b->len && memcmp(a->p, b->p, a->len) == 0;
}

static void encode_whole(const struct job_plan *jp, const struct wire_source *src, struct wbuf *w)
{
	*w = (struct wbuf){NULL, 0, 0};
	workerwire_encode_plan(jp, src, w);
}

START_TEST(test_planenc_kept_bytes_are_the_plans_own)
{
	struct plan_encs *c = planenc_new();
	struct job_plan *jp = make_plan();
	struct wire_source src = {workerwire_source_nonce(), 0x1000, NULL};
	struct wire_source other = {workerwire_source_nonce(), 0x2000, NULL};
	struct strvec env = STRVEC_INIT;
	struct wbuf want = WBUF_INIT, got = WBUF_INIT, fresh;
	const struct wbuf *k1, *k2;

	jp->stamp = 7;
	workerwire_encode_job("/d", &env, NULL, WORKER_JOB_WINDOW, jp, &src, &want);
	k1 = planenc_get(c, jp, &src);
	workerwire_encode_job_kept("/d", &env, NULL, WORKER_JOB_WINDOW, jp->kp.nargs, &src, k1,
	                           &got);
	ck_assert(same_bytes(&want, &got));
	ck_assert_ptr_eq(planenc_get(c, jp, &src), k1);
	free(jp->binds[0].shm); /* swapped: another object */
	jp->binds[0].shm = xstrdup("/carsh-123-swapped");
	k2 = planenc_get(c, jp, &src);
	encode_whole(jp, &src, &fresh);
	ck_assert(same_bytes(k2, &fresh));
	wb_free(&fresh);
	encode_whole(jp, &other, &fresh);
	ck_assert(same_bytes(planenc_get(c, jp, &other), &fresh));
	ck_assert(!same_bytes(planenc_get(c, jp, &src), &fresh));
	wb_free(&fresh);
	jp->kp.args[2].value[0] = 9; /* planned again: a new stamp */
	jp->stamp = 8;
	encode_whole(jp, &src, &fresh);
	ck_assert(same_bytes(planenc_get(c, jp, &src), &fresh));
	jp->stamp = 0;
	jp->kp.args[2].value[0] = 10;
	wb_free(&fresh);
	encode_whole(jp, NULL, &fresh);
	ck_assert(same_bytes(planenc_get(c, jp, NULL), &fresh));
	wb_free(&fresh);
	wb_free(&want);
	wb_free(&got);
	job_plan_free(jp);
	planenc_free(c);
}
END_TEST

START_TEST(test_planmemo_source_by_reference)
{
	struct plan_memo *m = planmemo_new();
	struct job_plan *jp = make_plan(), *a, *b, *c;
	const char *text_a = "__kernel void k(__global float4 *x) { x[0] *= 5; }\n";
	const char *text_b = "__kernel void k(__global float4 *x) { x[0] *= 6; }\n";
	struct cs_err e;

	ck_assert_int_eq(decode_ref(m, jp, 0x1000, text_a, &a, &e), 0);
	ck_assert_str_eq(a->kp.source, text_a);
	ck_assert_int_eq(decode_ref(m, jp, 0x1000, NULL, &b, &e), 0);
	ck_assert_ptr_eq(a, b);
	ck_assert_int_eq(decode_ref(m, jp, 0x2000, text_b, &c, &e), 0);
	ck_assert_ptr_ne(c, a);
	ck_assert_str_eq(c->kp.source, text_b);
	ck_assert_str_eq(a->kp.source, text_a);
	ck_assert_int_ne(decode_ref(m, jp, 0x3000, NULL, &b, &e), 0);
	ck_assert_str_eq(e.msg, "job message: its kernel source was not sent to this worker");
	for (uint64_t i = 0; i < WORKER_SOURCES_KEPT; i++)
		planmemo_define_source(m, workerwire_source_nonce(), 0x10000 + i, text_b);
	free(jp->binds[0].shm); /* a plan not kept, by the token pushed out */
	jp->binds[0].shm = xstrdup("/carsh-123-xt");
	ck_assert_int_ne(decode_ref(m, jp, 0x1000, NULL, &b, &e), 0);
	ck_assert_int_ne(decode_ref(NULL, jp, 0x1000, text_a, &b, &e), 0);
	ck_assert_str_eq(e.msg, "job message: a kernel source by reference outside a window");
	job_plan_free(jp);
	planmemo_free(m);
}
END_TEST

static int given_back;
static void count_give_back(void *arg, struct job_plan *jp)
{
	ck_assert_ptr_eq(arg, &given_back);
	ck_assert_ptr_null(jp->on_end);
	given_back++;
}

/* A lent plan (exec/jobplan.h) goes back to its keeper, not freed; without a keeper it is
 * freed (the memory checkers see a leak otherwise). */
START_TEST(test_job_plan_free_gives_a_lent_plan_back)
{
	struct job_plan *jp = xcalloc(1, sizeof(*jp));

	jp->give_back = count_give_back;
	jp->give_back_arg = &given_back;
	given_back = 0;
	job_plan_free(jp);
	job_plan_free(jp);
	ck_assert_int_eq(given_back, 2);
	jp->give_back = NULL;
	job_plan_free(jp);
}
END_TEST

START_TEST(test_planwire_every_truncation_refused)
{
	struct job_plan *jp = make_plan(), *back;
	struct wbuf w;
	struct cs_err e;
	encode(jp, &w);
	for (size_t n = 0; n < w.len; n++) {
		back = (struct job_plan *)1;
		ck_assert_int_eq(planwire_decode(w.p, n, &back, &e), -1);
		ck_assert_ptr_null(back);
		ck_assert_str_eq(e.msg, "job plan message: truncated");
	}
	wb_free(&w);
	job_plan_free(jp);
}
END_TEST

/* Encode jp, let patch change the bytes, decode, and return the error ("" on success). */
static const char *decode_patched(struct job_plan *jp, void (*patch)(struct wbuf *))
{
	static struct cs_err e;
	struct job_plan *back;
	struct wbuf w;

	encode(jp, &w);
	patch(&w);
	e.msg[0] = '\0';
	if (planwire_decode(w.p, w.len, &back, &e) == 0)
		job_plan_free(back);
	wb_free(&w);
	return e.msg;
}

/* A count of arguments no message could hold is a truncation, refused before allocating.
 * After the arguments come the binds flag (u32) and the pair count (u64) and pairs. */
static void huge_nargs(struct wbuf *w)
{
	uint64_t n = UINT64_MAX / 4;

	memcpy(w->p + w->len - 8 - 4 - 8, &n, 8);
}

static void nul_in_label(struct wbuf *w)
{
	unsigned char *at = memmem(w->p, w->len, "scale.exe", 9);

	at[2] = '\0';
}

static void trailing_byte(struct wbuf *w)
{
	wb_u32(w, 0);
}

static void other_version(struct wbuf *w)
{
	w->p[0] ^= 0x40;
}

START_TEST(test_planwire_malformed_values_named)
{
	struct job_plan *jp = make_plan();
	struct job_plan *bare = xcalloc(1, sizeof(*bare));

	bare->kp.label = xstrdup("scale.exe.xml");
	bare->kp.dims = 1;
	ck_assert_str_eq(decode_patched(bare, huge_nargs), "job plan message: truncated");
	bare->kp.dims = 4;
	ck_assert_str_eq(decode_patched(bare, trailing_byte),
	                 "job plan message: malformed dimensions");
	bare->kp.dims = 3;
	ck_assert_str_eq(decode_patched(bare, nul_in_label),
	                 "job plan message: malformed string (a NUL byte inside)");
	ck_assert_str_eq(decode_patched(jp, trailing_byte),
	                 "job plan message: malformed end (4 bytes after the plan)");
	ck_assert_str_eq(decode_patched(jp, other_version),
	                 "job plan message: malformed version (of another build)");
	jp->kp.pairs[0].input = 5;
	ck_assert_str_eq(decode_patched(jp, trailing_byte),
	                 "job plan message: malformed swap pair index");
	jp->kp.pairs[0].input = 0;
	jp->kp.args[1].type.width = 3;
	ck_assert_str_eq(decode_patched(jp, trailing_byte),
	                 "job plan message: malformed argument type width");
	jp->kp.args[1].type.width = 1;
	/* a struct stream's width is its record's size; a leaf must lie inside the record */
	jp->kp.args[4].type.width = 16;
	ck_assert_str_eq(decode_patched(jp, trailing_byte),
	                 "job plan message: malformed argument type width");
	jp->kp.args[4].type.width = 8;
	jp->kp.args[4].record->fields[1].offset = 6;
	ck_assert_str_eq(decode_patched(jp, trailing_byte),
	                 "job plan message: malformed record field");
	jp->kp.args[4].record->fields[1].offset = 4;
	jp->kp.swap_method = 7;
	ck_assert_str_eq(decode_patched(jp, trailing_byte),
	                 "job plan message: malformed swap method");
	job_plan_free(jp);
	job_plan_free(bare);
}
END_TEST

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rng_next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Bytes flipped anywhere: refused or decoded, never a crash, an overrun or a leak (the
 * sanitizers' build and valgrind watch the last two). */
START_TEST(test_planwire_flipped_bytes_never_crash)
{
	struct job_plan *jp = make_plan(), *back;
	struct wbuf w, copy = WBUF_INIT;
	struct cs_err e;
	int decoded = 0;

	encode(jp, &w);
	for (int round = 0; round < 3000; round++) {
		copy.len = 0;
		wb_bytes(&copy, w.p, w.len);
		for (uint64_t k = 1 + rng_next() % 4; k > 0; k--)
			copy.p[rng_next() % copy.len] ^= (unsigned char)(1u << (rng_next() % 8));
		if (planwire_decode(copy.p, copy.len, &back, &e) == 0) {
			decoded++;
			job_plan_free(back);
		} else {
			ck_assert_msg(strncmp(e.msg, "job plan message: ", 18) == 0, "%s", e.msg);
		}
	}
	/* Most flips land in values no range check can see (text, numbers, value bytes). */
	ck_assert_int_gt(decoded, 0);
	wb_free(&copy);
	wb_free(&w);
	job_plan_free(jp);
}
END_TEST

Suite *suite_wire(void)
{
	Suite *s = suite_create("wire");
	TCase *tc = tcase_create("frames");
	TCase *tb = tcase_create("wirebuf");
	TCase *tp = tcase_create("planwire");

	tcase_add_test(tc, test_wire_frame_without_fds_round_trips);
	tcase_add_test(tc, test_wire_frames_sent_together_arrive_one_by_one);
	tcase_add_test(tc, test_wire_frames_with_fds_arrive_with_the_first);
	tcase_add_test(tc, test_planmemo_same_bytes_same_plan_else_decoded);
	tcase_add_test(tc, test_planmemo_bound_kept_with_its_plan_only);
	tcase_add_test(tc, test_planmemo_source_by_reference);
	tcase_add_test(tc, test_planenc_kept_bytes_are_the_plans_own);
	tcase_add_test(tc, test_job_plan_free_gives_a_lent_plan_back);
	tcase_add_test(tc, test_wire_recv_ahead_takes_arrived_frames_in_order);
	tcase_add_test(tc, test_wire_recv_ahead_truncated_frame_refused);
	tcase_add_test(tc, test_wire_inbox_frames_get_their_own_fds);
	tcase_add_test(tc, test_wire_inbox_many_writes_with_fds);
	tcase_add_test(tc, test_wire_inbox_refuses_fds_not_as_announced);
	tcase_add_test(tc, test_wire_fds_arrive_as_the_same_files_close_on_exec);
	tcase_add_test(tc, test_wire_large_payload_in_pieces);
	tcase_add_test(tc, test_wire_recv_retries_after_a_signal);
	tcase_add_test(tc, test_wire_peer_closing_mid_payload_is_a_truncated_frame);
	tcase_add_test(tc, test_wire_peer_closing_mid_header_is_a_truncated_frame);
	tcase_add_test(tc, test_wire_garbage_magic_refused);
	tcase_add_test(tc, test_wire_oversize_length_refused_from_the_header);
	tcase_add_test(tc, test_wire_fds_other_than_announced_refused_and_closed);
	tcase_add_test(tc, test_wire_msg_free_closes_only_fds_not_taken);
	tcase_add_test(tc, test_wire_send_to_a_closed_peer_is_epipe_not_a_signal);
	suite_add_tcase(s, tc);
	tcase_add_test(tb, test_wirebuf_every_kind_round_trips);
	tcase_add_test(tb, test_wirebuf_reads_past_the_end_are_bad_and_stay_bad);
	tcase_add_test(tb, test_wirebuf_strings_checked);
	suite_add_tcase(s, tb);
	tcase_add_test(tp, test_planwire_plan_round_trips_field_by_field);
	tcase_add_test(tp, test_planwire_every_truncation_refused);
	tcase_add_test(tp, test_planwire_malformed_values_named);
	tcase_add_test(tp, test_planwire_flipped_bytes_never_crash);
	suite_add_tcase(s, tp);
	return s;
}
