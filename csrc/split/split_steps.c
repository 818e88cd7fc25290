/*
 * split_steps.c -- the extension astaroth._split: the steps of one rank of a
 * grid split over MPI ranks, in C, for the host's run loop
 * (csrc/split_steps.h; csrc/binding/timestep_binding.c run_steps).
 *
 * Built by setup.py with the MPI compiler wrapper (mpicc) where one is found,
 * against the MPI library mpi4py loads, and with the CUDA runtime
 * (ASTAROTH_SPLIT_CUDA) where nvcc is; astaroth/parallel.py makes a
 * SplitSteps for a rank of a split grid.  What goes where is Python's
 * (astaroth/halo_messages.py: one round of messages to the neighbours across
 * faces, edges and corners of the split axes, their boxes, buffers and
 * transports; the inner part and the shell of astaroth/parallel.py); this
 * file only moves the values and sequences the substeps as ParallelStepper
 * does, so that a run gives the same bits stepped from Python or here.
 * Each substep s:
 *
 *   the walls' values and the ghost zones of the unsplit axes of set s that
 *   it does not read in place filled locally; then
 *   - CPU: every message packed and posted, the inner part computed in a
 *     second thread while this one waits for the messages, unpacks them
 *     and refills the wall faces of split axes; then the shell;
 *   - GPU, direct: the inner part queued, the messages copied into the
 *     neighbours' fields beside it, the neighbours told; the shell's slabs
 *     beside the inner part's end;
 *   - GPU, packed: the messages packed in one launch, the inner part
 *     queued, the messages carried (CUDA IPC, a CUDA-aware MPI or the
 *     host) and unpacked in one launch; then the shell.
 * (A GPU rank's two ways of sending: gpu_messages.h.)
 *
 * With shock viscosity the first substep takes the profile of the step's
 * start, made pass by pass, what each pass wrote exchanged in a round of
 * its own.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <mpi.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../reach.h"
#include "../split_steps.h"

#ifdef ASTAROTH_SPLIT_CUDA
#include <cuda_runtime_api.h>

/* A message of a GPU rank whose neighbours' fields it writes itself (CUDA
 * IPC, astaroth/halo_messages.py FaceMessages.enable_direct): `planes`
 * pieces of `width` bytes, one a padded z plane apart, from each field of
 * each set into the neighbour's same field; to[s][q], from[s][q]. */
typedef struct {
    size_t width;
    int planes;
    void *to[3][AC_MAX_FIELDS];
    const void *from[3][AC_MAX_FIELDS];
} direct_message;

/* The messages of a GPU rank packed into buffers in one launch and
 * unpacked in one (the rest: FaceMessages's transports), every address one
 * the Python side allocated: the copy launches' tables (the fields of each
 * set, the boxes, the buffers' pieces: a second set of receive pieces for
 * the peer transport's second buffer), each message's piece of the send
 * and receive buffers, and per transport where it goes:
 * the neighbours' receive buffers (peer, by parity), or pinned host
 * buffers (host). */
enum { TRANSPORT_PEER, TRANSPORT_HOST, TRANSPORT_DEVICE };
typedef struct {
    int transport;
    void *fields[3];
    const void *send_table, *recv_table, *send_pieces, *recv_pieces[2];
    long long largest;
    void **send, **recv, **targets[2], **host_send, **host_recv;
    void *send_base, *recv_base, *host_send_base, *host_recv_base;
    size_t send_bytes, recv_bytes;
    int parity; /* the receive buffer of this exchange (peer) */
    void *shock_tables[2]; /* the tables of the shock profile's arrays (zeta, scratch), one address each */
} packed_messages;
#endif

/* One message of the round: sent to dest from the send box, received from
 * source into the receive box, both n[0] x n[1] x n[2] padded points, the
 * boxes' first points at these offsets of a padded array. */
typedef struct {
    int dest, source, tag;
    ptrdiff_t send_at, recv_at;
    int n[3];
    size_t points; /* a field's part of the message */
    size_t first;  /* a field's points in the messages before it: its piece of a buffer begins that many values in
                      for each array sent */
} message;

