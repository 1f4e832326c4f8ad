/* Image streams and samplers through the embedding API (docs/formats.md, "Images"): caller
 * memory and virtual buffers bound to image2d_t arguments, compared with C. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "apitest.h"

#define W 5
#define H 3

/* dst(x, y) = 2 * src(x + 1, y), the right neighbour clamped to the edge by the sampler. */
static const char shift_xml[] =
        "<FlowModel name=\"shift\">"
        "<Program><Source>"
        "__kernel void shift(read_only image2d_t src, write_only image2d_t dst, sampler_t s)"
        "{ int2 p = (int2)(get_global_id(0), get_global_id(1));"
        "  write_imagef(dst, p, 2.0f * read_imagef(src, s, p + (int2)(1, 0))); }"
        "</Source><Kernel name=\"shift\"/></Program>"
        "<WorkSize global=\"5,3\"/>"
        "<Arguments>"
        "<Input name=\"src\" image=\"2d\" width=\"5\" height=\"3\" format=\"float\"/>"
        "<Output name=\"dst\" image=\"2d\" width=\"5\" height=\"3\" format=\"float\"/>"
        "<Sampler name=\"s\" address=\"clamp_to_edge\"/>"
        "</Arguments></FlowModel>";

static void expect_shift(const float *src, const float *dst)
{
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			float want = 2.0f * src[y * W + (x + 1 < W ? x + 1 : W - 1)];

			ck_assert_msg(dst[y * W + x] == want, "dst(%d, %d) = %g, expected %g", x, y,
			              dst[y * W + x], want);
		}
}

START_TEST(test_an_image_on_caller_memory_and_on_a_buffer)
{
	static float src[W * H], dst[W * H];
	carsh_machine *m = NULL;
	carsh_flowmodel *fm = NULL;
	carsh_buffer *b = NULL;
	size_t bytes = 0;

	for (int i = 0; i < W * H; i++)
		src[i] = (float)(i * 3 % 7);
	ck_assert_msg(carsh_machine_open(NULL, &m) == 0, "%s", carsh_machine_last_error(m));
	ck_assert_msg(carsh_flowmodel_from_string(m, shift_xml, "shift.xml", &fm) == 0, "%s",
	              carsh_machine_last_error(m));
	ck_assert_int_eq(carsh_flowmodel_stream_bytes(fm, "src", &bytes), 0);
	ck_assert_uint_eq(bytes, sizeof(src));
	ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "src", src, sizeof(src)), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "dst", dst, sizeof(dst)), 0);
	ck_assert_msg(carsh_flowmodel_fire(fm) == 0, "%s", carsh_flowmodel_last_error(fm));
	expect_shift(src, dst);
	/* The same from a buffer that stays on the device, into one. */
	memset(dst, 0, sizeof(dst));
	ck_assert_int_eq(carsh_buffer_new(m, sizeof(src), &b), 0);
	ck_assert_int_eq(carsh_buffer_write(b, 0, src, sizeof(src)), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_buffer(fm, "src", b), 0);
	carsh_buffer_free(b);
	ck_assert_int_eq(carsh_buffer_new(m, sizeof(dst), &b), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_buffer(fm, "dst", b), 0);
	ck_assert_msg(carsh_flowmodel_fire(fm) == 0, "%s", carsh_flowmodel_last_error(fm));
	ck_assert_int_eq(carsh_buffer_read(b, 0, dst, sizeof(dst)), 0);
	expect_shift(src, dst);
	carsh_buffer_free(b);
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
}
END_TEST

Suite *suite_api_images(void);

Suite *suite_api_images(void)
{
	Suite *s = suite_create("api-images");
	TCase *tc = tcase_create("images");

	tcase_add_test(tc, test_an_image_on_caller_memory_and_on_a_buffer);
	suite_add_tcase(s, tc);
	return s;
}
