/*
 * Hardening (docs/hardening.md): the XML layer's refusals (DTDs and entities, depth, element
 * and attribute limits), in bounded memory; and one test per crash or hang the fuzz targets
 * found, on the input they found it with (the files are also in tests/fuzz/regress/).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "model/xml.h"
#include "util/alloc.h"
#include "util/strbuf.h"

static struct cs_err err;

/* Parse; 0 when accepted. */
static int load(const char *text, size_t len)
{
	struct xml_doc d;
	int rc;

	err_clear(&err);
	rc = xml_load_memory(text, len, "t.xml", &d, &err);
	if (rc == 0)
		xml_free(&d);
	return rc;
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* 10 levels of 10 references: 10^9 "lol"s, 3 GB if expanded. */
static char *billion_laughs(void)
{
	struct strbuf sb = STRBUF_INIT;

	sb_adds(&sb, "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol0 \"lol\">\n");
	for (int i = 1; i <= 9; i++) {
		sb_addf(&sb, " <!ENTITY lol%d \"", i);
		for (int k = 0; k < 10; k++)
			sb_addf(&sb, "&lol%d;", i - 1);
		sb_adds(&sb, "\">\n");
	}
	sb_adds(&sb, "]>\n<FlowModel name=\"&lol9;\">&lol9;</FlowModel>\n");
	return sb_detach(&sb);
}

START_TEST(test_billion_laughs_is_refused_in_bounded_memory)
{
	char *text = billion_laughs();
	long before = peak_rss_kb();

	ck_assert_int_ne(load(text, strlen(text)), 0);
	ck_assert_str_eq(err.msg, "t.xml:2: document type declarations (DTDs, entities) are not "
	                          "allowed in CarSh files; remove the <!DOCTYPE ...>");
	/* The parser stopped at "<!DOCTYPE": not one entity was declared, let alone expanded. */
	ck_assert_int_lt(peak_rss_kb() - before, 16 * 1024);
	free(text);
}
END_TEST

START_TEST(test_external_entities_are_never_read)
{
	static const char *const docs[] = {
	        "<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><FlowModel name=\"&e;\"/>",
	        "<!DOCTYPE x SYSTEM \"http://127.0.0.1:9/x.dtd\"><FlowModel/>",
	        "<!DOCTYPE x PUBLIC \"-//x//y\" \"file:///etc/passwd\"><FlowModel/>",
	        ("<?xml version=\"1.0\"?>\n\n<!DOCTYPE x [<!ENTITY % p SYSTEM \"/etc/passwd\"> "
	         "%p;]><FlowModel/>"),
	};

	for (size_t i = 0; i < ARRAY_SIZE(docs); i++) {
		ck_assert_int_ne(load(docs[i], strlen(docs[i])), 0);
		ck_assert_msg(strstr(err.msg, "document type declarations (DTDs, entities) are "
		                              "not allowed") != NULL,
		              "%s", err.msg);
	}
	ck_assert_str_eq(err.msg, "t.xml:3: document type declarations (DTDs, entities) are not "
	                          "allowed in CarSh files; remove the <!DOCTYPE ...>");
}
END_TEST

START_TEST(test_undeclared_entity_is_malformed)
{
	static const char doc[] = "<FlowModel name=\"&e;\"/>";

	ck_assert_int_ne(load(doc, strlen(doc)), 0);
	ck_assert_str_eq(err.msg, "t.xml:1: malformed XML: Entity 'e' not defined");
}
END_TEST

static char *nested(int depth)
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; i < depth; i++)
		sb_adds(&sb, "<a>");
	for (int i = 0; i < depth; i++)
		sb_adds(&sb, "</a>");
	return sb_detach(&sb);
}

START_TEST(test_depth_limit)
{
	char *ok = nested(XML_MAX_DEPTH), *deep = nested(XML_MAX_DEPTH + 1);
	char *very = nested(100000);

	ck_assert_msg(load(ok, strlen(ok)) == 0, "%s", err.msg);
	ck_assert_int_ne(load(deep, strlen(deep)), 0);
	ck_assert_str_eq(err.msg, "t.xml:1: elements nested more than 64 deep; refusing to parse "
	                          "further");
	ck_assert_int_ne(load(very, strlen(very)), 0);
	ck_assert_str_eq(err.msg, "t.xml:1: elements nested more than 64 deep; refusing to parse "
	                          "further");
	free(ok);
	free(deep);
	free(very);
}
END_TEST

static char *siblings(long n)
{
	struct strbuf sb = STRBUF_INIT;

	sb_adds(&sb, "<r>\n");
	for (long i = 1; i < n; i++)
		sb_adds(&sb, "<a/>");
	sb_adds(&sb, "</r>");
	return sb_detach(&sb);
}

