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
 *
 * Everything that crosses into C is checked, so that no input can crash the
 * interpreter or leave an engine half-updated:
 *   - every mask (hands, preferred, locked, forced) is an int (or __index__)
 *     in 0 .. 2**52 - 1, else TypeError / ValueError (never truncated);
 *     the four hands are pairwise disjoint and forced is 0 or one card bit
 *     (ValueError); arguments are parsed whole before the engine changes;
 *   - play(key): a non-int key is a TypeError, an int too large for a C long
 *     an OverflowError, any other key outside 0..51 is ILLEGAL (-2);
 *   - legal(), legal_mask() and play() raise ValueError when no seat is to
 *     move (random_playout() then does nothing, as the Python engine does);
 *     random_playout() raises ValueError when the seat to move holds no card
 *     (unequal hands) and when random() returns anything but a float in
 *     [0, 1): 1.0, -0.5, nan or inf raise ValueError("random() must return a
 *     float in [0, 1)") instead of being clamped, so no index can run past
 *     the legal mask; RuntimeError when random() changed the engine under it;
 *   - the C state is updated fully before any Python object is built, so
 *     code run by the allocator (a finaliser) sees a consistent engine.
 *
 * The type is subclassable (copy() makes an object of the subclass) and
 * takes part in garbage collection: it holds history, tricks and config.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>

static const uint64_t SUIT[4] = {
    0x1FFFULL, 0x1FFFULL << 13, 0x1FFFULL << 26, 0x1FFFULL << 39,
};

static const uint64_t FULL = (1ULL << 52) - 1;

static PyObject *PLAYS = NULL; /* the 52 single-card Play objects, by card index */
static PyObject *STR_INDEX = NULL; /* "index", interned */

typedef struct {
    PyObject_HEAD
    PyObject *history, *tricks, *config; /* NULL only before __new__ ends or after tp_clear */
    uint64_t hands[4], locked[4], taken[4], preferred[4];
    int lifted[4];
    uint64_t unled, forced;
    int first_of_suit, trick_leader, seat;
    int trick[4], ntrick;
    int offenders[4], noffenders;
    /* compiled rules */
    int lock_first, lock_discards, lift_for_hand;
    int has_preferred, penalty, last_offender;
    /* bumped by every change of the game state (random_playout's re-entrancy check) */
    unsigned long version;
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
    if (e->lift_for_hand && hand) /* stuck by the lock: an empty hand is not */
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

/* A tuple of n C ints (built directly: Py_BuildValue parses its format every call). */
static PyObject *int_tuple(int n, const int *values)
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

/* Append (seat, PLAYS[key]) to history; return -1 on error.  Holds its own
 * references, so that code run by the allocator cannot free what it uses. */
static int record_play(Engine *e, int seat, int key)
{
    PyObject *list = e->history, *play, *item;
    int rc = -1;
    if (list == NULL || PLAYS == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "PlayCore: no history list or no plays (set_plays)");
        return -1;
    }
    play = PyTuple_GET_ITEM(PLAYS, key);
    Py_INCREF(list);
    Py_INCREF(play);
    item = int_tuple(2, (int[2]){seat, 0}); /* slot 1 is replaced by the play */
    if (item != NULL) {
        Py_DECREF(PyTuple_GET_ITEM(item, 1));
        PyTuple_SET_ITEM(item, 1, play); /* the tuple takes the play's reference */
        play = NULL;
        rc = PyList_Append(list, item);
        Py_DECREF(item);
    }
    Py_XDECREF(play);
    Py_DECREF(list);
    return rc;
}

/* Append (leader, (k0, k1, k2, k3), winner, taker) to tricks; return -1 on error. */
static int record_trick(Engine *e, int leader, const int *trick, int winner, int taker)
{
    PyObject *list = e->tricks, *keys, *item;
    int rc = -1;
    if (list == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "PlayCore: no tricks list");
        return -1;
    }
    Py_INCREF(list);
    keys = int_tuple(4, trick);
    item = keys == NULL ? NULL : int_tuple(4, (int[4]){leader, 0, winner, taker});
    if (item != NULL) {
        Py_DECREF(PyTuple_GET_ITEM(item, 1));
        PyTuple_SET_ITEM(item, 1, keys); /* the tuple takes the keys' reference */
        keys = NULL;
        rc = PyList_Append(list, item);
        Py_DECREF(item);
    }
    Py_XDECREF(keys);
    Py_DECREF(list);
    return rc;
}

/* Resolve the full trick in e->trick: the C state only, no Python objects. */
static void finish_trick(Engine *e, int *winner_out, int *taker_out)
{
    int first = e->trick[0], top = (first / 13 + 1) * 13, best = first, position = 0, i;
    int winner, taker;
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
    e->ntrick = 0;
    e->trick_leader = winner;
    e->seat = e->hands[winner] ? winner : -1;
    *winner_out = winner;
    *taker_out = taker;
}

/* Play card `key` (0..51, in the hand of e->seat >= 0) for the seat to move.
 * The whole C state is updated before history and tricks are appended to. */
static int play_key(Engine *e, int key, int record)
{
    int seat = e->seat, done, leader = e->trick_leader, trick[4], winner = 0, taker = 0;
    uint64_t bit = 1ULL << key;
    e->version++;
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
    done = e->ntrick == 4;
    if (done) {
        memcpy(trick, e->trick, sizeof trick);
        finish_trick(e, &winner, &taker);
    } else {
        e->seat = (seat + 1) & 3;
    }
    if (!record)
        return 0;
    if (record_play(e, seat, key) < 0)
        return -1;
    if (done)
        return record_trick(e, leader, trick, winner, taker);
    return 0;
}


/* -- the PlayCore type ------------------------------------------------------------ */

/* One card mask: an int (or an object with __index__) in 0 .. 2**52 - 1. */
static int read_mask(PyObject *obj, uint64_t *out, const char *what)
{
    PyObject *index = PyNumber_Index(obj);
    long long value;
    int overflow;
    if (index == NULL)
        return -1;
    value = PyLong_AsLongLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (value == -1 && PyErr_Occurred())
        return -1;
    if (overflow || value < 0 || (uint64_t)value > FULL) {
        PyErr_Format(PyExc_ValueError, "%s: a card mask must be an int in 0 .. 2**52 - 1", what);
        return -1;
    }
    *out = (uint64_t)value;
    return 0;
}

