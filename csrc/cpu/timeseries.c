/*
 * timeseries.c -- a time-series row's reductions (../timeseries.h) on the
 * CPU, for fields of either precision.  Each z plane is reduced on its own
 * (in parallel) and the planes' partial rows are combined in order, so that
 * a row's bits do not depend on the number of threads.  Ghost zones are
 * filled by the caller.
 */
#include "../timeseries_points.h"
#include <stdlib.h>

#include "kernels.h"

/* The row of the interior of g (fields: padded arrays, ghost zones filled),
 * declared in kernels.h: each z plane reduced on its own, then the planes'
 * partial rows combined in order. */
#define AC_TIMESERIES(sfx)                                                                                             \
    ac_status timeseries_##sfx(const ac_grid *g, void *const fields[AC_MAX_FIELDS], double *out)                      \
    {                                                                                                                  \
        const ac_timeseries_constants c = ac_timeseries_constants_of(g);                                              \
        const timeseries_fields_##sfx f = timeseries_fields_of_##sfx(g, fields);                                     \
        double *planes = malloc((size_t)g->n[2] * AC_TS_VALUES * sizeof *planes);                                     \
        if (!planes)                                                                                                   \
            return AC_ERR_NO_MEMORY;                                                                                   \
        ptrdiff_t st[3];                                                                                               \
        ac_grid_strides(g, st);                                                                                        \
        _Pragma("omp parallel for schedule(static)") for (int k = 0; k < g->n[2]; ++k)                               \
        {                                                                                                              \
            double *v = planes + (size_t)k * AC_TS_VALUES;                                                             \
            ac_ts_start(v);                                                                                            \
            for (int j = 0; j < g->n[1]; ++j) {                                                                        \
                const ptrdiff_t row = (ptrdiff_t)ac_grid_index(g, 0, j, k);                                            \
                for (int i = 0; i < g->n[0]; ++i) {                                                                    \
                    const int ijk[3] = {i, j, k};                                                                      \
                    timeseries_point_##sfx(c.modules, 1, &f, ijk, row + i, st, &c, v);                                 \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
        ac_ts_start(out);                                                                                              \
        for (int k = 0; k < g->n[2]; ++k)                                                                              \
            ac_ts_combine(out, planes + (size_t)k * AC_TS_VALUES);                                                     \
        ac_ts_finish(out, (double)g->n[0] * g->n[1] * g->n[2]);                                                       \
        free(planes);                                                                                                  \
        return AC_OK;                                                                                                  \
    }
AC_TIMESERIES(f32)
AC_TIMESERIES(f64)
#undef AC_TIMESERIES
