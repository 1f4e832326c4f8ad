/* The shell grammar (DESIGN §4, model/cmdline.h): words, quotes, ${NAME}, redirections, '&',
 * comments, continuation lines, error messages and incomplete input. */
#include <stdlib.h>
#include <string.h>

#include "model/cmdline.h"
#include "suites.h"

/* The shell variables the tests see; everything else falls through to the environment. */
static const char *test_lookup(void *ctx, const char *name)
{
	static const char *const vars[][2] = {
	        {"N", "4"},         {"EMPTY", ""},
	        {"SPACED", "a  b"}, {"TRICKY", "'\"; ${N} #x >f &"},
	        {"_x1", "under"},
	};

	(void)ctx;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (strcmp(vars[i][0], name) == 0)
			return vars[i][1];
	return NULL;
}

struct parser {
	struct shell_lexer lx;
	struct command cmd;
	struct cs_err e;
};

static void parser_init(struct parser *p, const char *text, const char *file, int first_line)
{
	shell_lexer_init(&p->lx, text, file, first_line);
	p->cmd = (struct command)COMMAND_INIT;
	err_clear(&p->e);
}

static int parser_next(struct parser *p)
{
	command_free(&p->cmd);
	return shell_next(&p->lx, test_lookup, NULL, &p->cmd, &p->e);
}

/* The argv of cmd is exactly the NULL-terminated list want. */
static void check_argv(const struct command *cmd, const char *const *want)
{
	size_t n = 0;

	for (; want[n]; n++) {
		ck_assert_msg(n < cmd->argv.n, "argv has %zu words, expected '%s' at %zu",
		              cmd->argv.n, want[n], n);
		ck_assert_str_eq(cmd->argv.v[n], want[n]);
	}
	ck_assert_uint_eq(cmd->argv.n, n);
	ck_assert_ptr_null(cmd->argv.v[n]);
}

#define ARGV(...) ((const char *const[]){__VA_ARGS__, NULL})

/* The next command of p is a command with argv want. */
#define EXPECT_COMMAND(p, ...)                                   \
	do {                                                     \
		ck_assert_int_eq(parser_next(p), SHELL_COMMAND); \
		check_argv(&(p)->cmd, ARGV(__VA_ARGS__));        \
	} while (0)

#define EXPECT_RESULT(p, result, message)                 \
	do {                                              \
		ck_assert_int_eq(parser_next(p), result); \
		ck_assert_str_eq((p)->e.msg, message);    \
		ck_assert_uint_eq((p)->cmd.argv.n, 0);    \
		ck_assert_ptr_null((p)->cmd.redir_in);    \
		ck_assert_ptr_null((p)->cmd.redir_out);   \
		ck_assert_ptr_null((p)->cmd.origin);      \
	} while (0)

#define EXPECT_ERROR(p, message)      EXPECT_RESULT(p, SHELL_ERROR, message)
#define EXPECT_INCOMPLETE(p, message) EXPECT_RESULT(p, SHELL_INCOMPLETE, message)

#define EXPECT_END(p)                                        \
	do {                                                 \
		ck_assert_int_eq(parser_next(p), SHELL_END); \
		ck_assert_int_eq(parser_next(p), SHELL_END); \
	} while (0)

/* The whole of text is one command with argv want. */
#define EXPECT_ONLY(text, ...)                    \
	do {                                      \
		struct parser p_;                 \
		parser_init(&p_, text, NULL, 1);  \
		EXPECT_COMMAND(&p_, __VA_ARGS__); \
		EXPECT_END(&p_);                  \
	} while (0)

/* The first command of text is an error with this message (no file given). */
#define EXPECT_ONLY_ERROR(text, message)         \
	do {                                     \
		struct parser p_;                \
		parser_init(&p_, text, NULL, 1); \
		EXPECT_ERROR(&p_, message);      \
		EXPECT_END(&p_);                 \
	} while (0)

