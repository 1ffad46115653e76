/* ScoreData: a ruleset's compiled score data, and its interpreter.
 *
 * Not a third statement of the scoring rules: gongzhu.scoring.CompiledScorer exports the
 * data it scores from (gongzhu.scoring.compiled.score_data: the heart values, the show
 * factors by kind code, the pig's, sheep's and transformer's values, and the answers of the
 * plug-ins' per-copy stages for every copy they can be asked about), and gz_score_hand
 * reads it as CompiledScorer.raw and raw_copies do, the copies numbered as
 * gongzhu.scoring.copies.copy_owners numbers them.  A ruleset whose scoring is not
 * expressible so (another stage, other scoring cards) has no ScoreData: Python scores it.
 * tests/test_score_c.py holds the outcomes equal to gongzhu.scoring.Scorer.outcome. */
#include "engine.h"

static int read_ll(PyObject *o, long long lo, long long hi, long long *out, const char *what)
{
    PyObject *v = PyNumber_Index(o);
    long long x;
    int overflow;
    if (v == NULL)
        return -1;
    x = PyLong_AsLongLongAndOverflow(v, &overflow);
    Py_DECREF(v);
    if (x == -1 && PyErr_Occurred())
        return -1;
    if (overflow || x < lo || x > hi) {
        PyErr_Format(PyExc_ValueError, "ScoreData: %s out of range", what);
        return -1;
    }
    *out = x;
    return 0;
}

/* item i of tuple t as an int in lo..hi */
static int item_ll(PyObject *t, Py_ssize_t i, long long lo, long long hi, long long *out,
                   const char *what)
{
    return read_ll(PyTuple_GET_ITEM(t, i), lo, hi, out, what);
}

static PyObject *exact_tuple(PyObject *o, Py_ssize_t n, const char *what)
{
    if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != n) {
        PyErr_Format(PyExc_ValueError, "ScoreData: %s must be a tuple of %zd", what, n);
        return NULL;
    }
    return o;
}

#define VALUE_LIMIT (1LL << 24) /* values and factors; larger ones stay in Python */

