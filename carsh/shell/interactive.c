/*
 * The interactive front-end (DESIGN §4): a readline prompt over the public API.
 *
 * Readline is driven through its callback interface from a pselect() loop, so that signals
 * never interrupt readline itself: the SIGINT and SIGWINCH handlers only set flags (and ask
 * a running command to stop), and the loop acts on the flags between characters. SIGINT and
 * SIGWINCH stay blocked outside pselect() while we wait at the prompt, so a signal that
 * arrives just before the wait still wakes it.
 */
#include "shell/interactive.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "carsh.h"

#define PROMPT              "carsh> "
#define CONTINUATION_PROMPT "> "
#define HISTORY_MAX         1000

static volatile sig_atomic_t got_sigint;
static volatile sig_atomic_t got_sigwinch;
/* Set while carsh_run_string runs: then Ctrl-C is for the command, not the prompt. */
static volatile sig_atomic_t command_running;
static struct carsh_session *signal_session;

/* What readline's line callback handed over: the line, or NULL at end of input. */
static char *entered_line;
static bool line_entered;

/* Set while reading the next line of an unfinished command (an open quote or a trailing
 * backslash): such a line does not start a command, which matters for completion. */
static bool continuing;

struct history_file {
	char *path;  /* NULL when there is neither $CARSH_HISTFILE nor $HOME */
	bool failed; /* a write failed and was reported; say it only once */
};

struct frontend {
	struct carsh_session *s;
	struct history_file hist;
	char *text; /* the command being entered, over one or more lines; NULL when none */
	int status; /* of the last command run */
};

enum read_result { READ_LINE, READ_INTERRUPTED, READ_EOF };

/* Out of memory for a line of text: nothing sensible is left to do. */
static void *checked(void *p)
{
	if (!p) {
		fputs("carsh: out of memory\n", stderr);
		exit(EXIT_FAILURE);
	}
	return p;
}

/* a, sep and b in one new string. */
static char *join(const char *a, const char *sep, const char *b)
{
	size_t n = strlen(a) + strlen(sep) + strlen(b) + 1;
	char *s = checked(malloc(n));

	snprintf(s, n, "%s%s%s", a, sep, b);
	return s;
}

static void on_sigint(int sig)
{
	int saved_errno = errno;
	ssize_t ignored;

	(void)sig;
	got_sigint = 1;
	if (command_running) {
		carsh_interrupt(signal_session); /* async-signal-safe by contract */
		/* Like bash, end the line after the terminal's "^C" so that messages about the
		 * stopped job start on their own line; write() is async-signal-safe. */
		ignored = write(STDERR_FILENO, "\n", 1);
		(void)ignored;
	}
	errno = saved_errno;
}

static void on_sigwinch(int sig)
{
	(void)sig;
	got_sigwinch = 1;
}

struct saved_signals {
	struct sigaction sigint, sigwinch, sigquit;
};

static void install_signal_handlers(struct saved_signals *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	/* SA_RESTART so that a Ctrl-C during a command does not make the library's read() or
	 * waitpid() fail with EINTR; pselect() is interrupted all the same. */
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, &old->sigint);
	sa.sa_handler = on_sigwinch;
	sigaction(SIGWINCH, &sa, &old->sigwinch);
	/* Ctrl-\ does not end an interactive shell, as in bash; a foreground job still takes
	 * it (children start with the default dispositions). */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGQUIT, &sa, &old->sigquit);
}

static void restore_signal_handlers(const struct saved_signals *old)
{
	sigaction(SIGINT, &old->sigint, NULL);
	sigaction(SIGWINCH, &old->sigwinch, NULL);
	sigaction(SIGQUIT, &old->sigquit, NULL);
}

static void on_line(char *line)
{
	entered_line = line;
	line_entered = true;
	/* Removed here, or readline would print the prompt again right away. */
	rl_callback_handler_remove();
}

/* 1 when the terminal has input, 0 when a signal came first, -1 on failure. */
static int wait_for_input(const sigset_t *unblocked)
{
	int fd = fileno(rl_instream ? rl_instream : stdin);
	fd_set in;

	FD_ZERO(&in);
	FD_SET(fd, &in);
	if (pselect(fd + 1, &in, NULL, NULL, NULL, unblocked) < 0)
		return errno == EINTR ? 0 : -1;
	return 1;
}

/* Ctrl-C at the prompt: drop what was typed and go to a fresh line, as bash does. */
static void discard_line(void)
{
	rl_free_line_state();
	rl_callback_sigcleanup(); /* leaves a search or a multi-key command half done */
	rl_point = rl_end;        /* "^C" goes after the whole line, not where the cursor was */
	rl_redisplay();
	rl_echo_signal_char(SIGINT);
	rl_replace_line("", 0);
	rl_crlf();
	rl_on_new_line();
	using_history(); /* the next Up starts from the newest entry again */
}

