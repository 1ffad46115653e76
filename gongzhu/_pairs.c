/*
 * Optional C accelerator: gongzhu._pairs.PairsCore, the two-deck play engine
 * with pairs of gongzhu/engine_pairs.py (its pure-Python reference) in C.
 *
 * Same rules (a lead of one card or an identical pair, the pair-following
 * cascade, the ranking of pairs against unmatched cards, the shown-card lock
 * with its "only card of its suit" exemption, its lifting), same copy policy
 * (a seat holding a shown and an unshown copy of a card plays the unshown one
 * first), same legal keys in the same ascending order, same use of the random
 * stream in random_playout (one random() call per play: the int(r * n)-th of
 * the n ascending legal keys), same trick resolution.  The tests play both
 * and require identical hands.  The plug-ins' play rules (config.rules) are
 * not supported: an engine that needs them is the Python one.
 *
 * Card masks are two-deck masks: bit i is the first copy of card i, bit
 * 52 + i its second copy (set only with the first); here each is a pair of
 * 52-bit words (lo, hi).  Play keys: a card index for one card, 52 + 52a + b
 * for two cards a <= b (so 2756 keys in all, 52 + 53i for the pair of i).
 *
 * Everything that crosses into C is checked, so that no input can crash the
 * interpreter or leave an engine half-updated:
 *   - every mask is an int (or __index__): anything else is a TypeError, a
 *     value outside 0 .. 2**104 - 1 a ValueError (never truncated); hands
 *     hold no second copy without its first and no card more than twice in
 *     all; forced is 0 or one card bit below 2**52; every argument is parsed
 *     whole before the engine changes;
 *   - play(key): a non-int key is a TypeError, any int that is not the key
 *     of a legal play (negative, huge, a two-card key with a > b) is ILLEGAL
 *     (-2);
 *   - legal(), legal_keys(), legal_mask() and play() raise ValueError when no
 *     seat is to move; random_playout() returns at once when the hand is
 *     over, raises ValueError when random() returns anything but a float in
 *     [0, 1), IndexError when the seat to move holds no card (unequal hands:
 *     the Python indexes an empty list), and RuntimeError when random()
 *     changed the engine under it;
 *   - the C state is updated fully before any Python object is built, and
 *     Python code that may run (random(), the lazy play_of_key, a finaliser)
 *     is run before the checks that depend on the state it might change.
 *
 * The type is subclassable (copy() makes an object of the subclass) and
 * takes part in garbage collection: it holds history, tricks, config and
 * the kinds of the shown copies.  The Play objects are cached module-wide
 * (they refer to no engine, so they cannot be part of a cycle).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define NKEYS 2756     /* 52 single-card keys and 52 * 52 two-card key slots */
#define LEGAL_MAX 1378 /* the most legal plays: any two of 52 cards (1326) or a pair (52) */
#define SHOWS_MAX 104  /* shown copies popped in a hand: at most one per card played */
#define TRICK_SHOWS_MAX 8

#define PAIR_KEY(i) (52 + 53 * (i))
#define TWO_KEY(a, b) (52 + 52 * (a) + (b)) /* a <= b */

static const uint64_t SUIT[4] = {
    0x1FFFULL, 0x1FFFULL << 13, 0x1FFFULL << 26, 0x1FFFULL << 39,
};

static const uint64_t LOW = (1ULL << 52) - 1;

static PyObject *PLAYS[NKEYS];     /* the Play object of each key, filled lazily */
static PyObject *PLAY_OF_KEY = NULL; /* gongzhu.actions.play_of_key, imported at first need */

typedef struct {
    uint64_t lo, hi; /* first copies, second copies */
} Mask;

typedef struct {
    int seat; /* shown_left: unused; trick_shows: the seat that showed it; taken: the taker */
    int index;
    PyObject *kind; /* a strong reference */
} Shown;

typedef struct {
    PyObject_HEAD
    PyObject *history, *tricks, *config; /* NULL only before __init__ or after tp_clear */
    Shown *shown_left[4]; /* per seat, the shown copies not played yet, in the order shown */
    Py_ssize_t nshown_left[4], cap_shown_left[4];
    /* -- plain state: copy() copies it byte for byte from here to `legal` -- */
    Mask hands[4], locked[4], taken[4];
    int lifted[4];
    uint64_t unled, played, forced;
    int first_of_suit, trick_leader, seat;
    int trick[4], ntrick;
    int lock_first, lock_discards, lift_for_hand, pair_beats_unmatched;
    unsigned long version; /* bumped by every change of the game state */
    int ntrick_shows, ntaken_shows;
    Shown trick_shows[TRICK_SHOWS_MAX]; /* the shown copies played in the trick under way */
    Shown taken_shows[SHOWS_MAX];       /* the shown copies taken, in order (seat: taker) */
    int nlegal;                         /* the cached legal keys; -1: not computed */
    uint16_t legal[LEGAL_MAX];
} Engine;

/* -- masks and keys ------------------------------------------------------------------------ */

static inline int copies_in(Mask m, int index)
{
    return (int)((m.lo >> index) & 1) + (int)((m.hi >> index) & 1);
}

static inline void remove_copy(Mask *m, int index)
{
    uint64_t bit = 1ULL << index;
    if (m->hi & bit)
        m->hi ^= bit;
    else
        m->lo ^= bit;
}

static inline void add_copy(Mask *m, int index)
{
    uint64_t bit = 1ULL << index;
    if (m->lo & bit)
        m->hi |= bit;
    else
        m->lo |= bit;
}

/* The cards of a key: *a and *b (equal for a pair); the number of cards. */
static inline int key_cards(int key, int *a, int *b)
{
    if (key < 52) {
        *a = *b = key;
        return 1;
    }
    *a = (key - 52) / 52;
    *b = (key - 52) % 52;
    return 2;
}

static inline int key_first(int key)
{
    return key < 52 ? key : (key - 52) / 52;
}

/* -- legality ------------------------------------------------------------------------------ */

/* The plays the lead and follow rules allow, ascending; their number. */
static int candidates(const Engine *e, Mask hand, uint16_t *out)
{
    int n = 0, led, lead;
    uint64_t m;
    Mask suited;
    if (e->ntrick == 0) {
        if (e->forced && (hand.lo & e->forced)) {
            int index = __builtin_ctzll(e->forced);
            out[n++] = (uint16_t)index;
            if (hand.hi & e->forced)
                out[n++] = (uint16_t)PAIR_KEY(index);
            return n;
        }
        for (m = hand.lo; m; m &= m - 1)
            out[n++] = (uint16_t)__builtin_ctzll(m);
        for (m = hand.hi; m; m &= m - 1)
            out[n++] = (uint16_t)PAIR_KEY(__builtin_ctzll(m));
        return n;
    }
    lead = e->trick[0];
    led = key_first(lead) / 13;
    suited.lo = hand.lo & SUIT[led];
    suited.hi = hand.hi & SUIT[led];
    if (lead < 52) {
        for (m = (suited.lo | suited.hi) ? suited.lo : hand.lo; m; m &= m - 1)
            out[n++] = (uint16_t)__builtin_ctzll(m);
        return n;
    }
    if (suited.hi) { /* 1. a pair of the led suit */
        for (m = suited.hi; m; m &= m - 1)
            out[n++] = (uint16_t)PAIR_KEY(__builtin_ctzll(m));
        return n;
    }
    if (__builtin_popcountll(suited.lo) >= 2) { /* 2. two cards of the led suit */
        uint64_t a, b;
        for (a = suited.lo; a; a &= a - 1)
            for (b = a & (a - 1); b; b &= b - 1)
                out[n++] = (uint16_t)TWO_KEY(__builtin_ctzll(a), __builtin_ctzll(b));
        return n;
    }
    if (suited.lo) { /* 3. the one card of the led suit and any other card */
        int single = __builtin_ctzll(suited.lo);
        Mask rest = hand;
        remove_copy(&rest, single);
        /* ascending others give ascending keys: 52 + 52o + s < 52 + 53s < 52 + 52s + o' */
        for (m = rest.lo; m; m &= m - 1) {
            int other = __builtin_ctzll(m);
            out[n++] = (uint16_t)(other <= single ? TWO_KEY(other, single)
                                                  : TWO_KEY(single, other));
        }
        return n;
    }
    /* 4. any two cards: for each first card a, its pair, then a with every higher card */
    for (m = hand.lo; m; m &= m - 1) {
        int a = __builtin_ctzll(m);
        uint64_t b;
        if ((hand.hi >> a) & 1)
            out[n++] = (uint16_t)PAIR_KEY(a);
        for (b = m & (m - 1); b; b &= b - 1)
            out[n++] = (uint16_t)TWO_KEY(a, __builtin_ctzll(b));
    }
    return n;
}

