/* Device choice (DESIGN §4, rt_device_pick): the strongest given selector decides; the
 * default is the first GPU, else the first CPU, else the first device. Fake device lists:
 * no OpenCL call is made. */
#include <stdio.h>
#include <string.h>

#include "runtime/runtime.h"
#include "suites.h"

static struct rt_devinfo fake(int index, cl_device_type type, const char *name,
                              const char *platform)
{
	struct rt_devinfo d;

	memset(&d, 0, sizeof(d));
	d.index = index;
	d.type = type;
	snprintf(d.name, sizeof(d.name), "%s", name);
	snprintf(d.platform_name, sizeof(d.platform_name), "%s", platform);
	return d;
}

/* 0 cpu, 1 accelerator, 2 gpu (NVIDIA), 3 gpu (Intel) */
static struct rt_devinfo devs[4];
static const size_t ndevs = 4;

static void setup(void)
{
	devs[0] = fake(0, CL_DEVICE_TYPE_CPU, "pthread-skylake", "Portable Computing Language");
	devs[1] = fake(1, CL_DEVICE_TYPE_ACCELERATOR, "Alveo U250", "Xilinx");
	devs[2] = fake(2, CL_DEVICE_TYPE_GPU, "NVIDIA H100", "NVIDIA CUDA");
	devs[3] = fake(3, CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT, "Intel Arc A770",
	               "Intel(R) OpenCL Graphics");
}

/* The index chosen, or -1 with the message in e. */
static long pick(const struct rt_devinfo *d, size_t n, const char *exe, const char *cli,
                 const char *fm, struct cs_err *e)
{
	size_t at = 99;

	err_clear(e);
	if (rt_device_pick(d, n, exe, cli, fm, &at, e) != 0)
		return -1;
	ck_assert_uint_lt(at, n);
	return (long)at;
}

START_TEST(test_default_is_first_gpu)
{
	struct cs_err e;

	ck_assert_int_eq(pick(devs, ndevs, NULL, NULL, NULL, &e), 2);
}
END_TEST

START_TEST(test_default_without_gpu_is_first_cpu)
{
	struct rt_devinfo d[2] = {
	        fake(0, CL_DEVICE_TYPE_ACCELERATOR, "fpga", "X"),
	        fake(1, CL_DEVICE_TYPE_CPU, "cpu", "Y"),
	};
	struct cs_err e;

	ck_assert_int_eq(pick(d, 2, NULL, NULL, NULL, &e), 1);
}
END_TEST

START_TEST(test_default_without_gpu_or_cpu_is_first_device)
{
	struct rt_devinfo d[2] = {
	        fake(0, CL_DEVICE_TYPE_ACCELERATOR, "fpga0", "X"),
	        fake(1, CL_DEVICE_TYPE_CUSTOM, "custom", "Y"),
	};
	struct cs_err e;

	ck_assert_int_eq(pick(d, 2, NULL, NULL, NULL, &e), 0);
}
END_TEST

START_TEST(test_empty_and_any_selectors_mean_default)
{
	struct cs_err e;

	ck_assert_int_eq(pick(devs, ndevs, "", "any", "ANY", &e), 2);
}
END_TEST

START_TEST(test_types_pick_first_of_their_kind)
{
	struct cs_err e;

	ck_assert_int_eq(pick(devs, ndevs, "cpu", NULL, NULL, &e), 0);
	ck_assert_int_eq(pick(devs, ndevs, "gpu", NULL, NULL, &e), 2);
	ck_assert_int_eq(pick(devs, ndevs, "accelerator", NULL, NULL, &e), 1);
	ck_assert_int_eq(pick(devs, ndevs, "GPU", NULL, NULL, &e), 2);
}
END_TEST

START_TEST(test_executable_beats_cli_beats_flowmodel)
{
	struct cs_err e;

	ck_assert_int_eq(pick(devs, ndevs, "cpu", "gpu", "accelerator", &e), 0);
	ck_assert_int_eq(pick(devs, ndevs, NULL, "gpu", "cpu", &e), 2);
	ck_assert_int_eq(pick(devs, ndevs, NULL, NULL, "accelerator", &e), 1);
}
END_TEST

START_TEST(test_any_falls_through_to_weaker_selector)
{
	struct cs_err e;

	ck_assert_int_eq(pick(devs, ndevs, "any", "cpu", "gpu", &e), 0);
	ck_assert_int_eq(pick(devs, ndevs, "any", "", "accelerator", &e), 1);
}
END_TEST

START_TEST(test_index_is_position_in_list)
{
	struct cs_err e;

	ck_assert_int_eq(pick(devs, ndevs, "3", NULL, NULL, &e), 3);
	ck_assert_int_eq(pick(devs, ndevs, NULL, "0", NULL, &e), 0);
	ck_assert_int_eq(pick(devs, ndevs, NULL, NULL, "1", &e), 1);
}
END_TEST

