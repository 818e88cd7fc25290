/*
 * cuda_backend.cu -- owns the device buffers of one simulation and sequences
 * the RK3 substeps on the GPU; the kernels are in kernels_impl.cuh, the
 * physics in ../physics.h.  Every CUDA call is checked.
 */
#include "cuda_backend.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reach.h"
#include "../timeseries.h"
#include "kernels.h"
#include "schedules.cuh"

static __thread char last_error[256] = "no error";

extern "C" ac_status ac_cuda_record(cudaError_t err, const char *what)
{
    if (err == cudaSuccess)
        return AC_OK;
    snprintf(last_error, sizeof last_error, "%s: %s", what, cudaGetErrorString(err));
    return AC_ERR_DEVICE;
}

extern "C" const char *ac_cuda_last_error(void)
{
    return last_error;
}

#define CHECK(call, what)                                          \
    do {                                                           \
        if (ac_cuda_record((call), (what)) != AC_OK)               \
            return AC_ERR_DEVICE;                                  \
    } while (0)

extern "C" ac_tile ac_cuda_tile(void)
{
    static ac_tile tile = {0, 0, 0};
    if (tile.x == 0) {
        ac_tile t = {32, 4, 16};
        const char *env = getenv("ASTAROTH_CUDA_TILE");
        if (env && sscanf(env, "%d,%d,%d", &t.x, &t.y, &t.z) == 3 && t.x > 0 && t.y > 0 && t.z > 0 &&
            t.x * t.y <= AC_MAX_TILE_THREADS)
            tile = t;
        else
            tile = (ac_tile){32, 4, 16};
    }
    return tile;
}

extern "C" ac_stream_shape ac_cuda_stream_shape(void)
{
    static int read = 0;
    static ac_stream_shape shape;
    if (!read) {
        /* x, y 0: each field set's and precision's default (kernels_impl.cuh) */
        const ac_stream_shape fallback = {0, 0, 0, 2, 0};
        const char *env = getenv("ASTAROTH_STREAM_TILE");
        ac_stream_shape want = fallback;
        int found = 0;
        if (env && sscanf(env, "%d,%d,%d,%d,%d", &want.x, &want.y, &want.runs, &want.lead, &want.blocks) >= 3 &&
            want.runs >= 0) {
            found = ac_shape_built(want.x, want.y, want.lead, want.blocks);
        }
        shape = found ? want : fallback;
        if (env && !found)
            fprintf(stderr, "astaroth: ASTAROTH_STREAM_TILE=%s is not a built shape; using the default\n", env);
        read = 1;
    }
    return shape;
}

extern "C" ac_status ac_cuda_set_device(int device)
{
    return ac_cuda_record(cudaSetDevice(device), "cudaSetDevice");
}

extern "C" int ac_cuda_device_count(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError(); /* no driver or no device: not an error here */
        return 0;
    }
    return count;
}

extern "C" int ac_cuda_current_device(void)
{
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess)
        cudaGetLastError();
    return device;
}

extern "C" ac_status ac_cuda_memory_info(size_t *free_bytes, size_t *total_bytes)
{
    CHECK(cudaMemGetInfo(free_bytes, total_bytes), "cudaMemGetInfo");
    return AC_OK;
}