#define EXPECT_ONLY_INCOMPLETE(text, message)           \
	do {                                            \
		struct parser p_;                       \
		parser_init(&p_, text, NULL, 1);        \
		EXPECT_INCOMPLETE(&p_, message);        \
		EXPECT_END(&p_);                        \
		ck_assert(shell_text_incomplete(text)); \
	} while (0)

static const char unset_msg[] = "${NOPE}: variable not set (set it with 'set NOPE=VALUE')";
static const char bad_dollar_msg[] = "bad '${': write ${NAME} with a NAME of letters, digits "
                                     "and '_' that does not start with a digit";

/* ---- words and separators ---- */

START_TEST(test_blanks_separate_words)
{
	struct parser p;

	parser_init(&p, "  echo  a\tb   c  ", NULL, 1);
	EXPECT_COMMAND(&p, "echo", "a", "b", "c");
	ck_assert(!p.cmd.background);
	ck_assert(!p.cmd.append);
	ck_assert_ptr_null(p.cmd.redir_in);
	ck_assert_ptr_null(p.cmd.redir_out);
	ck_assert_ptr_null(p.cmd.origin);
	EXPECT_END(&p);
	command_free(&p.cmd);
}
END_TEST

START_TEST(test_newline_and_semicolon_end_commands)
{
	struct parser p;

	parser_init(&p, "a 1\nb 2;c 3 ; d\n", NULL, 1);
	EXPECT_COMMAND(&p, "a", "1");
	EXPECT_COMMAND(&p, "b", "2");
	EXPECT_COMMAND(&p, "c", "3");
	EXPECT_COMMAND(&p, "d");
	EXPECT_END(&p);
}
END_TEST

START_TEST(test_empty_commands_are_skipped)
{
	struct parser p;

	parser_init(&p, "\n\n;;  ;\n# a comment\n   # another; with a ';'\na\n;;\n\n", NULL, 1);
	EXPECT_COMMAND(&p, "a");
	EXPECT_END(&p);
}
END_TEST

START_TEST(test_empty_text_has_no_commands)
{
	struct parser p;

	parser_init(&p, "", NULL, 1);
	EXPECT_END(&p);
	parser_init(&p, " \t\n;\n#x\n\\\n", NULL, 1);
	EXPECT_END(&p);
}
END_TEST

START_TEST(test_crlf_line_ends_add_no_characters)
{
	struct parser p;

	parser_init(&p, "a b\r\nc\r\n", NULL, 1);
	EXPECT_COMMAND(&p, "a", "b");
	EXPECT_COMMAND(&p, "c");
	EXPECT_END(&p);
}
END_TEST

/* ---- comments ---- */

START_TEST(test_hash_at_word_start_is_a_comment)
{
	struct parser p;

	parser_init(&p, "a b # c 'd\ne #f;g\nh", NULL, 1);
	EXPECT_COMMAND(&p, "a", "b");
	EXPECT_COMMAND(&p, "e");
	EXPECT_COMMAND(&p, "h");
	EXPECT_END(&p);
}
END_TEST

START_TEST(test_hash_inside_a_word_is_literal)
{
	EXPECT_ONLY("a#b c# ''#d x\\#y \\#z '#q' \"#r\"", "a#b", "c#", "#d", "x#y", "#z", "#q",
	            "#r");
}
END_TEST

START_TEST(test_comment_ignores_backslash_at_line_end)
{
	struct parser p;

	parser_init(&p, "a # comment \\\nb", NULL, 1);
	EXPECT_COMMAND(&p, "a");
	EXPECT_COMMAND(&p, "b");
	EXPECT_END(&p);
}
END_TEST

/* ---- background ---- */

START_TEST(test_ampersand_runs_in_background)
{
	struct parser p;

	parser_init(&p, "job x &\nfg\na&\nb & ; c &;d & # note\ne &;;f&", NULL, 1);
	EXPECT_COMMAND(&p, "job", "x");
	ck_assert(p.cmd.background);
	EXPECT_COMMAND(&p, "fg");
	ck_assert(!p.cmd.background);
	EXPECT_COMMAND(&p, "a");
	ck_assert(p.cmd.background);
	EXPECT_COMMAND(&p, "b");
	ck_assert(p.cmd.background);
	EXPECT_COMMAND(&p, "c");
	ck_assert(p.cmd.background);
	EXPECT_COMMAND(&p, "d");
	ck_assert(p.cmd.background);
	EXPECT_COMMAND(&p, "e");
	ck_assert(p.cmd.background);
	EXPECT_COMMAND(&p, "f");
	ck_assert(p.cmd.background);
	EXPECT_END(&p);
}
END_TEST

