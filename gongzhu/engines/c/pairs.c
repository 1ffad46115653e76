/* PairsEngine: a two-deck hand with pairs, the C twin of gongzhu/engines/pairs.py.
 *
 * The same cascade in the same order (the lead and follow rules, the pair-following steps,
 * the shown-card lock with its "only card of its suit" exemption, the plug-ins' play rules),
 * the same legal keys in the same ascending order, the same copy policy (a seat holding a
 * shown and an unshown copy of a card plays the unshown one first), the same use of the
 * random stream (one draw per decision), the same trick resolution. */
#include "engine.h"

#define MAX_TRICKS 26
#define LEGAL_MAX GZ_LEGAL_MAX
#define SHOWN_MAX (2 * MAX_SHOWABLE) /* shown copies in a hand */
#define TRICK_SHOWS_MAX 8

typedef ShowRec Shown; /* the seat that showed the copy, the card, the show kind's code */

typedef struct {
    GZHead h; /* the tables, the show phases, the version; then the play's plain state */
    Mask hands[4], taken[4];
    int lifted[4];
    uint64_t unled, played;
    int first_of_suit, trick_leader;
    int trick[4], ntrick;
    int nleft[4];
    Shown left[4][SHOWN_MAX]; /* per seat, its shown copies not played yet, in the order shown */
    int ntrick_shows;
    Shown trick_shows[TRICK_SHOWS_MAX]; /* the shown copies played in the trick under way */
    int ntaken[4];
    Shown taken_shows[4][SHOWN_MAX]; /* per seat, the shown copies it took, in order */
    int ntricks, log_leader[MAX_TRICKS], log_keys[4 * MAX_TRICKS], log_winner[MAX_TRICKS];
    unsigned long legal_version; /* the version `legal` was found at (0: none yet) */
    int nlegal;
    uint16_t legal[LEGAL_MAX]; /* the legal keys, ascending */
} Engine;

static inline int key_cards(int key, int *a, int *b)
{
    *a = KEY_FIRST(key);
    *b = KEY_SECOND(key);
    return key < ONE_CARD_KEYS ? 1 : 2;
}

static inline int key_first(int key)
{
    return KEY_FIRST(key);
}

static inline int valid_key(long key)
{
    return key >= 0 && key < NKEYS && KEY_FIRST(key) <= KEY_SECOND(key);
}

static inline uint64_t suit_both(Mask m, int suit)
{
    return (m.lo | m.hi) & GZ_SUIT[suit];
}

static void start_play(GZHead *h)
{
    Engine *e = (Engine *)h;
    const Tables *t = e->h.tables;
    int i;
    e->trick_leader = e->h.s.seat = e->h.s.leader;
    for (i = 0; i < e->h.s.nlog; i++) {
        const ShowEntry *entry = &e->h.s.log[i];
        const Choice *choice = &t->choices[entry->id];
        uint64_t m;
        for (m = choice->copies.lo; m; m &= m - 1) { /* card order, a card shown twice twice */
            int index = __builtin_ctzll(m), copies = 1 + (int)((choice->copies.hi >> index) & 1);
            while (copies-- > 0 && e->nleft[entry->seat] < SHOWN_MAX) {
                Shown *slot = &e->left[entry->seat][e->nleft[entry->seat]++];
                slot->seat = entry->seat;
                slot->index = index;
                slot->kind = choice->kind;
            }
        }
    }
    e->h.version++;
}

/* -- legality: one cascade decides and explains ----------------------------------------------- */

typedef struct {
    int code, detail; /* the rule that refused `why` (code 0: none) */
} Why;

static int contains(const uint16_t *keys, int n, int key)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && keys[lo] == key;
}

/* The plays the lead and follow rules allow, ascending, into out; their number.  *code and
 * *detail get the step's refusal of `why` when it is not among them. */
