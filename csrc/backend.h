/*
 * backend.h -- the interface every backend implements (csrc/cpu, csrc/cuda).
 *
 * A backend owns the fields of one simulation (padded with ghost zones),
 * advances them by full RK3 steps and offers reductions and copies; the
 * binding (module.c) talks to backends only through this table.
 */
#ifndef ASTAROTH_BACKEND_H
#define ASTAROTH_BACKEND_H

#include "forcing.h"
#include "grid.h"

/* Which set of four arrays: the fields, or the RK3 intermediate w, which
 * holds the right-hand side after `rhs`. */
typedef enum { AC_BUFFER_FIELDS = 0, AC_BUFFER_RHS = 1 } ac_buffer;

/* The arrays a backend keeps for one simulation, each padded like the grid.
 * Substeps read one set and write another (seed Sect. 4.1); each full step
 * ends in home, so views of home stay valid without a copy.  The CPU
 * rotates home -> stage_a -> stage_b -> home; the GPU, short of memory,
 * writes w's arrays in place instead and has no stage_b (cuda_backend.cu,
 * roles()). */
typedef struct {
    void *home[AC_MAX_FIELDS]; /* grid.fields of each are used */
    void *stage_a[AC_MAX_FIELDS];
    void *stage_b[AC_MAX_FIELDS];
    void *w[AC_MAX_FIELDS]; /* RK3 intermediate (2N storage) */
    void *div_u;            /* 19-point method only */
} ac_field_sets;

/* The CPU's field set that RK3 substep s (0, 1, 2) reads; it writes set
 * s + 1 (mod 3). */
static inline void *const *ac_stage_set(const ac_field_sets *sets, int s)
{
    return s == 0 ? sets->home : s == 1 ? sets->stage_a : sets->stage_b;
}

/* A run of CFL steps on the device (run_cfl): its state, and the limits of
 * the CFL step (timestep.h) that do not change during the run, as the
 * binding computed them. */
typedef struct {
    double t, until;   /* the time now (advanced) and where the run ends */
    double cdt_dxmin;  /* cdt dxmin: the advective limit is this over the speed */
    double viscous_dt; /* cdtv / (diffusivity sum 1/dx^2), or +inf */
    double cs;         /* the uniform wave speed added to max |u|; 0 where the reduction gives the signal speed */
    int full_reduction; /* the reduction gives the signal speed itself (timestep.h; its wave speed is not uniform) */
    double dt;         /* out: the length of the last step taken */
    double step_dt;    /* on the device: the step's length the substeps read, NaN once the run has ended */
    long long taken;   /* out: steps taken */
    long long step_limit; /* the most steps to take (the backend sets it from its max_steps) */
    double forcing_f0, forcing_cs; /* the forcing's strength (ac_forcing_batch), 0 unforced */
    int nonfinite;     /* out: a field is not finite: the run stopped before a step (or, run_cfl_members, after its last) */
} ac_cfl_run;

/* The forcing of a run's steps, drawn ahead on the host (forcing.h): step
 * n of the run takes samples[n] scaled for its dt, as the host's draw would
 * for that dt; at most AC_FORCING_SAMPLES_AHEAD (a run's steps are at most
 * that many: the caller asks again for the rest). */
enum { AC_FORCING_SAMPLES_AHEAD = 4096 };
typedef struct {
    const ac_forcing_sample *samples;
    long count;
    double f0, cs;
} ac_forcing_batch;

/* deltay of a shearing box after substep s (0, 1, 2) of a step dt
 * (terms/shear.h's shear_advance), compiled once (csrc/shear.c) so that
 * every backend and the binding round it alike. */
#ifdef __cplusplus
extern "C" {
#endif
void ac_shear_advance(ac_shear_boundary *b, double shear, int s, double dt);
#ifdef __cplusplus
}
#endif

/* Boxes of padded arrays and the message buffers they are copied to or
 * from (copy_boxes; a split grid's exchange, astaroth/halo_messages.py),
 * every table in the backend's memory: box b (boxes[4 b ..]: ni, nj, nk and
 * the offset of its first point in a padded array) of each of the arrays
 * goes to buffers[b], array q's values at q ni nj nk + point, x fastest;
 * largest: the most values of one box, all arrays. */
typedef struct {
    void *const *arrays;
    int array_count;
    const long long *boxes;
    void *const *buffers;
    int box_count;
    long long largest;
} ac_box_copies;