static enum read_result read_line(const char *prompt, char **line)
{
	enum read_result result = READ_LINE;
	sigset_t block, unblocked;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGWINCH);
	sigprocmask(SIG_BLOCK, &block, &unblocked);
	line_entered = false;
	rl_callback_handler_install(prompt, on_line);
	while (!line_entered && result == READ_LINE) {
		int ready;

		if (got_sigwinch) {
			got_sigwinch = 0;
			rl_resize_terminal();
		}
		if (got_sigint) {
			got_sigint = 0;
			discard_line();
			result = READ_INTERRUPTED;
			break;
		}
		ready = wait_for_input(&unblocked);
		if (ready > 0)
			rl_callback_read_char();
		else if (ready < 0)
			result = READ_EOF;
	}
	rl_callback_handler_remove();
	sigprocmask(SIG_SETMASK, &unblocked, NULL);
	if (result == READ_LINE && !entered_line)
		result = READ_EOF;
	*line = entered_line;
	entered_line = NULL;
	return result;
}

/* ---- history ---- */

static void history_open(struct history_file *h)
{
	const char *file = getenv("CARSH_HISTFILE");
	const char *home = getenv("HOME");

	h->failed = false;
	h->path = NULL;
	if (file && *file)
		h->path = checked(strdup(file));
	else if (home && *home)
		h->path = join(home, "/", ".carsh_history");
	using_history();
	stifle_history(HISTORY_MAX);
	/* Timestamp lines ("#1700000000") mark where each entry starts; readline reads a file
	 * that has them with multi-line entries, so that a command of several lines (an open
	 * quote) comes back as one entry. A file without them reads one entry per line. */
	history_comment_char = '#';
	history_write_timestamps = 1;
	if (h->path)
		read_history(h->path); /* a missing or unreadable file just starts empty */
}

static bool is_blank_text(const char *text)
{
	return text[strspn(text, " \t\n")] == '\0';
}

/* Add an entered command (never blank) and save the history at once, so that it survives a killed
 * shell. */
static void history_add(struct history_file *h, const char *text)
{
	int err;

	add_history(text);
	if (!h->path || h->failed)
		return;
	err = write_history(h->path);
	if (err) {
		fprintf(stderr,
		        "carsh: history file %s: %s (set CARSH_HISTFILE to a writable file)\n",
		        h->path, strerror(err));
		h->failed = true;
	}
}

static void history_close(struct history_file *h)
{
	clear_history();
	free(h->path);
	h->path = NULL;
}

/* ---- completion ---- */

/* The word at start is a command name when only blanks separate it from the start of the
 * line or from a ';', '&' before it. */
static bool at_command_start(int start)
{
	int i = start;

	while (i > 0 && (rl_line_buffer[i - 1] == ' ' || rl_line_buffer[i - 1] == '\t'))
		i--;
	if (i == 0)
		return !continuing;
	return strchr(";&", rl_line_buffer[i - 1]) != NULL;
}

/* Builtin names first, then file names (an XML file is a command too). */
static char *command_generator(const char *text, int state)
{
	static size_t next_name;
	static int file_state;
	const char *name;

	if (state == 0) {
		next_name = 0;
		file_state = 0;
	}
	while ((name = carsh_command_name(next_name)) != NULL) {
		next_name++;
		if (strncmp(name, text, strlen(text)) == 0)
			return checked(strdup(name));
	}
	return rl_filename_completion_function(text, file_state++);
}

/* The words offered after a command's first words (help topics, virtbuf's operations and
 * buffer names), for words_generator; NULL when file names fit there. */
static char **offered;
static struct carsh_session *completion_session;

static char *words_generator(const char *text, int state)
{
	static size_t next_word;

	if (state == 0)
		next_word = 0;
	while (offered && offered[next_word]) {
		const char *w = offered[next_word++];

		if (strncmp(w, text, strlen(text)) == 0)
			return checked(strdup(w));
	}
	return NULL;
}

static void offered_free(void)
{
	for (size_t i = 0; offered && offered[i]; i++)
		free(offered[i]);
	free(offered);
	offered = NULL;
}

/* The words of the command that the cursor's word belongs to, before that word: split at
 * blanks (enough for builtin and buffer names, which need no quotes). */
static char **words_before(int start, int *argc)
{
	int from = start;
	char *copy, *save = NULL;
	char **argv = checked(calloc((size_t)start / 2 + 2, sizeof(char *)));

	while (from > 0 && !strchr(";&", rl_line_buffer[from - 1]))
		from--;
	copy = checked(strndup(rl_line_buffer + from, (size_t)(start - from)));
	*argc = 0;
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		argv[(*argc)++] = checked(strdup(w));
	free(copy);
	return argv;
}

