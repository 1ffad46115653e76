/* SingleEngine: a one-deck hand, the C twin of gongzhu/engines/single.py.
 *
 * The same cascade in the same order (the opening lead, follow suit, the discard rule, the
 * shown-card lock, the plug-ins' play rules, each asked only where it can matter), the same
 * refusal codes, the same use of the random stream (one draw per decision: the
 * int(r * n)-th legal action, shows and cards alike), the same trick resolution. */
#include "engine.h"

#define MAX_TRICKS 13

typedef struct {
    GZHead h; /* the tables, the show phases, the version; then the play's plain state */
    uint64_t hands[4], taken[4];
    int lifted[4];
    uint64_t unled, played;
    int first_of_suit, trick_leader;
    int trick[4], ntrick;
    int offenders[4], noffenders;
    int ntricks, log_leader[MAX_TRICKS], log_keys[4 * MAX_TRICKS], log_winner[MAX_TRICKS],
        log_taker[MAX_TRICKS];
    unsigned long legal_version; /* the version `legal` was found at (0: none yet) */
    uint64_t legal;
} Engine;

static void start_play(GZHead *h)
{
    Engine *e = (Engine *)h;
    e->trick_leader = e->h.s.seat = e->h.s.leader;
    e->h.version++;
}

/* -- legality: one cascade decides and explains ----------------------------------------------- */

typedef struct {
    int code, detail; /* the rule that refused `why` (code 0: none) */
} Why;

static uint64_t lead_lock(const Engine *e, uint64_t hand, uint64_t locked)
{
    uint64_t blocked = 0, pending = locked & e->unled;
    while (pending) {
        uint64_t low = pending & (~pending + 1);
        if ((hand & GZ_SUIT[__builtin_ctzll(pending) / 13]) != low)
            blocked |= low;
        pending ^= low;
    }
    return blocked;
}

/* legal less what the lock blocked, unless that leaves nothing: then the lock lifts (for the
 * hand, with stuck="hand", recorded only when not explaining). */
static uint64_t locked_out(Engine *e, uint64_t legal, uint64_t blocked, int why, int where,
                           Why *out)
{
    uint64_t kept = legal & ~blocked;
    if (kept) {
        if (why >= 0 && !((kept >> why) & 1)) {
            out->code = CODE_LOCK;
            out->detail = where;
        }
        return kept;
    }
    if (e->h.tables->lift_for_hand && why < 0 && legal)
        e->lifted[e->h.s.seat] = 1;
    return legal;
}

/* Ask rule `rule` about the candidates `kept`: what it leaves of them in *kept.  0, or -1
 * with an exception. */
static int ask_rule(Engine *e, const Rule *rule, uint64_t hand, uint64_t *kept)
{
    Mask holding = {hand, 0};
    uint64_t answer;
    int rc = 0;
    PyObject *situation = gz_situation(e->h.tables, e->h.s.seat, holding, e->trick, e->ntrick,
                                       e->played, e->unled, *kept);
    if (situation == NULL)
        return -1;
    if (rule->refuse != NULL) {
        rc = gz_rule_answer(rule, rule->refuse, situation, &answer);
        if (rc == 0)
            *kept &= ~answer;
    }
    if (rc == 0 && *kept && rule->require != NULL) {
        rc = gz_rule_answer(rule, rule->require, situation, &answer);
        if (rc == 0 && (answer & *kept))
            *kept &= answer;
    }
    Py_DECREF(situation);
    return rc;
}

/* The plug-ins' rules, each narrowing legal, asked only where they can matter; one that
 * would leave nothing lifts.  0, or -1 with an exception. */
static int apply_rules(Engine *e, int moment, uint64_t hand, uint64_t *legal, int why, Why *out)
{
    const Tables *t = e->h.tables;
    unsigned long version = e->h.version;
    int r;
    for (r = 0; r < t->nrules; r++) {
        const Rule *rule = &t->rules[r];
        uint64_t kept = *legal;
        if (!(moment & rule->when) || !(kept & rule->cards))
            continue;
        if (ask_rule(e, rule, hand, &kept) < 0)
            return -1;
        if (e->h.version != version || e->h.tables != t) {
            PyErr_SetString(PyExc_RuntimeError, "a play rule changed the engine asking it");
            return -1;
        }
        if (kept && kept != *legal) {
            if (why >= 0 && !((kept >> why) & 1)) {
                out->code = CODE_PLAY_RULE;
                out->detail = r;
                return 0;
            }
            *legal = kept;
        }
    }
    return 0;
}

/* The legal mask of the seat to act into *legal (why < 0), or the rule that refuses card
 * `why` into *out (code 0 when it is legal).  0, or -1 with an exception (a play rule's). */
static int cascade(Engine *e, int why, uint64_t *legal_out, Why *out)
{
    const Tables *t = e->h.tables;
    int seat = e->h.s.seat, moment;
    uint64_t hand = e->hands[seat], legal, locked;
    out->code = out->detail = 0;
    if (why >= 0 && !((hand >> why) & 1)) {
        out->code = CODE_HOLDING;
        return 0;
    }
    if (e->ntrick == 0) {
        moment = t->moment_lead;
        if (e->h.s.forced) {
            legal = (e->h.s.forced & hand) ? e->h.s.forced & hand : hand;
            if (why >= 0 && !((legal >> why) & 1)) {
                out->code = CODE_OPENING_LEAD;
                out->detail = __builtin_ctzll(e->h.s.forced);
            }
            *legal_out = legal;
            return 0;
        }
        legal = hand;
        if (t->lock_first) {
            locked = e->lifted[seat] ? 0 : e->h.s.locked[seat].lo & hand;
            if (locked) {
                legal = locked_out(e, legal, lead_lock(e, hand, locked), why, LOCK_LEAD, out);
                if (out->code)
                    return 0;
            }
        }
    } else {
        int led = e->trick[0] / 13;
        uint64_t follow = hand & GZ_SUIT[led];
        if (follow) {
            moment = t->moment_follow;
            if (why >= 0 && !((follow >> why) & 1)) {
                out->code = CODE_FOLLOW_SUIT;
                out->detail = led;
                return 0;
            }
            legal = follow;
            /* a shown card may not follow in its suit's first trick, unless it is the only one */
            if (e->first_of_suit && t->lock_first) {
                locked = e->lifted[seat] ? 0 : e->h.s.locked[seat].lo & follow;
                if (locked && locked != follow) {
                    legal = follow & ~locked;
                    if (why >= 0 && !((legal >> why) & 1)) {
                        out->code = CODE_LOCK;
                        out->detail = LOCK_FOLLOW;
                        return 0;
                    }
                }
            }
        } else {
            moment = t->moment_discard;
            legal = hand;
            if (t->has_preferred && t->strict) {
                uint64_t same = hand & t->preferred[led];
                if (same) {
                    if (why >= 0 && !((same >> why) & 1)) {
                        out->code = CODE_DISCARD_RULE;
                        out->detail = led;
                        return 0;
                    }
                    legal = same;
                }
            }
            if (t->lock_discards) {
                locked = e->lifted[seat] ? 0 : e->h.s.locked[seat].lo & hand;
                if (locked) {
                    legal = locked_out(e, legal, locked & e->unled, why, LOCK_DISCARD, out);
                    if (out->code)
                        return 0;
                }
            }
        }
    }
    if (t->nrules && apply_rules(e, moment, hand, &legal, why, out) < 0)
        return -1;
    *legal_out = legal;
    return 0;
}