START_TEST(test_quoted_ampersand_is_literal)
{
	struct parser p;

	parser_init(&p, "echo '&' \"&\" \\& a'&'b", NULL, 1);
	EXPECT_COMMAND(&p, "echo", "&", "&", "&", "a&b");
	ck_assert(!p.cmd.background);
	EXPECT_END(&p);
}
END_TEST

#define NO_AND_LISTS                                                                          \
	"'&&' is not supported (a non-interactive carsh stops at the first failing command; " \
	"separate commands with ';')"

START_TEST(test_ampersand_separates_commands)
{
	struct parser p;

	parser_init(&p, "a & b\nd &e\nf && g; h & > x; i &'q'\nj", NULL, 1);
	EXPECT_COMMAND(&p, "a");
	ck_assert(p.cmd.background);
	EXPECT_COMMAND(&p, "b");
	ck_assert(!p.cmd.background);
	EXPECT_COMMAND(&p, "d");
	ck_assert(p.cmd.background);
	EXPECT_COMMAND(&p, "e");
	EXPECT_ERROR(&p, NO_AND_LISTS);
	EXPECT_COMMAND(&p, "h");
	ck_assert(p.cmd.background);
	EXPECT_ERROR(&p, "a redirection needs a command");
	EXPECT_COMMAND(&p, "i");
	ck_assert(p.cmd.background);
	EXPECT_COMMAND(&p, "q");
	EXPECT_COMMAND(&p, "j");
	EXPECT_END(&p);
}
END_TEST

START_TEST(test_ampersand_without_command_is_an_error)
{
	struct parser p;

	parser_init(&p, "&\n ; & ;ok", NULL, 1);
	EXPECT_ERROR(&p, "'&' must follow a command");
	EXPECT_ERROR(&p, "'&' must follow a command");
	EXPECT_COMMAND(&p, "ok");
	EXPECT_END(&p);
}
END_TEST

/* ---- quotes and backslashes ---- */

START_TEST(test_single_quotes_are_literal)
{
	EXPECT_ONLY("echo '${N} \\ \\' '$ \" # ; & < > x'", "echo", "${N} \\ \\",
	            "$ \" # ; & < > x");
}
END_TEST

START_TEST(test_single_quotes_keep_newlines)
{
	EXPECT_ONLY("echo 'a\nb'", "echo", "a\nb");
}
END_TEST

START_TEST(test_double_quotes_expand_and_escape_four_characters)
{
	EXPECT_ONLY("echo \"x ${N} \\\" \\\\ \\$ \\${N} \\a \\n 'q' $ # ; & <>\"", "echo",
	            "x 4 \" \\ $ ${N} \\a \\n 'q' $ # ; & <>");
}
END_TEST

START_TEST(test_double_quoted_backslash_newline_is_removed)
{
	EXPECT_ONLY("echo \"a\\\nb\" \"c\nd\"", "echo", "ab", "c\nd");
}
END_TEST

START_TEST(test_backslash_escapes_next_character)
{
	EXPECT_ONLY("a\\ b \\; \\# \\& \\> \\< \\' \\\" \\\\ \\$ \\${N} \\x", "a b", ";", "#", "&",
	            ">", "<", "'", "\"", "\\", "$", "${N}", "x");
}
END_TEST

START_TEST(test_backslash_newline_joins_lines)
{
	struct parser p;

	parser_init(&p, "echo a\\\nb \\\n  c\\\n\nd", NULL, 1);
	EXPECT_COMMAND(&p, "echo", "ab", "c");
	EXPECT_COMMAND(&p, "d");
	EXPECT_END(&p);
}
END_TEST

