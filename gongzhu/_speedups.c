/*
 * Optional C accelerator: gongzhu._speedups.PlayCore, the single-card play
 * engine of gongzhu/engine.py (its pure-Python reference) in C.
 *
 * Same interface, same rules (follow suit, the shown-card lock and its
 * lifting, the discard rule and its penalty), same use of the random stream
 * in random_playout (one random() call per card: skip int(r * n) set bits of
 * the legal mask from the lowest), same trick resolution.  The tests play
 * both and require identical hands.
 *
 * Card masks hold bit (suit * 13 + rank - 2); a trick is up to four card indices.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>

static const uint64_t SUIT[4] = {
    0x1FFFULL, 0x1FFFULL << 13, 0x1FFFULL << 26, 0x1FFFULL << 39,
};

static PyObject *PLAYS = NULL; /* the 52 single-card Play objects, by card index */

typedef struct {
    PyObject_HEAD
    PyObject *history, *tricks;
    uint64_t hands[4], locked[4], taken[4], preferred[4];
    int lifted[4];
    uint64_t unled, forced;
    int first_of_suit, trick_leader, seat;
    int trick[4], ntrick;
    int offenders[4], noffenders;
    /* compiled rules */
    int lock_first, lock_discards, lift_for_hand;
    int has_preferred, penalty, last_offender;
} Engine;

static uint64_t lead_lock(const Engine *e, uint64_t hand, uint64_t locked)
{
    uint64_t blocked = 0, m;
    if (!e->lock_first)
        return 0;
    m = locked & e->unled;
    while (m) {
        uint64_t low = m & (~m + 1);
        int index = __builtin_ctzll(m);
        if ((hand & SUIT[index / 13]) != low)
            blocked |= low;
        m ^= low;
    }
    return blocked;
}

static uint64_t legal_mask(Engine *e)
{
    int seat = e->seat;
    uint64_t hand = e->hands[seat], locked = e->locked[seat] & hand, legal;
    if (locked && e->lifted[seat])
        locked = 0;
    if (e->ntrick == 0) {
        if (e->forced) {
            uint64_t f = e->forced & hand;
            return f ? f : hand;
        }
        legal = hand;
        if (locked)
            legal &= ~lead_lock(e, hand, locked);
    } else {
        int led = e->trick[0] / 13;
        uint64_t follow = hand & SUIT[led];
        if (follow) {
            if (locked && e->first_of_suit && follow != (locked & follow) && e->lock_first)
                return follow & ~locked;
            return follow;
        }
        legal = hand;
        if (e->has_preferred && !e->penalty) {
            uint64_t same = hand & e->preferred[led];
            if (same)
                legal = same;
        }
        if (locked && e->lock_discards)
            legal &= ~(locked & e->unled);
    }
    if (legal)
        return legal;
    if (e->lift_for_hand)
        e->lifted[seat] = 1;
    if (e->ntrick == 0)
        return hand;
    if (e->has_preferred && !e->penalty) {
        uint64_t same = hand & e->preferred[e->trick[0] / 13];
        if (same)
            return same;
    }
    return hand;
}

/* Append (seat, PLAYS[key]) to history; return -1 on error. */
static int record_play(PyObject *history, int seat, int key)
{
    PyObject *item = Py_BuildValue("(iO)", seat, PyTuple_GET_ITEM(PLAYS, key));
    int rc;
    if (item == NULL)
        return -1;
    rc = PyList_Append(history, item);
    Py_DECREF(item);
    return rc;
}