/* The legal mask of the seat to act, found once per state. */
static int legal_mask(Engine *e, uint64_t *out)
{
    Why unused;
    if (e->legal_version != e->h.version) {
        uint64_t legal;
        unsigned long version = e->h.version;
        if (cascade(e, -1, &legal, &unused) < 0)
            return -1;
        e->legal = legal;
        e->legal_version = version;
    }
    *out = e->legal;
    return 0;
}

/* -- playing ----------------------------------------------------------------------------------- */

static void finish_trick(Engine *e)
{
    int first = e->trick[0], top = (first / 13 + 1) * 13, best = first, position = 0, i;
    int winner, taker, n = e->ntricks;
    for (i = 1; i < 4; i++) {
        int card = e->trick[i];
        if (best < card && card < top) {
            best = card;
            position = i;
        }
    }
    winner = taker = (e->trick_leader + position) & 3;
    if (e->noffenders)
        taker = e->h.tables->last_offender ? e->offenders[e->noffenders - 1] : e->offenders[0];
    e->noffenders = 0;
    e->taken[taker] |= (1ULL << e->trick[0]) | (1ULL << e->trick[1]) | (1ULL << e->trick[2]) |
                       (1ULL << e->trick[3]);
    if (n < MAX_TRICKS) { /* always: 13 tricks a hand */
        e->log_leader[n] = e->trick_leader;
        memcpy(e->log_keys + 4 * n, e->trick, sizeof e->trick);
        e->log_winner[n] = winner;
        e->log_taker[n] = taker;
        e->ntricks = n + 1;
    }
    e->ntrick = 0;
    e->trick_leader = winner;
    if (e->hands[winner]) {
        e->h.s.seat = winner;
    } else {
        e->h.s.phase = PHASE_OVER;
        e->h.s.seat = OVER;
    }
}

/* Play card `key` (legal) for the seat to act. */
static void play_key(Engine *e, int key)
{
    int seat = e->h.s.seat;
    uint64_t bit = 1ULL << key;
    const Tables *t = e->h.tables;
    e->h.version++;
    if (e->ntrick == 0) {
        uint64_t suit_mask = GZ_SUIT[key / 13];
        e->first_of_suit = (e->unled & suit_mask) != 0;
        e->unled &= ~suit_mask;
        e->h.s.forced = 0;
    } else if (t->penalty) {
        int led = e->trick[0] / 13;
        uint64_t preferred = t->preferred[led], hand = e->hands[seat];
        if (!(hand & GZ_SUIT[led]) && (hand & preferred) && !(bit & preferred))
            e->offenders[e->noffenders++] = seat;
    }
    e->hands[seat] ^= bit;
    e->played |= bit;
    e->trick[e->ntrick++] = key;
    if (e->ntrick == 4)
        finish_trick(e);
    else
        e->h.s.seat = (seat + 1) & 3;
}

/* -- the steps the batch takes (GZEngineOps) ---------------------------------------------- */

static int ops_legal_keys(GZHead *h, int *keys)
{
    uint64_t mask;
    int n = 0;
    if (legal_mask((Engine *)h, &mask) < 0)
        return -1;
    for (; mask; mask &= mask - 1)
        keys[n++] = __builtin_ctzll(mask);
    return n;
}

static void ops_play_key(GZHead *h, int key) { play_key((Engine *)h, key); }

static void ops_read(const GZHead *h, GZPlayView *v)
{
    const Engine *e = (const Engine *)h;
    int s;
    for (s = 0; s < 4; s++) {
        v->hands[s].lo = e->hands[s];
        v->taken[s].lo = e->taken[s];
        v->hands[s].hi = v->taken[s].hi = 0;
    }
    v->ntricks = e->ntricks;
    v->log_leader = e->log_leader;
    v->log_keys = e->log_keys;
    v->log_winner = e->log_winner;
    v->log_taker = e->log_taker;
    v->ntrick = e->ntrick;
    v->trick_leader = e->trick_leader;
    v->trick = e->trick;
}

static const GZEngineOps engine_ops = {start_play, ops_legal_keys, ops_play_key, ops_read};

/* -- the type --------------------------------------------------------------------------------- */

static int check_tables(PyObject *tables)
{
    if (!PyObject_TypeCheck(tables, &GZ_TablesType) || !((Tables *)tables)->ready) {
        PyErr_SetString(PyExc_TypeError, "the engine's first argument is a made Tables");
        return -1;
    }
    if (((Tables *)tables)->copies != 1) {
        PyErr_SetString(PyExc_ValueError, "SingleEngine plays one deck: these Tables have two");
        return -1;
    }
    return 0;
}

/* Four disjoint 52-bit card masks: ValueError naming what is wrong (TypeError for a
 * non-int), as the Python reference checks them, one mask after another, then overlaps. */