START_TEST(test_adjacent_parts_join_into_one_word)
{
	EXPECT_ONLY("'a'\"b\"c x'y z'\"${N}\"w${N} \"\"q '' ", "abc", "xy z4w4", "q", "");
}
END_TEST

START_TEST(test_empty_quotes_give_empty_arguments)
{
	EXPECT_ONLY("echo \"\" '' \"${EMPTY}\" x", "echo", "", "", "", "x");
}
END_TEST

START_TEST(test_quoted_operators_are_ordinary_characters)
{
	struct parser p;

	parser_init(&p, "echo '>' \">x\" '<' \"a;b\" 'c\nd' '>>'", NULL, 1);
	EXPECT_COMMAND(&p, "echo", ">", ">x", "<", "a;b", "c\nd", ">>");
	ck_assert_ptr_null(p.cmd.redir_out);
	ck_assert_ptr_null(p.cmd.redir_in);
	EXPECT_END(&p);
}
END_TEST

/* ---- variables ---- */

START_TEST(test_variables_expand_in_and_outside_double_quotes)
{
	EXPECT_ONLY("x=${N} a${N}b \"${N}\" ${_x1}", "x=4", "a4b", "4", "under");
}
END_TEST

START_TEST(test_expansions_are_not_split_or_reparsed)
{
	struct parser p;

	parser_init(&p, "echo ${SPACED} ${TRICKY}", NULL, 1);
	EXPECT_COMMAND(&p, "echo", "a  b", "'\"; ${N} #x >f &");
	ck_assert(!p.cmd.background);
	ck_assert_ptr_null(p.cmd.redir_out);
	EXPECT_END(&p);
}
END_TEST

START_TEST(test_unquoted_empty_expansion_gives_no_argument)
{
	EXPECT_ONLY("echo ${EMPTY} x ${EMPTY}${EMPTY}", "echo", "x");
}
END_TEST

START_TEST(test_only_empty_expansions_is_an_empty_command)
{
	struct parser p;

	parser_init(&p, "${EMPTY}\nnext", NULL, 1);
	EXPECT_COMMAND(&p, "next");
	EXPECT_END(&p);
}
END_TEST

START_TEST(test_variables_fall_back_to_the_environment)
{
	struct parser p;
	struct cs_err e;
	struct command cmd = COMMAND_INIT;

	setenv("CARSH_TEST_PARSE_ENV", "from env", 1);
	setenv("N", "env N", 1);
	/* The shell's variable wins over the environment's. */
	EXPECT_ONLY("${CARSH_TEST_PARSE_ENV} ${N}", "from env", "4");
	/* Without a lookup, only the environment is asked. */
	shell_lexer_init(&p.lx, "x ${N}", NULL, 1);
	ck_assert_int_eq(shell_next(&p.lx, NULL, NULL, &cmd, &e), SHELL_COMMAND);
	check_argv(&cmd, ARGV("x", "env N"));
	command_free(&cmd);
	unsetenv("N");
	unsetenv("CARSH_TEST_PARSE_ENV");
}
END_TEST

START_TEST(test_unset_variable_is_an_error)
{
	EXPECT_ONLY_ERROR("echo ${NOPE}", unset_msg);
	EXPECT_ONLY_ERROR("echo \"a ${NOPE} b\"", unset_msg);
	EXPECT_ONLY_ERROR("echo > ${NOPE}", unset_msg);
}
END_TEST

START_TEST(test_bare_dollar_is_literal)
{
	EXPECT_ONLY("$ $N $$ a$ \"$\" \"$N\" $(x) ${N}$", "$", "$N", "$$", "a$", "$", "$N", "$(x)",
	            "4$");
}
END_TEST

START_TEST(test_malformed_dollar_brace_is_an_error)
{
	EXPECT_ONLY_ERROR("echo ${", bad_dollar_msg);
	EXPECT_ONLY_ERROR("echo ${N", bad_dollar_msg);
	EXPECT_ONLY_ERROR("echo ${N x}", bad_dollar_msg);
	EXPECT_ONLY_ERROR("echo ${}", bad_dollar_msg);
	EXPECT_ONLY_ERROR("echo ${1}", bad_dollar_msg);
	EXPECT_ONLY_ERROR("echo ${A-B}", bad_dollar_msg);
	EXPECT_ONLY_ERROR("echo \"${N\"", bad_dollar_msg);
}
END_TEST