/* Whether playing `needed` copies of card `index` must use a shown copy the lock withholds. */
static int blocked_card(const Engine *e, int index, int needed, Mask hand, Mask locked, int led)
{
    int suit, unled;
    if (copies_in(hand, index) - copies_in(locked, index) >= needed)
        return 0;
    suit = index / 13;
    unled = (e->unled & SUIT[suit]) != 0;
    if (e->ntrick == 0 || suit == led) {
        int applies = e->lock_first && (e->ntrick == 0 ? unled : e->first_of_suit);
        /* exempt: the shown copy is the holder's only card of its suit (copies count) */
        return applies &&
               __builtin_popcountll(hand.lo & SUIT[suit]) + __builtin_popcountll(hand.hi & SUIT[suit]) > 1;
    }
    return e->lock_discards && unled;
}

/* Compute the legal keys of the seat to move into e->legal (once per state). */
static void compute_legal(Engine *e)
{
    int seat = e->seat, n;
    Mask hand, locked = {0, 0};
    if (e->nlegal >= 0)
        return;
    hand = e->hands[seat];
    n = candidates(e, hand, e->legal);
    if (!e->lifted[seat]) {
        locked.lo = e->locked[seat].lo & hand.lo;
        locked.hi = e->locked[seat].hi & hand.hi;
    }
    if (locked.lo | locked.hi) {
        uint16_t allowed[LEGAL_MAX];
        int i, kept = 0, led = e->ntrick ? key_first(e->trick[0]) / 13 : -1;
        for (i = 0; i < n; i++) {
            int key = e->legal[i], a, b, blocked = 0;
            key_cards(key, &a, &b);
            if (((locked.lo >> a) & 1) || ((locked.lo >> b) & 1)) {
                if (a == b && key >= 52)
                    blocked = blocked_card(e, a, 2, hand, locked, led);
                else
                    blocked = blocked_card(e, a, 1, hand, locked, led) ||
                              (a != b && blocked_card(e, b, 1, hand, locked, led));
            }
            if (!blocked)
                allowed[kept++] = (uint16_t)key;
        }
        if (kept) {
            memcpy(e->legal, allowed, (size_t)kept * sizeof allowed[0]);
            n = kept;
        } else if (e->lift_for_hand) { /* the lock leaves nothing: it lifts */
            e->lifted[seat] = 1;
        }
    }
    e->nlegal = n;
}

/* -- playing ------------------------------------------------------------------------------- */

/* The Play object of `key` (borrowed; cached for good), or NULL with an exception set.
 * The first call for a key runs Python code (gongzhu.actions.play_of_key). */