static int read_holdings(PyObject *holdings, Mask *m)
{
    if (gz_read_masks(holdings, m, "holdings: expected four 52-bit card masks", MASK_ONE_DECK) < 0)
        return -1;
    if ((m[0].lo & m[1].lo) || ((m[0].lo | m[1].lo) & m[2].lo) ||
        ((m[0].lo | m[1].lo | m[2].lo) & m[3].lo)) {
        PyErr_SetString(PyExc_ValueError, "holdings overlap");
        return -1;
    }
    return 0;
}

/* SingleEngine(tables, holdings, leader, forced, first_seat, first_cards) */
static int engine_init(Engine *e, PyObject *args, PyObject *kwds)
{
    PyObject *tables, *holdings, *leader, *forced, *first_seat, *first_cards;
    Mask masks[4];
    ShowState start;
    int seat, size;
    memset(&start, 0, sizeof start);
    static char *kwlist[] = {"tables", "holdings", "leader", "forced", "first_seat",
                             "first_cards", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOO:SingleEngine", kwlist, &tables,
                                     &holdings, &leader, &forced, &first_seat, &first_cards))
        return -1;
    if (check_tables(tables) < 0)
        return -1;
    if (read_holdings(holdings, masks) < 0)
        return -1;
    size = mask_count(masks[0]);
    for (seat = 0; seat < 4; seat++) {
        if (mask_count(masks[seat]) != size) {
            PyErr_SetString(PyExc_ValueError,
                            "holdings: expected four 52-bit card masks of as many cards");
            return -1;
        }
    }
    if (gz_read_start(leader, forced, first_seat, first_cards, &start) < 0)
        return -1;
    /* everything is read: set the engine up in one go */
    gz_engine_begin(&e->h, tables, sizeof(Engine), &start, masks, &engine_ops);
    for (seat = 0; seat < 4; seat++)
        e->hands[seat] = masks[seat].lo;
    e->unled = ALL_CARDS;
    e->trick_leader = start.leader;
    return 0;
}

static PyObject *engine_legal(Engine *e, PyObject *unused)
{
    uint64_t mask;
    PyObject *out;
    Py_ssize_t i = 0;
    (void)unused;
    if (e->h.s.phase == PHASE_OVER)
        return PyTuple_New(0);
    if (e->h.s.phase != PHASE_PLAY)
        return gz_show_legal(e->h.tables, &e->h.s);
    if (legal_mask(e, &mask) < 0)
        return NULL;
    out = PyTuple_New(__builtin_popcountll(mask));
    if (out == NULL)
        return NULL;
    while (mask) {
        PyObject *play = gz_play(__builtin_ctzll(mask));
        if (play == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        Py_INCREF(play);
        PyTuple_SET_ITEM(out, i++, play);
        mask &= mask - 1;
    }
    return out;
}

static PyObject *engine_legal_mask(Engine *e, PyObject *unused)
{
    uint64_t mask;
    (void)unused;
    if (e->h.s.phase != PHASE_PLAY) {
        PyErr_SetString(PyExc_ValueError, "legal_mask: not in the play phase");
        return NULL;
    }
    if (legal_mask(e, &mask) < 0)
        return NULL;
    return PyLong_FromUnsignedLongLong(mask);
}

/* play(key) -> the next seat, -1 after the last card, -2 (nothing changes) when the card
 * may not be played, key is not an int in 0..51 or the hand is not in its play phase. */
static PyObject *engine_play(Engine *e, PyObject *arg)
{
    long key;
    int overflow;
    uint64_t legal;
    if (e->h.s.phase != PHASE_PLAY || !PyLong_CheckExact(arg))
        return PyLong_FromLong(ILLEGAL);
    key = PyLong_AsLongAndOverflow(arg, &overflow);
    if (overflow || key < 0 || key >= 52)
        return PyLong_FromLong(ILLEGAL);
    if (legal_mask(e, &legal) < 0)
        return NULL;
    if (!((legal >> key) & 1))
        return PyLong_FromLong(ILLEGAL);
    play_key(e, (int)key);
    return PyLong_FromLong(e->h.s.seat);
}

/* refusal(key) -> (code, detail) or None: see gongzhu.play.explain_refusal. */
static PyObject *engine_refusal(Engine *e, PyObject *arg)
{
    long key;
    int overflow;
    uint64_t legal;
    Why why;
    if (e->h.s.phase != PHASE_PLAY)
        return Py_BuildValue("(ii)", CODE_HOLDING, OVER_DETAIL);
    if (!PyLong_CheckExact(arg))
        return Py_BuildValue("(ii)", CODE_SHAPE, SHAPE_ONE);
    key = PyLong_AsLongAndOverflow(arg, &overflow);
    if (overflow || key < 0 || key >= 52)
        return Py_BuildValue("(ii)", CODE_SHAPE, SHAPE_ONE);
    if (cascade(e, (int)key, &legal, &why) < 0)
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
        uint64_t mask;
        int n, skip;
        unsigned long version;
        if (legal_mask(e, &mask) < 0)
            return -1;
        n = __builtin_popcountll(mask);
        if (n == 0) {
            PyErr_SetString(PyExc_ValueError, "the seat to move holds no card");
            return -1;
        }
        version = e->h.version;
        if (gz_draw(random, n, &skip) < 0)
            return -1;
        if (e->h.version != version || e->h.tables == NULL) {
            PyErr_SetString(PyExc_RuntimeError, "random() changed the engine under random_playout");
            return -1;
        }
        while (skip-- > 0)
            mask &= mask - 1;
        play_key(e, __builtin_ctzll(mask));
    }
    return 0;
}

static PyObject *engine_random_playout(Engine *e, PyObject *random)
{
    if (playout(&e->h, random) < 0)
        return NULL;
    Py_RETURN_NONE;
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
           sizeof(Engine) - offsetof(Engine, h.s));
    Py_XINCREF(e->h.tables);
    new->h.tables = e->h.tables;
    return (PyObject *)new;
}

/* redeal(holdings): each seat holds holdings[seat] now (the play phase only); the same
 * cards between the seats and the same count per seat, else ValueError with the engine
 * unchanged.  The discard-rule offenders of the trick under way are found again. */
