/* The show phases of a hand, for both engines: the C twin of gongzhu/engines/base.py
 * (ShowingEngine).  Played from a ruleset's Tables: the 首明 phase (each seat whose first
 * dealt card is showable decides on it, in dealing order), the show phase (each seat from
 * the leader), auto-show and the shown-card lock. */
#include "engine.h"

int gz_read_start(PyObject *leader_obj, PyObject *forced_obj, PyObject *first_seat_obj,
                  PyObject *first_cards_obj, ShowState *s)
{
    long leader, first_seat, card;
    Mask forced;
    PyObject *cards;
    int k, firsts[4];
    if (gz_small_int(leader_obj, 0, 3, &leader, "leader must be a seat 0-3") < 0 ||
        gz_small_int(first_seat_obj, 0, 3, &first_seat, "first_seat must be a seat 0-3") < 0 ||
        gz_read_mask(forced_obj, &forced, "forced must be 0 or one card's bit", MASK_ONE_DECK) < 0)
        return -1;
    if (forced.hi || (forced.lo & (forced.lo - 1))) {
        PyErr_SetString(PyExc_ValueError, "forced must be 0 or one card's bit");
        return -1;
    }
    cards = PySequence_Tuple(first_cards_obj);
    if (cards == NULL)
        return -1;
    if (PyTuple_GET_SIZE(cards) != 4) {
        Py_DECREF(cards);
        PyErr_SetString(PyExc_ValueError, "first_cards: expected four card indices 0-51, by seat");
        return -1;
    }
    for (k = 0; k < 4; k++) {
        if (gz_small_int(PyTuple_GET_ITEM(cards, k), 0, 51, &card,
                         "first_cards: expected four card indices 0-51, by seat") < 0) {
            Py_DECREF(cards);
            return -1;
        }
        firsts[k] = (int)card;
    }
    Py_DECREF(cards);
    s->leader = (int)leader;
    s->forced = forced.lo;
    s->first_seat = (int)first_seat;
    memcpy(s->first_cards, firsts, sizeof firsts);
    return 0;
}

static void start_show_phase(ShowState *s)
{
    int k;
    s->phase = PHASE_SHOW;
    for (k = 0; k < 4; k++)
        s->pending[k] = (s->leader + k) & 3;
    s->npending = 4;
    s->seat = s->leader;
}

void gz_shows_begin(const Tables *t, ShowState *s, const Mask *dealt)
{
    int k;
    memcpy(s->dealt, dealt, sizeof s->dealt);
    memset(s->shown, 0, sizeof s->shown);
    memset(s->locked, 0, sizeof s->locked);
    s->nlog = 0;
    s->npending = 0;
    s->phase = PHASE_FIRST_SHOW;
    if (t->has_first) {
        for (k = 0; k < 4; k++) {
            int seat = (s->first_seat + k) & 3;
            if ((t->showable >> s->first_cards[seat]) & 1)
                s->pending[s->npending++] = seat;
        }
    }
    if (s->npending)
        s->seat = s->pending[0];
    else
        start_show_phase(s);
}

/* What the seat may show: its dealt showable cards less those it has shown. */
static Mask holding_of(const Tables *t, const ShowState *s, int seat)
{
    Mask held;
    held.lo = s->dealt[seat].lo & t->showable;
    held.hi = s->dealt[seat].hi & t->showable;
    return subtract_copies(held, s->shown[seat]);
}

/* A holding's row in the tables: the copies of each showable card, digits in base copies+1. */
static int holding_index(const Tables *t, Mask holding)
{
    int index = 0, weight = 1, j;
    for (j = 0; j < t->ncards; j++) {
        index += copies_in(holding, t->cards[j]) * weight;
        weight *= t->base;
    }
    return index;
}

