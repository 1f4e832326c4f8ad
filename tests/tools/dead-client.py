#!/usr/bin/env python3
"""dead-client.py SOCKET: take a worker from the carsh server at SOCKET (SERVER_TAKE, as a
client does), hand a copy of the connection to a `sleep` that outlives this process, and
exit. The server sees a client that died with its connection still open. Prints the pid of
the sleep (the test kills it) and this process's pid (the dead client's)."""
import os
import socket
import struct
import sys

SERVER_TAKE, SERVER_LENT = 101, 102

s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
key = b"dead-client"
s.sendall(b"CSW1" + struct.pack("=III", SERVER_TAKE, len(key), 0) + key)
msg, anc, _, _ = s.recvmsg(16 + 64, socket.CMSG_SPACE(4 * 4))
if struct.unpack("=I", msg[4:8])[0] != SERVER_LENT:
    sys.exit("dead-client: the server lent no worker")
s.set_inheritable(True)
child = os.fork()
if child == 0:
    # Not the caller's output: a $(...) reading it would wait for the sleep to end.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.setsid()
    os.execvp("sleep", ["sleep", "300"])
print(child, os.getpid())