static int finish_trick(Engine *e)
{
    int first = e->trick[0], top = (first / 13 + 1) * 13, best = first, position = 0, i;
    int winner, taker;
    PyObject *item;
    for (i = 1; i < 4; i++) {
        int card = e->trick[i];
        if (best < card && card < top) {
            best = card;
            position = i;
        }
    }
    winner = (e->trick_leader + position) & 3;
    taker = winner;
    if (e->noffenders)
        taker = e->last_offender ? e->offenders[e->noffenders - 1] : e->offenders[0];
    e->noffenders = 0;
    e->taken[taker] |= (1ULL << e->trick[0]) | (1ULL << e->trick[1]) | (1ULL << e->trick[2]) |
                       (1ULL << e->trick[3]);
    item = Py_BuildValue("(i(iiii)ii)", e->trick_leader, e->trick[0], e->trick[1], e->trick[2],
                         e->trick[3], winner, taker);
    if (item == NULL || PyList_Append(e->tricks, item) < 0) {
        Py_XDECREF(item);
        return -1;
    }
    Py_DECREF(item);
    e->ntrick = 0;
    e->trick_leader = winner;
    e->seat = e->hands[winner] ? winner : -1;
    return 0;
}

static int play_key(Engine *e, int key)
{
    int seat = e->seat;
    uint64_t bit = 1ULL << key;
    if (e->ntrick == 0) {
        uint64_t suit_mask = SUIT[key / 13];
        e->first_of_suit = (e->unled & suit_mask) != 0;
        e->unled &= ~suit_mask;
        e->forced = 0;
    } else if (e->penalty) {
        int led = e->trick[0] / 13;
        uint64_t preferred = e->preferred[led], hand = e->hands[seat];
        if (!(hand & SUIT[led]) && (hand & preferred) && !(bit & preferred))
            e->offenders[e->noffenders++] = seat;
    }
    e->hands[seat] ^= bit;
    e->trick[e->ntrick++] = key;
    if (record_play(e->history, seat, key) < 0)
        return -1;
    if (e->ntrick == 4)
        return finish_trick(e);
    e->seat = (seat + 1) & 3;
    return 0;
}


/* -- the PlayCore type ------------------------------------------------------------ */

static PyTypeObject PlayCoreType;

static int read_masks(PyObject *seq, uint64_t *out, const char *what)
{
    Py_ssize_t i;
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL)
        return -1;
    if (PySequence_Fast_GET_SIZE(fast) != 4) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s: expected four masks", what);
        return -1;
    }
    for (i = 0; i < 4; i++) {
        out[i] = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    return 0;
}

static PyObject *masks_tuple(const uint64_t *m)
{
    return Py_BuildValue("(KKKK)", m[0], m[1], m[2], m[3]);
}

static int core_init(Engine *e, PyObject *args, PyObject *kwds)
{
    PyObject *hands, *preferred, *history, *tricks;
    int lock_first, lock_discards, lift_for_hand, penalty, last_offender;
    static char *kwlist[] = {"hands", "flags", "preferred", "history", "tricks", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O(ppppp)OO!O!:PlayCore", kwlist, &hands,
                                     &lock_first, &lock_discards, &lift_for_hand, &penalty,
                                     &last_offender, &preferred, &PyList_Type, &history,
                                     &PyList_Type, &tricks))
        return -1;
    if (read_masks(hands, e->hands, "hands") < 0)
        return -1;
    e->has_preferred = preferred != Py_None;
    if (e->has_preferred && read_masks(preferred, e->preferred, "preferred") < 0)
        return -1;
    e->lock_first = lock_first;
    e->lock_discards = lock_discards;
    e->lift_for_hand = lift_for_hand;
    e->penalty = penalty;
    e->last_offender = last_offender;
    Py_INCREF(history);
    Py_XSETREF(e->history, history);
    Py_INCREF(tricks);
    Py_XSETREF(e->tricks, tricks);
    memset(e->locked, 0, sizeof e->locked);
    memset(e->taken, 0, sizeof e->taken);
    memset(e->lifted, 0, sizeof e->lifted);
    e->unled = (1ULL << 52) - 1;
    e->forced = 0;
    e->first_of_suit = 0;
    e->trick_leader = 0;
    e->seat = -1;
    e->ntrick = 0;
    e->noffenders = 0;
    return 0;
}

static void core_dealloc(Engine *e)
{
    Py_XDECREF(e->history);
    Py_XDECREF(e->tricks);
    Py_TYPE(e)->tp_free((PyObject *)e);
}