typedef struct {
    PyObject_HEAD
    PyObject *grid_object;     /* the astaroth._core.Grid whose backend `handle` holds */
    PyObject *handle_capsule;  /* owns *handle */
    PyObject *steps_capsule;   /* of `steps`, for Grid.run_steps */
    const ac_backend_handle *handle;
    MPI_Comm comm;
    message *messages;
    int count;
    char *send_buffer, *recv_buffer;
    long long *boxes[2];      /* the messages' send (0) and receive (1) boxes, as backend.h's ac_box_copies */
    void **box_buffers;       /* scratch: where each message's values lie in a buffer */
    long long largest_box;    /* the most points of one box */
    MPI_Request *requests;
    size_t element; /* bytes of a value */
    int has_inner;
    ac_region inner;
    ac_region *shell;
    int shell_count;
    unsigned prefilled;  /* bit a: axis a is filled locally before a substep's exchange */
    unsigned fields_prefilled; /* ... before the fields' exchange outside a substep (every unsplit axis) */
    unsigned periodic;   /* the regions' unsplit axes whose ghosts the GPU reads in place (region_wraps) */
    int on_gpu;          /* the fields are a GPU's, sent by direct copies (below) */
    unsigned wall_faces; /* bit a: this subdomain has a wall face on split axis a */
    int sheared;         /* the shearing box's deltay advances after each substep */
    int shock;           /* shock viscosity: its profile made pass by pass, what each pass wrote exchanged */
    int ghosts_fresh;    /* the fields' ghost zones are those of the fields now (exchange_fields) */
    int profile_fresh;   /* ... and the shock profile is theirs too (make_profile) */
    long long exchanges; /* a GPU's packed exchanges so far, as FaceMessages.count: the parity picks the buffer */
    ac_split_steps steps;
#ifdef ASTAROTH_SPLIT_CUDA
    direct_message *direct; /* per message, or NULL: */
    packed_messages *packed;
    size_t pitch;           /* bytes from one padded z plane to the next */
    cudaStream_t copies;    /* the copy engine's, beside the inner part */
    cudaEvent_t ready, sent;
    cudaStream_t *shell_streams; /* the shell's slabs beside the inner part's end */
    cudaEvent_t *shell_done;
    char *tokens;           /* per message: the neighbour's "it is there", and this rank's */
#endif
} SplitSteps;

static ac_status mpi_failed(int code, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
        snprintf(text, sizeof text, "error %d", code);
    fprintf(stderr, "astaroth: MPI failed in %s: %s\n", what, text);
    return AC_ERR_COMMUNICATION;
}

/* How many arrays set s has: the fields of the set substep s reads (0, 1,
 * 2), or one of the shock profile's (AC_SHOCK_SET + which). */
static int set_arrays(const SplitSteps *o, int s)
{
    return s >= AC_SHOCK_SET ? 1 : o->handle->grid->fields;
}

/* The padded arrays of set s into arrays[]; returns how many. */
static int arrays_of(const SplitSteps *o, int s, char *arrays[AC_MAX_FIELDS])
{
    const ac_backend_handle *h = o->handle;
    if (s >= AC_SHOCK_SET)
        arrays[0] = h->ops->shock_data(h->self, s - AC_SHOCK_SET);
    else
        for (int q = 0; q < h->grid->fields; ++q)
            arrays[q] = h->ops->padded_data(h->self, s, q);
    return set_arrays(o, s);
}

/* The box of every message between set s's padded arrays and the buffer
 * (array by array, x fastest), by the backend: pack (to_buffer) or unpack. */
static ac_status copy_boxes(SplitSteps *o, int s, int to_buffer)
{
    char *arrays[AC_MAX_FIELDS];
    const int count = arrays_of(o, s, arrays);
    char *buffer = to_buffer ? o->send_buffer : o->recv_buffer;
    for (int m = 0; m < o->count; ++m)
        o->box_buffers[m] = buffer + o->messages[m].first * (size_t)count * o->element;
    const ac_box_copies c = {(void *const *)arrays, count, o->boxes[to_buffer ? 0 : 1], o->box_buffers, o->count,
                             o->largest_box};
    return o->handle->ops->copy_boxes(o->handle->self, &c, !to_buffer, NULL);
}

