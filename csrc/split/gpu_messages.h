/*
 * gpu_messages.h -- how a GPU rank's split steps send its ghost zones;
 * included by split_steps.c where it is built with the CUDA runtime
 * (ASTAROTH_SPLIT_CUDA).  Direct messages: the substeps' copies straight
 * into the neighbours' fields (CUDA IPC), beside the inner part.  Packed
 * messages: one launch of the backend's box copies packs them, and a
 * transport carries them (the neighbours' buffers by IPC, pinned host
 * buffers, or a CUDA-aware MPI); one launch unpacks them.  The layout of
 * both is astaroth/halo_messages.py's FaceMessages, which allocated every
 * address here.
 */

static ac_status cuda_failed(cudaError_t code, const char *what)
{
    fprintf(stderr, "astaroth: CUDA failed in %s: %s\n", what, cudaGetErrorString(code));
    return AC_ERR_COMMUNICATION;
}

#define CUDA_TRY(call, what)                                                                                           \
    do {                                                                                                               \
        const cudaError_t code_ = (call);                                                                              \
        if (code_ != cudaSuccess)                                                                                      \
            return cuda_failed(code_, what);                                                                           \
    } while (0)

/* The copies after what is queued now on the default stream (with which
 * the grid's stream is ordered): the copy engine waits for it. */
static ac_status gpu_copies_wait_here(SplitSteps *o)
{
    CUDA_TRY(cudaEventRecord(o->ready, 0), "marking where the copies start");
    CUDA_TRY(cudaStreamWaitEvent(o->copies, o->ready, 0), "ordering the copies");
    return AC_OK;
}

/* Set s's messages into the neighbours' fields by the copy engine, waited
 * for; then each neighbour is told, and this rank waits to be told. */
static ac_status gpu_send(SplitSteps *o, int s)
{
    const int fields = o->handle->grid->fields;
    for (int m = 0; m < o->count; ++m) {
        const direct_message *d = o->direct + m;
        for (int q = 0; q < fields; ++q)
            if (d->planes == 1)
                CUDA_TRY(cudaMemcpyAsync(d->to[s][q], d->from[s][q], d->width, cudaMemcpyDefault, o->copies),
                         "copying a message");
            else
                CUDA_TRY(cudaMemcpy2DAsync(d->to[s][q], o->pitch, d->from[s][q], o->pitch, d->width,
                                           (size_t)d->planes, cudaMemcpyDefault, o->copies),
                         "copying a message");
    }
    CUDA_TRY(cudaEventRecord(o->sent, o->copies), "marking the copies' end");
    CUDA_TRY(cudaEventSynchronize(o->sent), "waiting for the copies");
    for (int m = 0; m < o->count; ++m) {
        const message *msg = o->messages + m;
        int code = MPI_Irecv(o->tokens + 2 * m, 1, MPI_CHAR, msg->source, msg->tag, o->comm, o->requests + 2 * m);
        if (code == MPI_SUCCESS)
            code = MPI_Isend(o->tokens + 2 * m + 1, 1, MPI_CHAR, msg->dest, msg->tag, o->comm, o->requests + 2 * m + 1);
        if (code != MPI_SUCCESS)
            return mpi_failed(code, "telling the neighbours their ghost zones are in");
    }
    const int code = MPI_Waitall(2 * o->count, o->requests, MPI_STATUSES_IGNORE);
    return code == MPI_SUCCESS ? AC_OK : mpi_failed(code, "waiting for the neighbours' ghost zones");
}

/* The arrays of set s: the fields (0, 1, 2), or one of the shock profile's
 * (AC_SHOCK_SET + which), and how many. */
static int gpu_arrays(const SplitSteps *o, int s, void **table)
{
    const packed_messages *p = o->packed;
    *table = s >= AC_SHOCK_SET ? p->shock_tables[s - AC_SHOCK_SET] : p->fields[s];
    return set_arrays(o, s);
}

/* The values of message m of set s: a field's points, times the fields
 * (a shock profile's set has one array). */
static size_t gpu_values(const SplitSteps *o, int s, int m)
{
    return o->messages[m].points * (s >= AC_SHOCK_SET ? 1 : (size_t)o->handle->grid->fields);
}

/* The boxes of set s between its arrays and the buffers' pieces, in one
 * launch on the default stream (as FaceMessages._launch). */