static int candidates(const Engine *e, Mask hand, uint16_t *out, int why, Why *refused)
{
    int n = 0, led, lead, step;
    uint64_t m;
    Mask suited;
    if (e->ntrick == 0) {
        if (e->h.s.forced && (hand.lo & e->h.s.forced)) {
            int index = __builtin_ctzll(e->h.s.forced);
            out[n++] = (uint16_t)index;
            if (hand.hi & e->h.s.forced)
                out[n++] = (uint16_t)PAIR_KEY(index);
            if (why >= 0 && !contains(out, n, why)) {
                refused->code = CODE_OPENING_LEAD;
                refused->detail = index;
            }
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
    suited.lo = hand.lo & GZ_SUIT[led];
    suited.hi = hand.hi & GZ_SUIT[led];
    if (lead < ONE_CARD_KEYS) {
        for (m = (suited.lo | suited.hi) ? suited.lo : hand.lo; m; m &= m - 1)
            out[n++] = (uint16_t)__builtin_ctzll(m);
        if (why >= 0 && !contains(out, n, why)) {
            refused->code = CODE_FOLLOW_SUIT;
            refused->detail = led;
        }
        return n;
    }
    if (suited.hi) { /* 1. a pair of the led suit */
        step = 0;
        for (m = suited.hi; m; m &= m - 1)
            out[n++] = (uint16_t)PAIR_KEY(__builtin_ctzll(m));
    } else if (__builtin_popcountll(suited.lo) >= 2) { /* 2. two cards of the led suit */
        uint64_t a, b;
        step = 1;
        for (a = suited.lo; a; a &= a - 1)
            for (b = a & (a - 1); b; b &= b - 1)
                out[n++] = (uint16_t)TWO_KEY(__builtin_ctzll(a), __builtin_ctzll(b));
    } else if (suited.lo) { /* 3. the one card of the led suit and any other card */
        int single = __builtin_ctzll(suited.lo);
        Mask rest = hand;
        step = 2;
        remove_copy(&rest, single);
        /* ascending others give ascending keys: 52 + 52o + s < 52 + 53s < 52 + 52s + o' */
        for (m = rest.lo; m; m &= m - 1) {
            int other = __builtin_ctzll(m);
            out[n++] = (uint16_t)(other <= single ? TWO_KEY(other, single)
                                                  : TWO_KEY(single, other));
        }
    } else { /* 4. any two cards: for each first card a, its pair, then a with each higher */
        step = 3;
        for (m = hand.lo; m; m &= m - 1) {
            int a = __builtin_ctzll(m);
            uint64_t b;
            if ((hand.hi >> a) & 1)
                out[n++] = (uint16_t)PAIR_KEY(a);
            for (b = m & (m - 1); b; b &= b - 1)
                out[n++] = (uint16_t)TWO_KEY(a, __builtin_ctzll(b));
        }
    }
    if (why >= 0 && !contains(out, n, why)) {
        refused->code = CODE_PAIR_FOLLOW;
        refused->detail = led * 4 + step;
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
    unled = (e->unled & GZ_SUIT[suit]) != 0;
    if (e->ntrick == 0 || suit == led) {
        int applies = e->h.tables->lock_first && (e->ntrick == 0 ? unled : e->first_of_suit);
        /* exempt: the shown copy is the holder's only card of its suit (copies count) */
        return applies && __builtin_popcountll(hand.lo & GZ_SUIT[suit]) +
                                  __builtin_popcountll(hand.hi & GZ_SUIT[suit]) >
                              1;
    }
    return e->h.tables->lock_discards && unled;
}

/* The cards (first-copy bits) of plays `keys`. */
static uint64_t cards_of_keys(const uint16_t *keys, int n)
{
    uint64_t mask = 0;
    int i;
    for (i = 0; i < n; i++) {
        int a, b;
        key_cards(keys[i], &a, &b);
        mask |= (1ULL << a) | (1ULL << b);
    }
    return mask;
}

static int uses(int key, uint64_t cards)
{
    int a, b;
    key_cards(key, &a, &b);
    return (int)((cards >> a) & 1) | (int)((cards >> b) & 1);
}

/* The plug-ins' rules, each narrowing the plays, asked only where they can matter; one that
 * would leave nothing lifts.  0, or -1 with an exception. */
static int apply_rules(Engine *e, Mask hand, uint16_t *keys, int *n, int why, Why *out)
{
    const Tables *t = e->h.tables;
    unsigned long version = e->h.version;
    int r, moment;
    if (e->ntrick == 0)
        moment = t->moment_lead;
    else
        moment = suit_both(hand, key_first(e->trick[0]) / 13) ? t->moment_follow
                                                                : t->moment_discard;
    for (r = 0; r < t->nrules; r++) {
        const Rule *rule = &t->rules[r];
        uint64_t allowed, answer;
        uint16_t kept[LEGAL_MAX];
        int nkept = 0, i, rc = 0;
        PyObject *situation;
        if (!(moment & rule->when))
            continue;
        allowed = cards_of_keys(keys, *n);
        if (!(allowed & rule->cards))
            continue;
        situation = gz_situation(t, e->h.s.seat, hand, e->trick, e->ntrick, e->played, e->unled,
                                 allowed);
        if (situation == NULL)
            return -1;
        memcpy(kept, keys, (size_t)*n * sizeof keys[0]);
        nkept = *n;
        if (rule->refuse != NULL) {
            rc = gz_rule_answer(rule, rule->refuse, situation, &answer);
            if (rc == 0 && (answer &= allowed)) {
                int m = 0;
                for (i = 0; i < nkept; i++)
                    if (!uses(kept[i], answer))
                        kept[m++] = kept[i];
                nkept = m;
            }
        }
        if (rc == 0 && nkept && rule->require != NULL) {
            rc = gz_rule_answer(rule, rule->require, situation, &answer);
            if (rc == 0) {
                int m = 0;
                answer &= allowed;
                for (i = 0; i < nkept; i++)
                    if (uses(kept[i], answer))
                        m++;
                if (m) {
                    m = 0;
                    for (i = 0; i < nkept; i++)
                        if (uses(kept[i], answer))
                            kept[m++] = kept[i];
                    nkept = m;
                }
            }
        }
        Py_DECREF(situation);
        if (rc < 0)
            return -1;
        if (e->h.version != version || e->h.tables != t) {
            PyErr_SetString(PyExc_RuntimeError, "a play rule changed the engine asking it");
            return -1;
        }
        if (nkept && nkept != *n) {
            if (why >= 0 && !contains(kept, nkept, why)) {
                out->code = CODE_PLAY_RULE;
                out->detail = r;
                return 0;
            }
            memcpy(keys, kept, (size_t)nkept * sizeof kept[0]);
            *n = nkept;
        }
    }
    return 0;
}

/* The rule that refuses play `why` for its shape or for cards the seat lacks (code 0: none). */
static void check_shape(const Engine *e, Mask hand, int why, Why *out)
{
    int a, b, n = key_cards(why, &a, &b);
    if ((n == 2 && a == b && copies_in(hand, a) < 2) || !copies_in(hand, a) ||
        (n == 2 && !copies_in(hand, b))) {
        out->code = CODE_HOLDING;
        return;
    }
    if (e->ntrick == 0) {
        if (n == 2 && a != b) {
            out->code = CODE_SHAPE;
            out->detail = SHAPE_LEAD;
        }
    } else if (n != (e->trick[0] >= ONE_CARD_KEYS ? 2 : 1)) {
        out->code = CODE_SHAPE;
        out->detail = e->trick[0] >= ONE_CARD_KEYS ? SHAPE_PAIR : SHAPE_SINGLE;
    }
}

/* The legal keys of the seat to act into keys and *n (why < 0), or the rule that refuses play
 * `why` into *out (code 0 when it is legal).  0, or -1 with an exception (a play rule's). */
static int cascade(Engine *e, int why, uint16_t *keys, int *n, Why *out)
{
    int seat = e->h.s.seat;
    Mask hand = e->hands[seat], locked = {0, 0};
    out->code = out->detail = 0;
    if (why >= 0) {
        check_shape(e, hand, why, out);
        if (out->code)
            return 0;
    }
    *n = candidates(e, hand, keys, why, out);
    if (out->code)
        return 0;
    if (!e->lifted[seat]) {
        locked.lo = e->h.s.locked[seat].lo & hand.lo;
        locked.hi = e->h.s.locked[seat].hi & hand.hi;
    }
    if (locked.lo | locked.hi) {
        uint16_t allowed[LEGAL_MAX];
        int i, kept = 0, led = e->ntrick ? key_first(e->trick[0]) / 13 : -1;
        for (i = 0; i < *n; i++) {
            int key = keys[i], a, b, blocked = 0;
            key_cards(key, &a, &b);
            if (((locked.lo >> a) & 1) || ((locked.lo >> b) & 1)) {
                if (a == b && key >= ONE_CARD_KEYS)
                    blocked = blocked_card(e, a, 2, hand, locked, led);
                else
                    blocked = blocked_card(e, a, 1, hand, locked, led) ||
                              (a != b && blocked_card(e, b, 1, hand, locked, led));
            }
            if (!blocked)
                allowed[kept++] = (uint16_t)key;
        }
        if (kept) {
            if (why >= 0 && !contains(allowed, kept, why)) {
                out->code = CODE_LOCK;
                out->detail = LOCK_COPIES;
                return 0;
            }
            memcpy(keys, allowed, (size_t)kept * sizeof allowed[0]);
            *n = kept;
        } else if (e->h.tables->lift_for_hand && why < 0) { /* the lock leaves nothing: it lifts */
            e->lifted[seat] = 1;
        }
    }
    if (e->h.tables->nrules)
        return apply_rules(e, hand, keys, n, why, out);
    return 0;
}

/* The legal keys of the seat to act, found once per state, into e->legal. */
static int compute_legal(Engine *e)
{
    Why unused;
    if (e->legal_version != e->h.version) {
        /* found in a buffer of its own: a play rule the cascade asks may read the engine's
         * legal keys (and fill the cache) before the cascade is done */
        uint16_t keys[LEGAL_MAX];
        unsigned long version = e->h.version;
        int n;
        if (cascade(e, -1, keys, &n, &unused) < 0)
            return -1;
        memcpy(e->legal, keys, (size_t)n * sizeof keys[0]);
        e->nlegal = n;
        e->legal_version = version;
    }
    return 0;
}

/* -- playing ----------------------------------------------------------------------------------- */

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
    return ((a == b) == e->h.tables->pair_beats_unmatched) * 16 + top;
}

static void finish_trick(Engine *e)
{
    int led = key_first(e->trick[0]) / 13, pair_lead = e->trick[0] >= ONE_CARD_KEYS, best = -1;
    int position = 0, i, winner, n = e->ntricks;
    Mask *taken;
    for (i = 0; i < 4; i++) {
        int rank = rank_of(e, e->trick[i], led, pair_lead);
        if (rank > best) {
            best = rank;
            position = i;
        }
    }
    winner = (e->trick_leader + position) & 3;
    taken = &e->taken[winner];
    for (i = 0; i < 4; i++) {
        int a, b, k = key_cards(e->trick[i], &a, &b);
        add_copy(taken, a);
        if (k == 2)
            add_copy(taken, b);
    }
    for (i = 0; i < e->ntrick_shows; i++)
        if (e->ntaken[winner] < SHOWN_MAX)
            e->taken_shows[winner][e->ntaken[winner]++] = e->trick_shows[i];
    e->ntrick_shows = 0;
    if (n < MAX_TRICKS) { /* always: 26 tricks a hand */
        e->log_leader[n] = e->trick_leader;
        memcpy(e->log_keys + 4 * n, e->trick, sizeof e->trick);
        e->log_winner[n] = winner;
        e->ntricks = n + 1;
    }
    e->ntrick = 0;
    e->trick_leader = winner;
    if (e->hands[winner].lo | e->hands[winner].hi) {
        e->h.s.seat = winner;
    } else {
        e->h.s.phase = PHASE_OVER;
        e->h.s.seat = OVER;
    }
}

/* Play the legal key `key` for the seat to act. */
static void play_key(Engine *e, int key)
{
    int seat = e->h.s.seat, a, b, ncards, c;
    Mask hand;
    e->h.version++;
    ncards = key_cards(key, &a, &b);
    if (e->ntrick == 0) {
        uint64_t suit_mask = GZ_SUIT[a / 13];
        e->first_of_suit = (e->unled & suit_mask) != 0;
        e->unled &= ~suit_mask;
        e->h.s.forced = 0;
    }
    hand = e->hands[seat];
    for (c = 0; c < ncards; c++) {
        int index = c ? b : a, nleft = e->nleft[seat];
        if (nleft) {
            Shown *left = e->left[seat];
            int i, first = -1, count = 0;
            for (i = 0; i < nleft; i++) {
                if (left[i].index == index) {
                    if (first < 0)
                        first = i;
                    count++;
                }
            }
            /* only shown copies left: one goes (an unshown copy is played first) */
            if (count && copies_in(hand, index) <= count && e->ntrick_shows < TRICK_SHOWS_MAX) {
                e->trick_shows[e->ntrick_shows++] = left[first];
                memmove(left + first, left + first + 1, (size_t)(nleft - first - 1) * sizeof *left);
                e->nleft[seat] = nleft - 1;
                if (copies_in(e->h.s.locked[seat], index))
                    remove_copy(&e->h.s.locked[seat], index);
            }
        }
        remove_copy(&hand, index);
        e->played |= 1ULL << index;
    }
    e->hands[seat] = hand;
    e->trick[e->ntrick++] = key;
    if (e->ntrick == 4)
        finish_trick(e);
    else
        e->h.s.seat = (seat + 1) & 3;
}

/* -- the steps the batch takes (GZEngineOps) ---------------------------------------------- */

static int ops_legal_keys(GZHead *h, int *keys)
{
    Engine *e = (Engine *)h;
    int i;
    if (compute_legal(e) < 0)
        return -1;
    for (i = 0; i < e->nlegal; i++)
        keys[i] = e->legal[i];
    return e->nlegal;
}

static void ops_play_key(GZHead *h, int key) { play_key((Engine *)h, key); }

static void ops_read(const GZHead *h, GZPlayView *v)
{
    const Engine *e = (const Engine *)h;
    memcpy(v->hands, e->hands, sizeof v->hands);
    memcpy(v->taken, e->taken, sizeof v->taken);
    v->ntricks = e->ntricks;
    v->log_leader = e->log_leader;
    v->log_keys = e->log_keys;
    v->log_winner = e->log_winner;
    v->log_taker = NULL; /* two decks: no penalty, the winner takes */
    v->ntrick = e->ntrick;
    v->trick_leader = e->trick_leader;
    v->trick = e->trick;
}

static const GZEngineOps engine_ops = {start_play, ops_legal_keys, ops_play_key, ops_read};

/* -- the type --------------------------------------------------------------------------------- */

/* PairsEngine(tables, holdings, leader, forced, first_seat, first_cards) */
static int engine_init(Engine *e, PyObject *args, PyObject *kwds)
{
    PyObject *tables, *holdings, *leader, *forced, *first_seat, *first_cards;
    Mask masks[4];
    ShowState start;
    uint64_t ones = 0, twos = 0, over = 0;
    int s, size;
    static char *kwlist[] = {"tables", "holdings", "leader", "forced", "first_seat",
                             "first_cards", NULL};
    memset(&start, 0, sizeof start);
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOO:PairsEngine", kwlist, &tables,
                                     &holdings, &leader, &forced, &first_seat, &first_cards))
        return -1;
    if (!PyObject_TypeCheck(tables, &GZ_TablesType) || !((Tables *)tables)->ready) {
        PyErr_SetString(PyExc_TypeError, "the engine's first argument is a made Tables");
        return -1;
    }
    if (((Tables *)tables)->copies != 2) {
        PyErr_SetString(PyExc_ValueError, "PairsEngine plays two decks: these Tables have one");
        return -1;
    }
    if (gz_read_masks(holdings, masks, "holdings: expected four two-deck card masks", MASK_TWO_DECKS) < 0)
        return -1;
    size = mask_count(masks[0]);
    for (s = 0; s < 4; s++) {
        if (mask_count(masks[s]) != size) {
            PyErr_SetString(PyExc_ValueError,
                            "holdings: expected four two-deck card masks of as many cards");
            return -1;
        }
    }
    /* at most two copies of each card in all: count with bitwise adders */
    for (s = 0; s < 8; s++) {
        uint64_t bits = s < 4 ? masks[s].lo : masks[s - 4].hi;
        over |= twos & bits;
        twos |= ones & bits;
        ones ^= bits;
    }
    if (over) {
        PyErr_SetString(PyExc_ValueError, "holdings overlap: a card is held more than twice");
        return -1;
    }
    if (gz_read_start(leader, forced, first_seat, first_cards, &start) < 0)
        return -1;
    /* everything is read: set the engine up in one go */
    gz_engine_begin(&e->h, tables, sizeof(Engine), &start, masks, &engine_ops);
    memcpy(e->hands, masks, sizeof masks);
    e->unled = ALL_CARDS;
    e->trick_leader = start.leader;
    return 0;
}