/* The ghost zones of the axes in `axes` of set s, filled locally (on the
 * GPU queued on the grid's stream). */
static ac_status fill_axes(SplitSteps *o, int s, unsigned axes)
{
    ac_status st = AC_OK;
    for (int a = 0; a < 3 && st == AC_OK; ++a)
        if (axes >> a & 1u)
            st = o->handle->ops->fill_ghost_axis(o->handle->self, s, a, NULL);
    return st;
}

/* Before set s's messages: the walls' values and the ghost zones of the
 * axes in `prefilled`.  A shock profile's array has its periodic images
 * from the pass that wrote it, and no walls. */
static ac_status fill_before(SplitSteps *o, int s, unsigned prefilled)
{
    const ac_backend_handle *h = o->handle;
    ac_status st = AC_OK;
    if (s >= AC_SHOCK_SET || (h->grid->bc.walls && (st = h->ops->set_walls(h->self, s)) != AC_OK))
        return st;
    return fill_axes(o, s, prefilled);
}

/* After them: this subdomain's wall faces of split axes (a wall's ghosts
 * replace what came across the periodic seam). */
static ac_status fill_after(SplitSteps *o, int s)
{
    return s < AC_SHOCK_SET ? fill_axes(o, s, o->wall_faces) : AC_OK;
}

/* The walls' values and the ghost zones of the axes in `prefilled` of set
 * s, then every message packed and posted (the receives first). */
static ac_status exchange_start(SplitSteps *o, int s, unsigned prefilled)
{
    ac_status st = fill_before(o, s, prefilled);
    if (st != AC_OK || (st = copy_boxes(o, s, 1)) != AC_OK)
        return st;
    const size_t arrays = (size_t)set_arrays(o, s);
    const MPI_Datatype type = o->element == 8 ? MPI_DOUBLE : MPI_FLOAT;
    for (int m = 0; m < o->count; ++m) {
        const message *msg = o->messages + m;
        const size_t at = msg->first * arrays * o->element;
        const int values = (int)(msg->points * arrays);
        int code = MPI_Irecv(o->recv_buffer + at, values, type, msg->source, msg->tag, o->comm, o->requests + 2 * m);
        if (code == MPI_SUCCESS)
            code = MPI_Isend(o->send_buffer + at, values, type, msg->dest, msg->tag, o->comm, o->requests + 2 * m + 1);
        if (code != MPI_SUCCESS)
            return mpi_failed(code, "posting the ghost zones' messages");
    }
    return AC_OK;
}

/* Wait for the messages, unpack them, and refill the wall faces. */
static ac_status exchange_finish(SplitSteps *o, int s)
{
    const int code = MPI_Waitall(2 * o->count, o->requests, MPI_STATUSES_IGNORE);
    if (code != MPI_SUCCESS)
        return mpi_failed(code, "waiting for the ghost zones' messages");
    const ac_status st = copy_boxes(o, s, 0);
    return st == AC_OK ? fill_after(o, s) : st;
}

/* The ghost zones of set s outside a substep: every unsplit axis filled
 * locally, then the messages. */
static ac_status exchange(SplitSteps *o, int s)
{
    const ac_status st = exchange_start(o, s, o->fields_prefilled);
    return st == AC_OK ? exchange_finish(o, s) : st;
}

typedef struct {
    const ac_backend_handle *handle;
    int s;
    double dt;
    const ac_region *region;
    ac_status status;
} region_work;

static void *run_region(void *argument)
{
    region_work *w = argument;
    w->status = w->handle->ops->substep_region(w->handle->self, w->s, w->dt, w->region, NULL);
    return NULL;
}

/* The shock viscosity's profile of the fields (set 0), their ghost zones
 * exchanged first and what each pass wrote before the next reads it
 * (terms/shock.h), as ParallelStepper.shock_profile makes it. */
static ac_status exchange_outside(SplitSteps *o, int s);

static ac_status make_profile(SplitSteps *o)
{
    const ac_backend_handle *h = o->handle;
    ac_status st = exchange_outside(o, 0);
    int written = 0;
    for (int pass = 0; st == AC_OK && (st = h->ops->shock_profile_pass(h->self, pass, &written)) == AC_OK &&
                       written >= 0;
         ++pass)
        if (shock_pass_reads(pass + 1))
            st = exchange_outside(o, AC_SHOCK_SET + written);
    o->ghosts_fresh = o->profile_fresh = st == AC_OK;
    return st;
}

