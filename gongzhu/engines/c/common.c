/* What both engines share: card masks across the boundary, the Play objects, and asking a
 * plug-in's play rule (the random draws are draws.c's). */
#include "engine.h"

const uint64_t GZ_SUIT[4] = {0x1FFFULL, 0x1FFFULL << 13, 0x1FFFULL << 26, 0x1FFFULL << 39};

/* -- masks ------------------------------------------------------------------------------- */

/* An int: 0 with *m set when 0 <= v < 2**104; 1 when out of range; -1 on other errors.
 * A mask wider than 64 bits (two decks) is read as 16 little-endian bytes, not by shifts:
 * a two-deck hand reads and writes several masks, and an OverflowError per read costs more
 * than the rest of the read. */
static int long_to_mask(PyObject *v, Mask *m)
{
    unsigned char bytes[16];
    uint64_t low = 0, high = 0;
    int i;
    if (_PyLong_Sign(v) < 0)
        return 1;
    if (_PyLong_NumBits(v) <= 64) {
        unsigned long long x = PyLong_AsUnsignedLongLong(v);
        if (x == (unsigned long long)-1 && PyErr_Occurred())
            return -1;
        m->lo = x & ALL_CARDS;
        m->hi = x >> 52;
        return 0;
    }
    if (_PyLong_NumBits(v) > 104)
        return 1;
#if PY_VERSION_HEX >= 0x030D0000
    if (PyLong_AsNativeBytes(v, bytes, 16,
                             Py_ASNATIVEBYTES_LITTLE_ENDIAN | Py_ASNATIVEBYTES_UNSIGNED_BUFFER) < 0)
        return -1;
#else
    if (_PyLong_AsByteArray((PyLongObject *)v, bytes, 16, 1, 0) < 0)
        return -1;
#endif
    for (i = 7; i >= 0; i--) {
        low = low << 8 | bytes[i];
        high = high << 8 | bytes[8 + i];
    }
    m->lo = low & ALL_CARDS;
    m->hi = low >> 52 | high << 12;
    return 0;
}

int gz_read_mask(PyObject *obj, Mask *m, const char *message, int kind)
{
    PyObject *v = PyNumber_Index(obj);
    int rc;
    if (v == NULL)
        return -1;
    rc = long_to_mask(v, m);
    Py_DECREF(v);
    if (rc < 0)
        return -1;
    if (rc || (kind == MASK_TWO_DECKS && (m->hi & ~m->lo)) || (kind == MASK_ONE_DECK && m->hi)) {
        PyErr_SetString(PyExc_ValueError, message);
        return -1;
    }
    return 0;
}

