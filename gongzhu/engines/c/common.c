/* What both engines share: card masks across the boundary, the Play objects, random draws,
 * and asking a plug-in's play rule. */
#include "engine.h"

const uint64_t GZ_SUIT[4] = {0x1FFFULL, 0x1FFFULL << 13, 0x1FFFULL << 26, 0x1FFFULL << 39};

/* -- masks ------------------------------------------------------------------------------- */

/* An int: 0 with *m set when 0 <= v < 2**104; 1 when out of range; -1 on other errors. */
static int long_to_mask(PyObject *v, Mask *m)
{
    unsigned long long x = PyLong_AsUnsignedLongLong(v), hi;
    PyObject *shift, *shifted;
    if (!(x == (unsigned long long)-1 && PyErr_Occurred())) {
        m->lo = x & ALL_CARDS;
        m->hi = x >> 52;
        return 0;
    }
    if (!PyErr_ExceptionMatches(PyExc_OverflowError))
        return -1;
    PyErr_Clear(); /* negative, or 2**64 or more */
    shift = PyLong_FromLong(52);
    if (shift == NULL)
        return -1;
    shifted = PyNumber_Rshift(v, shift);
    Py_DECREF(shift);
    if (shifted == NULL)
        return -1;
    hi = PyLong_AsUnsignedLongLong(shifted);
    Py_DECREF(shifted);
    if (hi == (unsigned long long)-1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError))
            return -1;
        PyErr_Clear();
        return 1;
    }
    if (hi >> 52)
        return 1;
    m->hi = hi;
    m->lo = PyLong_AsUnsignedLongLongMask(v) & ALL_CARDS;
    if (m->lo == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    return 0;
}

int gz_read_mask(PyObject *obj, Mask *m, const char *message, int hands)
{
    PyObject *v = PyNumber_Index(obj);
    int rc;
    if (v == NULL)
        return -1;
    rc = long_to_mask(v, m);
    Py_DECREF(v);
    if (rc < 0)
        return -1;
    if (rc || (hands && (m->hi & ~m->lo))) {
        PyErr_SetString(PyExc_ValueError, message);
        return -1;
    }
    return 0;
}

int gz_read_masks(PyObject *seq, Mask *out, const char *message, int hands)
{
    PyObject *fast = PySequence_Tuple(seq); /* a snapshot: __index__ code may change `seq` */
    Mask read[4];
    Py_ssize_t n, i;
    if (fast == NULL)
        return -1;
    n = PyTuple_GET_SIZE(fast);
    if (n != 4) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, message);
        return -1;
    }
    for (i = 0; i < 4; i++) {
        if (gz_read_mask(PyTuple_GET_ITEM(fast, i), &read[i], message, hands) < 0) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    memcpy(out, read, sizeof read);
    return 0;
}

int gz_small_int(PyObject *o, long lo, long hi, long *out, const char *message)
{
    PyObject *v = PyNumber_Index(o);
    long x;
    int overflow;
    if (v == NULL)
        return -1;
    x = PyLong_AsLongAndOverflow(v, &overflow);
    Py_DECREF(v);
    if (x == -1 && PyErr_Occurred())
        return -1;
    if (overflow || x < lo || x > hi) {
        PyErr_SetString(PyExc_ValueError, message);
        return -1;
    }
    *out = x;
    return 0;
}

PyObject *gz_mask_long(Mask m)
{
    PyObject *hi, *shift, *shifted, *lo, *out;
    if ((m.hi >> 12) == 0)
        return PyLong_FromUnsignedLongLong(m.lo | (m.hi << 52));
    hi = PyLong_FromUnsignedLongLong(m.hi);
    if (hi == NULL)
        return NULL;
    shift = PyLong_FromLong(52);
    if (shift == NULL) {
        Py_DECREF(hi);
        return NULL;
    }
    shifted = PyNumber_Lshift(hi, shift);
    Py_DECREF(hi);
    Py_DECREF(shift);
    if (shifted == NULL)
        return NULL;
    lo = PyLong_FromUnsignedLongLong(m.lo);
    if (lo == NULL) {
        Py_DECREF(shifted);
        return NULL;
    }
    out = PyNumber_Or(shifted, lo);
    Py_DECREF(shifted);
    Py_DECREF(lo);
    return out;
}

PyObject *gz_masks_tuple(const Mask *m)
{
    PyObject *out = PyTuple_New(4);
    int i;
    if (out == NULL)
        return NULL;
    for (i = 0; i < 4; i++) {
        PyObject *v = gz_mask_long(m[i]);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, v);
    }
    return out;
}