const int *gz_show_ids(const Tables *t, const ShowState *s, int *n)
{
    if (s->phase == PHASE_FIRST_SHOW) {
        int card = s->first_cards[s->seat];
        *n = t->first_start[card + 1] - t->first_start[card];
        return t->first_ids + t->first_start[card];
    }
    {
        int row = holding_index(t, holding_of(t, s, s->seat));
        *n = t->held_start[row + 1] - t->held_start[row];
        return t->held_ids + t->held_start[row];
    }
}

PyObject *gz_show_legal(const Tables *t, const ShowState *s)
{
    PyObject *shows;
    if (s->phase == PHASE_FIRST_SHOW)
        shows = t->first_shows[s->first_cards[s->seat]];
    else
        shows = t->held_shows[holding_index(t, holding_of(t, s, s->seat))];
    if (shows == NULL)
        return PyTuple_New(0);
    Py_INCREF(shows);
    return shows;
}

static void add_show(const Tables *t, ShowState *s, int seat, int id, int forced)
{
    const Choice *choice = &t->choices[id];
    ShowEntry *entry;
    if (s->nlog < SHOW_LOG_MAX) { /* always: at most 12 entries a hand */
        entry = &s->log[s->nlog++];
        entry->seat = seat;
        entry->id = id;
        entry->forced = forced;
    }
    if (choice->copies.lo) {
        add_copies(&s->shown[seat], choice->copies);
        if (choice->locks)
            add_copies(&s->locked[seat], choice->copies);
    }
}

/* Auto-show, then the play phase begins. */
static void end_show_phase(const Tables *t, ShowState *s)
{
    int seat;
    if (t->auto_show && mask_count(s->shown[0]) + mask_count(s->shown[1]) +
                                mask_count(s->shown[2]) + mask_count(s->shown[3]) >=
                            t->auto_show) {
        for (seat = 0; seat < 4; seat++) {
            Mask rest = holding_of(t, s, seat);
            if (rest.lo) {
                int id = t->forced[holding_index(t, rest)];
                if (id >= 0)
                    add_show(t, s, seat, id, 1);
            }
        }
    }
    s->phase = PHASE_PLAY;
}

int gz_show_take(const Tables *t, ShowState *s, int index)
{
    int n;
    const int *ids = gz_show_ids(t, s, &n);
    if (index < 0 || index >= n) /* the callers check: kept as a guard */
        return 0;
    add_show(t, s, s->seat, ids[index], 0);
    memmove(s->pending, s->pending + 1, (size_t)(s->npending - 1) * sizeof s->pending[0]);
    s->npending--;
    if (s->npending) {
        s->seat = s->pending[0];
        return 0;
    }
    if (s->phase == PHASE_FIRST_SHOW) {
        start_show_phase(s);
        return 0;
    }
    end_show_phase(t, s);
    return 1;
}

PyObject *gz_show_log(const ShowState *s)
{
    PyObject *out = PyTuple_New(s->nlog);
    int i;
    if (out == NULL)
        return NULL;
    for (i = 0; i < s->nlog; i++) {
        PyObject *entry = Py_BuildValue("(iiO)", s->log[i].seat, s->log[i].id,
                                        s->log[i].forced ? Py_True : Py_False);
        if (entry == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, entry);
    }
    return out;
}

/* -- what both engine types do alike ------------------------------------------------------ */

void gz_engine_begin(GZHead *h, PyObject *tables, size_t size, const ShowState *start,
                     const Mask *dealt, const GZEngineOps *ops)
{
    /* the version goes on rising across a second __init__: code that was running (a
     * random() or a play rule that re-initialises the engine) must see the change */
    unsigned long version = h->version;
    Py_INCREF(tables);
    Py_XSETREF(h->tables, (Tables *)tables);
    memset((char *)h + offsetof(GZHead, s), 0, size - offsetof(GZHead, s));
    h->s = *start;
    h->version = version + 1;
    h->ops = ops;
    gz_shows_begin(h->tables, &h->s, dealt);
}

