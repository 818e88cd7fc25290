/*
 * cpu_backend.c -- owns the host buffers and sequences the RK3 substeps;
 * the loops are in kernels_impl.h (plain hydrodynamics, and the fused step's
 * sweep) and rows_impl.h (every other configuration), the physics in
 * ../physics.h.
 */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include "cpu_backend.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include "kernels.h"
#include "../reach.h"

typedef struct {
    void (*fill_ghost_zones)(const ac_grid *, void *);
    void (*fill_ghost_axis)(const ac_grid *, void *, int);
    void (*substep)(const ac_grid *, const ac_region *, ac_method, void *const *, void *const *, void *const *, void *,
                    int, double, int *);
    void (*substep_19p_second)(const ac_grid *, void *const *, void *const *, const void *, int, double);
    int (*can_fuse_step)(const ac_grid *, ac_method);
    void (*step_fused)(const ac_grid *, void *const *, void *const *, void *const *, void *const *, double, int *);
    void (*step_fused_rows)(const ac_grid *, void *const *, void *const *, void *const *, void *const *, const void *,
                            double, int *);
    double (*max_speed)(const ac_grid *, void *const *);
    void (*substep_rows)(const ac_grid *, const ac_region *, void *const *, void *const *, void *const *, const void *,
                         int, double, int *);
    void (*shock_profile)(const ac_grid *, void *const *, void *, void *);
    int (*shock_profile_pass)(const ac_grid *, void *const *, void *, void *, int);
    double (*max_signal_speed)(const ac_grid *, void *const *);
    int (*first_nonfinite_field)(const ac_grid *, void *const *);
    int (*add_forcing)(const ac_grid *, void *const *, const ac_forcing_term *, double);
    void (*set_wall_values)(const ac_grid *, void *, int);
    void (*fill_ghost_axis_bc)(const ac_grid *, void *, int, int);
    void (*fill_ghosts_bc)(const ac_grid *, void *, int);
    void (*shear_ghosts)(const ac_grid *, void *, int, const void *, ptrdiff_t, ptrdiff_t);
    ac_status (*timeseries)(const ac_grid *, void *const *, double *);
} kernel_table;

static const kernel_table kernels[2] = {
    {fill_ghost_zones_f32, fill_ghost_axis_f32, substep_f32, substep_19p_second_f32, can_fuse_step_f32, step_fused_f32, step_fused_rows_f32, max_speed_f32,
     substep_rows_f32, shock_profile_f32, shock_profile_pass_f32, max_signal_speed_f32, first_nonfinite_field_f32, add_forcing_f32,
     set_wall_values_f32, fill_ghost_axis_bc_f32, fill_ghosts_bc_f32, shear_ghosts_f32, timeseries_f32},
    {fill_ghost_zones_f64, fill_ghost_axis_f64, substep_f64, substep_19p_second_f64, can_fuse_step_f64, step_fused_f64, step_fused_rows_f64, max_speed_f64,
     substep_rows_f64, shock_profile_f64, shock_profile_pass_f64, max_signal_speed_f64, first_nonfinite_field_f64, add_forcing_f64,
     set_wall_values_f64, fill_ghost_axis_bc_f64, fill_ghosts_bc_f64, shear_ghosts_f64, timeseries_f64},
};

/* Threads by load.  On a machine whose cores are busy with other work,
 * a team of OpenMP threads waits at every barrier for the thread that is
 * not running (on two cores with one other busy process, two threads make
 * a 64^3 step twenty times slower than one).  So the backend times its
 * steps with the default team and with one thread, now and then tries the
 * other, and keeps the faster: a step costs the same arithmetic either way
 * (the results do not depend on the thread count), only its wall time. */
typedef struct {
    double seconds[2]; /* smoothed wall time of a step: [0] the default team, [1] one thread; 0: not timed */
    int current;       /* 0 or 1 */
    long until_probe;  /* steps before the other choice is timed again */
} ac_thread_choice;

/* The first probe comes after AC_PROBE_FIRST steps; then the other choice
 * is timed again after AC_PROBE_SCALE steps times how much slower it was
 * (so that probing costs a few percent), at most AC_PROBE_MAX, or at once
 * when the current choice has become twice as slow as the other. */
enum { AC_PROBE_FIRST = 2, AC_PROBE_SCALE = 32, AC_PROBE_MAX = 4096 };

