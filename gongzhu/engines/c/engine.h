/*
 * gongzhu._speedups: the C twins of the pure-Python engines of gongzhu/engines/
 * (base.py: the show phases; single.py: one deck; pairs.py: two decks with pairs),
 * and the deal's sort (gongzhu/deal.py).
 *
 * One extension module built from the files of this folder:
 *   common.c  card masks across the boundary, the Play objects, random draws,
 *             asking a plug-in's play rule (a PlaySituation, then refuse/require)
 *   tables.c  Tables: a ruleset's show phases and play rules, made once per ruleset
 *   shows.c   the show phases of a hand (首明, shows, auto-show, the lock), for both engines
 *   single.c  SingleEngine: one deck
 *   pairs.c   PairsEngine: two decks with pairs
 *   deal.c    shuffle_deck
 *   batch.c   Batch: N engines of one type stepped together, masks and actions as buffers
 *   score.c   ScoreData: a ruleset's compiled score data, and gz_score_hand, its interpreter
 *   module.c  the module
 *
 * Everything that crosses into C is checked, so that no input can crash the
 * interpreter or leave an engine half-updated: masks are ints in range
 * (TypeError / ValueError, never truncated), every argument is read whole before
 * an engine changes, and Python code that may run (random(), a plug-in's play
 * rule, the lazy play_of_key, a finaliser) runs before the state it could change
 * is relied on (engines carry a version number that every change bumps).
 *
 * The tests hold every engine here to its Python reference, hand for hand.
 */
#ifndef GONGZHU_ENGINE_H
#define GONGZHU_ENGINE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* -- card masks: a card's first copy at bit index, its second at bit 52 + index ----------- */

typedef struct {
    uint64_t lo, hi; /* first copies, second copies (a second only with its first) */
} Mask;

#define ALL_CARDS ((1ULL << 52) - 1)
/* Play keys (gongzhu.actions.key_of_cards, held equal by tests/test_engine_contract.py):
 * a card index for one card, ONE_CARD_KEYS + 52a + b for two cards a <= b. */
#define ONE_CARD_KEYS 52
#define NKEYS (ONE_CARD_KEYS + 52 * 52) /* every play key is below (gongzhu.actions.PLAY_KEYS) */
#define TWO_KEY(a, b) (ONE_CARD_KEYS + 52 * (a) + (b)) /* a <= b */
#define PAIR_KEY(i) TWO_KEY(i, i)
#define KEY_FIRST(key) ((key) < ONE_CARD_KEYS ? (key) : ((key) - ONE_CARD_KEYS) / 52)
#define KEY_SECOND(key) ((key) < ONE_CARD_KEYS ? (key) : ((key) - ONE_CARD_KEYS) % 52)

extern const uint64_t GZ_SUIT[4];

static inline int copies_in(Mask m, int index)
{
    return (int)((m.lo >> index) & 1) + (int)((m.hi >> index) & 1);
}

static inline void add_copy(Mask *m, int index)
{
    uint64_t bit = 1ULL << index;
    if (m->lo & bit)
        m->hi |= bit;
    else
        m->lo |= bit;
}

static inline void remove_copy(Mask *m, int index)
{
    uint64_t bit = 1ULL << index;
    if (m->hi & bit)
        m->hi ^= bit;
    else
        m->lo ^= bit;
}

static inline void add_copies(Mask *a, Mask b)
{
    uint64_t m;
    for (m = b.lo; m; m &= m - 1)
        add_copy(a, __builtin_ctzll(m));
    for (m = b.hi; m; m &= m - 1)
        add_copy(a, __builtin_ctzll(m));
}

/* Per card, the copies in a less those in b (never below zero). */
static inline Mask subtract_copies(Mask a, Mask b)
{
    Mask out;
    out.lo = (a.hi & ~b.hi) | (a.lo & ~b.lo);
    out.hi = a.hi & ~b.lo;
    return out;
}

static inline int mask_count(Mask m)
{
    return __builtin_popcountll(m.lo) + __builtin_popcountll(m.hi);
}

/* -- the phases (gongzhu.play.ENGINE_PHASES) and refusal codes (gongzhu.play.RULE_CODES) -- */

