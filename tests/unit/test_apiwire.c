/* The server machine's messages (server/apiwire.h): each round trip, every prefix of each
 * refused, bytes after the end and counts past it refused, and the memfd of a stream
 * travelling with its frame. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/apiwire.h"
#include "util/wire.h"
#include "suites.h"

static void sample_req(struct wbuf *w)
{
	apiwire_encode_req(&(struct api_req){.id = 7, .a = "x", .b = "", .c = NULL, .n = 4096}, w);
}

START_TEST(test_api_request_round_trip)
{
	struct wbuf w = WBUF_INIT;
	struct api_req r;
	struct cs_err e;

	sample_req(&w);
	ck_assert_int_eq(apiwire_decode_req(w.p, w.len, &r, &e), 0);
	ck_assert_uint_eq(r.id, 7);
	ck_assert_str_eq(r.a, "x");
	ck_assert_str_eq(r.b, ""); /* a pointer given: not NULL */
	ck_assert_ptr_null(r.c);
	ck_assert_uint_eq(r.n, 4096);
	apiwire_req_free(&r);
	wb_free(&w);
}
END_TEST

START_TEST(test_api_request_truncated_or_garbled_refused)
{
	struct wbuf w = WBUF_INIT;
	struct api_req r;
	struct cs_err e;

	sample_req(&w);
	for (size_t n = 0; n < w.len; n++) {
		ck_assert_int_eq(apiwire_decode_req(w.p, n, &r, &e), -1);
		ck_assert_ptr_null(r.a);
	}
	ck_assert_str_eq(e.msg, "API request message: truncated or garbled");
	wb_u32(&w, 0);
	ck_assert_int_eq(apiwire_decode_req(w.p, w.len, &r, &e), -1);
	wb_free(&w);
}
END_TEST

static void sample_answer(struct wbuf *w)
{
	struct wbuf x = WBUF_INIT;

	apiwire_encode_stats(&(struct apiwire_stats){.fires = 3,
	                                             .launches = 4,
	                                             .fire_ms = 1.5,
	                                             .last_fire_ms = 0.5,
	                                             .build_ms = 20,
	                                             .kernel_ms = 0.25,
	                                             .cache_hit = 1,
	                                             .device = "cpu (PoCL)"},
	                     &x);
	apiwire_encode_answer(-4, "f.xml: stream 'x' is 4096 bytes (1024 float), not 4092", 9, &x,
	                      w);
	wb_free(&x);
}

START_TEST(test_api_answer_and_stats_round_trip)
{
	struct wbuf w = WBUF_INIT;
	struct api_answer a;
	struct apiwire_stats st;
	struct cs_err e;

	sample_answer(&w);
	ck_assert_int_eq(apiwire_decode_answer(w.p, w.len, &a, &e), 0);
	ck_assert_int_eq(a.rc, -4);
	ck_assert_str_eq(a.msg, "f.xml: stream 'x' is 4096 bytes (1024 float), not 4092");
	ck_assert_uint_eq(a.n, 9);
	ck_assert_int_eq(apiwire_decode_stats(a.extra, a.extra_len, &st, &e), 0);
	ck_assert_uint_eq(st.fires, 3);
	ck_assert_uint_eq(st.launches, 4);
	ck_assert(st.fire_ms == 1.5 && st.kernel_ms == 0.25 && st.build_ms == 20);
	ck_assert_uint_eq(st.cache_hit, 1);
	ck_assert_str_eq(st.device, "cpu (PoCL)");
	apiwire_stats_free(&st);
	/* the statistics cut anywhere, or with bytes after them */
	for (size_t n = 0; n < a.extra_len; n++)
		ck_assert_int_eq(apiwire_decode_stats(a.extra, n, &st, &e), -1);
	ck_assert_str_eq(e.msg, "API statistics message: truncated or garbled");
	apiwire_answer_free(&a);
	wb_free(&w);
}
END_TEST

START_TEST(test_api_answer_truncated_or_not_a_code_refused)
{
	struct wbuf w = WBUF_INIT;
	struct api_answer a;
	struct cs_err e;

	apiwire_encode_answer(0, "", 1, NULL, &w);
	for (size_t n = 0; n < w.len; n++) {
		ck_assert_int_eq(apiwire_decode_answer(w.p, n, &a, &e), -1);
		ck_assert_ptr_null(a.msg);
	}
	ck_assert_str_eq(e.msg, "API answer message: truncated or garbled");
	wb_free(&w);
	apiwire_encode_answer(5, "", 0, NULL, &w); /* codes are 0 or negative */
	ck_assert_int_eq(apiwire_decode_answer(w.p, w.len, &a, &e), -1);
	wb_free(&w);
	apiwire_encode_answer(-1000, "", 0, NULL, &w);
	ck_assert_int_eq(apiwire_decode_answer(w.p, w.len, &a, &e), -1);
	wb_free(&w);
}
END_TEST

