/* carsh: the program. Options, then an XML file, a script, -c, stdin or the prompt. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "carsh.h"
#include "api/api-engine.h"
#include "api/api-served.h"
#include "shell/interactive.h"

static struct carsh_session *the_session;

/* Before `make install` (or with another prefix) there is no page for man to find. */
static const char *manual(void)
{
	if (access(CARSH_MANDIR "/man1/carsh.1", R_OK) == 0)
		return "'man carsh'";
	return "'man -l docs/carsh.1' (in the source tree)";
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carsh [OPTION]... [FILE.xml [NAME=VALUE]... | SCRIPT [NAME=VALUE]...]\n"
	        "       carsh [OPTION]... -c 'COMMAND; COMMAND...'\n"
	        "       carsh [OPTION]... BUILTIN [ARG]...   (e.g. carsh run f.xml x=- y=-)\n"
	        "\n"
	        "A shell for stream computing on OpenCL devices. With no file and no -c it reads\n"
	        "commands from the prompt (or from standard input when that is not a terminal).\n"
	        "FILE.xml is run by its root element: <FlowModel> (streams bound as\n"
	        "STREAM=FILE|-), <CarshExe>, <CarshBat>, <CarshGraph> (a pipeline graph over\n"
	        "a stream of items: GRAPH.xml --items N [NODE.]STREAM=FILE...).\n"
	        "\n"
	        "  -c COMMANDS        run COMMANDS and exit with the last one's status\n"
	        "  -d, --device SEL   OpenCL device: cpu, gpu, accelerator, an INDEX from\n"
	        "                     'devices', or a name substring (default: $CARSH_DEVICE,\n"
	        "                     else the flow-model's choice, else the first GPU, else "
	        "CPU);\n"
	        "                     auto, auto:energy: per job, the device that ends it first\n"
	        "                     or spends least energy (docs/auto.md)\n"
	        "  -h, --help         show this help and exit\n"
	        "  -i                 interactive even when standard input is not a terminal\n"
	        "      --mpi          join an MPI job (automatic under mpirun, srun, mpiexec):\n"
	        "                     every rank runs FILE.xml, rank 0 is the shell\n"
	        "  -T, --threads      the thread executor: one OpenCL runtime in this process,\n"
	        "                     buffers kept on the devices (set exec=thread)\n"
	        "  -V, --version      show the version and exit\n"
	        "\n"
	        "Environment: CARSH_DEVICE (as --device), CARSH_NO_CACHE=1 (no program binary\n"
	        "cache), XDG_CACHE_HOME (cache under $XDG_CACHE_HOME/carsh), CARSH_HISTFILE.\n"
	        "Exit status: that of the last command; 1 failure, 2 usage, 127 not found,\n"
	        "128+N a job killed by signal N. Type 'help' at the prompt for the builtins;\n"
	        "%s for the manual.\n",
	        manual());
}

/* Commands from a pipe, run as complete commands arrive. Standard input is read unbuffered,
 * as POSIX shells read it, so that a job reading '-' gets the lines after its command. */
static int run_stdin(struct carsh_session *s)
{
	char *line = NULL, *text = NULL;
	size_t cap = 0, len = 0;
	ssize_t n;
	int status = 0, first = 1, lineno = 0;

	setvbuf(stdin, NULL, _IONBF, 0);
	while ((n = getline(&line, &cap, stdin)) > 0) {
		lineno++;
		text = realloc(text, len + (size_t)n + 1);
		if (!text) {
			fprintf(stderr, "carsh: out of memory\n");
			exit(1);
		}
		memcpy(text + len, line, (size_t)n + 1);
		len += (size_t)n;
		if (carsh_text_incomplete(text))
			continue;
		status = carsh_run_text(s, text, len, "<stdin>", first);
		len = 0;
		first = lineno + 1;
		if (carsh_exit_requested(s, NULL) || status != 0)
			break;
	}
	if (len && carsh_text_incomplete(text))
		status = carsh_run_text(s, text, len, "<stdin>", first);
	free(line);
	free(text);
	return status;
}

