/* Tables: a ruleset's show phases and play rules, read once from what gongzhu.engines
 * prepares of its EngineSetup (gongzhu.engines._c_tables), shared by all its hands. */
#include "engine.h"

static void tables_free(Tables *t)
{
    int i;
    if (t->held_shows != NULL) {
        for (i = 0; i < t->nholdings; i++)
            Py_XDECREF(t->held_shows[i]);
    }
    for (i = 0; i < 52; i++)
        Py_CLEAR(t->first_shows[i]);
    for (i = 0; i < t->nrules; i++) {
        Py_CLEAR(t->rules[i].refuse);
        Py_CLEAR(t->rules[i].require);
        Py_CLEAR(t->rules[i].name);
        Py_CLEAR(t->rules[i].owner);
    }
    Py_CLEAR(t->situation);
    PyMem_Free(t->held_start);
    PyMem_Free(t->held_ids);
    PyMem_Free(t->held_shows);
    PyMem_Free(t->first_ids);
    PyMem_Free(t->forced);
    PyMem_Free(t->choices);
    PyMem_Free(t->rules);
    t->held_start = t->held_ids = t->first_ids = t->forced = NULL;
    t->held_shows = NULL;
    t->choices = NULL;
    t->rules = NULL;
    t->nholdings = t->nrules = t->nchoices = 0;
}

static int tables_traverse(Tables *t, visitproc visit, void *arg)
{
    int i;
    if (t->held_shows != NULL)
        for (i = 0; i < t->nholdings; i++)
            Py_VISIT(t->held_shows[i]);
    for (i = 0; i < 52; i++)
        Py_VISIT(t->first_shows[i]);
    for (i = 0; i < t->nrules; i++) {
        Py_VISIT(t->rules[i].refuse);
        Py_VISIT(t->rules[i].require);
        Py_VISIT(t->rules[i].name);
        Py_VISIT(t->rules[i].owner);
    }
    Py_VISIT(t->situation);
    return 0;
}

static int tables_clear(Tables *t)
{
    t->ready = 0;
    tables_free(t);
    return 0;
}

static void tables_dealloc(Tables *t)
{
    PyObject_GC_UnTrack(t);
    tables_free(t);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

/* An (ids, shows) pair: ids a tuple of choice ids below nchoices, shows a tuple of as many
 * objects.  Appends the ids at ids[*n...] (room: `room`), returns the shows (new ref). */
static PyObject *read_entry(PyObject *entry, int nchoices, int *ids, int *n, int room)
{
    PyObject *id_tuple, *shows;
    Py_ssize_t i, size;
    if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 2 ||
        !PyTuple_Check(PyTuple_GET_ITEM(entry, 0)) || !PyTuple_Check(PyTuple_GET_ITEM(entry, 1))) {
        PyErr_SetString(PyExc_TypeError, "Tables: an entry is an (ids, shows) pair of tuples");
        return NULL;
    }
    id_tuple = PyTuple_GET_ITEM(entry, 0);
    shows = PyTuple_GET_ITEM(entry, 1);
    size = PyTuple_GET_SIZE(id_tuple);
    if (size != PyTuple_GET_SIZE(shows) || *n + size > room) {
        PyErr_SetString(PyExc_ValueError, "Tables: ids and shows differ, or too many");
        return NULL;
    }
    for (i = 0; i < size; i++) {
        long id;
        if (gz_small_int(PyTuple_GET_ITEM(id_tuple, i), 0, nchoices - 1, &id,
                         "Tables: a choice id out of range") < 0)
            return NULL;
        ids[(*n)++] = (int)id;
    }
    Py_INCREF(shows);
    return shows;
}

static int read_flag(PyObject *tuple, int i, int *out)
{
    int v = PyObject_IsTrue(PyTuple_GET_ITEM(tuple, i));
    if (v < 0)
        return -1;
    *out = v;
    return 0;
}

/* Tables(copies, cards, held, first, forced, auto_show, choices, play, rules, situation,
 *        moments): see gongzhu.engines._c_tables.  Everything is read into locals and
 * checked before anything is kept; a table is made once. */