extern "C" ac_status ac_cuda_copy_bandwidth(size_t bytes, int repeats, double *bytes_per_second)
{
    void *a = NULL, *b = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    ac_status st = AC_OK;
    float best_ms = -1.0f;
    if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) {
        cudaGetLastError();
        st = AC_ERR_NO_MEMORY;
        goto done;
    }
    if ((st = ac_cuda_record(cudaEventCreate(&start), "cudaEventCreate")) != AC_OK ||
        (st = ac_cuda_record(cudaEventCreate(&stop), "cudaEventCreate")) != AC_OK ||
        (st = ac_cuda_record(cudaMemset(a, 0, bytes), "cudaMemset")) != AC_OK)
        goto done;
    for (int r = 0; r <= repeats; ++r) { /* the first copy warms up */
        float ms = 0.0f;
        if ((st = ac_cuda_record(cudaEventRecord(start), "cudaEventRecord")) != AC_OK ||
            (st = ac_cuda_record(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy D2D")) != AC_OK ||
            (st = ac_cuda_record(cudaEventRecord(stop), "cudaEventRecord")) != AC_OK ||
            (st = ac_cuda_record(cudaEventSynchronize(stop), "cudaEventSynchronize")) != AC_OK ||
            (st = ac_cuda_record(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime")) != AC_OK)
            goto done;
        if (r > 0 && (best_ms < 0 || ms < best_ms))
            best_ms = ms;
    }
    *bytes_per_second = 2.0 * (double)bytes / (best_ms * 1e-3);
done:
    if (start)
        cudaEventDestroy(start);
    if (stop)
        cudaEventDestroy(stop);
    cudaFree(a);
    cudaFree(b);
    return st;
}

typedef struct {
    ac_status (*substep)(const ac_grid *, const ac_region *, ac_method, void *const *, void *const *, void *const *,
                         void *const *, void *, const void *, int, double, const ac_device_step *, cudaStream_t);
    ac_status (*reduce)(const ac_grid *, void *const *, int, unsigned long long *, unsigned int *, cudaStream_t);
    ac_status (*add_forcing)(const ac_grid *, void *const *, const ac_forcing_term *, double, cudaStream_t);
    ac_status (*fill_ghost_axis)(const ac_grid *, void *const *, int, cudaStream_t);
    ac_status (*substep_mhd)(const ac_grid *, const ac_region *, void *const *, void *const *, void *const *,
                             void *const *, const void *, int, double, const ac_device_step *, cudaStream_t);
    ac_status (*reduce_mhd)(const ac_grid *, const ac_region *, void *const *, int, unsigned long long *,
                            unsigned int *, cudaStream_t);
    ac_status (*substep_deferred)(const ac_grid *, void *const *, void *const *, void *const *, void *const *, int,
                                  const ac_device_step *, cudaStream_t);
    int (*defers)(const ac_grid *);
    ac_status (*shock_profile)(const ac_grid *, void *const *, void *, cudaStream_t);
    ac_status (*max_interior)(const ac_grid *, const void *, unsigned long long *, unsigned int *, cudaStream_t);
    ac_status (*load_members)(const ac_member *, int, cudaStream_t);
    ac_status (*reduce_members)(const ac_grid *, int, cudaStream_t);
    ac_status (*substep_members)(const ac_grid *, int, const int *, int, int, const ac_step_forcing *, cudaStream_t);
    ac_status (*set_walls)(const ac_grid *, void *const *, cudaStream_t);
    ac_status (*fill_ghost_axis_bc)(const ac_grid *, void *const *, int, cudaStream_t);
    ac_status (*fill_walls)(const ac_grid *, void *const *, cudaStream_t);
    ac_status (*add_gravity)(const ac_grid *, const ac_region *, void *const *, void *const *, int, double,
                             const double *, cudaStream_t);
    ac_status (*add_forcing_sample)(const ac_grid *, void *const *, const ac_forcing_sample *, const ac_cfl_run *,
                                    cudaStream_t);
    ac_status (*shear_ghosts)(const ac_grid *, void *const *, int, const void *, cudaStream_t);
    ac_status (*signal_members)(const ac_grid *, int, cudaStream_t);
    int (*members_capacity)(const ac_grid *);
    ac_status (*forcing_step)(const ac_grid *, const ac_forcing_sample *, const ac_cfl_run *, ac_step_forcing *,
                              cudaStream_t);
    ac_status (*force_members)(const ac_grid *, int, const ac_member_forcing *, cudaStream_t);
    ac_status (*forcing_members_step)(const ac_grid *, int, const ac_member_forcing *, ac_step_forcing *, cudaStream_t);
    unsigned (*region_wraps)(const ac_grid *, unsigned);
    ac_status (*shock_profile_pass)(const ac_grid *, void *const *, void *, int, int *, cudaStream_t);
} kernel_table;

static const kernel_table kernels[2] = {
    {cuda_substep_f32, cuda_reduce_f32, cuda_add_forcing_f32, cuda_fill_ghost_axis_f32, cuda_substep_mhd_f32,
     cuda_reduce_mhd_f32, cuda_substep_deferred_f32, cuda_defers_f32, cuda_shock_profile_f32, cuda_max_interior_f32, cuda_load_members_f32, cuda_reduce_members_f32, cuda_substep_members_f32,
     cuda_set_walls_f32, cuda_fill_ghost_axis_bc_f32, cuda_fill_walls_f32, cuda_add_gravity_f32,
     cuda_add_forcing_sample_f32, cuda_shear_ghosts_f32, cuda_signal_members_f32, cuda_members_capacity_f32,
     cuda_forcing_step_f32, cuda_force_members_f32, cuda_forcing_members_step_f32, cuda_region_wraps_f32, cuda_shock_profile_pass_f32},
    {cuda_substep_f64, cuda_reduce_f64, cuda_add_forcing_f64, cuda_fill_ghost_axis_f64, cuda_substep_mhd_f64,
     cuda_reduce_mhd_f64, cuda_substep_deferred_f64, cuda_defers_f64, cuda_shock_profile_f64, cuda_max_interior_f64, cuda_load_members_f64, cuda_reduce_members_f64, cuda_substep_members_f64,
     cuda_set_walls_f64, cuda_fill_ghost_axis_bc_f64, cuda_fill_walls_f64, cuda_add_gravity_f64,
     cuda_add_forcing_sample_f64, cuda_shear_ghosts_f64, cuda_signal_members_f64, cuda_members_capacity_f64,
     cuda_forcing_step_f64, cuda_force_members_f64, cuda_forcing_members_step_f64, cuda_region_wraps_f64, cuda_shock_profile_pass_f64}};

/* A reduction's results side by side, so that one memset clears them and
 * one copy brings them to the host. */
typedef struct {
    unsigned long long max_bits; /* max |u|^2 or the signal speed, as the bits of a non-negative double */
    unsigned int nonfinite;      /* one flag bit per field holding a NaN or Inf */
} ac_reduction;

typedef struct {
    ac_grid grid;
    ac_method method;
    const kernel_table *k;
    ac_field_sets buf;
    ac_reduction *reduction;      /* device; max_u2_bits and nonfinite point into it */
    ac_reduction *reduction_host; /* pinned, where read_reduction copies it */
    unsigned long long *max_u2_bits;
    unsigned int *nonfinite;
    ac_cfl_run *cfl; /* run_cfl's state, device */
    ac_cfl_run *member_runs; /* an ensemble's states staged in one copy (run_cfl_members), device, or NULL */
    ac_member_forcing *member_forcings; /* a forced ensemble's forcing table (run_members), device, or NULL */
    ac_step_forcing *member_step_forcings; /* its members' step forcing (AC_MAX_MEMBERS), device, or NULL */
    ac_forcing_sample *samples; /* run_cfl's forcing samples (AC_FORCING_SAMPLES_AHEAD), device, or NULL */
    /* a forced ensemble's samples, every member's batch in one copy (run_members): device and pinned host,
     * member_samples_room samples each, or NULL */
    ac_forcing_sample *member_samples, *member_samples_host;
    size_t member_samples_room;
    ac_step_forcing *step_forcing; /* a forced run_cfl step's term and phase factors (kernels.h), device, or NULL */
    unsigned long long serial;    /* unique among the grids of this process: names it in members_graph's key */
    /* the graph of run_cfl_members' steps for the members of members_key (serials; forced in bit 63, a full
     * reduction in bit 62), led by this grid */
    cudaGraphExec_t members_graph;
    unsigned long long *members_key;
    int members_count;
    void *shear_source;      /* the shear_ghosts op's planes (a grid split over MPI ranks), device, or NULL */
    void *zeta;              /* with nu_shock: the profile and its gradient (4 padded arrays) */
    double *timeseries_scratch, *timeseries_host; /* a time-series row's partial rows (device) and row (pinned), or NULL */
    int profile_fresh;       /* zeta is that of the fields now (shock_profile, shock_max; step may take it) */
    bool defers;             /* run_cfl's steps take the deferred order (deferred_order; stage_b allocated) */
    bool regions_reduce;     /* the last substep's regions reduce for the next dt (set_step_reduction) */
    bool regions_force;      /* ... and add the step's forcing first */
    int device;              /* the GPU it lives on */
    size_t field_bytes, element_bytes;
    cudaStream_t stream;
} ac_gpu;

/* cudaFree, reporting a failure on stderr (a destructor cannot raise). */
static void device_free(void *p)
{
    cudaError_t err = cudaFree(p);
    if (err != cudaSuccess)
        fprintf(stderr, "astaroth: cudaFree failed: %s\n", cudaGetErrorString(err));
}

/* The arrays of substep s.  Three sets, not four: the fields (home), one
 * stage and w, which is read only at the point being updated, so a substep
 * may overwrite it there:
 *   s = 0: home -> stage_a, w written (not read);
 *   s = 1: stage_a -> w's arrays (each point reads w0 first), w1 -> home;
 *   s = 2: w's arrays -> home (each point reads w1 there first), w dropped.
 * Every step ends in home, so views of the fields stay valid.  The device
 * loop's deferred order (schedules.cuh) takes a fourth, stage_b, as its
 * second substep reads both f0 and the first's right-hand side across its
 * stencil:
 *   s = 0: home read, its right-hand side -> stage_b;
 *   s = 1: home and stage_b -> w's arrays, w1 -> stage_a;
 *   s = 2: w's arrays -> home (w1 read at stage_a), w dropped. */
typedef struct {
    void *const *in, *const *out, *const *w_in, *const *w_out;
} stage_roles;

enum { SET_NONE = -1, SET_HOME, SET_STAGE_A, SET_W, SET_STAGE_B };
static const int role_sets[3][4] = {/* in, out, w_in, w_out of substep s */
                                    {SET_HOME, SET_STAGE_A, SET_NONE, SET_W},
                                    {SET_STAGE_A, SET_W, SET_W, SET_HOME},
                                    {SET_W, SET_HOME, SET_HOME, SET_NONE}};
static const int deferred_role_sets[3][4] = {{SET_HOME, SET_NONE, SET_NONE, SET_STAGE_B},
                                             {SET_HOME, SET_W, SET_STAGE_B, SET_STAGE_A},
                                             {SET_W, SET_HOME, SET_STAGE_A, SET_NONE}};

static stage_roles roles_of(const ac_field_sets *b, const int r[4])
{
    void *const *sets[4] = {b->home, b->stage_a, b->w, b->stage_b};
    stage_roles out = {sets[r[0]], r[1] < 0 ? NULL : sets[r[1]], r[2] < 0 ? NULL : sets[r[2]],
                       r[3] < 0 ? NULL : sets[r[3]]};
    return out;
}

static stage_roles roles(const ac_field_sets *b, int s)
{
    return roles_of(b, role_sets[s]);
}

/* Substep s of length dt, or as device_step says (run_cfl) if not NULL;
 * profile_ready: zeta holds the profile of the fields now; queued on the
 * grid's stream, or a region's on `stream` where that is not NULL. */
static ac_status run_substep(ac_gpu *gpu, const ac_region *region, int s, double dt, const ac_device_step *device_step,
                             int profile_ready, cudaStream_t stream)
{
    const stage_roles r = roles(&gpu->buf, s);
    if (!stream)
        stream = gpu->stream;
    gpu->profile_fresh = 0;
    /* the profile of the step's start, held for its three substeps; a region's (a split grid's) is the one its
     * caller made pass by pass (gpu_shock_profile_pass), its maximum and smoothing spanning subdomains */
    if (gpu->zeta && !region && s == 0 && !profile_ready) {
        const ac_status st = gpu->k->shock_profile(&gpu->grid, r.in, gpu->zeta, gpu->stream);
        if (st != AC_OK)
            return st;
    }
    const ac_status st =
        gpu->grid.fields != AC_NUM_FIELDS /* MHD, entropy: the streaming kernel of the configuration */
            ? gpu->k->substep_mhd(&gpu->grid, region, r.in, r.out, r.w_in, r.w_out, gpu->zeta, s, dt, device_step,
                                  stream)
            : gpu->k->substep(&gpu->grid, region, gpu->method, r.in, r.out, r.w_in, r.w_out, gpu->buf.div_u,
                              gpu->zeta, s, dt, device_step, stream);
    if (st != AC_OK || !(ac_grid_terms(&gpu->grid) & AC_TERM_GRAVITY))
        return st;
    return gpu->k->add_gravity(&gpu->grid, region, r.out, r.w_out, s, dt, device_step ? device_step->dt : NULL,
                               stream); /* terms/gravity.h */
}

static void gpu_destroy(void *self)
{
    ac_gpu *gpu = (ac_gpu *)self;
    if (!gpu)
        return;
    for (int f = 0; f < AC_MAX_FIELDS; ++f) {
        device_free(gpu->buf.home[f]);
        device_free(gpu->buf.stage_a[f]);
        device_free(gpu->buf.w[f]);
        device_free(gpu->buf.stage_b[f]);
    }
    device_free(gpu->buf.div_u);
    device_free(gpu->reduction);
    if (gpu->reduction_host && cudaFreeHost(gpu->reduction_host) != cudaSuccess)
        fprintf(stderr, "astaroth: cudaFreeHost failed\n");
    device_free(gpu->cfl);
    device_free(gpu->member_runs);
    device_free(gpu->member_forcings);
    device_free(gpu->samples);
    device_free(gpu->member_samples);
    if (gpu->member_samples_host && cudaFreeHost(gpu->member_samples_host) != cudaSuccess)
        fprintf(stderr, "astaroth: cudaFreeHost failed\n");
    device_free(gpu->step_forcing);
    device_free(gpu->member_step_forcings);
    if (gpu->members_graph)
        cudaGraphExecDestroy(gpu->members_graph);
    free(gpu->members_key);
    device_free(gpu->shear_source);
    device_free(gpu->zeta);
    device_free(gpu->timeseries_scratch);
    if (gpu->timeseries_host && cudaFreeHost(gpu->timeseries_host) != cudaSuccess)
        fprintf(stderr, "astaroth: cudaFreeHost failed\n");
    if (gpu->stream) {
        cudaError_t err = cudaStreamDestroy(gpu->stream);
        if (err != cudaSuccess)
            fprintf(stderr, "astaroth: cudaStreamDestroy failed: %s\n", cudaGetErrorString(err));
    }
    free(gpu);
}

/* cudaMalloc and zero; a failed allocation is AC_ERR_NO_MEMORY. */
static ac_status device_zeros(void **p, size_t bytes)
{
    if (cudaMalloc(p, bytes) != cudaSuccess) {
        *p = NULL;
        cudaGetLastError(); /* clear it: out of memory is not sticky */
        return AC_ERR_NO_MEMORY;
    }
    CHECK(cudaMemset(*p, 0, bytes), "cudaMemset");
    return AC_OK;
}

/* The configuration of the streaming kernel that runs grid g: its modules,
 * and the kernel terms it runs (kernels_impl.cuh's stream_substep). */
static unsigned grid_config(const ac_grid *g)
{
    return ac_config(g->modules, ac_kernel_bits(ac_grid_terms(g) & (unsigned)AC_KERNEL_TERMS));
}

/* Whether this build holds the kernel of grid g by `method`: the 55-point
 * method's configurations are those of instances.def (the 19-point kernels
 * run plain hydro only). */
static bool configuration_built(const ac_grid *g, ac_method method)
{
    return method != AC_METHOD_55P || ac_config_valid(grid_config(g));
}

/* ac_backend_ops.configuration_missing: the name lists the modules, *terms
 * holds the kernel terms. */
static int gpu_configuration_missing(const ac_grid *g, ac_method method, char *name, size_t size, unsigned *terms)
{
    if (configuration_built(g, method))
        return 0;
    size_t at = 0;
    name[0] = '\0';
#define AC_MODULE(module, bit, keyword, value, flags, description)                                                    \
    if ((g->modules & (unsigned)(bit)) && at < size)                                                                   \
        at += (size_t)snprintf(name + at, size - at, "%s" #module, at ? "+" : "");
#include "../parameters.def"
#undef AC_MODULE
    *terms = ac_grid_terms(g) & (unsigned)AC_KERNEL_TERMS;
    return 1;
}

static ac_status gpu_create(const ac_grid *grid, ac_precision precision, ac_method method, void **out)
{
    *out = NULL;
    if ((precision != AC_FLOAT32 && precision != AC_FLOAT64) || (method != AC_METHOD_55P && method != AC_METHOD_19P))
        return AC_ERR_ARGUMENT;
    if (ac_cuda_device_count() < 1 || ac_choose_path(grid, method) == AC_PATH_NONE ||
        !configuration_built(grid, method))
        return AC_ERR_UNSUPPORTED; /* terms beyond plain hydrodynamics: the 55-point kernel; a configuration not built */
    if (grid->bc.walls && (method != AC_METHOD_55P || grid->nu_shock != 0.0))
        return AC_ERR_UNSUPPORTED; /* walls: the 55-point kernel, no shock profile yet */
    for (int a = 0; a < 3; ++a)
        if (ac_boundaries_wall_axis(&grid->bc, a) && grid->n[a] < AC_GHOST + 1)
            return AC_ERR_ARGUMENT;
    if ((ac_grid_terms(grid) & AC_TERM_SHEAR) && shear_grid_unsupported(grid))
        return AC_ERR_UNSUPPORTED;
    ac_gpu *gpu = (ac_gpu *)calloc(1, sizeof *gpu);
    if (!gpu)
        return AC_ERR_NO_MEMORY;
    static unsigned long long serials = 0;
    gpu->serial = __atomic_add_fetch(&serials, 1ull, __ATOMIC_RELAXED);
    gpu->grid = *grid;
    gpu->method = method;
    const cudaError_t device_err = cudaGetDevice(&gpu->device);
    if (device_err != cudaSuccess) {
        free(gpu);
        return ac_cuda_record(device_err, "cudaGetDevice");
    }
    gpu->k = &kernels[precision];
    gpu->element_bytes = precision == AC_FLOAT64 ? 8 : 4;
    gpu->field_bytes = ac_grid_padded_count(grid) * gpu->element_bytes;
    /* A stream of its own, so that simulations stepped from different
     * threads overlap on the GPU; a blocking one (not cudaStreamNonBlocking),
     * so that work on the legacy default stream (CuPy's and PyTorch's
     * default, through views) stays ordered with ours both ways. */
    ac_status st = ac_cuda_record(cudaStreamCreate(&gpu->stream), "cudaStreamCreate");
    if (st != AC_OK) {
        free(gpu);
        return st;
    }
    for (int f = 0; f < grid->fields && st == AC_OK; ++f) {
        /* zeros: lnrho = 0 (rho = 1), u = 0 and A = 0 to start with */
        if ((st = device_zeros(&gpu->buf.home[f], gpu->field_bytes)) == AC_OK &&
            (st = device_zeros(&gpu->buf.stage_a[f], gpu->field_bytes)) == AC_OK)
            st = device_zeros(&gpu->buf.w[f], gpu->field_bytes); /* no stage_b: see roles() */
    }
    if (st == AC_OK && method == AC_METHOD_19P)
        st = device_zeros(&gpu->buf.div_u, gpu->field_bytes);
    if (st == AC_OK && grid->nu_shock != 0.0)
        st = device_zeros(&gpu->zeta, 4 * gpu->field_bytes);
    if (st == AC_OK && (st = device_zeros((void **)&gpu->reduction, sizeof *gpu->reduction)) == AC_OK) {
        gpu->max_u2_bits = &gpu->reduction->max_bits;
        gpu->nonfinite = &gpu->reduction->nonfinite;
        if (cudaMallocHost((void **)&gpu->reduction_host, sizeof *gpu->reduction_host) != cudaSuccess) {
            gpu->reduction_host = NULL;
            cudaGetLastError(); /* not sticky */
            st = AC_ERR_NO_MEMORY;
        }
    }
    if (st == AC_OK)
        st = device_zeros((void **)&gpu->cfl, sizeof *gpu->cfl);
    if (st == AC_OK)
        st = ac_cuda_record(cudaStreamSynchronize(gpu->stream), "cudaStreamSynchronize");
    if (st != AC_OK) {
        gpu_destroy(gpu);
        return st;
    }
    *out = gpu;
    return AC_OK;
}

/* Steps from the host; the shearing box's deltay advances after each
 * substep, as the CPU's three_substeps advances it (csrc/shear.c): each
 * substep's shifted x ghosts take the weights of the deltay when it is
 * queued. */
static ac_status gpu_step(void *self, double dt, long count, int profile_current)
{
    ac_gpu *gpu = (ac_gpu *)self;
    const int profile_ready = profile_current && gpu->profile_fresh;
    const int shearing = (ac_grid_terms(&gpu->grid) & AC_TERM_SHEAR) != 0u;
    for (long n = 0; n < count; ++n)
        for (int s = 0; s < 3; ++s) {
            const ac_status st = run_substep(gpu, NULL, s, dt, NULL, n == 0 && s == 0 && profile_ready, NULL);
            if (st != AC_OK)
                return st;
            if (shearing)
                ac_shear_advance(&gpu->grid.bc.shear, gpu->grid.shear, s, dt); /* the CPU's rounding (shear.c) */
        }
    if (gpu->grid.bc.walls && gpu->k->set_walls(&gpu->grid, gpu->buf.home, gpu->stream) != AC_OK)
        return AC_ERR_DEVICE; /* 'a' and 'set' hold in every snapshot */
    CHECK(cudaStreamSynchronize(gpu->stream), "RK3 step");
    return AC_OK;
}

static ac_status gpu_substep_region(void *self, int s, double dt, const ac_region *r, void *stream)
{
    ac_gpu *gpu = (ac_gpu *)self;
    if (gpu->method != AC_METHOD_55P || s < 0 || s > 2)
        return AC_ERR_UNSUPPORTED;
    if (s == 2 && gpu->regions_reduce) { /* the device loop's instance, dt where set_step_reduction put it */
        const ac_device_step last = {&gpu->cfl->step_dt, gpu->max_u2_bits, gpu->nonfinite,
                                     gpu->regions_force ? gpu->step_forcing : NULL};
        return run_substep(gpu, r, s, dt, &last, 0, (cudaStream_t)stream);
    }
    return run_substep(gpu, r, s, dt, NULL, 0, (cudaStream_t)stream);
}

static unsigned gpu_region_wraps(void *self, unsigned periodic)
{
    ac_gpu *gpu = (ac_gpu *)self;
    return gpu->k->region_wraps(&gpu->grid, periodic);
}

static void *gpu_shock_data(void *self, int which);

/* The grid of the one array shock_data(which) as set AC_SHOCK_SET + which
 * (backend.h): field 0's boundaries, one field. */
static ac_grid shock_set(ac_gpu *gpu, int s, void *arrays[AC_MAX_FIELDS])
{
    ac_grid one = gpu->grid;
    one.fields = 1;
    arrays[0] = gpu_shock_data(gpu, s - AC_SHOCK_SET);
    return one;
}

static ac_status gpu_fill_ghost_axis(void *self, int s, int axis, void *stream)
{
    ac_gpu *gpu = (ac_gpu *)self;
    if (s >= AC_SHOCK_SET) { /* a pass of the shock profile (no walls beside it) */
        void *arrays[AC_MAX_FIELDS] = {NULL};
        const ac_grid one = shock_set(gpu, s, arrays);
        return arrays[0] ? gpu->k->fill_ghost_axis_bc(&one, arrays, axis, (cudaStream_t)stream) : AC_ERR_ARGUMENT;
    }
    return gpu->k->fill_ghost_axis_bc(&gpu->grid, roles(&gpu->buf, s).in, axis, (cudaStream_t)stream);
}

static ac_status gpu_set_walls(void *self, int s)
{
    ac_gpu *gpu = (ac_gpu *)self;
    if (gpu->k->set_walls(&gpu->grid, roles(&gpu->buf, s).in, gpu->stream) != AC_OK)
        return AC_ERR_DEVICE;
    CHECK(cudaStreamSynchronize(gpu->stream), "set_walls");
    return AC_OK;
}

static void *gpu_padded_data(void *self, int s, int field)
{
    return roles(&((ac_gpu *)self)->buf, s).in[field];
}

static ac_boundaries *gpu_boundaries(void *self)
{
    return &((ac_gpu *)self)->grid.bc;
}

/* The x ghosts of face `face` of the set substep s reads, shifted from
 * `source` (host memory, dense: backend.h) by the deltay now: the planes
 * copied to the device, then the CPU's arithmetic (kernels_impl.cuh). */
static ac_status gpu_shear_ghosts(void *self, int s, int face, const void *source)
{
    ac_gpu *gpu = (ac_gpu *)self;
    void *shock[AC_MAX_FIELDS] = {NULL};
    const ac_grid one = s >= AC_SHOCK_SET ? shock_set(gpu, s, shock) : gpu->grid; /* a pass of the shock profile */
    const ac_grid *g = &one;
    if (s >= AC_SHOCK_SET && !shock[0])
        return AC_ERR_ARGUMENT;
    const size_t face_bytes = (size_t)g->n[2] * g->bc.shear.ny * AC_GHOST * gpu->element_bytes; /* a field's */
    ac_status st = AC_OK; /* sized for every field at once; the shock profile's one array takes the first part */
    if (!gpu->shear_source && (st = device_zeros(&gpu->shear_source, gpu->grid.fields * face_bytes)) != AC_OK)
        return st;
    CHECK(cudaMemcpyAsync(gpu->shear_source, source, g->fields * face_bytes, cudaMemcpyHostToDevice, gpu->stream),
          "shear_ghosts planes");
    if ((st = gpu->k->shear_ghosts(g, s >= AC_SHOCK_SET ? shock : roles(&gpu->buf, s).in, face, gpu->shear_source,
                                   gpu->stream)) != AC_OK)
        return st;
    CHECK(cudaStreamSynchronize(gpu->stream), "shear_ghosts");
    return AC_OK;
}

static ac_status gpu_rhs(void *self)
{
    ac_gpu *gpu = (ac_gpu *)self;
    /* a first substep with dt = 1 leaves the right-hand side in w */
    ac_status st = run_substep(gpu, NULL, 0, 1.0, NULL, 0, NULL);
    if (st != AC_OK)
        return st;
    CHECK(cudaStreamSynchronize(gpu->stream), "right-hand side");
    return AC_OK;
}

/* Zeroes the reduction results, as every reduction expects. */
static ac_status clear_reduction(ac_gpu *gpu, cudaStream_t stream)
{
    CHECK(cudaMemsetAsync(gpu->reduction, 0, sizeof *gpu->reduction, stream), "cudaMemset");
    return AC_OK;
}

/* Queues a reduction of the fields into max_u2_bits and nonfinite (cleared
 * first if `clear`): hydro (mhd 0) max |u|^2 and the flags of fields
 * `arg`..3; MHD the fastest signal speed and the flags of all seven, A's
 * ghost zones filled first if `arg`, over region r only where r is not
 * NULL (the MHD reduction alone; its ghost zones filled by the caller). */
static ac_status queue_reduction_on(ac_gpu *gpu, int mhd, const ac_region *r, int arg, int clear,
                                    cudaStream_t stream)
{
    const ac_status st = clear ? clear_reduction(gpu, stream) : AC_OK;
    if (st != AC_OK)
        return st;
    return mhd ? gpu->k->reduce_mhd(&gpu->grid, r, gpu->buf.home, arg, gpu->max_u2_bits, gpu->nonfinite, stream)
               : gpu->k->reduce(&gpu->grid, gpu->buf.home, arg, gpu->max_u2_bits, gpu->nonfinite, stream);
}

static ac_status queue_reduction(ac_gpu *gpu, int mhd, int arg, int clear)
{
    return queue_reduction_on(gpu, mhd, NULL, arg, clear, gpu->stream);
}

/* Waits for the queued reduction and returns its maximum and flags. */
static ac_status read_reduction(ac_gpu *gpu, double *max_value, unsigned int *flags)
{
    CHECK(cudaMemcpyAsync(gpu->reduction_host, gpu->reduction, sizeof *gpu->reduction, cudaMemcpyDeviceToHost,
                          gpu->stream),
          "reduction");
    CHECK(cudaStreamSynchronize(gpu->stream), "reduction");
    memcpy(max_value, &gpu->reduction_host->max_bits, sizeof *max_value);
    *flags = gpu->reduction_host->nonfinite;
    return AC_OK;
}

/* Runs a reduction (queue_reduction) and returns its maximum and flags. */
static ac_status reduce(ac_gpu *gpu, int mhd, int arg, double *max_value, unsigned int *flags)
{
    const ac_status st = queue_reduction(gpu, mhd, arg, 1);
    return st == AC_OK ? read_reduction(gpu, max_value, flags) : st;
}

static ac_status gpu_max_speed(void *self, double *out)
{
    double max_u2 = 0.0;
    unsigned int flags = 0;
    ac_status st = reduce((ac_gpu *)self, 0, 1, &max_u2, &flags);
    if (st == AC_OK)
        *out = flags ? (double)NAN : sqrt(max_u2);
    return st;
}

/* Queues the signal-speed reduction (MHD, entropy: queue_reduction's mhd),
 * A's periodic ghost faces filled first if fill_ghosts.  Under walls those under the
 * walls come from fill_walls (B at the walls from their ghosts), and so do a
 * shearing box's shifted x ghosts; then the reduction adds no periodic fill
 * of its own. */
static ac_status queue_signal_reduction(ac_gpu *gpu, int fill_ghosts, int clear)
{
    if ((gpu->grid.bc.walls || (ac_grid_terms(&gpu->grid) & AC_TERM_SHEAR)) && fill_ghosts) {
        const ac_status st = gpu->k->fill_walls(&gpu->grid, gpu->buf.home, gpu->stream);
        if (st != AC_OK)
            return st;
        fill_ghosts = 0;
    }
    return queue_reduction(gpu, 1, fill_ghosts, clear);
}

static ac_status gpu_max_signal_speed(void *self, int fill_ghosts, double *out)
{
    ac_gpu *gpu = (ac_gpu *)self;
    double fastest = 0.0;
    unsigned int flags = 0;
    ac_status st = queue_signal_reduction(gpu, fill_ghosts, 1);
    if (st == AC_OK)
        st = read_reduction(gpu, &fastest, &flags);
    if (st == AC_OK)
        *out = flags ? (double)NAN : fastest;
    return st;
}

/* A time-series row (../timeseries.h): the ghost zones of the fields
 * filled axis by axis (periodic, shear or walls; no wall values set: a row
 * changes no field), the reduction, and its row copied back. */
static ac_status gpu_timeseries(void *self, double *out)
{
    ac_gpu *gpu = (ac_gpu *)self;
    if (!gpu->timeseries_scratch)
        CHECK(cudaMalloc((void **)&gpu->timeseries_scratch, ac_cuda_timeseries_scratch(&gpu->grid)),
              "time-series row scratch");
    if (!gpu->timeseries_host)
        CHECK(cudaMallocHost((void **)&gpu->timeseries_host, AC_TS_VALUES * sizeof *gpu->timeseries_host),
              "time-series row");
    ac_status st = AC_OK;
    for (int axis = 0; axis < 3 && st == AC_OK; ++axis) /* the fields' set, as a split grid's steps fill it */
        st = gpu_fill_ghost_axis(gpu, 0, axis, gpu->stream);
    double *row = NULL;
    if (st == AC_OK)
        st = ac_cuda_timeseries(&gpu->grid, gpu->element_bytes == 4, gpu->buf.home, gpu->timeseries_scratch, &row,
                                gpu->stream);
    if (st != AC_OK)
        return st;
    CHECK(cudaMemcpyAsync(gpu->timeseries_host, row, AC_TS_VALUES * sizeof *row, cudaMemcpyDeviceToHost, gpu->stream),
          "time-series row");
    CHECK(cudaStreamSynchronize(gpu->stream), "time-series row");
    memcpy(out, gpu->timeseries_host, AC_TS_VALUES * sizeof *out);
    ac_ts_finish(out, (double)gpu->grid.n[0] * gpu->grid.n[1] * gpu->grid.n[2]);
    return AC_OK;
}

/* The first field whose flag bit is set, or -1. */
static int first_flagged(const ac_gpu *gpu, unsigned int flags)
{
    for (int f = 0; f < gpu->grid.fields; ++f)
        if (flags & (1u << f))
            return f;
    return -1;
}

/* Whether a step's last substep can reduce what it writes for the next
 * step's dt: not where gravity (a kernel after each substep) or the walls
 * change the fields after it, nor where the configuration's instance
 * cannot (ac_reduces_in_substep). */
static bool last_substep_reduces(const ac_gpu *gpu)
{
    return !gpu->grid.bc.walls && !(ac_grid_terms(&gpu->grid) & AC_TERM_GRAVITY) &&
           ac_reduces_in_substep(ac_config(gpu->grid.modules, 0u));
}

static ac_status gpu_signal_region(void *self, const ac_region *r, int clear)
{
    ac_gpu *gpu = (ac_gpu *)self;
    return queue_reduction_on(gpu, 1, r, 0, clear, gpu->stream);
}

static ac_status gpu_first_nonfinite_field(void *self, int *out)
{
    ac_gpu *gpu = (ac_gpu *)self;
    double max_u2 = 0.0;
    unsigned int flags = 0;
    const int mhd = gpu->grid.fields != AC_NUM_FIELDS; /* MHD, entropy: the signal-speed reduction */
    ac_status st = reduce(gpu, mhd, mhd ? 1 : 0, &max_u2, &flags);
    if (st != AC_OK)
        return st;
    *out = first_flagged(gpu, flags);
    return AC_OK;
}

static void *gpu_interior_data(void *self, ac_buffer which, int field)
{
    ac_gpu *gpu = (ac_gpu *)self;
    char *base = (char *)(which == AC_BUFFER_RHS ? gpu->buf.w[field] : gpu->buf.home[field]);
    return base + ac_grid_index(&gpu->grid, 0, 0, 0) * gpu->element_bytes;
}

/* The interior box of a padded device array and a dense host array. */
static cudaMemcpy3DParms interior_copy(ac_gpu *gpu, void *padded, void *dense, int to_host)
{
    const ac_grid *g = &gpu->grid;
    const size_t es = gpu->element_bytes;
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    cudaPitchedPtr device = make_cudaPitchedPtr(padded, (size_t)g->m[0] * es, (size_t)g->m[0], (size_t)g->m[1]);
    cudaPitchedPtr host = make_cudaPitchedPtr(dense, (size_t)g->n[0] * es, (size_t)g->n[0], (size_t)g->n[1]);
    cudaPos ghost_offset = make_cudaPos((size_t)g->lo[0] * es, (size_t)g->lo[1], (size_t)g->lo[2]);
    if (to_host) {
        p.srcPtr = device;
        p.srcPos = ghost_offset;
        p.dstPtr = host;
        p.kind = cudaMemcpyDeviceToHost;
    } else {
        p.srcPtr = host;
        p.dstPtr = device;
        p.dstPos = ghost_offset;
        p.kind = cudaMemcpyHostToDevice;
    }
    p.extent = make_cudaExtent((size_t)g->n[0] * es, (size_t)g->n[1], (size_t)g->n[2]);
    return p;
}

static ac_status gpu_read(void *self, ac_buffer which, int field, void *dense)
{
    ac_gpu *gpu = (ac_gpu *)self;
    void *padded = which == AC_BUFFER_RHS ? gpu->buf.w[field] : gpu->buf.home[field];
    cudaMemcpy3DParms p = interior_copy(gpu, padded, dense, 1);
    CHECK(cudaMemcpy3DAsync(&p, gpu->stream), "copying a field to the host");
    CHECK(cudaStreamSynchronize(gpu->stream), "copying a field to the host");
    return AC_OK;
}

static ac_status gpu_write(void *self, int field, const void *dense)
{
    ac_gpu *gpu = (ac_gpu *)self;
    cudaMemcpy3DParms p = interior_copy(gpu, gpu->buf.home[field], (void *)dense, 0);
    gpu->profile_fresh = 0;
    CHECK(cudaMemcpy3DAsync(&p, gpu->stream), "copying a field to the device");
    CHECK(cudaStreamSynchronize(gpu->stream), "copying a field to the device");
    return AC_OK;
}

static ac_status gpu_poison_scratch(void *self)
{
    ac_gpu *gpu = (ac_gpu *)self;
    /* all-ones bytes are a NaN in float and in double */
    for (int f = 0; f < gpu->grid.fields; ++f) {
        CHECK(cudaMemsetAsync(gpu->buf.stage_a[f], 0xff, gpu->field_bytes, gpu->stream), "poison");
        CHECK(cudaMemsetAsync(gpu->buf.w[f], 0xff, gpu->field_bytes, gpu->stream), "poison");
        if (gpu->buf.stage_b[f])
            CHECK(cudaMemsetAsync(gpu->buf.stage_b[f], 0xff, gpu->field_bytes, gpu->stream), "poison");
    }
    if (gpu->buf.div_u)
        CHECK(cudaMemsetAsync(gpu->buf.div_u, 0xff, gpu->field_bytes, gpu->stream), "poison");
    CHECK(cudaStreamSynchronize(gpu->stream), "poison");
    return AC_OK;
}

/* The profile of the fields now (run_substep computes it at each step's start). */
static ac_status queue_shock_profile(ac_gpu *gpu)
{
    if (!gpu->zeta)
        return AC_ERR_UNSUPPORTED;
    const ac_status st = gpu->k->shock_profile(&gpu->grid, gpu->buf.home, gpu->zeta, gpu->stream);
    gpu->profile_fresh = st == AC_OK;
    return st;
}

static ac_status gpu_shock_profile(void *self, void *dense)
{
    ac_gpu *gpu = (ac_gpu *)self;
    ac_status st = queue_shock_profile(gpu);
    if (st != AC_OK)
        return st;
    cudaMemcpy3DParms p = interior_copy(gpu, gpu->zeta, dense, 1);
    CHECK(cudaMemcpy3DAsync(&p, gpu->stream), "copying the shock profile to the host");
    CHECK(cudaStreamSynchronize(gpu->stream), "copying the shock profile to the host");
    return AC_OK;
}

/* One pass of the profile of the fields now (shock.cuh), for a split grid
 * that exchanges what it wrote (*written) before the next; returns once the
 * pass is done, as the exchange then reads it from another stream. */
static ac_status gpu_shock_profile_pass(void *self, int pass, int *written)
{
    ac_gpu *gpu = (ac_gpu *)self;
    if (!gpu->zeta || pass < 0 || pass >= AC_SHOCK_PASSES)
        return AC_ERR_ARGUMENT;
    gpu->profile_fresh = 0;
    if (gpu->k->shock_profile_pass(&gpu->grid, gpu->buf.home, gpu->zeta, pass, written, gpu->stream) != AC_OK)
        return AC_ERR_DEVICE;
    CHECK(cudaStreamSynchronize(gpu->stream), "shock profile pass");
    return AC_OK;
}

/* The padded arrays the passes write: 0 the profile, 1 its gradient's x
 * (the passes' scratch, as the CPU's). */
static void *gpu_shock_data(void *self, int which)
{
    ac_gpu *gpu = (ac_gpu *)self;
    return gpu->zeta ? (char *)gpu->zeta + (which ? gpu->field_bytes : 0) : NULL;
}

static ac_status gpu_shock_max(void *self, int made, double *out)
{
    ac_gpu *gpu = (ac_gpu *)self;
    unsigned int flags = 0;
    ac_status st = made ? (gpu->zeta ? AC_OK : AC_ERR_UNSUPPORTED) : queue_shock_profile(gpu);
    if (st == AC_OK && (st = clear_reduction(gpu, gpu->stream)) == AC_OK &&
        (st = gpu->k->max_interior(&gpu->grid, gpu->zeta, gpu->max_u2_bits, gpu->nonfinite, gpu->stream)) == AC_OK &&
        (st = read_reduction(gpu, out, &flags)) == AC_OK && flags)
        *out = NAN;
    return st;
}

static ac_status gpu_add_forcing(void *self, const ac_forcing_term *term, double dt)
{
    ac_gpu *gpu = (ac_gpu *)self;
    gpu->profile_fresh = 0;
    return gpu->k->add_forcing(&gpu->grid, gpu->buf.home, term, dt, gpu->stream);
}

/* The device twin of Simulation.cfl_dt and of a step of _CflSteps
 * (simulation.py), operation for operation in double precision (none of
 * them can contract to an FMA), so that run_cfl takes the host loop's steps
 * bit for bit.  Reads the reduction's results and clears them for the next
 * step's. */
__device__ void cfl_step(ac_cfl_run *run, unsigned long long *max_bits, unsigned int *nonfinite, int mhd,
                         int check_only)
{
    const double reduced = __longlong_as_double((long long)*max_bits); /* max |u|^2; with MHD the signal speed */
    const unsigned int flags = *nonfinite;
    *max_bits = 0;
    *nonfinite = 0;
    run->step_dt = NAN; /* the substeps of an ended run do nothing */
    if (run->nonfinite)
        return;
    const double speed = mhd ? reduced : sqrt(reduced) + run->cs;
    if (flags || !isfinite(speed)) { /* before a step, or after the run's last */
        run->nonfinite = 1;
        return;
    }
    if (check_only || !(run->t < run->until) || run->taken >= run->step_limit)
        return;
    double dt = speed > 0.0 ? run->cdt_dxmin / speed : INFINITY;
    if (run->viscous_dt < dt)
        dt = run->viscous_dt;
    const bool last = run->t + dt >= run->until;
    if (last)
        dt = run->until - run->t;
    run->t = last ? run->until : run->t + dt;
    run->dt = run->step_dt = dt;
    run->taken += 1;
}

__global__ void cfl_step_kernel(ac_cfl_run *run, unsigned long long *max_bits, unsigned int *nonfinite, int mhd)
{
    cfl_step(run, max_bits, nonfinite, mhd, 0);
}

/* An ensemble's members' states and reductions: thread i steps member i. */
typedef struct {
    ac_cfl_run *run[AC_MAX_MEMBERS];
    unsigned long long *max_bits[AC_MAX_MEMBERS];
    unsigned int *nonfinite[AC_MAX_MEMBERS];
} member_states;

/* The members' states from one staged copy, their reductions cleared. */
__global__ void begin_members_kernel(member_states m, const ac_cfl_run *staged, int count)
{
    if ((int)threadIdx.x < count) {
        *m.run[threadIdx.x] = staged[threadIdx.x];
        *m.max_bits[threadIdx.x] = 0;
        *m.nonfinite[threadIdx.x] = 0;
    }
}

/* ... and back, for one copy to the host. */
__global__ void end_members_kernel(member_states m, ac_cfl_run *staged, int count)
{
    if ((int)threadIdx.x < count)
        staged[threadIdx.x] = *m.run[threadIdx.x];
}

/* check_only: after the last step, whether its fields are finite; mhd:
 * the reductions hold the signal speed (cfl_step). */
__global__ void cfl_members_kernel(member_states m, int count, int check_only, int mhd)
{
    if ((int)threadIdx.x < count)
        cfl_step(m.run[threadIdx.x], m.max_bits[threadIdx.x], m.nonfinite[threadIdx.x], mhd, check_only);
}

/* Whether a forced step's last substep adds the forcing (stream_substep.cuh):
 * where its instance does (ac_forces_in_substep) and nothing changes the
 * fields between that kernel and the forcing, which the walls and gravity
 * do after it. */
static bool forcing_in_substep(const ac_gpu *gpu)
{
    return ac_forces_in_substep(ac_config(gpu->grid.modules, 0u)) && !gpu->grid.bc.walls &&
           !(ac_grid_terms(&gpu->grid) & AC_TERM_GRAVITY);
}

/* Whether run_cfl's steps take the deferred order (schedules.cuh): where
 * the kernels hold it for the grid (cuda_defers), nothing changes the
 * fields between a step's kernels (the walls' and gravity's kernels do),
 * and its fourth set of arrays fits in the GPU's memory; else the plain
 * order.  ASTAROTH_PLAIN_ORDER=1 keeps the plain order, to compare. */
static bool deferred_order(ac_gpu *gpu)
{
    const char *plain = getenv("ASTAROTH_PLAIN_ORDER");
    if ((plain && plain[0] == '1') || gpu->grid.bc.walls || (ac_grid_terms(&gpu->grid) & AC_TERM_GRAVITY) ||
        !gpu->k->defers(&gpu->grid))
        return false;
    for (int f = 0; f < gpu->grid.fields; ++f)
        if (!gpu->buf.stage_b[f] && device_zeros(&gpu->buf.stage_b[f], gpu->field_bytes) != AC_OK) {
            for (int g = 0; g < f; ++g) { /* the plain order, which needs none of them */
                device_free(gpu->buf.stage_b[g]);
                gpu->buf.stage_b[g] = NULL;
            }
            cudaGetLastError(); /* out of memory is not sticky */
            return false;
        }
    return true;
}

/* Substep s of a step in the deferred order: the first reduces the signal
 * speed of the step's fields where device_step->max_u2_bits points, the
 * others read the step's length at device_step->dt. */
static ac_status run_deferred_substep(ac_gpu *gpu, int s, const ac_device_step *device_step)
{
    const stage_roles r = roles_of(&gpu->buf, deferred_role_sets[s]);
    gpu->profile_fresh = 0;
    if (s < 2)
        return gpu->k->substep_deferred(&gpu->grid, r.in, r.out, r.w_in, r.w_out,
                                        s == 0 ? AC_DEFER_RHS : AC_DEFER_FORM, device_step, gpu->stream);
    return gpu->k->substep_mhd(&gpu->grid, NULL, r.in, r.out, r.w_in, r.w_out, NULL, s, 0.0, device_step,
                               gpu->stream);
}

/* Queues one step of run_cfl: its reduction where every step needs one
 * (else the step before made it in its last substep, or in the deferred
 * order the step's first substep makes it), its dt, its three substeps and
 * its forcing: in the last substep's kernel where it can
 * (forcing_in_substep), else a kernel after it. */
static ac_status queue_cfl_step(ac_gpu *gpu, int full, bool each_step, bool forced)
{
    /* the wall values were set where the step before ended (and where the run began: begin_cfl_run), and
     * nothing changes the fields between steps (no forcing with walls) */
    const bool walls = gpu->grid.bc.walls != 0;
    const bool fused_forcing = forced && forcing_in_substep(gpu);
    ac_status st = AC_OK;
    const ac_device_step first = {&gpu->cfl->step_dt, gpu->max_u2_bits, gpu->nonfinite, NULL};
    if (gpu->defers && (st = run_deferred_substep(gpu, 0, &first)) != AC_OK)
        return st;
    if (!gpu->defers && each_step &&
        (st = full ? queue_signal_reduction(gpu, 1, 0) : queue_reduction(gpu, 0, 0, 0)) != AC_OK)
        return st;
    cfl_step_kernel<<<1, 1, 0, gpu->stream>>>(gpu->cfl, gpu->max_u2_bits, gpu->nonfinite, full);
    CHECK(cudaGetLastError(), "CFL step launch");
    if (fused_forcing &&
        (st = gpu->k->forcing_step(&gpu->grid, gpu->samples, gpu->cfl, gpu->step_forcing, gpu->stream)) != AC_OK)
        return st;
    const ac_device_step plain = {&gpu->cfl->step_dt, NULL, NULL, NULL},
                         last = {&gpu->cfl->step_dt, each_step ? NULL : gpu->max_u2_bits,
                                 each_step ? NULL : gpu->nonfinite, fused_forcing ? gpu->step_forcing : NULL};
    for (int s = gpu->defers ? 1 : 0; s < 3; ++s)
        if ((st = gpu->defers ? run_deferred_substep(gpu, s, s == 2 ? &last : &plain)
                              : run_substep(gpu, NULL, s, 0.0, s == 2 ? &last : &plain, 0, NULL)) != AC_OK)
            return st;
    if (walls && (st = gpu->k->set_walls(&gpu->grid, gpu->buf.home, gpu->stream)) != AC_OK) /* as gpu_step ends */
        return st;
    /* (every step reduces in a launch of its own where the forcing cannot be in the substep: begin_cfl_run) */
    return forced && !fused_forcing
               ? gpu->k->add_forcing_sample(&gpu->grid, gpu->buf.home, gpu->samples, gpu->cfl, gpu->stream)
               : AC_OK;
}

/* queue_cfl_step `steps` times on `stream` (the launchers queue on
 * gpu->stream, which is the grid's own again after). */
static ac_status queue_cfl_steps_on(ac_gpu *gpu, cudaStream_t stream, int steps, int full, bool each_step, bool forced)
{
    cudaStream_t own = gpu->stream;
    gpu->stream = stream;
    ac_status st = AC_OK;
    for (int n = 0; n < steps && st == AC_OK; ++n)
        st = queue_cfl_step(gpu, full, each_step, forced);
    gpu->stream = own;
    return st;
}

/* Why gpu_run_cfl cannot take a run: shock viscosity (its profile's
 * maximum sets dt) is stepped from the host, and so are the 19-point method
 * and the shearing box (its deltay advances on the host, for the weights of
 * each substep's shifted x ghosts: ac_device_loop_runs); AC_OK where it
 * can. */
static ac_status cfl_run_refused(const ac_gpu *gpu, long max_steps, const ac_forcing_batch *forcing)
{
    if (gpu->method != AC_METHOD_55P || gpu->zeta || (ac_grid_terms(&gpu->grid) & AC_TERM_SHEAR) ||
        (forcing && (forcing->count < max_steps || forcing->count > AC_FORCING_SAMPLES_AHEAD)))
        return AC_ERR_UNSUPPORTED;
    return AC_OK;
}

/* `count` step forcings of grid g's shape (kernels.h) at *out: their
 * terms, then each one's phase tables. */
static ac_status make_step_forcings(const ac_grid *g, int count, ac_step_forcing **out)
{
    const int *n = g->n, points = n[0] + n[1] + n[2];
    ac_step_forcing layout[AC_MAX_MEMBERS];
    memset(layout, 0, sizeof layout);
    ac_status st = device_zeros((void **)out, count * (sizeof *layout + (size_t)points * sizeof(ac_forcing_phase)));
    if (st != AC_OK)
        return st;
    for (int i = 0; i < count; ++i) {
        layout[i].along[0] = (ac_forcing_phase *)(*out + count) + (size_t)i * points;
        layout[i].along[1] = layout[i].along[0] + n[0];
        layout[i].along[2] = layout[i].along[1] + n[1];
    }
    if ((st = ac_cuda_record(cudaMemcpy(*out, layout, count * sizeof *layout, cudaMemcpyHostToDevice),
                             "forcing tables")) != AC_OK) {
        device_free(*out); /* not left for a later run to read through its unset pointers */
        *out = NULL;
    }
    return st;
}

/* A run's state at its start (on the host): a solo run's (start_run) and
 * each ensemble member's (run_members). */
static void start_run_state(ac_gpu *gpu, ac_cfl_run *run, long max_steps, const ac_forcing_batch *forcing)
{
    run->taken = 0;
    run->nonfinite = 0;
    run->step_limit = max_steps;
    run->forcing_f0 = forcing ? forcing->f0 : 0.0;
    run->forcing_cs = forcing ? forcing->cs : 0.0;
    gpu->profile_fresh = 0;
}

/* ... and with `forcing` its draws copied to the device's samples on
 * `stream`: begin_cfl_run's, for a solo run and for each member that
 * run_members_graphed steps (run_members copies its members' draws in one
 * copy: upload_member_samples). */
static ac_status start_run(ac_gpu *gpu, ac_cfl_run *run, long max_steps, const ac_forcing_batch *forcing,
                           cudaStream_t stream)
{
    start_run_state(gpu, run, max_steps, forcing);
    if (!forcing)
        return AC_OK;
    ac_status st = AC_OK;
    if (!gpu->samples &&
        (st = device_zeros((void **)&gpu->samples, AC_FORCING_SAMPLES_AHEAD * sizeof *gpu->samples)) != AC_OK)
        return st;
    CHECK(cudaMemcpyAsync(gpu->samples, forcing->samples, forcing->count * sizeof *gpu->samples,
                          cudaMemcpyHostToDevice, stream),
          "forcing samples");
    return AC_OK;
}

/* The room of a run's step forcing on the device, where its last substep
 * adds the forcing (forcing_in_substep). */
static ac_status step_forcing_room(ac_gpu *gpu)
{
    return gpu->step_forcing ? AC_OK : make_step_forcings(&gpu->grid, 1, &gpu->step_forcing);
}

/* Queues the start of a run on `stream`: its state and forcing samples
 * copied to the device, and the reduction its first step reads.  *each_step:
 * every step reduces with a launch of its own (queue_cfl_step).  Plain
 * hydro and the entropy module's sets: the last substep of a step reduces
 * what it writes for the next step (every field's flags, checked every
 * step), forced or not (it adds the forcing first); only the first step
 * needs a reduction launch.  Where the signal speed reads a gradient (B),
 * walls or gravity change the fields after the last substep's kernel, or
 * the configuration has no instance that fuses the reduction
 * (ac_reduces_in_substep), a launch every step.  Either way the first
 * clears what the host's reductions left; cfl_step_kernel clears the rest.
 * Steps past the run's end or its step_limit do nothing. */
static ac_status begin_cfl_run(ac_gpu *gpu, ac_cfl_run *run, long max_steps, const ac_forcing_batch *forcing,
                               cudaStream_t stream, bool *each_step)
{
    ac_status st = start_run(gpu, run, max_steps, forcing, stream);
    gpu->defers = false; /* (gpu_run_cfl's steps may take the deferred order; an ensemble's members do not) */
    if (st != AC_OK)
        return st;
    if (forcing && forcing_in_substep(gpu) && (st = step_forcing_room(gpu)) != AC_OK)
        return st;
    CHECK(cudaMemcpyAsync(gpu->cfl, run, sizeof *run, cudaMemcpyHostToDevice, stream), "CFL run state");
    /* as the host's step begins: the wall values ('a', 'set'); each step ends setting them again */
    if (gpu->grid.bc.walls && (st = gpu->k->set_walls(&gpu->grid, gpu->buf.home, stream)) != AC_OK)
        return st;
    /* the forcing is added by the last substep's kernel before it reduces (forcing_in_substep) */
    *each_step = !last_substep_reduces(gpu);
    /* (the signal speed's reduction reads no gradient where the last substep reduces it: no ghost zones to fill) */
    return *each_step ? clear_reduction(gpu, stream)
                      : queue_reduction_on(gpu, run->full_reduction, NULL, 0, 1, stream);
}

/* A split grid's last substep finishes the step as the device loop's
 * (last_substep_reduces, forcing_in_substep), where the device loop could
 * take the grid (cfl_run_refused): a one-step run's state where its
 * instances read it, the step's draw its first sample, from which the
 * device makes the step's forcing (forcing_step), as the device loop does. */
static ac_status gpu_set_step_reduction(void *self, int on, double dt, const ac_forcing_batch *forcing, int *armed)
{
    ac_gpu *gpu = (ac_gpu *)self;
    gpu->regions_reduce = on && (!forcing || forcing_in_substep(gpu)) && cfl_run_refused(gpu, 0, NULL) == AC_OK &&
                          last_substep_reduces(gpu);
    gpu->regions_force = gpu->regions_reduce && forcing;
    *armed = gpu->regions_reduce;
    if (!gpu->regions_reduce)
        return AC_OK;
    ac_cfl_run run;
    memset(&run, 0, sizeof run);
    ac_status st = start_run(gpu, &run, 1, forcing, gpu->stream);
    if (st == AC_OK && forcing)
        st = step_forcing_room(gpu);
    if (st != AC_OK)
        return st;
    run.step_dt = dt;
    run.taken = 1; /* (the step being taken, whose sample forcing_step reads) */
    CHECK(cudaMemcpyAsync(gpu->cfl, &run, sizeof run, cudaMemcpyHostToDevice, gpu->stream), "the step's state");
    if (forcing && (st = gpu->k->forcing_step(&gpu->grid, gpu->samples, gpu->cfl, gpu->step_forcing, gpu->stream)) !=
                       AC_OK)
        return st;
    return clear_reduction(gpu, gpu->stream);
}

static ac_status gpu_step_reduction(void *self, double *speed, int *nonfinite_field)
{
    ac_gpu *gpu = (ac_gpu *)self;
    gpu->regions_reduce = gpu->regions_force = false;
    double reduced = 0.0;
    unsigned int flags = 0;
    const ac_status st = read_reduction(gpu, &reduced, &flags);
    if (st != AC_OK)
        return st;
    /* plain hydro's max |u|^2 and NaN from the velocity's flags, as gpu_max_speed; else the signal speed and NaN
     * from every field's, as gpu_max_signal_speed */
    const bool uniform = ac_signal_speed_uniform(gpu->grid.modules, ac_grid_terms(&gpu->grid));
    unsigned int read = uniform ? 0u : flags;
    for (int i = 0; uniform && i < 3; ++i)
        read |= flags & (1u << ac_field_index(gpu->grid.modules, AC_FIELD_ux + i));
    *speed = read ? (double)NAN : uniform ? sqrt(reduced) : reduced;
    *nonfinite_field = first_flagged(gpu, flags);
    return AC_OK;
}

static ac_status gpu_run_cfl(void *self, ac_cfl_run *run, long max_steps, const ac_forcing_batch *forcing)
{
    ac_gpu *gpu = (ac_gpu *)self;
    bool each_step = true;
    ac_status st = cfl_run_refused(gpu, max_steps, forcing);
    if (st == AC_OK)
        st = begin_cfl_run(gpu, run, max_steps, forcing, gpu->stream, &each_step);
    if (st == AC_OK) /* its first substep reduces the signal speed, so every step does */
        gpu->defers = run->full_reduction && each_step && deferred_order(gpu);
    for (long n = 0; n < max_steps && st == AC_OK; ++n)
        st = queue_cfl_step(gpu, run->full_reduction, each_step, forcing != NULL);
    if (st != AC_OK)
        return st;
    CHECK(cudaMemcpyAsync(run, gpu->cfl, sizeof *run, cudaMemcpyDeviceToHost, gpu->stream), "CFL run state");
    CHECK(cudaStreamSynchronize(gpu->stream), "CFL steps");
    return AC_OK;
}

/* Steps of every member a CUDA graph holds (run_members_graphed): one
 * launch queues them all, where a launch per kernel and member would leave
 * small grids waiting on the host (ASTAROTH_NO_GRAPHS=1: a launch each, to
 * compare). */
enum { GRAPH_STEPS = 8 };

static bool graphs_wanted(void)
{
    const char *no = getenv("ASTAROTH_NO_GRAPHS");
    return !(no && no[0] == '1');
}

/* The graph of GRAPH_STEPS steps of every member, each member's a chain of
 * its own (queue_cfl_step) beside the others', captured where the members
 * differ from those of the graph the first member holds; NULL where
 * capturing failed (then the steps are launched one by one).  The arrays and
 * run states it reads are the grids' for their lives, and the key names the
 * grids by serial, so a graph is never launched for grids that are gone.
 * Captured from streams of its own that do not wait on the legacy stream,
 * so that other threads' work there cannot break the capture. */
static cudaGraphExec_t members_graph(ac_gpu *const *gpus, const ac_cfl_run *runs,
                                     const ac_forcing_batch *const *forcings, const bool *each_step, int count)
{
    ac_gpu *first = gpus[0];
    unsigned long long key[AC_MAX_MEMBERS];
    for (int i = 0; i < count; ++i)
        key[i] = gpus[i]->serial | (forcings[i] ? 1ull << 63 : 0ull) | (runs[i].full_reduction ? 1ull << 62 : 0ull);
    if (first->members_graph && first->members_count == count &&
        memcmp(first->members_key, key, count * sizeof *key) == 0)
        return first->members_graph;
    if (first->members_graph)
        cudaGraphExecDestroy(first->members_graph);
    first->members_graph = NULL;
    free(first->members_key);
    first->members_key = NULL;
    cudaStream_t capture = NULL, chains[AC_MAX_MEMBERS] = {NULL};
    cudaEvent_t fork = NULL, joins[AC_MAX_MEMBERS] = {NULL};
    cudaGraph_t graph = NULL;
    bool ok = cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking) == cudaSuccess &&
              cudaEventCreateWithFlags(&fork, cudaEventDisableTiming) == cudaSuccess &&
              cudaStreamBeginCapture(capture, cudaStreamCaptureModeRelaxed) == cudaSuccess;
    const bool capturing = ok;
    ok = ok && cudaEventRecord(fork, capture) == cudaSuccess;
    for (int i = 0; i < count && ok; ++i) {
        ok = cudaStreamCreateWithFlags(&chains[i], cudaStreamNonBlocking) == cudaSuccess &&
             cudaEventCreateWithFlags(&joins[i], cudaEventDisableTiming) == cudaSuccess &&
             cudaStreamWaitEvent(chains[i], fork, 0) == cudaSuccess &&
             queue_cfl_steps_on(gpus[i], chains[i], GRAPH_STEPS, runs[i].full_reduction, each_step[i],
                                forcings[i] != NULL) == AC_OK;
        ok = ok && cudaEventRecord(joins[i], chains[i]) == cudaSuccess &&
             cudaStreamWaitEvent(capture, joins[i], 0) == cudaSuccess;
    }
    if (capturing)
        ok = cudaStreamEndCapture(capture, &graph) == cudaSuccess && ok;
    ok = ok && cudaGraphInstantiate(&first->members_graph, graph, 0) == cudaSuccess;
    if (ok && (first->members_key = (unsigned long long *)malloc(count * sizeof *key)) != NULL) {
        memcpy(first->members_key, key, count * sizeof *key);
        first->members_count = count;
    } else if (first->members_graph) {
        cudaGraphExecDestroy(first->members_graph);
        first->members_graph = NULL;
    }
    if (graph)
        cudaGraphDestroy(graph);
    for (int i = 0; i < count; ++i) {
        if (joins[i])
            cudaEventDestroy(joins[i]);
        if (chains[i])
            cudaStreamDestroy(chains[i]);
    }
    if (fork)
        cudaEventDestroy(fork);
    if (capture)
        cudaStreamDestroy(capture);
    cudaGetLastError(); /* a capture that failed leaves no error behind: the steps are launched one by one */
    return first->members_graph;
}

/* The members' runs from one host thread, on the first member's stream:
 * their steps in the graph of members_graph, or launched member by member.
 * Each member's kernels are those of its own run_cfl, so it ends as that
 * would, bit for bit. */
static ac_status run_members_graphed(ac_gpu *const *gpus, ac_cfl_run *runs, const ac_forcing_batch *const *forcings,
                                     int count, long max_steps)
{
    ac_gpu *first = gpus[0];
    cudaStream_t stream = first->stream;
    bool each_step[AC_MAX_MEMBERS];
    for (int i = 0; i < count; ++i)
        if (gpus[i]->device != first->device || cfl_run_refused(gpus[i], max_steps, forcings[i]) != AC_OK)
            return AC_ERR_UNSUPPORTED;
    ac_status st = AC_OK;
    for (int i = 0; i < count && st == AC_OK; ++i) {
        CHECK(cudaStreamSynchronize(gpus[i]->stream), "ensemble member's earlier work");
        st = begin_cfl_run(gpus[i], &runs[i], max_steps, forcings[i], stream, &each_step[i]);
    }
    const cudaGraphExec_t graph =
        st == AC_OK && graphs_wanted() ? members_graph(gpus, runs, forcings, each_step, count) : NULL;
    for (long n = 0; n < max_steps && st == AC_OK; n += graph ? GRAPH_STEPS : 1) {
        if (graph) {
            st = ac_cuda_record(cudaGraphLaunch(graph, stream), "ensemble CFL steps launch");
            continue;
        }
        for (int i = 0; i < count && st == AC_OK; ++i)
            st = queue_cfl_steps_on(gpus[i], stream, 1, runs[i].full_reduction, each_step[i], forcings[i] != NULL);
    }
    for (int i = 0; i < count && st == AC_OK; ++i)
        st = ac_cuda_record(cudaMemcpyAsync(&runs[i], gpus[i]->cfl, sizeof *runs, cudaMemcpyDeviceToHost, stream),
                            "CFL run states");
    if (st != AC_OK)
        return st;
    CHECK(cudaStreamSynchronize(stream), "ensemble CFL steps");
    return AC_OK;
}

/* Whether grid b, run rb, can step in one launch with grid a, run ra
 * (cuda_substep_members, whose kernels read the x ghost zones from their
 * periodic images: stream_wraps_x): one device, precision, shape and configuration
 * (modules and kernel terms), one that the device loop runs
 * (ac_device_loop_runs: no shock viscosity, no shear), by the 55-point
 * method, without walls or gravity (whose kernels of their own the shared
 * launches do not have), reducing as a's run does; where the reduction is
 * the signal speed its terms are a's too (cuda_signal_members reads a's). */
static bool goes_with(const ac_gpu *a, const ac_cfl_run *ra, const ac_gpu *b, const ac_cfl_run *rb)
{
    const unsigned terms = ac_grid_terms(&b->grid);
    return b->device == a->device && b->method == AC_METHOD_55P && b->k == a->k && !b->grid.bc.walls &&
           !(terms & AC_TERM_GRAVITY) && grid_config(&b->grid) == grid_config(&a->grid) &&
           ac_device_loop_runs(grid_config(&b->grid)) &&
           configuration_built(&b->grid, b->method) && rb->full_reduction == ra->full_reduction &&
           (!rb->full_reduction || terms == ac_grid_terms(&a->grid)) &&
           !(rb->full_reduction && grid_config(&b->grid) == ac_config(AC_MODULE_HYDRO, 0u)) &&
           b->grid.n[0] % (int)(16 / b->element_bytes) == 0 && b->grid.lo[0] % (int)(16 / b->element_bytes) == 0 &&
           b->grid.n[0] >= AC_GHOST && b->grid.n[0] == a->grid.n[0] &&
           b->grid.n[1] == a->grid.n[1] && b->grid.n[2] == a->grid.n[2];
}

/* Member runs stepped in shared launches since the process began (an
 * ensemble's test reads it: ac_cuda_shared_member_runs). */
static unsigned long long shared_member_runs = 0;

extern "C" unsigned long long ac_cuda_shared_member_runs(void)
{
    return __atomic_load_n(&shared_member_runs, __ATOMIC_RELAXED);
}

/* The reduction for the next step of the `count` members in the table,
 * led by `first`: the signal speed where `full`, else max |u|^2. */
static ac_status reduce_members(const ac_gpu *first, int full, int count, cudaStream_t stream)
{
    return full ? first->k->signal_members(&first->grid, count, stream)
                : first->k->reduce_members(&first->grid, count, stream);
}

/* Every forced member's draws in one copy from pinned memory to the first
 * member's member_samples, member i's at i * stride, not a copy each from
 * pageable memory (each of which the host waits on). */
static ac_status upload_member_samples(ac_gpu *first, const ac_forcing_batch *const *forcings, int count,
                                       size_t stride, cudaStream_t stream)
{
    const size_t room = (size_t)count * stride;
    CHECK(cudaStreamSynchronize(stream), "ensemble's earlier work"); /* (its last copy from the pinned buffer) */
    if (room > first->member_samples_room) {
        device_free(first->member_samples);
        if (first->member_samples_host && cudaFreeHost(first->member_samples_host) != cudaSuccess)
            fprintf(stderr, "astaroth: cudaFreeHost failed\n");
        first->member_samples = first->member_samples_host = NULL;
        first->member_samples_room = 0;
        const ac_status st = device_zeros((void **)&first->member_samples, room * sizeof *first->member_samples);
        if (st != AC_OK)
            return st;
        CHECK(cudaMallocHost((void **)&first->member_samples_host, room * sizeof *first->member_samples_host),
              "pinned forcing samples");
        first->member_samples_room = room;
    }
    for (int i = 0; i < count; ++i) {
        if ((size_t)forcings[i]->count > stride)
            return AC_ERR_ARGUMENT;
        memcpy(first->member_samples_host + (size_t)i * stride, forcings[i]->samples,
               forcings[i]->count * sizeof *first->member_samples_host);
    }
    CHECK(cudaMemcpyAsync(first->member_samples, first->member_samples_host, room * sizeof *first->member_samples,
                          cudaMemcpyHostToDevice, stream),
          "ensemble forcing samples");
    return AC_OK;
}

/* The members' CFL steps, all of them in each launch: one kernel for their
 * dt, one per substep, and where they are forced either the terms of
 * their forcing before the substeps, for the last to add
 * (forcing_in_substep), or the forcing after them; where the
 * configuration's last substep does not reduce (ac_reduces_in_substep: the
 * signal speed reads a gradient) the reduction for every member in one
 * launch each step, else the last substep reduces (after the forcing it
 * adds), as a solo run's does (begin_cfl_run).
 * forcings: every member's draws, or NULL (none forced).  Their own streams are drained first; the work goes to
 * the first member's stream. */
static ac_status run_members(ac_gpu *const *gpus, ac_cfl_run *runs, const ac_forcing_batch *const *forcings, int count,
                             long max_steps)
{
    ac_gpu *first = gpus[0];
    cudaStream_t stream = first->stream;
    const int full = runs[0].full_reduction;
    const bool forced = forcings != NULL;
    const bool each_step = !ac_reduces_in_substep(ac_config(first->grid.modules, 0u));
    const bool fused_forcing = forced && forcing_in_substep(first);
    ac_member members[AC_MAX_MEMBERS];
    member_states states;
    ac_member_forcing forcing[AC_MAX_MEMBERS];
    if (forced && !first->member_forcings) {
        const ac_status st =
            device_zeros((void **)&first->member_forcings, AC_MAX_MEMBERS * sizeof *first->member_forcings);
        if (st != AC_OK)
            return st;
    }
    if (fused_forcing && !first->member_step_forcings) {
        const ac_status st = make_step_forcings(&first->grid, AC_MAX_MEMBERS, &first->member_step_forcings);
        if (st != AC_OK)
            return st;
    }
    const size_t stride = forced ? (size_t)max_steps : 0; /* (every member drew as many: forcing_draw_ahead) */
    if (forced) {
        const ac_status st = upload_member_samples(first, forcings, count, stride, stream);
        if (st != AC_OK)
            return st;
    }
    for (int i = 0; i < count; ++i) {
        ac_gpu *gpu = gpus[i];
        CHECK(cudaStreamSynchronize(gpu->stream), "ensemble member's earlier work");
        start_run_state(gpu, &runs[i], max_steps, forced ? forcings[i] : NULL);
        if (forced) {
            forcing[i].samples = first->member_samples + (size_t)i * stride;
            forcing[i].run = gpu->cfl;
            for (int a = 0; a < 3; ++a) {
                forcing[i].origin[a] = gpu->grid.origin[a];
                forcing[i].spacing[a] = gpu->grid.spacing[a];
                forcing[i].offset[a] = gpu->grid.offset[a];
            }
        }
        members[i].grid = &gpu->grid;
        for (int f = 0; f < AC_MAX_FIELDS; ++f) {
            members[i].sets[SET_HOME][f] = gpu->buf.home[f];
            members[i].sets[SET_STAGE_A][f] = gpu->buf.stage_a[f];
            members[i].sets[SET_W][f] = gpu->buf.w[f];
        }
        members[i].step.dt = &gpu->cfl->step_dt;
        members[i].step.max_u2_bits = gpu->max_u2_bits;
        members[i].step.nonfinite = gpu->nonfinite;
        states.run[i] = gpu->cfl;
        states.max_bits[i] = gpu->max_u2_bits;
        states.nonfinite[i] = gpu->nonfinite;
    }
    if (!first->member_runs) {
        ac_status st = device_zeros((void **)&first->member_runs, AC_MAX_MEMBERS * sizeof *first->member_runs);
        if (st != AC_OK)
            return st;
    }
    CHECK(cudaMemcpyAsync(first->member_runs, runs, count * sizeof *runs, cudaMemcpyHostToDevice, stream),
          "CFL run states");
    /* from pageable memory: staged before the call returns */
    if (forced)
        CHECK(cudaMemcpyAsync(first->member_forcings, forcing, count * sizeof *forcing, cudaMemcpyHostToDevice, stream),
              "ensemble forcing table");
    begin_members_kernel<<<1, AC_MAX_MEMBERS, 0, stream>>>(states, first->member_runs, count);
    CHECK(cudaGetLastError(), "ensemble start launch");
    ac_status st = first->k->load_members(members, count, stream);
    if (st == AC_OK && !each_step) /* the first step's reduction; later steps' come from their last substep */
        st = reduce_members(first, full, count, stream);
    for (long n = 0; n < max_steps && st == AC_OK; ++n) {
        if (each_step && (st = reduce_members(first, full, count, stream)) != AC_OK)
            break;
        cfl_members_kernel<<<1, AC_MAX_MEMBERS, 0, stream>>>(states, count, 0, full);
        CHECK(cudaGetLastError(), "ensemble CFL step launch");
        if (fused_forcing && (st = first->k->forcing_members_step(&first->grid, count, first->member_forcings,
                                                                   first->member_step_forcings, stream)) != AC_OK)
            break;
        for (int s = 0; s < 3 && st == AC_OK; ++s)
            st = first->k->substep_members(&first->grid, count, role_sets[s], s,
                                           s == 2 && !each_step && (!forced || fused_forcing),
                                           s == 2 && fused_forcing ? first->member_step_forcings : NULL, stream);
        if (st == AC_OK && forced && !fused_forcing)
            st = first->k->force_members(&first->grid, count, first->member_forcings, stream);
    }
    if (st != AC_OK)
        return st;
    if (!each_step) { /* the last step's NaN check (a solo run's each_step leaves it to the next run's first step) */
        cfl_members_kernel<<<1, AC_MAX_MEMBERS, 0, stream>>>(states, count, 1, full);
        CHECK(cudaGetLastError(), "ensemble NaN check launch");
    }
    end_members_kernel<<<1, AC_MAX_MEMBERS, 0, stream>>>(states, first->member_runs, count);
    CHECK(cudaGetLastError(), "ensemble end launch");
    CHECK(cudaMemcpyAsync(runs, first->member_runs, count * sizeof *runs, cudaMemcpyDeviceToHost, stream),
          "CFL run states");
    CHECK(cudaStreamSynchronize(stream), "ensemble CFL steps");
    __atomic_add_fetch(&shared_member_runs, (unsigned long long)count, __ATOMIC_RELAXED);
    return AC_OK;
}

/* One ensemble at a time loads the kernels' member table and launches. */
static pthread_mutex_t members_lock = PTHREAD_MUTEX_INITIALIZER;

/* Members of one configuration and shape (goes_with), all forced or none,
 * step in shared launches (run_members), as many a launch as the member
 * table holds of them (members.cuh); any others of one GPU in one graph
 * (run_members_graphed). */
static ac_status gpu_run_cfl_members(void *const *selves, ac_cfl_run *runs, const ac_forcing_batch *const *forcings,
                                     int count, long max_steps)
{
    ac_gpu *const *gpus = (ac_gpu *const *)selves;
    if (count < 1 || count > AC_MAX_MEMBERS)
        return count < 1 ? AC_ERR_ARGUMENT : AC_ERR_UNSUPPORTED;
    /* full_reduction as begin_cfl_run finds it (the binding's grid_cfl_run_limits set it) */
    bool shared = true;
    for (int i = 0; i < count; ++i)
        shared = shared && !forcings[i] == !forcings[0] &&
                 cfl_run_refused(gpus[i], max_steps, forcings[i]) == AC_OK &&
                 goes_with(gpus[0], &runs[0], gpus[i], &runs[i]);
    const int most = shared ? gpus[0]->k->members_capacity(&gpus[0]->grid) : 0;
    if (!shared || most < 1)
        return run_members_graphed(gpus, runs, forcings, count, max_steps);
    ac_status st = AC_OK;
    pthread_mutex_lock(&members_lock);
    for (int at = 0; at < count && st == AC_OK; at += most) {
        const int members = count - at < most ? count - at : most;
        st = run_members(gpus + at, runs + at, forcings[0] ? forcings + at : NULL, members, max_steps);
    }
    pthread_mutex_unlock(&members_lock);
    return st;
}

/* The boxes of c between the padded arrays and their buffers (backend.h):
 * block row y is box y. */
template <typename T>
__global__ void copy_boxes_kernel(ac_box_copies c, unsigned plane, unsigned row, int unpack)
{
    const long long *b = c.boxes + 4 * blockIdx.y;
    const unsigned ni = (unsigned)b[0], nj = (unsigned)b[1], size = ni * nj * (unsigned)b[2];
    T *held = (T *)c.buffers[blockIdx.y];
    for (unsigned t = blockIdx.x * blockDim.x + threadIdx.x; t < size * (unsigned)c.array_count;
         t += gridDim.x * blockDim.x) {
        const unsigned q = t / size, p = t - q * size;
        const unsigned i = p % ni, rest = p / ni, j = rest % nj, k = rest / nj;
        T *value = (T *)c.arrays[q] + b[3] + (size_t)k * plane + (size_t)j * row + i;
        if (unpack)
            *value = held[t];
        else
            held[t] = *value;
    }
}

static ac_status gpu_copy_boxes(void *self, const ac_box_copies *c, int unpack, void *stream)
{
    ac_gpu *gpu = (ac_gpu *)self;
    if (c->box_count < 1 || c->array_count < 1 || c->largest < 1)
        return c->box_count == 0 ? AC_OK : AC_ERR_ARGUMENT;
    const long long blocks = (c->largest + 255) / 256;
    const dim3 grid((unsigned)(blocks < 2048 ? blocks : 2048), (unsigned)c->box_count);
    const unsigned row = (unsigned)gpu->grid.m[0], plane = row * (unsigned)gpu->grid.m[1];
    cudaStream_t on = stream ? (cudaStream_t)stream : gpu->stream;
    if (gpu->element_bytes == 8)
        copy_boxes_kernel<double><<<grid, 256, 0, on>>>(*c, plane, row, unpack);
    else
        copy_boxes_kernel<float><<<grid, 256, 0, on>>>(*c, plane, row, unpack);
    CHECK(cudaGetLastError(), unpack ? "unpacking messages" : "packing messages");
    return AC_OK;
}

extern "C" const ac_backend_ops ac_cuda_backend = {
    "cuda",   gpu_create, gpu_destroy, gpu_step,           gpu_rhs,
    gpu_max_speed, gpu_max_signal_speed, gpu_first_nonfinite_field, gpu_read, gpu_write, gpu_interior_data,
    gpu_poison_scratch, gpu_add_forcing, gpu_substep_region, gpu_padded_data, gpu_fill_ghost_axis,
    AC_ROW_ALIGN_BYTES, 3, gpu_run_cfl, gpu_shock_profile, gpu_run_cfl_members, gpu_shock_max, gpu_set_walls,
    0u, /* every term (gravity has a kernel of its own; the Coriolis force and the shear are in the streaming
         * kernel, the shear's shifted x faces a kernel of their own) */
    gpu_configuration_missing, gpu_shock_profile_pass, gpu_shock_data,
    gpu_boundaries, gpu_shear_ghosts, gpu_region_wraps, gpu_copy_boxes, gpu_timeseries, gpu_set_step_reduction,
    gpu_step_reduction, gpu_signal_region,
};