static char **complete(const char *text, int start, int end)
{
	char **argv;
	int argc;

	(void)end;
	if (at_command_start(start)) {
		rl_filename_completion_desired = 1;
		return rl_completion_matches(text, command_generator);
	}
	argv = words_before(start, &argc);
	offered_free();
	if (!continuing && completion_session)
		offered = carsh_completion_words(completion_session, argc, argv);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	if (!offered)
		return NULL;              /* readline's own file name completion */
	rl_attempted_completion_over = 1; /* these words, not file names */
	return rl_completion_matches(text, words_generator);
}

/* A character after an odd number of backslashes is escaped (`my\ file`). */
static int char_is_quoted(char *line, int index)
{
	int n = 0;

	while (index - n > 0 && line[index - n - 1] == '\\')
		n++;
	return n % 2;
}

/* The file name a word stands for: backslashes escape outside single quotes. */
static char *dequote_filename(char *text, int quote_char)
{
	char *out = checked(malloc(strlen(text) + 1));
	char *o = out;

	for (const char *p = text; *p; p++) {
		if (*p == '\\' && quote_char != '\'' && p[1])
			p++;
		*o++ = *p;
	}
	*o = '\0';
	return out;
}

static void setup_readline(void)
{
	rl_readline_name = "carsh";
	/* We handle SIGINT and SIGWINCH ourselves (see the top of the file). */
	rl_catch_signals = 0;
	rl_catch_sigwinch = 0;
	rl_change_environment = 0;
	rl_attempted_completion_function = complete;
	rl_basic_word_break_characters = " \t\n\"'<>=;&";
	/* Single quotes first: readline quotes completed names that need it with the first of
	 * these, and '...' is literal in our grammar. */
	rl_completer_quote_characters = "'\"";
	rl_filename_quote_characters = " \t\n\\\"'#;&<>$";
	rl_char_is_quoted_p = char_is_quoted;
	rl_filename_dequoting_function = dequote_filename;
}

/* ---- the loop ---- */

static void text_append(char **text, const char *line)
{
	char *joined;

	if (!*text) {
		*text = checked(strdup(line));
		return;
	}
	joined = join(*text, "\n", line);
	free(*text);
	*text = joined;
}

static void run_text(struct frontend *fe)
{
	got_sigint = 0;
	command_running = 1;
	fe->status = carsh_run_string(fe->s, fe->text, NULL, 1);
	command_running = 0;
	got_sigint = 0; /* that Ctrl-C was for the command, not for the next prompt */
	fflush(stdout);
	free(fe->text);
	fe->text = NULL;
}

/* One prompt: read a line, and run the text once it is a complete command. False at the end
 * of input. */
static bool prompt_once(struct frontend *fe)
{
	enum read_result result;
	char *line;

	continuing = fe->text != NULL;
	if (!continuing)
		carsh_report_jobs(fe->s);
	result = read_line(continuing ? CONTINUATION_PROMPT : PROMPT, &line);
	if (result == READ_INTERRUPTED) {
		free(fe->text);
		fe->text = NULL;
		return true;
	}
	if (result == READ_EOF) {
		putchar('\n');
		if (fe->text)
			run_text(fe); /* says what the unfinished command lacks */
		return false;
	}
	text_append(&fe->text, line);
	free(line);
	if (carsh_text_incomplete(fe->text))
		return true;
	if (is_blank_text(fe->text)) {
		/* An empty line leaves the last status alone, as in other shells. */
		free(fe->text);
		fe->text = NULL;
		return true;
	}
	history_add(&fe->hist, fe->text);
	run_text(fe);
	return true;
}

/* The wait for background jobs before exiting is a command like any other: Ctrl-C stops it
 * (carsh_session_wait). */
static void wait_for_jobs(struct carsh_session *s)
{
	got_sigint = 0;
	command_running = 1;
	carsh_session_wait(s);
	command_running = 0;
}

int interactive_run(struct carsh_session *s)
{
	struct frontend fe = {.s = s};
	struct saved_signals old;
	int status;

	signal_session = s;
	completion_session = s;
	setup_readline();
	history_open(&fe.hist);
	install_signal_handlers(&old);
	while (!carsh_exit_requested(s, &status) && prompt_once(&fe))
		;
	history_close(&fe.hist);
	free(fe.text);
	fflush(stdout);
	wait_for_jobs(s);
	restore_signal_handlers(&old);
	return carsh_exit_requested(s, &status) ? status : fe.status;
}