START_TEST(test_single_quoted_variable_is_not_expanded)
{
	EXPECT_ONLY("'${NOPE}' '${'", "${NOPE}", "${");
}
END_TEST

/* ---- redirections ---- */

START_TEST(test_redirections_with_and_without_spaces)
{
	struct parser p;

	parser_init(&p, "run f.xml < in.csv > out.csv\nb <in >>log\nc>x\nd 1 >'a b'", NULL, 1);
	EXPECT_COMMAND(&p, "run", "f.xml");
	ck_assert_str_eq(p.cmd.redir_in, "in.csv");
	ck_assert_str_eq(p.cmd.redir_out, "out.csv");
	ck_assert(!p.cmd.append);
	EXPECT_COMMAND(&p, "b");
	ck_assert_str_eq(p.cmd.redir_in, "in");
	ck_assert_str_eq(p.cmd.redir_out, "log");
	ck_assert(p.cmd.append);
	EXPECT_COMMAND(&p, "c");
	ck_assert_ptr_null(p.cmd.redir_in);
	ck_assert_str_eq(p.cmd.redir_out, "x");
	ck_assert(!p.cmd.append);
	EXPECT_COMMAND(&p, "d", "1");
	ck_assert_str_eq(p.cmd.redir_out, "a b");
	EXPECT_END(&p);
}
END_TEST

/* POSIX would redirect descriptor 2 (or 1); carsh cannot, and says so rather than pass "2"
 * as an argument. Pipes likewise. */
START_TEST(test_descriptor_redirections_and_pipes_are_refused)
{
	EXPECT_ONLY_ERROR("echo a 2>&1", "'2>' is not supported: carsh redirects standard input "
	                                 "('<') and output ('>', '>>') only; its messages go to "
	                                 "standard error");
	EXPECT_ONLY_ERROR("echo a >&2",
	                  "'>&' is not supported: carsh redirects standard output to a file only");
	EXPECT_ONLY_ERROR("echo a || echo b",
	                  "'||' is not supported (a non-interactive carsh stops at the first "
	                  "failing command; separate commands with ';')");
	EXPECT_ONLY_ERROR("seq|head", "'|' is not supported: carsh has no pipes; write to a file "
	                              "(y=out.csv) and read it in the next command, or pipe into "
	                              "carsh from a POSIX shell (seq 8 | carsh run f.xml x=- y=-)");
	EXPECT_ONLY("echo 'a|b' \"2>\"", "echo", "a|b", "2>");
}
END_TEST

START_TEST(test_redirection_may_come_first_and_expand)
{
	struct parser p;

	parser_init(&p, ">${N}.csv echo \"x\"'y' &", NULL, 1);
	EXPECT_COMMAND(&p, "echo", "xy");
	ck_assert_str_eq(p.cmd.redir_out, "4.csv");
	ck_assert(p.cmd.background);
	EXPECT_END(&p);
}
END_TEST

START_TEST(test_redirection_needs_a_file_name)
{
	EXPECT_ONLY_ERROR("a >", "'>' needs a file name");
	EXPECT_ONLY_ERROR("a >>", "'>>' needs a file name");
	EXPECT_ONLY_ERROR("a <", "'<' needs a file name");
	EXPECT_ONLY_ERROR("a > # c", "'>' needs a file name");
	EXPECT_ONLY_ERROR("a > &", "'>' needs a file name");
	EXPECT_ONLY_ERROR("a >> > x", "'>>' needs a file name");
	EXPECT_ONLY_ERROR("a < \"\"", "'<' needs a file name");
	EXPECT_ONLY_ERROR("a > ${EMPTY}", "'>' needs a file name");
	EXPECT_ONLY_ERROR("a >\n", "'>' needs a file name");
}
END_TEST