START_TEST(test_api_open_round_trip_and_truncations)
{
	struct wbuf w = WBUF_INIT, g = WBUF_INIT;
	struct api_open o;
	struct cs_err e;

	apiwire_encode_open(
	        &(struct api_open){.version = "0.1.0", .cwd = "/w", .umask = 022, .device = NULL},
	        &w);
	ck_assert_int_eq(apiwire_decode_open(w.p, w.len, &o, &e), 0);
	ck_assert_str_eq(o.version, "0.1.0");
	ck_assert_str_eq(o.cwd, "/w");
	ck_assert_uint_eq(o.umask, 022);
	ck_assert_ptr_null(o.device);
	apiwire_open_free(&o);
	for (size_t n = 0; n < w.len; n++)
		ck_assert_int_eq(apiwire_decode_open(w.p, n, &o, &e), -1);
	ck_assert_str_eq(e.msg, "API open message: truncated or garbled");
	apiwire_encode_open(&(struct api_open){.version = "0.1.0", .cwd = NULL}, &g); /* no dir */
	ck_assert_int_eq(apiwire_decode_open(g.p, g.len, &o, &e), -1);
	wb_free(&g);
	wb_free(&w);
}
END_TEST

START_TEST(test_api_devices_round_trip_and_bad_counts)
{
	struct apiwire_device d[2] = {
	        {"pthread-cpu", "AMD", "Portable Computing Language", "cpu", 2, 1, 1u << 30,
	         1u << 28},
	        {"gpu0", "NVIDIA", "NVIDIA CUDA", "gpu", 132, 0, 80ull << 30, 20ull << 30}};
	struct wbuf w = WBUF_INIT, g = WBUF_INIT;
	struct apiwire_device *got;
	struct cs_err e;
	size_t n;

	apiwire_encode_devices(d, 2, &w);
	ck_assert_int_eq(apiwire_decode_devices(w.p, w.len, &got, &n, &e), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(got[1].platform, "NVIDIA CUDA");
	ck_assert_uint_eq(got[1].compute_units, 132);
	ck_assert_uint_eq(got[0].selected, 1);
	ck_assert_uint_eq(got[1].global_mem, 80ull << 30);
	apiwire_devices_free(got, n);
	for (size_t k = 0; k < w.len; k++) {
		ck_assert_int_eq(apiwire_decode_devices(w.p, k, &got, &n, &e), -1);
		ck_assert_ptr_null(got);
	}
	ck_assert_str_eq(e.msg, "API devices message: truncated or garbled");
	wb_u32(&g, 0xfffffff0u); /* devices that cannot be there */
	ck_assert_int_eq(apiwire_decode_devices(g.p, g.len, &got, &n, &e), -1);
	wb_free(&g);
	wb_u32(&w, 0);
	ck_assert_int_eq(apiwire_decode_devices(w.p, w.len, &got, &n, &e), -1);
	wb_free(&w);
}
END_TEST

/* A bind as it travels: the request with the stream's memfd, which the other side maps. */
START_TEST(test_api_bind_frame_carries_the_memfd)
{
	struct wbuf w = WBUF_INIT;
	struct wire_msg m;
	struct api_req r;
	struct cs_err e;
	int sv[2], fd = memfd_create("test", MFD_CLOEXEC);
	char *mine, *theirs;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 4096), 0);
	mine = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	sample_req(&w);
	ck_assert_int_eq(wire_send(sv[0], API_BIND_MEMORY, w.p, w.len, &fd, 1, &e), 0);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), 1);
	ck_assert_uint_eq(m.type, API_BIND_MEMORY);
	ck_assert_int_eq(m.nfds, 1);
	ck_assert_int_eq(apiwire_decode_req(m.payload, m.len, &r, &e), 0);
	theirs = mmap(NULL, r.n, PROT_READ | PROT_WRITE, MAP_SHARED, m.fds[0], 0);
	ck_assert(theirs != MAP_FAILED);
	strcpy(mine, "the caller's bytes");
	ck_assert_str_eq(theirs, "the caller's bytes");
	munmap(theirs, r.n);
	munmap(mine, 4096);
	apiwire_req_free(&r);
	wire_msg_free(&m);
	close(fd);
	close(sv[0]);
	close(sv[1]);
	wb_free(&w);
}
END_TEST

Suite *suite_apiwire(void)
{
	Suite *s = suite_create("apiwire");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_api_request_round_trip);
	tcase_add_test(tc, test_api_request_truncated_or_garbled_refused);
	tcase_add_test(tc, test_api_answer_and_stats_round_trip);
	tcase_add_test(tc, test_api_answer_truncated_or_not_a_code_refused);
	tcase_add_test(tc, test_api_open_round_trip_and_truncations);
	tcase_add_test(tc, test_api_devices_round_trip_and_bad_counts);
	tcase_add_test(tc, test_api_bind_frame_carries_the_memfd);
	suite_add_tcase(s, tc);
	return s;
}