START_TEST(test_name_substring_is_case_insensitive)
{
	struct cs_err e;

	ck_assert_int_eq(pick(devs, ndevs, "h100", NULL, NULL, &e), 2);
	ck_assert_int_eq(pick(devs, ndevs, "ARC", NULL, NULL, &e), 3);
	ck_assert_int_eq(pick(devs, ndevs, NULL, "Skylake", NULL, &e), 0);
}
END_TEST

/* "NAME (PLATFORM)" as `devices` prints it matches too, so the platform can decide. */
START_TEST(test_platform_name_matches)
{
	struct cs_err e;

	ck_assert_int_eq(pick(devs, ndevs, "portable computing", NULL, NULL, &e), 0);
	ck_assert_int_eq(pick(devs, ndevs, "A770 (Intel(R) OpenCL", NULL, NULL, &e), 3);
}
END_TEST

START_TEST(test_index_out_of_range_names_selector_and_origin)
{
	struct cs_err e;

	ck_assert_int_eq(pick(devs, ndevs, "4", NULL, NULL, &e), -1);
	ck_assert_str_eq(e.msg,
	                 "no OpenCL device matches '4' (from <Device select> of the executable); "
	                 "devices: 0 cpu 'pthread-skylake' (Portable Computing Language), "
	                 "1 accelerator 'Alveo U250' (Xilinx), 2 gpu 'NVIDIA H100' (NVIDIA CUDA), "
	                 "3 gpu 'Intel Arc A770' (Intel(R) OpenCL Graphics)");
}
END_TEST

START_TEST(test_absent_type_names_selector_and_origin)
{
	struct rt_devinfo cpu[1] = {fake(0, CL_DEVICE_TYPE_CPU, "pthread-x", "Portable")};
	struct cs_err e;

	ck_assert_int_eq(pick(cpu, 1, NULL, "gpu", NULL, &e), -1);
	ck_assert_str_eq(e.msg, "no OpenCL device matches 'gpu' (from --device/CARSH_DEVICE); "
	                        "devices: 0 cpu 'pthread-x' (Portable)");
	ck_assert_int_eq(pick(cpu, 1, "any", NULL, "accelerator", &e), -1);
	ck_assert_str_eq(e.msg,
	                 "no OpenCL device matches 'accelerator' (from <RuntimeType device> of "
	                 "the flow-model); devices: 0 cpu 'pthread-x' (Portable)");
}
END_TEST

/* A stronger selector that matches nothing is an error, not a reason to try a weaker one. */
START_TEST(test_failed_selector_does_not_fall_through)
{
	struct cs_err e;

	ck_assert_int_eq(pick(devs, ndevs, "radeon", "gpu", NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "'radeon' (from <Device select> of the executable)"));
}
END_TEST

START_TEST(test_empty_list_is_an_error)
{
	struct cs_err e;

	ck_assert_int_eq(pick(devs, 0, NULL, NULL, NULL, &e), -1);
	ck_assert_int_eq(pick(devs, 0, "0", NULL, NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "devices: none"));
}
END_TEST

/* --gpu (partition, pipeline): devs[0] is the CPU the engine splits. */
static long choose_gpu(const char *sel, bool *standin, struct cs_err *e)
{
	const struct rt_devinfo *gpu = &devs[0];

	err_clear(e);
	if (rt_device_choose_gpu(devs, ndevs, &devs[0], sel, &gpu, standin, e) != 0)
		return -2;
	return gpu ? (long)(gpu - devs) : -1;
}

START_TEST(test_gpu_auto_is_first_gpu_else_accelerator)
{
	struct rt_devinfo d[2] = {fake(0, CL_DEVICE_TYPE_CPU, "c", "P"),
	                          fake(1, CL_DEVICE_TYPE_ACCELERATOR, "fpga", "X")};
	const struct rt_devinfo *gpu = NULL;
	struct cs_err e;
	bool standin = true;

	ck_assert_int_eq(choose_gpu(NULL, &standin, &e), 2);
	ck_assert(!standin);
	ck_assert_int_eq(choose_gpu("auto", &standin, &e), 2);
	ck_assert_int_eq(rt_device_choose_gpu(d, 2, &d[0], "auto", &gpu, &standin, &e), 0);
	ck_assert_ptr_eq(gpu, &d[1]);
	ck_assert_int_eq(rt_device_choose_gpu(d, 1, &d[0], "auto", &gpu, &standin, &e), 0);
	ck_assert_ptr_null(gpu);
	ck_assert(!standin);
}
END_TEST

