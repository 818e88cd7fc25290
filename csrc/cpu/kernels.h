/*
 * kernels.h -- the CPU loops, declared once per precision (suffix _f32 or
 * _f64).  Buffers are passed as void * so the dispatcher stays generic.
 */
#ifndef ASTAROTH_CPU_KERNELS_H
#define ASTAROTH_CPU_KERNELS_H

#include "../forcing.h"
#include "../grid.h"
#include "loops.h"

#define AC_DECLARE_CPU_KERNELS(sfx)                                                                           \
    void fill_ghost_zones_##sfx(const ac_grid *g, void *field);                                               \
    void fill_ghost_axis_##sfx(const ac_grid *g, void *field, int axis);                                      \
    void set_wall_values_##sfx(const ac_grid *g, void *field, int index);                                     \
    void fill_ghost_axis_bc_##sfx(const ac_grid *g, void *field, int index, int axis);                        \
    void fill_ghosts_bc_##sfx(const ac_grid *g, void *field, int index);                                      \
    void shear_ghosts_##sfx(const ac_grid *g, void *field, int face, const void *source, ptrdiff_t sy,         \
                            ptrdiff_t sz);                                                                    \
    void substep_##sfx(const ac_grid *g, const ac_region *r, ac_method method, void *const in[AC_NUM_FIELDS],                    \
                       void *const out[AC_NUM_FIELDS], void *const w[AC_NUM_FIELDS], void *div_u, int substep,    \
                       double dt, int *failed);                                                               \
    void substep_19p_second_##sfx(const ac_grid *g, void *const out[AC_NUM_FIELDS],                          \
                                  void *const w[AC_NUM_FIELDS], const void *div_u, int substep, double dt);  \
    int can_fuse_step_##sfx(const ac_grid *g, ac_method method);                                              \
    void step_fused_##sfx(const ac_grid *g, void *const home[AC_NUM_FIELDS], void *const a[AC_NUM_FIELDS],    \
                          void *const b[AC_NUM_FIELDS], void *const w[AC_NUM_FIELDS], double dt, int *failed);  \
    void fused_sweep_##sfx(const ac_grid *g, const ac_fused_sweep *sweep, int *failed);                       \
    void step_fused_rows_##sfx(const ac_grid *g, void *const home[AC_MAX_FIELDS], void *const a[AC_MAX_FIELDS], \
                               void *const b[AC_MAX_FIELDS], void *const w[AC_MAX_FIELDS], const void *zeta,     \
                               double dt, int *failed);                                                         \
    double max_speed_##sfx(const ac_grid *g, void *const fields[AC_NUM_FIELDS]);                              \
    void substep_rows_##sfx(const ac_grid *g, const ac_region *r, void *const in[AC_MAX_FIELDS],              \
                            void *const out[AC_MAX_FIELDS], void *const w[AC_MAX_FIELDS], const void *zeta,     \
                            int substep, double dt, int *failed);                                               \
    void shock_profile_##sfx(const ac_grid *g, void *const in[AC_MAX_FIELDS], void *zeta, void *scratch);     \
    int shock_profile_pass_##sfx(const ac_grid *g, void *const in[AC_MAX_FIELDS], void *zeta, void *scratch,    \
                                 int pass);                                                                    \
    double max_signal_speed_##sfx(const ac_grid *g, void *const fields[AC_MAX_FIELDS]);                   \
    int first_nonfinite_field_##sfx(const ac_grid *g, void *const fields[AC_NUM_FIELDS]);                       \
    int add_forcing_##sfx(const ac_grid *g, void *const fields[AC_NUM_FIELDS], const ac_forcing_term *term,   \
                          double dt);                                                                         \
    /* a time-series row's AC_TS_VALUES values (../timeseries.h; timeseries.c), ghost zones filled */        \
    ac_status timeseries_##sfx(const ac_grid *g, void *const fields[AC_MAX_FIELDS], double *out);

AC_DECLARE_CPU_KERNELS(f32)
AC_DECLARE_CPU_KERNELS(f64)

#endif
