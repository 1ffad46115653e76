/* SampleDealer: the C twin of gongzhu.implied._MaskDealer.deal, the search's sampled deals
 * (one deck or two: a card's bit is a copy's, masks.py's form).
 *
 * A search samples the hidden cards thousands of times a decision from what one view lets it
 * know: each seat's known cards and room, which seats may hold each card, and the weights
 * the inference gives some cards.  _MaskDealer works that out once per view; its deal()
 * then deals one sample.  This type takes the same data once, and deals as deal() does, draw
 * for draw from the same random() (draws.c: a random.Random's own is drawn in C), so the
 * same generator gives the same samples; tests/test_bots_inference.py holds the two equal. */
#include "engine.h"

#define DEAL_MAX 104 /* the cards of two decks */

typedef struct {
    Mask bit; /* one copy's bit: a first copy's in lo, a second copy's in hi */
    int nseats, seats[4];
    double factors[4];
    int index, guard; /* a guarded suit's card: its index, and the seats that hold no pair of
                         it (bits), which take no copy of it once they hold one */
} DealCard;

typedef struct {
    PyObject_HEAD
    int ready, copies;
    Mask known[4];
    long room[4];
    int nweighted, nlevels, nfree;
    int level_start[5], level_len[5];
    DealCard weighted[DEAL_MAX], level_cards[DEAL_MAX];
    Mask free[DEAL_MAX];
} SampleDealer;

/* One copy's bit (an int) into *out; 0, or -1 with an exception. */
static int read_bit(PyObject *obj, Mask *out, int copies)
{
    if (!PyLong_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "a card bit must be an int");
        return -1;
    }
    if (gz_read_mask(obj, out, "a card bit must be one copy of a card", MASK_ANY) < 0)
        return -1;
    if (mask_count(*out) != 1 || (copies == 1 && out->hi)) {
        PyErr_SetString(PyExc_ValueError, copies == 1 ? "a card bit must be one card of one deck"
                                                      : "a card bit must be one copy of a card");
        return -1;
    }
    return 0;
}

/* (bit, seats) or (bit, seats, factors) into *card; 0, or -1 with an exception. */
static int read_card(PyObject *entry, DealCard *card, int weighted, int copies)
{
    PyObject *seats, *fast = NULL;
    Py_ssize_t n, i;
    Py_ssize_t size = PyTuple_Check(entry) ? PyTuple_GET_SIZE(entry) : -1;
    if (weighted ? size != 3 : size != 2 && size != 4) {
        PyErr_SetString(PyExc_TypeError, weighted ? "a weighted card is (bit, seats, factors)"
                                                  : "a card is (bit, seats) or (bit, seats, "
                                                    "index, guard)");
        return -1;
    }
    if (read_bit(PyTuple_GET_ITEM(entry, 0), &card->bit, copies) < 0)
        return -1;
    card->index = card->guard = 0;
    if (size == 4) {
        long index, guard;
        if (gz_small_int(PyTuple_GET_ITEM(entry, 2), 0, 51, &index, "a card index is 0-51") < 0 ||
            gz_small_int(PyTuple_GET_ITEM(entry, 3), 0, 15, &guard, "a guard is seat bits 0-15") <
                0)
            return -1;
        if ((card->bit.lo | card->bit.hi) != 1ULL << index) {
            PyErr_SetString(PyExc_ValueError, "a guarded card's index is not its bit's");
            return -1;
        }
        card->index = (int)index;
        card->guard = (int)guard;
    }
    seats = PySequence_Tuple(PyTuple_GET_ITEM(entry, 1));
    if (seats == NULL)
        return -1;
    n = PyTuple_GET_SIZE(seats);
    if (n > 4 || (n < 1 && size != 4)) { /* (a guarded card may have no seat: a dead end) */
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

/* A tuple of what read_card reads into cards (room for `room` more); its length. */
static int read_cards(PyObject *obj, DealCard *cards, int room, int weighted, int copies)
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
        if (read_card(PyTuple_GET_ITEM(items, i), &cards[i], weighted, copies) < 0) {
            Py_DECREF(items);
            return -1;
        }
    }
    Py_DECREF(items);
    return (int)n;
}