static int score_init(ScoreData *d, PyObject *args, PyObject *kwds)
{
    PyObject *data, *values, *factors, *effects;
    ScoreData *r;
    long long x;
    Py_ssize_t i, j, n;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "ScoreData takes no keyword arguments");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "O!:ScoreData", &PyTuple_Type, &data))
        return -1;
    if (exact_tuple(data, 11, "the data") == NULL)
        return -1;
    r = PyMem_Calloc(1, sizeof *r); /* read whole before `d` changes */
    if (r == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (item_ll(data, 0, 1, 2, &x, "copies") < 0)
        goto fail;
    r->copies = (int)x;
    if (item_ll(data, 1, -1, 51, &x, "the showable heart") < 0)
        goto fail;
    r->heart_index = (int)x;
    if ((values = exact_tuple(PyTuple_GET_ITEM(data, 2), 13, "the heart values")) == NULL)
        goto fail;
    for (i = 0; i < 13; i++) {
        if (item_ll(values, i, -VALUE_LIMIT, VALUE_LIMIT, &r->heart_value[i], "a value") < 0)
            goto fail;
    }
    factors = PyTuple_GET_ITEM(data, 3);
    if (!PyTuple_Check(factors) || PyTuple_GET_SIZE(factors) < 1 ||
        PyTuple_GET_SIZE(factors) > SCORE_KINDS) {
        PyErr_SetString(PyExc_ValueError, "ScoreData: the show factors, one per kind code");
        goto fail;
    }
    r->nkinds = (int)PyTuple_GET_SIZE(factors);
    for (i = 0; i < r->nkinds; i++) { /* None: a kind the ruleset does not have */
        r->has_kind[i] = PyTuple_GET_ITEM(factors, i) != Py_None;
        if (r->has_kind[i] &&
            item_ll(factors, i, -VALUE_LIMIT, VALUE_LIMIT, &r->show_factor[i], "a factor") < 0)
            goto fail;
    }
    if (item_ll(data, 4, 0, 51, &x, "the pig") < 0)
        goto fail;
    r->pig = (int)x;
    if (item_ll(data, 5, 0, 51, &x, "the sheep") < 0)
        goto fail;
    r->sheep = (int)x;
    if (item_ll(data, 6, 0, 51, &x, "the transformer") < 0)
        goto fail;
    r->transformer = (int)x;
    values = exact_tuple(PyTuple_GET_ITEM(data, 7), 4, "the values");
    if (values == NULL ||
        item_ll(values, 0, -VALUE_LIMIT, VALUE_LIMIT, &r->pig_value, "a value") < 0 ||
        item_ll(values, 1, -VALUE_LIMIT, VALUE_LIMIT, &r->sheep_value, "a value") < 0 ||
        item_ll(values, 2, -VALUE_LIMIT, VALUE_LIMIT, &r->multiplier, "a value") < 0 ||
        item_ll(values, 3, -VALUE_LIMIT, VALUE_LIMIT, &r->alone, "a value") < 0)
        goto fail;
    if (r->pig / 13 == 1 || r->sheep / 13 == 1 || r->transformer / 13 == 1 ||
        r->pig == r->sheep || r->pig == r->transformer || r->sheep == r->transformer) {
        PyErr_SetString(PyExc_ValueError, "ScoreData: the pig, sheep and transformer must be "
                                          "three cards that are no hearts");
        goto fail;
    }
    r->scoring = GZ_SUIT[1] | 1ULL << r->pig | 1ULL << r->sheep | 1ULL << r->transformer;
    if (r->heart_index >= 0 && r->heart_index / 13 != 1) {
        PyErr_SetString(PyExc_ValueError, "ScoreData: the showable heart must be a heart");
        goto fail;
    }
    if (item_ll(data, 8, 0, (long long)ALL_CARDS, &x, "the concerned cards") < 0)
        goto fail;
    r->concerned = (uint64_t)x & r->scoring;
    for (i = 0; i < 4; i++)
        for (j = 0; j < 52 * SCORE_STATES * 2; j++) {
            (&r->copy_own[i][0][0][0])[j] = 1;
            (&r->copy_alone[i][0][0][0])[j] = 1;
        }
    effects = PyTuple_GET_ITEM(data, 9);
    if (!PyTuple_Check(effects)) {
        PyErr_SetString(PyExc_ValueError, "ScoreData: the copy effects must be a tuple");
        goto fail;
    }
    n = PyTuple_GET_SIZE(effects);
    for (i = 0; i < n; i++) {
        PyObject *e = exact_tuple(PyTuple_GET_ITEM(effects, i), 6, "a copy effect");
        long long seat, index, state, own, f_own, f_alone;
        if (e == NULL || item_ll(e, 0, 0, 3, &seat, "a seat") < 0 ||
            item_ll(e, 1, 0, 51, &index, "a card") < 0 ||
            item_ll(e, 2, 0, 4 * r->nkinds, &state, "a copy's show") < 0 ||
            item_ll(e, 3, 0, 1, &own, "a copy's owner") < 0 ||
            item_ll(e, 4, -VALUE_LIMIT, VALUE_LIMIT, &f_own, "a factor") < 0 ||
            item_ll(e, 5, -VALUE_LIMIT, VALUE_LIMIT, &f_alone, "a factor") < 0)
            goto fail;
        r->copy_own[seat][index][state][own] = f_own;
        r->copy_alone[seat][index][state][own] = f_alone;
    }
    if (item_ll(data, 10, 0, 1, &x, "the copy stages' presence") < 0)
        goto fail;
    r->copy_stages = (int)x;
    r->ready = 1;
    memcpy((char *)d + offsetof(ScoreData, ready), (char *)r + offsetof(ScoreData, ready),
           sizeof *r - offsetof(ScoreData, ready));
    PyMem_Free(r);
    return 0;
fail:
    PyMem_Free(r);
    return -1;
}