static double wall_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The choice for the next step (0: the default team, 1: one thread). */
static int thread_choice_begin(const ac_thread_choice *c, int *probing)
{
    *probing = c->until_probe <= 0;
    return *probing ? 1 - c->current : c->current;
}

static void thread_choice_end(ac_thread_choice *c, int used, int probing, double seconds)
{
    c->seconds[used] = c->seconds[used] > 0 ? 0.5 * (c->seconds[used] + seconds) : seconds;
    const int other = 1 - c->current;
    if (probing) {
        if (c->seconds[used] < c->seconds[c->current])
            c->current = used;
        const double ratio = c->seconds[1 - c->current] / c->seconds[c->current];
        c->until_probe = ratio * AC_PROBE_SCALE < AC_PROBE_MAX ? (long)(ratio * AC_PROBE_SCALE) : AC_PROBE_MAX;
    } else if (c->seconds[other] > 0 && c->seconds[c->current] > 2 * c->seconds[other]) {
        c->until_probe = 0; /* the load has changed */
    } else {
        --c->until_probe;
    }
}

typedef struct {
    ac_grid grid;
    ac_method method;
    ac_path path; /* the loop that runs it (reach.h) */
    const kernel_table *k;
    ac_field_sets buf;
    void *zeta, *zeta_scratch; /* the shock viscosity's profile and a second array for it: with nu_shock */
    int profile_fresh;         /* zeta is the profile of the fields now (shock_profile; step may take it) */
    size_t field_bytes;
    size_t element_bytes;
    ac_thread_choice threads;
} ac_cpu;

static void cpu_destroy(void *self)
{
    ac_cpu *cpu = self;
    if (!cpu)
        return;
    for (int f = 0; f < AC_MAX_FIELDS; ++f) {
        free(cpu->buf.home[f]);
        free(cpu->buf.stage_a[f]);
        free(cpu->buf.stage_b[f]);
        free(cpu->buf.w[f]);
    }
    free(cpu->buf.div_u);
    free(cpu->zeta);
    free(cpu->zeta_scratch);
    free(cpu);
}

/* Zeroed memory whose start is aligned like the rows (grid.h). */
static void *aligned_zeros(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, AC_ROW_ALIGN_BYTES, bytes) != 0)
        return NULL;
    memset(p, 0, bytes);
    return p;
}

static ac_status cpu_create(const ac_grid *grid, ac_precision precision, ac_method method, void **out)
{
    *out = NULL;
    if ((precision != AC_FLOAT32 && precision != AC_FLOAT64) || (method != AC_METHOD_55P && method != AC_METHOD_19P) ||
        grid->fields != ac_field_count(grid->modules) || !(grid->modules & AC_MODULE_HYDRO))
        return AC_ERR_ARGUMENT;
    const ac_path path = ac_choose_path(grid, method);
    if (path == AC_PATH_NONE)
        return AC_ERR_UNSUPPORTED; /* terms beyond plain hydrodynamics: the 55-point method */
    if (grid->bc.walls && (method != AC_METHOD_55P || grid->nu_shock != 0.0))
        return AC_ERR_UNSUPPORTED; /* walls: not yet the 19-point method's div u nor the shock profile */
    for (int a = 0; a < 3; ++a)
        if (ac_boundaries_wall_axis(&grid->bc, a) && grid->n[a] < AC_GHOST + 1)
            return AC_ERR_ARGUMENT; /* a wall's ghosts mirror AC_GHOST interior points */
    if ((ac_grid_terms(grid) & AC_TERM_SHEAR) && shear_grid_unsupported(grid))
        return AC_ERR_UNSUPPORTED;
    ac_cpu *cpu = calloc(1, sizeof *cpu);
    if (!cpu)
        return AC_ERR_NO_MEMORY;
    cpu->grid = *grid;
    cpu->method = method;
    cpu->path = path;
    cpu->k = &kernels[precision];
    cpu->element_bytes = precision == AC_FLOAT64 ? 8 : 4;
    cpu->field_bytes = ac_grid_padded_count(grid) * cpu->element_bytes;
    cpu->threads.until_probe = AC_PROBE_FIRST;
    int ok = 1;
    for (int f = 0; f < grid->fields; ++f) {
        /* zeros: lnrho = 0 (rho = 1), u = 0 and A = 0 to start with, ghosts defined */
        ok &= (cpu->buf.home[f] = aligned_zeros(cpu->field_bytes)) != NULL;
        ok &= (cpu->buf.stage_a[f] = aligned_zeros(cpu->field_bytes)) != NULL;
        ok &= (cpu->buf.stage_b[f] = aligned_zeros(cpu->field_bytes)) != NULL;
        ok &= (cpu->buf.w[f] = aligned_zeros(cpu->field_bytes)) != NULL;
    }
    if (method == AC_METHOD_19P)
        ok &= (cpu->buf.div_u = aligned_zeros(cpu->field_bytes)) != NULL;
    if (grid->nu_shock != 0.0) {
        ok &= (cpu->zeta = aligned_zeros(cpu->field_bytes)) != NULL;
        ok &= (cpu->zeta_scratch = aligned_zeros(cpu->field_bytes)) != NULL;
    }
    if (!ok) {
        cpu_destroy(cpu);
        return AC_ERR_NO_MEMORY;
    }
    *out = cpu;
    return AC_OK;
}

