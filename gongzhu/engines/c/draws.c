/* Random draws: the caller's random(), and the Mersenne Twister of random.Random read in place.
 *
 * Every random choice the engines make is one call of the caller's random() (random_playout,
 * the show phases, the greedy playout's leads, random_hands), so that the same generator gives
 * the same hand in Python and in C.  A call into Python costs most of a random hand's time.
 * When random is the bound method random of a random.Random (the C method of _random.Random,
 * not a subclass's override), the draw is made here instead, on that object's own state, by
 * the same algorithm (MT19937, Matsumoto and Nishimura 1998, and random.random's 53-bit
 * float of two 32-bit words): the object's state moves exactly as its random() would move
 * it, so Python and C may take turns drawing from it.
 *
 * The object's layout (PyObject_HEAD, int index, uint32_t state[624]) is CPython's private
 * one.  gz_draws_init checks it when the module loads: it reads a seeded generator's state
 * here and through getstate(), then draws here from one generator and through random() from
 * an equal one, across a refill of the state; any difference turns the fast path off, and
 * every draw then calls random(), as before.  tests/test_draws.py holds the two equal. */
#include "engine.h"

#define MT_N 624
#define MT_M 397
#define MT_MATRIX_A 0x9908b0dfU
#define MT_UPPER 0x80000000U
#define MT_LOWER 0x7fffffffU

typedef struct {
    PyObject_HEAD
    int index;
    uint32_t state[MT_N];
} Twister;

static PyCFunction twister_method; /* _random.Random.random's C function (NULL: no fast path) */

static uint32_t next_word(Twister *t)
{
    uint32_t *mt = t->state, y;
    if (t->index >= MT_N) { /* the next 624 words at once */
        int k;
        for (k = 0; k < MT_N; k++) {
            y = (mt[k] & MT_UPPER) | (mt[(k + 1) % MT_N] & MT_LOWER);
            mt[k] = mt[(k + MT_M) % MT_N] ^ (y >> 1) ^ ((y & 1U) ? MT_MATRIX_A : 0U);
        }
        t->index = 0;
    }
    y = mt[t->index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= y >> 18;
    return y;
}

static double next_float(Twister *t)
{
    uint32_t a = next_word(t) >> 5, b = next_word(t) >> 6;
    return ((double)a * 67108864.0 + (double)b) * (1.0 / 9007199254740992.0);
}

/* The generator whose random() `random` is, or NULL when it is anything else. */
static Twister *twister_of(PyObject *random)
{
    /* the method's C function bound to an object: the method descriptor binds it to instances
     * of _random.Random (and its subclasses) alone, so the object has the generator's layout */
    if (twister_method == NULL || !PyCFunction_Check(random) ||
        PyCFunction_GET_FUNCTION(random) != twister_method)
        return NULL;
    return (Twister *)PyCFunction_GET_SELF(random);
}

int gz_random_float(PyObject *random, double *out)
{
    Twister *t = twister_of(random);
    PyObject *r;
    double x;
    if (t != NULL) {
        *out = next_float(t);
        return 0;
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
    *out = x;
    return 0;
}

int gz_draw(PyObject *random, int n, int *out)
{
    double x;
    int i;
    if (n <= 0) {
        PyErr_SetString(PyExc_ValueError, "the seat to move holds no card");
        return -1;
    }
    if (gz_random_float(random, &x) < 0)
        return -1;
    i = (int)(x * (double)n);
    if (i >= n) /* cannot happen for x < 1 and small n: kept as a guard */
        i = n - 1;
    *out = i;
    return 0;
}

/* -- the check when the module loads -------------------------------------------------------- */

/* 1 when `gen`'s state read in place equals its getstate(), 0 when not, -1 on error. */
static int state_matches(PyObject *gen)
{
    const Twister *t = (const Twister *)gen;
    PyObject *state = PyObject_CallMethod(gen, "getstate", NULL), *words;
    int same = 0, k;
    if (state == NULL)
        return -1;
    words = PyTuple_Check(state) && PyTuple_GET_SIZE(state) == 3 ? PyTuple_GET_ITEM(state, 1) : NULL;
    if (words != NULL && PyTuple_Check(words) && PyTuple_GET_SIZE(words) == MT_N + 1) {
        same = 1;
        for (k = 0; k <= MT_N && same; k++) {
            unsigned long v = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(words, k));
            if (v == (unsigned long)-1 && PyErr_Occurred()) {
                Py_DECREF(state);
                return -1;
            }
            same = k < MT_N ? v == t->state[k] : (long)v == t->index;
        }
    }
    Py_DECREF(state);
    return same;
}

/* 1 when draws made here from one generator equal random()'s from an equal one, 0 when not. */
static int draws_match(PyObject *mine, PyObject *theirs)
{
    PyObject *method = PyObject_GetAttrString(theirs, "random");
    int k, same = 1;
    if (method == NULL)
        return -1;
    for (k = 0; k < 2 * MT_N && same; k++) { /* past a refill of the state */
        PyObject *r = PyObject_CallNoArgs(method);
        double x;
        if (r == NULL) {
            Py_DECREF(method);
            return -1;
        }
        x = PyFloat_AsDouble(r);
        Py_DECREF(r);
        same = x == next_float((Twister *)mine);
    }
    Py_DECREF(method);
    if (same)
        same = state_matches(mine);
    return same;
}

/* Turn the fast path on when the layout checks out; 0 always (no fast path is no error). */
int gz_draws_init(void)
{
#ifdef Py_GIL_DISABLED
    return 0; /* another thread may draw from the same generator: always call random() */
#else
    PyObject *module = PyImport_ImportModule("random"), *cls = NULL, *mine = NULL,
             *theirs = NULL, *bound = NULL, *base = NULL;
    int same = 0;
    if (module == NULL || (cls = PyObject_GetAttrString(module, "Random")) == NULL ||
        (mine = PyObject_CallFunction(cls, "i", 20261207)) == NULL ||
        (theirs = PyObject_CallFunction(cls, "i", 20261207)) == NULL ||
        (bound = PyObject_GetAttrString(mine, "random")) == NULL ||
        (base = PyImport_ImportModule("_random")) == NULL)
        goto done;
    Py_SETREF(base, PyObject_GetAttrString(base, "Random"));
    if (base == NULL || !PyType_Check(base) || !PyCFunction_Check(bound) ||
        !PyObject_TypeCheck(mine, (PyTypeObject *)base) ||
        Py_TYPE(mine)->tp_basicsize < (Py_ssize_t)sizeof(Twister))
        goto done;
    same = state_matches(mine);
    if (same > 0)
        same = draws_match(mine, theirs);
    if (same > 0) {
        twister_method = PyCFunction_GET_FUNCTION(bound);
    }
done:
    PyErr_Clear(); /* whatever failed, random() is called for every draw */
    Py_XDECREF(base);
    Py_XDECREF(bound);
    Py_XDECREF(theirs);
    Py_XDECREF(mine);
    Py_XDECREF(cls);
    Py_XDECREF(module);
    return 0;
#endif
}

/* draws_in_c() -> bool: whether random.Random's draws are made in C (see draws.c). */
PyObject *gz_draws_in_c(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyBool_FromLong(twister_method != NULL);
}