struct options {
	struct carsh_options carsh;
	const char *command;
	bool force_interactive;
};

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
	        {"device", required_argument, NULL, 'd'}, {"help", no_argument, NULL, 'h'},
	        {"mpi", no_argument, NULL, 'M'},          {"threads", no_argument, NULL, 'T'},
	        {"version", no_argument, NULL, 'V'},      {NULL, 0, NULL, 0},
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "+c:d:hiTV", longs, NULL)) != -1) {
		switch (ch) {
		case 'c':
			o->command = optarg;
			break;
		case 'd':
			o->carsh.device = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'i':
			o->force_interactive = true;
			break;
		case 'M':
			o->carsh.mpi = true;
			break;
		case 'T':
			o->carsh.thread_exec = true;
			break;
		case 'V':
			printf("carsh %s\n", carsh_version());
			exit(0);
		default:
			fprintf(stderr, "carsh: try 'carsh --help'\n");
			return -1;
		}
	}
	return 0;
}

/* The program, for its own command line or, in a session worker of the user's server
 * (api/api-served.h), for a client's. */
static int run(int argc, char **argv, bool served)
{
	struct options o;
	int status, end, rank;
	bool exited;

	memset(&o, 0, sizeof(o));
	if (parse_options(argc, argv, &o))
		return 2;
	o.carsh.interactive = !served && !o.command && optind == argc &&
	                      (o.force_interactive || isatty(STDIN_FILENO));
	/* Warm: the server's session worker has its devices open already. */
	if (!served && !o.carsh.interactive &&
	    carsh_served_run(argc, argv, optind, o.command, o.carsh.thread_exec, &status))
		return status;
	the_session = carsh_session_new(&o.carsh);
	if (!the_session)
		return 2;
	if (carsh_ranks(&rank) > 1 && !o.command && optind == argc) {
		fprintf(stderr,
		        "carsh: under MPI with more than one rank give FILE.xml, a script or "
		        "-c: the prompt and standard input are rank 0's alone\n");
		carsh_session_end(the_session);
		/* Rank 0's status is the job's: a launcher stops the ranks still ending when
		 * another exits with a status other than 0, and rank 0 stopped so in
		 * MPI_Finalize printed its SIGTERM notice beside this message. */
		return rank == 0 ? 2 : 0;
	}
	if (o.carsh.interactive) {
		interactive_run(the_session);
		return carsh_session_end(the_session);
	}
	if (o.command)
		status = carsh_run_string(the_session, o.command, NULL, 1);
	else if (optind < argc && carsh_is_command(argv[optind]))
		status = carsh_run_argv(the_session, argc - optind, argv + optind);
	else if (optind < argc)
		status = carsh_run_file(the_session, argv[optind], argc - optind - 1,
		                        argv + optind + 1);
	else
		status = run_stdin(the_session);
	/* `exit N` decides; otherwise the last command does, then a failed background job. */
	exited = carsh_exit_requested(the_session, &status);
	carsh_ranks(&rank);
	end = carsh_session_end(the_session);
	/* Under MPI rank 0's status is the job's (every rank agreed on it): a launcher stops the
	 * ranks still ending when one exits with another status than 0. */
	if (rank != 0)
		return 0;
	return exited || status != 0 ? status : end;
}

/* A descriptor 0-2 closed at start-up would be taken by CarSh's next open: its server socket
 * became the job's standard input or output (a job read from it forever, or wrote a CSV into
 * it and exited 0). Each closed one is taken by /dev/null opened the other way round, so that
 * it stays taken and a job using it still fails as with a closed descriptor: reading
 * standard input or writing standard output gives EBADF ("<stdin>: Bad file descriptor"). */
static void keep_std_fds_taken(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int got;

		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		got = open("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY);
		if (got == -1)
			exit(1); /* no descriptor to report on */
		if (got != fd) {
			/* A lower one was closed too and is taken in a later round. */
			if (dup2(got, fd) == -1)
				exit(1);
			close(got);
		}
	}
}

int main(int argc, char **argv)
{
	keep_std_fds_taken();
	if (argc == 2 && strcmp(argv[1], "--engine-child") == 0)
		carsh_engine_child();
	carsh_engines_apart();
	/* One session after another, while the worker may serve the next (server/served.h). */
	if (argc == 2 && strcmp(argv[1], "--session-worker") == 0) {
		for (;;) {
			if (!carsh_served_worker(&argc, &argv))
				carsh_served_done(1);
			optind = 0; /* getopt_long starts over on the new command line */
			carsh_served_again(run(argc, argv, true));
		}
	}
	return run(argc, argv, false);
}