/* One substep from `in` to `out`, either method. */
static ac_status substep(ac_cpu *cpu, void *const in[AC_NUM_FIELDS], void *const out[AC_NUM_FIELDS], int s,
                         double dt, int profile_ready)
{
    const ac_grid *g = &cpu->grid;
    int failed = 0;
    for (int f = 0; f < g->fields; ++f)
        cpu->k->fill_ghosts_bc(g, in[f], f);
    const ac_region whole = ac_whole_grid(g);
    if (cpu->path == AC_PATH_TERMS) { /* the row loop of the term table */
        if (cpu->zeta && s == 0 && !profile_ready) /* the profile of the step's start, held for its three substeps */
            cpu->k->shock_profile(g, in, cpu->zeta, cpu->zeta_scratch);
        cpu->k->substep_rows(g, &whole, in, out, cpu->buf.w, cpu->zeta, s, dt, &failed);
        return failed ? AC_ERR_NO_MEMORY : AC_OK;
    }
    cpu->k->substep(g, &whole, cpu->method, in, out, cpu->buf.w, cpu->buf.div_u, s, dt, &failed);
    if (failed)
        return AC_ERR_NO_MEMORY;
    if (cpu->method == AC_METHOD_19P) {
        cpu->k->fill_ghost_zones(g, cpu->buf.div_u);
        cpu->k->substep_19p_second(g, out, cpu->buf.w, cpu->buf.div_u, s, dt);
    }
    return AC_OK;
}

/* One full step, substep by substep (profile_ready: zeta holds the
 * profile of the fields now); the shearing box's deltay advances after each
 * substep, as the Pencil Code's does. */
static ac_status three_substeps(ac_cpu *cpu, double dt, int profile_ready)
{
    ac_status st = AC_OK;
    const int shearing = (ac_grid_terms(&cpu->grid) & AC_TERM_SHEAR) != 0u;
    for (int s = 0; s < 3 && st == AC_OK; ++s) {
        st = substep(cpu, ac_stage_set(&cpu->buf, s), ac_stage_set(&cpu->buf, (s + 1) % 3), s, dt, profile_ready);
        if (shearing)
            ac_shear_advance(&cpu->grid.bc.shear, cpu->grid.shear, s, dt);
    }
    return st;
}

/* One full step with the three substeps in one sweep (fused_sweep in
 * kernels_impl.h), on the loop of the configuration as `substep` picks it;
 * the shock profile as three_substeps takes it. */
static ac_status fused_step(ac_cpu *cpu, double dt, int profile_ready)
{
    const ac_grid *g = &cpu->grid;
    ac_field_sets *buf = &cpu->buf;
    int failed = 0;
    for (int f = 0; f < g->fields; ++f)
        cpu->k->fill_ghost_zones(g, buf->home[f]);
    if (cpu->path == AC_PATH_HYDRO) {
        cpu->k->step_fused(g, buf->home, buf->stage_a, buf->stage_b, buf->w, dt, &failed);
        return failed ? AC_ERR_NO_MEMORY : AC_OK;
    }
    if (cpu->zeta && !profile_ready)
        cpu->k->shock_profile(g, buf->home, cpu->zeta, cpu->zeta_scratch);
    cpu->k->step_fused_rows(g, buf->home, buf->stage_a, buf->stage_b, buf->w, cpu->zeta, dt, &failed);
    return failed ? AC_ERR_NO_MEMORY : AC_OK;
}