static ac_status gpu_copy_boxes(SplitSteps *o, int s, const void *table, const void *pieces, int unpack)
{
    void *arrays;
    const int count = gpu_arrays(o, s, &arrays);
    const ac_box_copies c = {(void *const *)arrays, count, (const long long *)table, (void *const *)pieces, o->count,
                             o->packed->largest};
    return o->handle->ops->copy_boxes(o->handle->self, &c, unpack, (void *)cudaStreamLegacy);
}

/* Set s's messages packed, then on the copy stream carried to the
 * neighbours' buffers (peer) or to the host (host), as FaceMessages.pack. */
static ac_status gpu_pack(SplitSteps *o, int s)
{
    packed_messages *p = o->packed;
    p->parity = (int)(o->exchanges++ % 2);
    ac_status st = gpu_copy_boxes(o, s, p->send_table, p->send_pieces, 0);
    if (st != AC_OK)
        return st;
    CUDA_TRY(cudaEventRecord(o->ready, 0), "marking the packed messages");
    CUDA_TRY(cudaStreamWaitEvent(o->copies, o->ready, 0), "ordering the copies");
    const size_t element = o->element;
    if (p->transport == TRANSPORT_PEER)
        for (int m = 0; m < o->count; ++m)
            CUDA_TRY(cudaMemcpyAsync(p->targets[p->parity][m], p->send[m], gpu_values(o, s, m) * element,
                                     cudaMemcpyDefault, o->copies),
                     "copying a message");
    else if (p->transport == TRANSPORT_HOST)
        CUDA_TRY(cudaMemcpyAsync(p->host_send_base, p->send_base, p->send_bytes, cudaMemcpyDeviceToHost, o->copies),
                 "copying the messages to the host");
    CUDA_TRY(cudaEventRecord(o->sent, o->copies), "marking the copies' end");
    return AC_OK;
}

/* Send the messages (or, peer, a token once they are in place) and receive
 * the neighbours', then unpack them on the default stream and refill this
 * subdomain's wall faces of split axes (FaceMessages.post and finish). */
static ac_status gpu_post_finish(SplitSteps *o, int s)
{
    packed_messages *p = o->packed;
    CUDA_TRY(cudaEventSynchronize(o->sent), "waiting for the copies");
    const MPI_Datatype type = o->element == 8 ? MPI_DOUBLE : MPI_FLOAT;
    for (int m = 0; m < o->count; ++m) {
        const message *msg = o->messages + m;
        int code;
        if (p->transport == TRANSPORT_PEER) {
            code = MPI_Irecv(o->tokens + 2 * m, 1, MPI_CHAR, msg->source, msg->tag, o->comm, o->requests + 2 * m);
            if (code == MPI_SUCCESS)
                code = MPI_Isend(o->tokens + 2 * m + 1, 1, MPI_CHAR, msg->dest, msg->tag, o->comm,
                                 o->requests + 2 * m + 1);
        } else {
            void *const *send = p->transport == TRANSPORT_HOST ? p->host_send : p->send;
            void *const *recv = p->transport == TRANSPORT_HOST ? p->host_recv : p->recv;
            const int values = (int)gpu_values(o, s, m);
            code = MPI_Irecv(recv[m], values, type, msg->source, msg->tag, o->comm, o->requests + 2 * m);
            if (code == MPI_SUCCESS)
                code = MPI_Isend(send[m], values, type, msg->dest, msg->tag, o->comm, o->requests + 2 * m + 1);
        }
        if (code != MPI_SUCCESS)
            return mpi_failed(code, "posting the ghost zones' messages");
    }
    const int code = MPI_Waitall(2 * o->count, o->requests, MPI_STATUSES_IGNORE);
    if (code != MPI_SUCCESS)
        return mpi_failed(code, "waiting for the ghost zones' messages");
    if (p->transport == TRANSPORT_HOST) {
        CUDA_TRY(cudaMemcpyAsync(p->recv_base, p->host_recv_base, p->recv_bytes, cudaMemcpyHostToDevice, o->copies),
                 "copying the messages from the host");
        CUDA_TRY(cudaEventRecord(o->sent, o->copies), "marking the messages' arrival");
        CUDA_TRY(cudaStreamWaitEvent(0, o->sent, 0), "waiting for the messages' arrival");
    }
    ac_status st = gpu_copy_boxes(o, s, p->recv_table, p->recv_pieces[p->transport == TRANSPORT_PEER ? p->parity : 0],
                                  1);
    return st == AC_OK ? fill_after(o, s) : st;
}