START_TEST(test_redirection_error_skips_only_its_command)
{
	struct parser p;

	parser_init(&p, "a > ; b\nc <\nd", NULL, 1);
	EXPECT_ERROR(&p, "'>' needs a file name");
	EXPECT_COMMAND(&p, "b");
	EXPECT_ERROR(&p, "'<' needs a file name");
	EXPECT_COMMAND(&p, "d");
	EXPECT_END(&p);
}
END_TEST

START_TEST(test_two_redirections_of_one_stream_are_an_error)
{
	EXPECT_ONLY_ERROR("a > x >> y", "two output redirections ('>' or '>>') in one command");
	EXPECT_ONLY_ERROR("a >x >x", "two output redirections ('>' or '>>') in one command");
	EXPECT_ONLY_ERROR("a <x <y", "two input redirections ('<') in one command");
}
END_TEST

START_TEST(test_redirection_without_command_is_an_error)
{
	EXPECT_ONLY_ERROR("> x", "a redirection needs a command");
	EXPECT_ONLY_ERROR("< x ${EMPTY}", "a redirection needs a command");
}
END_TEST

/* ---- errors: place and recovery ---- */

START_TEST(test_error_skips_to_end_of_its_command)
{
	struct parser p;

	/* The quoted ';' and newline do not end the bad command. */
	parser_init(&p, "a \"x;y\" ${NOPE} 'z\n;' w; b\necho \"${NOPE} \\\" ;\" ';' x\nc", NULL, 1);
	EXPECT_ERROR(&p, unset_msg);
	EXPECT_COMMAND(&p, "b");
	EXPECT_ERROR(&p, unset_msg);
	EXPECT_COMMAND(&p, "c");
	EXPECT_END(&p);
}
END_TEST

START_TEST(test_error_recovery_honours_comments_and_continuations)
{
	struct parser p;

	parser_init(&p, "a && b # it's\nc\nd && e\\\n f\ng", NULL, 1);
	EXPECT_ERROR(&p, NO_AND_LISTS);
	EXPECT_COMMAND(&p, "c");
	EXPECT_ERROR(&p, NO_AND_LISTS);
	EXPECT_COMMAND(&p, "g");
	EXPECT_END(&p);
}
END_TEST

START_TEST(test_errors_name_file_and_line_of_command_start)
{
	struct parser p;

	parser_init(&p, "ok\n\necho \\\n ${NOPE}\nx && y\na >\nb\n", "run.csh", 7);
	EXPECT_COMMAND(&p, "ok");
	ck_assert_str_eq(p.cmd.origin, "run.csh:7");
	ck_assert_int_eq(parser_next(&p), SHELL_ERROR);
	ck_assert_str_eq(p.e.msg,
	                 "run.csh:9: ${NOPE}: variable not set (set it with 'set NOPE=VALUE')");
	ck_assert_int_eq(parser_next(&p), SHELL_ERROR);
	ck_assert_str_eq(p.e.msg,
	                 "run.csh:11: '&&' is not supported (a non-interactive carsh "
	                 "stops at the first failing command; separate commands with ';')");
	ck_assert_int_eq(parser_next(&p), SHELL_ERROR);
	ck_assert_str_eq(p.e.msg, "run.csh:12: '>' needs a file name");
	EXPECT_COMMAND(&p, "b");
	ck_assert_str_eq(p.cmd.origin, "run.csh:13");
	EXPECT_END(&p);
}
END_TEST

START_TEST(test_origins_count_continuation_and_quoted_lines)
{
	struct parser p;

	parser_init(&p, "a\n\nb 'x\ny' \"p\nq\"\nc \\\n d; e\n# c\n\nf \\\n\\\n;g", "s.csh", 10);
	EXPECT_COMMAND(&p, "a");
	ck_assert_str_eq(p.cmd.origin, "s.csh:10");
	EXPECT_COMMAND(&p, "b", "x\ny", "p\nq");
	ck_assert_str_eq(p.cmd.origin, "s.csh:12");
	EXPECT_COMMAND(&p, "c", "d");
	ck_assert_str_eq(p.cmd.origin, "s.csh:15");
	EXPECT_COMMAND(&p, "e");
	ck_assert_str_eq(p.cmd.origin, "s.csh:16");
	EXPECT_COMMAND(&p, "f");
	ck_assert_str_eq(p.cmd.origin, "s.csh:19");
	EXPECT_COMMAND(&p, "g");
	ck_assert_str_eq(p.cmd.origin, "s.csh:21");
	ck_assert_int_eq(p.lx.line, 21);
	EXPECT_END(&p);
}
END_TEST