static ac_status cpu_step(void *self, double dt, long count, int profile_current)
{
    ac_cpu *cpu = self;
    ac_status st = AC_OK;
    const int fused = !cpu->grid.bc.walls && !(ac_grid_terms(&cpu->grid) & AC_TERM_SHEAR) &&
                      cpu->k->can_fuse_step(&cpu->grid, cpu->method); /* its ghosts: periodic, unshifted */
    const int profile_ready = profile_current && cpu->profile_fresh;
    cpu->profile_fresh = 0;
#if defined(_OPENMP)
    const int team = omp_get_max_threads();
#else
    const int team = 1;
#endif
    for (long n = 0; n < count && st == AC_OK; ++n) {
        int probing = 0, used = 0;
        double start = 0.0;
        if (team > 1) {
            used = thread_choice_begin(&cpu->threads, &probing);
#if defined(_OPENMP)
            omp_set_num_threads(used ? 1 : team);
#endif
            start = wall_seconds();
        }
        st = fused ? fused_step(cpu, dt, n == 0 && profile_ready) : three_substeps(cpu, dt, n == 0 && profile_ready);
        if (team > 1) {
            thread_choice_end(&cpu->threads, used, probing, wall_seconds() - start);
#if defined(_OPENMP)
            omp_set_num_threads(team);
#endif
        }
    }
    for (int f = 0; f < cpu->grid.fields && cpu->grid.bc.walls; ++f) /* 'a' and 'set' hold in every snapshot */
        cpu->k->set_wall_values(&cpu->grid, cpu->buf.home[f], f);
    return st;
}

/* A substep over region r; with shock viscosity zeta holds the profile of
 * the step's start, which the caller made pass by pass (shock_profile_pass,
 * a split grid exchanging between the passes: astaroth/parallel.py). */
static ac_status cpu_substep_region(void *self, int s, double dt, const ac_region *r, void *stream)
{
    ac_cpu *cpu = self;
    (void)stream;
    if (cpu->method != AC_METHOD_55P || s < 0 || s > 2)
        return AC_ERR_UNSUPPORTED;
    if (cpu->path == AC_PATH_TERMS) {
        int failed = 0;
        cpu->k->substep_rows(&cpu->grid, r, ac_stage_set(&cpu->buf, s), ac_stage_set(&cpu->buf, (s + 1) % 3),
                             cpu->buf.w, cpu->zeta, s, dt, &failed);
        return failed ? AC_ERR_NO_MEMORY : AC_OK;
    }
    int failed = 0;
    cpu->k->substep(&cpu->grid, r, cpu->method, ac_stage_set(&cpu->buf, s), ac_stage_set(&cpu->buf, (s + 1) % 3),
                    cpu->buf.w, NULL, s, dt, &failed);
    return failed ? AC_ERR_NO_MEMORY : AC_OK;
}

static void *cpu_shock_data(void *self, int which);

static ac_status cpu_fill_ghost_axis(void *self, int s, int axis, void *stream)
{
    ac_cpu *cpu = self;
    (void)stream;
    if (s >= AC_SHOCK_SET) { /* a pass of the shock profile (cpu_shock_data's arrays; no walls beside it) */
        void *array = cpu_shock_data(cpu, s - AC_SHOCK_SET);
        if (!array)
            return AC_ERR_ARGUMENT;
        cpu->k->fill_ghost_axis_bc(&cpu->grid, array, 0, axis);
        return AC_OK;
    }
    for (int f = 0; f < cpu->grid.fields; ++f)
        cpu->k->fill_ghost_axis_bc(&cpu->grid, ac_stage_set(&cpu->buf, s)[f], f, axis);
    return AC_OK;
}

static ac_status cpu_set_walls(void *self, int s)
{
    ac_cpu *cpu = self;
    for (int f = 0; f < cpu->grid.fields && cpu->grid.bc.walls; ++f)
        cpu->k->set_wall_values(&cpu->grid, ac_stage_set(&cpu->buf, s)[f], f);
    return AC_OK;
}

static ac_boundaries *cpu_boundaries(void *self)
{
    return &((ac_cpu *)self)->grid.bc;
}

/* The x ghosts of face `face` of every field of the set substep s reads,
 * shifted from `source` (dense: per field AC_GHOST x planes by the whole
 * grid's y by the interior z, x fastest) by the deltay now. */