static PyObject *core_start(Engine *e, PyObject *args)
{
    int leader;
    unsigned long long forced;
    PyObject *locked;
    if (!PyArg_ParseTuple(args, "iKO:start", &leader, &forced, &locked))
        return NULL;
    if (leader < 0 || leader > 3) {
        PyErr_SetString(PyExc_ValueError, "leader must be 0-3");
        return NULL;
    }
    if (read_masks(locked, e->locked, "locked") < 0)
        return NULL;
    e->trick_leader = e->seat = leader;
    e->forced = forced;
    Py_RETURN_NONE;
}

static PyObject *core_copy(Engine *e, PyObject *args)
{
    PyObject *history, *tricks;
    Engine *new;
    if (!PyArg_ParseTuple(args, "O!O!:copy", &PyList_Type, &history, &PyList_Type, &tricks))
        return NULL;
    new = (Engine *)PlayCoreType.tp_alloc(&PlayCoreType, 0);
    if (new == NULL)
        return NULL;
    memcpy((char *)new + offsetof(Engine, hands), (char *)e + offsetof(Engine, hands),
           sizeof(Engine) - offsetof(Engine, hands));
    Py_INCREF(history);
    new->history = history;
    Py_INCREF(tricks);
    new->tricks = tricks;
    return (PyObject *)new;
}

static int check_seat(Engine *e)
{
    if (e->seat < 0) {
        PyErr_SetString(PyExc_ValueError, "no seat is to move");
        return -1;
    }
    return 0;
}

static PyObject *core_legal_mask(Engine *e, PyObject *unused)
{
    (void)unused;
    if (check_seat(e) < 0)
        return NULL;
    return PyLong_FromUnsignedLongLong(legal_mask(e));
}

static PyObject *core_legal(Engine *e, PyObject *unused)
{
    uint64_t mask;
    PyObject *out;
    Py_ssize_t i = 0;
    (void)unused;
    if (check_seat(e) < 0)
        return NULL;
    mask = legal_mask(e);
    out = PyTuple_New(__builtin_popcountll(mask));
    if (out == NULL)
        return NULL;
    while (mask) {
        PyObject *play = PyTuple_GET_ITEM(PLAYS, __builtin_ctzll(mask));
        Py_INCREF(play);
        PyTuple_SET_ITEM(out, i++, play);
        mask &= mask - 1;
    }
    return out;
}

static PyObject *core_play(Engine *e, PyObject *arg)
{
    long key = PyLong_AsLong(arg);
    if (key == -1 && PyErr_Occurred())
        return NULL;
    if (check_seat(e) < 0)
        return NULL;
    if (key < 0 || key >= 52 || !((legal_mask(e) >> key) & 1))
        return PyLong_FromLong(-2);
    if (play_key(e, (int)key) < 0)
        return NULL;
    return PyLong_FromLong(e->seat);
}