/* Four card masks.  The sequence is copied to a tuple first: an __index__
 * method cannot shrink it under us. */
static int read_masks(PyObject *seq, uint64_t *out, const char *what)
{
    Py_ssize_t i;
    PyObject *items = PySequence_Tuple(seq);
    if (items == NULL) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s: expected a sequence of four card masks, not %.200s",
                         what, Py_TYPE(seq)->tp_name);
        }
        return -1;
    }
    if (PyTuple_GET_SIZE(items) != 4) {
        Py_DECREF(items);
        PyErr_Format(PyExc_ValueError, "%s: expected four masks", what);
        return -1;
    }
    for (i = 0; i < 4; i++) {
        if (read_mask(PyTuple_GET_ITEM(items, i), &out[i], what) < 0) {
            Py_DECREF(items);
            return -1;
        }
    }
    Py_DECREF(items);
    return 0;
}

/* Four disjoint card masks (each seat's cards): read_masks, then "hands overlap". */
static int read_hands(PyObject *seq, uint64_t *out)
{
    if (read_masks(seq, out, "hands") < 0)
        return -1;
    if ((out[0] & out[1]) || ((out[0] | out[1]) & out[2]) ||
        ((out[0] | out[1] | out[2]) & out[3])) {
        PyErr_SetString(PyExc_ValueError, "hands overlap");
        return -1;
    }
    return 0;
}