static ac_status cpu_shear_ghosts(void *self, int s, int face, const void *source)
{
    ac_cpu *cpu = self;
    const ac_grid *g = &cpu->grid;
    const ptrdiff_t sz = (ptrdiff_t)AC_GHOST * g->bc.shear.ny;
    if (s >= AC_SHOCK_SET) { /* a pass of the shock profile (cpu_shock_data's arrays) */
        void *array = cpu_shock_data(cpu, s - AC_SHOCK_SET);
        if (!array)
            return AC_ERR_ARGUMENT;
        cpu->k->shear_ghosts(g, array, face, source, AC_GHOST, sz);
        return AC_OK;
    }
    for (int f = 0; f < g->fields; ++f)
        cpu->k->shear_ghosts(g, ac_stage_set(&cpu->buf, s)[f], face,
                             (const char *)source + (size_t)f * (size_t)(sz * g->n[2]) * cpu->element_bytes, AC_GHOST,
                             sz);
    return AC_OK;
}

static void *cpu_padded_data(void *self, int s, int field)
{
    return ac_stage_set(&((ac_cpu *)self)->buf, s)[field];
}

static ac_status cpu_rhs(void *self)
{
    ac_cpu *cpu = self;
    /* A first substep with dt = 1 leaves exactly the right-hand side in w;
     * what it writes to stage_a is discarded. */
    return substep(cpu, cpu->buf.home, cpu->buf.stage_a, 0, 1.0, 0);
}

static ac_status cpu_max_speed(void *self, double *out)
{
    ac_cpu *cpu = self;
    *out = cpu->k->max_speed(&cpu->grid, cpu->buf.home);
    return AC_OK;
}

static ac_status cpu_max_signal_speed(void *self, int fill_ghosts, double *out)
{
    ac_cpu *cpu = self;
    const unsigned read = fill_ghosts ? ac_signal_gradient_fields(cpu->grid.modules, ac_grid_terms(&cpu->grid)) : 0u;
    for (int f = 0; f < cpu->grid.fields; ++f)
        if (read >> f & 1u)
            cpu->k->fill_ghosts_bc(&cpu->grid, cpu->buf.home[f], f);
    *out = cpu->k->max_signal_speed(&cpu->grid, cpu->buf.home);
    return AC_OK;
}

static ac_status cpu_timeseries(void *self, double *out)
{
    ac_cpu *cpu = self;
    ac_status st = AC_OK;
    for (int axis = 0; axis < 3 && st == AC_OK; ++axis) /* axis by axis: no wall values set (backend.h) */
        st = cpu_fill_ghost_axis(cpu, 0, axis, NULL);
    return st == AC_OK ? cpu->k->timeseries(&cpu->grid, cpu->buf.home, out) : st;
}

static ac_status cpu_shock_profile_pass(void *self, int pass, int *written)
{
    ac_cpu *cpu = self;
    if (!cpu->zeta || pass < 0 || pass >= AC_SHOCK_PASSES)
        return AC_ERR_ARGUMENT;
    cpu->profile_fresh = 0;
    *written = cpu->k->shock_profile_pass(&cpu->grid, cpu->buf.home, cpu->zeta, cpu->zeta_scratch, pass);
    return AC_OK;
}

static void *cpu_shock_data(void *self, int which)
{
    ac_cpu *cpu = self;
    return which ? cpu->zeta_scratch : cpu->zeta;
}

static ac_status cpu_first_nonfinite_field(void *self, int *out)
{
    ac_cpu *cpu = self;
    *out = cpu->k->first_nonfinite_field(&cpu->grid, cpu->buf.home);
    return AC_OK;
}

static void *cpu_interior_data(void *self, ac_buffer which, int field)
{
    ac_cpu *cpu = self;
    char *base = which == AC_BUFFER_RHS ? cpu->buf.w[field] : cpu->buf.home[field];
    return base + ac_grid_index(&cpu->grid, 0, 0, 0) * cpu->element_bytes;
}

/* Copy the interior rows between the padded array and a dense one. */
static void copy_interior(ac_cpu *cpu, char *padded, char *dense, int to_dense)
{
    const ac_grid *g = &cpu->grid;
    const size_t row_bytes = (size_t)g->n[0] * cpu->element_bytes;
    for (int k = 0; k < g->n[2]; ++k)
        for (int j = 0; j < g->n[1]; ++j) {
            char *p = padded + ac_grid_index(g, 0, j, k) * cpu->element_bytes;
            char *d = dense + ((size_t)j + (size_t)g->n[1] * (size_t)k) * row_bytes;
            if (to_dense)
                memcpy(d, p, row_bytes);
            else
                memcpy(p, d, row_bytes);
        }
}