/* The largest zeta of the profile make_profile left over this subdomain,
 * NaN where one is not finite. */
static double interior_max_zeta(const SplitSteps *o)
{
    const ac_grid *g = o->handle->grid;
    const char *zeta = o->handle->ops->shock_data(o->handle->self, 0);
    double largest = 0.0;
    for (int k = 0; k < g->n[2]; ++k)
        for (int j = 0; j < g->n[1]; ++j) {
            const ptrdiff_t at = (((ptrdiff_t)(g->lo[2] + k) * g->m[1] + g->lo[1] + j) * g->m[0] + g->lo[0]);
            for (int i = 0; i < g->n[0]; ++i) {
                const double z = o->element == 8 ? ((const double *)zeta)[at + i] : ((const float *)zeta)[at + i];
                if (!isfinite(z))
                    return NAN;
                largest = z > largest ? z : largest;
            }
        }
    return largest;
}

/* Substep s on the CPU after its exchange starts: the inner part in a
 * second thread while this one finishes the exchange, then the shell. */
static ac_status cpu_substep_regions(SplitSteps *o, int s, double dt)
{
    const ac_backend_handle *h = o->handle;
    ac_status st = exchange_start(o, s, o->prefilled);
    if (st != AC_OK)
        return st;
    if (o->has_inner) {
        region_work inner = {h, s, dt, &o->inner, AC_OK};
        pthread_t worker;
        const int threaded = pthread_create(&worker, NULL, run_region, &inner) == 0;
        st = exchange_finish(o, s);
        if (threaded)
            pthread_join(worker, NULL);
        else
            run_region(&inner);
        if (st == AC_OK)
            st = inner.status;
    } else {
        st = exchange_finish(o, s);
    }
    for (int r = 0; r < o->shell_count && st == AC_OK; ++r)
        st = h->ops->substep_region(h->self, s, dt, o->shell + r, NULL);
    return st;
}

#ifdef ASTAROTH_SPLIT_CUDA
#include "gpu_messages.h"
#endif

/* The ghost zones of set s outside a substep (the fields', or a shock
 * profile's array's), on either backend. */
static ac_status exchange_outside(SplitSteps *o, int s)
{
#ifdef ASTAROTH_SPLIT_CUDA
    if (o->on_gpu)
        return gpu_packed_exchange(o, s);
#endif
    return exchange(o, s);
}

/* Substep s: its exchange and regions on this rank's backend; on the
 * fields' fresh ghost zones (s = 0 after exchange_fields or make_profile)
 * the whole subdomain at once; the shearing box's deltay after it. */
static ac_status substep(SplitSteps *o, int s, double dt)
{
    const ac_backend_handle *h = o->handle;
    ac_status st = AC_OK;
    if (s == 0 && o->ghosts_fresh) {
        const ac_region whole = ac_whole_grid(h->grid);
        st = h->ops->substep_region(h->self, s, dt, &whole, NULL);
    } else {
#ifdef ASTAROTH_SPLIT_CUDA
        st = !o->on_gpu ? cpu_substep_regions(o, s, dt) : o->direct ? gpu_direct_regions(o, s, dt)
                                                                    : gpu_packed_regions(o, s, dt);
#else
        st = cpu_substep_regions(o, s, dt);
#endif
    }
    if (st == AC_OK && o->sheared && (ac_grid_terms(h->grid) & AC_TERM_SHEAR))
        h->shear_advance(&h->ops->boundaries(h->self)->shear, h->grid->shear, s, dt);
    return st;
}

static ac_status split_step(void *context, double dt)
{
    SplitSteps *o = context;
    ac_status st = AC_OK;
    if (o->shock && !o->profile_fresh)
        st = make_profile(o); /* the profile of the step's start, which its substeps take */
    for (int s = 0; s < 3 && st == AC_OK; ++s)
        st = substep(o, s, dt);
    o->ghosts_fresh = o->profile_fresh = 0;
    if (st == AC_OK && o->handle->grid->bc.walls) /* and in every snapshot */
        st = o->handle->ops->set_walls(o->handle->self, 0);
    return st;
}