PyObject *gz_engine_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    GZHead *h = (GZHead *)type->tp_alloc(type, 0);
    (void)args;
    (void)kwds;
    if (h == NULL)
        return NULL;
    h->s.phase = PHASE_OVER; /* an engine __init__ has not set up is over: every method
                              * checks the phase, so none reads the missing tables */
    h->s.seat = OVER;
    return (PyObject *)h;
}

int gz_engine_traverse(GZHead *h, visitproc visit, void *arg)
{
    Py_VISIT(h->tables);
    return 0;
}

int gz_engine_clear(GZHead *h)
{
    Py_CLEAR(h->tables);
    h->s.phase = PHASE_OVER;
    h->s.seat = OVER;
    return 0;
}

void gz_engine_dealloc(GZHead *h)
{
    PyObject_GC_UnTrack(h);
    gz_engine_clear(h);
    Py_TYPE(h)->tp_free((PyObject *)h);
}

PyObject *gz_engine_show(GZHead *h, PyObject *arg)
{
    long choice;
    int overflow, n;
    if (h->s.phase > PHASE_SHOW || !PyLong_CheckExact(arg))
        return PyLong_FromLong(ILLEGAL);
    choice = PyLong_AsLongAndOverflow(arg, &overflow);
    gz_show_ids(h->tables, &h->s, &n);
    if (overflow || choice < 0 || choice >= n)
        return PyLong_FromLong(ILLEGAL);
    h->version++;
    if (gz_show_take(h->tables, &h->s, (int)choice))
        h->ops->start_play(h);
    return PyLong_FromLong(h->s.seat);
}

int gz_random_shows(GZHead *h, PyObject *random)
{
    while (h->s.phase < PHASE_PLAY) {
        int n, pick;
        unsigned long version = h->version;
        gz_show_ids(h->tables, &h->s, &n);
        if (gz_draw(random, n, &pick) < 0)
            return -1;
        if (h->version != version || h->tables == NULL) {
            PyErr_SetString(PyExc_RuntimeError, "random() changed the engine under random_playout");
            return -1;
        }
        h->version++;
        if (gz_show_take(h->tables, &h->s, pick))
            h->ops->start_play(h);
    }
    return 0;
}

PyObject *gz_get_phase(GZHead *h, void *closure)
{
    (void)closure;
    return PyLong_FromLong(h->s.phase);
}

PyObject *gz_get_seat(GZHead *h, void *closure)
{
    (void)closure;
    return PyLong_FromLong(h->s.seat);
}

PyObject *gz_get_show_log(GZHead *h, void *closure)
{
    (void)closure;
    return gz_show_log(&h->s);
}

/* -- bulk play -------------------------------------------------------------------------------- */

/* random_hands(data, count, next_digest, random, lead) -> list of ((raw scores), full_hearts,
 * slam): `count` hands, each dealt from the digest next_digest() returns (bytes, 8 per card:
 * gongzhu.deal.Deal.shuffled_with_masks's, the first seat 0; or a pair (digest, random): the
 * hand draws from that random, `random` may then be None), led as `lead` says ((card
 * index, forced): the seat dealt the card's first copy leads, leading it when forced; card
 * -1: the first seat leads any card), played as random_playout plays (one random() draw per
 * decision) and scored from `data` (a ScoreData of the engine's decks).  The engine is the
 * scratch space: it holds the last hand afterwards. */