/* The boxes of c between the padded arrays and their buffers (backend.h),
 * row by row; `stream` is the GPU's and means nothing here. */
static ac_status cpu_copy_boxes(void *self, const ac_box_copies *c, int unpack, void *stream)
{
    const ac_cpu *cpu = self;
    const ac_grid *g = &cpu->grid;
    const size_t e = cpu->element_bytes, row = (size_t)g->m[0] * e, plane = row * (size_t)g->m[1];
    (void)stream;
    if (c->box_count < 0 || (c->box_count > 0 && c->array_count < 1))
        return AC_ERR_ARGUMENT;
    for (int b = 0; b < c->box_count; ++b) {
        const long long *box = c->boxes + 4 * b;
        const size_t bytes = (size_t)box[0] * e, size = (size_t)(box[0] * box[1] * box[2]) * e;
        char *held = c->buffers[b];
        for (int q = 0; q < c->array_count; ++q)
            for (long long k = 0; k < box[2]; ++k)
                for (long long j = 0; j < box[1]; ++j) {
                    char *at = (char *)c->arrays[q] + (size_t)box[3] * e + (size_t)k * plane + (size_t)j * row;
                    char *in = held + q * size + (size_t)(k * box[1] + j) * bytes;
                    if (unpack)
                        memcpy(at, in, bytes);
                    else
                        memcpy(in, at, bytes);
                }
    }
    return AC_OK;
}

static ac_status cpu_read(void *self, ac_buffer which, int field, void *dense)
{
    ac_cpu *cpu = self;
    copy_interior(cpu, which == AC_BUFFER_RHS ? cpu->buf.w[field] : cpu->buf.home[field], dense, 1);
    return AC_OK;
}

static ac_status cpu_shock_profile(void *self, void *dense)
{
    ac_cpu *cpu = self;
    if (!cpu->zeta)
        return AC_ERR_UNSUPPORTED;
    for (int f = 0; f < cpu->grid.fields; ++f) /* as a substep fills them: a shearing box's x images shifted */
        cpu->k->fill_ghosts_bc(&cpu->grid, cpu->buf.home[f], f);
    cpu->k->shock_profile(&cpu->grid, cpu->buf.home, cpu->zeta, cpu->zeta_scratch);
    cpu->profile_fresh = 1;
    copy_interior(cpu, cpu->zeta, dense, 1);
    return AC_OK;
}

static ac_status cpu_write(void *self, int field, const void *dense)
{
    ac_cpu *cpu = self;
    copy_interior(cpu, cpu->buf.home[field], (char *)dense, 0);
    cpu->profile_fresh = 0;
    return AC_OK;
}

static ac_status cpu_poison_scratch(void *self)
{
    ac_cpu *cpu = self;
    /* all-ones bytes are a NaN in float and in double */
    for (int f = 0; f < cpu->grid.fields; ++f) {
        memset(cpu->buf.stage_a[f], 0xff, cpu->field_bytes);
        memset(cpu->buf.stage_b[f], 0xff, cpu->field_bytes);
        memset(cpu->buf.w[f], 0xff, cpu->field_bytes);
    }
    if (cpu->buf.div_u)
        memset(cpu->buf.div_u, 0xff, cpu->field_bytes);
    return AC_OK;
}

static ac_status cpu_add_forcing(void *self, const ac_forcing_term *term, double dt)
{
    ac_cpu *cpu = self;
    cpu->profile_fresh = 0;
    return cpu->k->add_forcing(&cpu->grid, cpu->buf.home, term, dt) == 0 ? AC_OK : AC_ERR_NO_MEMORY;
}

const ac_backend_ops ac_cpu_backend = {
    "cpu",   cpu_create, cpu_destroy, cpu_step,  cpu_rhs, cpu_max_speed, cpu_max_signal_speed, cpu_first_nonfinite_field,
    cpu_read, cpu_write, cpu_interior_data, cpu_poison_scratch, cpu_add_forcing, cpu_substep_region,
    cpu_padded_data, cpu_fill_ghost_axis, AC_CPU_ROW_ALIGN_BYTES, 4, NULL, cpu_shock_profile,
    NULL, NULL, cpu_set_walls, 0u, NULL, cpu_shock_profile_pass, cpu_shock_data, cpu_boundaries, cpu_shear_ghosts,
    NULL, /* the loops read ghost zones the caller fills */
    cpu_copy_boxes, cpu_timeseries,
    NULL, NULL, NULL, /* the CPU's regions reduce nothing */
};
