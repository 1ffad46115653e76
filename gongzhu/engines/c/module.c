/* gongzhu._speedups: the module (see engine.h). */
#include "engine.h"

static PyObject *set_plays(PyObject *self, PyObject *args)
{
    PyObject *singles, *play_of_key;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO:set_plays", &singles, &play_of_key))
        return NULL;
    if (gz_set_plays(singles, play_of_key) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"set_plays", set_plays, METH_VARARGS,
     "set_plays(singles, play_of_key): the 52 single-card Play objects, by card index, and "
     "gongzhu.actions.play_of_key for the others"},
    {"shuffle_deck", gz_shuffle_deck, METH_VARARGS,
     "shuffle_deck(digest, deck) -> (order, masks): see gongzhu.deal._shuffle_deck"},
    {"draws_in_c", gz_draws_in_c, METH_NOARGS,
     "draws_in_c() -> bool: whether a random.Random's random() is drawn in C (draws.c)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "gongzhu._speedups",
    .m_doc = "Optional C accelerator: the C twins of gongzhu.engines' engines, the deal's "
             "sort, the interpreter of the compiled score data, the batch, random.Random's "
             "draws and the sampler's deal.",
    .m_size = -1,
    .m_methods = module_methods,
};

static int add_type(PyObject *m, const char *name, PyTypeObject *type)
{
    if (PyType_Ready(type) < 0)
        return -1;
    Py_INCREF(type);
    if (PyModule_AddObject(m, name, (PyObject *)type) < 0) {
        Py_DECREF(type);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__speedups(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    gz_draws_init();
    if (add_type(m, "Tables", &GZ_TablesType) < 0 ||
        add_type(m, "SingleEngine", &GZ_SingleEngineType) < 0 ||
        add_type(m, "PairsEngine", &GZ_PairsEngineType) < 0 ||
        add_type(m, "Batch", &GZ_BatchType) < 0 ||
        add_type(m, "ScoreData", &GZ_ScoreDataType) < 0 ||
        add_type(m, "SampleDealer", &GZ_SampleDealerType) < 0 ||
        /* the constants the Python side defines too, for tests/test_engine_contract.py */
        PyModule_AddIntConstant(m, "PHASE_FIRST_SHOW", PHASE_FIRST_SHOW) < 0 ||
        PyModule_AddIntConstant(m, "PHASE_SHOW", PHASE_SHOW) < 0 ||
        PyModule_AddIntConstant(m, "PHASE_PLAY", PHASE_PLAY) < 0 ||
        PyModule_AddIntConstant(m, "PHASE_OVER", PHASE_OVER) < 0 ||
        PyModule_AddIntConstant(m, "OVER", OVER) < 0 ||
        PyModule_AddIntConstant(m, "ILLEGAL", ILLEGAL) < 0 ||
        PyModule_AddIntConstant(m, "ONE_CARD_KEYS", ONE_CARD_KEYS) < 0 ||
        PyModule_AddIntConstant(m, "NKEYS", NKEYS) < 0 ||
        PyModule_AddIntConstant(m, "TWO_KEY_STRIDE", TWO_KEY(1, 0) - TWO_KEY(0, 0)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