PyObject *gz_random_hands(GZHead *h, PyObject *args, const HandOps *ops)
{
    PyObject *data, *next_digest, *random, *out;
    Py_ssize_t count, i;
    int card, forced, size = 8 * 52 * ops->copies;
    if (!PyArg_ParseTuple(args, "OnOO(ii):random_hands", &data, &count, &next_digest, &random,
                          &card, &forced))
        return NULL;
    if (gz_check_score_data(data, ops->copies, h->tables) < 0)
        return NULL;
    if (count < 0 || card < -1 || card > 51 || forced < 0 || forced > 1 || (card < 0 && forced)) {
        PyErr_SetString(PyExc_ValueError, "random_hands: count >= 0, lead (card -1..51, forced)");
        return NULL;
    }
    if (!PyCallable_Check(next_digest) || (random != Py_None && !PyCallable_Check(random))) {
        PyErr_SetString(PyExc_TypeError,
                        "random_hands: next_digest is a callable, random a callable or None");
        return NULL;
    }
    Py_INCREF(data); /* the data and the tables live through the calls below */
    out = PyList_New(count);
    if (out == NULL)
        goto fail;
    for (i = 0; i < count; i++) {
        PyObject *got = PyObject_CallNoArgs(next_digest), *digest = got, *draw = random, *item;
        ShowState start;
        Mask dealt[4];
        int order[104], k, full_hearts, slam, code, played;
        long long raw[4];
        if (got == NULL)
            goto fail;
        if (PyTuple_Check(got) && PyTuple_GET_SIZE(got) == 2) { /* the hand's own random */
            digest = PyTuple_GET_ITEM(got, 0);
            draw = PyTuple_GET_ITEM(got, 1);
        }
        if (!PyBytes_Check(digest) || PyBytes_GET_SIZE(digest) != size) {
            Py_DECREF(got);
            PyErr_Format(PyExc_ValueError,
                         "next_digest() must return %d bytes, or them and a random", size);
            goto fail;
        }
        if (!PyCallable_Check(draw)) {
            Py_DECREF(got);
            PyErr_SetString(PyExc_TypeError, "random_hands: a hand without a random callable");
            goto fail;
        }
        gz_deal((const unsigned char *)PyBytes_AS_STRING(digest), ops->copies, dealt, order);
        if (h->tables == NULL) {
            Py_DECREF(got);
            PyErr_SetString(PyExc_RuntimeError, "the engine was cleared under random_hands");
            goto fail;
        }
        memset(&start, 0, sizeof start);
        for (k = 0; k < 4; k++)
            start.first_cards[k] = order[k];
        if (card >= 0) {
            for (k = 0; order[k] != card; k++)
                ;
            start.leader = k & 3;
            start.forced = forced ? 1ULL << card : 0;
        }
        ops->reset(h, dealt, &start);
        played = ops->playout(h, draw); /* (`got` keeps the hand's random alive) */
        Py_DECREF(got);
        if (played < 0)
            goto fail;
        code = ops->score(h, (const ScoreData *)data, raw, &full_hearts, &slam);
        if (code < 0) {
            PyErr_SetString(code == -1 ? PyExc_OverflowError : PyExc_ValueError,
                            "random_hands: a hand the score data cannot score");
            goto fail;
        }
        item = Py_BuildValue("((LLLL)OO)", raw[0], raw[1], raw[2], raw[3],
                             full_hearts ? Py_True : Py_False, slam ? Py_True : Py_False);
        if (item == NULL)
            goto fail;
        PyList_SET_ITEM(out, i, item);
    }
    Py_DECREF(data);
    return out;
fail:
    Py_DECREF(data);
    Py_XDECREF(out);
    return NULL;
}

/* playouts: the search bot's playouts of one sampled deal, in one call.  For each key of
 * `keys` (legal play keys of the seat to act, in the play phase): a copy of the engine plays
 * it, plays the hand out (`run`, or random_playout's draws when NULL) and is scored from
 * `data`; a tuple of the raw scores, one 4-tuple per key.  The copies draw from `random` one
 * after the other, in the order of `keys`, as copy(), play(key), the playout and score(data)
 * key after key draw.  The engine itself is not changed. */
