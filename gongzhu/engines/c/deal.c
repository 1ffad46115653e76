/* The deal's sort: the C twin of gongzhu.deal._shuffle_deck. */
#include "engine.h"

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

/* The deck's positions sorted by their keys in digest (see shuffle_deck), into keys: the
 * order qsort with compare_keys gives (a total order: positions differ), found faster by a
 * stable counting sort on the keys' top byte, then an insertion sort of what is left
 * (keys sharing a top byte, out of order by a few places at most). */
static void sort_positions(const unsigned char *digest, int n, SortKey *keys)
{
    SortKey spread[104];
    int count[257], i, j;
    memset(count, 0, sizeof count);
    for (i = 0; i < n; i++) {
        const unsigned char *b = digest + 8 * i;
        uint64_t key = 0;
        for (j = 7; j >= 0; j--)
            key = (key << 8) | b[j];
        spread[i].key = key;
        spread[i].position = i;
        count[(key >> 56) + 1]++;
    }
    for (i = 1; i < 257; i++)
        count[i] += count[i - 1];
    for (i = 0; i < n; i++) /* in position order: stable */
        keys[count[spread[i].key >> 56]++] = spread[i];
    for (i = 1; i < n; i++) {
        SortKey k = keys[i];
        for (j = i; j > 0 && compare_keys(&keys[j - 1], &k) > 0; j--)
            keys[j] = keys[j - 1];
        keys[j] = k;
    }
}

void gz_deal(const unsigned char *digest, int copies, Mask *dealt, int *order)
{
    SortKey keys[104];
    int n = 52 * copies, i;
    sort_positions(digest, n, keys);
    memset(dealt, 0, 4 * sizeof *dealt);
    for (i = 0; i < n; i++) {
        order[i] = keys[i].position / copies;
        add_copy(&dealt[i & 3], order[i]);
    }
}

/* shuffle_deck(digest, deck) -> (order, masks): the deck's cards sorted by the
 * 64-bit little-endian keys of digest (8 bytes per card; equal keys keep deck
 * order, as Python's stable sort does), and the card masks of the four seats
 * dealt from position 0 round the table (seat k gets positions k, k+4, ...).
 * deck is gongzhu.cards.full_deck(copies): position i holds card i // copies;
 * a second copy of a card goes to bit 52 + index.  The pure-Python twin is
 * gongzhu.deal._shuffle_deck; the tests compare them. */
PyObject *gz_shuffle_deck(PyObject *self, PyObject *args)
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
    sort_positions((const unsigned char *)digest.buf, (int)n, keys);
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
    {
        Mask m[4];
        for (j = 0; j < 4; j++) {
            m[j].lo = low[j];
            m[j].hi = high[j];
        }
        masks = gz_masks_tuple(m); /* a two-deck mask has up to 104 bits */
    }
    if (masks != NULL)
        result = PyTuple_Pack(2, order, masks);
done:
    Py_XDECREF(order);
    Py_XDECREF(masks);
    PyBuffer_Release(&digest);
    return result;
}