static PyObject *masks_tuple(const uint64_t *m)
{
    PyObject *t = PyTuple_New(4);
    int i;
    if (t == NULL)
        return NULL;
    for (i = 0; i < 4; i++) {
        PyObject *v = PyLong_FromUnsignedLongLong(m[i]);
        if (v == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

static PyObject *core_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    Engine *e = (Engine *)type->tp_alloc(type, 0);
    (void)args;
    (void)kwds;
    if (e == NULL)
        return NULL;
    /* an engine that __init__ has not set up is over: no seat is to move */
    e->unled = FULL;
    e->seat = -1;
    return (PyObject *)e;
}

/* PlayCore(hands, flags, preferred, history, tricks, config=None) */
static int core_init(Engine *e, PyObject *args, PyObject *kwds)
{
    PyObject *hands, *preferred, *history, *tricks, *config = Py_None;
    uint64_t hand_masks[4], preferred_masks[4] = {0, 0, 0, 0};
    int lock_first, lock_discards, lift_for_hand, penalty, last_offender;
    static char *kwlist[] = {"hands", "flags", "preferred", "history", "tricks", "config", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O(ppppp)OO!O!|O:PlayCore", kwlist, &hands,
                                     &lock_first, &lock_discards, &lift_for_hand, &penalty,
                                     &last_offender, &preferred, &PyList_Type, &history,
                                     &PyList_Type, &tricks, &config))
        return -1;
    if (read_hands(hands, hand_masks) < 0)
        return -1;
    if (preferred != Py_None && read_masks(preferred, preferred_masks, "preferred") < 0)
        return -1;
    /* everything is read: set the engine up in one go */
    e->version++;
    memcpy(e->hands, hand_masks, sizeof e->hands);
    memcpy(e->preferred, preferred_masks, sizeof e->preferred);
    e->has_preferred = preferred != Py_None;
    e->lock_first = lock_first;
    e->lock_discards = lock_discards;
    e->lift_for_hand = lift_for_hand;
    e->penalty = penalty;
    e->last_offender = last_offender;
    memset(e->locked, 0, sizeof e->locked);
    memset(e->taken, 0, sizeof e->taken);
    memset(e->lifted, 0, sizeof e->lifted);
    e->unled = FULL;
    e->forced = 0;
    e->first_of_suit = 0;
    e->trick_leader = 0;
    e->seat = -1;
    e->ntrick = 0;
    e->noffenders = 0;
    Py_INCREF(history);
    Py_XSETREF(e->history, history);
    Py_INCREF(tricks);
    Py_XSETREF(e->tricks, tricks);
    Py_INCREF(config);
    Py_XSETREF(e->config, config);
    return 0;
}

static int core_traverse(Engine *e, visitproc visit, void *arg)
{
    Py_VISIT(e->history);
    Py_VISIT(e->tricks);
    Py_VISIT(e->config);
    return 0;
}

static int core_clear(Engine *e)
{
    Py_CLEAR(e->history);
    Py_CLEAR(e->tricks);
    Py_CLEAR(e->config);
    return 0;
}

static void core_dealloc(Engine *e)
{
    PyObject_GC_UnTrack(e);
    core_clear(e);
    Py_TYPE(e)->tp_free((PyObject *)e);
}

/* start(leader, forced, locked, shows=None); shows is ignored (the Python engine's signature). */
static PyObject *core_start(Engine *e, PyObject *args)
{
    int leader;
    uint64_t forced, locked[4];
    PyObject *forced_obj, *locked_obj, *shows = Py_None;
    if (!PyArg_ParseTuple(args, "iOO|O:start", &leader, &forced_obj, &locked_obj, &shows))
        return NULL;
    if (leader < 0 || leader > 3) {
        PyErr_SetString(PyExc_ValueError, "leader must be 0-3");
        return NULL;
    }
    if (read_mask(forced_obj, &forced, "forced") < 0)
        return NULL;
    if (forced & (forced - 1)) {
        PyErr_SetString(PyExc_ValueError, "forced must be 0 or a single card");
        return NULL;
    }
    if (read_masks(locked_obj, locked, "locked") < 0)
        return NULL;
    e->version++;
    memcpy(e->locked, locked, sizeof e->locked);
    e->trick_leader = e->seat = leader;
    e->forced = forced;
    Py_RETURN_NONE;
}

/* redeal(hands): each seat holds hands[seat] now; the same cards between the seats and
 * the same count per seat, else ValueError with the engine unchanged.  The discard-rule
 * offenders of the trick under way are found again from the new cards. */
static PyObject *core_redeal(Engine *e, PyObject *hands)
{
    uint64_t m[4];
    int s;
    if (read_hands(hands, m) < 0)
        return NULL;
    if ((m[0] | m[1] | m[2] | m[3]) !=
        (e->hands[0] | e->hands[1] | e->hands[2] | e->hands[3])) {
        PyErr_SetString(PyExc_ValueError,
                        "redeal: the seats must hold the same cards between them");
        return NULL;
    }
    for (s = 0; s < 4; s++) {
        if (__builtin_popcountll(m[s]) != __builtin_popcountll(e->hands[s])) {
            PyErr_SetString(PyExc_ValueError, "redeal: each seat must keep its number of cards");
            return NULL;
        }
    }
    memcpy(e->hands, m, sizeof m);
    if (e->penalty && e->ntrick) {
        /* who broke the discard rule in the trick under way depends on what they held */
        int led = e->trick[0] / 13, i;
        uint64_t preferred = e->preferred[led];
        e->noffenders = 0;
        for (i = 1; i < e->ntrick; i++) {
            int key = e->trick[i], who = (e->trick_leader + i) & 3;
            if (key / 13 != led && (m[who] & preferred) && !((1ULL << key) & preferred))
                e->offenders[e->noffenders++] = who;
        }
    }
    e->version++;
    Py_RETURN_NONE;
}

/* copy(history, tricks): an object of the same (sub)class, sharing config. */
static PyObject *core_copy(Engine *e, PyObject *args)
{
    PyObject *history, *tricks;
    PyTypeObject *type = Py_TYPE(e);
    Engine *new;
    if (!PyArg_ParseTuple(args, "O!O!:copy", &PyList_Type, &history, &PyList_Type, &tricks))
        return NULL;
    new = (Engine *)type->tp_alloc(type, 0);
    if (new == NULL)
        return NULL;
    memcpy((char *)new + offsetof(Engine, hands), (char *)e + offsetof(Engine, hands),
           sizeof(Engine) - offsetof(Engine, hands));
    Py_INCREF(history);
    new->history = history;
    Py_INCREF(tricks);
    new->tricks = tricks;
    new->config = e->config != NULL ? e->config : Py_None;
    Py_INCREF(new->config);
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

/* Before playing: the lists to append to and the Play objects are there. */
static int check_ready(Engine *e)
{
    if (PLAYS == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "gongzhu._speedups.set_plays() was not called");
        return -1;
    }
    if (e->history == NULL || e->tricks == NULL) {
        PyErr_SetString(PyExc_ValueError, "PlayCore has no history or tricks list");
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
    if (PLAYS == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "gongzhu._speedups.set_plays() was not called");
        return NULL;
    }
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

/* play(key) -> the next seat, -1 after the last card, -2 (nothing changes) when
 * the card may not be played or key is not in 0..51.  A non-int key is a
 * TypeError, one too large for a C long an OverflowError. */
static PyObject *core_play(Engine *e, PyObject *arg)
{
    long key = PyLong_AsLong(arg);
    if (key == -1 && PyErr_Occurred())
        return NULL;
    if (check_seat(e) < 0 || check_ready(e) < 0)
        return NULL;
    if (key < 0 || key >= 52 || !((legal_mask(e) >> key) & 1))
        return PyLong_FromLong(-2);
    if (play_key(e, (int)key, 1) < 0)
        return NULL;
    return PyLong_FromLong(e->seat);
}

/* One draw of random() (`who` names the caller in errors): a float in [0, 1) into
 * *out, else ValueError (TypeError); RuntimeError when random() changed the engine.
 * Returns 0, or -1 with an error set. */
static int draw_unit(Engine *e, PyObject *random, const char *who, double *out)
{
    unsigned long version = e->version;
    PyObject *r = PyObject_CallNoArgs(random);
    double x;
    if (r == NULL)
        return -1;
    x = PyFloat_AsDouble(r);
    Py_DECREF(r);
    if (x == -1.0 && PyErr_Occurred())
        return -1;
    if (!(x >= 0.0 && x < 1.0)) {
        PyErr_SetString(PyExc_ValueError, "random() must return a float in [0, 1)");
        return -1;
    }
    if (e->version != version) {
        PyErr_Format(PyExc_RuntimeError, "random() changed the PlayCore under %s", who);
        return -1;
    }
    *out = x;
    return 0;
}

/* One draw of random() for a playout: draw_unit, and a seat must still be to move. */
static int draw_random(Engine *e, PyObject *random, const char *who, double *out)
{
    if (draw_unit(e, random, who, out) < 0)
        return -1;
    if (e->seat < 0) {
        PyErr_Format(PyExc_RuntimeError, "random() changed the PlayCore under %s", who);
        return -1;
    }
    return 0;
}

/* random_playout(random): play to the end, one random() call per card.
 * random() must return a float in [0, 1): anything else (1.0, -0.5, nan, inf,
 * a non-number) raises ValueError (TypeError) rather than being clamped, and
 * so does a seat to move without a card; a random() that changes the engine
 * (re-entrant play, start, __init__) raises RuntimeError.  A card played
 * before the error stays played.  On a finished engine it does nothing. */
static PyObject *playout(Engine *e, PyObject *random, int record, const char *who)
{
    if (e->seat >= 0 && check_ready(e) < 0)
        return NULL;
    while (e->seat >= 0) {
        uint64_t mask = legal_mask(e);
        int n = __builtin_popcountll(mask);
        double x;
        long skip;
        if (n == 0) {
            PyErr_SetString(PyExc_ValueError, "the seat to move holds no card");
            return NULL;
        }
        if (draw_random(e, random, who, &x) < 0)
            return NULL;
        skip = (long)(x * (double)n);
        if (skip >= n) /* cannot happen for x < 1 and n <= 52; kept as a guard */
            skip = n - 1;
        while (skip-- > 0)
            mask &= mask - 1;
        if (play_key(e, __builtin_ctzll(mask), record) < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *core_random_playout(Engine *e, PyObject *random)
{
    return playout(e, random, 1, "random_playout");
}

/* quiet_playout(random): random_playout, keeping no history or trick list (the bulk
 * path, gongzhu.bulk, reads only the taken cards). */
static PyObject *core_quiet_playout(Engine *e, PyObject *random)
{
    return playout(e, random, 0, "quiet_playout");
}

/* greedy_playout(values, random): play to the end with the greedy playout policy
 * of gongzhu.bots.search.greedy_rollout_policy, card for card the same choices
 * (the tests compare the two): values is a sequence of the 52 cards' base values
 * (ints), random() is called once per legal card, lowest first, on every lead
 * with more than one legal card, and nowhere else.  The errors of
 * random_playout apply. */
#define PIG_I 10
#define SHEEP_I 35
#define TRANSFORMER_I 47
#define RANK_OF(c) ((c) % 13 + 2)

static int greedy_choice(Engine *e, uint64_t legal, const long *values, PyObject *random)
{
    uint64_t m, follow;
    int led, best_rank = 0, negative = 0, last, i, choice = -1;
    long points = 0;
    if ((legal & (legal - 1)) == 0)
        return __builtin_ctzll(legal);
    if (e->ntrick == 0) {
        double best_key = 1e9;
        for (m = legal; m; m &= m - 1) {
            int card = __builtin_ctzll(m), rank = RANK_OF(card), suit = card / 13;
            double x, key;
            if (draw_random(e, random, "greedy_playout", &x) < 0)
                return -1;
            key = (double)rank + x;
            if (suit == 0) {
                if (card == PIG_I)
                    key += 30;
                else if (rank > 12)
                    key += 20;
            } else if (suit == 1) {
                key += 2;
            } else if (card == SHEEP_I || card == TRANSFORMER_I) {
                key += 15;
            }
            if (key < best_key) {
                best_key = key;
                choice = card;
            }
        }
        return choice;
    }
    led = e->trick[0] / 13;
    for (i = 0; i < e->ntrick; i++) {
        int card = e->trick[i];
        long value = values[card];
        points += value;
        if (value < 0)
            negative = 1;
        if (card / 13 == led && RANK_OF(card) > best_rank)
            best_rank = RANK_OF(card);
    }
    last = e->ntrick == 3;
    follow = legal & SUIT[led];
    if (follow) {
        /* ranks within a suit are distinct: "max"/"min" below are unique */
        uint64_t under = 0, over = 0, safe, keep;
        if (led == 0 && best_rank > 12 && (follow >> PIG_I & 1))
            return PIG_I;
        for (m = follow; m; m &= m - 1) {
            int card = __builtin_ctzll(m);
            if (RANK_OF(card) < best_rank)
                under |= 1ULL << card;
            else if (RANK_OF(card) > best_rank)
                over |= 1ULL << card;
        }
#define HIGHEST(mask) (63 - __builtin_clzll(mask))
#define LOWEST(mask) (__builtin_ctzll(mask))
        if (negative || led == 1) {
            if (under)
                return HIGHEST(under);
            return last ? HIGHEST(follow) : LOWEST(follow);
        }
        safe = follow & ~(1ULL << PIG_I);
        if (!safe)
            safe = follow;
        if (points > 0 && over)
            return last ? LOWEST(over) : HIGHEST(over);
        if (last) {
            if (over >> SHEEP_I & 1)
                return SHEEP_I;
            keep = safe & ~((1ULL << SHEEP_I) | (1ULL << TRANSFORMER_I));
            return HIGHEST(keep ? keep : safe);
        }
        if (under)
            return HIGHEST(under);
        return LOWEST(safe);
#undef HIGHEST
#undef LOWEST
    }
    {
        long worst_key = 0;
        int first = 1;
        for (m = legal; m; m &= m - 1) {
            int card = __builtin_ctzll(m);
            long value = values[card], key = -value * 2 + RANK_OF(card);
            if (card == PIG_I)
                key += 1000;
            if (card == TRANSFORMER_I)
                key += negative ? 300 : -30;
            if (value > 0)
                key -= 500;
            if (first || key > worst_key) {
                worst_key = key;
                choice = card;
                first = 0;
            }
        }
    }
    return choice;
}

static PyObject *core_greedy_playout(Engine *e, PyObject *args)
{
    PyObject *values_obj, *random, *fast;
    long values[52];
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "OO:greedy_playout", &values_obj, &random))
        return NULL;
    fast = PySequence_Fast(values_obj, "values must be a sequence of 52 ints");
    if (fast == NULL)
        return NULL;
    if (PySequence_Fast_GET_SIZE(fast) != 52) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "values must be a sequence of 52 ints");
        return NULL;
    }
    for (i = 0; i < 52; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return NULL;
        }
        if (v < -100000 || v > 100000) {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "a card value is out of range (|value| <= 100000)");
            return NULL;
        }
        values[i] = v;
    }
    Py_DECREF(fast);
    if (e->seat >= 0 && check_ready(e) < 0)
        return NULL;
    while (e->seat >= 0) {
        uint64_t mask = legal_mask(e);
        int card;
        if (mask == 0) {
            PyErr_SetString(PyExc_ValueError, "the seat to move holds no card");
            return NULL;
        }
        card = greedy_choice(e, mask, values, random);
        if (card < 0)
            return NULL;
        if (e->seat < 0 || !(legal_mask(e) >> card & 1)) {
            PyErr_SetString(PyExc_RuntimeError, "random() changed the PlayCore under greedy_playout");
            return NULL;
        }
        if (play_key(e, card, 1) < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

/* -- whole random hands (gongzhu.bulk.RandomHands) ---------------------------------- */

/* One show a seat may make: its cards, the factor its kind gives them, and whether
 * the shown-card lock holds them. */
typedef struct {
    uint64_t bits;
    long long factor;
    int locks;
} ShowChoice;

#define MAX_SHOWABLE 8
#define MAX_CHOICES 1024 /* per holding: k cards have 2**k subsets, per kind of show */
#define FIRST_ROOM 512   /* 首明 choices, all cards together */

/* ShowTable(showable, held, first, threshold, forced_factor, forced_locks): a one-deck
 * ruleset's show phases as data (see gongzhu.bulk.RandomHands): `held` lists, for each
 * subset of the showable cards (subset i holds the j-th showable card, in card order,
 * when bit j of i is set), the shows a seat holding exactly that subset may make, each
 * a (bits, factor, locks) tuple in the order of Rules.show_choices_for_mask; `first`
 * maps a showable card's index to its 首明 choices (None: no 首明 phase); `threshold`
 * is the auto-show count (0: none); forced_factor and forced_locks describe the open
 * show that auto-show makes.  A table is made once: __init__ fills it and refuses to
 * run again, and everything is read before anything is kept, so that no Python code
 * run while reading (an __index__) can see or change a half-made table. */
typedef struct {
    PyObject_HEAD
    int ready; /* __init__ succeeded */
    uint64_t showable;
    int ncards, cards[MAX_SHOWABLE];
    int offsets[(1 << MAX_SHOWABLE) + 1];
    int first_offsets[53], has_first;
    ShowChoice *choices, *first_choices;
    int threshold, forced_locks;
    long long forced_factor;
} ShowTable;

static void table_dealloc(ShowTable *t)
{
    PyMem_Free(t->choices);
    PyMem_Free(t->first_choices);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

/* A snapshot of `seq` as a tuple of 1 to MAX_CHOICES items, or NULL with an error set. */
static PyObject *choices_tuple(PyObject *seq)
{
    PyObject *items = PySequence_Tuple(seq);
    if (items != NULL && (PyTuple_GET_SIZE(items) < 1 || PyTuple_GET_SIZE(items) > MAX_CHOICES)) {
        Py_DECREF(items);
        PyErr_SetString(PyExc_ValueError, "ShowTable: each holding needs 1 to 1024 choices");
        return NULL;
    }
    return items;
}

/* Read the (bits, factor, locks) tuples of `items` (a choices_tuple) into out[*n...];
 * bits must lie in `allowed`.  0, or -1 with an error set. */
static int read_choices(PyObject *items, ShowChoice *out, int *n, uint64_t allowed)
{
    Py_ssize_t i, size = PyTuple_GET_SIZE(items);
    for (i = 0; i < size; i++) {
        PyObject *item = PyTuple_GET_ITEM(items, i), *bits_obj;
        ShowChoice c;
        if (!PyTuple_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "ShowTable: a choice is a (bits, factor, locks) tuple");
            return -1;
        }
        if (!PyArg_ParseTuple(item, "OLp", &bits_obj, &c.factor, &c.locks) ||
            read_mask(bits_obj, &c.bits, "bits") < 0)
            return -1;
        if (c.bits & ~allowed) {
            PyErr_SetString(PyExc_ValueError, "ShowTable: a show of a card not held");
            return -1;
        }
        out[(*n)++] = c;
    }
    return 0;
}

static int table_init(ShowTable *t, PyObject *args, PyObject *kwds)
{
    PyObject *showable_obj, *held_obj, *first, *held = NULL;
    uint64_t showable, m;
    int threshold, forced_locks, n = 0, subsets, i, ncards = 0, cards[MAX_SHOWABLE];
    int offsets[(1 << MAX_SHOWABLE) + 1], first_offsets[53];
    long long forced_factor;
    ShowChoice *choices = NULL, *first_choices = NULL;
    PyObject *snaps[1 << MAX_SHOWABLE];
    int nsnaps = 0;
    size_t total = 0;
    static char *kwlist[] = {"showable", "held", "first", "threshold", "forced_factor",
                             "forced_locks", NULL};
    if (t->ready) { /* made, or being made (Python code run while reading calls __init__) */
        PyErr_SetString(PyExc_TypeError, "a ShowTable is made once: make a new one");
        return -1;
    }
    t->ready = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOiLp:ShowTable", kwlist, &showable_obj,
                                     &held_obj, &first, &threshold, &forced_factor,
                                     &forced_locks))
        goto fail;
    if (read_mask(showable_obj, &showable, "showable") < 0)
        goto fail;
    if (__builtin_popcountll(showable) > MAX_SHOWABLE) {
        PyErr_SetString(PyExc_ValueError, "ShowTable: at most 8 showable cards");
        goto fail;
    }
    if (threshold < 0) {
        PyErr_SetString(PyExc_ValueError, "ShowTable: threshold must be >= 0");
        goto fail;
    }
    for (m = showable; m; m &= m - 1)
        cards[ncards++] = __builtin_ctzll(m);
    subsets = 1 << ncards;
    /* snapshots first (reading may run Python code), then room for exactly what they hold */
    held = PySequence_Tuple(held_obj);
    if (held == NULL)
        goto fail;
    if (PyTuple_GET_SIZE(held) != subsets) {
        PyErr_SetString(PyExc_ValueError, "ShowTable: held needs one entry per subset");
        goto fail;
    }
    for (i = 0; i < subsets; i++) {
        snaps[i] = choices_tuple(PyTuple_GET_ITEM(held, i));
        if (snaps[i] == NULL)
            goto fail;
        nsnaps = i + 1;
        total += (size_t)PyTuple_GET_SIZE(snaps[i]);
    }
    choices = PyMem_Malloc(sizeof(ShowChoice) * total);
    first_choices = PyMem_Malloc(sizeof(ShowChoice) * FIRST_ROOM);
    if (choices == NULL || first_choices == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (i = 0; i < subsets; i++) {
        uint64_t subset = 0;
        int j;
        for (j = 0; j < ncards; j++)
            if (i >> j & 1)
                subset |= 1ULL << cards[j];
        offsets[i] = n;
        if (read_choices(snaps[i], choices, &n, subset) < 0)
            goto fail;
    }
    offsets[subsets] = n;
    Py_CLEAR(held);
    n = 0;
    for (i = 0; i < 52; i++) {
        first_offsets[i] = n;
        if (first != Py_None && (showable >> i & 1)) {
            PyObject *key = PyLong_FromLong(i), *found, *items;
            int rc;
            if (key == NULL)
                goto fail;
            found = PyObject_GetItem(first, key);
            Py_DECREF(key);
            if (found == NULL)
                goto fail;
            items = choices_tuple(found);
            Py_DECREF(found);
            if (items == NULL)
                goto fail;
            rc = n + PyTuple_GET_SIZE(items) > FIRST_ROOM
                     ? -1
                     : read_choices(items, first_choices, &n, 1ULL << i);
            Py_DECREF(items);
            if (rc < 0) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "ShowTable: too many 首明 choices");
                goto fail;
            }
        }
    }
    first_offsets[52] = n;
    /* everything is read: keep it */
    t->choices = choices;
    t->first_choices = first_choices;
    t->ncards = ncards;
    memcpy(t->cards, cards, sizeof cards);
    memcpy(t->offsets, offsets, sizeof offsets);
    memcpy(t->first_offsets, first_offsets, sizeof first_offsets);
    t->has_first = first != Py_None;
    t->showable = showable;
    t->threshold = threshold;
    t->forced_factor = forced_factor;
    t->forced_locks = forced_locks;
    t->ready = 1;
    for (i = 0; i < nsnaps; i++)
        Py_DECREF(snaps[i]);
    return 0;
