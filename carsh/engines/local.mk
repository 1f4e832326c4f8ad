# What both engines use: the energy counters (docs/pipeline.md, docs/partition.md) and the
# progress line. `+=` only.
carsh_libcarsh_la_SOURCES += \
	carsh/engines/energy.c carsh/engines/energy.h \
	carsh/engines/progress.c carsh/engines/progress.h