/* Substep s on the GPU with packed messages, as ParallelStepper.substep
 * queues it: the walls' values and the unsplit axes it does not read in
 * place filled, the messages packed, the inner part queued, the messages
 * sent, received and unpacked, then the shell. */
static ac_status gpu_packed_regions(SplitSteps *o, int s, double dt)
{
    const ac_backend_handle *h = o->handle;
    ac_status st = AC_OK;
    if ((st = fill_before(o, s, o->prefilled)) != AC_OK || (st = gpu_pack(o, s)) != AC_OK)
        return st;
    if (o->has_inner && (st = h->ops->substep_region(h->self, s, dt, &o->inner, NULL)) != AC_OK)
        return st;
    if ((st = gpu_post_finish(o, s)) != AC_OK)
        return st;
    for (int r = 0; r < o->shell_count && st == AC_OK; ++r)
        st = h->ops->substep_region(h->self, s, dt, o->shell + r, NULL);
    return st;
}

/* The ghost zones of set s outside a substep, by packed messages (as
 * FaceMessages.fill, whatever the substeps' messages): of the fields the
 * walls' values and every unsplit axis first; a shock profile's array has
 * its periodic images from the pass that wrote it. */
static ac_status gpu_packed_exchange(SplitSteps *o, int s)
{
    ac_status st = fill_before(o, s, o->fields_prefilled);
    if (st == AC_OK && (st = gpu_pack(o, s)) == AC_OK)
        st = gpu_post_finish(o, s);
    return st;
}

/* Substep s on the GPU, as ParallelStepper.substep queues it with direct
 * messages: the inner part queued, the messages copied beside it, this
 * subdomain's wall faces of split axes refilled after them, then the
 * shell's slabs, without wall faces each on a stream of its own beside the
 * inner part's end (they write other points), which the default stream
 * waits for. */
static ac_status gpu_direct_regions(SplitSteps *o, int s, double dt)
{
    const ac_backend_handle *h = o->handle;
    ac_status st = AC_OK;
    if ((st = fill_before(o, s, o->prefilled)) != AC_OK || (st = gpu_copies_wait_here(o)) != AC_OK)
        return st;
    if (o->has_inner && (st = h->ops->substep_region(h->self, s, dt, &o->inner, NULL)) != AC_OK)
        return st;
    if ((st = gpu_send(o, s)) != AC_OK || (st = fill_after(o, s)) != AC_OK)
        return st;
    for (int r = 0; r < o->shell_count && st == AC_OK; ++r) {
        if (!o->has_inner || o->wall_faces) {
            st = h->ops->substep_region(h->self, s, dt, o->shell + r, NULL);
            continue;
        }
        if ((st = h->ops->substep_region(h->self, s, dt, o->shell + r, o->shell_streams[r])) != AC_OK)
            break;
        CUDA_TRY(cudaEventRecord(o->shell_done[r], o->shell_streams[r]), "marking a slab's end");
        CUDA_TRY(cudaStreamWaitEvent(0, o->shell_done[r], 0), "waiting for a slab");
    }
    return st;
}

static void gpu_release_packed(packed_messages *p)
{
    if (!p)
        return;
    PyMem_Free(p->send);
    PyMem_Free(p->recv);
    PyMem_Free(p->targets[0]);
    PyMem_Free(p->targets[1]);
    PyMem_Free(p->host_send);
    PyMem_Free(p->host_recv);
    PyMem_Free(p);
}

static void gpu_release(SplitSteps *o)
{
    for (int r = 0; r < o->shell_count; ++r) {
        if (o->shell_streams && o->shell_streams[r])
            cudaStreamDestroy(o->shell_streams[r]);
        if (o->shell_done && o->shell_done[r])
            cudaEventDestroy(o->shell_done[r]);
    }
    if (o->copies)
        cudaStreamDestroy(o->copies);
    if (o->ready)
        cudaEventDestroy(o->ready);
    if (o->sent)
        cudaEventDestroy(o->sent);
    PyMem_Free(o->shell_streams);
    PyMem_Free(o->shell_done);
    PyMem_Free(o->direct);
    gpu_release_packed(o->packed);
    PyMem_Free(o->tokens);
}