/* A tuple of n C ints (built directly: Py_BuildValue parses its format every call). */
PyObject *gz_int_tuple(int n, const int *values)
{
    PyObject *t = PyTuple_New(n);
    int i;
    if (t == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLong(values[i]);
        if (v == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

/* ((leader, (keys...), winner, taker), ...) of n finished tricks; keys: 4 per trick. */
PyObject *gz_trick_log(const int *leaders, const int *keys, const int *winners,
                       const int *takers, int ntricks)
{
    PyObject *out = PyTuple_New(ntricks);
    int i;
    if (out == NULL)
        return NULL;
    for (i = 0; i < ntricks; i++) {
        PyObject *trick = gz_int_tuple(4, keys + 4 * i), *item;
        if (trick == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        item = gz_int_tuple(4, (int[4]){leaders[i], 0, winners[i], takers[i]});
        if (item == NULL) {
            Py_DECREF(trick);
            Py_DECREF(out);
            return NULL;
        }
        Py_SETREF(((PyTupleObject *)item)->ob_item[1], trick); /* the keys in slot 1 */
        PyTuple_SET_ITEM(out, i, item);
    }
    return out;
}

/* -- the Play objects ------------------------------------------------------------------- */

static PyObject *PLAYS[NKEYS];       /* the Play object of each key, filled lazily */
static PyObject *PLAY_OF_KEY = NULL; /* gongzhu.actions.play_of_key */

int gz_set_plays(PyObject *singles, PyObject *play_of_key)
{
    Py_ssize_t i;
    if (!PyTuple_Check(singles) || PyTuple_GET_SIZE(singles) != 52 || !PyCallable_Check(play_of_key)) {
        PyErr_SetString(PyExc_TypeError,
                        "set_plays(singles, play_of_key): the 52 single-card plays and a callable");
        return -1;
    }
    for (i = 0; i < 52; i++) {
        PyObject *play = PyTuple_GET_ITEM(singles, i);
        Py_INCREF(play);
        Py_XSETREF(PLAYS[i], play);
    }
    Py_INCREF(play_of_key);
    Py_XSETREF(PLAY_OF_KEY, play_of_key);
    return 0;
}

PyObject *gz_play(int key)
{
    PyObject *play = PLAYS[key];
    if (play != NULL)
        return play;
    if (PLAY_OF_KEY == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "gongzhu._speedups.set_plays() was not called");
        return NULL;
    }
    play = PyObject_CallFunction(PLAY_OF_KEY, "i", key);
    if (play == NULL)
        return NULL;
    if (PLAYS[key] != NULL) { /* filled meanwhile by the code just run */
        Py_DECREF(play);
        return PLAYS[key];
    }
    PLAYS[key] = play;
    return play;
}

/* -- random draws -------------------------------------------------------------------------- */

int gz_draw(PyObject *random, int n, int *out)
{
    PyObject *r;
    double x;
    int i;
    if (n <= 0) {
        PyErr_SetString(PyExc_ValueError, "the seat to move holds no card");
        return -1;
    }
    r = PyObject_CallNoArgs(random);
    if (r == NULL)
        return -1;
    if (!PyFloat_Check(r)) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_ValueError, "random() must return a float in [0, 1)");
        return -1;
    }
    x = PyFloat_AS_DOUBLE(r);
    Py_DECREF(r);
    if (!(x >= 0.0 && x < 1.0)) {
        PyErr_SetString(PyExc_ValueError, "random() must return a float in [0, 1)");
        return -1;
    }
    i = (int)(x * (double)n);
    if (i >= n) /* cannot happen for x < 1 and small n: kept as a guard */
        i = n - 1;
    *out = i;
    return 0;
}

/* -- plug-ins' play rules --------------------------------------------------------------------- */

/* (x | x >> 52) & ALL_CARDS for any int x, as the Python reference computes it, into *out. */
static int first_copy_bits(PyObject *answer, uint64_t *out)
{
    PyObject *x = PyNumber_Index(answer), *shift = NULL, *shifted = NULL, *both = NULL;
    PyObject *all = NULL, *low = NULL;
    int rc = -1;
    if (x == NULL)
        return -1;
    shift = PyLong_FromLong(52);
    all = PyLong_FromUnsignedLongLong(ALL_CARDS);
    if (shift != NULL && all != NULL)
        shifted = PyNumber_Rshift(x, shift);
    if (shifted != NULL)
        both = PyNumber_Or(x, shifted);
    if (both != NULL)
        low = PyNumber_And(both, all);
    if (low != NULL) {
        *out = PyLong_AsUnsignedLongLong(low);
        rc = (*out == (uint64_t)-1 && PyErr_Occurred()) ? -1 : 0;
    }
    Py_XDECREF(low);
    Py_XDECREF(both);
    Py_XDECREF(shifted);
    Py_XDECREF(all);
    Py_XDECREF(shift);
    Py_DECREF(x);
    return rc;
}

int gz_rule_answer(PyObject *part, PyObject *situation, uint64_t *out)
{
    PyObject *answer;
    int rc;
    Py_INCREF(part); /* held while its code runs */
    answer = PyObject_CallOneArg(part, situation);
    Py_DECREF(part);
    if (answer == NULL)
        return -1;
    rc = first_copy_bits(answer, out);
    Py_DECREF(answer);
    return rc;
}

PyObject *gz_situation(const Tables *t, int seat, Mask holding, const int *trick, int ntrick,
                       uint64_t played, uint64_t unled, uint64_t candidates)
{
    PyObject *args[6], *situation = NULL;
    int i, ok = 1;
    args[0] = PyLong_FromLong(seat);
    args[1] = gz_mask_long(holding);
    args[2] = gz_int_tuple(ntrick, trick);
    args[3] = PyLong_FromUnsignedLongLong(played);
    args[4] = PyLong_FromUnsignedLongLong(unled);
    args[5] = PyLong_FromUnsignedLongLong(candidates);
    for (i = 0; i < 6; i++)
        ok = ok && args[i] != NULL;
    if (ok)
        situation = PyObject_Vectorcall(t->situation, args, 6, NULL);
    for (i = 0; i < 6; i++)
        Py_XDECREF(args[i]);
    return situation;
}