/* ---- incomplete input ---- */

START_TEST(test_unterminated_quotes_are_incomplete)
{
	EXPECT_ONLY_INCOMPLETE("echo 'abc", "unterminated single quote");
	EXPECT_ONLY_INCOMPLETE("echo \"abc", "unterminated double quote");
	EXPECT_ONLY_INCOMPLETE("echo \"a\\", "unterminated double quote");
	EXPECT_ONLY_INCOMPLETE("echo \"a\\\"", "unterminated double quote");
	EXPECT_ONLY_INCOMPLETE("echo 'a\nb\n", "unterminated single quote");
	EXPECT_ONLY_INCOMPLETE("> '", "unterminated single quote");
}
END_TEST

START_TEST(test_trailing_backslash_is_incomplete)
{
	EXPECT_ONLY_INCOMPLETE("echo abc\\", "'\\' at the end of the input");
	EXPECT_ONLY_INCOMPLETE("\\", "'\\' at the end of the input");
	EXPECT_ONLY_INCOMPLETE("echo a\\\nb\\", "'\\' at the end of the input");
}
END_TEST

START_TEST(test_incomplete_after_complete_commands)
{
	struct parser p;

	parser_init(&p, "a; b\nc 'x\ny", "run.csh", 1);
	EXPECT_COMMAND(&p, "a");
	EXPECT_COMMAND(&p, "b");
	ck_assert_int_eq(parser_next(&p), SHELL_INCOMPLETE);
	ck_assert_str_eq(p.e.msg, "run.csh:2: unterminated single quote");
	EXPECT_END(&p);
	parser_init(&p, "c \\\n \"x\ny", "run.csh", 5);
	ck_assert_int_eq(parser_next(&p), SHELL_INCOMPLETE);
	ck_assert_str_eq(p.e.msg, "run.csh:5: unterminated double quote (opened on line 6)");
	EXPECT_END(&p);
}
END_TEST

START_TEST(test_bad_command_still_being_typed_is_incomplete)
{
	/* The user has not finished typing; the error shows once the quote is closed. */
	EXPECT_ONLY_INCOMPLETE("a && 'b", "unterminated single quote");
	EXPECT_ONLY_INCOMPLETE("echo ${NOPE} \"x", "unterminated double quote");
	EXPECT_ONLY_INCOMPLETE("a && b\\", "'\\' at the end of the input");
}
END_TEST

START_TEST(test_text_incomplete_matches_parser)
{
	ck_assert(shell_text_incomplete("echo 'a"));
	ck_assert(shell_text_incomplete("echo \"a"));
	ck_assert(shell_text_incomplete("echo a\\"));
	ck_assert(shell_text_incomplete("a; b\nc \"d\ne"));
	ck_assert(shell_text_incomplete("echo ${NOPE} 'x"));
	ck_assert(shell_text_incomplete("a & b; echo 'x"));

	ck_assert(!shell_text_incomplete(""));
	ck_assert(!shell_text_incomplete("echo a"));
	ck_assert(!shell_text_incomplete("echo 'a\nb'"));
	ck_assert(!shell_text_incomplete("echo a\\\nb"));
	ck_assert(!shell_text_incomplete("echo a\\\n"));
	ck_assert(!shell_text_incomplete("echo ${NOPE} 'x'"));
	ck_assert(!shell_text_incomplete("echo \"${\""));
	ck_assert(!shell_text_incomplete("a & b"));
	ck_assert(!shell_text_incomplete("echo # it's"));
	ck_assert(!shell_text_incomplete("echo it\\'s"));
	ck_assert(!shell_text_incomplete("echo \"\\\"\""));
}
END_TEST