/* A sequence of `count` addresses (Python integers) into a new array. */
static void **addresses(PyObject *seq, int count, const char *what)
{
    if (!seq) {
        PyErr_Format(PyExc_KeyError, "SplitSteps: the plan has no %s", what);
        return NULL;
    }
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast)
        return NULL;
    void **out = NULL;
    if (PySequence_Fast_GET_SIZE(fast) != count)
        PyErr_Format(PyExc_ValueError, "SplitSteps: %s: %d addresses expected", what, count);
    else if (!(out = PyMem_Calloc((size_t)count + 1, sizeof *out)))
        PyErr_NoMemory();
    for (int i = 0; out && i < count; ++i) {
        out[i] = PyLong_AsVoidPtr(PySequence_Fast_GET_ITEM(fast, i));
        if (PyErr_Occurred()) {
            PyMem_Free(out);
            out = NULL;
        }
    }
    Py_DECREF(fast);
    return out;
}

/* One address of the packed plan's dict. */
static void *plan_address(PyObject *plan, const char *key)
{
    PyObject *value = PyDict_GetItemString(plan, key);
    if (!value) {
        PyErr_Format(PyExc_KeyError, "SplitSteps: the packed plan has no %s", key);
        return NULL;
    }
    return PyLong_AsVoidPtr(value);
}

/* gpu = ("packed", plan): the dict FaceMessages's buffers and tables make
 * (astaroth/parallel.py ParallelStepper._gpu_plan). */
static int gpu_prepare_packed(SplitSteps *o, PyObject *plan)
{
    if (!PyDict_Check(plan)) {
        PyErr_SetString(PyExc_TypeError, "SplitSteps: the packed plan must be a dict");
        return -1;
    }
    packed_messages *p = o->packed = PyMem_Calloc(1, sizeof *o->packed);
    if (!p) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject *transport = PyDict_GetItemString(plan, "transport");
    const char *name = transport ? PyUnicode_AsUTF8(transport) : NULL;
    if (!name || (strcmp(name, "peer") && strcmp(name, "host") && strcmp(name, "device"))) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "SplitSteps: the packed plan's transport must be peer, host or device");
        return -1;
    }
    p->transport = !strcmp(name, "peer") ? TRANSPORT_PEER : !strcmp(name, "host") ? TRANSPORT_HOST : TRANSPORT_DEVICE;
    void **fields = addresses(PyDict_GetItemString(plan, "fields"), 3, "fields");
    void **recv_pieces = addresses(PyDict_GetItemString(plan, "recv_pieces"), p->transport == TRANSPORT_PEER ? 2 : 1,
                                   "recv_pieces");
    if (!fields || !recv_pieces) {
        PyMem_Free(fields);
        PyMem_Free(recv_pieces);
        return -1;
    }
    for (int set = 0; set < 3; ++set)
        p->fields[set] = fields[set];
    p->recv_pieces[0] = recv_pieces[0];
    p->recv_pieces[1] = p->transport == TRANSPORT_PEER ? recv_pieces[1] : recv_pieces[0];
    PyMem_Free(fields);
    PyMem_Free(recv_pieces);
    p->send_table = plan_address(plan, "send_table");
    p->recv_table = plan_address(plan, "recv_table");
    p->send_pieces = plan_address(plan, "send_pieces");
    p->send_base = plan_address(plan, "send_base");
    p->recv_base = plan_address(plan, "recv_base");
    PyObject *largest = PyDict_GetItemString(plan, "largest");
    p->largest = largest ? PyLong_AsLongLong(largest) : -1;
    if (PyErr_Occurred() || p->largest < 1)
        return PyErr_Occurred() ? -1 : (PyErr_SetString(PyExc_ValueError, "SplitSteps: no largest box"), -1);
    size_t total = 0;
    for (int m = 0; m < o->count; ++m)
        total += gpu_values(o, 0, m);
    p->send_bytes = p->recv_bytes = total * o->element;
    if (!(p->send = addresses(PyDict_GetItemString(plan, "send"), o->count, "send")) ||
        !(p->recv = addresses(PyDict_GetItemString(plan, "recv"), o->count, "recv")))
        return -1;
    if (p->transport == TRANSPORT_PEER) {
        PyObject *targets = PyDict_GetItemString(plan, "targets");
        if (!targets || !PySequence_Check(targets) || PySequence_Size(targets) != 2) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "SplitSteps: the peer plan's targets: one list per parity");
            return -1;
        }
        for (int parity = 0; parity < 2; ++parity) {
            PyObject *each = PySequence_GetItem(targets, parity);
            p->targets[parity] = each ? addresses(each, o->count, "targets") : NULL;
            Py_XDECREF(each);
            if (!p->targets[parity])
                return -1;
        }
    }
    if (o->shock) {
        void **tables = addresses(PyDict_GetItemString(plan, "shock_tables"), 2, "shock_tables");
        if (!tables)
            return -1;
        p->shock_tables[0] = tables[0];
        p->shock_tables[1] = tables[1];
        PyMem_Free(tables);
    }
    if (p->transport == TRANSPORT_HOST) {
        if (!(p->host_send = addresses(PyDict_GetItemString(plan, "host_send"), o->count, "host_send")) ||
            !(p->host_recv = addresses(PyDict_GetItemString(plan, "host_recv"), o->count, "host_recv")))
            return -1;
        p->host_send_base = p->host_send[0];
        p->host_recv_base = p->host_recv[0];
    }
    return 0;
}