/* the phase numbers (gongzhu.play.FIRST_SHOW_PHASE ... OVER_PHASE, held equal by a test) */
enum { PHASE_FIRST_SHOW = 0, PHASE_SHOW = 1, PHASE_PLAY = 2, PHASE_OVER = 3 };
enum { OVER = -1, ILLEGAL = -2 };
enum {
    CODE_HOLDING = 1,
    CODE_SHAPE = 2,
    CODE_OPENING_LEAD = 3,
    CODE_FOLLOW_SUIT = 4,
    CODE_PAIR_FOLLOW = 5,
    CODE_LOCK = 6,
    CODE_DISCARD_RULE = 7,
    CODE_PLAY_RULE = 8,
};
enum { OVER_DETAIL = 1 };                                          /* CODE_HOLDING */
enum { SHAPE_ONE = 0, SHAPE_LEAD = 1, SHAPE_PAIR = 2, SHAPE_SINGLE = 3, SHAPE_ANY = 4 };
enum { LOCK_LEAD = 0, LOCK_FOLLOW = 1, LOCK_DISCARD = 2, LOCK_COPIES = 3 };

/* -- Tables: a ruleset's show phases and play rules (tables.c) ------------------------------ */

#define MAX_SHOWABLE 8

typedef struct {
    Mask copies; /* the shown cards */
    int kind;    /* the show kind's code (gongzhu.showphase.KINDS) */
    int locks;   /* whether the shown-card lock holds them */
} Choice;

typedef struct {
    int when;         /* PlayMoment bits */
    uint64_t cards;   /* the cards it can refuse or require (first-copy bits) */
    PyObject *refuse; /* callables, or NULL */
    PyObject *require;
    PyObject *name;   /* the rule's name (str), for the error of a rule that fails */
    PyObject *owner;  /* the plug-in that added it (str or None), for the same error */
} Rule;

typedef struct {
    PyObject_HEAD
    int ready;
    /* the show phases */
    int copies, base, ncards, cards[MAX_SHOWABLE];
    uint64_t showable; /* first-copy bits */
    int nholdings;     /* base ** ncards */
    int *held_start;   /* nholdings + 1 offsets into held_ids */
    int *held_ids;
    PyObject **held_shows; /* per holding: the tuple of Show objects (owned) */
    int has_first;
    int first_start[53];
    int *first_ids;
    PyObject *first_shows[52]; /* per card: its 首明 Show objects (owned), or NULL */
    int *forced;               /* per holding: auto-show's choice id, or -1 */
    int auto_show;
    int nchoices;
    Choice *choices;
    /* the play */
    int lock_first, lock_discards, lift_for_hand;
    int has_preferred, strict, penalty, last_offender;
    uint64_t preferred[4];
    int pair_beats_unmatched;
    int nrules;
    Rule *rules;
    PyObject *situation; /* the PlaySituation class: a named tuple of six fields */
    int moment_lead, moment_follow, moment_discard;
} Tables;

extern PyTypeObject GZ_TablesType;

/* -- the show phases of one hand (shows.c) -------------------------------------------------- */

#define SHOW_LOG_MAX 16 /* 首明 (at most 4 decisions), the show turns (4), auto-show (4) */

typedef struct {
    int seat, id, forced;
} ShowEntry;

typedef struct {
    int phase, seat, leader;
    uint64_t forced;
    int first_seat, first_cards[4];
    int pending[4], npending;
    Mask dealt[4], shown[4], locked[4];
    int nlog;
    ShowEntry log[SHOW_LOG_MAX];
} ShowState;

/* The most legal plays a seat can have: any two of 52 cards (1326) or a pair (52). */
#define GZ_LEGAL_MAX 1378

typedef struct GZHead GZHead;

/* An engine type's own steps, reached from C without Python (the batch, batch.c):
 *   start_play  the start of the first trick, called when the show phases end;
 *   legal_keys  in the play phase, the legal play keys of the seat to act, ascending (the
 *               order of legal()), into keys (room for GZ_LEGAL_MAX): their number, or -1
 *               with an exception (a plug-in's play rule may run);
 *   play_key    play key `key` for the seat to act: a key legal_keys gave, at the version
 *               it gave it (the caller checks);
 *   read        what the hand's play has done so far (pointers into the engine, valid until
 *               it next changes), for the batch's observations. */
typedef struct {
    Mask hands[4], taken[4];                /* each seat's cards now, and taken */
    int ntricks;                            /* the finished tricks, then their log: */
    const int *log_leader, *log_keys;       /* leaders, 4 play keys each */
    const int *log_winner, *log_taker;      /* winners; takers (NULL: the winners) */
    int ntrick, trick_leader;               /* the trick under way: its plays, its leader */
    const int *trick;                       /* its play keys */
} GZPlayView;