static void set_hands(Engine *e, const uint64_t *hands);
static const char *redeal_refusal(const Engine *e, const uint64_t *hands);

static PyObject *engine_redeal(Engine *e, PyObject *holdings)
{
    Mask m[4];
    uint64_t hands[4];
    const char *reason;
    int s;
    if (read_holdings(holdings, m) < 0)
        return NULL;
    if (e->h.s.phase != PHASE_PLAY) {
        PyErr_SetString(PyExc_ValueError, "redeal: holdings change in the play phase only");
        return NULL;
    }
    for (s = 0; s < 4; s++)
        hands[s] = m[s].lo;
    reason = redeal_refusal(e, hands);
    if (reason != NULL) {
        PyErr_Format(PyExc_ValueError, "redeal: %s", reason);
        return NULL;
    }
    set_hands(e, hands);
    Py_RETURN_NONE;
}

/* Why the seats may not hold hands[s] in place of the engine's hands, or NULL: they must
 * hold the same cards between them, each seat as many as it holds. */
static const char *redeal_refusal(const Engine *e, const uint64_t *hands)
{
    int s;
    if ((hands[0] | hands[1] | hands[2] | hands[3]) !=
        (e->hands[0] | e->hands[1] | e->hands[2] | e->hands[3]))
        return "the seats must hold the same cards between them";
    for (s = 0; s < 4; s++)
        if (__builtin_popcountll(hands[s]) != __builtin_popcountll(e->hands[s]))
            return "each seat must keep its number of cards";
    return NULL;
}

/* Each seat holds hands[s] now (redeal's checks made by the caller). */
static void set_hands(Engine *e, const uint64_t *hands)
{
    int s;
    for (s = 0; s < 4; s++)
        e->hands[s] = hands[s];
    e->h.version++;
    if (e->h.tables->penalty && e->ntrick) {
        /* who broke the discard rule in the trick under way depends on what they held */
        int led = e->trick[0] / 13, i;
        uint64_t preferred = e->h.tables->preferred[led];
        e->noffenders = 0;
        for (i = 1; i < e->ntrick; i++) {
            int key = e->trick[i], who = (e->trick_leader + i) & 3;
            if (key / 13 != led && (e->hands[who] & preferred) && !((1ULL << key) & preferred))
                e->offenders[e->noffenders++] = who;
        }
    }
}

/* -- the greedy playout policy of gongzhu.bots.search.greedy_rollout_policy ---------------- */

#define PIG_I GZ_PIG
#define SHEEP_I GZ_SHEEP
#define TRANSFORMER_I GZ_TRANSFORMER
#define RANK_OF(c) GZ_RANK_OF(c)
#define HIGHEST(mask) (63 - __builtin_clzll(mask))
#define LOWEST(mask) (__builtin_ctzll(mask))

/* A discard onto a teammate's winning card: the most valuable card, else the highest clean one
 * (the lowest card of equal keys). */
static int friendly_discard(uint64_t legal, const long *values)
{
    uint64_t m;
    long best_key = 0;
    int choice = -1;
    for (m = legal; m; m &= m - 1) {
        int card = __builtin_ctzll(m);
        long key = values[card] * 10 + RANK_OF(card) - (card == TRANSFORMER_I ? 500 : 0);
        if (choice < 0 || key > best_key) {
            best_key = key;
            choice = card;
        }
    }
    return choice;
}

/* The greedy policy's leads among `legal` (not empty): the cards of its lowest lead key (the
 * lowest rank; the pig, its guards, the sheep and the transformer last), of which it leads one
 * at random. */
static uint64_t lowest_leads(uint64_t legal)
{
    uint64_t m, tied = 0;
    int best_key = 1 << 20;
    for (m = legal; m; m &= m - 1) {
        int card = __builtin_ctzll(m), key = RANK_OF(card) + gz_lead_penalty(card);
        if (key < best_key) {
            best_key = key;
            tied = 0;
        }
        if (key == best_key)
            tied |= m & -m;
    }
    return tied;
}

/* The policy's card among `legal`; -1 on error (a draw).  With `teams` (each seat's team), a
 * seat that cannot follow onto its teammate's winning card discards as friendly_discard. */
static int greedy_choice(Engine *e, uint64_t legal, const long *values, const long *teams,
                         PyObject *random)
{
    uint64_t m, follow;
    int led, best_rank = 0, best_at = 0, negative = 0, last, i, choice = -1;
    long points = 0;
    if ((legal & (legal - 1)) == 0)
        return __builtin_ctzll(legal);
    if (e->ntrick == 0) { /* the lowest key; one draw among the cards that share it */
        uint64_t tied = lowest_leads(legal);
        double x;
        int pick;
        if ((tied & (tied - 1)) == 0)
            return __builtin_ctzll(tied);
        if (gz_random_float(random, &x) < 0)
            return -1;
        for (pick = (int)(x * __builtin_popcountll(tied)); pick > 0; pick--)
            tied &= tied - 1; /* the pick-th card, lowest first */
        return __builtin_ctzll(tied);
    }
    led = e->trick[0] / 13;
    for (i = 0; i < e->ntrick; i++) {
        int card = e->trick[i];
        long value = values[card];
        points += value;
        if (value < 0)
            negative = 1;
        if (card / 13 == led && RANK_OF(card) > best_rank) {
            best_rank = RANK_OF(card);
            best_at = i;
        }
    }
    last = e->ntrick == 3;
    follow = legal & GZ_SUIT[led];
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
    }
    if (teams != NULL && teams[(e->trick_leader + best_at) & 3] == teams[e->h.s.seat])
        return friendly_discard(legal, values);
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

/* -- the exact end game: alpha-beta over the last tricks, two sides -------------------------- */

#define SOLVE_INF (1LL << 62)

#define LEAF_CACHE 64 /* the hand ends scored in one search, by the scoring cards taken */