static PyObject *get_play(int key)
{
    PyObject *play = PLAYS[key];
    if (play != NULL)
        return play;
    if (PLAY_OF_KEY == NULL) {
        PyObject *actions = PyImport_ImportModule("gongzhu.actions"), *func;
        if (actions == NULL)
            return NULL;
        func = PyObject_GetAttrString(actions, "play_of_key");
        Py_DECREF(actions);
        if (func == NULL)
            return NULL;
        if (PLAY_OF_KEY == NULL)
            PLAY_OF_KEY = func;
        else
            Py_DECREF(func);
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

/* The rank of a play in the trick: -1 never wins; higher wins; ties go to the first. */
static int rank_of(const Engine *e, int key, int led, int pair_lead)
{
    int a, b, top;
    key_cards(key, &a, &b);
    if (a / 13 != led || b / 13 != led)
        return -1;
    top = a % 13 > b % 13 ? a % 13 : b % 13;
    if (!pair_lead)
        return top;
    return ((a == b) == e->pair_beats_unmatched) * 16 + top;
}

/* Play the legal key `key` whose Play object is `play`; the state changes first, then the
 * history (and the trick list) get their entries.  -1 on error (the state has changed). */
static int play_key(Engine *e, int key, PyObject *play, int record)
{
    int seat = e->seat, a, b, ncards, c, finished = 0, winner = 0, leader = 0;
    int keys[4], k;
    Mask hand;
    PyObject *item, *trick;

    e->nlegal = -1;
    e->version++;
    ncards = key_cards(key, &a, &b);
    if (e->ntrick == 0) {
        uint64_t suit_mask = SUIT[a / 13];
        e->first_of_suit = (e->unled & suit_mask) != 0;
        e->unled &= ~suit_mask;
        e->forced = 0;
    }
    hand = e->hands[seat];
    for (c = 0; c < ncards; c++) {
        int index = c ? b : a;
        Py_ssize_t nleft = e->nshown_left[seat];
        if (nleft) {
            Shown *left = e->shown_left[seat];
            Py_ssize_t i, first = -1, count = 0;
            for (i = 0; i < nleft; i++) {
                if (left[i].index == index) {
                    if (first < 0)
                        first = i;
                    count++;
                }
            }
            /* only shown copies left: one goes (the unshown copy is played first) */
            if (count && copies_in(hand, index) <= count &&
                e->ntrick_shows < TRICK_SHOWS_MAX) {
                Shown *shown = &e->trick_shows[e->ntrick_shows++];
                shown->seat = seat;
                shown->index = index;
                shown->kind = left[first].kind; /* the reference moves */
                memmove(left + first, left + first + 1, (size_t)(nleft - first - 1) * sizeof *left);
                e->nshown_left[seat] = nleft - 1;
                if (copies_in(e->locked[seat], index))
                    remove_copy(&e->locked[seat], index);
            }
        }
        remove_copy(&hand, index);
        e->played |= 1ULL << index;
    }
    e->hands[seat] = hand;
    e->trick[e->ntrick++] = key;
    if (e->ntrick == 4) {
        int led = key_first(e->trick[0]) / 13, pair_lead = e->trick[0] >= 52, best = -1;
        int position = 0, i;
        Mask *taken;
        for (i = 0; i < 4; i++) {
            int rank = rank_of(e, e->trick[i], led, pair_lead);
            if (rank > best) {
                best = rank;
                position = i;
            }
            keys[i] = e->trick[i];
        }
        leader = e->trick_leader;
        winner = (leader + position) & 3;
        taken = &e->taken[winner];
        for (i = 0; i < 4; i++) {
            int x, y, k = key_cards(e->trick[i], &x, &y);
            add_copy(taken, x);
            if (k == 2)
                add_copy(taken, y);
        }
        for (i = 0; i < e->ntrick_shows; i++) {
            if (e->ntaken_shows < SHOWS_MAX) {
                Shown *shown = &e->taken_shows[e->ntaken_shows++];
                shown->seat = winner;
                shown->index = e->trick_shows[i].index;
                shown->kind = e->trick_shows[i].kind; /* the reference moves */
            } else {
                Py_XDECREF(e->trick_shows[i].kind); /* cannot happen: see SHOWS_MAX */
            }
        }
        e->ntrick_shows = 0;
        e->ntrick = 0;
        e->trick_leader = winner;
        e->seat = (e->hands[winner].lo | e->hands[winner].hi) ? winner : -1;
        finished = 1;
    } else {
        e->seat = (seat + 1) & 3;
    }

    if (!record)
        return 0;
    /* the Python objects */
    item = PyTuple_New(2);
    if (item == NULL)
        return -1;
    PyTuple_SET_ITEM(item, 0, PyLong_FromLong(seat));
    Py_INCREF(play);
    PyTuple_SET_ITEM(item, 1, play);
    if (PyTuple_GET_ITEM(item, 0) == NULL || PyList_Append(e->history, item) < 0) {
        Py_DECREF(item);
        return -1;
    }
    Py_DECREF(item);
    if (!finished)
        return 0;
    trick = PyTuple_New(4); /* built directly: Py_BuildValue parses its format every call */
    if (trick == NULL)
        return -1;
    for (k = 0; k < 4; k++) {
        PyObject *v = PyLong_FromLong(keys[k]);
        if (v == NULL) {
            Py_DECREF(trick);
            return -1;
        }
        PyTuple_SET_ITEM(trick, k, v);
    }
    item = PyTuple_New(4);
    if (item == NULL) {
        Py_DECREF(trick);
        return -1;
    }
    PyTuple_SET_ITEM(item, 1, trick);
    PyTuple_SET_ITEM(item, 0, PyLong_FromLong(leader));
    PyTuple_SET_ITEM(item, 2, PyLong_FromLong(winner));
    PyTuple_SET_ITEM(item, 3, PyLong_FromLong(winner));
    if (PyTuple_GET_ITEM(item, 0) == NULL || PyTuple_GET_ITEM(item, 2) == NULL ||
        PyTuple_GET_ITEM(item, 3) == NULL) {
        Py_DECREF(item);
        return -1;
    }
    if (PyList_Append(e->tricks, item) < 0) {
        Py_DECREF(item);
        return -1;
    }
    Py_DECREF(item);
    return 0;
}

/* -- converting arguments ------------------------------------------------------------------ */

/* `v`, an int: 0 with *m set when 0 <= v < 2**104; 1 when out of range; -1 on other errors. */
static int long_to_mask(PyObject *v, Mask *m)
{
    unsigned long long x = PyLong_AsUnsignedLongLong(v), hi;
    PyObject *shift, *shifted;
    if (!(x == (unsigned long long)-1 && PyErr_Occurred())) {
        m->lo = x & LOW;
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
    m->lo = PyLong_AsUnsignedLongLongMask(v) & LOW;
    if (m->lo == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    return 0;
}

/* Four two-deck masks from a sequence (every item an int first: TypeError; then the count and
 * the range: ValueError `message`; with `hands`, also a second copy without its first). */
static int read_masks(PyObject *seq, Mask *out, const char *message, int hands)
{
    PyObject *fast = PySequence_Tuple(seq); /* a snapshot: __index__ code may change `seq` */
    Py_ssize_t n, i;
    int bad = 0;
    if (fast == NULL)
        return -1;
    n = PyTuple_GET_SIZE(fast);
    for (i = 0; i < n; i++) {
        PyObject *v = PyNumber_Index(PyTuple_GET_ITEM(fast, i));
        int rc = 0;
        if (v == NULL) {
            Py_DECREF(fast);
            return -1;
        }
        if (i < 4 && !bad) {
            rc = long_to_mask(v, &out[i]);
            if (rc == 0 && hands && (out[i].hi & ~out[i].lo))
                rc = 1;
        }
        Py_DECREF(v);
        if (rc < 0) {
            Py_DECREF(fast);
            return -1;
        }
        bad |= rc;
    }
    Py_DECREF(fast);
    if (n != 4 || bad) {
        PyErr_SetString(PyExc_ValueError, message);
        return -1;
    }
    return 0;
}

/* An int in lo..hi into *out; TypeError for a non-int, ValueError `message` out of range. */
static int small_int(PyObject *o, long lo, long hi, long *out, const char *message)
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

static PyObject *mask_to_long(Mask m)
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

static PyObject *masks_tuple(const Mask *m)
{
    PyObject *out = PyTuple_New(4);
    int i;
    if (out == NULL)
        return NULL;
    for (i = 0; i < 4; i++) {
        PyObject *v = mask_to_long(m[i]);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, v);
    }
    return out;
}

/* -- the shown copies' references ---------------------------------------------------------- */

typedef struct {
    Shown *left[4];
    Py_ssize_t nleft[4];
    PyObject *kinds[TRICK_SHOWS_MAX + SHOWS_MAX];
    int nkinds;
} Detached;

/* Take every shown copy out of the engine (which is left with none) into `d`. */
static void detach_shows(Engine *e, Detached *d)
{
    int s, i;
    d->nkinds = 0;
    for (s = 0; s < 4; s++) {
        d->left[s] = e->shown_left[s];
        d->nleft[s] = e->nshown_left[s];
        e->shown_left[s] = NULL;
        e->nshown_left[s] = e->cap_shown_left[s] = 0;
    }
    for (i = 0; i < e->ntrick_shows; i++)
        d->kinds[d->nkinds++] = e->trick_shows[i].kind;
    for (i = 0; i < e->ntaken_shows; i++)
        d->kinds[d->nkinds++] = e->taken_shows[i].kind;
    e->ntrick_shows = e->ntaken_shows = 0;
}

/* Release what detach_shows took (this may run arbitrary code: the engine is consistent). */
static void drop_detached(Detached *d)
{
    int s, i;
    for (i = 0; i < d->nkinds; i++)
        Py_XDECREF(d->kinds[i]);
    for (s = 0; s < 4; s++) {
        Py_ssize_t j;
        for (j = 0; j < d->nleft[s]; j++)
            Py_XDECREF(d->left[s][j].kind);
        PyMem_Free(d->left[s]);
    }
}

/* -- the PairsCore type -------------------------------------------------------------------- */

static PyTypeObject PairsCoreType;

static PyObject *core_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    Engine *e = (Engine *)type->tp_alloc(type, 0);
    (void)args;
    (void)kwds;
    if (e == NULL)
        return NULL;
    e->seat = -1;
    e->nlegal = -1;
    e->unled = LOW;
    return (PyObject *)e;
}

static int core_init(Engine *e, PyObject *args, PyObject *kwds)
{
    PyObject *hands, *history, *tricks, *config = Py_None;
    PyObject *old_history, *old_tricks, *old_config;
    int lock_first, lock_discards, lift_for_hand, pair_beats_unmatched, s;
    Mask masks[4];
    uint64_t ones = 0, twos = 0, over = 0;
    Detached old;
    static char *kwlist[] = {"hands", "lock_first", "lock_discards", "lift_for_hand",
                             "pair_beats_unmatched", "history", "tricks", "config", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OppppO!O!|O:PairsCore", kwlist, &hands,
                                     &lock_first, &lock_discards, &lift_for_hand,
                                     &pair_beats_unmatched, &PyList_Type, &history,
                                     &PyList_Type, &tricks, &config))
        return -1;
    if (read_masks(hands, masks, "hands: expected four two-deck card masks", 1) < 0)
        return -1;
    /* at most two copies of each card in all: count with bitwise adders */
    for (s = 0; s < 8; s++) {
        uint64_t bits = s < 4 ? masks[s].lo : masks[s - 4].hi;
        over |= twos & bits;
        twos |= ones & bits;
        ones ^= bits;
    }
    if (over) {
        PyErr_SetString(PyExc_ValueError, "hands overlap: a card is held more than twice");
        return -1;
    }
    detach_shows(e, &old);
    memcpy(e->hands, masks, sizeof masks);
    memset(e->locked, 0, sizeof e->locked);
    memset(e->taken, 0, sizeof e->taken);
    memset(e->lifted, 0, sizeof e->lifted);
    e->unled = LOW;
    e->played = 0;
    e->forced = 0;
    e->first_of_suit = 0;
    e->trick_leader = 0;
    e->seat = -1;
    e->ntrick = 0;
    e->lock_first = lock_first;
    e->lock_discards = lock_discards;
    e->lift_for_hand = lift_for_hand;
    e->pair_beats_unmatched = pair_beats_unmatched;
    e->nlegal = -1;
    e->version++;
    old_history = e->history;
    old_tricks = e->tricks;
    old_config = e->config;
    Py_INCREF(history);
    e->history = history;
    Py_INCREF(tricks);
    e->tricks = tricks;
    Py_INCREF(config);
    e->config = config;
    Py_XDECREF(old_history);
    Py_XDECREF(old_tricks);
    Py_XDECREF(old_config);
    drop_detached(&old);
    return 0;
}

static int core_traverse(Engine *e, visitproc visit, void *arg)
{
    int s, i;
    Py_VISIT(e->history);
    Py_VISIT(e->tricks);
    Py_VISIT(e->config);
    for (s = 0; s < 4; s++) {
        Py_ssize_t j;
        for (j = 0; j < e->nshown_left[s]; j++)
            Py_VISIT(e->shown_left[s][j].kind);
    }
    for (i = 0; i < e->ntrick_shows; i++)
        Py_VISIT(e->trick_shows[i].kind);
    for (i = 0; i < e->ntaken_shows; i++)
        Py_VISIT(e->taken_shows[i].kind);
    return 0;
}

static int core_clear(Engine *e)
{
    Detached old;
    detach_shows(e, &old);
    Py_CLEAR(e->history);
    Py_CLEAR(e->tricks);
    Py_CLEAR(e->config);
    drop_detached(&old);
    return 0;
}

static void core_dealloc(Engine *e)
{
    PyObject_GC_UnTrack(e);
    core_clear(e);
    Py_TYPE(e)->tp_free((PyObject *)e);
}

static PyObject *core_start(Engine *e, PyObject *args, PyObject *kwds)
{
    PyObject *leader_obj, *forced_obj, *locked_obj, *shows = NULL, *fast = NULL, *v;
    long leader;
    Mask forced, locked[4];
    Shown *parsed = NULL;
    Py_ssize_t n = 0, i, add[4] = {0, 0, 0, 0};
    int s, rc;
    static char *kwlist[] = {"leader", "forced", "locked", "shows", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO|O:start", kwlist, &leader_obj, &forced_obj,
                                     &locked_obj, &shows))
        return NULL;
    if (small_int(leader_obj, 0, 3, &leader, "leader must be 0-3") < 0)
        return NULL;
    v = PyNumber_Index(forced_obj);
    if (v == NULL)
        return NULL;
    rc = long_to_mask(v, &forced);
    Py_DECREF(v);
    if (rc < 0)
        return NULL;
    if (rc || forced.hi || (forced.lo & (forced.lo - 1))) {
        PyErr_SetString(PyExc_ValueError, "forced must be 0 or one card's bit");
        return NULL;
    }
    if (read_masks(locked_obj, locked, "locked: expected four two-deck card masks", 0) < 0)
        return NULL;
    if (shows != NULL) {
        fast = PySequence_Tuple(shows); /* a snapshot: __index__ code may change `shows` */
        if (fast == NULL)
            return NULL;
        n = PyTuple_GET_SIZE(fast);
        parsed = PyMem_New(Shown, n ? n : 1);
        if (parsed == NULL) {
            Py_DECREF(fast);
            return PyErr_NoMemory();
        }
        for (i = 0; i < n; i++) {
            PyObject *item = PyTuple_GET_ITEM(fast, i);
            long seat, index;
            if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 3) {
                PyErr_SetString(PyExc_TypeError,
                                "shows: expected (seat, card_index, kind) tuples");
                goto fail;
            }
            if (small_int(PyTuple_GET_ITEM(item, 0), 0, 3, &seat, "shows: seat must be 0-3") < 0 ||
                small_int(PyTuple_GET_ITEM(item, 1), 0, 51, &index,
                          "shows: card index must be 0-51") < 0)
                goto fail;
            parsed[i].seat = (int)seat;
            parsed[i].index = (int)index;
            parsed[i].kind = PyTuple_GET_ITEM(item, 2); /* borrowed: `fast` holds it */
            add[seat]++;
        }
        /* room first: nothing changes unless everything can */
        for (s = 0; s < 4; s++) {
            Py_ssize_t need = e->nshown_left[s] + add[s];
            if (need > e->cap_shown_left[s]) {
                Py_ssize_t cap = need < 8 ? 8 : need;
                Shown *grown = PyMem_Resize(e->shown_left[s], Shown, cap);
                if (grown == NULL) {
                    PyErr_NoMemory();
                    goto fail;
                }
                e->shown_left[s] = grown;
                e->cap_shown_left[s] = cap;
            }
        }
    }
    e->trick_leader = e->seat = (int)leader;
    e->forced = forced.lo;
    memcpy(e->locked, locked, sizeof locked);
    e->nlegal = -1;
    e->version++;
    for (i = 0; i < n; i++) {
        Shown *slot = &e->shown_left[parsed[i].seat][e->nshown_left[parsed[i].seat]++];
        slot->seat = parsed[i].seat;
        slot->index = parsed[i].index;
        Py_INCREF(parsed[i].kind);
        slot->kind = parsed[i].kind;
    }
    PyMem_Free(parsed);
    Py_XDECREF(fast);
    Py_RETURN_NONE;
