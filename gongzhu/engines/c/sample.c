/* SampleDealer: the C twin of gongzhu.implied._MaskDealer.deal, the search's sampled deals.
 *
 * A search samples the hidden cards thousands of times a decision from what one view lets it
 * know: each seat's known cards and room, which seats may hold each card, and the weights
 * the inference gives some cards.  _MaskDealer works that out once per view; its deal()
 * then deals one sample.  This type takes the same data once, and deals as deal() does, draw
 * for draw from the same random() (draws.c: a random.Random's own is drawn in C), so the
 * same generator gives the same samples; tests/test_bots_inference.py holds the two equal. */
#include "engine.h"

typedef struct {
    uint64_t bit;
    int nseats, seats[4];
    double factors[4];
} DealCard;

typedef struct {
    PyObject_HEAD
    int ready;
    uint64_t known[4];
    long room[4];
    int nweighted, nlevels, nfree;
    int level_start[5], level_len[5];
    DealCard weighted[52], level_cards[52];
    uint64_t free[52];
} SampleDealer;

static int read_bit(PyObject *obj, uint64_t *out)
{
    unsigned long long v;
    if (!PyLong_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "a card bit must be an int");
        return -1;
    }
    v = PyLong_AsUnsignedLongLong(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    if (v == 0 || (v & (v - 1)) || v > (1ULL << 51)) {
        PyErr_SetString(PyExc_ValueError, "a card bit must be one card of one deck");
        return -1;
    }
    *out = v;
    return 0;
}

/* (bit, seats) or (bit, seats, factors) into *card; 0, or -1 with an exception. */
static int read_card(PyObject *entry, DealCard *card, int weighted)
{
    PyObject *seats, *fast = NULL;
    Py_ssize_t n, i;
    if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != (weighted ? 3 : 2)) {
        PyErr_SetString(PyExc_TypeError, weighted ? "a weighted card is (bit, seats, factors)"
                                                  : "a card is (bit, seats)");
        return -1;
    }
    if (read_bit(PyTuple_GET_ITEM(entry, 0), &card->bit) < 0)
        return -1;
    seats = PySequence_Tuple(PyTuple_GET_ITEM(entry, 1));
    if (seats == NULL)
        return -1;
    n = PyTuple_GET_SIZE(seats);
    if (n < 1 || n > 4) {
        Py_DECREF(seats);
        PyErr_SetString(PyExc_ValueError, "a card goes to one to four seats");
        return -1;
    }
    for (i = 0; i < n; i++) {
        long seat;
        if (gz_small_int(PyTuple_GET_ITEM(seats, i), 0, 3, &seat, "a seat is 0-3") < 0) {
            Py_DECREF(seats);
            return -1;
        }
        card->seats[i] = (int)seat;
    }
    card->nseats = (int)n;
    Py_DECREF(seats);
    for (i = 0; i < 4; i++)
        card->factors[i] = 1.0;
    if (!weighted)
        return 0;
    fast = PySequence_Tuple(PyTuple_GET_ITEM(entry, 2));
    if (fast == NULL)
        return -1;
    if (PyTuple_GET_SIZE(fast) != 4) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "a weighted card has a factor per seat");
        return -1;
    }
    for (i = 0; i < 4; i++) {
        double f = PyFloat_AsDouble(PyTuple_GET_ITEM(fast, i));
        if (f == -1.0 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        card->factors[i] = f;
    }
    Py_DECREF(fast);
    return 0;
}

/* A tuple of what read_card reads into cards (room for 52 minus *used); its length. */
static int read_cards(PyObject *obj, DealCard *cards, int room, int weighted)
{
    PyObject *items = PySequence_Tuple(obj);
    Py_ssize_t n, i;
    if (items == NULL)
        return -1;
    n = PyTuple_GET_SIZE(items);
    if (n > room) {
        Py_DECREF(items);
        PyErr_SetString(PyExc_ValueError, "more cards than a deck holds");
        return -1;
    }
    for (i = 0; i < n; i++) {
        if (read_card(PyTuple_GET_ITEM(items, i), &cards[i], weighted) < 0) {
            Py_DECREF(items);
            return -1;
        }
    }
    Py_DECREF(items);
    return (int)n;
}