fail:
    for (i = 0; i < nsnaps; i++)
        Py_DECREF(snaps[i]);
    Py_XDECREF(held);
    PyMem_Free(choices);
    PyMem_Free(first_choices);
    t->ready = 0;
    return -1;
}

static PyTypeObject ShowTableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gongzhu._speedups.ShowTable",
    .tp_doc = "ShowTable(showable, held, first, threshold, forced_factor, forced_locks)\n\n"
              "A one-deck ruleset's show phases as data, for PlayCore.random_hand.",
    .tp_basicsize = sizeof(ShowTable),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)table_init,
    .tp_dealloc = (destructor)table_dealloc,
};

/* One draw for random_hand: index int(random() * n) into *out (draw_random's checks,
 * except that no seat need be to move: the show phases come before the play). */
static int draw_index(Engine *e, PyObject *random, int n, int *out)
{
    double x;
    if (n <= 0) { /* cannot happen with a made table: kept as a guard */
        PyErr_SetString(PyExc_ValueError, "random_hand: a decision without a choice");
        return -1;
    }
    if (draw_unit(e, random, "random_hand", &x) < 0)
        return -1;
    *out = (int)(x * (double)n);
    if (*out >= n)
        *out = n - 1;
    return 0;
}

/* random_hand(table, leader, forced, first_seat, first_cards, random) -> (taken, factors):
 * a fresh engine (as made, not started) plays its whole hand at random, as
 * HandState.play_out does with the same draws: the 首明 phase (first_cards: the first
 * four cards dealt, to first_seat and round the table, objects with an int `index`;
 * None without the phase), the show phase from
 * `leader`, auto-show, the shown-card lock, then every card, keeping no history.
 * Returns each seat's taken mask and {card bit: show factor} of every shown card.
 * An error during the play (a bad draw) leaves the engine part-played and without
 * a history: the bulk path, its only user, then drops the engine. */