/* -- the interpreter ------------------------------------------------------------------------- */

#define MUL(a, b)                                                                                 \
    do {                                                                                          \
        if (__builtin_mul_overflow((a), (b), &(a)))                                               \
            return -1;                                                                            \
    } while (0)
#define ADD(a, b)                                                                                 \
    do {                                                                                          \
        if (__builtin_add_overflow((a), (b), &(a)))                                               \
            return -1;                                                                            \
    } while (0)

/* The copy stages' factors on one seat's copies of card `index`: per copy number (0: bit
 * index, 1: bit 52 + index), as copy_owners numbers them: first the shown copies it took
 * (`shown`, in order), then its unshown ones, which are its own while the copies it was
 * dealt and did not show last. */
static void copy_factors(const ScoreData *d, int seat, int index, int count,
                         const ShowRec *const *shown, int nshown, int dealt, int showed,
                         long long *own, long long *alone)
{
    int unshown_own = dealt - showed > 0 ? dealt - showed : 0, number;
    int known = dealt >= 0; /* the deal is known (else no copy is its own) */
    for (number = 0; number < count; number++) {
        int state, mine;
        if (number < nshown) {
            state = 1 + shown[number]->seat * d->nkinds + shown[number]->kind;
            mine = known && shown[number]->seat == seat;
        } else {
            state = 0;
            mine = unshown_own-- > 0;
        }
        own[number] = d->copy_own[seat][index][state][mine];
        alone[number] = index == d->transformer ? d->copy_alone[seat][index][state][mine] : 1;
    }
}

static inline long long hearts_sum(const ScoreData *d, uint64_t chunk)
{
    long long total = 0;
    for (; chunk; chunk &= chunk - 1)
        total += d->heart_value[__builtin_ctzll(chunk)];
    return total;
}

