/* Batch: N engines of one type (SingleEngine or PairsEngine, sharing one ruleset's Tables),
 * stepped together with no Python per decision (gongzhu.batch wraps it).
 *
 * Legality is the engines' own: each engine type gives its legal play keys and plays a key
 * through its GZEngineOps (engine.h), and the show phases are shows.c's, so the batch decides
 * nothing of the rules.  What it adds is the numbering of the actions: two plain tables made
 * once by the caller (gongzhu.batch.ActionTable; the envs make theirs from their Layout),
 * play key -> action index and show choice id -> action index, so that masks and actions
 * cross as buffers of ints.
 *
 * Every call reads its arguments whole and finds every hand's move before any hand
 * changes: a plug-in's play rule (Python code) may run while legal plays are found, and the
 * engines are then checked to be the same objects at the same versions before the moves
 * are made.  An illegal action or a rule that raises leaves every hand as it was.
 *
 * It also writes each hand's seat to move's observation, or information state (observe):
 * the C twin of gongzhu.envs.fast.HandEncoder and of gongzhu.implied.VoidReader, made at
 * each call from the engines' state (GZEngineOps.read) and a layout given as plain data
 * (set_encoding; gongzhu.batch.ObservationTable). */
#include "engine.h"

#define MAX_ACTIONS (1 << 20)

/* The observation encoding (set_encoding): where each part of a seat's observation and
 * history goes, as gongzhu.envs' Layout places it; the C twin of gongzhu.envs.fast's
 * HandEncoder, held equal to it by tests/test_batch.py at every step. */
enum {
    E_OBS, E_HIST, E_HOLDING, E_PLAYED_BY, E_TRICK, E_TAKEN, E_VOIDS, E_SIZES, E_PHASE,
    E_LEADER, E_TO_MOVE, E_PHASE_OF, /* 4 */ E_FIRST_CARD = E_PHASE_OF + 4, E_FIRST_TURNS,
    E_PLAYED_IN, E_PLAYED_SEAT, E_TRICK_LEADERS, E_TRICKS, E_PREFERRED, /* 4 */
    E_STRICT = E_PREFERRED + 4, E_FIRST_OFFENDER, E_COUNT
};

typedef struct {
    long at[E_COUNT];
    int *show_start;    /* per (choice id, forced, relative seat): start into show_at */
    int32_t *show_at;   /* offsets into a row */
    float *show_value;  /* what each adds */
    signed char *binds; /* per choice id: 0, 1 the lock binds its cards, 2 privately (secret) */
    signed char *first; /* per choice id: a 首明 choice */
} Encoding;

static void encoding_free(Encoding *enc)
{
    if (enc == NULL)
        return;
    PyMem_Free(enc->show_start);
    PyMem_Free(enc->show_at);
    PyMem_Free(enc->show_value);
    PyMem_Free(enc->binds);
    PyMem_Free(enc->first);
    PyMem_Free(enc);
}

typedef struct {
    PyObject_HEAD
    Encoding *enc;           /* NULL until set_encoding */
    Py_ssize_t n;
    PyObject **engines;      /* n engines (owned), all of `type`, all with `tables` */
    PyTypeObject *type;      /* borrowed: one of the two engine types, which live forever */
    Tables *tables;          /* owned */
    int size;                /* the number of actions */
    int most;                /* the most legal actions a seat can have (plays or shows) */
    int32_t *play_action;    /* NKEYS: a play key's action, or -1 */
    int32_t *show_action;    /* tables->nchoices: a show choice's action, or -1 */
} Batch;

typedef struct {
    unsigned long version; /* the engine's version when its move was found */
    int key;               /* the play key, or for a show the position among its choices */
    int show;              /* whether it is a show */
    int action;            /* the action index, -1 for a hand that is over */
} Move;

static int read_table(PyObject *seq, Py_ssize_t length, int size, int32_t *out,
                      const char *message)
{
    PyObject *items = PySequence_Tuple(seq);
    Py_ssize_t i;
    long v;
    if (items == NULL)
        return -1;
    if (PyTuple_GET_SIZE(items) != length) {
        Py_DECREF(items);
        PyErr_Format(PyExc_ValueError, "%s: expected %zd ints, got %zd", message, length,
                     PyTuple_GET_SIZE(items));
        return -1;
    }
    for (i = 0; i < length; i++) {
        if (gz_small_int(PyTuple_GET_ITEM(items, i), -1, size - 1, &v, message) < 0) {
            Py_DECREF(items);
            return -1;
        }
        out[i] = (int32_t)v;
    }
    Py_DECREF(items);
    return 0;
}

static int batch_clear(Batch *b)
{
    Py_ssize_t i;
    if (b->engines != NULL)
        for (i = 0; i < b->n; i++)
            Py_CLEAR(b->engines[i]);
    Py_CLEAR(b->tables);
    return 0;
}

static int batch_traverse(Batch *b, visitproc visit, void *arg)
{
    Py_ssize_t i;
    if (b->engines != NULL)
        for (i = 0; i < b->n; i++)
            Py_VISIT(b->engines[i]);
    Py_VISIT(b->tables);
    return 0;
}

static void batch_dealloc(Batch *b)
{
    PyObject_GC_UnTrack(b);
    batch_clear(b);
    PyMem_Free(b->engines);
    PyMem_Free(b->play_action);
    PyMem_Free(b->show_action);
    encoding_free(b->enc);
    Py_TYPE(b)->tp_free((PyObject *)b);
}

/* An engine the batch may hold: of `type` (NULL: either engine type) with `tables` (NULL:
 * any), set up.  0, or -1 with TypeError / ValueError. */