int gz_read_masks(PyObject *seq, Mask *out, const char *message, int kind)
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
        if (gz_read_mask(PyTuple_GET_ITEM(fast, i), &read[i], message, kind) < 0) {
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
    unsigned char bytes[16];
    uint64_t low = m.lo | m.hi << 52, high = m.hi >> 12;
    int i;
    if (high == 0)
        return PyLong_FromUnsignedLongLong(low);
    for (i = 0; i < 8; i++) {
        bytes[i] = (unsigned char)(low >> (8 * i));
        bytes[8 + i] = (unsigned char)(high >> (8 * i));
    }
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(bytes, 16, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray(bytes, 16, 1, 0);
#endif
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

/* -- plug-ins' play rules --------------------------------------------------------------------- */

/* (x | x >> 52) & ALL_CARDS for any int x, as the Python reference computes it, into *out:
 * in C for a card mask of up to 64 bits (the usual answer), by Python's int operations for
 * any other int (two-deck masks, negative numbers). */
/* A play rule's answer that is no card mask (None, a bool, no integer at all; a negative
 * number is one, with every card above its bits: ~mask): the TypeError PlayRule._asked
 * raises for it in the Python engines. */
static int not_a_mask(PyObject *answer)
{
    PyErr_Format(PyExc_TypeError, "it answered %R, not a card mask", answer);
    return -1;
}

static int first_copy_bits(PyObject *answer, uint64_t *out)
{
    PyObject *x, *shift = NULL, *shifted = NULL, *both = NULL;
    PyObject *all = NULL, *low = NULL;
    int rc = -1;
    if (PyLong_CheckExact(answer) && _PyLong_Sign(answer) >= 0 && _PyLong_NumBits(answer) <= 64) {
        uint64_t value = PyLong_AsUnsignedLongLong(answer);
        if (value == (uint64_t)-1 && PyErr_Occurred())
            return -1;
        *out = (value | value >> 52) & ALL_CARDS;
        return 0;
    }
    if (answer == Py_None || PyBool_Check(answer))
        return not_a_mask(answer);
    x = PyNumber_Index(answer);
    if (x == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError))
            return -1;
        PyErr_Clear();
        return not_a_mask(answer);
    }
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

/* The exception set by a play rule (its code raised, or its answer is no card mask) becomes a
 * gongzhu.errors.PluginError naming the rule and its plug-in, as PlayRule.refused makes it in the Python
 * engines; a GongzhuError, or what is no Exception (a KeyboardInterrupt), stays as it is. */
static void name_the_rule(PyObject *name, PyObject *owner)
{
    PyObject *type, *value, *traceback, *errors, *base = NULL, *named_type = NULL;
    PyObject *where = NULL, *named = NULL;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    if (value == NULL || !PyObject_TypeCheck(value, (PyTypeObject *)PyExc_Exception)) {
        PyErr_Restore(type, value, traceback);
        return;
    }
    if (traceback != NULL)
        PyException_SetTraceback(value, traceback);
    errors = PyImport_ImportModule("gongzhu.errors");
    if (errors != NULL) {
        base = PyObject_GetAttrString(errors, "GongzhuError");
        named_type = PyObject_GetAttrString(errors, "PluginError");
        Py_DECREF(errors);
    }
    if (base == NULL || named_type == NULL || PyObject_IsInstance(value, base) != 0) {
        PyErr_Clear(); /* a failed import says less than the rule's own exception */
        PyErr_Restore(type, value, traceback);
        goto done;
    }
    where = PyUnicode_FromFormat("play rule %R", name);
    if (where != NULL)
        named = PyObject_CallFunctionObjArgs(named_type, owner, where, value, NULL);
    if (named != NULL) {
        PyException_SetCause(named, Py_NewRef(value)); /* steals the new reference */
        PyErr_SetObject(named_type, named);
    } /* else: the error of making it is set */
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(traceback);
done:
    Py_XDECREF(base);
    Py_XDECREF(named_type);
    Py_XDECREF(where);
    Py_XDECREF(named);
}

int gz_rule_answer(const Rule *rule, PyObject *part, PyObject *situation, uint64_t *out)
{
    PyObject *answer;
    int rc;
    Py_INCREF(part); /* held while its code runs */
    answer = PyObject_CallOneArg(part, situation);
    Py_DECREF(part);
    if (answer == NULL) {
        name_the_rule(rule->name, rule->owner);
        return -1;
    }
    rc = first_copy_bits(answer, out);
    Py_DECREF(answer);
    if (rc < 0)
        name_the_rule(rule->name, rule->owner);
    return rc;
}

/* The situation is made as tuple.__new__ makes a named tuple's instance: the class's
 * allocator with its six fields (PlaySituation's __new__ does nothing else), which costs a
 * fraction of calling the class from C; a rule may be asked at every play. */
PyObject *gz_situation(const Tables *t, int seat, Mask holding, const int *trick, int ntrick,
                       uint64_t played, uint64_t unled, uint64_t candidates)
{
    PyTypeObject *type = (PyTypeObject *)t->situation;
    PyObject *fields[6], *situation;
    int i, ok = 1;
    fields[0] = PyLong_FromLong(seat);
    fields[1] = gz_mask_long(holding);
    fields[2] = gz_int_tuple(ntrick, trick);
    fields[3] = PyLong_FromUnsignedLongLong(played);
    fields[4] = PyLong_FromUnsignedLongLong(unled);
    fields[5] = PyLong_FromUnsignedLongLong(candidates);
    for (i = 0; i < 6; i++)
        ok = ok && fields[i] != NULL;
    situation = ok ? type->tp_alloc(type, 6) : NULL;
    if (situation == NULL) {
        for (i = 0; i < 6; i++)
            Py_XDECREF(fields[i]);
        return NULL;
    }
    for (i = 0; i < 6; i++)
        PyTuple_SET_ITEM(situation, i, fields[i]); /* the situation takes the references */
    return situation;
}

/* -- the greedy playout policy's data (both engines) ---------------------------------------- */

/* Each seat's team from `teams_obj` (a sequence of 4 team numbers 0-3) into `teams`; 0, or -1
 * with an exception set. */
static int read_teams(PyObject *teams_obj, long *teams)
{
    const char *message = "teams must be a sequence of 4 ints 0-3, by seat";
    PyObject *items = PySequence_Tuple(teams_obj);
    int k;
    if (items == NULL)
        return -1;
    if (PyTuple_GET_SIZE(items) != 4) {
        Py_DECREF(items);
        PyErr_SetString(PyExc_ValueError, message);
        return -1;
    }
    for (k = 0; k < 4; k++) {
        if (gz_small_int(PyTuple_GET_ITEM(items, k), 0, 3, &teams[k], message) < 0) {
            Py_DECREF(items);
            return -1;
        }
    }
    Py_DECREF(items);
    return 0;
}

int gz_read_greedy(PyObject *values_obj, PyObject *teams_obj, GZGreedy *g)
{
    PyObject *fast;
    Py_ssize_t i;
    g->trick_teams = NULL;
    g->endgame = 0;
    g->data = NULL;
    if (teams_obj != Py_None) {
        if (read_teams(teams_obj, g->teams) < 0)
            return -1;
        g->trick_teams = g->teams;
    }
    fast = PySequence_Fast(values_obj, "values must be a sequence of 52 ints");
    if (fast == NULL)
        return -1;
    if (PySequence_Fast_GET_SIZE(fast) != 52) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "values must be a sequence of 52 ints");
        return -1;
    }
    for (i = 0; i < 52; i++) {
        int overflow;
        PyObject *item = PyNumber_Index(PySequence_Fast_GET_ITEM(fast, i));
        long v = item == NULL ? -1 : PyLong_AsLongAndOverflow(item, &overflow);
        Py_XDECREF(item);
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        if (overflow || v < -100000 || v > 100000) {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "a card value is out of range (|value| <= 100000)");
            return -1;
        }
        g->values[i] = v;
    }
    Py_DECREF(fast);
    return 0;
}

/* greedy_playout(values, random, teams=None) of both engine types: the arguments read, then
 * the engine played to the end by its greedy policy `run`. */
PyObject *gz_greedy_playout(GZHead *h, PyObject *args, GZPlayoutFn run)
{
    PyObject *values_obj, *random, *teams_obj = Py_None;
    GZGreedy g;
    if (!PyArg_ParseTuple(args, "OO|O:greedy_playout", &values_obj, &random, &teams_obj))
        return NULL;
    if (gz_read_greedy(values_obj, teams_obj, &g) < 0)
        return NULL;
    if (h->s.phase != PHASE_PLAY) {
        PyErr_SetString(PyExc_ValueError, "greedy_playout: not in the play phase");
        return NULL;
    }
    if (run(h, random, &g, NULL) < 0)
        return NULL;
    Py_RETURN_NONE;
}