typedef struct {
    const ScoreData *data;
    const long long *sign; /* each seat's side: +1 maximises the team difference, -1 minimises */
    const long *values;    /* the greedy policy's card values (move ordering) */
    const long *teams;
    uint64_t fixed;        /* cards never interchangeable with their neighbours */
    ShowRec shows[SCORE_SHOWS_MAX]; /* the hand's shows (the same at every leaf) */
    int nshows;
    uint64_t cached;                /* which entries of the leaf cache are filled */
    uint64_t leaf_taken[LEAF_CACHE][4];
    long long leaf_raw[LEAF_CACHE][4];
} Solver;

/* The greedy policy's lead without its draw: the lowest of its leads. */
static int greedy_lead(uint64_t legal) { return __builtin_ctzll(lowest_leads(legal)); }

/* What a play changes of an engine, but its trick log (which the search never reads): kept
 * before each play of the search, and put back after it. */
#define UNDO_FROM offsetof(Engine, hands)
#define UNDO_SIZE (offsetof(Engine, ntricks) + sizeof(int) - UNDO_FROM)

typedef struct {
    char play[UNDO_SIZE];
    int seat, phase;
    uint64_t forced, legal;
    unsigned long version, legal_version;
} Undo;

static void save_play(const Engine *e, Undo *u)
{
    memcpy(u->play, (const char *)e + UNDO_FROM, UNDO_SIZE);
    u->seat = e->h.s.seat;
    u->phase = e->h.s.phase;
    u->forced = e->h.s.forced;
    u->legal = e->legal;
    u->version = e->h.version;
    u->legal_version = e->legal_version;
}

static void restore_play(Engine *e, const Undo *u)
{
    memcpy((char *)e + UNDO_FROM, u->play, UNDO_SIZE);
    e->h.s.seat = u->seat;
    e->h.s.phase = u->phase;
    e->h.s.forced = u->forced;
    e->legal = u->legal;
    e->h.version = u->version;
    e->legal_version = u->legal_version;
}

/* The raw scores of e's cards taken so far (the hand's end, or no scoring card left to
 * take) into raw, and their value for the searching side; 0, or -1 with an exception.  The
 * scores depend only on the scoring cards each seat took (the shows and the deal are those
 * of the whole search): a search scores each such outcome once. */
static int solve_leaf(Solver *sv, Engine *e, long long *value, long long *raw)
{
    const ScoreData *d = sv->data;
    uint64_t t[4], h;
    int s, slot;
    long long v = 0;
    for (s = 0; s < 4; s++)
        t[s] = e->taken[s] & d->scoring;
    h = (t[0] * 0x9E3779B97F4A7C15ULL) ^ (t[1] * 0xC2B2AE3D27D4EB4FULL) ^
        (t[2] * 0x165667B19E3779F9ULL) ^ (t[3] * 0x27D4EB2F165667C5ULL);
    slot = (int)(h >> 58);
    if ((sv->cached >> slot) & 1 && !memcmp(sv->leaf_taken[slot], t, sizeof t)) {
        memcpy(raw, sv->leaf_raw[slot], 4 * sizeof *raw);
    } else {
        Mask taken[4];
        int full_hearts, slam, code;
        for (s = 0; s < 4; s++) {
            taken[s].lo = e->taken[s];
            taken[s].hi = 0;
        }
        code = gz_score_hand(d, taken, e->h.s.dealt, sv->shows, sv->nshows, NULL, NULL, raw,
                             &full_hearts, &slam);
        if (code < 0) {
            PyErr_SetString(code == -1 ? PyExc_OverflowError : PyExc_ValueError,
                            "playouts: a hand the score data cannot score");
            return -1;
        }
        for (s = 0; s < 4; s++) {
            if ((raw[s] > 0 ? raw[s] : -raw[s]) > SOLVE_INF / 8) {
                PyErr_SetString(PyExc_OverflowError,
                                "playouts: a score too large for the end game");
                return -1;
            }
        }
        memcpy(sv->leaf_taken[slot], t, sizeof t);
        memcpy(sv->leaf_raw[slot], raw, 4 * sizeof *raw);
        sv->cached |= 1ULL << slot;
    }
    for (s = 0; s < 4; s++)
        v += sv->sign[s] * raw[s];
    *value = v;
    return 0;
}

/* The value of position e for the searching side under best play by both sides (exact when
 * it lies strictly between alpha and beta, else a bound on the side it fell), and the raw
 * scores of the hand's end on the line that gives it; 0, or -1 with an exception (a play
 * rule's).  e is the caller's scratch copy: its legal-mask cache may change. */
static int solve(Solver *sv, Engine *e, long long alpha, long long beta, long long *value,
                 long long *raw)
{
    uint64_t legal, live, trick = 0, order[2], m;
    int seat = e->h.s.seat, i, pass, first = -1, prev = -1;
    int maximise;
    long long best;
    Undo undo;
    for (i = 0; i < e->ntrick; i++)
        trick |= 1ULL << e->trick[i];
    live = e->hands[0] | e->hands[1] | e->hands[2] | e->hands[3] | trick;
    if (e->h.s.phase != PHASE_PLAY || !(live & sv->data->scoring))
        return solve_leaf(sv, e, value, raw); /* what is left takes no points */
    if (legal_mask(e, &legal) < 0)
        return -1;
    if (legal == 0) {
        PyErr_SetString(PyExc_ValueError, "the seat to move holds no card");
        return -1;
    }
    maximise = sv->sign[seat] > 0;
    best = maximise ? -SOLVE_INF : SOLVE_INF;
    /* cards of one suit with no live card between them, none of them scoring or locked, are
     * the same play: the lowest of each run stands for the rest (not under plug-in rules) */
    if (!e->h.tables->nrules) {
        uint64_t fixed = sv->fixed | e->h.s.locked[seat].lo, kept = 0;
        for (m = legal; m; m &= m - 1) {
            int c = __builtin_ctzll(m);
            if (prev >= 0 && prev / 13 == c / 13 && !((fixed >> c) & 1) &&
                !((fixed >> prev) & 1) &&
                !(live & (((1ULL << c) - 1) & ~((2ULL << prev) - 1)))) {
                prev = c;
                continue;
            }
            kept |= 1ULL << c;
            prev = c;
        }
        legal = kept;
    }
    /* the greedy policy's card first (a lead: its choice without the draw) */
    if (legal & (legal - 1))
        first = e->ntrick > 0 ? greedy_choice(e, legal, sv->values, sv->teams, NULL)
                              : greedy_lead(legal);
    order[0] = first >= 0 ? 1ULL << first : 0;
    order[1] = legal & ~order[0];
    for (pass = 0; pass < 2; pass++) {
        for (m = order[pass]; m; m &= m - 1) {
            int c = __builtin_ctzll(m);
            long long v, child_raw[4];
            int rc;
            save_play(e, &undo);
            play_key(e, c);
            rc = solve(sv, e, alpha, beta, &v, child_raw);
            restore_play(e, &undo);
            if (rc < 0)
                return -1;
            if (maximise ? v > best : v < best) {
                best = v;
                memcpy(raw, child_raw, sizeof child_raw);
                if (maximise ? best > alpha : best < beta) {
                    if (maximise)
                        alpha = best;
                    else
                        beta = best;
                    if (alpha >= beta) {
                        *value = best;
                        return 0;
                    }
                }
            }
        }
    }
    *value = best;
    return 0;
}