static int check_engine(PyObject *obj, PyTypeObject *type, Tables *tables)
{
    GZHead *h;
    if (!(type == NULL ? (Py_TYPE(obj) == &GZ_SingleEngineType ||
                          Py_TYPE(obj) == &GZ_PairsEngineType)
                       : Py_TYPE(obj) == type)) {
        PyErr_Format(PyExc_TypeError, "a batch holds engines of one C engine type (%s), not %.100s",
                     type == NULL ? "SingleEngine or PairsEngine" : type->tp_name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    h = (GZHead *)obj;
    if (h->tables == NULL || h->ops == NULL) {
        PyErr_SetString(PyExc_ValueError, "a batch holds engines that are set up (__init__ ran)");
        return -1;
    }
    if (tables != NULL && h->tables != tables) {
        PyErr_SetString(PyExc_ValueError, "a batch holds engines of one ruleset (one Tables)");
        return -1;
    }
    return 0;
}

static int compare_pointers(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)(*(PyObject *const *)a), y = (uintptr_t)(*(PyObject *const *)b);
    return (x > y) - (x < y);
}

/* Whether some engine appears twice among n (a hand stepped twice in one step would be
 * played on a state its move was not found for).  0, or -1 with ValueError. */
static int check_distinct(PyObject *const *engines, Py_ssize_t n)
{
    PyObject **sorted = PyMem_Malloc((size_t)n * sizeof *sorted);
    Py_ssize_t i;
    if (sorted == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(sorted, engines, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, compare_pointers);
    for (i = 1; i < n && sorted[i] != sorted[i - 1]; i++)
        ;
    PyMem_Free(sorted);
    if (i < n) {
        PyErr_SetString(PyExc_ValueError, "a batch holds each engine once");
        return -1;
    }
    return 0;
}

/* Batch(engines, plays, shows, size) */
static int batch_init(Batch *b, PyObject *args, PyObject *kwds)
{
    PyObject *engines_obj, *plays, *shows, *size_obj, *items = NULL;
    PyObject **engines = NULL;
    int32_t *play_action = NULL, *show_action = NULL;
    char *seen = NULL;
    long size;
    Py_ssize_t n, i;
    Tables *tables;
    static char *kwlist[] = {"engines", "plays", "shows", "size", NULL};
    if (b->engines != NULL) {
        PyErr_SetString(PyExc_TypeError, "a Batch is set up once");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOO:Batch", kwlist, &engines_obj, &plays,
                                     &shows, &size_obj))
        return -1;
    if (gz_small_int(size_obj, 1, MAX_ACTIONS, &size, "size: expected 1 to 2**20 actions") < 0)
        return -1;
    items = PySequence_Tuple(engines_obj);
    if (items == NULL)
        return -1;
    n = PyTuple_GET_SIZE(items);
    if (n < 1) {
        PyErr_SetString(PyExc_ValueError, "a batch holds at least one engine");
        goto fail;
    }
    if (check_engine(PyTuple_GET_ITEM(items, 0), NULL, NULL) < 0)
        goto fail;
    tables = ((GZHead *)PyTuple_GET_ITEM(items, 0))->tables;
    for (i = 1; i < n; i++)
        if (check_engine(PyTuple_GET_ITEM(items, i), Py_TYPE(PyTuple_GET_ITEM(items, 0)),
                         tables) < 0)
            goto fail;
    if (check_distinct(&PyTuple_GET_ITEM(items, 0), n) < 0)
        goto fail;
    engines = PyMem_Calloc((size_t)n, sizeof *engines);
    play_action = PyMem_Malloc(NKEYS * sizeof *play_action);
    show_action = PyMem_Malloc((size_t)(tables->nchoices + 1) * sizeof *show_action);
    seen = PyMem_Calloc((size_t)size, 1);
    if (engines == NULL || play_action == NULL || show_action == NULL || seen == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    /* the tables hold the engines' tables alive: a play rule run below cannot free them */
    Py_INCREF(tables);
    if (read_table(plays, NKEYS, (int)size, play_action,
                   "plays: an action index or -1 per play key") < 0 ||
        read_table(shows, tables->nchoices, (int)size, show_action,
                   "shows: an action index or -1 per show choice id") < 0) {
        Py_DECREF(tables);
        goto fail;
    }
    for (i = 0; i < NKEYS + tables->nchoices; i++) {
        int32_t a = i < NKEYS ? play_action[i] : show_action[i - NKEYS];
        if (a < 0)
            continue;
        if (seen[a]) {
            Py_DECREF(tables);
            PyErr_Format(PyExc_ValueError, "two actions are numbered %d", (int)a);
            goto fail;
        }
        seen[a] = 1;
    }
    for (i = 0; i < n; i++) {
        engines[i] = PyTuple_GET_ITEM(items, i);
        Py_INCREF(engines[i]);
    }
    b->n = n;
    b->engines = engines;
    b->type = Py_TYPE(engines[0]);
    b->tables = tables;
    b->size = (int)size;
    b->most = GZ_LEGAL_MAX;
    for (i = 0; i < tables->nholdings; i++)
        if (tables->held_start[i + 1] - tables->held_start[i] > b->most)
            b->most = tables->held_start[i + 1] - tables->held_start[i];
    for (i = 0; i < 52; i++)
        if (tables->first_start[i + 1] - tables->first_start[i] > b->most)
            b->most = tables->first_start[i + 1] - tables->first_start[i];
    b->play_action = play_action;
    b->show_action = show_action;
    PyMem_Free(seen);
    Py_DECREF(items);
    return 0;
fail:
    PyMem_Free(engines);
    PyMem_Free(play_action);
    PyMem_Free(show_action);
    PyMem_Free(seen);
    Py_XDECREF(items);
    return -1;
}

static int ready(Batch *b)
{
    if (b->engines == NULL) {
        PyErr_SetString(PyExc_ValueError, "the Batch is not set up");
        return -1;
    }
    return 0;
}

/* Room for the legal actions of one seat and their keys: 2 * b->most ints (freed with
 * PyMem_Free), or NULL with MemoryError.  Per call, not per batch: a play rule may call
 * the batch again while a call runs. */
static int *scratch(const Batch *b)
{
    int *room = PyMem_Malloc(2 * (size_t)b->most * sizeof *room);
    if (room == NULL)
        PyErr_NoMemory();
    return room;
}

/* Whether hand i's engine still plays the batch's ruleset: an engine set up again
 * (engine(i).__init__ with other tables) or cleared is refused, since the batch's tables
 * of actions and observations are numbered by its ruleset's show choices.  0, or -1 with
 * ValueError. */
static int held(const Batch *b, Py_ssize_t i)
{
    const GZHead *h = (const GZHead *)b->engines[i];
    if (h->tables != b->tables || h->ops == NULL) {
        PyErr_Format(PyExc_ValueError,
                     "hand %zd: its engine was set up again for another ruleset, or cleared", i);
        return -1;
    }
    return 0;
}

/* The legal actions of hand i's seat to act, in the engine's order (legal()), into acts,
 * and their keys (plays) or positions (shows) into keys; their number (0 when the hand is
 * over), or -1 with an exception.  *show says which phase. */
static int legal_of(Batch *b, Py_ssize_t i, int *acts, int *keys, int *show)
{
    GZHead *h = (GZHead *)b->engines[i];
    int n, k;
    *show = 0;
    if (held(b, i) < 0)
        return -1;
    if (h->s.phase == PHASE_OVER)
        return 0;
    if (h->s.phase != PHASE_PLAY) {
        const int *ids = gz_show_ids(h->tables, &h->s, &n);
        *show = 1;
        for (k = 0; k < n; k++) {
            acts[k] = b->show_action[ids[k]];
            keys[k] = k;
            if (acts[k] < 0) {
                PyErr_Format(PyExc_ValueError,
                             "hand %zd: show choice %d is legal but has no action number", i,
                             ids[k]);
                return -1;
            }
        }
        return n;
    }
    Py_INCREF(h); /* a play rule may run: the engine stays alive through it */
    n = h->ops->legal_keys(h, keys);
    Py_DECREF(h);
    if (n < 0)
        return -1;
    for (k = 0; k < n; k++) {
        acts[k] = b->play_action[keys[k]];
        if (acts[k] < 0) {
            PyErr_Format(PyExc_ValueError,
                         "hand %zd: play key %d is legal but has no action number", i, keys[k]);
            return -1;
        }
    }
    return n;
}

/* A buffer of `count` items of one byte (mask) or 8 (ints, floats): 0, or -1 with
 * TypeError / ValueError.  kind: 'm' int8/uint8/bool, 's' int8, 'q' int64, 'd' float64. */
static int get_buffer(PyObject *obj, Py_buffer *view, int writable, char kind, Py_ssize_t count,
                      const char *name)
{
    const char *format;
    int ok;
    if (PyObject_GetBuffer(obj, view,
                           PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    format = view->format == NULL ? "B" : view->format;
    if (*format == '@' || *format == '=' || *format == '<')
        format++;
    if (kind == 'm')
        ok = view->itemsize == 1 && (!strcmp(format, "b") || !strcmp(format, "B") ||
                                     !strcmp(format, "?"));
    else if (kind == 's')
        ok = view->itemsize == 1 && !strcmp(format, "b");
    else if (kind == 'q')
        ok = view->itemsize == 8 && (!strcmp(format, "q") || !strcmp(format, "l"));
    else
        ok = view->itemsize == 8 && !strcmp(format, "d");
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "%s: expected a buffer of %s, not format %s", name,
                     kind == 'm' ? "int8, uint8 or bool" :
                     kind == 's' ? "int8" :
                     kind == 'q' ? "int64" : "float64",
                     format);
        PyBuffer_Release(view);
        return -1;
    }
    if (view->len != count * view->itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items, got %zd", name, count,
                     view->len / view->itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* legal_mask(out): out (N x size bytes) gets 1 for each legal action of each hand's seat to
 * act, 0 elsewhere (a finished hand's row is all 0). */
static PyObject *batch_legal_mask(Batch *b, PyObject *out)
{
    Py_buffer view;
    Py_ssize_t i;
    int *acts, *keys;
    if (ready(b) < 0)
        return NULL;
    if (get_buffer(out, &view, 1, 'm', b->n * (Py_ssize_t)b->size, "legal_mask") < 0)
        return NULL;
    acts = scratch(b);
    if (acts == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    keys = acts + b->most;
    memset(view.buf, 0, (size_t)view.len);
    for (i = 0; i < b->n; i++) {
        char *row = (char *)view.buf + i * (Py_ssize_t)b->size;
        int show, k, n = legal_of(b, i, acts, keys, &show);
        if (n < 0) {
            PyMem_Free(acts);
            PyBuffer_Release(&view);
            return NULL;
        }
        for (k = 0; k < n; k++)
            row[acts[k]] = 1;
    }
    PyMem_Free(acts);
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* seats(out): out (N int8) gets each hand's seat to act, -1 for a finished hand. */
static PyObject *batch_seats(Batch *b, PyObject *out)
{
    Py_buffer view;
    Py_ssize_t i;
    if (ready(b) < 0)
        return NULL;
    if (get_buffer(out, &view, 1, 's', b->n, "seats") < 0)
        return NULL;
    for (i = 0; i < b->n; i++)
        ((signed char *)view.buf)[i] = (signed char)((GZHead *)b->engines[i])->s.seat;
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* Make the moves found (every engine the same object at the same version as then); the
 * indices of the hands they finished, as a tuple. */
static PyObject *make_moves(Batch *b, PyObject **engines, Move *moves)
{
    Py_ssize_t i, over = 0;
    PyObject *out;
    for (i = 0; i < b->n; i++) {
        if (moves[i].action < 0)
            continue;
        if (b->engines[i] != engines[i] ||
            ((GZHead *)engines[i])->version != moves[i].version) {
            PyErr_SetString(PyExc_RuntimeError,
                            "a play rule changed the batch's hands while it found their moves");
            return NULL;
        }
    }
    /* nothing below runs Python code */
    for (i = 0; i < b->n; i++) {
        GZHead *h = (GZHead *)b->engines[i];
        if (moves[i].action < 0)
            continue;
        if (moves[i].show) {
            h->version++;
            if (gz_show_take(h->tables, &h->s, moves[i].key))
                h->ops->start_play(h);
        } else {
            h->ops->play_key(h, moves[i].key);
        }
        if (h->s.phase == PHASE_OVER)
            over++;
    }
    out = PyTuple_New(over);
    if (out == NULL)
        return NULL;
    for (i = 0, over = 0; i < b->n; i++) {
        if (moves[i].action >= 0 && ((GZHead *)b->engines[i])->s.phase == PHASE_OVER) {
            PyObject *index = PyLong_FromSsize_t(i);
            if (index == NULL) {
                Py_DECREF(out);
                return NULL;
            }
            PyTuple_SET_ITEM(out, over++, index);
        }
    }
    return out;
}

/* Find every hand's move: from `actions` (int64, one per hand) or, when actions is NULL,
 * from `uniforms` (float64 in [0, 1): the int(u * n)-th of the n legal actions, in the
 * engine's order, as random_playout draws), the actions chosen written into `chosen`.
 * Then make them.  A finished hand's action is not read (its chosen action is -1), nor the
 * action of a hand `moving` (when not NULL) leaves out: such a hand does not move. */
static PyObject *find_and_move(Batch *b, const int64_t *actions, const double *uniforms,
                               int64_t *chosen, const uint8_t *moving)
{
    Move *moves;
    PyObject **engines;
    PyObject *result = NULL;
    Py_ssize_t i;
    int *acts, *keys;
    if (uniforms != NULL) {
        for (i = 0; i < b->n; i++) {
            if (!(uniforms[i] >= 0.0 && uniforms[i] < 1.0)) {
                PyErr_Format(PyExc_ValueError, "uniforms[%zd] is not in [0, 1)", i);
                return NULL;
            }
        }
    }
    moves = PyMem_Malloc((size_t)b->n * sizeof *moves);
    engines = PyMem_Calloc((size_t)b->n, sizeof *engines);
    acts = PyMem_Malloc(2 * (size_t)b->most * sizeof *acts);
    if (moves == NULL || engines == NULL || acts == NULL) {
        PyMem_Free(moves);
        PyMem_Free(engines);
        PyMem_Free(acts);
        return PyErr_NoMemory();
    }
    keys = acts + b->most;
    for (i = 0; i < b->n; i++) {
        engines[i] = b->engines[i];
        Py_INCREF(engines[i]);
    }
    for (i = 0; i < b->n; i++) {
        GZHead *h = (GZHead *)engines[i];
        int show, k, n;
        moves[i].action = -1;
        if (b->engines[i] != engines[i]) {
            PyErr_SetString(PyExc_RuntimeError,
                            "a play rule changed the batch's hands while it found their moves");
            goto done;
        }
        if (h->s.phase == PHASE_OVER || (moving != NULL && !moving[i])) {
            if (chosen != NULL)
                chosen[i] = -1;
            continue;
        }
        if (actions != NULL && (actions[i] < 0 || actions[i] >= b->size)) {
            PyErr_Format(PyExc_ValueError, "hand %zd: action %lld is outside [0, %d)", i,
                         (long long)actions[i], b->size);
            goto done;
        }
        n = legal_of(b, i, acts, keys, &show);
        if (n < 0)
            goto done;
        if (n == 0) {
            PyErr_Format(PyExc_ValueError, "hand %zd: the seat to move has no legal action", i);
            goto done;
        }
        if (actions != NULL) {
            for (k = 0; k < n && acts[k] != actions[i]; k++)
                ;
            if (k == n) {
                PyErr_Format(PyExc_ValueError, "hand %zd: action %lld is not legal for seat %d",
                             i, (long long)actions[i], h->s.seat);
                goto done;
            }
        } else {
            k = (int)(uniforms[i] * (double)n);
            if (k >= n) /* cannot happen for u < 1 and small n: kept as a guard */
                k = n - 1;
            chosen[i] = acts[k];
        }
        moves[i].version = h->version;
        moves[i].key = keys[k];
        moves[i].show = show;
        moves[i].action = acts[k];
    }
    result = make_moves(b, engines, moves);
done:
    for (i = 0; i < b->n; i++)
        Py_DECREF(engines[i]);
    PyMem_Free(engines);
    PyMem_Free(moves);
    PyMem_Free(acts);
    return result;
}

/* A copy of the optional `moving` mask (N bytes): *out NULL for None; 0, or -1 with an
 * exception.  Read whole, as every input is: its owner may change it while a rule runs. */
static int read_moving(Batch *b, PyObject *obj, uint8_t **out)
{
    Py_buffer view;
    *out = NULL;
    if (obj == NULL || obj == Py_None)
        return 0;
    if (get_buffer(obj, &view, 0, 'm', b->n, "moving") < 0)
        return -1;
    *out = PyMem_Malloc((size_t)b->n);
    if (*out == NULL) {
        PyBuffer_Release(&view);
        PyErr_NoMemory();
        return -1;
    }
    memcpy(*out, view.buf, (size_t)b->n);
    PyBuffer_Release(&view);
    return 0;
}

/* step(actions[, moving]) -> the indices of the hands it finished: action actions[i] (int64)
 * for each hand i not over (and moving, when a mask is given); ValueError (no hand changes)
 * for one out of range or not legal. */
static PyObject *batch_step(Batch *b, PyObject *args)
{
    Py_buffer view;
    PyObject *actions, *moving_obj = NULL, *out;
    int64_t *copy;
    uint8_t *moving;
    if (!PyArg_ParseTuple(args, "O|O:step", &actions, &moving_obj))
        return NULL;
    if (ready(b) < 0)
        return NULL;
    if (get_buffer(actions, &view, 0, 'q', b->n, "actions") < 0)
        return NULL;
    /* read whole: the buffer's owner may change it while a play rule runs */
    copy = PyMem_Malloc((size_t)b->n * sizeof *copy);
    if (copy == NULL) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    memcpy(copy, view.buf, (size_t)b->n * sizeof *copy);
    PyBuffer_Release(&view);
    if (read_moving(b, moving_obj, &moving) < 0) {
        PyMem_Free(copy);
        return NULL;
    }
    out = find_and_move(b, copy, NULL, NULL, moving);
    PyMem_Free(moving);
    PyMem_Free(copy);
    return out;
}

/* random_step(uniforms, out[, moving]) -> the indices of the hands it finished: for each
 * hand not over (and moving, when a mask is given), the int(u * n)-th of its n legal actions (the engine's order), u = uniforms[i]
 * (float64 in [0, 1)); out (int64) gets the actions taken, -1 for a finished hand. */
static PyObject *batch_random_step(Batch *b, PyObject *args)
{
    PyObject *uniforms_obj, *out_obj, *moving_obj = NULL, *result;
    Py_buffer uniforms, out;
    double *copy;
    uint8_t *moving;
    if (!PyArg_ParseTuple(args, "OO|O:random_step", &uniforms_obj, &out_obj, &moving_obj))
        return NULL;
    if (ready(b) < 0)
        return NULL;
    if (get_buffer(uniforms_obj, &uniforms, 0, 'd', b->n, "uniforms") < 0)
        return NULL;
    copy = PyMem_Malloc((size_t)b->n * sizeof *copy);
    if (copy == NULL) {
        PyBuffer_Release(&uniforms);
        return PyErr_NoMemory();
    }
    memcpy(copy, uniforms.buf, (size_t)b->n * sizeof *copy);
    PyBuffer_Release(&uniforms);
    if (read_moving(b, moving_obj, &moving) < 0) {
        PyMem_Free(copy);
        return NULL;
    }
    if (get_buffer(out_obj, &out, 1, 'q', b->n, "out") < 0) {
        PyMem_Free(moving);
        PyMem_Free(copy);
        return NULL;
    }
    result = find_and_move(b, NULL, copy, (int64_t *)out.buf, moving);
    PyBuffer_Release(&out);
    PyMem_Free(moving);
    PyMem_Free(copy);
    return result;
}


/* random_until(uniforms, out, stop) -> the indices of the hands it finished: up to R rounds
 * (uniforms: R x N float64 in [0, 1), out: R x N int64), each a random_step of the hands
 * whose seat to move is not `stop` (and not over), until every hand waits for `stop` or is
 * over: the opponents' random moves of a learner at seat `stop`, without a round trip to
 * Python per round.  out[r][i] gets round r's action of hand i, -1 where it did not move. */
static PyObject *batch_random_until(Batch *b, PyObject *args)
{
    PyObject *uniforms_obj, *out_obj, *done = NULL, *part;
    Py_buffer uniforms, out;
    double *copy;
    uint8_t *moving;
    Py_ssize_t i, r, rounds, k;
    int stop;
    if (!PyArg_ParseTuple(args, "OOi:random_until", &uniforms_obj, &out_obj, &stop))
        return NULL;
    if (ready(b) < 0)
        return NULL;
    if (stop < 0 || stop > 3) {
        PyErr_Format(PyExc_ValueError, "stop: a seat 0 to 3, not %d", stop);
        return NULL;
    }
    if (PyObject_GetBuffer(uniforms_obj, &uniforms, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (uniforms.itemsize != 8 || uniforms.format == NULL || strcmp(uniforms.format, "d") ||
        b->n == 0 || uniforms.len % (b->n * 8) != 0) {
        PyBuffer_Release(&uniforms);
        PyErr_Format(PyExc_TypeError, "uniforms: expected rounds x %zd float64", b->n);
        return NULL;
    }
    rounds = uniforms.len / (b->n * 8);
    copy = PyMem_Malloc((size_t)uniforms.len + (size_t)b->n);
    if (copy == NULL) {
        PyBuffer_Release(&uniforms);
        return PyErr_NoMemory();
    }
    memcpy(copy, uniforms.buf, (size_t)uniforms.len);
    PyBuffer_Release(&uniforms);
    moving = (uint8_t *)(copy + rounds * b->n);
    if (get_buffer(out_obj, &out, 1, 'q', rounds * b->n, "out") < 0) {
        PyMem_Free(copy);
        return NULL;
    }
    for (k = 0; k < rounds * b->n; k++)
        ((int64_t *)out.buf)[k] = -1;
    done = PyList_New(0);
    if (done == NULL)
        goto fail;
    for (r = 0; r < rounds; r++) {
        int any = 0;
        for (i = 0; i < b->n; i++) {
            const GZHead *h = (const GZHead *)b->engines[i];
            moving[i] = h->s.phase != PHASE_OVER && h->s.seat >= 0 && h->s.seat != stop;
            any |= moving[i];
        }
        if (!any)
            break;
        part = find_and_move(b, NULL, copy + r * b->n, (int64_t *)out.buf + r * b->n, moving);
        if (part == NULL)
            goto fail;
        for (k = 0; k < PyTuple_GET_SIZE(part); k++) {
            if (PyList_Append(done, PyTuple_GET_ITEM(part, k)) < 0) {
                Py_DECREF(part);
                goto fail;
            }
        }
        Py_DECREF(part);
    }
    PyBuffer_Release(&out);
    PyMem_Free(copy);
    part = PyList_AsTuple(done);
    Py_DECREF(done);
    return part;
fail:
    Py_XDECREF(done);
    PyBuffer_Release(&out);
    PyMem_Free(copy);
    return NULL;
}

/* -- observations: the C twin of gongzhu.envs.fast.HandEncoder ----------------------------- */

static int read_ints(PyObject *seq, Py_ssize_t length, long lo, long hi, long *out,
                     const char *message)
{
    PyObject *items = PySequence_Tuple(seq);
    Py_ssize_t i;
    if (items == NULL)
        return -1;
    if (length >= 0 && PyTuple_GET_SIZE(items) != length) {
        Py_DECREF(items);
        PyErr_Format(PyExc_ValueError, "%s: expected %zd ints", message, length);
        return -1;
    }
    for (i = 0; i < PyTuple_GET_SIZE(items); i++) {
        if (gz_small_int(PyTuple_GET_ITEM(items, i), lo, hi, &out[i], message) < 0) {
            Py_DECREF(items);
            return -1;
        }
    }
    Py_DECREF(items);
    return 0;
}

/* Whether [at, at + size) lies in [0, limit) (at < 0: the part is absent, when allowed). */
static int fits(long at, long size, long limit, int optional)
{
    if (at < 0)
        return optional;
    return at + size <= limit;
}

/* set_encoding(ints, show_start, show_at, show_value, binds, first): see gongzhu.batch. */
static PyObject *batch_set_encoding(Batch *b, PyObject *args)
{
    PyObject *ints, *start_obj, *at_obj, *value_obj, *binds_obj, *first_obj, *items = NULL;
    Encoding *enc;
    long *tmp = NULL, *at;
    Py_ssize_t nentries, i;
    int nchoices, nstarts, copies, k;
    const char *bad = NULL;
    if (!PyArg_ParseTuple(args, "OOOOOO:set_encoding", &ints, &start_obj, &at_obj, &value_obj,
                          &binds_obj, &first_obj))
        return NULL;
    if (ready(b) < 0)
        return NULL;
    nchoices = b->tables->nchoices;
    nstarts = nchoices * 8 + 1;
    copies = b->tables->copies;
    enc = PyMem_Calloc(1, sizeof *enc);
    if (enc == NULL)
        return PyErr_NoMemory();
    at = enc->at;
    if (read_ints(ints, E_COUNT, -1, 1L << 24, at, "ints: the encoding's offsets") < 0)
        goto fail;
    if (at[E_OBS] < 1 || at[E_HIST] < 0)
        bad = "ints: the sizes";
    else if (!fits(at[E_HOLDING], 52, at[E_OBS], 0) || !fits(at[E_PLAYED_BY], 208, at[E_OBS], 0) ||
             !fits(at[E_TRICK], 208, at[E_OBS], 0) || !fits(at[E_TAKEN], 208, at[E_OBS], 0) ||
             !fits(at[E_VOIDS], 16, at[E_OBS], 0) || !fits(at[E_SIZES], 4, at[E_OBS], 0) ||
             !fits(at[E_PHASE], 4, at[E_OBS], 0) || !fits(at[E_LEADER], 4, at[E_OBS], 0) ||
             !fits(at[E_TO_MOVE], 4, at[E_OBS], 0))
        bad = "ints: an observation part outside the observation";
    else if (at[E_TRICKS] != 13 * copies)
        bad = "ints: tricks is 13 per deck";
    else if (at[E_HIST] > 0 &&
             (!fits(at[E_FIRST_CARD], 52, at[E_HIST], 1) ||
              !fits(at[E_FIRST_TURNS], 4, at[E_HIST], 1) ||
              !fits(at[E_PLAYED_IN], copies * 52 * at[E_TRICKS], at[E_HIST], 0) ||
              !fits(at[E_PLAYED_SEAT], copies * 52 * 4, at[E_HIST], 1) ||
              !fits(at[E_TRICK_LEADERS], 4 * at[E_TRICKS], at[E_HIST], 0)))
        bad = "ints: a history part outside the history";
    for (k = 0; k < 4 && bad == NULL; k++)
        if (at[E_PHASE_OF + k] > 3 || at[E_PREFERRED + k] > 15 || at[E_PREFERRED + k] < 0)
            bad = "ints: phase_of is -1..3, preferred suits 0..15";
    if (bad != NULL) {
        PyErr_SetString(PyExc_ValueError, bad);
        goto fail;
    }
    tmp = PyMem_Malloc((size_t)nstarts * sizeof *tmp);
    enc->show_start = PyMem_Malloc((size_t)nstarts * sizeof *enc->show_start);
    enc->binds = PyMem_Malloc((size_t)nchoices + 1);
    enc->first = PyMem_Malloc((size_t)nchoices + 1);
    if (tmp == NULL || enc->show_start == NULL || enc->binds == NULL || enc->first == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    items = PySequence_Tuple(at_obj);
    if (items == NULL)
        goto fail;
    nentries = PyTuple_GET_SIZE(items);
    if (read_ints(start_obj, nstarts, 0, (long)nentries, tmp, "show_start") < 0)
        goto fail;
    for (i = 0; i < nstarts; i++) {
        if ((i && tmp[i] < tmp[i - 1]) || (i == nstarts - 1 && tmp[i] != nentries)) {
            PyErr_SetString(PyExc_ValueError, "show_start: ascending, ending at len(show_at)");
            goto fail;
        }
        enc->show_start[i] = (int)tmp[i];
    }
    PyMem_Free(tmp);
    tmp = PyMem_Malloc((size_t)(nentries + 1) * sizeof *tmp);
    enc->show_at = PyMem_Malloc((size_t)(nentries + 1) * sizeof *enc->show_at);
    enc->show_value = PyMem_Malloc((size_t)(nentries + 1) * sizeof *enc->show_value);
    if (tmp == NULL || enc->show_at == NULL || enc->show_value == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    if (read_ints(items, nentries, 0, at[E_OBS] - 1, tmp, "show_at: offsets in a row") < 0)
        goto fail;
    for (i = 0; i < nentries; i++)
        enc->show_at[i] = (int32_t)tmp[i];
    Py_CLEAR(items);
    items = PySequence_Tuple(value_obj);
    if (items == NULL)
        goto fail;
    if (PyTuple_GET_SIZE(items) != nentries) {
        PyErr_SetString(PyExc_ValueError, "show_value: one float per show_at");
        goto fail;
    }
    for (i = 0; i < nentries; i++) {
        double v = PyFloat_AsDouble(PyTuple_GET_ITEM(items, i));
        if (v == -1.0 && PyErr_Occurred())
            goto fail;
        enc->show_value[i] = (float)v;
    }
    Py_CLEAR(items);
    if (read_ints(binds_obj, nchoices, 0, 2, tmp, "binds: 0, 1 or 2 per show choice") < 0)
        goto fail;
    for (k = 0; k < nchoices; k++)
        enc->binds[k] = (signed char)tmp[k];
    if (read_ints(first_obj, nchoices, 0, 1, tmp, "first: 0 or 1 per show choice") < 0)
        goto fail;
    for (k = 0; k < nchoices; k++)
        enc->first[k] = (signed char)tmp[k];
    PyMem_Free(tmp);
    encoding_free(b->enc);
    b->enc = enc;
    Py_RETURN_NONE;
fail:
    Py_XDECREF(items);
    PyMem_Free(tmp);
    encoding_free(enc);
    return NULL;
}

/* The void reading of gongzhu.implied.VoidReader, folded over a hand's play. */
typedef struct {
    uint64_t locked[4], private_locked[4];
    int void_[4], private_[4], led, offenders[4], noffenders;
} Voids;

static void voids_play(Voids *v, const Encoding *enc, int seat, int position, int key,
                       int lead_key)
{
    int led = KEY_FIRST(lead_key) / 13, bit = 1 << led, pub = 0, priv = 0;
    int a = KEY_FIRST(key), c = KEY_SECOND(key);
    int suits = (1 << (a / 13)) | (1 << (c / 13));
    if (position && (suits & ~bit)) {
        int preferred = (int)enc->at[E_PREFERRED + led];
        pub = bit;
        if (preferred && (suits & ~preferred & ~bit)) {
            if (enc->at[E_STRICT])
                pub |= preferred;
            else if (v->noffenders < 4)
                v->offenders[v->noffenders++] = seat;
        }
    }
    if ((v->locked[seat] || v->private_locked[seat]) && !(v->led & bit)) {
        uint64_t led_cards = ((1ULL << a) | (1ULL << c)) & GZ_SUIT[led];
        if (v->locked[seat] & led_cards)
            pub |= bit;
        else if (v->private_locked[seat] & led_cards)
            priv = bit;
    }
    pub &= ~v->void_[seat];
    v->void_[seat] |= pub;
    priv &= ~(v->void_[seat] | v->private_[seat]);
    v->private_[seat] |= priv;
}

static void voids_finish(Voids *v, const Encoding *enc, int lead_key, int winner, int taker)
{
    int led = KEY_FIRST(lead_key) / 13, from = 0, to = 0, i;
    int preferred = (int)enc->at[E_PREFERRED + led];
    v->led |= 1 << led;
    if (!v->noffenders)
        return;
    if (taker == winner) {
        to = v->noffenders;
    } else {
        for (i = 0; i < v->noffenders && v->offenders[i] != taker; i++)
            ;
        if (i < v->noffenders) {
            if (enc->at[E_FIRST_OFFENDER])
                to = i;
            else {
                from = i + 1;
                to = v->noffenders;
            }
        }
    }
    for (i = from; i < to; i++)
        v->void_[v->offenders[i]] |= preferred;
    v->noffenders = 0;
}

static void add_counts(float *at, Mask m)
{
    uint64_t x;
    for (x = m.lo; x; x &= x - 1)
        at[__builtin_ctzll(x)] += 1.0f;
    for (x = m.hi; x; x &= x - 1)
        at[__builtin_ctzll(x)] += 1.0f;
}

/* Hand i's seat to move's observation into row (and its history after it, with `history`):
 * what HandEncoder.observation / information_state give it.  A finished hand's row: 0. */
static void render(const Batch *b, Py_ssize_t i, float *row, int history, int viewer)
{
    const Encoding *enc = b->enc;
    const long *at = enc->at;
    const GZHead *h = (const GZHead *)b->engines[i];
    const ShowState *s = &h->s;
    float *hist = row + at[E_OBS];
    int t, k, p, slot[52];
    GZPlayView v;
    Voids voids;
#define REL(seat) (((seat) - viewer) & 3)
    memset(row, 0, (size_t)(at[E_OBS] + (history ? at[E_HIST] : 0)) * sizeof *row);
    if (viewer < 0) { /* the seat to move's: none when the hand is over */
        if (s->phase == PHASE_OVER || s->seat < 0)
            return;
        viewer = s->seat;
    }
    h->ops->read(h, &v);
    memset(&voids, 0, sizeof voids);
    memset(slot, 0, sizeof slot);
    if (s->phase == PHASE_FIRST_SHOW) {
        row[at[E_HOLDING] + s->first_cards[viewer]] = 1.0f;
        for (k = 0; k < 4; k++)
            row[at[E_SIZES] + k] = 1.0f;
    } else {
        add_counts(row + at[E_HOLDING], v.hands[viewer]);
        for (k = 0; k < 4; k++)
            row[at[E_SIZES] + REL(k)] = (float)mask_count(v.hands[k]);
    }
    if (at[E_PHASE_OF + s->phase] >= 0)
        row[at[E_PHASE] + at[E_PHASE_OF + s->phase]] = 1.0f;
    row[at[E_LEADER] + REL(v.trick_leader)] = 1.0f;
    if (s->phase != PHASE_OVER && s->seat >= 0)
        row[at[E_TO_MOVE] + REL(s->seat)] = 1.0f;
    if (history && at[E_FIRST_CARD] >= 0)
        hist[at[E_FIRST_CARD] + s->first_cards[viewer]] = 1.0f;
    for (k = 0; k < s->nlog; k++) {
        const ShowEntry *entry = &s->log[k];
        int id = entry->id, rel = REL(entry->seat), e;
        int cell = (id * 2 + (entry->forced ? 1 : 0)) * 4 + rel;
        for (e = enc->show_start[cell]; e < enc->show_start[cell + 1]; e++)
            row[enc->show_at[e]] += enc->show_value[e];
        if (history && enc->first[id] && at[E_FIRST_TURNS] >= 0)
            hist[at[E_FIRST_TURNS] + rel] = 1.0f;
        if (enc->binds[id]) {
            uint64_t bits = b->tables->choices[id].copies.lo;
            if (enc->binds[id] == 2 && !entry->forced)
                voids.private_locked[entry->seat] |= bits;
            else
                voids.locked[entry->seat] |= bits;
        }
    }
    for (t = 0; t <= v.ntricks; t++) {
        int finished = t < v.ntricks, n = finished ? 4 : v.ntrick;
        const int *keys = finished ? v.log_keys + 4 * t : v.trick;
        int leader = finished ? v.log_leader[t] : v.trick_leader;
        if (n == 0 || t >= at[E_TRICKS])
            continue;
        if (history)
            hist[at[E_TRICK_LEADERS] + 4 * t + REL(leader)] = 1.0f;
        for (p = 0; p < n; p++) {
            int seat = (leader + p) & 3, key = keys[p], cards[2], ncards, c;
            cards[0] = KEY_FIRST(key);
            cards[1] = KEY_SECOND(key);
            ncards = key < ONE_CARD_KEYS ? 1 : 2;
            for (c = 0; c < ncards; c++) {
                int card = cards[c], copy;
                row[at[E_PLAYED_BY] + 52 * REL(seat) + card] += 1.0f;
                if (!finished)
                    row[at[E_TRICK] + 52 * REL(seat) + card] += 1.0f;
                copy = slot[card]++;
                if (history && copy < b->tables->copies) {
                    hist[at[E_PLAYED_IN] + (copy * 52 + card) * at[E_TRICKS] + t] = 1.0f;
                    if (at[E_PLAYED_SEAT] >= 0)
                        hist[at[E_PLAYED_SEAT] + (copy * 52 + card) * 4 + REL(seat)] = 1.0f;
                }
            }
            voids_play(&voids, enc, seat, p, key, keys[0]);
        }
        if (finished)
            voids_finish(&voids, enc, keys[0], v.log_winner[t],
                         v.log_taker != NULL ? v.log_taker[t] : v.log_winner[t]);
    }
    for (k = 0; k < 4; k++) {
        int suit;
        add_counts(row + at[E_TAKEN] + 52 * REL(k), v.taken[k]);
        for (suit = 0; suit < 4; suit++)
            if ((voids.void_[k] >> suit) & 1)
                row[at[E_VOIDS] + 4 * REL(k) + suit] = 1.0f;
    }
    for (k = 0; k < 4; k++)
        if ((voids.private_[viewer] >> k) & 1)
            row[at[E_VOIDS] + k] = 1.0f;
#undef REL
}

/* observe(out[, seats]): each hand's seat to move's observation into out (float32, N rows of
 * the observation's size, or of the observation's and the history's: the information
 * state); a finished hand's row is 0.  With seats (N int8), hand i's row is seats[i]'s
 * observation (-1: the seat to move's), a finished hand's included. */
static PyObject *batch_observe(Batch *b, PyObject *args)
{
    Py_buffer view, seats_view;
    PyObject *out, *seats_obj = NULL;
    Py_ssize_t i, width;
    int history;
    int8_t *seats = NULL;
    if (!PyArg_ParseTuple(args, "O|O:observe", &out, &seats_obj))
        return NULL;
    if (ready(b) < 0)
        return NULL;
    if (seats_obj != NULL && seats_obj != Py_None) {
        if (get_buffer(seats_obj, &seats_view, 0, 's', b->n, "seats") < 0)
            return NULL;
        seats = PyMem_Malloc((size_t)b->n); /* read whole, as every input */
        if (seats == NULL) {
            PyBuffer_Release(&seats_view);
            return PyErr_NoMemory();
        }
        memcpy(seats, seats_view.buf, (size_t)b->n);
        PyBuffer_Release(&seats_view);
        for (i = 0; i < b->n; i++) {
            if (seats[i] < -1 || seats[i] > 3) {
                PyMem_Free(seats);
                PyErr_Format(PyExc_ValueError, "seats[%zd]: expected -1 to 3, not %d", i,
                             (int)seats[i]);
                return NULL;
            }
        }
    }
    if (b->enc == NULL) {
        PyMem_Free(seats);
        PyErr_SetString(PyExc_ValueError, "observe: no encoding was set (set_encoding)");
        return NULL;
    }
    if (PyObject_GetBuffer(out, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyMem_Free(seats);
        return NULL;
    }
    if (view.itemsize != 4 || view.format == NULL ||
        strcmp(view.format + (view.format[0] == '<' || view.format[0] == '=' ||
                              view.format[0] == '@'),
               "f")) {
        PyBuffer_Release(&view);
        PyMem_Free(seats);
        PyErr_SetString(PyExc_TypeError, "observe: expected a buffer of float32");
        return NULL;
    }
    width = b->enc->at[E_OBS];
    history = view.len == b->n * (width + b->enc->at[E_HIST]) * 4 && b->enc->at[E_HIST] > 0;
    if (history)
        width += b->enc->at[E_HIST];
    else if (view.len != b->n * width * 4) {
        PyBuffer_Release(&view);
        PyMem_Free(seats);
        PyErr_Format(PyExc_ValueError,
                     "observe: expected %zd rows of %ld (observations) or %ld (information "
                     "states) floats",
                     b->n, b->enc->at[E_OBS], b->enc->at[E_OBS] + b->enc->at[E_HIST]);
        return NULL;
    }
    for (i = 0; i < b->n; i++) {
        if (held(b, i) < 0) {
            PyBuffer_Release(&view);
            PyMem_Free(seats);
            return NULL;
        }
    }
    for (i = 0; i < b->n; i++)
        render(b, i, (float *)view.buf + i * width, history, seats == NULL ? -1 : seats[i]);
    PyBuffer_Release(&view);
    PyMem_Free(seats);
    Py_RETURN_NONE;
}

static int index_of(Batch *b, PyObject *arg, Py_ssize_t *out)
{
    Py_ssize_t i;
    if (ready(b) < 0)
        return -1;
    i = PyNumber_AsSsize_t(arg, PyExc_IndexError);
    if (i == -1 && PyErr_Occurred())
        return -1;
    if (i < 0 || i >= b->n) {
        PyErr_Format(PyExc_IndexError, "hand %zd: the batch holds hands 0 to %zd", i, b->n - 1);
        return -1;
    }
    *out = i;
    return 0;
}

/* engine(i) -> hand i's engine (itself, not a copy). */
static PyObject *batch_engine(Batch *b, PyObject *arg)
{
    Py_ssize_t i;
    if (index_of(b, arg, &i) < 0)
        return NULL;
    Py_INCREF(b->engines[i]);
    return b->engines[i];
}

/* replace(i, engine): hand i is played on `engine` from now on (same type, same Tables). */
static PyObject *batch_replace(Batch *b, PyObject *args)
{
    PyObject *index, *engine;
    Py_ssize_t i, k;
    if (!PyArg_ParseTuple(args, "OO:replace", &index, &engine))
        return NULL;
    if (index_of(b, index, &i) < 0 || check_engine(engine, b->type, b->tables) < 0)
        return NULL;
    for (k = 0; k < b->n; k++) {
        if (k != i && b->engines[k] == engine) {
            PyErr_SetString(PyExc_ValueError, "a batch holds each engine once");
            return NULL;
        }
    }
    Py_INCREF(engine);
    Py_SETREF(b->engines[i], engine);
    Py_RETURN_NONE;
}

static Py_ssize_t batch_len(Batch *b) { return b->engines == NULL ? 0 : b->n; }

static PyObject *get_size(Batch *b, void *c)
{
    (void)c;
    return PyLong_FromLong(b->size);
}

static PyGetSetDef batch_getset[] = {
    {"size", (getter)get_size, NULL, "the number of actions (a mask row's length)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef batch_methods[] = {
    {"legal_mask", (PyCFunction)batch_legal_mask, METH_O,
     "legal_mask(out): each hand's legal actions into out (N x size bytes)"},
    {"seats", (PyCFunction)batch_seats, METH_O,
     "seats(out): each hand's seat to act into out (N int8), -1 when over"},
    {"step", (PyCFunction)batch_step, METH_VARARGS,
     "step(actions[, moving]) -> the hands it finished: one action (int64) per hand"},
    {"random_step", (PyCFunction)batch_random_step, METH_VARARGS,
     "random_step(uniforms, out[, moving]) -> the hands it finished: the int(u * n)-th legal "
     "action"},
    {"random_until", (PyCFunction)batch_random_until, METH_VARARGS,
     "random_until(uniforms, out, stop) -> the hands it finished: random rounds of the seats "
     "other than stop, until each hand waits for stop or is over"},
    {"set_encoding", (PyCFunction)batch_set_encoding, METH_VARARGS,
     "set_encoding(ints, show_start, show_at, show_value, binds, first): the observations' layout"},
    {"observe", (PyCFunction)batch_observe, METH_VARARGS,
     "observe(out[, seats]): each hand's seat to move's observation (or information state), "
     "or seats[i]'s (int8, -1: the seat to move), into out"},
    {"engine", (PyCFunction)batch_engine, METH_O, "engine(i) -> hand i's engine"},
    {"replace", (PyCFunction)batch_replace, METH_VARARGS,
     "replace(i, engine): hand i is played on engine from now on"},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods batch_as_sequence = {
    .sq_length = (lenfunc)batch_len,
};

PyTypeObject GZ_BatchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gongzhu._speedups.Batch",
    .tp_doc = "Batch(engines, plays, shows, size)\n\n"
              "C engines of one type and ruleset stepped together (see gongzhu.batch).",
    .tp_basicsize = sizeof(Batch),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)batch_init,
    .tp_dealloc = (destructor)batch_dealloc,
    .tp_traverse = (traverseproc)batch_traverse,
    .tp_clear = (inquiry)batch_clear,
    .tp_methods = batch_methods,
    .tp_getset = batch_getset,
    .tp_as_sequence = &batch_as_sequence,
};