/* gpu = (plan, direct, pitch): the packed messages' plan (every exchange
 * outside a substep, and the substeps' where direct is None), and the
 * substeps' direct copies, [(width, planes, [[(to, from) per field] per
 * set]) per message] (FaceMessages.direct), pieces a padded z plane
 * (pitch bytes) apart; and the streams and events they and the shell's
 * slabs take. */
static int gpu_prepare(SplitSteps *o, PyObject *gpu)
{
    PyObject *plan, *direct;
    unsigned long long pitch = 0;
    if (!PyArg_ParseTuple(gpu, "OOK", &plan, &direct, &pitch))
        return -1;
    o->tokens = PyMem_Calloc(2 * (size_t)o->count + 1, 1);
    o->shell_streams = PyMem_Calloc((size_t)o->shell_count + 1, sizeof *o->shell_streams);
    o->shell_done = PyMem_Calloc((size_t)o->shell_count + 1, sizeof *o->shell_done);
    if (!o->tokens || !o->shell_streams || !o->shell_done) {
        PyErr_NoMemory();
        return -1;
    }
    if (gpu_prepare_packed(o, plan))
        return -1;
    if (direct != Py_None) {
        o->pitch = (size_t)pitch;
        PyObject *fast = PySequence_Fast(direct, "SplitSteps: gpu's direct copies must be a sequence");
        if (!fast)
            return -1;
        const int fields = o->handle->grid->fields;
        int ok = PySequence_Fast_GET_SIZE(fast) == o->count;
        if (!(o->direct = PyMem_Calloc((size_t)o->count + 1, sizeof *o->direct))) {
            Py_DECREF(fast);
            PyErr_NoMemory();
            return -1;
        }
        for (int m = 0; m < o->count && ok; ++m) {
            direct_message *d = o->direct + m;
            unsigned long long width;
            PyObject *sets;
            ok = PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, m), "KiO", &width, &d->planes, &sets) &&
                 PySequence_Check(sets) && PySequence_Size(sets) == 3;
            d->width = (size_t)width;
            for (int set = 0; set < 3 && ok; ++set) {
                PyObject *pairs = PySequence_GetItem(sets, set);
                ok = pairs && PySequence_Check(pairs) && PySequence_Size(pairs) == fields;
                for (int q = 0; q < fields && ok; ++q) {
                    PyObject *pair = PySequence_GetItem(pairs, q);
                    unsigned long long to = 0, from = 0;
                    ok = pair && PyArg_ParseTuple(pair, "KK", &to, &from);
                    d->to[set][q] = (void *)(uintptr_t)to;
                    d->from[set][q] = (const void *)(uintptr_t)from;
                    Py_XDECREF(pair);
                }
                Py_XDECREF(pairs);
            }
        }
        Py_DECREF(fast);
        if (!ok) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "SplitSteps: gpu's direct copies must be [(width, planes, [[(to, "
                                                  "from) per field] per set]) per message]");
            return -1;
        }
    }
    cudaError_t code = cudaStreamCreateWithFlags(&o->copies, cudaStreamNonBlocking);
    if (code == cudaSuccess)
        code = cudaEventCreateWithFlags(&o->ready, cudaEventDisableTiming);
    if (code == cudaSuccess)
        code = cudaEventCreateWithFlags(&o->sent, cudaEventDisableTiming);
    for (int r = 0; r < o->shell_count && code == cudaSuccess; ++r) {
        code = cudaStreamCreateWithFlags(o->shell_streams + r, cudaStreamNonBlocking);
        if (code == cudaSuccess)
            code = cudaEventCreateWithFlags(o->shell_done + r, cudaEventDisableTiming);
    }
    if (code != cudaSuccess) {
        PyErr_Format(PyExc_RuntimeError, "SplitSteps: CUDA streams and events: %s", cudaGetErrorString(code));
        return -1;
    }
    o->on_gpu = 1;
    return 0;
}