typedef struct {
    void (*start_play)(GZHead *engine);
    int (*legal_keys)(GZHead *engine, int *keys);
    void (*play_key)(GZHead *engine, int key);
    void (*read)(const GZHead *engine, GZPlayView *view);
} GZEngineOps;

/* What both engine types begin with: their tables, and then their plain state (copy()
 * copies an engine byte for byte from `s`): the show phases, the version every change of
 * the state bumps (code that may run Python checks it did not change under it), and the
 * engine type's own steps. */
struct GZHead {
    PyObject_HEAD
    Tables *tables; /* NULL only before __init__ ends or after tp_clear */
    ShowState s;
    unsigned long version;
    const GZEngineOps *ops; /* NULL only before __init__ ends */
};

/* The engine's set-up after its arguments are read: the tables kept, the state from `s` on
 * zeroed (size: the engine struct's), the version carried on, the show phases begun. */
void gz_engine_begin(GZHead *h, PyObject *tables, size_t size, const ShowState *start,
                     const Mask *dealt, const GZEngineOps *ops);
PyObject *gz_engine_new(PyTypeObject *type, PyObject *args, PyObject *kwds);
int gz_engine_traverse(GZHead *h, visitproc visit, void *arg);
int gz_engine_clear(GZHead *h);
void gz_engine_dealloc(GZHead *h);
/* show(choice): the next seat, or ILLEGAL (a method of both engine types). */
PyObject *gz_engine_show(GZHead *h, PyObject *arg);
/* random_playout's draws through the show phases (to the first trick); 0, or -1. */
int gz_random_shows(GZHead *h, PyObject *random);
PyObject *gz_get_phase(GZHead *h, void *closure);
PyObject *gz_get_seat(GZHead *h, void *closure);
PyObject *gz_get_show_log(GZHead *h, void *closure);

/* Read the arguments every engine takes after its tables (holdings come before):
 * leader, forced, first_seat, first_cards; 0, or -1 with an exception set. */
int gz_read_start(PyObject *leader, PyObject *forced, PyObject *first_seat,
                  PyObject *first_cards, ShowState *s);
/* Begin the show phases (the 首明 phase when some seat's first card is showable). */
void gz_shows_begin(const Tables *t, ShowState *s, const Mask *dealt);
/* The ids of the choices of the seat to act in a show phase; *n gets their number. */
const int *gz_show_ids(const Tables *t, const ShowState *s, int *n);
/* The legal shows of the seat to act (a new reference to the table's tuple). */
PyObject *gz_show_legal(const Tables *t, const ShowState *s);
/* Take choice `index` (0 <= index < n) of gz_show_ids; 1 when the show phases ended
 * (auto-show made, s->phase is PHASE_PLAY: the caller starts the first trick), else 0. */
int gz_show_take(const Tables *t, ShowState *s, int index);
PyObject *gz_show_log(const ShowState *s);

/* -- shared helpers (common.c) -------------------------------------------------------------- */

/* What gz_read_mask accepts: any mask below 2**104; a two-deck holding (no second copy
 * without its first); a one-deck mask (52 bits). */
enum { MASK_ANY = 0, MASK_TWO_DECKS = 1, MASK_ONE_DECK = 2 };
/* An int (or __index__) that is a mask of kind `kind`: 0 with *m set; -1 with
 * TypeError / ValueError(message). */
int gz_read_mask(PyObject *obj, Mask *m, const char *message, int kind);
/* Four masks from a sequence, read one after another (see gz_read_mask). */
int gz_read_masks(PyObject *seq, Mask *out, const char *message, int kind);
/* An int in lo..hi; TypeError for a non-int, ValueError(message) out of range. */
int gz_small_int(PyObject *o, long lo, long hi, long *out, const char *message);
PyObject *gz_mask_long(Mask m);
PyObject *gz_masks_tuple(const Mask *m);
PyObject *gz_int_tuple(int n, const int *values);
/* The Play object of play key `key` (borrowed, cached for good), or NULL with an
 * exception: the first call for a two-card key runs Python code (play_of_key). */
PyObject *gz_play(int key);
int gz_set_plays(PyObject *singles, PyObject *play_of_key);
/* One draw: int(random() * n) into *out; ValueError unless random() returns a float in
 * [0, 1).  The caller checks its engine's version afterwards (draws.c). */