fail:
    PyMem_Free(parsed);
    Py_XDECREF(fast);
    return NULL;
}

/* Bitwise counters of the copies in four masks: equal for equal multisets of cards. */
static void copy_counts(const Mask *m, uint64_t *ones, uint64_t *twos, uint64_t *over)
{
    int s, half;
    *ones = *twos = *over = 0;
    for (s = 0; s < 4; s++) {
        for (half = 0; half < 2; half++) {
            uint64_t bits = half ? m[s].hi : m[s].lo;
            *over |= *twos & bits;
            *twos |= *ones & bits;
            *ones ^= bits;
        }
    }
}

/* redeal(hands): each seat holds hands[seat] now; the same copies between the seats and
 * the same count per seat, else ValueError with the engine unchanged. */
static PyObject *core_redeal(Engine *e, PyObject *hands)
{
    Mask masks[4];
    uint64_t o1, t1, v1, o2, t2, v2;
    int s;
    if (read_masks(hands, masks, "hands: expected four two-deck card masks", 1) < 0)
        return NULL;
    copy_counts(masks, &o1, &t1, &v1);
    copy_counts(e->hands, &o2, &t2, &v2);
    if (o1 != o2 || t1 != t2 || v1 != v2) {
        PyErr_SetString(PyExc_ValueError,
                        "redeal: the seats must hold the same cards between them");
        return NULL;
    }
    for (s = 0; s < 4; s++) {
        if (__builtin_popcountll(masks[s].lo) + __builtin_popcountll(masks[s].hi) !=
            __builtin_popcountll(e->hands[s].lo) + __builtin_popcountll(e->hands[s].hi)) {
            PyErr_SetString(PyExc_ValueError, "redeal: each seat must keep its number of cards");
            return NULL;
        }
    }
    memcpy(e->hands, masks, sizeof masks);
    e->nlegal = -1;
    e->version++;
    Py_RETURN_NONE;
}