/* Play to the end with the greedy policy `policy` (a GZGreedy), from the play phase; with an
 * end game, the last g->endgame tricks are searched exactly instead (1: raw holds the
 * scores of the hand's end under best play by both sides). */
static int greedy_run(GZHead *h, PyObject *random, const void *policy, long long *raw)
{
    Engine *e = (Engine *)h;
    const GZGreedy *g = policy;
    const long *trick_teams = g->trick_teams;
    while (e->h.s.phase == PHASE_PLAY) {
        uint64_t mask;
        unsigned long version;
        int card;
        if (g->endgame > 0 &&
            __builtin_popcountll(e->hands[0] | e->hands[1] | e->hands[2] | e->hands[3]) <=
                4 * g->endgame) {
            Solver sv;
            long long value;
            Engine scratch;
            sv.data = g->data;
            sv.sign = g->sign;
            sv.values = g->values;
            sv.teams = g->teams;
            sv.fixed = g->data->scoring | g->data->concerned;
            sv.nshows = gz_shows_of_log(e->h.tables, &e->h.s, sv.shows);
            sv.cached = 0;
            memcpy(&scratch, e, sizeof scratch);
            if (solve(&sv, &scratch, -SOLVE_INF, SOLVE_INF, &value, raw) < 0)
                return -1;
            return 1;
        }
        if (legal_mask(e, &mask) < 0)
            return -1;
        if (mask == 0) {
            PyErr_SetString(PyExc_ValueError, "the seat to move holds no card");
            return -1;
        }
        version = e->h.version;
        if (e->ntrick == 0)
            trick_teams = NULL; /* the trick under way is over: the teams part is done */
        card = greedy_choice(e, mask, g->values, trick_teams, random);
        if (card < 0)
            return -1;
        if (e->h.version != version || e->h.tables == NULL) {
            PyErr_SetString(PyExc_RuntimeError, "random() changed the engine under greedy_playout");
            return -1;
        }
        play_key(e, card);
    }
    return 0;
}

/* greedy_playout(values, random, teams=None): play to the end with the greedy playout policy,
 * card for card the choices of gongzhu.bots.playout.greedy_rollout_policy (the tests compare
 * them): values holds the 52 cards' base values (ints); random() is called once on a lead
 * where two legal cards or more share the lowest lead key (to pick one of them, lowest
 * first), and nowhere else.  With
 * teams (each seat's team), the trick under way is finished as greedy_rollout_policy(...,
 * teams=teams) plays, the tricks after it as without. */
static PyObject *engine_greedy_playout(Engine *e, PyObject *args)
{
    return gz_greedy_playout(&e->h, args, greedy_run);
}

/* -- attributes ---------------------------------------------------------------------------- */

/* What a reading of the plays compares (mismatches' arguments, read once). */
typedef struct {
    GZGreedy g;
    int keys[52], nkeys;
    long seats;
    int leads, points;
} Reading;

/* Play the reading's keys in order from here and count the plays of its seats that the greedy
 * policy would not have made (see engine_mismatches); -1 with ValueError at a key that may not
 * be played, the keys before it played. */
static int count_mismatches(Engine *e, const Reading *r)
{
    int i, count = 0;
    for (i = 0; i < r->nkeys; i++) {
        int key = r->keys[i], seat = e->h.s.seat;
        uint64_t legal;
        if (e->h.s.phase != PHASE_PLAY) {
            PyErr_SetString(PyExc_ValueError, "mismatches: not in the play phase");
            return -1;
        }
        if (legal_mask(e, &legal) < 0)
            return -1;
        if (key < 0 || key >= 52 || !((legal >> key) & 1)) {
            PyErr_Format(PyExc_ValueError, "mismatches: key %d may not be played here", key);
            return -1;
        }
        if ((r->seats >> seat & 1) && (legal & (legal - 1))) {
            if (e->ntrick == 0) {
                if (r->leads)
                    count += !(lowest_leads(legal) >> key & 1);
            } else {
                /* off the lead the policy never draws */
                const long *values = r->g.values;
                int choice = greedy_choice(e, legal, values, r->g.trick_teams, NULL);
                if (choice != key &&
                    (!r->points || values[choice] || values[key] || choice == GZ_TRANSFORMER ||
                     key == GZ_TRANSFORMER))
                    count++;
            }
        }
        play_key(e, key);
    }
    return count;
}

/* Read mismatches' arguments from keys onwards into r; -1 with an exception. */
static int read_reading(PyObject *keys_obj, PyObject *values_obj, long seats, PyObject *teams_obj,
                        int leads, int points, Reading *r)
{
    PyObject *fast;
    Py_ssize_t i, n;
    if (gz_read_greedy(values_obj, teams_obj, &r->g) < 0)
        return -1;
    fast = PySequence_Fast(keys_obj, "keys must be a sequence of card keys");
    if (fast == NULL)
        return -1;
    n = PySequence_Fast_GET_SIZE(fast);
    if (n > 52) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "mismatches: more than 52 keys");
        return -1;
    }
    for (i = 0; i < n; i++) {
        int overflow;
        long key = PyLong_AsLongAndOverflow(PySequence_Fast_GET_ITEM(fast, i), &overflow);
        if (key == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        r->keys[i] = overflow || key < 0 || key >= 52 ? -1 : (int)key;
    }
    Py_DECREF(fast);
    r->nkeys = (int)n;
    r->seats = seats;
    r->leads = leads;
    r->points = points;
    return 0;
}