Suite *suite_parse(void)
{
	Suite *s = suite_create("parse");
	TCase *words = tcase_create("words");
	TCase *vars = tcase_create("variables");
	TCase *redir = tcase_create("redirections");
	TCase *errors = tcase_create("errors");

	tcase_add_test(words, test_blanks_separate_words);
	tcase_add_test(words, test_newline_and_semicolon_end_commands);
	tcase_add_test(words, test_empty_commands_are_skipped);
	tcase_add_test(words, test_empty_text_has_no_commands);
	tcase_add_test(words, test_crlf_line_ends_add_no_characters);
	tcase_add_test(words, test_hash_at_word_start_is_a_comment);
	tcase_add_test(words, test_hash_inside_a_word_is_literal);
	tcase_add_test(words, test_comment_ignores_backslash_at_line_end);
	tcase_add_test(words, test_ampersand_runs_in_background);
	tcase_add_test(words, test_quoted_ampersand_is_literal);
	tcase_add_test(words, test_single_quotes_are_literal);
	tcase_add_test(words, test_single_quotes_keep_newlines);
	tcase_add_test(words, test_double_quotes_expand_and_escape_four_characters);
	tcase_add_test(words, test_double_quoted_backslash_newline_is_removed);
	tcase_add_test(words, test_backslash_escapes_next_character);
	tcase_add_test(words, test_backslash_newline_joins_lines);
	tcase_add_test(words, test_adjacent_parts_join_into_one_word);
	tcase_add_test(words, test_empty_quotes_give_empty_arguments);
	tcase_add_test(words, test_quoted_operators_are_ordinary_characters);
	suite_add_tcase(s, words);

	tcase_add_test(vars, test_variables_expand_in_and_outside_double_quotes);
	tcase_add_test(vars, test_expansions_are_not_split_or_reparsed);
	tcase_add_test(vars, test_unquoted_empty_expansion_gives_no_argument);
	tcase_add_test(vars, test_only_empty_expansions_is_an_empty_command);
	tcase_add_test(vars, test_variables_fall_back_to_the_environment);
	tcase_add_test(vars, test_unset_variable_is_an_error);
	tcase_add_test(vars, test_bare_dollar_is_literal);
	tcase_add_test(vars, test_malformed_dollar_brace_is_an_error);
	tcase_add_test(vars, test_single_quoted_variable_is_not_expanded);
	suite_add_tcase(s, vars);

	tcase_add_test(redir, test_redirections_with_and_without_spaces);
	tcase_add_test(redir, test_descriptor_redirections_and_pipes_are_refused);
	tcase_add_test(redir, test_redirection_may_come_first_and_expand);
	tcase_add_test(redir, test_redirection_needs_a_file_name);
	tcase_add_test(redir, test_redirection_error_skips_only_its_command);
	tcase_add_test(redir, test_two_redirections_of_one_stream_are_an_error);
	tcase_add_test(redir, test_redirection_without_command_is_an_error);
	suite_add_tcase(s, redir);

	tcase_add_test(errors, test_ampersand_separates_commands);
	tcase_add_test(errors, test_ampersand_without_command_is_an_error);
	tcase_add_test(errors, test_error_skips_to_end_of_its_command);
	tcase_add_test(errors, test_error_recovery_honours_comments_and_continuations);
	tcase_add_test(errors, test_errors_name_file_and_line_of_command_start);
	tcase_add_test(errors, test_origins_count_continuation_and_quoted_lines);
	tcase_add_test(errors, test_unterminated_quotes_are_incomplete);
	tcase_add_test(errors, test_trailing_backslash_is_incomplete);
	tcase_add_test(errors, test_incomplete_after_complete_commands);
	tcase_add_test(errors, test_bad_command_still_being_typed_is_incomplete);
	tcase_add_test(errors, test_text_incomplete_matches_parser);
	suite_add_tcase(s, errors);
	return s;
}
