# mpi: CarSh across MPI ranks (docs/scale-out.md): the one module that calls MPI (ranks.c),
# the ranks' watchdog, the replica table, the placement of jobs, the buffer moves, a
# pipeline graph across ranks and partition's split over the ranks. `+=` only.
carsh_libcarsh_la_SOURCES += \
	carsh/mpi/ranks.c carsh/mpi/ranks.h \
	carsh/mpi/rankwatch.c carsh/mpi/rankwatch.h \
	carsh/mpi/replicas.c carsh/mpi/replicas.h \
	carsh/mpi/rankforecast.c carsh/mpi/rankforecast.h \
	carsh/mpi/partranks.c carsh/mpi/partranks.h \
	carsh/mpi/bufmoves.c carsh/mpi/bufmoves.h \
	carsh/mpi/placement.c carsh/mpi/placement.h \
	carsh/mpi/graphranks.c carsh/mpi/graphranks.h