/* SampleDealer(known, room, weighted, levels, free): _MaskDealer's data. */
static int dealer_init(SampleDealer *d, PyObject *args, PyObject *kwds)
{
    PyObject *known, *room, *weighted, *levels, *free, *items = NULL;
    Py_ssize_t i;
    int used = 0;
    static char *names[] = {"known", "room", "weighted", "levels", "free", NULL};
    d->ready = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOO:SampleDealer", names, &known, &room,
                                     &weighted, &levels, &free))
        return -1;
    {
        Mask m[4];
        if (gz_read_masks(known, m, "known: four card masks", MASK_ONE_DECK) < 0)
            return -1;
        for (i = 0; i < 4; i++)
            d->known[i] = m[i].lo;
    }
    items = PySequence_Tuple(room);
    if (items == NULL)
        return -1;
    if (PyTuple_GET_SIZE(items) != 4) {
        Py_DECREF(items);
        PyErr_SetString(PyExc_ValueError, "room: one count per seat");
        return -1;
    }
    for (i = 0; i < 4; i++) {
        if (gz_small_int(PyTuple_GET_ITEM(items, i), 0, 52, &d->room[i], "room is 0-52") < 0) {
            Py_DECREF(items);
            return -1;
        }
    }
    Py_DECREF(items);
    d->nweighted = read_cards(weighted, d->weighted, 52, 1);
    if (d->nweighted < 0)
        return -1;
    items = PySequence_Tuple(levels);
    if (items == NULL)
        return -1;
    if (PyTuple_GET_SIZE(items) > 4) {
        Py_DECREF(items);
        PyErr_SetString(PyExc_ValueError, "at most four levels (cards by their seats' count)");
        return -1;
    }
    d->nlevels = (int)PyTuple_GET_SIZE(items);
    for (i = 0; i < d->nlevels; i++) {
        int n = read_cards(PyTuple_GET_ITEM(items, i), d->level_cards + used, 52 - used, 0);
        if (n < 0) {
            Py_DECREF(items);
            return -1;
        }
        d->level_start[i] = used;
        d->level_len[i] = n;
        used += n;
    }
    Py_DECREF(items);
    items = PySequence_Tuple(free);
    if (items == NULL)
        return -1;
    if (PyTuple_GET_SIZE(items) > 52) {
        Py_DECREF(items);
        PyErr_SetString(PyExc_ValueError, "more cards than a deck holds");
        return -1;
    }
    d->nfree = (int)PyTuple_GET_SIZE(items);
    for (i = 0; i < d->nfree; i++) {
        if (read_bit(PyTuple_GET_ITEM(items, i), &d->free[i]) < 0) {
            Py_DECREF(items);
            return -1;
        }
    }
    Py_DECREF(items);
    d->ready = 1;
    return 0;
}

/* A stable sort of order[0..n) by keys (insertion sort: n <= 52), as sorted(key=...) sorts. */
static void sort_by_keys(int *order, const double *keys, int n)
{
    int i, j;
    for (i = 1; i < n; i++) {
        int item = order[i];
        for (j = i; j > 0 && keys[order[j - 1]] > keys[item]; j--)
            order[j] = order[j - 1];
        order[j] = item;
    }
}

/* The seat a constrained card goes to (as _MaskDealer.deal picks it), or -1 (no seat has
 * room) or -2 (an exception from random()). */
static int pick_seat(const DealCard *c, const long *room, PyObject *random, int weighted)
{
    int open[4], nopen = 0, k, s;
    double x;
    for (k = 0; k < c->nseats; k++)
        if (room[c->seats[k]])
            open[nopen++] = c->seats[k];
    if (!nopen)
        return -1;
    s = open[0];
    if (nopen == 1)
        return s;
    if (gz_random_float(random, &x) < 0)
        return -2;
    if (weighted) {
        double total = 0.0, target;
        for (k = 0; k < nopen; k++)
            total += (double)room[open[k]] * c->factors[open[k]];
        target = x * total;
        for (k = 0; k < nopen; k++) {
            s = open[k];
            target -= (double)room[s] * c->factors[s];
            if (target < 0)
                break;
        }
    } else {
        long total = 0, pick;
        for (k = 0; k < nopen; k++)
            total += room[open[k]];
        pick = (long)(x * (double)total);
        for (k = 0; k < nopen; k++) {
            s = open[k];
            pick -= room[s];
            if (pick < 0)
                break;
        }
    }
    return s;
}