PyObject *gz_playouts(GZHead *h, PyObject *data, PyObject *keys, PyObject *random,
                      const HandOps *ops, GZPlayoutFn run, const void *policy)
{
    PyObject *fast, *out = NULL;
    GZHead *copy = NULL;
    int legal[GZ_LEGAL_MAX], nlegal, *chosen = NULL;
    Py_ssize_t n, i;
    unsigned long version;
    /* the engine's own struct, as copy() copies it: not a subclass's slots or weakrefs */
    size_t offset = offsetof(GZHead, s), size = ops->size - offset;
    if (gz_check_score_data(data, ops->copies, h->tables) < 0)
        return NULL;
    if (!PyCallable_Check(random)) {
        PyErr_SetString(PyExc_TypeError, "playouts: random must be callable");
        return NULL;
    }
    if (h->s.phase != PHASE_PLAY) {
        PyErr_SetString(PyExc_ValueError, "playouts: not in the play phase");
        return NULL;
    }
    version = h->version; /* reading the keys may run Python code (a generator, __index__) */
    fast = PySequence_Fast(keys, "playouts: keys must be a sequence of play keys");
    if (fast == NULL)
        return NULL;
    n = PySequence_Fast_GET_SIZE(fast);
    chosen = PyMem_New(int, n ? n : 1);
    if (chosen == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (i = 0; i < n; i++) {
        long key;
        if (gz_small_int(PySequence_Fast_GET_ITEM(fast, i), 0, NKEYS - 1, &key,
                         "playouts: a key is not a legal play") < 0)
            goto done;
        chosen[i] = (int)key;
    }
    if (h->version != version || h->tables == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the engine changed while playouts read its keys");
        goto done;
    }
    nlegal = h->ops->legal_keys(h, legal);
    if (nlegal < 0)
        goto done;
    if (h->version != version || h->tables == NULL) { /* a play rule did it */
        PyErr_SetString(PyExc_RuntimeError, "the engine changed under playouts");
        goto done;
    }
    for (i = 0; i < n; i++) { /* every key is checked before any is played */
        int k;
        for (k = 0; k < nlegal && legal[k] != chosen[i]; k++)
            ;
        if (k == nlegal) {
            PyErr_Format(PyExc_ValueError, "playouts: play key %d is not legal here", chosen[i]);
            goto done;
        }
    }
    copy = (GZHead *)ops->type->tp_alloc(ops->type, 0); /* the base type: it never escapes */
    out = copy == NULL ? NULL : PyTuple_New(n);
    if (out == NULL)
        goto done;
    Py_INCREF(data); /* the data and the tables live through the playouts */
    copy->tables = (Tables *)Py_NewRef(h->tables);
    for (i = 0; i < n; i++) {
        long long raw[4];
        int full_hearts, slam, code;
        PyObject *item;
        if (h->version != version || h->tables == NULL) { /* a play rule or random() did it */
            PyErr_SetString(PyExc_RuntimeError, "the engine changed under playouts");
            goto fail;
        }
        memcpy((char *)copy + offset, (const char *)h + offset, size);
        copy->ops->play_key(copy, chosen[i]);
        code = 0;
        if (copy->s.phase == PHASE_PLAY) {
            code = run == NULL ? ops->playout(copy, random) : run(copy, random, policy, raw);
            if (code < 0)
                goto fail;
        }
        if (code == 0)
            code = ops->score(copy, (const ScoreData *)data, raw, &full_hearts, &slam);
        else
            code = 0; /* the policy found the scores */
        if (code < 0) {
            PyErr_SetString(code == -1 ? PyExc_OverflowError : PyExc_ValueError,
                            "playouts: a hand the score data cannot score");
            goto fail;
        }
        item = Py_BuildValue("(LLLL)", raw[0], raw[1], raw[2], raw[3]);
        if (item == NULL)
            goto fail;
        PyTuple_SET_ITEM(out, i, item);
    }
    Py_DECREF(data);
    goto done;
fail:
    Py_DECREF(data);
    Py_CLEAR(out);
done:
    Py_XDECREF(copy);
    PyMem_Free(chosen);
    Py_DECREF(fast);
    return out;
}