/* mismatches(keys, values, seats, teams=None, leads=False, points=False): play the cards `keys`
 * in order from here, and count the plays of the seats in `seats` (bit s for seat s) that the
 * greedy playout policy (with values, and teams as greedy_playout takes them, for every trick)
 * would not have made where the seat had a choice; with `points`, off the lead only those where
 * the policy's card or the seat's is worth points (values) or is the transformer.  On a lead,
 * any of the leads that share the policy's lowest lead key is the policy's (its draw picks
 * among them); leads count only with `leads`.  No random() is drawn.  The engine is left where
 * the keys lead it (play on a copy); a key that may not be played raises ValueError, after the
 * keys before it. */
static PyObject *engine_mismatches(Engine *e, PyObject *args)
{
    PyObject *keys_obj, *values_obj, *teams_obj = Py_None;
    long seats;
    int leads = 0, points = 0, count;
    Reading r;
    if (!PyArg_ParseTuple(args, "OOl|Opp:mismatches", &keys_obj, &values_obj, &seats, &teams_obj,
                          &leads, &points))
        return NULL;
    if (read_reading(keys_obj, values_obj, seats, teams_obj, leads, points, &r) < 0)
        return NULL;
    count = count_mismatches(e, &r);
    return count < 0 ? NULL : PyLong_FromLong(count);
}

/* read_deal(dealer, candidates, played, factor, random, keys, values, seats, teams=None,
 * leads=False, points=False) -> [four masks] or None: from this engine at the start of the
 * play, one of `candidates` deals of `dealer` (a SampleDealer), each as likely as
 * factor ** its mismatches (the hidden holdings now; with played[s] added, what each seat held
 * when the play began): after each deal of weight w > 0, one random() keeps it with chance
 * w / the weights so far, as gongzhu.bots.sampler.PlayReading.draw does in Python, draw for
 * draw.  None when every deal was a dead end or weighs nothing. */
static PyObject *engine_read_deal(Engine *e, PyObject *args)
{
    PyObject *dealer, *played_obj, *random, *keys_obj, *values_obj, *teams_obj = Py_None;
    long candidates, seats;
    double factor, total = 0.0;
    int leads = 0, points = 0, c, s, chosen = 0;
    uint64_t played[4], best[4];
    Mask pm[4];
    Reading r;
    if (!PyArg_ParseTuple(args, "OlOdOOOl|Opp:read_deal", &dealer, &candidates, &played_obj,
                          &factor, &random, &keys_obj, &values_obj, &seats, &teams_obj, &leads,
                          &points))
        return NULL;
    if (!(factor > 0.0 && factor <= 1.0)) {
        PyErr_SetString(PyExc_ValueError, "read_deal: factor must be in (0, 1]");
        return NULL;
    }
    if (e->h.s.phase != PHASE_PLAY || e->ntricks || e->ntrick) {
        PyErr_SetString(PyExc_ValueError, "read_deal: the engine must be at the start of the play");
        return NULL;
    }
    if (read_holdings(played_obj, pm) < 0 ||
        read_reading(keys_obj, values_obj, seats, teams_obj, leads, points, &r) < 0)
        return NULL;
    for (s = 0; s < 4; s++)
        played[s] = pm[s].lo;
    for (c = 0; c < candidates; c++) {
        uint64_t masks[4], dealt[4];
        Engine scratch;
        int got = gz_dealer_deal(dealer, random, masks), misses;
        const char *reason;
        double weight, x;
        if (got < 0)
            return NULL;
        if (!got)
            continue;
        for (s = 0; s < 4; s++)
            dealt[s] = masks[s] | played[s];
        reason = redeal_refusal(e, dealt);
        if (reason != NULL) {
            PyErr_Format(PyExc_ValueError,
                         "read_deal: a deal and the played cards do not make the engine's "
                         "cards: %s",
                         reason);
            return NULL;
        }
        memcpy(&scratch, e, sizeof scratch);
        set_hands(&scratch, dealt);
        misses = count_mismatches(&scratch, &r);
        if (misses < 0)
            return NULL;
        weight = pow(factor, misses);
        total += weight;
        if (weight > 0.0) {
            if (gz_random_float(random, &x) < 0)
                return NULL;
            if (x * total < weight) {
                memcpy(best, masks, sizeof best);
                chosen = 1;
            }
        }
    }
    if (!chosen)
        Py_RETURN_NONE;
    return Py_BuildValue("[KKKK]", (unsigned long long)best[0], (unsigned long long)best[1],
                         (unsigned long long)best[2], (unsigned long long)best[3]);
}

static PyObject *masks_of(const uint64_t *m)
{
    Mask out[4] = {{m[0], 0}, {m[1], 0}, {m[2], 0}, {m[3], 0}};
    return gz_masks_tuple(out);
}

static PyObject *get_holdings(Engine *e, void *c) { (void)c; return masks_of(e->hands); }
static PyObject *get_taken(Engine *e, void *c) { (void)c; return masks_of(e->taken); }
static PyObject *get_trick_leader(Engine *e, void *c) { (void)c; return PyLong_FromLong(e->trick_leader); }
static PyObject *get_trick_count(Engine *e, void *c) { (void)c; return PyLong_FromLong(e->ntricks); }
static PyObject *get_trick(Engine *e, void *c) { (void)c; return gz_int_tuple(e->ntrick, e->trick); }

static PyObject *get_trick_log(Engine *e, void *c)
{
    (void)c;
    return gz_trick_log(e->log_leader, e->log_keys, e->log_winner, e->log_taker, e->ntricks);
}

static PyObject *engine_shown_taken(Engine *e, PyObject *unused)
{
    (void)e;
    (void)unused;
    Py_RETURN_NONE; /* one deck: a shown card is one card */
}