static PyObject *engine_legal_keys(Engine *e, PyObject *unused)
{
    (void)unused;
    if (e->h.s.phase != PHASE_PLAY) {
        PyErr_SetString(PyExc_ValueError, "legal_keys: not in the play phase");
        return NULL;
    }
    if (compute_legal(e) < 0)
        return NULL;
    {
        PyObject *out = PyList_New(e->nlegal);
        int i;
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
}

static PyObject *engine_legal(Engine *e, PyObject *unused)
{
    uint16_t keys[LEGAL_MAX];
    PyObject *out;
    int i, n;
    (void)unused;
    if (e->h.s.phase == PHASE_OVER)
        return PyTuple_New(0);
    if (e->h.s.phase != PHASE_PLAY)
        return gz_show_legal(e->h.tables, &e->h.s);
    if (compute_legal(e) < 0)
        return NULL;
    n = e->nlegal;
    memcpy(keys, e->legal, (size_t)n * sizeof keys[0]); /* gz_play may run Python code */
    out = PyTuple_New(n);
    if (out == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        PyObject *play = gz_play(keys[i]);
        if (play == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        Py_INCREF(play);
        PyTuple_SET_ITEM(out, i, play);
    }
    return out;
}

static PyObject *engine_legal_mask(Engine *e, PyObject *unused)
{
    (void)unused;
    if (e->h.s.phase != PHASE_PLAY) {
        PyErr_SetString(PyExc_ValueError, "legal_mask: not in the play phase");
        return NULL;
    }
    if (compute_legal(e) < 0)
        return NULL;
    return PyLong_FromUnsignedLongLong(cards_of_keys(e->legal, e->nlegal));
}

/* play(key) -> the next seat, -1 after the last play, -2 (nothing changes) when it is not a
 * legal play's key (or not an int, or the hand is not in its play phase). */
static PyObject *engine_play(Engine *e, PyObject *arg)
{
    long key;
    int overflow;
    unsigned long version;
    if (e->h.s.phase != PHASE_PLAY || !PyLong_CheckExact(arg))
        return PyLong_FromLong(ILLEGAL);
    key = PyLong_AsLongAndOverflow(arg, &overflow);
    if (overflow || !valid_key(key))
        return PyLong_FromLong(ILLEGAL);
    if (gz_play((int)key) == NULL) /* may run Python code: before the state is read */
        return NULL;
    if (e->h.s.phase != PHASE_PLAY)
        return PyLong_FromLong(ILLEGAL);
    version = e->h.version;
    if (compute_legal(e) < 0)
        return NULL;
    if (e->h.version != version || !contains(e->legal, e->nlegal, (int)key))
        return PyLong_FromLong(ILLEGAL);
    play_key(e, (int)key);
    return PyLong_FromLong(e->h.s.seat);
}

/* refusal(key) -> (code, detail) or None: see gongzhu.play.explain_refusal. */
static PyObject *engine_refusal(Engine *e, PyObject *arg)
{
    long key;
    int overflow, n;
    uint16_t keys[LEGAL_MAX];
    Why why;
    if (e->h.s.phase != PHASE_PLAY)
        return Py_BuildValue("(ii)", CODE_HOLDING, OVER_DETAIL);
    if (!PyLong_CheckExact(arg))
        return Py_BuildValue("(ii)", CODE_SHAPE, SHAPE_ANY);
    key = PyLong_AsLongAndOverflow(arg, &overflow);
    if (overflow || !valid_key(key))
        return Py_BuildValue("(ii)", CODE_SHAPE, SHAPE_ANY);
    if (cascade(e, (int)key, keys, &n, &why) < 0)
        return NULL;
    if (!why.code)
        Py_RETURN_NONE;
    return Py_BuildValue("(ii)", why.code, why.detail);
}

/* random_playout(random): play to the end from any phase, one draw per decision. */
static int playout(GZHead *h, PyObject *random)
{
    Engine *e = (Engine *)h;
    if (gz_random_shows(&e->h, random) < 0)
        return -1;
    while (e->h.s.phase == PHASE_PLAY) {
        int pick, key;
        unsigned long version;
        if (compute_legal(e) < 0)
            return -1;
        version = e->h.version;
        if (gz_draw(random, e->nlegal, &pick) < 0)
            return -1;
        if (e->h.version != version || e->h.tables == NULL) {
            PyErr_SetString(PyExc_RuntimeError, "random() changed the engine under random_playout");
            return -1;
        }
        key = e->legal[pick];
        play_key(e, key);
    }
    return 0;
}

static PyObject *engine_random_playout(Engine *e, PyObject *random)
{
    if (playout(&e->h, random) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* -- the greedy playout policy of gongzhu.bots.playout.greedy_rollout_policy, on play keys -- */

#define FLAG_PIG 1
#define FLAG_SHEEP 2
#define FLAG_TRANSFORMER 4

/* What the policy reads of a play (gongzhu.bots.playout._PlayFacts): its top card (the higher
 * rank of two, the first of equal ranks), that card's rank, the suit of its first card, the
 * sum of its cards' values, and which named cards it holds. */
typedef struct {
    int top, rank, suit, flags;
    long value;
} Facts;

static int flag_of(int card)
{
    return card == GZ_PIG ? FLAG_PIG
           : card == GZ_SHEEP ? FLAG_SHEEP
           : card == GZ_TRANSFORMER ? FLAG_TRANSFORMER
           : 0;
}

static void facts_of(int key, const long *values, Facts *f)
{
    int a, b, two = key_cards(key, &a, &b) == 2;
    f->top = !two || GZ_RANK_OF(a) >= GZ_RANK_OF(b) ? a : b;
    f->rank = GZ_RANK_OF(f->top);
    f->suit = a / 13;
    f->value = values[a] + (two ? values[b] : 0);
    f->flags = flag_of(a) | (two ? flag_of(b) : 0);
}

/* The first of `keys` (n > 0) with the highest (sign 1) or lowest (sign -1) rank: Python's
 * max/min by rank over them in order. */
static int first_by_rank(const int *keys, const Facts *facts, int n, int sign)
{
    int i, best = 0;
    for (i = 1; i < n; i++)
        if (sign * facts[i].rank > sign * facts[best].rank)
            best = i;
    return keys[best];
}

/* The policy's play among the legal keys (e->legal); -1 on error (a draw).  With `teams`,
 * a seat that cannot follow onto its teammate's winning play gives it the play worth the
 * most (the policy's _gift_key). */
static int greedy_choice(Engine *e, const long *values, const long *teams, PyObject *random)
{
    int n = e->nlegal, i, led, pair_lead, best = -1, best_at = 0, best_rank, last, negative = 0;
    int follow[LEGAL_MAX], under[LEGAL_MAX], over[LEGAL_MAX], safe[LEGAL_MAX], keep[LEGAL_MAX];
    int nf = 0, nu = 0, no = 0, ns = 0, nk = 0;
    Facts ff[LEGAL_MAX], fu[LEGAL_MAX], fo[LEGAL_MAX], fs[LEGAL_MAX], fk[LEGAL_MAX], f;
    long points = 0;
    if (n == 1)
        return e->legal[0];
    if (e->ntrick == 0) { /* the lowest key; one draw among the plays that share it */
        int nt = 0, best_key = 1 << 20;
        double x;
        for (i = 0; i < n; i++) {
            int key;
            facts_of(e->legal[i], values, &f);
            key = f.rank + gz_lead_penalty(f.top);
            if (key < best_key) {
                best_key = key;
                nt = 0;
            }
            if (key == best_key)
                under[nt++] = e->legal[i];
        }
        if (nt == 1)
            return under[0];
        if (gz_random_float(random, &x) < 0)
            return -1;
        return under[(int)(x * nt)];
    }
    led = key_first(e->trick[0]) / 13;
    pair_lead = e->trick[0] >= ONE_CARD_KEYS;
    for (i = 0; i < e->ntrick; i++) {
        int a, b, k = key_cards(e->trick[i], &a, &b), rank = rank_of(e, e->trick[i], led, pair_lead);
        points += values[a] + (k == 2 ? values[b] : 0);
        if (values[a] < 0 || (k == 2 && values[b] < 0))
            negative = 1;
        if (rank > best) {
            best = rank;
            best_at = i;
        }
    }
    facts_of(e->trick[best_at], values, &f);
    best_rank = f.rank;
    last = e->ntrick == 3;
    for (i = 0; i < n; i++) {
        facts_of(e->legal[i], values, &f);
        if (f.suit == led) {
            ff[nf] = f;
            follow[nf++] = e->legal[i];
        }
    }
    if (nf) {
        if (led == 0 && best_rank > 12)
            for (i = 0; i < nf; i++)
                if (ff[i].flags & FLAG_PIG)
                    return follow[i];
        for (i = 0; i < nf; i++) {
            if (ff[i].rank < best_rank) {
                fu[nu] = ff[i];
                under[nu++] = follow[i];
            } else if (ff[i].rank > best_rank) {
                fo[no] = ff[i];
                over[no++] = follow[i];
            }
            if (!(ff[i].flags & FLAG_PIG)) {
                fs[ns] = ff[i];
                safe[ns++] = follow[i];
            }
        }
        if (negative || led == 1) {
            if (nu)
                return first_by_rank(under, fu, nu, 1);
            return first_by_rank(follow, ff, nf, last ? 1 : -1);
        }
        if (!ns) {
            memcpy(fs, ff, (size_t)nf * sizeof ff[0]);
            memcpy(safe, follow, (size_t)nf * sizeof follow[0]);
            ns = nf;
        }
        if (points > 0 && no)
            return first_by_rank(over, fo, no, last ? -1 : 1);
        if (last) {
            for (i = 0; i < no; i++)
                if (fo[i].flags & FLAG_SHEEP)
                    return over[i];
            for (i = 0; i < ns; i++) {
                if (!(fs[i].flags & (FLAG_SHEEP | FLAG_TRANSFORMER))) {
                    fk[nk] = fs[i];
                    keep[nk++] = safe[i];
                }
            }
            return nk ? first_by_rank(keep, fk, nk, 1) : first_by_rank(safe, fs, ns, 1);
        }
        if (nu)
            return first_by_rank(under, fu, nu, 1);
        return first_by_rank(safe, fs, ns, -1);
    }
    if (teams != NULL && teams[(e->trick_leader + best_at) & 3] == teams[e->h.s.seat]) {
        long best_gift = 0;
        int choice = e->legal[0];
        for (i = 0; i < n; i++) {
            long gift;
            facts_of(e->legal[i], values, &f);
            gift = f.value * 10 + f.rank - (f.flags & FLAG_TRANSFORMER ? 500 : 0);
            if (i == 0 || gift > best_gift) {
                best_gift = gift;
                choice = e->legal[i];
            }
        }
        return choice;
    }
    {
        long worst_key = 0;
        int choice = e->legal[0];
        for (i = 0; i < n; i++) {
            long key;
            facts_of(e->legal[i], values, &f);
            key = -f.value * 2 + f.rank;
            if (f.flags & FLAG_PIG)
                key += 1000;
            if (f.flags & FLAG_TRANSFORMER)
                key += negative ? 300 : -30;
            if (f.value > 0)
                key -= 500;
            if (i == 0 || key > worst_key) {
                worst_key = key;
                choice = e->legal[i];
            }
        }
        return choice;
    }
}

/* Play to the end with the greedy policy `policy` (a GZGreedy: no end game with two decks),
 * from the play phase; 0, or -1 with an exception. */
static int greedy_run(GZHead *h, PyObject *random, const void *policy, long long *raw)
{
    Engine *e = (Engine *)h;
    const GZGreedy *g = policy;
    const long *trick_teams = g->trick_teams;
    (void)raw;
    while (e->h.s.phase == PHASE_PLAY) {
        unsigned long version;
        int key;
        if (compute_legal(e) < 0)
            return -1;
        if (e->nlegal == 0) {
            PyErr_SetString(PyExc_ValueError, "the seat to move holds no card");
            return -1;
        }
        version = e->h.version;
        if (e->ntrick == 0)
            trick_teams = NULL; /* the trick under way is over: the teams part is done */
        key = greedy_choice(e, g->values, trick_teams, random);
        if (key < 0)
            return -1;
        if (e->h.version != version || e->h.tables == NULL) {
            PyErr_SetString(PyExc_RuntimeError, "random() changed the engine under greedy_playout");
            return -1;
        }
        play_key(e, key);
    }
    return 0;
}

/* greedy_playout(values, random, teams=None): play to the end with the greedy playout policy,
 * play for play the choices of gongzhu.bots.playout.greedy_rollout_policy (the tests compare
 * them): values holds the 52 cards' values (each card's copies alike); random() is called
 * once on a lead where two legal plays or more share the lowest lead key (to pick one of
 * them, in key order), and nowhere else. */
static PyObject *engine_greedy_playout(Engine *e, PyObject *args)
{
    return gz_greedy_playout(&e->h, args, greedy_run);
}

/* copy() -> an independent engine of the same type, sharing the tables. */
static PyObject *engine_copy(Engine *e, PyObject *unused)
{
    Engine *new;
    (void)unused;
    new = (Engine *)Py_TYPE(e)->tp_alloc(Py_TYPE(e), 0);
    if (new == NULL)
        return NULL;
    memcpy((char *)new + offsetof(Engine, h.s), (char *)e + offsetof(Engine, h.s),
           offsetof(Engine, legal) - offsetof(Engine, h.s));
    if (new->nlegal > 0 && new->legal_version == new->h.version)
        memcpy(new->legal, e->legal, (size_t)new->nlegal * sizeof e->legal[0]);
    else
        new->legal_version = 0;
    Py_XINCREF(e->h.tables);
    new->h.tables = e->h.tables;
    return (PyObject *)new;
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

/* redeal(holdings): each seat holds holdings[seat] now (the play phase only); the same
 * copies between the seats and the same count per seat, else ValueError, the engine
 * unchanged. */
static PyObject *engine_redeal(Engine *e, PyObject *holdings)
{
    Mask masks[4];
    uint64_t o1, t1, v1, o2, t2, v2;
    int s;
    if (gz_read_masks(holdings, masks, "holdings: expected four two-deck card masks", MASK_TWO_DECKS) < 0)
        return NULL;
    if (e->h.s.phase != PHASE_PLAY) {
        PyErr_SetString(PyExc_ValueError, "redeal: holdings change in the play phase only");
        return NULL;
    }
    copy_counts(masks, &o1, &t1, &v1);
    copy_counts(e->hands, &o2, &t2, &v2);
    if (o1 != o2 || t1 != t2 || v1 != v2) {
        PyErr_SetString(PyExc_ValueError,
                        "redeal: the seats must hold the same cards between them");
        return NULL;
    }
    for (s = 0; s < 4; s++) {
        if (mask_count(masks[s]) != mask_count(e->hands[s])) {
            PyErr_SetString(PyExc_ValueError, "redeal: each seat must keep its number of cards");
            return NULL;
        }
    }
    memcpy(e->hands, masks, sizeof masks);
    e->h.version++;
    Py_RETURN_NONE;
}

static PyObject *engine_shown_taken(Engine *e, PyObject *unused)
{
    PyObject *out = PyTuple_New(4);
    int s, i;
    (void)unused;
    if (out == NULL)
        return NULL;
    for (s = 0; s < 4; s++) {
        PyObject *seat = PyList_New(e->ntaken[s]);
        if (seat == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, s, seat);
        for (i = 0; i < e->ntaken[s]; i++) {
            const Shown *shown = &e->taken_shows[s][i];
            PyObject *item = gz_int_tuple(3, (int[3]){shown->seat, shown->index, shown->kind});
            if (item == NULL) {
                Py_DECREF(out);
                return NULL;
            }
            PyList_SET_ITEM(seat, i, item);
        }
    }
    return out;
}

/* The finished hand scored from the ruleset's ScoreData (gz_score_hand's code). */
static int score_hand(GZHead *h, const ScoreData *d, long long *raw, int *full_hearts, int *slam)
{
    Engine *e = (Engine *)h;
    ShowRec shows[SCORE_SHOWS_MAX];
    const ShowRec *shown[4];
    int n = gz_shows_of_log(h->tables, &h->s, shows), s;
    for (s = 0; s < 4; s++)
        shown[s] = e->taken_shows[s];
    return gz_score_hand(d, e->taken, h->s.dealt, shows, n, shown, e->ntaken, raw, full_hearts,
                         slam);
}

/* A new hand on the engine's tables, as engine_init sets one up. */
static void reset(GZHead *h, const Mask *dealt, const ShowState *start)
{
    Engine *e = (Engine *)h;
    gz_engine_begin(h, (PyObject *)h->tables, sizeof(Engine), start, dealt, &engine_ops);
    memcpy(e->hands, dealt, sizeof e->hands);
    e->unled = ALL_CARDS;
    e->trick_leader = start->leader;
}

static const HandOps hand_ops = {2, &GZ_PairsEngineType, sizeof(Engine), reset, playout,
                                 score_hand};

static PyObject *engine_random_hands(Engine *e, PyObject *args)
{
    return gz_random_hands(&e->h, args, &hand_ops);
}

/* score(data): see gz_engine_score (score.c). */
static PyObject *engine_score(Engine *e, PyObject *data)
{
    return gz_engine_score(&e->h, data, &hand_ops);
}

/* playouts(data, keys, random, values=None, teams=None): see gz_playouts (shows.c); with
 * values, each copy plays out as greedy_playout(values, random, teams) plays, else as
 * random_playout(random). */
static PyObject *engine_playouts(Engine *e, PyObject *args)
{
    PyObject *data, *keys, *random, *values = Py_None, *teams = Py_None;
    GZGreedy g;
    if (!PyArg_ParseTuple(args, "OOO|OO:playouts", &data, &keys, &random, &values, &teams))
        return NULL;
    if (values == Py_None) {
        if (teams != Py_None) {
            PyErr_SetString(PyExc_ValueError, "playouts: teams are for the greedy playout");
            return NULL;
        }
        return gz_playouts(&e->h, data, keys, random, &hand_ops, NULL, NULL);
    }
    if (gz_read_greedy(values, teams, &g) < 0)
        return NULL;
    return gz_playouts(&e->h, data, keys, random, &hand_ops, greedy_run, &g);
}

/* -- attributes ---------------------------------------------------------------------------- */

static PyObject *get_holdings(Engine *e, void *c) { (void)c; return gz_masks_tuple(e->hands); }
static PyObject *get_taken(Engine *e, void *c) { (void)c; return gz_masks_tuple(e->taken); }
static PyObject *get_trick_leader(Engine *e, void *c) { (void)c; return PyLong_FromLong(e->trick_leader); }
static PyObject *get_trick_count(Engine *e, void *c) { (void)c; return PyLong_FromLong(e->ntricks); }
static PyObject *get_trick(Engine *e, void *c) { (void)c; return gz_int_tuple(e->ntrick, e->trick); }

static PyObject *get_trick_log(Engine *e, void *c)
{
    (void)c;
    /* with two decks the winner takes its trick's cards: the taker is the winner */
    return gz_trick_log(e->log_leader, e->log_keys, e->log_winner, e->log_winner, e->ntricks);
}

static PyGetSetDef engine_getset[] = {
    {"phase", (getter)gz_get_phase, NULL, "the phase (gongzhu.play.ENGINE_PHASES)", NULL},
    {"seat", (getter)gz_get_seat, NULL, "the seat to act, or -1 when over", NULL},
    {"holdings", (getter)get_holdings, NULL, "each seat's cards (two-deck masks)", NULL},
    {"taken", (getter)get_taken, NULL, "each seat's taken cards (two-deck masks)", NULL},
    {"trick", (getter)get_trick, NULL, "the play keys of the trick under way", NULL},
    {"trick_leader", (getter)get_trick_leader, NULL, "the seat that leads the trick", NULL},
    {"trick_count", (getter)get_trick_count, NULL, "how many tricks are finished", NULL},
    {"trick_log", (getter)get_trick_log, NULL,
     "the finished tricks: (leader, keys, winner, taker) each", NULL},
    {"show_log", (getter)gz_get_show_log, NULL,
     "every show decision and automatic show: (seat, choice id, forced) each", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef engine_methods[] = {
    {"legal", (PyCFunction)engine_legal, METH_NOARGS, "the legal actions of the seat to act"},
    {"legal_keys", (PyCFunction)engine_legal_keys, METH_NOARGS,
     "the keys of the legal plays, ascending (the play phase)"},
    {"legal_mask", (PyCFunction)engine_legal_mask, METH_NOARGS,
     "the cards used by some legal play (first-copy bits; the play phase)"},
    {"show", (PyCFunction)gz_engine_show, METH_O,
     "show(choice) -> the next seat, or -2: take show number choice of legal()"},
    {"play", (PyCFunction)engine_play, METH_O, "play(key) -> next seat, -1 over, -2 illegal"},
    {"refusal", (PyCFunction)engine_refusal, METH_O,
     "refusal(key) -> (code, detail) or None (gongzhu.play.explain_refusal)"},
    {"copy", (PyCFunction)engine_copy, METH_NOARGS, "an independent copy"},
    {"random_playout", (PyCFunction)engine_random_playout, METH_O,
     "random_playout(random): play to the end, one draw per decision"},
    {"redeal", (PyCFunction)engine_redeal, METH_O,
     "redeal(holdings): each seat holds holdings[seat] now (the play phase)"},
    {"playouts", (PyCFunction)engine_playouts, METH_VARARGS,
     "playouts(data, keys, random, values=None, teams=None) -> the raw scores of each key "
     "played on a copy, played out (greedy with values, else random) and scored"},
    {"greedy_playout", (PyCFunction)engine_greedy_playout, METH_VARARGS,
     "greedy_playout(values, random, teams=None): the greedy playout policy of gongzhu.bots.playout"},
    {"score", (PyCFunction)engine_score, METH_O,
     "score(data) -> ((raw scores), full_hearts, slam), from the ruleset's ScoreData"},
    {"random_hands", (PyCFunction)engine_random_hands, METH_VARARGS,
     "random_hands(data, count, next_digest, random, lead) -> [((raw), full_hearts, slam)]"},
    {"shown_taken", (PyCFunction)engine_shown_taken, METH_NOARGS,
     "per seat, the shown copies it took: (seat that showed it, card index, kind code)"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject GZ_PairsEngineType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gongzhu._speedups.PairsEngine",
    .tp_doc = "PairsEngine(tables, holdings, leader, forced, first_seat, first_cards)\n\n"
              "A two-deck hand with pairs in C (see gongzhu.engines.pairs.PairsEngine).",
    .tp_basicsize = sizeof(Engine),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = gz_engine_new,
    .tp_init = (initproc)engine_init,
    .tp_dealloc = (destructor)gz_engine_dealloc,
    .tp_traverse = (traverseproc)gz_engine_traverse,
    .tp_clear = (inquiry)gz_engine_clear,
    .tp_methods = engine_methods,
    .tp_getset = engine_getset,
};