int gz_score_hand(const ScoreData *d, const Mask *taken, const Mask *dealt, const ShowRec *shows,
                  int nshows, const ShowRec *const *shown_taken, const int *nshown_taken,
                  long long *raw, int *full_hearts, int *slam)
{
    long long hearts_factor = 1, card_factor[52];
    const ShowRec *first_show[52]; /* one deck: each card's show */
    int showed[4][52];             /* per seat, how many copies of a card it showed */
    uint64_t hearts = GZ_SUIT[1];
    int seat, i;
    *full_hearts = *slam = 0;
    for (i = 0; i < 52; i++) {
        card_factor[i] = 1;
        first_show[i] = NULL;
    }
    if (d->copy_stages)
        memset(showed, 0, sizeof showed);
    for (i = 0; i < nshows; i++) {
        const ShowRec *r = &shows[i];
        if (r->kind < 0 || r->kind >= d->nkinds || !d->has_kind[r->kind] || r->index < 0 ||
            r->index >= 52 || r->seat < 0 || r->seat > 3)
            return -2;
        MUL(card_factor[r->index], d->show_factor[r->kind]);
        if (first_show[r->index] == NULL)
            first_show[r->index] = r;
        if (d->copy_stages)
            showed[r->seat][r->index]++;
    }
    if (d->heart_index >= 0)
        hearts_factor = card_factor[d->heart_index];
    for (seat = 0; seat < 4; seat++) {
        uint64_t lo = taken[seat].lo & d->scoring;
        uint64_t hi = d->copies == 2 ? taken[seat].hi & d->scoring : 0;
        long long total, own[52][2], alone[52][2], factor[52][2];
        uint64_t present = lo | hi, m;
        int nt = 0;
        const ShowRec *mine[52][2]; /* the shown copies of a card the seat took, in order */
        int nmine[52];
        if (!present) {
            raw[seat] = 0;
            continue;
        }
        memset(nmine, 0, sizeof nmine);
        if (d->copy_stages) {
            for (m = present; m; m &= m - 1) {
                int c = __builtin_ctzll(m);
                own[c][0] = own[c][1] = alone[c][0] = alone[c][1] = 1;
            }
        }
        if (d->copies == 2) {
            nt = nshown_taken == NULL ? 0 : nshown_taken[seat];
            for (i = 0; i < nt; i++) {
                const ShowRec *r = &shown_taken[seat][i];
                int c = r->index;
                if (c < 0 || c >= 52 || r->kind < 0 || r->kind >= d->nkinds ||
                    !d->has_kind[r->kind] || r->seat < 0 || r->seat > 3)
                    return -2;
                if (nmine[c] < 2) /* (as the pipeline: a copy beyond those it took counts
                                     for none of them) */
                    mine[c][nmine[c]++] = r;
            }
        } else if (d->copy_stages) {
            for (m = present; m; m &= m - 1) {
                int c = __builtin_ctzll(m);
                if (first_show[c] != NULL)
                    mine[c][nmine[c]++] = first_show[c];
            }
        }
        if (d->copy_stages) {
            for (m = present & d->concerned; m; m &= m - 1) {
                int c = __builtin_ctzll(m);
                int count = (int)((lo >> c) & 1) + (int)((hi >> c) & 1);
                int had = dealt == NULL ? -1 : copies_in(dealt[seat], c);
                copy_factors(d, seat, c, count, (const ShowRec *const *)mine[c], nmine[c], had,
                             dealt == NULL ? 0 : showed[seat][c], own[c], alone[c]);
            }
        }
        /* each copy's factor: its show's (two decks: the copy's own; one deck: the card's) */
        for (m = present & ~GZ_SUIT[1]; m; m &= m - 1) {
            int c = __builtin_ctzll(m), k;
            for (k = 0; k < 2; k++) {
                long long f = 1;
                if (d->copies == 1)
                    f = card_factor[c];
                else if (k < nmine[c])
                    f = d->show_factor[mine[c][k]->kind];
                if (d->copy_stages)
                    MUL(f, own[c][k]);
                factor[c][k] = f;
            }
        }
        total = hearts_sum(d, (lo & hearts) >> 13) + hearts_sum(d, (hi & hearts) >> 13);
        if (d->copy_stages) {
            for (m = present & hearts & d->concerned; m; m &= m - 1) {
                int c = __builtin_ctzll(m), k;
                int count = (int)((lo >> c) & 1) + (int)((hi >> c) & 1);
                for (k = 0; k < count; k++) {
                    long long extra = d->heart_value[c - 13];
                    MUL(extra, own[c][k] - 1);
                    ADD(total, extra);
                }
            }
        }
        MUL(total, hearts_factor);
        if ((lo & hearts) == hearts && (d->copies == 1 || (hi & hearts) == hearts)) {
            total = -total; /* 满红 */
            *full_hearts = 1;
        }
        if ((lo >> d->pig) & 1) {
            long long pig = factor[d->pig][0];
            if ((hi >> d->pig) & 1)
                ADD(pig, factor[d->pig][1]);
            MUL(pig, d->pig_value);
            if (lo == d->scoring && (d->copies == 1 || hi == d->scoring))
                pig = -pig; /* 满贯 */
            ADD(total, pig);
        }
        if ((lo >> d->sheep) & 1) {
            long long sheep = factor[d->sheep][0];
            if ((hi >> d->sheep) & 1)
                ADD(sheep, factor[d->sheep][1]);
            MUL(sheep, d->sheep_value);
            ADD(total, sheep);
        }
        if (lo == d->scoring && (d->copies == 1 || hi == d->scoring))
            *slam = 1;
        if ((lo >> d->transformer) & 1) {
            int t = d->transformer, copies = 1 + (int)((hi >> t) & 1), k;
            uint64_t others = (lo | hi) & ~(1ULL << t);
            if (others) { /* each copy multiplies the other cards' sum */
                for (k = 0; k < copies; k++) {
                    long long f = d->multiplier;
                    MUL(f, factor[t][k]);
                    MUL(total, f);
                }
            } else { /* alone, each copy is worth its alone-value */
                total = 0;
                for (k = 0; k < copies; k++) {
                    long long v = d->alone;
                    MUL(v, factor[t][k]);
                    if (d->copy_stages)
                        MUL(v, alone[t][k]);
                    ADD(total, v);
                }
            }
        }
        raw[seat] = total;
    }
    return 0;
}