int gz_draw(PyObject *random, int n, int *out);
/* One random() float in [0, 1) into *out, or -1 with an exception (draws.c: made in C for a
 * random.Random's own random). */
int gz_random_float(PyObject *random, double *out);
int gz_draws_init(void);
PyObject *gz_draws_in_c(PyObject *self, PyObject *unused);
/* The PlaySituation of the seat to act (a new reference), or NULL with an exception. */
PyObject *gz_situation(const Tables *t, int seat, Mask holding, const int *trick, int ntrick,
                       uint64_t played, uint64_t unled, uint64_t candidates);
/* A rule's refuse or require answer for `situation`: the cards it names (first-copy bits:
 * (x | x >> 52) & ALL_CARDS, as the Python reference reads it) into *out; 0, or -1 with an
 * exception (the rule's own, or TypeError for an answer that is not an int). */
int gz_rule_answer(const Rule *rule, PyObject *part, PyObject *situation, uint64_t *out);
PyObject *gz_trick_log(const int *leaders, const int *keys, const int *winners,
                       const int *takers, int ntricks);

PyObject *gz_shuffle_deck(PyObject *self, PyObject *args);
/* The deal of shuffle_deck from a digest of 8 bytes per card of `copies` decks, the first
 * seat 0: each seat's cards into dealt[4], and the card index dealt at each position into
 * order (52 * copies). */
void gz_deal(const unsigned char *digest, int copies, Mask *dealt, int *order);

/* -- scoring from the compiled score data (score.c) ----------------------------------------- */

#define SCORE_KINDS 3                       /* show kind codes (gongzhu.showphase.KINDS) */
#define SCORE_STATES (1 + 4 * SCORE_KINDS) /* a copy unshown, or shown by a seat, a kind */
#define SCORE_SHOWS_MAX 16                  /* shown copies in a hand (8 cards, 5 x 2 copies) */

typedef struct {
    int seat, index, kind; /* who showed the copy, the card, the show kind's code */
} ShowRec;

/* What gongzhu.scoring.compiled.score_data exports (see score.c). */
typedef struct {
    PyObject_HEAD
    int ready;
    int copies, heart_index, nkinds; /* heart_index: the showable heart, or -1 */
    long long heart_value[13];       /* by rank - 2 */
    long long show_factor[SCORE_KINDS]; /* by kind code */
    int has_kind[SCORE_KINDS];          /* whether the ruleset has the kind */
    int pig, sheep, transformer;        /* card indices */
    long long pig_value, sheep_value, multiplier, alone;
    uint64_t scoring;   /* the scoring cards (first-copy bits) */
    uint64_t concerned; /* the cards a per-copy stage may change */
    int copy_stages;    /* whether the per-copy stages' factors below are read */
    /* per seat, card, copy state (0 unshown, 1 + show seat * nkinds + kind), whether the
     * copy is the seat's own: the product of the per-copy stages' factors on the copy's own
     * value, and on a transformer's alone-value */
    long long copy_own[4][52][SCORE_STATES][2], copy_alone[4][52][SCORE_STATES][2];
} ScoreData;

extern PyTypeObject GZ_ScoreDataType;
/* The sampler's deal of one view, in C (sample.c). */
extern PyTypeObject GZ_SampleDealerType;
/* One sample of a SampleDealer into masks[4]: 1, 0 at a dead end, -1 with an exception. */
int gz_dealer_deal(PyObject *dealer, PyObject *random, uint64_t *masks);

/* The raw scores of a finished hand, and whether some seat took every heart (满红) or every
 * scoring card (满贯), as gongzhu.scoring.Scorer.outcome has them before normalising.
 * taken, dealt (NULL: unknown): per seat; shows: every shown copy, in the order shown;
 * shown_taken, nshown_taken (two decks): per seat, the shown copies it took, in order.
 * 0; -1 when a score leaves 64 bits; -2 for a show the data does not know (no exception
 * is set: the caller scores in Python or raises). */
int gz_score_hand(const ScoreData *d, const Mask *taken, const Mask *dealt, const ShowRec *shows,
                  int nshows, const ShowRec *const *shown_taken, const int *nshown_taken,
                  long long *raw, int *full_hearts, int *slam);
/* -- bulk play: whole random hands dealt, played and scored in C (shows.c) ------------------ */

