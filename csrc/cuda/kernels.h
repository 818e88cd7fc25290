/*
 * kernels.h -- the CUDA launchers, once per precision (suffix _f32, _f64),
 * and the error recorder they share with cuda_backend.cu.
 */
#ifndef ASTAROTH_CUDA_KERNELS_H
#define ASTAROTH_CUDA_KERNELS_H

#include <cuda_runtime.h>

#include "../backend.h"
#include "../forcing.h"
#include "../grid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Turns a CUDA error into AC_ERR_DEVICE and remembers "what: message" for
 * ac_cuda_last_error(); AC_OK for cudaSuccess. */
ac_status ac_cuda_record(cudaError_t err, const char *what);

/* Thread-block tile of the integration kernels: x, y threads, z points. */
typedef struct {
    int x, y, z;
} ac_tile;
enum { AC_MAX_TILE_THREADS = 128 };
ac_tile ac_cuda_tile(void);

/* The 55-point kernel's shape: a tile of x, y threads, `runs` up each
 * column of tiles (0: chosen per grid), `lead` planes copied ahead of use
 * and registers budgeted for `blocks` blocks per SM (0: the schedule's).
 * Each configuration has its own (schedules.cuh); ASTAROTH_STREAM_TILE=
 * "tx,ty,runs[,lead[,blocks]]" (lead 2 if not given) picks another among
 * the tuning shapes, built with ASTAROTH_TUNING=1, or sets the runs of a
 * configuration's own; unset, x and y are 0. */
typedef struct {
    int x, y, runs, lead, blocks;
} ac_stream_shape;
ac_stream_shape ac_cuda_stream_shape(void);

/* A forced step of the device-side CFL loop as its last substep adds the
 * forcing (stream_substep.cuh): the step's term for its dt, and the phase
 * factors exp(i k_a x_a) of each axis at the grid's points, z's with the
 * term's phase (forcing.h's forcing_axis_phase), along[a][i] at interior
 * index i; made on the device once the step's dt is found
 * (cuda_forcing_step). */
typedef struct {
    ac_forcing_term term;
    double dt;
    int helical;
    ac_forcing_phase *along[3];
} ac_step_forcing;

/* What the device-side CFL loop (cuda_backend.cu's run_cfl) hands a
 * substep: the step's length in device memory (NaN once the run has ended)
 * and, for the last substep of a step, where the kernel leaves the
 * reduction for the next step's dt (max |u|^2 where the signal speed is
 * the flow's and a uniform wave speed, else max signal speed: timestep.h)
 * and the non-finite flags of the fields it writes, and the step's forcing,
 * added to what it writes before it reduces them.  NULL members are not
 * used. */
typedef struct {
    const double *dt;
    unsigned long long *max_u2_bits;
    unsigned int *nonfinite;
    const ac_step_forcing *forcing;
} ac_device_step;

/* An ensemble member stepped with the others in one launch per substep
 * (cuda_substep_members): its grid (the shape and configuration are
 * shared; spacing and parameters are its own), its three field sets (home,
 * stage_a, w: cuda_backend.cu's roles index them; the grid's fields of
 * each) and the device CFL loop's state. */
enum { AC_MAX_MEMBERS = 128 };
typedef struct {
    const double *dt;
    unsigned long long *max_u2_bits;
    unsigned int *nonfinite;
} ac_member_step; /* an ac_device_step without its forcing (the members' launch passes theirs), a smaller row */
typedef struct {
    const ac_grid *grid;
    void *sets[3][AC_MAX_FIELDS];
    ac_member_step step;
} ac_member;

/* A forced member's forcing (cuda_forcing_members_step, or after each step
 * cuda_force_members): its draws and device CFL state, as a solo run's
 * forcing kernels read them, and where its grid lies (its box is its own,
 * so the phases at its points are too). */
typedef struct {
    const ac_forcing_sample *samples;
    const ac_cfl_run *run;
    double origin[3], spacing[3];
    int offset[3];
} ac_member_forcing;