/* One sample of `dealer` (a SampleDealer) into masks: 1, or 0 at a dead end, or -1 with an
 * exception (not a SampleDealer, not initialised, or what random() raised). */
int gz_dealer_deal(PyObject *dealer, PyObject *random, uint64_t *masks)
{
    const SampleDealer *d = (const SampleDealer *)dealer;
    long room[4];
    double keys[52];
    int order[52], i, k, s, start;
    if (!PyObject_TypeCheck(dealer, &GZ_SampleDealerType)) {
        PyErr_SetString(PyExc_TypeError, "a SampleDealer is needed");
        return -1;
    }
    if (!d->ready) {
        PyErr_SetString(PyExc_ValueError, "SampleDealer is not initialised");
        return -1;
    }
    if (!PyCallable_Check(random)) {
        PyErr_SetString(PyExc_TypeError, "deal(random): random must be callable");
        return -1;
    }
    memcpy(masks, d->known, 4 * sizeof masks[0]);
    memcpy(room, d->room, sizeof room);
    for (i = 0; i < d->nweighted; i++) {
        s = pick_seat(&d->weighted[i], room, random, 1);
        if (s == -2)
            return -1;
        if (s < 0)
            return 0;
        masks[s] |= d->weighted[i].bit;
        room[s]--;
    }
    for (k = 0; k < d->nlevels; k++) {
        const DealCard *level = d->level_cards + d->level_start[k];
        int n = d->level_len[k];
        for (i = 0; i < n; i++)
            order[i] = i;
        if (n > 1) {
            for (i = 0; i < n; i++)
                if (gz_random_float(random, &keys[i]) < 0)
                    return -1;
            sort_by_keys(order, keys, n);
        }
        for (i = 0; i < n; i++) {
            const DealCard *c = &level[order[i]];
            s = pick_seat(c, room, random, 0);
            if (s == -2)
                return -1;
            if (s < 0)
                return 0;
            masks[s] |= c->bit;
            room[s]--;
        }
    }
    for (i = 0; i < d->nfree; i++) {
        order[i] = i;
        if (gz_random_float(random, &keys[i]) < 0)
            return -1;
    }
    sort_by_keys(order, keys, d->nfree);
    start = 0;
    for (s = 0; s < 4; s++) {
        long j;
        for (j = 0; j < room[s] && start < d->nfree; j++)
            masks[s] |= d->free[order[start++]];
        if (j < room[s]) /* the slice ran past the free cards: Python's slice stops there */
            start = d->nfree;
    }
    return 1;
}

/* deal(random) -> [four card masks] or None (a dead end): _MaskDealer.deal's sample. */
static PyObject *dealer_deal(SampleDealer *d, PyObject *random)
{
    uint64_t masks[4];
    int dealt = gz_dealer_deal((PyObject *)d, random, masks);
    if (dealt < 0)
        return NULL;
    if (!dealt)
        Py_RETURN_NONE;
    return Py_BuildValue("[KKKK]", (unsigned long long)masks[0], (unsigned long long)masks[1],
                         (unsigned long long)masks[2], (unsigned long long)masks[3]);
}

static PyMethodDef dealer_methods[] = {
    {"deal", (PyCFunction)dealer_deal, METH_O,
     "deal(random) -> [four card masks] or None: one sample, as _MaskDealer.deal deals it"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject GZ_SampleDealerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gongzhu._speedups.SampleDealer",
    .tp_doc = "SampleDealer(known, room, weighted, levels, free)\n\n"
              "The sampler's deal of one view (gongzhu.implied._MaskDealer's data), in C.",
    .tp_basicsize = sizeof(SampleDealer),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)dealer_init,
    .tp_methods = dealer_methods,
};