/* -- the Python side ------------------------------------------------------------------------- */

/* Shown copies from a sequence of (seat, index, kind code) triples; n gets their number. */
static int read_records(PyObject *seq, ShowRec *out, int max, int *n, const char *what)
{
    PyObject *fast = PySequence_Tuple(seq);
    Py_ssize_t len, i;
    if (fast == NULL)
        return -1;
    len = PyTuple_GET_SIZE(fast);
    if (len > max) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "ScoreData.raw: too many %s", what);
        return -1;
    }
    for (i = 0; i < len; i++) {
        PyObject *r = PyTuple_GET_ITEM(fast, i);
        long seat, index, kind;
        if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 3) {
            Py_DECREF(fast);
            PyErr_Format(PyExc_TypeError, "ScoreData.raw: %s are (seat, index, kind) tuples",
                         what);
            return -1;
        }
        if (gz_small_int(PyTuple_GET_ITEM(r, 0), 0, 3, &seat, "a show's seat is 0-3") < 0 ||
            gz_small_int(PyTuple_GET_ITEM(r, 1), 0, 51, &index, "a card index is 0-51") < 0 ||
            gz_small_int(PyTuple_GET_ITEM(r, 2), 0, SCORE_KINDS - 1, &kind,
                         "a show kind code out of range") < 0) {
            Py_DECREF(fast);
            return -1;
        }
        out[i].seat = (int)seat;
        out[i].index = (int)index;
        out[i].kind = (int)kind;
    }
    *n = (int)len;
    Py_DECREF(fast);
    return 0;
}

/* gz_score_hand's results as ((raw scores), full_hearts, slam), or NULL with an exception
 * for its code -1 (OverflowError) or -2 (ValueError). */
static PyObject *gz_score_return(int code, const long long *raw, int full_hearts, int slam)
{
    if (code == -1) {
        PyErr_SetString(PyExc_OverflowError, "a raw score beyond 64 bits: score in Python");
        return NULL;
    }
    if (code < 0) {
        PyErr_SetString(PyExc_ValueError, "a show this ruleset's score data does not know");
        return NULL;
    }
    return Py_BuildValue("((LLLL)OO)", raw[0], raw[1], raw[2], raw[3],
                         full_hearts ? Py_True : Py_False, slam ? Py_True : Py_False);
}

PyObject *gz_engine_score(GZHead *h, PyObject *data, const HandOps *ops)
{
    long long raw[4];
    int full_hearts, slam, code;
    if (gz_check_score_data(data, ops->copies, h->tables) < 0)
        return NULL;
    code = ops->score(h, (ScoreData *)data, raw, &full_hearts, &slam);
    return gz_score_return(code, raw, full_hearts, slam);
}