/* The fields' ghost zones from the neighbours, outside a substep: the
 * next first substep then takes the whole subdomain at once. */
static ac_status split_exchange_fields(void *context)
{
    SplitSteps *o = context;
    const ac_status st = exchange_outside(o, 0);
    o->ghosts_fresh = st == AC_OK;
    o->profile_fresh = 0;
    return st;
}

/* The largest signal speed of the fields now over this subdomain where it
 * reads their neighbours (MHD's B; NaN if not finite), their ghost zones
 * then those of the fields now, as after exchange_fields.  A GPU rank of
 * a periodic grid without shear or shock viscosity reduces its inner part
 * while the messages travel, then its shell, as a substep runs them: the
 * same maximum, the exchange hidden behind the inner part's reduction. */
static ac_status split_signal_speed(void *context, double *speed)
{
    SplitSteps *o = context;
    const ac_backend_handle *h = o->handle;
    ac_status st = AC_OK;
#ifdef ASTAROTH_SPLIT_CUDA
    if (o->on_gpu && o->packed && o->has_inner && h->ops->signal_region && h->ops->step_reduction &&
        !h->grid->bc.walls && !o->sheared && !o->shock) {
        int field = -1;
        if ((st = fill_before(o, 0, o->fields_prefilled)) != AC_OK || (st = gpu_pack(o, 0)) != AC_OK ||
            (st = h->ops->signal_region(h->self, &o->inner, 1)) != AC_OK || (st = gpu_post_finish(o, 0)) != AC_OK)
            return st;
        for (int r = 0; r < o->shell_count && st == AC_OK; ++r)
            st = h->ops->signal_region(h->self, o->shell + r, 0);
        if (st == AC_OK)
            st = h->ops->step_reduction(h->self, speed, &field);
        o->ghosts_fresh = st == AC_OK;
        o->profile_fresh = 0;
        return st;
    }
#endif
    if ((st = split_exchange_fields(context)) != AC_OK)
        return st;
    return h->ops->max_signal_speed(h->self, 0, speed);
}

static ac_status split_max_zeta(void *context, double *zeta)
{
    SplitSteps *o = context;
    ac_status st = make_profile(o);
    *zeta = NAN;
    if (st == AC_OK && o->handle->ops->shock_max) /* the GPU's reduction, of the profile the passes left */
        st = o->handle->ops->shock_max(o->handle->self, 1, zeta);
    else if (st == AC_OK)
        *zeta = interior_max_zeta(o);
    return st;
}

static ac_status split_max_over_ranks(void *context, double *values, int count)
{
    SplitSteps *o = context;
    const int code = MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_MAX, o->comm);
    return code == MPI_SUCCESS ? AC_OK : mpi_failed(code, "the reduction over the ranks");
}

/* --- the Python type --------------------------------------------------- */

static int int_triple(PyObject *seq, int out[3], const char *what)
{
    if (!PyArg_ParseTuple(seq, "iii", out, out + 1, out + 2)) {
        PyErr_Format(PyExc_TypeError, "SplitSteps: %s must be three integers", what);
        return -1;
    }
    return 0;
}

static int parse_region(PyObject *pair, ac_region *r)
{
    PyObject *lo, *hi;
    if (!PyArg_ParseTuple(pair, "OO", &lo, &hi) || int_triple(lo, r->lo, "a region's lo") ||
        int_triple(hi, r->hi, "a region's hi"))
        return -1;
    r->periodic = 0u;
    return 0;
}

static unsigned axes_mask(PyObject *axes, int *failed)
{
    unsigned mask = 0u;
    PyObject *fast = PySequence_Fast(axes, "SplitSteps: axes must be a sequence of 0, 1, 2");
    if (!fast) {
        *failed = 1;
        return 0u;
    }
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); ++i) {
        const long a = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (a < 0 || a > 2) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "SplitSteps: an axis must be 0, 1 or 2");
            *failed = 1;
            break;
        }
        mask |= 1u << a;
    }
    Py_DECREF(fast);
    return mask;
}