static PyObject *core_copy(Engine *e, PyObject *args)
{
    PyObject *history, *tricks;
    Engine *new;
    int s, i;
    if (!PyArg_ParseTuple(args, "O!O!:copy", &PyList_Type, &history, &PyList_Type, &tricks))
        return NULL;
    new = (Engine *)Py_TYPE(e)->tp_alloc(Py_TYPE(e), 0);
    if (new == NULL)
        return NULL;
    memcpy((char *)new + offsetof(Engine, hands), (char *)e + offsetof(Engine, hands),
           offsetof(Engine, legal) - offsetof(Engine, hands));
    if (new->nlegal > 0)
        memcpy(new->legal, e->legal, (size_t)new->nlegal * sizeof e->legal[0]);
    for (i = 0; i < new->ntrick_shows; i++)
        Py_XINCREF(new->trick_shows[i].kind);
    for (i = 0; i < new->ntaken_shows; i++)
        Py_XINCREF(new->taken_shows[i].kind);
    Py_INCREF(history);
    new->history = history;
    Py_INCREF(tricks);
    new->tricks = tricks;
    Py_XINCREF(e->config);
    new->config = e->config;
    for (s = 0; s < 4; s++) {
        Py_ssize_t j, n = e->nshown_left[s];
        if (n == 0)
            continue;
        new->shown_left[s] = PyMem_New(Shown, n);
        if (new->shown_left[s] == NULL) {
            Py_DECREF(new);
            return PyErr_NoMemory();
        }
        memcpy(new->shown_left[s], e->shown_left[s], (size_t)n * sizeof(Shown));
        for (j = 0; j < n; j++)
            Py_XINCREF(new->shown_left[s][j].kind);
        new->nshown_left[s] = new->cap_shown_left[s] = n;
    }
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

static int check_lists(Engine *e)
{
    if (e->history == NULL || e->tricks == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "PairsCore.__init__ was not called");
        return -1;
    }
    return 0;
}

static PyObject *core_legal_keys(Engine *e, PyObject *unused)
{
    PyObject *out;
    int i;
    (void)unused;
    if (check_seat(e) < 0)
        return NULL;
    compute_legal(e);
    out = PyList_New(e->nlegal);
    if (out == NULL)
        return NULL;
    for (i = 0; i < e->nlegal; i++) {
        PyObject *key = PyLong_FromLong(e->legal[i]);
        if (key == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, key);
    }
    return out;
}