typedef struct ac_backend_ops {
    const char *name;
    ac_status (*create)(const ac_grid *grid, ac_precision precision, ac_method method, void **out);
    void (*destroy)(void *self);
    /* `count` full RK3 steps of length dt; the fields end where they began.
     * profile_current: the caller has changed no field (views included)
     * since its last shock_profile or shock_max, so the first step may take
     * the shock profile that call left rather than compute it again (the
     * backend does so only if nothing of its own wrote the fields since) */
    ac_status (*step)(void *self, double dt, long count, int profile_current);
    /* time derivatives of the current fields (no forcing) into AC_BUFFER_RHS */
    ac_status (*rhs)(void *self);
    /* max |u| over the grid; NaN if any velocity is not finite */
    ac_status (*max_speed)(void *self, double *out);
    /* max of the signal speed of the CFL step (timestep.h) over the grid (NaN
     * if not finite), after filling the ghost zones of the fields whose
     * gradients it reads if fill_ghosts (a decomposed grid has them
     * exchanged instead) */
    ac_status (*max_signal_speed)(void *self, int fill_ghosts, double *out);
    /* index of the first field holding a NaN or Inf, or -1 */
    ac_status (*first_nonfinite_field)(void *self, int *out);
    /* interior of one array to/from a dense host array, x fastest */
    ac_status (*read)(void *self, ac_buffer which, int field, void *dense);
    ac_status (*write)(void *self, int field, const void *dense);
    /* first interior point of one array, in the backend's memory */
    void *(*interior_data)(void *self, ac_buffer which, int field);
    /* fill every scratch array (the other field sets, w, div u) with NaN, so
     * that tests can prove each substep writes every interior point */
    ac_status (*poison_scratch)(void *self);
    /* u += the forcing term of one step (forcing.h), at every interior point */
    ac_status (*add_forcing)(void *self, const ac_forcing_term *term, double dt);
    /* For a grid decomposed over processes (astaroth/parallel.py): substep s
     * (0, 1, 2) of the 55-point method over region r only, reading the set
     * padded_data(s, .) whose ghost zones the caller has filled.  Queued on
     * `stream` (a cudaStream_t; NULL: the grid's own; ignored on the CPU),
     * and returns without waiting for the device. */
    ac_status (*substep_region)(void *self, int s, double dt, const ac_region *r, void *stream);
    /* the padded array of one field of the set substep s reads, in the
     * backend's memory */
    void *(*padded_data)(void *self, int s, int field);
    /* ghost zones of one axis of every field of that set, queued on
     * `stream` (a cudaStream_t; ignored on the CPU): periodic, or where the
     * axis has walls on this grid (boundaries.h) those of its wall faces */
    ac_status (*fill_ghost_axis)(void *self, int s, int axis, void *stream);
    /* the boundary the interior of each row starts on, in bytes (grid.h) */
    int row_align_bytes;
    /* sets of four padded fields the solver holds (fields, stages, w) */
    int field_sets;
    /* up to max_steps CFL steps of the 55-point method toward run->until,
     * the last shortened to land on it, with dt found and used on the
     * device, so that the host does not wait between steps; step n of the
     * call forced by forcing->samples[n] after its third substep (forcing
     * NULL: unforced); NULL where the backend steps from the host only */
    ac_status (*run_cfl)(void *self, ac_cfl_run *run, long max_steps, const ac_forcing_batch *forcing);
    /* the shock viscosity's profile zeta of the fields now (docs/guide/hyperdiffusion.md) into
     * a dense host array; NULL where the backend has no shock viscosity */
    ac_status (*shock_profile)(void *self, void *dense);
    /* run_cfl for `count` grids at once (an Ensemble), each with its own run
     * in runs[i] and forcing in forcings[i] (NULL: unforced): each ends as
     * its own run_cfl would, bit for bit; AC_ERR_UNSUPPORTED where the
     * grids cannot go together (then each runs alone); NULL where the
     * backend has none */
    ac_status (*run_cfl_members)(void *const *selves, ac_cfl_run *runs, const ac_forcing_batch *const *forcings,
                                 int count, long max_steps);
    /* max over the grid of the shock viscosity's profile of the fields now
     * (NaN if not finite), where copying the profile (shock_profile) would
     * cost more than the step; made: of the profile its passes left
     * (shock_profile_pass: a split grid's), not made again; NULL: use
     * shock_profile */
    ac_status (*shock_max)(void *self, int made, double *out);
    /* the wall values ('a': 0, 'set': its value) of every field of the set
     * substep s reads, on this grid's wall faces (boundaries.h), before its
     * ghost zones are filled or exchanged; NULL where the backend has no
     * walls (it then refuses grids with them) */
    ac_status (*set_walls)(void *self, int s);
    /* the terms (terms/terms.def bits) this backend does not run yet: a grid
     * that runs one is refused, naming it (the binding) */
    unsigned terms_missing;
    /* 1 where this build holds no kernel for grid g's configuration by
     * `method`, its modules' names then written to name[size] and the terms
     * (terms/terms.def bits) that have code of their own in the kernel to
     * *terms, for the binding to name with their parameters; 0 where it
     * holds one.  NULL: every configuration is built */
    int (*configuration_missing)(const ac_grid *g, ac_method method, char *name, size_t size, unsigned *terms);
    /* the shock viscosity's profile of the fields pass by pass (AC_SHOCK_PASSES),
     * so that a grid split over MPI ranks can exchange what each pass wrote
     * (*written: 0 zeta, 1 the scratch array, -1 nothing; substep_region then
     * takes the profile), and the padded arrays the passes write (which: 0
     * zeta, 1 scratch); NULL where the backend has none */
    ac_status (*shock_profile_pass)(void *self, int pass, int *written);
    void *(*shock_data)(void *self, int which);
    /* the backend's boundaries (boundaries.h), whose shearing box's deltay
     * the steps advance and the binding reads and sets; NULL where the
     * backend has no shear (terms/shear.h; it then lists it in terms_missing) */
    ac_boundaries *(*boundaries)(void *self);
    /* the shifted x ghosts of face `face` (0 lower, 1 upper) of every field of
     * the set substep s reads, from the opposite face's AC_GHOST interior x
     * planes at every y of the whole grid (dense, field by field, x fastest),
     * for a grid split over MPI ranks along x or y (astaroth/parallel.py);
     * s = AC_SHOCK_SET + which: the one array shock_data(which), where the
     * backend has it */
    ac_status (*shear_ghosts)(void *self, int s, int face, const void *source);
    /* the axes among `periodic` (bit a: axis a) whose ghost values
     * substep_region reads from their periodic images in place when the
     * region marks them periodic, so that the caller need not fill them;
     * NULL: none (the caller fills every ghost zone) */
    unsigned (*region_wraps)(void *self, unsigned periodic);
    /* the boxes of c from the padded arrays into their buffers (unpack 0) or
     * back (1); on the GPU in one launch queued on `stream` (NULL: the
     * grid's own) */
    ac_status (*copy_boxes)(void *self, const ac_box_copies *c, int unpack, void *stream);
    /* a time-series row of the fields now (timeseries.h): its AC_TS_VALUES
     * means and extrema into out, every ghost zone of the fields filled
     * first (periodic, a shearing box's, or under walls without setting the
     * wall points' values: a row changes no field) */
    ac_status (*timeseries)(void *self, double *out);
    /* A split grid's run (the binding's run_steps) where the last substep
     * can finish the step as the device loop's does (NULL where the backend
     * cannot).  set_step_reduction(on = 1, dt, forcing): *armed 1 where the
     * grid's can, and then the last substep of the next step of length dt,
     * over the regions substep_region takes, adds the step's forcing (the
     * draw forcing->samples[0], or NULL unforced) to what it writes and
     * reduces that; *armed 0 where it cannot (the caller adds the forcing
     * after the step); on = 0 disarms.  signal_region queues the signal
     * speed's reduction of the fields over region r only (a split grid's
     * inner part while the fields' messages travel, then its shell),
     * starting afresh if `clear`, the ghost zones it reads filled by the
     * caller.  step_reduction waits for either reduction, disarms, and
     * gives the signal speed of the fields then as max_speed or
     * max_signal_speed would (the uniform wave speed not added) and the
     * first field that is not finite, -1 if none, as first_nonfinite_field
     * would. */
    ac_status (*set_step_reduction)(void *self, int on, double dt, const ac_forcing_batch *forcing, int *armed);
    ac_status (*step_reduction)(void *self, double *speed, int *nonfinite_field);
    ac_status (*signal_region)(void *self, const ac_region *r, int clear);
} ac_backend_ops;

/* The set number that fill_ghost_axis and shear_ghosts take for the shock
 * profile's arrays (a split grid's passes, astaroth/parallel.py): this plus
 * shock_data's which. */
enum { AC_SHOCK_SET = 3 };

#endif