START_TEST(test_element_limit_keeps_memory_bounded)
{
	char *ok = siblings(XML_MAX_ELEMENTS), *many = siblings(XML_MAX_ELEMENTS + 1);
	char *huge = siblings(3000000); /* 12 MB: 400 MB of libxml2 nodes if it were kept */
	long before;

	ck_assert_msg(load(ok, strlen(ok)) == 0, "%s", err.msg);
	ck_assert_int_ne(load(many, strlen(many)), 0);
	ck_assert_str_eq(err.msg, "t.xml:2: more than 262144 elements; refusing to parse further");
	before = peak_rss_kb();
	ck_assert_int_ne(load(huge, strlen(huge)), 0);
	ck_assert_int_lt(peak_rss_kb() - before, 128 * 1024);
	free(ok);
	free(many);
	free(huge);
}
END_TEST

static char *attributes(int n, const char *before)
{
	struct strbuf sb = STRBUF_INIT;

	sb_adds(&sb, before);
	sb_adds(&sb, "<r\n");
	for (int i = 0; i < n; i++)
		sb_addf(&sb, " a%d=\"x='y'\"", i);
	sb_adds(&sb, "/>");
	return sb_detach(&sb);
}

START_TEST(test_attribute_limit_is_checked_before_parsing)
{
	char *ok = attributes(XML_MAX_ATTRS, "");
	char *many = attributes(XML_MAX_ATTRS + 1, "<!-- a=1 b=2\n -->\n");
	/* 2 MB: libxml2 2.9 would look for duplicates among them for minutes. */
	char *quadratic = attributes(200000, "");

	ck_assert_msg(load(ok, strlen(ok)) == 0, "%s", err.msg);
	ck_assert_int_ne(load(many, strlen(many)), 0);
	ck_assert_str_eq(err.msg, "t.xml:3: an element with more than 256 attributes; refusing to "
	                          "parse it");
	ck_assert_int_ne(load(quadratic, strlen(quadratic)), 0);
	ck_assert_str_eq(err.msg, "t.xml:1: an element with more than 256 attributes; refusing to "
	                          "parse it");
	free(ok);
	free(many);
	free(quadratic);
}
END_TEST

START_TEST(test_equals_signs_in_cdata_comments_and_text_are_not_attributes)
{
	struct strbuf sb = STRBUF_INIT;

	sb_adds(&sb, "<?xml version=\"1.0\"?><?pi a=1?>\n<r a=\"=\">\n<!-- ");
	for (int i = 0; i < 1000; i++)
		sb_adds(&sb, "x=1 '\" ");
	sb_adds(&sb, "-->\n<k><![CDATA[");
	for (int i = 0; i < 1000; i++)
		sb_adds(&sb, "a[i] = b[i] > c ? '\"' : '<';\n");
	sb_adds(&sb, "]]></k>");
	for (int i = 0; i < 1000; i++)
		sb_adds(&sb, "x=y&gt;");
	sb_adds(&sb, "</r>");
	ck_assert_msg(load(sb_str(&sb), sb.len) == 0, "%s", err.msg);
	sb_free(&sb);
}
END_TEST

START_TEST(test_file_size_limit)
{
	size_t len = XML_MAX_BYTES + 1;
	char *big = xmalloc(len);

	memset(big, ' ', len);
	ck_assert_int_ne(load(big, len), 0);
	ck_assert_str_eq(err.msg, "t.xml: larger than 16777216 bytes; refusing to parse it");
	free(big);
}
END_TEST

Suite *suite_xml_safety(void);

Suite *suite_xml_safety(void)
{
	Suite *s = suite_create("xml-safety");
	TCase *tc = tcase_create("xml-safety");

	tcase_add_test(tc, test_billion_laughs_is_refused_in_bounded_memory);
	tcase_add_test(tc, test_external_entities_are_never_read);
	tcase_add_test(tc, test_undeclared_entity_is_malformed);
	tcase_add_test(tc, test_depth_limit);
	tcase_add_test(tc, test_element_limit_keeps_memory_bounded);
	tcase_add_test(tc, test_attribute_limit_is_checked_before_parsing);
	tcase_add_test(tc, test_equals_signs_in_cdata_comments_and_text_are_not_attributes);
	tcase_add_test(tc, test_file_size_limit);
	suite_add_tcase(s, tc);
	return s;
}

Suite *suite_fuzz_regressions(void);

int main(void)
{
	SRunner *sr = srunner_create(suite_xml_safety());
	int failed;

	srunner_add_suite(sr, suite_fuzz_regressions());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