static PyObject *core_legal(Engine *e, PyObject *unused)
{
    uint16_t keys[LEGAL_MAX];
    PyObject *out;
    int i, n;
    (void)unused;
    if (check_seat(e) < 0)
        return NULL;
    compute_legal(e);
    n = e->nlegal;
    memcpy(keys, e->legal, (size_t)n * sizeof keys[0]); /* get_play may run Python code */
    out = PyTuple_New(n);
    if (out == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        PyObject *play = get_play(keys[i]);
        if (play == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        Py_INCREF(play);
        PyTuple_SET_ITEM(out, i, play);
    }
    return out;
}

static PyObject *core_legal_mask(Engine *e, PyObject *unused)
{
    uint64_t mask = 0;
    int i;
    (void)unused;
    if (check_seat(e) < 0)
        return NULL;
    compute_legal(e);
    for (i = 0; i < e->nlegal; i++) {
        int a, b;
        key_cards(e->legal[i], &a, &b);
        mask |= (1ULL << a) | (1ULL << b);
    }
    return PyLong_FromUnsignedLongLong(mask);
}

static int find_legal(const Engine *e, int key)
{
    int lo = 0, hi = e->nlegal;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (e->legal[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < e->nlegal && e->legal[lo] == key;
}

static PyObject *core_play(Engine *e, PyObject *arg)
{
    PyObject *index, *play;
    long key;
    int overflow;
    if (check_seat(e) < 0)
        return NULL;
    index = PyNumber_Index(arg);
    if (index == NULL)
        return NULL;
    key = PyLong_AsLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (key == -1 && PyErr_Occurred())
        return NULL;
    if (overflow || key < 0 || key >= NKEYS || (key >= 52 && (key - 52) / 52 > (key - 52) % 52))
        return PyLong_FromLong(-2);
    play = get_play((int)key); /* may run Python code: before the checks of the state */
    if (play == NULL)
        return NULL;
    if (check_seat(e) < 0 || check_lists(e) < 0)
        return NULL;
    compute_legal(e);
    if (!find_legal(e, (int)key))
        return PyLong_FromLong(-2);
    if (play_key(e, (int)key, play, 1) < 0)
        return NULL;
    return PyLong_FromLong(e->seat);
}

static PyObject *playout(Engine *e, PyObject *random, int record)
{
    while (e->seat != -1) {
        PyObject *r, *play;
        double x;
        unsigned long version;
        Py_ssize_t n, i;
        int key;
        if (check_seat(e) < 0 || check_lists(e) < 0)
            return NULL;
        compute_legal(e);
        n = e->nlegal;
        version = e->version;
        r = PyObject_CallNoArgs(random);
        if (r == NULL)
            return NULL;
        if (!PyFloat_Check(r)) {
            Py_DECREF(r);
            PyErr_SetString(PyExc_ValueError, "random() must return a float in [0, 1)");
            return NULL;
        }
        x = PyFloat_AS_DOUBLE(r);
        Py_DECREF(r);
        if (!(x >= 0.0 && x < 1.0)) {
            PyErr_SetString(PyExc_ValueError, "random() must return a float in [0, 1)");
            return NULL;
        }
        if (e->version != version || e->nlegal != n) {
            PyErr_SetString(PyExc_RuntimeError, "random() changed the engine during random_playout");
            return NULL;
        }
        i = (Py_ssize_t)(x * (double)n);
        if (i >= n) {
            PyErr_SetString(PyExc_IndexError, "the seat to move has no legal play (it holds no card)");
            return NULL;
        }
        key = e->legal[i];
        play = get_play(key);
        if (play == NULL)
            return NULL;
        if (e->version != version || e->nlegal != n || check_lists(e) < 0) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_RuntimeError,
                                "the engine changed during random_playout");
            return NULL;
        }
        if (play_key(e, key, play, record) < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

/* quiet_playout(random): random_playout, keeping no history or trick list (the bulk
 * path, gongzhu.bulk, reads only the taken cards and the shown copies taken). */
static PyObject *core_quiet_playout(Engine *e, PyObject *random)
{
    return playout(e, random, 0);
}

static PyObject *core_random_playout(Engine *e, PyObject *random)
{
    return playout(e, random, 1);
}

static PyObject *core_shown_taken_raw(Engine *e, PyObject *unused)
{
    PyObject *out = PyList_New(0);
    int s, i;
    (void)unused;
    if (out == NULL)
        return NULL;
    for (s = 0; s < 4; s++) {
        PyObject *seat = PyList_New(0);
        if (seat == NULL || PyList_Append(out, seat) < 0) {
            Py_XDECREF(seat);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(seat);
    }
    for (i = 0; i < e->ntaken_shows; i++) {
        const Shown *shown = &e->taken_shows[i];
        PyObject *item = Py_BuildValue("(iO)", shown->index,
                                       shown->kind ? shown->kind : Py_None);
        if (item == NULL || PyList_Append(PyList_GET_ITEM(out, shown->seat), item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(item);
    }
    return out;
}

/* -- attributes ---------------------------------------------------------------------------- */

static PyObject *get_hands(Engine *e, void *c) { (void)c; return masks_tuple(e->hands); }
static PyObject *get_taken(Engine *e, void *c) { (void)c; return masks_tuple(e->taken); }
static PyObject *get_locked(Engine *e, void *c) { (void)c; return masks_tuple(e->locked); }
static PyObject *get_seat(Engine *e, void *c) { (void)c; return PyLong_FromLong(e->seat); }
static PyObject *get_trick_leader(Engine *e, void *c) { (void)c; return PyLong_FromLong(e->trick_leader); }
static PyObject *get_forced(Engine *e, void *c) { (void)c; return PyLong_FromUnsignedLongLong(e->forced); }
static PyObject *get_unled(Engine *e, void *c) { (void)c; return PyLong_FromUnsignedLongLong(e->unled); }
static PyObject *get_played(Engine *e, void *c) { (void)c; return PyLong_FromUnsignedLongLong(e->played); }
static PyObject *get_first_of_suit(Engine *e, void *c) { (void)c; return PyBool_FromLong(e->first_of_suit); }
static PyObject *get_lock_first(Engine *e, void *c) { (void)c; return PyBool_FromLong(e->lock_first); }
static PyObject *get_lock_discards(Engine *e, void *c) { (void)c; return PyBool_FromLong(e->lock_discards); }
static PyObject *get_lift_for_hand(Engine *e, void *c) { (void)c; return PyBool_FromLong(e->lift_for_hand); }
static PyObject *get_pair_beats_unmatched(Engine *e, void *c) { (void)c; return PyBool_FromLong(e->pair_beats_unmatched); }

static PyObject *or_none(PyObject *o)
{
    if (o == NULL)
        o = Py_None;
    Py_INCREF(o);
    return o;
}

static PyObject *get_config(Engine *e, void *c) { (void)c; return or_none(e->config); }
static PyObject *get_history(Engine *e, void *c) { (void)c; return or_none(e->history); }
static PyObject *get_tricks(Engine *e, void *c) { (void)c; return or_none(e->tricks); }

static PyObject *get_lifted(Engine *e, void *c)
{
    (void)c;
    return Py_BuildValue("(NNNN)", PyBool_FromLong(e->lifted[0]), PyBool_FromLong(e->lifted[1]),
                         PyBool_FromLong(e->lifted[2]), PyBool_FromLong(e->lifted[3]));
}

static PyObject *get_trick(Engine *e, void *c)
{
    PyObject *out = PyList_New(e->ntrick);
    int i;
    (void)c;
    if (out == NULL)
        return NULL;
    for (i = 0; i < e->ntrick; i++) {
        PyObject *key = PyLong_FromLong(e->trick[i]);
        if (key == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, key);
    }
    return out;
}

static PyGetSetDef core_getset[] = {
    {"hands", (getter)get_hands, NULL, "each seat's cards (two-deck masks)", NULL},
    {"taken", (getter)get_taken, NULL, "each seat's taken cards (two-deck masks)", NULL},
    {"locked", (getter)get_locked, NULL, "each seat's locked shown copies (two-deck masks)", NULL},
    {"lifted", (getter)get_lifted, NULL, "per seat, whether the lock is lifted for the hand", NULL},
    {"trick", (getter)get_trick, NULL, "the play keys of the trick under way", NULL},
    {"trick_leader", (getter)get_trick_leader, NULL, "the seat that leads the trick", NULL},
    {"seat", (getter)get_seat, NULL, "the seat to move, or -1 when over", NULL},
    {"forced", (getter)get_forced, NULL, "the card bit the leader must lead, or 0", NULL},
    {"unled", (getter)get_unled, NULL, "the mask of the suits not led yet", NULL},
    {"played", (getter)get_played, NULL, "the cards played so far (first-copy bits)", NULL},
    {"first_of_suit", (getter)get_first_of_suit, NULL,
     "whether the trick under way is the first led in its suit", NULL},
    {"lock_first", (getter)get_lock_first, NULL, "the lock applies to a suit's first trick", NULL},
    {"lock_discards", (getter)get_lock_discards, NULL,
     "the lock forbids discarding a shown copy before its suit is led", NULL},
    {"lift_for_hand", (getter)get_lift_for_hand, NULL,
     "a lock that leaves nothing lifts for the rest of the hand", NULL},
    {"pair_beats_unmatched", (getter)get_pair_beats_unmatched, NULL,
     "after a pair lead, a pair beats two unmatched cards", NULL},
    {"config", (getter)get_config, NULL, "the configuration passed in (not read)", NULL},
    {"history", (getter)get_history, NULL, "the hand's action list", NULL},
    {"tricks", (getter)get_tricks, NULL, "the hand's trick list", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef core_methods[] = {
    {"start", (PyCFunction)(void (*)(void))core_start, METH_VARARGS | METH_KEYWORDS,
     "start(leader, forced, locked, shows=()): begin the first trick; shows: (seat, "
     "card_index, kind) of every shown copy, in the order shown"},
    {"copy", (PyCFunction)core_copy, METH_VARARGS,
     "copy(history, tricks) -> an independent copy appending to the given lists"},
    {"redeal", (PyCFunction)core_redeal, METH_O,
     "redeal(hands): each seat holds hands[seat] now (the same cards between them, the same "
     "count per seat)"},
    {"legal_keys", (PyCFunction)core_legal_keys, METH_NOARGS,
     "the keys of the legal plays, ascending"},
    {"legal", (PyCFunction)core_legal, METH_NOARGS, "the legal plays (tuple), in key order"},
    {"legal_mask", (PyCFunction)core_legal_mask, METH_NOARGS,
     "the cards used by some legal play (first-copy bits)"},
    {"play", (PyCFunction)core_play, METH_O, "play(key) -> next seat, -1 over, -2 illegal"},
    {"quiet_playout", (PyCFunction)core_quiet_playout, METH_O,
     "quiet_playout(random): random_playout without appending to history and tricks"},
    {"random_playout", (PyCFunction)core_random_playout, METH_O,
     "random_playout(random): play to the end, each play the int(random() * n)-th legal key"},
    {"shown_taken_raw", (PyCFunction)core_shown_taken_raw, METH_NOARGS,
     "per seat, the shown copies it took: lists of (card_index, kind)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject PairsCoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gongzhu._pairs.PairsCore",
    .tp_doc = "PairsCore(hands, lock_first, lock_discards, lift_for_hand, pair_beats_unmatched, "
              "history, tricks, config=None)\n\n"
              "The two-deck play engine with pairs in C (see gongzhu.engine_pairs.PairsCore).",
    .tp_basicsize = sizeof(Engine),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = core_new,
    .tp_init = (initproc)core_init,
    .tp_dealloc = (destructor)core_dealloc,
    .tp_traverse = (traverseproc)core_traverse,
    .tp_clear = (inquiry)core_clear,
    .tp_methods = core_methods,
    .tp_getset = core_getset,
};

/* -- two-deck scores (gongzhu.scoring.CompiledScorer.raw_copies) --------------------- */

#define SCORING_CARDS 16 /* the 13 hearts, the pig, the sheep, the transformer */

static PyObject *STR_CARD, *STR_INDEX, *STR_KIND; /* interned attribute names */

/* A record's card index; -1 on error. */
static int record_index(PyObject *record, int *index)
{
    PyObject *card = PyObject_GetAttr(record, STR_CARD), *value;
    long i;
    if (card == NULL)
        return -1;
    value = PyObject_GetAttr(card, STR_INDEX);
    Py_DECREF(card);
    if (value == NULL)
        return -1;
    i = PyLong_AsLong(value);
    Py_DECREF(value);
    if (i == -1 && PyErr_Occurred())
        return -1;
    if (i < 0 || i > 51) {
        PyErr_SetString(PyExc_ValueError, "raw_copies: a card index outside 0-51");
        return -1;
    }
    *index = (int)i;
    return 0;
}

/* A record's show factor (factors: kind -> int); -1 on error, 1 when it is not an int
 * that fits in 64 bits (the caller then leaves the scores to Python). */
static int record_factor(PyObject *record, PyObject *factors, long long *factor)
{
    PyObject *kind = PyObject_GetAttr(record, STR_KIND), *value;
    int overflow = 0;
    if (kind == NULL)
        return -1;
    value = PyObject_GetItem(factors, kind);
    Py_DECREF(kind);
    if (value == NULL)
        return -1;
    if (!PyLong_Check(value)) { /* not an int: the Python reference decides */
        Py_DECREF(value);
        return 1;
    }
    *factor = PyLong_AsLongLongAndOverflow(value, &overflow);
    Py_DECREF(value);
    if (*factor == -1 && PyErr_Occurred())
        return -1;
    return overflow ? 1 : 0;
}

/* sum(factor of each copy of card `index` the seat took): its taken shown copies in
 * order, then 1 each; *count gets the copies.  0, or 1 on overflow. */
static int copy_factors(Mask m, int index, const int *shown_index, const long long *shown_factor,
                        int nshown, long long *out, int *count, long long *each)
{
    int n = (int)(m.lo >> index & 1) + (int)(m.hi >> index & 1), used = 0, i;
    long long total = 0;
    for (i = 0; i < nshown && used < n; i++) {
        if (shown_index[i] == index) {
            each[used++] = shown_factor[i];
            if (__builtin_add_overflow(total, shown_factor[i], &total))
                return 1;
        }
    }
    for (; used < n; used++) {
        each[used] = 1;
        if (__builtin_add_overflow(total, 1, &total))
            return 1;
    }
    *out = total;
    *count = n;
    return 0;
}

#define COPY_SLOTS 104 /* a card's first copy at its index, a second at 52 + index */

/* The slot of a copy bit (1 << index for a first copy, 1 << (52 + index) for a second):
 * 0-103; -1 when `key` is no such bit (Python then decides), -2 on error. */
static int copy_slot(PyObject *key)
{
    int overflow = 0;
    long long bits;
    if (!PyLong_CheckExact(key)) /* (an int subclass could run code while a dict is read) */
        return -1;
    bits = PyLong_AsLongLongAndOverflow(key, &overflow);
    if (bits == -1 && PyErr_Occurred())
        return -2;
    if (overflow) { /* above 2**63: a second copy at 52 + index, with no lower bit */
        unsigned long long low = PyLong_AsUnsignedLongLongMask(key);
        PyObject *shift = PyLong_FromLong(52), *high;
        if (low == (unsigned long long)-1 && PyErr_Occurred())
            return -2;
        if (shift == NULL)
            return -2;
        high = PyNumber_Rshift(key, shift);
        Py_DECREF(shift);
        if (high == NULL)
            return -2;
        bits = PyLong_AsLongLongAndOverflow(high, &overflow);
        Py_DECREF(high);
        if (bits == -1 && PyErr_Occurred())
            return -2;
        if (overflow || bits <= 0 || (bits & (bits - 1)) || bits >= (1LL << 52) ||
            (low & ((1ULL << 52) - 1)))
            return -1;
        return 52 + __builtin_ctzll((unsigned long long)bits);
    }
    if (bits <= 0 || (bits & (bits - 1)))
        return -1;
    return __builtin_ctzll((unsigned long long)bits);
}

/* One seat's per-copy factors from the mask stages (MaskScoring.copy_own or
 * copy_alone: copy bit -> factor, or None) into factors[slot], the others 1.  0; -1 on
 * error; 1 when a key is not a copy bit or a factor not an int that fits in 64 bits
 * (Python then decides). */
static int read_copy_factors(PyObject *map, long long *factors)
{
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    int k;
    for (k = 0; k < COPY_SLOTS; k++)
        factors[k] = 1;
    if (map == Py_None)
        return 0;
    if (!PyDict_Check(map))
        return 1;
    while (PyDict_Next(map, &pos, &key, &value)) { /* runs no Python code */
        int slot = copy_slot(key), overflow = 0;
        long long factor;
        if (slot == -2)
            return -1;
        if (slot < 0 || !PyLong_Check(value))
            return 1;
        factor = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (factor == -1 && PyErr_Occurred())
            return -1;
        if (overflow)
            return 1;
        factors[slot] = factor;
    }
    return 0;
}

/* Whether `map` (a dict or None) holds anything. */
static int non_empty(PyObject *map)
{
    return map != Py_None && (!PyDict_Check(map) || PyDict_GET_SIZE(map) != 0);
}

/* each[copy] *= factors[copy * 52 + index] for the seat's `count` copies of card
 * `index`, and their new sum in *sum.  0, or 1 on overflow. */
static int times_copy_factors(const long long *factors, int index, int count, long long *each,
                              long long *sum)
{
    int copy;
    *sum = 0;
    for (copy = 0; copy < count; copy++) {
        if (__builtin_mul_overflow(each[copy], factors[copy * 52 + index], &each[copy]) ||
            __builtin_add_overflow(*sum, each[copy], sum))
            return 1;
    }
    return 0;
}

/* raw_copies(taken, values, heart, shows, shown_taken, factors, pig, sheep, transformer,
 *            scoring, alone[, own, lone]) -> the four raw scores, or None when a score
 * would not fit in 64 bits (the caller then scores in Python).  The same arithmetic as
 * CompiledScorer.raw_copies (values: the 13 hearts' values, 2 to A; heart: the
 * showable heart's index or -1; pig, sheep, transformer: (index, value) pairs, the
 * transformer's value its multiplier; scoring: the mask of the scoring cards' first
 * copies; alone: the lone transformer's value; own, lone: the mask stages' per-copy
 * factors, MaskScoring.copy_own and copy_alone: four dicts copy bit -> factor, or
 * None). */
static PyObject *raw_copies(PyObject *self, PyObject *args)
{
    PyObject *taken_obj, *values_obj, *shows, *shown_taken, *factors, *fast = NULL, *out;
    PyObject *scoring_obj, *own_obj = Py_None, *lone_obj = Py_None, *copies = NULL;
    long long values[13], hearts_factor = 1, alone, scores[4];
    long long pig_value, sheep_value, multiplier;
    long long own[COPY_SLOTS], lone[COPY_SLOTS];
    int heart, pig, sheep, transformer, s, i, r;
    uint64_t scoring;
    Mask taken[4];
    (void)self;
    if (!PyArg_ParseTuple(args, "OOiOOO(iL)(iL)(iL)OL|OO:raw_copies", &taken_obj, &values_obj,
                          &heart, &shows, &shown_taken, &factors, &pig, &pig_value, &sheep,
                          &sheep_value, &transformer, &multiplier, &scoring_obj, &alone,
                          &own_obj, &lone_obj))
        return NULL;
    if (pig < 0 || pig > 51 || sheep < 0 || sheep > 51 || transformer < 0 || transformer > 51 ||
        heart > 51) {
        PyErr_SetString(PyExc_ValueError, "raw_copies: a card index outside 0-51");
        return NULL;
    }
    if (read_masks(taken_obj, taken, "taken: expected four two-deck card masks", 0) < 0)
        return NULL;
    scoring = PyLong_AsUnsignedLongLong(scoring_obj);
    if (scoring == (uint64_t)-1 && PyErr_Occurred())
        return NULL;
    fast = PySequence_Tuple(values_obj); /* snapshots: reading may run Python code */
    if (fast == NULL)
        return NULL;
    if (PyTuple_GET_SIZE(fast) != 13) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "values: expected 13 ints");
        return NULL;
    }
    for (i = 0; i < 13; i++) {
        int overflow = 0;
        PyObject *value = PyTuple_GET_ITEM(fast, i);
        if (!PyLong_Check(value)) { /* not an int: the Python reference decides */
            Py_DECREF(fast);
            Py_RETURN_NONE;
        }
        values[i] = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (values[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return NULL;
        }
        if (overflow || values[i] > (1LL << 40) || values[i] < -(1LL << 40)) {
            Py_DECREF(fast);
            Py_RETURN_NONE; /* 26 such values cannot overflow a sum: larger ones, Python */
        }
    }
    Py_DECREF(fast);
    fast = PySequence_Tuple(shows);
    if (fast == NULL)
        return NULL;
    for (i = 0; i < PyTuple_GET_SIZE(fast); i++) {
        PyObject *record = PyTuple_GET_ITEM(fast, i);
        int index;
        long long factor;
        if (record_index(record, &index) < 0) {
            Py_DECREF(fast);
            return NULL;
        }
        if (index != heart)
            continue;
        r = record_factor(record, factors, &factor);
        if (r < 0) {
            Py_DECREF(fast);
            return NULL;
        }
        if (r || __builtin_mul_overflow(hearts_factor, factor, &hearts_factor)) {
            Py_DECREF(fast);
            Py_RETURN_NONE;
        }
    }
    Py_DECREF(fast);
    fast = PySequence_Tuple(shown_taken);
    if (fast == NULL)
        return NULL;
    if (PyTuple_GET_SIZE(fast) != 4) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "shown_taken: expected four sequences of records");
        return NULL;
    }
    if (own_obj != Py_None || lone_obj != Py_None) { /* copies: own[0-3], lone[0-3] */
        copies = PyTuple_New(8);
        if (copies == NULL) {
            Py_DECREF(fast);
            return NULL;
        }
        for (i = 0; i < 2; i++) {
            PyObject *given = i ? lone_obj : own_obj, *seats;
            if (given == Py_None) {
                for (s = 0; s < 4; s++) {
                    Py_INCREF(Py_None);
                    PyTuple_SET_ITEM(copies, 4 * i + s, Py_None);
                }
                continue;
            }
            seats = PySequence_Tuple(given);
            if (seats == NULL || PyTuple_GET_SIZE(seats) != 4) {
                if (seats != NULL)
                    PyErr_SetString(PyExc_ValueError, "copy factors: expected four mappings");
                Py_XDECREF(seats);
                Py_DECREF(copies);
                Py_DECREF(fast);
                return NULL;
            }
            for (s = 0; s < 4; s++) {
                PyObject *map = PyTuple_GET_ITEM(seats, s);
                Py_INCREF(map);
                PyTuple_SET_ITEM(copies, 4 * i + s, map);
            }
            Py_DECREF(seats);
        }
    }
    for (s = 0; s < 4; s++) {
        Mask m = {taken[s].lo & scoring, taken[s].hi & scoring};
        PyObject *records = PySequence_Tuple(PyTuple_GET_ITEM(fast, s));
        int nshown, shown_index[32], count, by_copy = 0;
        long long shown_factor[32], total = 0, sum, each[2];
        uint64_t first, second;
        if (records == NULL) {
            Py_XDECREF(copies);
            Py_DECREF(fast);
            return NULL;
        }
        if (copies != NULL && (non_empty(PyTuple_GET_ITEM(copies, s)) ||
                               non_empty(PyTuple_GET_ITEM(copies, 4 + s)))) {
            r = read_copy_factors(PyTuple_GET_ITEM(copies, s), own);
            if (r == 0)
                r = read_copy_factors(PyTuple_GET_ITEM(copies, 4 + s), lone);
            if (r < 0) {
                Py_DECREF(records);
                Py_DECREF(copies);
                Py_DECREF(fast);
                return NULL;
            }
            if (r) {
                Py_DECREF(records);
                Py_DECREF(copies);
                Py_DECREF(fast);
                Py_RETURN_NONE;
            }
            by_copy = 1;
        }
        nshown = (int)PyTuple_GET_SIZE(records);
        if (nshown > 32) {
            Py_DECREF(records);
            Py_XDECREF(copies);
            Py_DECREF(fast);
            Py_RETURN_NONE; /* more shown copies than two decks hold: Python decides */
        }
        for (i = 0; i < nshown; i++) {
            PyObject *record = PyTuple_GET_ITEM(records, i);
            if (record_index(record, &shown_index[i]) < 0 ||
                (r = record_factor(record, factors, &shown_factor[i])) < 0) {
                Py_DECREF(records);
                Py_XDECREF(copies);
                Py_DECREF(fast);
                return NULL;
            }
            if (r) {
                Py_DECREF(records);
                Py_XDECREF(copies);
                Py_DECREF(fast);
                Py_RETURN_NONE;
            }
        }
        Py_DECREF(records);
        scores[s] = 0;
        if (!(m.lo | m.hi))
            continue;
        first = m.lo >> 13 & 0x1FFF;
        second = m.hi >> 13 & 0x1FFF;
        for (r = 0; r < 13; r++) {
            long long v = values[r] * (long long)((first >> r & 1) + (second >> r & 1));
            total += v; /* |values| <= 2**40: no overflow */
        }
        if (by_copy) { /* a heart copy's own factor, before 满红 turns the sign */
            int slot;
            for (slot = 0; slot < COPY_SLOTS; slot++) {
                int index = slot % 52;
                long long extra;
                uint64_t held = slot < 52 ? m.lo : m.hi;
                if (own[slot] == 1 || index < 13 || index > 25 || !(held >> index & 1))
                    continue;
                if (__builtin_sub_overflow(own[slot], 1, &extra) ||
                    __builtin_mul_overflow(values[index - 13], extra, &extra) ||
                    __builtin_add_overflow(total, extra, &total))
                    goto overflow;
            }
        }
        if (__builtin_mul_overflow(total, hearts_factor, &total))
            goto overflow;
        if (first == 0x1FFF && second == 0x1FFF && __builtin_sub_overflow(0, total, &total))
            goto overflow;
        if (copy_factors(m, pig, shown_index, shown_factor, nshown, &sum, &count, each) ||
            (by_copy && times_copy_factors(own, pig, count, each, &sum)))
            goto overflow;
        if (count) {
            long long value;
            if (__builtin_mul_overflow(pig_value, sum, &value))
                goto overflow;
            if (m.lo == scoring && m.hi == scoring && __builtin_sub_overflow(0, value, &value))
                goto overflow;
            if (__builtin_add_overflow(total, value, &total))
                goto overflow;
        }
        if (copy_factors(m, sheep, shown_index, shown_factor, nshown, &sum, &count, each) ||
            (by_copy && times_copy_factors(own, sheep, count, each, &sum)))
            goto overflow;
        if (count) {
            long long value;
            if (__builtin_mul_overflow(sheep_value, sum, &value) ||
                __builtin_add_overflow(total, value, &total))
                goto overflow;
        }
        if (copy_factors(m, transformer, shown_index, shown_factor, nshown, &sum, &count, each) ||
            (by_copy && times_copy_factors(own, transformer, count, each, &sum)))
            goto overflow;
        if (count) {
            uint64_t both = 1ULL << transformer;
            if ((m.lo & ~both) | (m.hi & ~both)) {
                for (i = 0; i < count; i++) {
                    long long step;
                    if (__builtin_mul_overflow(multiplier, each[i], &step) ||
                        __builtin_mul_overflow(total, step, &total))
                        goto overflow;
                }
            } else {
                total = 0;
                for (i = 0; i < count; i++) {
                    long long step;
                    if (__builtin_mul_overflow(alone, each[i], &step) ||
                        (by_copy &&
                         __builtin_mul_overflow(step, lone[i * 52 + transformer], &step)) ||
                        __builtin_add_overflow(total, step, &total))
                        goto overflow;
                }
            }
        }
        scores[s] = total;
        continue;
    overflow:
        Py_XDECREF(copies);
        Py_DECREF(fast);
        Py_RETURN_NONE;
    }
    Py_XDECREF(copies);
    Py_DECREF(fast);
    out = PyTuple_New(4);
    if (out == NULL)
        return NULL;
    for (s = 0; s < 4; s++) {
        PyObject *v = PyLong_FromLongLong(scores[s]);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, s, v);
    }
    return out;
}

static PyMethodDef module_methods[] = {
    {"raw_copies", raw_copies, METH_VARARGS,
     "raw_copies(...): two-deck raw scores (see gongzhu.scoring.CompiledScorer.raw_copies)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "gongzhu._pairs",
    .m_doc = "Optional C accelerator: the two-deck play engine with pairs "
             "(see gongzhu.engine_pairs).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__pairs(void)
{
    PyObject *m;
    if (PyType_Ready(&PairsCoreType) < 0)
        return NULL;
    STR_CARD = PyUnicode_InternFromString("card");
    STR_INDEX = PyUnicode_InternFromString("index");
    STR_KIND = PyUnicode_InternFromString("kind");
    if (STR_CARD == NULL || STR_INDEX == NULL || STR_KIND == NULL)
        return NULL;
    m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&PairsCoreType);
    if (PyModule_AddObject(m, "PairsCore", (PyObject *)&PairsCoreType) < 0) {
        Py_DECREF(&PairsCoreType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