/* The finished hand scored from the ruleset's ScoreData (gz_score_hand's code). */
static int score_hand(GZHead *h, const ScoreData *d, long long *raw, int *full_hearts, int *slam)
{
    Engine *e = (Engine *)h;
    ShowRec shows[SCORE_SHOWS_MAX];
    Mask taken[4];
    int n = gz_shows_of_log(h->tables, &h->s, shows), s;
    for (s = 0; s < 4; s++) {
        taken[s].lo = e->taken[s];
        taken[s].hi = 0;
    }
    return gz_score_hand(d, taken, h->s.dealt, shows, n, NULL, NULL, raw, full_hearts, slam);
}

/* A new hand on the engine's tables, as engine_init sets one up. */
static void reset(GZHead *h, const Mask *dealt, const ShowState *start)
{
    Engine *e = (Engine *)h;
    int seat;
    gz_engine_begin(h, (PyObject *)h->tables, sizeof(Engine), start, dealt, &engine_ops);
    for (seat = 0; seat < 4; seat++)
        e->hands[seat] = dealt[seat].lo;
    e->unled = ALL_CARDS;
    e->trick_leader = start->leader;
}

static const HandOps hand_ops = {1, &GZ_SingleEngineType, sizeof(Engine), reset, playout,
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

/* playouts(data, keys, random, values=None, teams=None, endgame=0): see gz_playouts
 * (shows.c); with values, each copy plays out as greedy_playout(values, random, teams) plays,
 * else as random_playout(random).  With endgame (a number of tricks, 1-13; values and teams
 * needed), once no seat holds more than that many cards the rest of the hand is searched
 * exactly instead (alpha-beta, both sides playing their best): the team of the seat to act
 * maximises its raw points less the other team's, the other team minimises them, and the
 * scores are those of the hand's end on that line.  Every argument is read before any copy
 * is made. */
static PyObject *engine_playouts(Engine *e, PyObject *args, PyObject *kwds)
{
    PyObject *data, *keys, *random, *values_obj = Py_None, *teams_obj = Py_None;
    PyObject *endgame_obj = NULL;
    long endgame = 0;
    int s;
    GZGreedy g;
    static char *kwlist[] = {"data", "keys", "random", "values", "teams", "endgame", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO|OOO:playouts", kwlist, &data, &keys,
                                     &random, &values_obj, &teams_obj, &endgame_obj))
        return NULL;
    if (endgame_obj != NULL &&
        gz_small_int(endgame_obj, 0, MAX_TRICKS, &endgame,
                     "playouts: endgame must be a number of tricks, 0-13") < 0)
        return NULL;
    if (values_obj == Py_None) {
        if (teams_obj != Py_None) {
            PyErr_SetString(PyExc_ValueError, "playouts: teams are for the greedy playout");
            return NULL;
        }
        if (endgame) {
            PyErr_SetString(PyExc_ValueError, "playouts: endgame needs values and teams");
            return NULL;
        }
        return gz_playouts(&e->h, data, keys, random, &hand_ops, NULL, NULL);
    }
    if (endgame && teams_obj == Py_None) {
        PyErr_SetString(PyExc_ValueError, "playouts: endgame needs values and teams");
        return NULL;
    }
    if (gz_read_greedy(values_obj, teams_obj, &g) < 0)
        return NULL;
    if (endgame) {
        if (gz_check_score_data(data, 1, e->h.tables) < 0)
            return NULL;
        if (e->h.s.phase != PHASE_PLAY) {
            PyErr_SetString(PyExc_ValueError, "playouts: not in the play phase");
            return NULL;
        }
        g.endgame = (int)endgame;
        g.data = (const ScoreData *)data;
        for (s = 0; s < 4; s++)
            g.sign[s] = g.teams[s] == g.teams[e->h.s.seat] ? 1 : -1;
    }
    return gz_playouts(&e->h, data, keys, random, &hand_ops, greedy_run, &g);
}

static PyGetSetDef engine_getset[] = {
    {"phase", (getter)gz_get_phase, NULL, "the phase (gongzhu.play.ENGINE_PHASES)", NULL},
    {"seat", (getter)gz_get_seat, NULL, "the seat to act, or -1 when over", NULL},
    {"holdings", (getter)get_holdings, NULL, "each seat's cards (masks)", NULL},
    {"taken", (getter)get_taken, NULL, "each seat's taken cards (masks)", NULL},
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
    {"legal_mask", (PyCFunction)engine_legal_mask, METH_NOARGS,
     "the cards the seat to act may play (the play phase)"},
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
    {"read_deal", (PyCFunction)engine_read_deal, METH_VARARGS,
     "read_deal(dealer, candidates, played, factor, random, keys, values, seats, teams=None, "
     "leads=False, points=False): one of candidates deals, by factor ** its mismatches"},
    {"mismatches", (PyCFunction)engine_mismatches, METH_VARARGS,
     "mismatches(keys, values, seats, teams=None, leads=False, points=False): the plays the "
     "greedy policy "
     "would not have made"},
    {"greedy_playout", (PyCFunction)engine_greedy_playout, METH_VARARGS,
     "greedy_playout(values, random, teams=None): the greedy playout policy of gongzhu.bots.playout"},
    {"playouts", (PyCFunction)(void (*)(void))engine_playouts, METH_VARARGS | METH_KEYWORDS,
     "playouts(data, keys, random, values=None, teams=None, endgame=0) -> the raw scores of "
     "each key played on a copy, played out (greedy with values, else random; the last "
     "endgame tricks searched exactly for the teams) and scored"},
    {"score", (PyCFunction)engine_score, METH_O,
     "score(data) -> ((raw scores), full_hearts, slam), from the ruleset's ScoreData"},
    {"random_hands", (PyCFunction)engine_random_hands, METH_VARARGS,
     "random_hands(data, count, next_digest, random, lead) -> [((raw), full_hearts, slam)]"},
    {"shown_taken", (PyCFunction)engine_shown_taken, METH_NOARGS, "None: one deck"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject GZ_SingleEngineType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gongzhu._speedups.SingleEngine",
    .tp_doc = "SingleEngine(tables, holdings, leader, forced, first_seat, first_cards)\n\n"
              "A one-deck hand in C (see gongzhu.engines.single.SingleEngine).",
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
