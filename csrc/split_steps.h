/*
 * split_steps.h -- what the host's run loop (csrc/binding/timestep_binding.c,
 * run_steps) asks of a grid split over MPI ranks, and what it hands them.
 *
 * The run loop is one: it finds each dt (timestep.h), draws the forcing,
 * checks for NaN/Inf, a stop file and the time between looks from Python.
 * A split grid's ranks take the same steps when the steps' substeps, with
 * their exchanges of ghost zones, and every decision the ranks must share
 * go through this table, which the extension astaroth._split
 * (csrc/split/split_steps.c, built where an MPI compiler is found) fills.
 */
#ifndef ASTAROTH_SPLIT_STEPS_H
#define ASTAROTH_SPLIT_STEPS_H

#include "backend.h"

/* One simulation's backend, as astaroth._core hands it to astaroth._split
 * (Grid.backend_handle: a capsule of this name). */
#define AC_BACKEND_HANDLE_CAPSULE "astaroth._core.backend_handle"
typedef struct {
    const ac_backend_ops *ops;
    void *self;
    const ac_grid *grid;
    /* ac_shear_advance as astaroth._core compiled it (csrc/shear.c says why
     * one copy) */
    void (*shear_advance)(ac_shear_boundary *b, double shear, int s, double dt);
} ac_backend_handle;

/* The steps of one rank of a split grid (SplitSteps.steps: a capsule of
 * this name). */
#define AC_SPLIT_STEPS_CAPSULE "astaroth._split.steps"
typedef struct {
    void *context;
    /* one RK3 step of length dt without the forcing: each substep exchanges
     * the ghost zones of the set it reads while its inner part runs, then
     * runs the shell; the walls after the third (as ops->step leaves them) */
    ac_status (*step)(void *context, double dt);
    /* where the signal speed reads the fields' neighbours (B from A): its
     * largest value over this rank's subdomain (NaN if not finite), the
     * fields' ghost zones (set 0) exchanged on the way, as a first substep
     * has them */
    ac_status (*signal_speed)(void *context, double *speed);
    /* values[0 .. count) replaced by their maxima over the ranks */
    ac_status (*max_over_ranks)(void *context, double *values, int count);
    /* with shock viscosity: its profile of the fields now, made pass by pass
     * with the exchanges between them (the step after takes it), and its
     * largest zeta over this rank's subdomain (NaN if not finite) */
    ac_status (*max_zeta)(void *context, double *zeta);
} ac_split_steps;

#endif
