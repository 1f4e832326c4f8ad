/*
 * The messages between a carsh and its user's server (docs/server.md), as util/wire.h
 * frames on the server's socket. Every request but GIVE gets exactly one answer, in order;
 * ERROR (a text) may answer any of them.
 */
#ifndef CARSH_EXEC_SERVERWIRE_H
#define CARSH_EXEC_SERVERWIRE_H

enum {
	SERVER_TAKE = 101,  /* -> the device key of the plan (text) */
	SERVER_LENT = 102,  /* <- the worker's pid (uint32); fds: its socket, its result area */
	SERVER_GIVE = 103,  /* -> pid (uint32): the job is over, the worker idle again; no answer */
	SERVER_ENDED = 104, /* -> pid (uint32): its socket ended; the server reaps it */
	SERVER_STATUS = 105, /* <- the wait status (uint32) of the worker named by ENDED */
	SERVER_QUERY = 106,  /* -> nothing: how the server is */
	SERVER_INFO = 107,   /* <- text, "name value" lines */
	SERVER_STOP = 108,   /* -> nothing: end the server; answered by INFO, then it ends */
	SERVER_ERROR = 109,  /* <- text: the request was refused */
	/* -> the job environment (text): a session worker for a whole `carsh -T` session */
	SERVER_SESSION = 110,
	/* <- its pid (uint32); fds: its socket. Ended by GIVE (after WORKER_DONE) or ENDED. */
	SERVER_SESSION_LENT = 111,
	/* -> the device key (text) of no plan: a worker lent, as by TAKE (answered by LENT, ended
	 * by GIVE or ENDED), for one WORKER_DEVICES question (docs/auto.md); counted apart */
	SERVER_DEVICES = 112,
	/* -> pid (uint32): a session worker answered its session with WORKER_DONE_AGAIN
	 * (exec/workerwire.h) and waits for another: a spare again; no answer */
	SERVER_GIVE_SESSION = 113,
};

#endif