/* What gz_random_hands asks of an engine type. */
typedef struct {
    int copies;
    PyTypeObject *type; /* the engine type (not a subclass) and its struct's size */
    size_t size;
    /* the engine set up for a new hand (its tables kept), as its __init__ does */
    void (*reset)(GZHead *h, const Mask *dealt, const ShowState *start);
    /* random_playout: 0, or -1 with an exception */
    int (*playout)(GZHead *h, PyObject *random);
    /* gz_score_hand of the finished hand */
    int (*score)(GZHead *h, const ScoreData *d, long long *raw, int *full_hearts, int *slam);
} HandOps;

/* random_hands(data, count, next_digest, random, lead) of both engine types: see shows.c. */
PyObject *gz_random_hands(GZHead *h, PyObject *args, const HandOps *ops);
/* The cards the greedy playout policy knows by name (gongzhu.cards.PIG, SHEEP, TRANSFORMER:
 * their indexes), and a card's rank as gongzhu.cards.Rank numbers it (2 to 14). */
#define GZ_PIG 10
#define GZ_SHEEP 35
#define GZ_TRANSFORMER 47
#define GZ_RANK_OF(c) ((c) % 13 + 2)

/* What the greedy playout policy adds to a lead's rank for its top card (it leads the play
 * of the lowest rank plus this): the pig, its guards, hearts, the sheep and the transformer
 * are led last. */
static inline int gz_lead_penalty(int card)
{
    int suit = card / 13;
    if (suit == 0)
        return card == GZ_PIG ? 30 : GZ_RANK_OF(card) > 12 ? 20 : 0;
    if (suit == 1)
        return 2;
    return card == GZ_SHEEP || card == GZ_TRANSFORMER ? 15 : 0;
}
/* The greedy playout policy's data: each card's base value (one deck's 52 cards; with two
 * decks each copy's), and each seat's team (trick_teams NULL: every seat for itself). */
typedef struct {
    long values[52], teams[4];
    const long *trick_teams;
    /* the one-deck engine's exact end game (single.c): how many last tricks it searches (0:
     * none), the score data its leaves are scored from, and each seat's side (+1: the team
     * of the seat that searches, -1: the other) */
    int endgame;
    const ScoreData *data;
    long long sign[4];
} GZGreedy;
/* values (52 ints) and teams (None or 4 ints 0-3) into *g, with no end game; 0, or -1 with
 * an exception. */
int gz_read_greedy(PyObject *values_obj, PyObject *teams_obj, GZGreedy *g);
/* A playout policy for gz_playouts: play `copy` to the end of its hand from the play phase
 * (`policy`: the policy's own data); 0, or -1 with an exception.  A policy that finds the
 * hand's raw scores itself without playing it to the end (an exact end-game search)
 * writes them into raw[4] and returns 1: the copy is then not scored. */
typedef int (*GZPlayoutFn)(GZHead *copy, PyObject *random, const void *policy, long long *raw);
/* greedy_playout(values, random, teams=None) of both engine types (common.c): play to the end
 * by the engine's greedy policy `run`; None, or NULL with an exception. */
PyObject *gz_greedy_playout(GZHead *h, PyObject *args, GZPlayoutFn run);
/* playouts(data, keys, random, ...) of both engine types: each play key played on a copy of
 * the engine, the hand played out by `run` (NULL: random_playout) and scored from `data`
 * (shows.c). */
PyObject *gz_playouts(GZHead *h, PyObject *data, PyObject *keys, PyObject *random,
                      const HandOps *ops, GZPlayoutFn run, const void *policy);
/* score(data) of both engine types -> ((raw scores), full_hearts, slam): the finished hand
 * scored from the ruleset's ScoreData (score.c), its normalisation left to the caller. */
PyObject *gz_engine_score(GZHead *h, PyObject *data, const HandOps *ops);

/* The shown copies of an engine's show log, in the order shown (at most SCORE_SHOWS_MAX:
 * a ruleset's show table holds no more); their number. */
int gz_shows_of_log(const Tables *t, const ShowState *s, ShowRec *out);
/* 0 when `data` is a ready ScoreData of `copies` decks and `tables` is set; else -1 with
 * TypeError / ValueError. */
int gz_check_score_data(PyObject *data, int copies, const Tables *tables);

extern PyTypeObject GZ_SingleEngineType;
extern PyTypeObject GZ_PairsEngineType;
extern PyTypeObject GZ_BatchType;

#endif