static PyObject *core_random_playout(Engine *e, PyObject *random)
{
    while (e->seat >= 0) {
        uint64_t mask = legal_mask(e);
        PyObject *r = PyObject_CallNoArgs(random);
        double x;
        long skip;
        if (r == NULL)
            return NULL;
        x = PyFloat_AsDouble(r);
        Py_DECREF(r);
        if (x == -1.0 && PyErr_Occurred())
            return NULL;
        skip = (long)(x * (double)__builtin_popcountll(mask));
        while (skip-- > 0)
            mask &= mask - 1;
        if (play_key(e, __builtin_ctzll(mask)) < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *get_hands(Engine *e, void *c) { (void)c; return masks_tuple(e->hands); }
static PyObject *get_taken(Engine *e, void *c) { (void)c; return masks_tuple(e->taken); }
static PyObject *get_locked(Engine *e, void *c) { (void)c; return masks_tuple(e->locked); }
static PyObject *get_seat(Engine *e, void *c) { (void)c; return PyLong_FromLong(e->seat); }
static PyObject *get_forced(Engine *e, void *c) { (void)c; return PyLong_FromUnsignedLongLong(e->forced); }
static PyObject *get_unled(Engine *e, void *c) { (void)c; return PyLong_FromUnsignedLongLong(e->unled); }
static PyObject *get_trick_leader(Engine *e, void *c) { (void)c; return PyLong_FromLong(e->trick_leader); }
static PyObject *get_history(Engine *e, void *c) { (void)c; Py_INCREF(e->history); return e->history; }
static PyObject *get_tricks(Engine *e, void *c) { (void)c; Py_INCREF(e->tricks); return e->tricks; }

static PyObject *get_trick(Engine *e, void *c)
{
    PyObject *out = PyList_New(e->ntrick);
    int i;
    (void)c;
    if (out == NULL)
        return NULL;
    for (i = 0; i < e->ntrick; i++) {
        PyObject *card = PyLong_FromLong(e->trick[i]);
        if (card == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, card);
    }
    return out;
}

static PyGetSetDef core_getset[] = {
    {"hands", (getter)get_hands, NULL, "each seat's cards (masks)", NULL},
    {"taken", (getter)get_taken, NULL, "each seat's taken cards (masks)", NULL},
    {"locked", (getter)get_locked, NULL, "each seat's locked shown cards (masks)", NULL},
    {"seat", (getter)get_seat, NULL, "the seat to move, or -1 when over", NULL},
    {"forced", (getter)get_forced, NULL, "the card mask the leader must lead, or 0", NULL},
    {"unled", (getter)get_unled, NULL, "the mask of the suits not led yet", NULL},
    {"trick_leader", (getter)get_trick_leader, NULL, "the seat that leads the trick", NULL},
    {"trick", (getter)get_trick, NULL, "the card indices of the trick under way", NULL},
    {"history", (getter)get_history, NULL, "the hand's action list", NULL},
    {"tricks", (getter)get_tricks, NULL, "the hand's trick list", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef core_methods[] = {
    {"start", (PyCFunction)core_start, METH_VARARGS, "start(leader, forced, locked)"},
    {"copy", (PyCFunction)core_copy, METH_VARARGS, "copy(history, tricks) -> PlayCore"},
    {"legal_mask", (PyCFunction)core_legal_mask, METH_NOARGS, "the legal cards (mask)"},
    {"legal", (PyCFunction)core_legal, METH_NOARGS, "the legal plays (tuple)"},
    {"play", (PyCFunction)core_play, METH_O, "play(key) -> next seat, -1 over, -2 illegal"},
    {"random_playout", (PyCFunction)core_random_playout, METH_O, "random_playout(random)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject PlayCoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gongzhu._speedups.PlayCore",
    .tp_doc = "The single-card play engine in C (see gongzhu.engine.PlayCore).",
    .tp_basicsize = sizeof(Engine),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)core_init,
    .tp_dealloc = (destructor)core_dealloc,
    .tp_methods = core_methods,
    .tp_getset = core_getset,
};

static PyObject *set_plays(PyObject *self, PyObject *plays)
{
    (void)self;
    if (!PyTuple_Check(plays) || PyTuple_GET_SIZE(plays) != 52) {
        PyErr_SetString(PyExc_TypeError, "set_plays takes the tuple of the 52 single-card plays");
        return NULL;
    }
    Py_INCREF(plays);
    Py_XSETREF(PLAYS, plays);
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"set_plays", set_plays, METH_O, "set_plays(plays): the Play objects, by card index"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "gongzhu._speedups",
    .m_doc = "Optional C accelerator: the single-card play engine (see gongzhu.engine).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__speedups(void)
{
    PyObject *m;
    if (PyType_Ready(&PlayCoreType) < 0)
        return NULL;
    m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&PlayCoreType);
    if (PyModule_AddObject(m, "PlayCore", (PyObject *)&PlayCoreType) < 0) {
        Py_DECREF(&PlayCoreType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