/* SampleDealer(known, room, weighted, levels, free, copies=1): _MaskDealer's data. */
static int dealer_init(SampleDealer *d, PyObject *args, PyObject *kwds)
{
    PyObject *known, *room, *weighted, *levels, *free, *items = NULL;
    Py_ssize_t i;
    int used = 0, copies = 1, most;
    static char *names[] = {"known", "room", "weighted", "levels", "free", "copies", NULL};
    d->ready = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOO|i:SampleDealer", names, &known, &room,
                                     &weighted, &levels, &free, &copies))
        return -1;
    if (copies != 1 && copies != 2) {
        PyErr_SetString(PyExc_ValueError, "copies: 1 or 2 decks");
        return -1;
    }
    d->copies = copies;
    most = 52 * copies;
    if (gz_read_masks(known, d->known, "known: four card masks",
                      copies == 1 ? MASK_ONE_DECK : MASK_TWO_DECKS) < 0)
        return -1;
    items = PySequence_Tuple(room);
    if (items == NULL)
        return -1;
    if (PyTuple_GET_SIZE(items) != 4) {
        Py_DECREF(items);
        PyErr_SetString(PyExc_ValueError, "room: one count per seat");
        return -1;
    }
    for (i = 0; i < 4; i++) {
        if (gz_small_int(PyTuple_GET_ITEM(items, i), 0, most, &d->room[i],
                         copies == 1 ? "room is 0-52" : "room is 0-104") < 0) {
            Py_DECREF(items);
            return -1;
        }
    }
    Py_DECREF(items);
    d->nweighted = read_cards(weighted, d->weighted, most, 1, copies);
    if (d->nweighted < 0)
        return -1;
    items = PySequence_Tuple(levels);
    if (items == NULL)
        return -1;
    if (PyTuple_GET_SIZE(items) > 5) {
        Py_DECREF(items);
        PyErr_SetString(PyExc_ValueError, "at most five levels (cards by their seats' count)");
        return -1;
    }
    d->nlevels = (int)PyTuple_GET_SIZE(items);
    for (i = 0; i < d->nlevels; i++) {
        int n = read_cards(PyTuple_GET_ITEM(items, i), d->level_cards + used, most - used, 0,
                           copies);
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
    if (PyTuple_GET_SIZE(items) > most) {
        Py_DECREF(items);
        PyErr_SetString(PyExc_ValueError, "more cards than a deck holds");
        return -1;
    }
    d->nfree = (int)PyTuple_GET_SIZE(items);
    for (i = 0; i < d->nfree; i++) {
        if (read_bit(PyTuple_GET_ITEM(items, i), &d->free[i], copies) < 0) {
            Py_DECREF(items);
            return -1;
        }
    }
    Py_DECREF(items);
    d->ready = 1;
    return 0;
}

/* A stable sort of order[0..n) by keys (insertion sort: n <= 104), as sorted(key=...) sorts. */
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
static int pick_seat(const DealCard *c, const long *room, const Mask *masks, PyObject *random,
                     int weighted)
{
    int open[4], nopen = 0, k, s;
    double x;
    for (k = 0; k < c->nseats; k++) {
        s = c->seats[k];
        if (room[s] && !((c->guard >> s & 1) && (((masks[s].lo | masks[s].hi) >> c->index) & 1)))
            open[nopen++] = s;
    }
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

static inline void mask_or(Mask *m, Mask bit)
{
    m->lo |= bit.lo;
    m->hi |= bit.hi;
}

/* One sample of `dealer` (a SampleDealer) into masks, each in masks.py's form (a copy dealt
 * on the second copy's bit alone is a first copy): 1, or 0 at a dead end, or -1 with an
 * exception (not a SampleDealer, not initialised, or what random() raised). */
static int deal_masks(PyObject *dealer, PyObject *random, Mask *masks)
{
    const SampleDealer *d = (const SampleDealer *)dealer;
    long room[4];
    double keys[DEAL_MAX];
    int order[DEAL_MAX], i, k, s, start;
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
        s = pick_seat(&d->weighted[i], room, masks, random, 1);
        if (s == -2)
            return -1;
        if (s < 0)
            return 0;
        mask_or(&masks[s], d->weighted[i].bit);
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
            s = pick_seat(c, room, masks, random, 0);
            if (s == -2)
                return -1;
            if (s < 0)
                return 0;
            mask_or(&masks[s], c->bit);
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
            mask_or(&masks[s], d->free[order[start++]]);
        if (j < room[s]) /* the slice ran past the free cards: Python's slice stops there */
            start = d->nfree;
    }
    for (s = 0; s < 4; s++) { /* add_copies(0, mask): a lone second copy is a first one */
        uint64_t any = masks[s].lo | masks[s].hi, two = masks[s].lo & masks[s].hi;
        masks[s].lo = any;
        masks[s].hi = two;
    }
    return 1;
}

int gz_dealer_deal(PyObject *dealer, PyObject *random, uint64_t *masks)
{
    Mask dealt[4];
    int got, s;
    if (PyObject_TypeCheck(dealer, &GZ_SampleDealerType) &&
        ((const SampleDealer *)dealer)->copies != 1) {
        PyErr_SetString(PyExc_ValueError, "a one-deck SampleDealer is needed");
        return -1;
    }
    got = deal_masks(dealer, random, dealt);
    if (got > 0)
        for (s = 0; s < 4; s++)
            masks[s] = dealt[s].lo;
    return got;
}

/* deal(random) -> [four card masks] or None (a dead end): _MaskDealer.deal's sample. */
static PyObject *dealer_deal(SampleDealer *d, PyObject *random)
{
    Mask masks[4];
    PyObject *dealt_tuple, *out;
    int dealt = deal_masks((PyObject *)d, random, masks);
    if (dealt < 0)
        return NULL;
    if (!dealt)
        Py_RETURN_NONE;
    dealt_tuple = gz_masks_tuple(masks);
    if (dealt_tuple == NULL)
        return NULL;
    out = PySequence_List(dealt_tuple); /* (a list, as _MaskDealer.deal_in_python's) */
    Py_DECREF(dealt_tuple);
    return out;
}

static PyMethodDef dealer_methods[] = {
    {"deal", (PyCFunction)dealer_deal, METH_O,
     "deal(random) -> [four card masks] or None: one sample, as _MaskDealer.deal deals it"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject GZ_SampleDealerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gongzhu._speedups.SampleDealer",
    .tp_doc = "SampleDealer(known, room, weighted, levels, free, copies=1)\n\n"
              "The sampler's deal of one view (gongzhu.implied._MaskDealer's data), in C.",
    .tp_basicsize = sizeof(SampleDealer),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)dealer_init,
    .tp_methods = dealer_methods,
};