START_TEST(test_gpu_none_cpu_and_selectors)
{
	struct cs_err e;
	bool standin;

	ck_assert_int_eq(choose_gpu("none", &standin, &e), -1);
	ck_assert(!standin);
	ck_assert_int_eq(choose_gpu("cpu", &standin, &e), -1);
	ck_assert(standin);
	ck_assert_int_eq(choose_gpu("a770", &standin, &e), 3);
	ck_assert(!standin);
	ck_assert_int_eq(choose_gpu("1", &standin, &e), 1);
	/* Choosing the CPU the engine splits by a selector means a core stands in. */
	ck_assert_int_eq(choose_gpu("0", &standin, &e), -1);
	ck_assert(standin);
}
END_TEST

/* The selector came from --gpu: the message says so by its prefix, with no other origin. */
START_TEST(test_gpu_selector_absent_names_gpu_option)
{
	struct rt_devinfo cpu[1] = {fake(0, CL_DEVICE_TYPE_CPU, "pthread-x", "Portable")};
	const struct rt_devinfo *gpu;
	struct cs_err e;
	bool standin;

	err_clear(&e);
	ck_assert_int_eq(rt_device_choose_gpu(cpu, 1, &cpu[0], "radeon", &gpu, &standin, &e), -1);
	ck_assert_str_eq(e.msg, "--gpu: no OpenCL device matches 'radeon'; devices: 0 cpu "
	                        "'pthread-x' (Portable)");
}
END_TEST

START_TEST(test_type_names)
{
	ck_assert_str_eq(rt_device_type_name(CL_DEVICE_TYPE_CPU), "cpu");
	ck_assert_str_eq(rt_device_type_name(CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT), "gpu");
	ck_assert_str_eq(rt_device_type_name(CL_DEVICE_TYPE_ACCELERATOR), "accelerator");
	ck_assert_str_eq(rt_device_type_name(CL_DEVICE_TYPE_CUSTOM), "other");
}
END_TEST

/* The narrowing to one vendor (runtime/icdtypes.h) follows the selector that decides the
 * pick, and only a pure type narrows. */
START_TEST(test_type_chosen_is_the_deciding_selectors_type)
{
	ck_assert_uint_eq(rt_device_type_chosen(NULL, "cpu", NULL), CL_DEVICE_TYPE_CPU);
	ck_assert_uint_eq(rt_device_type_chosen(NULL, NULL, "GPU"), CL_DEVICE_TYPE_GPU);
	ck_assert_uint_eq(rt_device_type_chosen("accelerator", "cpu", NULL),
	                  CL_DEVICE_TYPE_ACCELERATOR);
	ck_assert_uint_eq(rt_device_type_chosen("any", "cpu", "gpu"), CL_DEVICE_TYPE_CPU);
	ck_assert_uint_eq(rt_device_type_chosen("auto", "", "gpu"), CL_DEVICE_TYPE_GPU);
	/* An index, a name or no selector at all decide on the whole list. */
	ck_assert_uint_eq(rt_device_type_chosen("0", "cpu", NULL), 0);
	ck_assert_uint_eq(rt_device_type_chosen(NULL, "nvidia", NULL), 0);
	ck_assert_uint_eq(rt_device_type_chosen(NULL, "all", NULL), 0);
	ck_assert_uint_eq(rt_device_type_chosen(NULL, NULL, NULL), 0);
}
END_TEST

Suite *suite_device_pick(void)
{
	Suite *s = suite_create("device_pick");
	TCase *tc = tcase_create("device_pick");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_default_is_first_gpu);
	tcase_add_test(tc, test_default_without_gpu_is_first_cpu);
	tcase_add_test(tc, test_default_without_gpu_or_cpu_is_first_device);
	tcase_add_test(tc, test_empty_and_any_selectors_mean_default);
	tcase_add_test(tc, test_types_pick_first_of_their_kind);
	tcase_add_test(tc, test_executable_beats_cli_beats_flowmodel);
	tcase_add_test(tc, test_any_falls_through_to_weaker_selector);
	tcase_add_test(tc, test_index_is_position_in_list);
	tcase_add_test(tc, test_name_substring_is_case_insensitive);
	tcase_add_test(tc, test_platform_name_matches);
	tcase_add_test(tc, test_index_out_of_range_names_selector_and_origin);
	tcase_add_test(tc, test_absent_type_names_selector_and_origin);
	tcase_add_test(tc, test_failed_selector_does_not_fall_through);
	tcase_add_test(tc, test_empty_list_is_an_error);
	tcase_add_test(tc, test_gpu_auto_is_first_gpu_else_accelerator);
	tcase_add_test(tc, test_gpu_none_cpu_and_selectors);
	tcase_add_test(tc, test_gpu_selector_absent_names_gpu_option);
	tcase_add_test(tc, test_type_names);
	tcase_add_test(tc, test_type_chosen_is_the_deciding_selectors_type);
	suite_add_tcase(s, tc);
	return s;
}