static PyObject *core_random_hand(Engine *e, PyObject *args)
{
    ShowTable *t;
    PyObject *forced_obj, *first_cards, *random, *factors = NULL, *taken = NULL, *result;
    uint64_t forced, shown[4] = {0, 0, 0, 0}, locked[4] = {0, 0, 0, 0}, dealt[4], all_shown;
    long long factor_of[52];
    int leader, first_seat, k, i, total = 0, first_index[4];
    if (!PyArg_ParseTuple(args, "O!iOiOO:random_hand", &ShowTableType, &t, &leader, &forced_obj,
                          &first_seat, &first_cards, &random))
        return NULL;
    if (t->ready != 1) {
        PyErr_SetString(PyExc_ValueError, "random_hand: the ShowTable was not made (__init__)");
        return NULL;
    }
    if (leader < 0 || leader > 3 || first_seat < 0 || first_seat > 3) {
        PyErr_SetString(PyExc_ValueError, "leader and first_seat must be 0-3");
        return NULL;
    }
    if (read_mask(forced_obj, &forced, "forced") < 0)
        return NULL;
    if (forced & (forced - 1)) {
        PyErr_SetString(PyExc_ValueError, "forced must be 0 or a single card");
        return NULL;
    }
    if (first_cards != Py_None) { /* read whole before anything is drawn or checked */
        PyObject *cards = PySequence_Tuple(first_cards);
        if (cards == NULL)
            return NULL;
        if (PyTuple_GET_SIZE(cards) != 4) {
            Py_DECREF(cards);
            PyErr_SetString(PyExc_ValueError, "first_cards: the four first dealt cards");
            return NULL;
        }
        for (k = 0; k < 4; k++) {
            PyObject *index = PyObject_GetAttr(PyTuple_GET_ITEM(cards, k), STR_INDEX);
            long card;
            if (index == NULL) {
                Py_DECREF(cards);
                return NULL;
            }
            card = PyLong_AsLong(index);
            Py_DECREF(index);
            if (card == -1 && PyErr_Occurred()) {
                Py_DECREF(cards);
                return NULL;
            }
            if (card < 0 || card > 51) {
                Py_DECREF(cards);
                PyErr_SetString(PyExc_ValueError, "first_cards: a card index outside 0-51");
                return NULL;
            }
            first_index[k] = (int)card;
        }
        Py_DECREF(cards);
    }
    /* the engine, after the Python code reading the arguments may have run */
    if (e->seat >= 0 || e->ntrick ||
        (e->hands[0] | e->hands[1] | e->hands[2] | e->hands[3]) != FULL) {
        PyErr_SetString(PyExc_ValueError, "random_hand needs a fresh engine dealt a whole deck");
        return NULL;
    }
    if (check_ready(e) < 0)
        return NULL;
    memcpy(dealt, e->hands, sizeof dealt);
    if (first_cards != Py_None) {
        for (k = 0; k < 4; k++) {
            if (!(dealt[(first_seat + k) & 3] >> first_index[k] & 1)) {
                PyErr_SetString(PyExc_ValueError, "first_cards: a card the seat was not dealt");
                return NULL;
            }
        }
    }
    for (i = 0; i < 52; i++)
        factor_of[i] = 1;
    if (first_cards != Py_None && t->has_first) {
        for (k = 0; k < 4; k++) {
            int seat = (first_seat + k) & 3, card = first_index[k], pick, lo;
            ShowChoice *c;
            if (!(t->showable >> card & 1))
                continue;
            lo = t->first_offsets[card];
            if (draw_index(e, random, t->first_offsets[card + 1] - lo, &pick) < 0)
                return NULL;
            c = &t->first_choices[lo + pick];
            if (c->bits) {
                shown[seat] |= c->bits;
                factor_of[card] = c->factor;
                if (c->locks)
                    locked[seat] |= c->bits;
            }
        }
    }
    for (k = 0; k < 4; k++) {
        int seat = (leader + k) & 3, subset = 0, j, pick, lo;
        uint64_t held = dealt[seat] & t->showable & ~shown[seat], m;
        ShowChoice *c;
        for (j = 0; j < t->ncards; j++)
            if (held >> t->cards[j] & 1)
                subset |= 1 << j;
        lo = t->offsets[subset];
        if (draw_index(e, random, t->offsets[subset + 1] - lo, &pick) < 0)
            return NULL;
        c = &t->choices[lo + pick];
        if (c->bits) {
            shown[seat] |= c->bits;
            for (m = c->bits; m; m &= m - 1)
                factor_of[__builtin_ctzll(m)] = c->factor;
            if (c->locks)
                locked[seat] |= c->bits;
        }
    }
    for (k = 0; k < 4; k++)
        total += __builtin_popcountll(shown[k]);
    if (t->threshold && total >= t->threshold) {
        for (k = 0; k < 4; k++) {
            uint64_t rest = dealt[k] & t->showable & ~shown[k], m;
            if (!rest)
                continue;
            for (m = rest; m; m &= m - 1)
                factor_of[__builtin_ctzll(m)] = t->forced_factor;
            if (t->forced_locks)
                locked[k] |= rest;
            shown[k] |= rest;
        }
    }
    all_shown = shown[0] | shown[1] | shown[2] | shown[3];
    e->version++;
    memcpy(e->locked, locked, sizeof e->locked);
    e->trick_leader = e->seat = leader;
    e->forced = forced;
    while (e->seat >= 0) {
        uint64_t mask = legal_mask(e);
        int n = __builtin_popcountll(mask), skip;
        if (n == 0) {
            PyErr_SetString(PyExc_ValueError, "the seat to move holds no card");
            return NULL;
        }
        if (draw_index(e, random, n, &skip) < 0)
            return NULL;
        while (skip-- > 0)
            mask &= mask - 1;
        play_key(e, __builtin_ctzll(mask), 0); /* no record: cannot fail */
    }
    factors = PyDict_New(); /* every shown card, whatever its factor (0 included) */
    if (factors == NULL)
        return NULL;
    for (i = 0; i < 52; i++) {
        if (all_shown >> i & 1) {
            PyObject *bit = PyLong_FromUnsignedLongLong(1ULL << i);
            PyObject *factor = PyLong_FromLongLong(factor_of[i]);
            int rc = bit && factor ? PyDict_SetItem(factors, bit, factor) : -1;
            Py_XDECREF(bit);
            Py_XDECREF(factor);
            if (rc < 0) {
                Py_DECREF(factors);
                return NULL;
            }
        }
    }
    taken = masks_tuple(e->taken);
    if (taken == NULL) {
        Py_DECREF(factors);
        return NULL;
    }
    result = PyTuple_Pack(2, taken, factors);
    Py_DECREF(taken);
    Py_DECREF(factors);
    return result;
}

