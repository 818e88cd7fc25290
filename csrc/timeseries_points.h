/*
 * timeseries_points.h -- the point function of a time-series row
 * (timeseries_point.h) for fields stored in float (timeseries_point_f32)
 * and in double (_f64), both computing in double: what each backend's
 * reduction includes (cpu/timeseries.c, cuda/timeseries.cu), first of
 * all, before anything defines `real`.
 */
#ifndef ASTAROTH_TIMESERIES_POINTS_H
#define ASTAROTH_TIMESERIES_POINTS_H

#define real double
#include "timeseries.h"

#define field_t float
#define AC_FN(name) name##_f32
#include "timeseries_point.h"
#undef field_t
#undef AC_FN
#define field_t double
#define AC_FN(name) name##_f64
#include "timeseries_point.h"
#undef field_t
#undef AC_FN

#endif