static int tables_init(Tables *t, PyObject *args, PyObject *kwds)
{
    PyObject *cards, *held, *first, *forced, *choices, *play, *rules, *situation, *moments;
    int copies, auto_show, i, j, nheld, total = 0, n = 0, nfirst = 0;
    long value;
    (void)kwds;
    if (t->ready) {
        PyErr_SetString(PyExc_TypeError, "Tables are made once: make new ones");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "iO!O!OO!iO!O!O!OO!:Tables", &copies, &PyTuple_Type, &cards,
                          &PyTuple_Type, &held, &first, &PyTuple_Type, &forced, &auto_show,
                          &PyTuple_Type, &choices, &PyTuple_Type, &play, &PyTuple_Type, &rules,
                          &situation, &PyTuple_Type, &moments))
        return -1;
    if (copies != 1 && copies != 2) {
        PyErr_SetString(PyExc_ValueError, "Tables: copies must be 1 or 2");
        return -1;
    }
    if (!PyType_Check(situation) ||
        !PyType_IsSubtype((PyTypeObject *)situation, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "Tables: the situation class is a tuple subclass");
        return -1;
    }
    if (PyTuple_GET_SIZE(cards) > MAX_SHOWABLE || auto_show < 0 ||
        PyTuple_GET_SIZE(choices) > 100000 ||
        PyTuple_GET_SIZE(moments) != 3 || PyTuple_GET_SIZE(play) != 9 ||
        (first != Py_None && (!PyTuple_Check(first) || PyTuple_GET_SIZE(first) != 52))) {
        PyErr_SetString(PyExc_ValueError, "Tables: malformed arguments");
        return -1;
    }
    tables_free(t); /* a failed __init__ may have left some */
    t->copies = copies;
    t->base = copies + 1;
    t->ncards = (int)PyTuple_GET_SIZE(cards);
    t->showable = 0;
    for (i = 0; i < t->ncards; i++) {
        if (gz_small_int(PyTuple_GET_ITEM(cards, i), 0, 51, &value, "Tables: a card index") < 0)
            goto fail;
        t->cards[i] = (int)value;
        t->showable |= 1ULL << value;
    }
    for (nheld = 1, i = 0; i < t->ncards; i++)
        nheld *= t->base;
    if (PyTuple_GET_SIZE(held) != nheld || PyTuple_GET_SIZE(forced) != nheld) {
        PyErr_SetString(PyExc_ValueError, "Tables: one held and forced entry per holding");
        goto fail;
    }
    t->nchoices = (int)PyTuple_GET_SIZE(choices);
    t->choices = PyMem_New(Choice, t->nchoices ? t->nchoices : 1);
    if (t->choices == NULL)
        goto nomemory;
    for (i = 0; i < t->nchoices; i++) {
        PyObject *c = PyTuple_GET_ITEM(choices, i);
        if (!PyTuple_Check(c) || PyTuple_GET_SIZE(c) != 3) {
            PyErr_SetString(PyExc_TypeError, "Tables: a choice is (copies, kind, locks)");
            goto fail;
        }
        if (gz_read_mask(PyTuple_GET_ITEM(c, 0), &t->choices[i].copies,
                         "Tables: a choice's cards", MASK_TWO_DECKS) < 0 ||
            gz_small_int(PyTuple_GET_ITEM(c, 1), 0, 2, &value, "Tables: a kind code") < 0 ||
            read_flag(c, 2, &t->choices[i].locks) < 0)
            goto fail;
        t->choices[i].kind = (int)value;
    }
    t->nholdings = nheld;
    for (i = 0; i < nheld; i++) {
        PyObject *entry = PyTuple_GET_ITEM(held, i);
        if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 2 ||
            !PyTuple_Check(PyTuple_GET_ITEM(entry, 0))) {
            PyErr_SetString(PyExc_TypeError, "Tables: an entry is an (ids, shows) pair of tuples");
            goto fail;
        }
        total += (int)PyTuple_GET_SIZE(PyTuple_GET_ITEM(entry, 0));
    }
    t->held_start = PyMem_New(int, nheld + 1);
    t->held_ids = PyMem_New(int, total ? total : 1);
    t->held_shows = PyMem_Calloc((size_t)nheld, sizeof(PyObject *));
    t->forced = PyMem_New(int, nheld);
    if (t->held_start == NULL || t->held_ids == NULL || t->held_shows == NULL ||
        t->forced == NULL)
        goto nomemory;
    for (i = 0; i < nheld; i++) {
        t->held_start[i] = n;
        t->held_shows[i] = read_entry(PyTuple_GET_ITEM(held, i), t->nchoices, t->held_ids, &n,
                                      total);
        if (t->held_shows[i] == NULL)
            goto fail;
        if (gz_small_int(PyTuple_GET_ITEM(forced, i), -1, t->nchoices - 1, &value,
                         "Tables: a forced choice id out of range") < 0)
            goto fail;
        t->forced[i] = (int)value;
    }
    t->held_start[nheld] = n;
    t->has_first = first != Py_None;
    total = 0;
    if (t->has_first) {
        for (i = 0; i < 52; i++) {
            PyObject *entry = PyTuple_GET_ITEM(first, i);
            if (entry != Py_None && PyTuple_Check(entry) && PyTuple_GET_SIZE(entry) == 2 &&
                PyTuple_Check(PyTuple_GET_ITEM(entry, 0)))
                total += (int)PyTuple_GET_SIZE(PyTuple_GET_ITEM(entry, 0));
        }
    }
    t->first_ids = PyMem_New(int, total ? total : 1);
    if (t->first_ids == NULL)
        goto nomemory;
    for (i = 0; i < 52; i++) {
        t->first_start[i] = nfirst;
        if (t->has_first && PyTuple_GET_ITEM(first, i) != Py_None) {
            t->first_shows[i] = read_entry(PyTuple_GET_ITEM(first, i), t->nchoices, t->first_ids,
                                           &nfirst, total);
            if (t->first_shows[i] == NULL)
                goto fail;
        }
    }
    t->first_start[52] = nfirst;
    t->auto_show = auto_show;
    /* the play configuration: (lock_first, lock_discards, lift_for_hand, has_preferred,
     * strict, penalty, last_offender, preferred or None, pair_beats_unmatched) */
    if (read_flag(play, 0, &t->lock_first) < 0 || read_flag(play, 1, &t->lock_discards) < 0 ||
        read_flag(play, 2, &t->lift_for_hand) < 0 || read_flag(play, 3, &t->has_preferred) < 0 ||
        read_flag(play, 4, &t->strict) < 0 || read_flag(play, 5, &t->penalty) < 0 ||
        read_flag(play, 6, &t->last_offender) < 0 || read_flag(play, 8, &t->pair_beats_unmatched) < 0)
        goto fail;
    memset(t->preferred, 0, sizeof t->preferred);
    if (t->has_preferred) {
        Mask preferred[4];
        if (gz_read_masks(PyTuple_GET_ITEM(play, 7), preferred, "Tables: preferred masks", MASK_ONE_DECK) < 0)
            goto fail;
        for (i = 0; i < 4; i++)
            t->preferred[i] = preferred[i].lo;
    }
    t->nrules = 0;
    t->rules = PyMem_New(Rule, PyTuple_GET_SIZE(rules) ? PyTuple_GET_SIZE(rules) : 1);
    if (t->rules == NULL)
        goto nomemory;
    for (i = 0; i < PyTuple_GET_SIZE(rules); i++) {
        PyObject *r = PyTuple_GET_ITEM(rules, i), *part;
        Mask cards_mask;
        if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 6 || !PyUnicode_Check(PyTuple_GET_ITEM(r, 4)) ||
            (PyTuple_GET_ITEM(r, 5) != Py_None && !PyUnicode_Check(PyTuple_GET_ITEM(r, 5)))) {
            PyErr_SetString(PyExc_TypeError,
                            "Tables: a rule is (when, cards, refuse, require, name, owner)");
            goto fail;
        }
        if (gz_small_int(PyTuple_GET_ITEM(r, 0), 0, 7, &value, "Tables: a rule's moments") < 0 ||
            gz_read_mask(PyTuple_GET_ITEM(r, 1), &cards_mask, "Tables: a rule's cards", MASK_ANY) < 0)
            goto fail;
        t->rules[i].when = (int)value;
        t->rules[i].cards = (cards_mask.lo | cards_mask.hi) & ALL_CARDS;
        t->rules[i].refuse = t->rules[i].require = NULL;
        t->rules[i].name = Py_NewRef(PyTuple_GET_ITEM(r, 4));
        t->rules[i].owner = Py_NewRef(PyTuple_GET_ITEM(r, 5));
        t->nrules = i + 1; /* held from here: freed with the others on failure */
        for (j = 2; j < 4; j++) {
            part = PyTuple_GET_ITEM(r, j);
            if (part == Py_None)
                continue;
            if (!PyCallable_Check(part)) {
                PyErr_SetString(PyExc_TypeError, "Tables: a rule's refuse or require");
                goto fail;
            }
            Py_INCREF(part);
            if (j == 2)
                t->rules[i].refuse = part;
            else
                t->rules[i].require = part;
        }
    }
    if (gz_small_int(PyTuple_GET_ITEM(moments, 0), 1, 7, &value, "Tables: moments") < 0)
        goto fail;
    t->moment_lead = (int)value;
    if (gz_small_int(PyTuple_GET_ITEM(moments, 1), 1, 7, &value, "Tables: moments") < 0)
        goto fail;
    t->moment_follow = (int)value;
    if (gz_small_int(PyTuple_GET_ITEM(moments, 2), 1, 7, &value, "Tables: moments") < 0)
        goto fail;
    t->moment_discard = (int)value;
    Py_INCREF(situation);
    t->situation = situation;
    t->ready = 1;
    return 0;
nomemory:
    PyErr_NoMemory();
fail:
    tables_free(t);
    return -1;
}

PyTypeObject GZ_TablesType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gongzhu._speedups.Tables",
    .tp_doc = "Tables(copies, cards, held, first, forced, auto_show, choices, play, rules, "
              "situation, moments)\n\n"
              "A ruleset's show phases and play rules for the C engines (see "
              "gongzhu.engines._c_tables).",
    .tp_basicsize = sizeof(Tables),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)tables_init,
    .tp_dealloc = (destructor)tables_dealloc,
    .tp_traverse = (traverseproc)tables_traverse,
    .tp_clear = (inquiry)tables_clear,
};