static PyObject *ref_or_none(PyObject *list)
{
    return Py_NewRef(list != NULL ? list : Py_None);
}

static PyObject *get_hands(Engine *e, void *c) { (void)c; return masks_tuple(e->hands); }
static PyObject *get_taken(Engine *e, void *c) { (void)c; return masks_tuple(e->taken); }
static PyObject *get_locked(Engine *e, void *c) { (void)c; return masks_tuple(e->locked); }
static PyObject *get_seat(Engine *e, void *c) { (void)c; return PyLong_FromLong(e->seat); }
static PyObject *get_forced(Engine *e, void *c) { (void)c; return PyLong_FromUnsignedLongLong(e->forced); }
static PyObject *get_unled(Engine *e, void *c) { (void)c; return PyLong_FromUnsignedLongLong(e->unled); }
static PyObject *get_trick_leader(Engine *e, void *c) { (void)c; return PyLong_FromLong(e->trick_leader); }
static PyObject *get_history(Engine *e, void *c) { (void)c; return ref_or_none(e->history); }
static PyObject *get_tricks(Engine *e, void *c) { (void)c; return ref_or_none(e->tricks); }
static PyObject *get_config(Engine *e, void *c) { (void)c; return ref_or_none(e->config); }
static PyObject *get_first_of_suit(Engine *e, void *c) { (void)c; return PyBool_FromLong(e->first_of_suit); }