static void SplitSteps_dealloc(SplitSteps *o)
{
#ifdef ASTAROTH_SPLIT_CUDA
    gpu_release(o);
#endif
    PyMem_Free(o->messages);
    PyMem_Free(o->send_buffer);
    PyMem_Free(o->recv_buffer);
    PyMem_Free(o->requests);
    PyMem_Free(o->box_buffers);
    PyMem_Free(o->boxes[0]);
    PyMem_Free(o->boxes[1]);
    PyMem_Free(o->shell);
    Py_XDECREF(o->steps_capsule);
    Py_XDECREF(o->handle_capsule);
    Py_XDECREF(o->grid_object);
    Py_TYPE(o)->tp_free((PyObject *)o);
}

/* SplitSteps(grid, comm, itemsize, messages, inner, shell, prefilled,
 * wall_faces, sheared); see the type's docstring. */
static int SplitSteps_init(SplitSteps *o, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"grid",     "comm",       "itemsize", "messages", "inner", "shell", "prefilled",
                               "fields_prefilled", "wall_faces", "sheared", "periodic", "gpu", NULL};
    PyObject *grid, *messages, *inner, *shell, *prefilled, *fields_prefilled, *wall_faces, *gpu = Py_None;
    long long comm;
    int itemsize, sheared;
    unsigned periodic = 0u;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OLiOOOOOOp|IO", keywords, &grid, &comm, &itemsize, &messages,
                                     &inner, &shell, &prefilled, &fields_prefilled, &wall_faces, &sheared, &periodic,
                                     &gpu))
        return -1;
    if (o->grid_object) {
        PyErr_SetString(PyExc_TypeError, "SplitSteps: already made");
        return -1;
    }
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
        PyErr_SetString(PyExc_RuntimeError, "SplitSteps: MPI is not initialized (import mpi4py.MPI first)");
        return -1;
    }
    if (itemsize != 4 && itemsize != 8) {
        PyErr_SetString(PyExc_ValueError, "SplitSteps: itemsize must be 4 or 8");
        return -1;
    }
    PyObject *capsule = PyObject_CallMethod(grid, "backend_handle", NULL);
    if (!capsule)
        return -1;
    const ac_backend_handle *h = PyCapsule_GetPointer(capsule, AC_BACKEND_HANDLE_CAPSULE);
    if (!h) {
        Py_DECREF(capsule);
        return -1;
    }
    o->handle_capsule = capsule;
    Py_INCREF(grid);
    o->grid_object = grid;
    o->handle = h;
    o->comm = MPI_Comm_f2c((MPI_Fint)comm);
    o->element = (size_t)itemsize;
    o->sheared = sheared;
    int failed = 0;
    o->prefilled = axes_mask(prefilled, &failed);
    if (!failed)
        o->fields_prefilled = axes_mask(fields_prefilled, &failed);
    if (!failed)
        o->wall_faces = axes_mask(wall_faces, &failed);
    if (failed)
        return -1;
    if (periodic > 7u) {
        PyErr_SetString(PyExc_ValueError, "SplitSteps: periodic is a mask of the axes x, y, z (0 to 7)");
        return -1;
    }
    o->periodic = periodic;
    if (h->grid->bc.walls && !h->ops->set_walls) {
        PyErr_SetString(PyExc_NotImplementedError, "SplitSteps: this backend has no walls");
        return -1;
    }
    o->shock = (ac_grid_terms(h->grid) & AC_TERM_SHOCK) != 0;
    if (o->shock && !(h->ops->shock_profile_pass && h->ops->shock_data)) {
        PyErr_SetString(PyExc_NotImplementedError, "SplitSteps: this backend cannot make the shock profile pass by "
                                                   "pass");
        return -1;
    }

    PyObject *fast = PySequence_Fast(messages, "SplitSteps: messages must be a sequence");
    if (!fast)
        return -1;
    o->count = (int)PySequence_Fast_GET_SIZE(fast);
    o->messages = PyMem_Calloc((size_t)o->count + 1, sizeof *o->messages);
    o->requests = PyMem_Calloc(2 * (size_t)o->count + 1, sizeof *o->requests);
    size_t points = 0; /* of every message, a field's */
    for (int m = 0; m < o->count && o->messages && o->requests; ++m) {
        message *msg = o->messages + m;
        PyObject *send, *recv, *extent;
        int send_at[3], recv_at[3];
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, m), "iiiOOO", &msg->dest, &msg->source, &msg->tag, &send,
                              &recv, &extent) ||
            int_triple(send, send_at, "a message's send start") || int_triple(recv, recv_at, "a message's receive start") ||
            int_triple(extent, msg->n, "a message's extent")) {
            Py_DECREF(fast);
            return -1;
        }
        const int *m_ = h->grid->m;
        for (int a = 0; a < 3; ++a)
            if (msg->n[a] < 1 || send_at[a] < 0 || recv_at[a] < 0 || send_at[a] + msg->n[a] > m_[a] ||
                recv_at[a] + msg->n[a] > m_[a]) {
                Py_DECREF(fast);
                PyErr_SetString(PyExc_ValueError, "SplitSteps: a message's box must lie inside the padded grid");
                return -1;
            }
        msg->send_at = ((ptrdiff_t)send_at[2] * m_[1] + send_at[1]) * m_[0] + send_at[0];
        msg->recv_at = ((ptrdiff_t)recv_at[2] * m_[1] + recv_at[1]) * m_[0] + recv_at[0];
        msg->points = (size_t)msg->n[0] * msg->n[1] * msg->n[2];
        msg->first = points;
        points += msg->points;
    }
    Py_DECREF(fast);
    const size_t values = points * (size_t)h->grid->fields;
    o->send_buffer = PyMem_Malloc(values * o->element + 1);
    o->recv_buffer = PyMem_Malloc(values * o->element + 1);
    o->box_buffers = PyMem_Calloc((size_t)o->count + 1, sizeof *o->box_buffers);
    for (int side = 0; side < 2; ++side)
        o->boxes[side] = PyMem_Calloc(4 * (size_t)o->count + 1, sizeof *o->boxes[side]);
    if (!o->messages || !o->requests || !o->send_buffer || !o->recv_buffer || !o->box_buffers || !o->boxes[0] ||
        !o->boxes[1]) {
        PyErr_NoMemory();
        return -1;
    }
    for (int m = 0; m < o->count; ++m) {
        const message *msg = o->messages + m;
        for (int side = 0; side < 2; ++side) {
            long long *box = o->boxes[side] + 4 * m;
            box[0] = msg->n[0], box[1] = msg->n[1], box[2] = msg->n[2];
            box[3] = side == 0 ? msg->send_at : msg->recv_at;
        }
        if ((long long)msg->points > o->largest_box)
            o->largest_box = (long long)msg->points;
    }
    if (!h->ops->copy_boxes) {
        PyErr_SetString(PyExc_NotImplementedError, "SplitSteps: this backend does not copy boxes");
        return -1;
    }

    o->has_inner = inner != Py_None;
    if (o->has_inner && parse_region(inner, &o->inner))
        return -1;
    o->inner.periodic = periodic;
    if (!(fast = PySequence_Fast(shell, "SplitSteps: shell must be a sequence of (lo, hi)")))
        return -1;
    o->shell_count = (int)PySequence_Fast_GET_SIZE(fast);
    if (!(o->shell = PyMem_Calloc((size_t)o->shell_count + 1, sizeof *o->shell))) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (int r = 0; r < o->shell_count; ++r) {
        if (parse_region(PySequence_Fast_GET_ITEM(fast, r), o->shell + r)) {
            Py_DECREF(fast);
            return -1;
        }
        o->shell[r].periodic = periodic;
    }
    Py_DECREF(fast);
    if (gpu != Py_None) {
#ifdef ASTAROTH_SPLIT_CUDA
        if (gpu_prepare(o, gpu))
            return -1;
#else
        PyErr_SetString(PyExc_NotImplementedError, "SplitSteps: this build of astaroth._split has no CUDA");
        return -1;
#endif
    }

    o->steps.context = o;
    o->steps.step = split_step;
    o->steps.signal_speed = split_signal_speed;
    o->steps.max_over_ranks = split_max_over_ranks;
    o->steps.max_zeta = split_max_zeta;
    if (!(o->steps_capsule = PyCapsule_New(&o->steps, AC_SPLIT_STEPS_CAPSULE, NULL)))
        return -1;
    return 0;
}