/* raw(taken, dealt, shows, shown_taken) -> ((raw scores), full_hearts, slam) */
static PyObject *score_raw(ScoreData *d, PyObject *args)
{
    PyObject *taken_obj, *dealt_obj, *shows_obj, *shown_obj;
    Mask taken[4], dealt[4];
    ShowRec shows[SCORE_SHOWS_MAX], shown[4][SCORE_SHOWS_MAX];
    const ShowRec *shown_ptr[4];
    int nshows = 0, nshown[4] = {0, 0, 0, 0}, s, code, full_hearts, slam;
    int kind = d->copies == 2 ? MASK_TWO_DECKS : MASK_ONE_DECK;
    long long raw[4];
    if (!d->ready) {
        PyErr_SetString(PyExc_ValueError, "ScoreData is not initialised");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OOOO:raw", &taken_obj, &dealt_obj, &shows_obj, &shown_obj))
        return NULL;
    if (gz_read_masks(taken_obj, taken, "taken: four card masks of the ruleset's decks", kind) < 0)
        return NULL;
    if (dealt_obj != Py_None &&
        gz_read_masks(dealt_obj, dealt, "dealt: four card masks of the ruleset's decks", kind) < 0)
        return NULL;
    if (read_records(shows_obj, shows, SCORE_SHOWS_MAX, &nshows, "shows") < 0)
        return NULL;
    if (shown_obj != Py_None) {
        PyObject *fast = PySequence_Tuple(shown_obj);
        if (fast == NULL)
            return NULL;
        if (PyTuple_GET_SIZE(fast) != 4) {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "shown_taken: one sequence per seat");
            return NULL;
        }
        for (s = 0; s < 4; s++) {
            if (read_records(PyTuple_GET_ITEM(fast, s), shown[s], SCORE_SHOWS_MAX, &nshown[s],
                             "shown copies") < 0) {
                Py_DECREF(fast);
                return NULL;
            }
        }
        Py_DECREF(fast);
    }
    for (s = 0; s < 4; s++)
        shown_ptr[s] = shown[s];
    code = gz_score_hand(d, taken, dealt_obj == Py_None ? NULL : dealt, shows, nshows,
                         shown_obj == Py_None ? NULL : shown_ptr, nshown, raw, &full_hearts,
                         &slam);
    return gz_score_return(code, raw, full_hearts, slam);
}

int gz_check_score_data(PyObject *data, int copies, const Tables *tables)
{
    if (!PyObject_TypeCheck(data, &GZ_ScoreDataType)) {
        PyErr_SetString(PyExc_TypeError, "score(data) takes a ScoreData");
        return -1;
    }
    if (!((ScoreData *)data)->ready || ((ScoreData *)data)->copies != copies) {
        PyErr_SetString(PyExc_ValueError, "score(data): no ScoreData of this engine's decks");
        return -1;
    }
    if (tables == NULL) {
        PyErr_SetString(PyExc_ValueError, "the engine is not initialised");
        return -1;
    }
    return 0;
}

int gz_shows_of_log(const Tables *t, const ShowState *s, ShowRec *out)
{
    int i, n = 0;
    for (i = 0; i < s->nlog; i++) {
        const Choice *c = &t->choices[s->log[i].id];
        uint64_t m;
        for (m = c->copies.lo; m; m &= m - 1) {
            int index = __builtin_ctzll(m), k;
            for (k = 0; k < 1 + (int)((c->copies.hi >> index) & 1); k++) {
                if (n == SCORE_SHOWS_MAX)
                    return n; /* (never: see engine.h) */
                out[n].seat = s->log[i].seat;
                out[n].index = index;
                out[n].kind = c->kind;
                n++;
            }
        }
    }
    return n;
}

static PyMethodDef score_methods[] = {
    {"raw", (PyCFunction)score_raw, METH_VARARGS,
     "raw(taken, dealt, shows, shown_taken) -> ((raw scores), full_hearts, slam): shows and "
     "shown copies as (seat, index, kind code); dealt and shown_taken may be None"},
    {NULL, NULL, 0, NULL},
};

static PyObject *get_copies(ScoreData *d, void *c)
{
    (void)c;
    return PyLong_FromLong(d->copies);
}

static PyGetSetDef score_getset[] = {
    {"copies", (getter)get_copies, NULL, "decks in play", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject GZ_ScoreDataType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gongzhu._speedups.ScoreData",
    .tp_doc = "ScoreData(data)\n\n"
              "A ruleset's compiled score data (gongzhu.scoring.compiled.score_data), read by "
              "the C scorer.",
    .tp_basicsize = sizeof(ScoreData),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)score_init,
    .tp_methods = score_methods,
    .tp_getset = score_getset,
};