static PyObject *get_lifted(Engine *e, void *c)
{
    (void)c;
    return PyTuple_Pack(4, e->lifted[0] ? Py_True : Py_False, e->lifted[1] ? Py_True : Py_False,
                        e->lifted[2] ? Py_True : Py_False, e->lifted[3] ? Py_True : Py_False);
}

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
    {"lifted", (getter)get_lifted, NULL, "per seat, whether its lock is lifted for the hand", NULL},
    {"seat", (getter)get_seat, NULL, "the seat to move, or -1 when over", NULL},
    {"forced", (getter)get_forced, NULL, "the card mask the leader must lead, or 0", NULL},
    {"unled", (getter)get_unled, NULL, "the mask of the suits not led yet", NULL},
    {"first_of_suit", (getter)get_first_of_suit, NULL,
     "whether the trick under way is its suit's first", NULL},
    {"trick_leader", (getter)get_trick_leader, NULL, "the seat that leads the trick", NULL},
    {"trick", (getter)get_trick, NULL, "the card indices of the trick under way", NULL},
    {"history", (getter)get_history, NULL, "the hand's action list", NULL},
    {"tricks", (getter)get_tricks, NULL, "the hand's trick list", NULL},
    {"config", (getter)get_config, NULL, "the object given as config (default None)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef core_methods[] = {
    {"start", (PyCFunction)core_start, METH_VARARGS,
     "start(leader, forced, locked, shows=None); shows is ignored"},
    {"copy", (PyCFunction)core_copy, METH_VARARGS,
     "copy(history, tricks) -> an engine of the same type, sharing config"},
    {"redeal", (PyCFunction)core_redeal, METH_O,
     "redeal(hands): each seat holds hands[seat] now (the same cards between them, the same "
     "count per seat)"},
    {"legal_mask", (PyCFunction)core_legal_mask, METH_NOARGS, "the legal cards (mask)"},
    {"legal", (PyCFunction)core_legal, METH_NOARGS, "the legal plays (tuple)"},
    {"play", (PyCFunction)core_play, METH_O, "play(key) -> next seat, -1 over, -2 illegal"},
    {"random_hand", (PyCFunction)core_random_hand, METH_VARARGS,
     "random_hand(table, leader, forced, first_seat, first_cards, random) -> (taken, factors): "
     "a fresh engine plays its whole hand at random, shows included (gongzhu.bulk)"},
    {"quiet_playout", (PyCFunction)core_quiet_playout, METH_O,
     "quiet_playout(random): random_playout without appending to history and tricks"},
    {"random_playout", (PyCFunction)core_random_playout, METH_O,
     "random_playout(random); random() must return a float in [0, 1)"},
    {"greedy_playout", (PyCFunction)core_greedy_playout, METH_VARARGS,
     "greedy_playout(values, random): the greedy playout policy of gongzhu.bots.search"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject PlayCoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gongzhu._speedups.PlayCore",
    .tp_doc = "PlayCore(hands, flags, preferred, history, tricks, config=None)\n\n"
              "The single-card play engine in C (see gongzhu.engine.PlayCore).",
    .tp_basicsize = sizeof(Engine),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = core_new,
    .tp_init = (initproc)core_init,
    .tp_alloc = PyType_GenericAlloc,
    .tp_free = PyObject_GC_Del,
    .tp_dealloc = (destructor)core_dealloc,
    .tp_traverse = (traverseproc)core_traverse,
    .tp_clear = (inquiry)core_clear,
    .tp_methods = core_methods,
    .tp_getset = core_getset,
};

/* -- shuffling (gongzhu.deal.Deal.shuffled) --------------------------------------- */

typedef struct {
    uint64_t key;
    int position;
} SortKey;

static int compare_keys(const void *a, const void *b)
{
    const SortKey *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->position < y->position ? -1 : x->position > y->position;
}

/* shuffle_deck(digest, deck) -> (order, masks): the deck's cards sorted by the
 * 64-bit little-endian keys of digest (8 bytes per card; equal keys keep deck
 * order, as Python's stable sort does), and the card masks of the four seats
 * dealt from position 0 round the table (seat k gets positions k, k+4, ...).
 * deck is gongzhu.cards.full_deck(copies): position i holds card i // copies;
 * a second copy of a card goes to bit 52 + index.  The pure-Python twin is
 * gongzhu.deal._shuffle_deck; the tests compare them. */
static PyObject *shuffle_deck(PyObject *self, PyObject *args)
{
    Py_buffer digest;
    PyObject *deck, *order = NULL, *masks = NULL, *result = NULL;
    SortKey keys[104];
    uint64_t low[4] = {0, 0, 0, 0}, high[4] = {0, 0, 0, 0}; /* first and second copies */
    Py_ssize_t n, i;
    int copies, j;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*O!:shuffle_deck", &digest, &PyTuple_Type, &deck))
        return NULL;
    n = PyTuple_GET_SIZE(deck);
    if (n != 52 && n != 104) {
        PyErr_SetString(PyExc_ValueError, "shuffle_deck: the deck must hold 52 or 104 cards");
        goto done;
    }
    if (digest.len != 8 * n) {
        PyErr_SetString(PyExc_ValueError, "shuffle_deck: the digest must hold 8 bytes per card");
        goto done;
    }
    copies = (int)(n / 52);
    for (i = 0; i < n; i++) {
        const unsigned char *b = (const unsigned char *)digest.buf + 8 * i;
        uint64_t key = 0;
        for (j = 7; j >= 0; j--)
            key = (key << 8) | b[j];
        keys[i].key = key;
        keys[i].position = (int)i;
    }
    qsort(keys, (size_t)n, sizeof keys[0], compare_keys);
    order = PyTuple_New(n);
    if (order == NULL)
        goto done;
    for (i = 0; i < n; i++) {
        int position = keys[i].position;
        uint64_t bit = 1ULL << (position / copies);
        PyObject *card = PyTuple_GET_ITEM(deck, position);
        Py_INCREF(card);
        PyTuple_SET_ITEM(order, i, card);
        if (low[i & 3] & bit) /* a second copy (two decks): bit 52 + index */
            high[i & 3] |= bit;
        else
            low[i & 3] |= bit;
    }
    if (copies == 1) {
        masks = masks_tuple(low);
    } else {
        /* a two-deck mask has up to 104 bits: low | high << 52 */
        masks = PyTuple_New(4);
        for (j = 0; masks != NULL && j < 4; j++) {
            PyObject *first = PyLong_FromUnsignedLongLong(low[j]);
            PyObject *second = PyLong_FromUnsignedLongLong(high[j]);
            PyObject *shift = PyLong_FromLong(52), *shifted = NULL, *mask = NULL;
            if (first && second && shift)
                shifted = PyNumber_Lshift(second, shift);
            if (shifted)
                mask = PyNumber_Or(shifted, first);
            Py_XDECREF(first);
            Py_XDECREF(second);
            Py_XDECREF(shift);
            Py_XDECREF(shifted);
            if (mask == NULL)
                Py_CLEAR(masks);
            else
                PyTuple_SET_ITEM(masks, j, mask);
        }
    }
    if (masks != NULL)
        result = PyTuple_Pack(2, order, masks);
done:
    Py_XDECREF(order);
    Py_XDECREF(masks);
    PyBuffer_Release(&digest);
    return result;
}

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
    {"shuffle_deck", shuffle_deck, METH_VARARGS,
     "shuffle_deck(digest, deck) -> (order, masks): see gongzhu.deal._shuffle_deck"},
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
    if (PyType_Ready(&PlayCoreType) < 0 || PyType_Ready(&ShowTableType) < 0)
        return NULL;
    STR_INDEX = PyUnicode_InternFromString("index");
    if (STR_INDEX == NULL)
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
    Py_INCREF(&ShowTableType);
    if (PyModule_AddObject(m, "ShowTable", (PyObject *)&ShowTableType) < 0) {
        Py_DECREF(&ShowTableType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
