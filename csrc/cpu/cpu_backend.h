/*
 * cpu_backend.h -- the OpenMP reference backend: host memory, both methods,
 * both precisions.  The GPU backend is checked against it.
 */
#ifndef ASTAROTH_CPU_BACKEND_H
#define ASTAROTH_CPU_BACKEND_H

#include "../backend.h"

extern const ac_backend_ops ac_cpu_backend;

#endif