static PyObject *SplitSteps_get_steps(SplitSteps *o, void *closure)
{
    (void)closure;
    if (!o->steps_capsule) {
        PyErr_SetString(PyExc_ValueError, "SplitSteps: not made");
        return NULL;
    }
    Py_INCREF(o->steps_capsule);
    return o->steps_capsule;
}

static PyObject *SplitSteps_get_exchanges(SplitSteps *o, void *closure)
{
    (void)closure;
    return PyLong_FromLongLong(o->exchanges);
}

static int SplitSteps_set_exchanges(SplitSteps *o, PyObject *value, void *closure)
{
    (void)closure;
    const long long count = value ? PyLong_AsLongLong(value) : -1;
    if (count < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "SplitSteps: exchanges must be a count");
        return -1;
    }
    o->exchanges = count;
    return 0;
}

static PyGetSetDef SplitSteps_getset[] = {
    {"steps", (getter)SplitSteps_get_steps, NULL, "the capsule Grid.run_steps takes as split=", NULL},
    {"exchanges", (getter)SplitSteps_get_exchanges, (setter)SplitSteps_set_exchanges,
     "the packed exchanges so far (FaceMessages.count), whose parity picks a GPU's receive buffer", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SplitStepsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "astaroth._split.SplitSteps",
    .tp_doc = "SplitSteps(grid, comm, itemsize, messages, inner, shell, prefilled, fields_prefilled, wall_faces, "
              "sheared, periodic=0, gpu=None): the steps of this rank's subdomain of a split grid, for "
              "Grid.run_steps(..., split=steps.steps).  grid: its astaroth._core.Grid; comm: the Cartesian "
              "communicator's Fortran handle (mpi4py's py2f); messages: (dest, source, tag, send start, receive "
              "start, extent) per neighbour, padded (i, j, k); inner: (lo, hi) of the inner part or None; shell: "
              "(lo, hi) of each slab; prefilled: the axes filled locally before a substep's messages, "
              "fields_prefilled before the fields' outside a substep; wall_faces: the split axes with a wall face "
              "here; sheared: the shearing box's deltay advances after each substep; periodic: the regions' axes "
              "read from periodic images in place (region_wraps); gpu: (pitch, direct copies) of a GPU rank "
              "(FaceMessages.direct).  Use astaroth.parallel.ParallelStepper.",
    .tp_basicsize = sizeof(SplitSteps),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)SplitSteps_init,
    .tp_dealloc = (destructor)SplitSteps_dealloc,
    .tp_getset = SplitSteps_getset,
};