/* A time-series row (../timeseries.h; timeseries.cu): the bytes of device
 * scratch it needs over grid g, and its reduction of the fields (padded,
 * ghost zones filled; single: float32) queued on `stream`, whose
 * AC_TS_VALUES sums and extrema (ac_ts_finish makes the row) land at
 * *row, within scratch. */
size_t ac_cuda_timeseries_scratch(const ac_grid *g);
ac_status ac_cuda_timeseries(const ac_grid *g, int single, void *const fields[AC_MAX_FIELDS], double *scratch,
                             double **row, cudaStream_t stream);

#define AC_DECLARE_CUDA_KERNELS(sfx)                                                                         \
    ac_status cuda_substep_##sfx(const ac_grid *g, const ac_region *r, ac_method method,                      \
                                 void *const in[AC_NUM_FIELDS], void *const out[AC_NUM_FIELDS],              \
                                 void *const w_in[AC_NUM_FIELDS], void *const w_out[AC_NUM_FIELDS],          \
                                 void *div_u, const void *zeta, int substep, double dt,                              \
                                 const ac_device_step *device_step,                                                  \
                                 cudaStream_t stream);                                                      \
    ac_status cuda_reduce_##sfx(const ac_grid *g, void *const fields[AC_NUM_FIELDS], int first_field,       \
                                unsigned long long *max_u2_bits, unsigned int *nonfinite, cudaStream_t stream); \
    ac_status cuda_add_forcing_##sfx(const ac_grid *g, void *const fields[AC_NUM_FIELDS],                   \
                                     const ac_forcing_term *term, double dt, cudaStream_t stream);           \
    /* the device CFL loop's: the term of run's last step, samples[taken - 1] for its step_dt (device),   \
     * nothing where that is NaN */                                                                          \
    ac_status cuda_add_forcing_sample_##sfx(const ac_grid *g, void *const fields[AC_NUM_FIELDS],            \
                                            const ac_forcing_sample *samples, const ac_cfl_run *run,        \
                                            cudaStream_t stream);                                            \
    /* ... or its term and phase factors into forcing, for the step's last substep to add */                  \
    ac_status cuda_forcing_step_##sfx(const ac_grid *g, const ac_forcing_sample *samples, const ac_cfl_run *run, \
                                      ac_step_forcing *forcing, cudaStream_t stream);                            \
    ac_status cuda_fill_ghost_axis_##sfx(const ac_grid *g, void *const fields[AC_MAX_FIELDS], int axis,       \
                                         cudaStream_t stream);                                                   \
    ac_status cuda_substep_mhd_##sfx(const ac_grid *g, const ac_region *r, void *const in[AC_MAX_FIELDS],       \
                                     void *const out[AC_MAX_FIELDS], void *const w_in[AC_MAX_FIELDS],           \
                                     void *const w_out[AC_MAX_FIELDS], const void *zeta, int substep, double dt, \
                                     const ac_device_step *device_step, cudaStream_t stream);                              \
    ac_status cuda_reduce_mhd_##sfx(const ac_grid *g, const ac_region *r, void *const fields[AC_MAX_FIELDS],   \
                                    int fill_ghosts, unsigned long long *max_bits, unsigned int *nonfinite,      \
                                    cudaStream_t stream);                                                        \
    /* the first two substeps of the device loop's deferred order (schedules.cuh; defer: AC_DEFER_RHS or     \
     * AC_DEFER_FORM), and whether grid g's steps may take it */                                              \
    ac_status cuda_substep_deferred_##sfx(const ac_grid *g, void *const in[AC_MAX_FIELDS],                    \
                                          void *const out[AC_MAX_FIELDS], void *const w_in[AC_MAX_FIELDS],      \
                                          void *const w_out[AC_MAX_FIELDS], int defer,                          \
                                          const ac_device_step *device_step, cudaStream_t stream);              \
    int cuda_defers_##sfx(const ac_grid *g);                                                                    \
    /* zeta: the shock profile and its gradient, four padded arrays in one (NULL: no shock viscosity) */      \
    ac_status cuda_shock_profile_##sfx(const ac_grid *g, void *const in[AC_NUM_FIELDS], void *zeta,               \
                                       cudaStream_t stream);                                                    \
    /* one pass of it, for a grid split over MPI ranks (shock.cuh) */                                        \
    ac_status cuda_shock_profile_pass_##sfx(const ac_grid *g, void *const in[AC_NUM_FIELDS], void *zeta, int pass, \
                                            int *written, cudaStream_t stream);                                   \
    ac_status cuda_max_interior_##sfx(const ac_grid *g, const void *field, unsigned long long *max_bits,         \
                                      unsigned int *nonfinite, cudaStream_t stream);                            \
    ac_status cuda_load_members_##sfx(const ac_member *members, int count, cudaStream_t stream);               \
    ac_status cuda_reduce_members_##sfx(const ac_grid *g, int count, cudaStream_t stream);                       \
    /* the signal speed's reduction of members whose speed is not uniform (members.cuh) */                    \
    ac_status cuda_signal_members_##sfx(const ac_grid *g, int count, cudaStream_t stream);                       \
    /* the most members of grid g's configuration one launch steps */                                         \
    int cuda_members_capacity_##sfx(const ac_grid *g);                                                            \
    /* the forcing after a step of the `count` members in the table; forcing: theirs, device */                \
    ac_status cuda_force_members_##sfx(const ac_grid *g, int count, const ac_member_forcing *forcing,           \
                                       cudaStream_t stream);                                                     \
    ac_status cuda_substep_members_##sfx(const ac_grid *g, int count, const int roles[4], int substep, int reduce, \
                                         const ac_step_forcing *forcing, cudaStream_t stream);                   \
    /* the members' step forcing (forcing[m] for member m; members: their draws, device) */                     \
    ac_status cuda_forcing_members_step_##sfx(const ac_grid *g, int count, const ac_member_forcing *members,     \
                                              ac_step_forcing *forcing, cudaStream_t stream);                    \
    /* walls (../boundaries.h) and gravity (../terms/gravity.h) */                                            \
    ac_status cuda_set_walls_##sfx(const ac_grid *g, void *const fields[AC_MAX_FIELDS], cudaStream_t stream);     \
    ac_status cuda_fill_ghost_axis_bc_##sfx(const ac_grid *g, void *const fields[AC_MAX_FIELDS], int axis,       \
                                            cudaStream_t stream);                                                \
    ac_status cuda_fill_walls_##sfx(const ac_grid *g, void *const fields[AC_MAX_FIELDS], cudaStream_t stream);    \
    /* dt, or the step's length in device memory where dt_device is given (nothing where that is NaN) */       \
    ac_status cuda_add_gravity_##sfx(const ac_grid *g, const ac_region *r, void *const out[AC_MAX_FIELDS],       \
                                     void *const w_out[AC_MAX_FIELDS], int substep, double dt,                   \
                                     const double *dt_device, cudaStream_t stream);                              \
    /* the shearing box (../terms/shear.h): face `face`'s x ghosts from the opposite face's planes in device    \
     * memory, dense as the backend's shear_ghosts op takes them (../backend.h) */                              \
    ac_status cuda_shear_ghosts_##sfx(const ac_grid *g, void *const fields[AC_MAX_FIELDS], int face,           \
                                      const void *source, cudaStream_t stream);                                  \
    /* the axes among `periodic` a region's substep reads from periodic images (ac_region) */                  \
    unsigned cuda_region_wraps_##sfx(const ac_grid *g, unsigned periodic);

AC_DECLARE_CUDA_KERNELS(f32)
AC_DECLARE_CUDA_KERNELS(f64)

#ifdef __cplusplus
}
#endif

#endif
