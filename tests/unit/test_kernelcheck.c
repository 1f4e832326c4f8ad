/* The spellings drivers give kernel argument types (CL_KERNEL_ARG_TYPE_NAME), read as
 * CarSh's type names (runtime/kernelcheck.h). */
#include <string.h>

#include "runtime/kernelcheck.h"
#include "suites.h"

/* What drivers were seen to report, or could by the OpenCL C grammar, and what it means. */
static const struct {
	const char *reported;
	const char *base;
	unsigned pointers;
} spellings[] = {
        {"float", "float", 0},
        {"int*", "int", 1},
        {"int *", "int", 1},
        {"float4*", "float4", 1},
        {"float4", "float4", 0},
        {"uint*", "uint", 1},
        {"unsigned int*", "uint", 1},
        {"unsigned int", "uint", 0},
        {"unsigned char *", "uchar", 1},
        {"unsigned short", "ushort", 0},
        {"unsigned long*", "ulong", 1},
        {"unsigned", "uint", 0},
        {"signed char", "char", 0},
        {"const float*", "float", 1},
        {"__global const float *", "float", 1},
        {"float* restrict", "float", 1},
        {"volatile __local double *", "double", 1},
        {"float __attribute__((ext_vector_type(4)))*", "float4", 1},
        {"uint __attribute__((ext_vector_type(2)))", "uint2", 0},
        {"myf*", "myf", 1},
        {"struct pair*", "struct pair", 1},
        {"float**", "float", 2},
};

START_TEST(test_arg_type_normalise_reads_driver_spellings)
{
	struct arg_type t;

	arg_type_normalise(spellings[_i].reported, &t);
	ck_assert_msg(strcmp(t.base, spellings[_i].base) == 0 &&
	                      t.pointers == spellings[_i].pointers,
	              "'%s': got '%s' with %u '*', expected '%s' with %u", spellings[_i].reported,
	              t.base, t.pointers, spellings[_i].base, spellings[_i].pointers);
}
END_TEST

START_TEST(test_arg_type_normalise_keeps_a_long_typedef_name_cut)
{
	char name[200];
	struct arg_type t;

	memset(name, 'a', sizeof(name) - 2);
	name[sizeof(name) - 2] = '*';
	name[sizeof(name) - 1] = '\0';
	arg_type_normalise(name, &t);
	ck_assert_uint_eq(t.pointers, 1);
	ck_assert_uint_lt(strlen(t.base), sizeof(t.base));
}
END_TEST

Suite *suite_kernelcheck(void)
{
	Suite *s = suite_create("kernelcheck");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_arg_type_normalise_reads_driver_spellings, 0,
	                    sizeof(spellings) / sizeof(spellings[0]));
	tcase_add_test(tc, test_arg_type_normalise_keeps_a_long_typedef_name_cut);
	suite_add_tcase(s, tc);
	return s;
}