/* library_version() -> the MPI library this module runs on (MPI_Get_library_version). */
static PyObject *split_library_version(PyObject *m, PyObject *ignored)
{
    (void)m;
    (void)ignored;
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    if (MPI_Get_library_version(text, &length) != MPI_SUCCESS)
        length = 0;
    return PyUnicode_FromStringAndSize(text, length);
}

#ifdef ASTAROTH_SPLIT_CUDA
#define SPLIT_HAS_CUDA Py_True
#else
#define SPLIT_HAS_CUDA Py_False
#endif

static PyMethodDef split_methods[] = {
    {"library_version", split_library_version, METH_NOARGS,
     "library_version() -> the MPI library's version string, to check that it is mpi4py's."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef split_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "astaroth._split",
    .m_doc = "The steps of a rank of a grid split over MPI ranks, in C (csrc/split/).",
    .m_size = -1,
    .m_methods = split_methods,
};

PyMODINIT_FUNC PyInit__split(void)
{
    if (PyType_Ready(&SplitStepsType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&split_module);
    Py_INCREF(&SplitStepsType);
    if (m && PyModule_AddObject(m, "SplitSteps", (PyObject *)&SplitStepsType) < 0) {
        Py_DECREF(&SplitStepsType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(SPLIT_HAS_CUDA); /* whether a GPU rank's steps can be taken here */
    if (m && PyModule_AddObject(m, "cuda", SPLIT_HAS_CUDA) < 0) {
        Py_DECREF(SPLIT_HAS_CUDA);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
