/* Compiled kernels of the reference: BM25 accumulation and top-k selection in one pass.
 *
 * Optional: the reference runs the same steps in numpy when this module is not built, and
 * the two give the same floats in the same order (tests/reference/test_kernels.py). Only
 * plain IEEE double additions in a fixed order are used: no fused multiply-add, no
 * reassociation, so a row's score is the sum of its shares in the order the caller gives
 * them, starting from 0.0, exactly as numpy's bincount adds them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double score;
    int32_t row;
} Entry;

/* (-score, row): the higher score first, the lower row first among equals. */
static int entry_before(const Entry *a, const Entry *b) {
    if (a->score != b->score) return a->score > b->score;
    return a->row < b->row;
}

static int entry_compare(const void *a, const void *b) {
    const Entry *x = (const Entry *)a, *y = (const Entry *)b;
    if (entry_before(x, y)) return -1;
    if (entry_before(y, x)) return 1;
    return 0;
}

/* Sift ``heap[at]`` down a min-heap of ``size`` values. */
static void sift_down(double *heap, Py_ssize_t size, Py_ssize_t at) {
    double value = heap[at];
    for (;;) {
        Py_ssize_t child = 2 * at + 1;
        if (child >= size) break;
        if (child + 1 < size && heap[child + 1] < heap[child]) child++;
        if (heap[child] >= value) break;
        heap[at] = heap[child];
        at = child;
    }
    heap[at] = value;
}

/* Offer a rankable row to the ``limit`` best: push its score on the min-heap while it
 * fills, or replace the least when it is better; set the row aside when it is at least as
 * good as the least (a superset of the rows that place: the least only grows). */
static inline void offer(double *heap, Py_ssize_t limit, Py_ssize_t *size, Entry *entries,
                         Py_ssize_t *kept, double score, int32_t row) {
    if (*size < limit) {
        heap[(*size)++] = score;
        if (*size == limit)
            for (Py_ssize_t at = limit / 2; at-- > 0;) sift_down(heap, limit, at);
    } else if (score >= heap[0]) {
        if (score > heap[0]) {
            heap[0] = score;
            sift_down(heap, limit, 0);
        }
    } else {
        return;
    }
    entries[*kept].score = score;
    entries[*kept].row = row;
    (*kept)++;
}

/* The size of one item of a struct format code the kernel reads (0: not one of them). */
static Py_ssize_t item_size(char code) {
    switch (code) {
    case 'B': return 1;
    case 'i': case 'f': return 4;
    case 'd': return 8;
    default: return 0;
    }
}

/* Whether ``format`` (a buffer's struct format) is the native ``code``: the code alone, or
 * after a native byte-order mark ('@', '=', or '<' on a little-endian machine). */
static int is_native(const char *format, char code) {
    const uint16_t probe = 1;
    int little = *(const uint8_t *)&probe == 1;
    if (format == NULL) return code == 'B';
    if (format[0] == '@' || format[0] == '=' || (format[0] == '<' && little)) format++;
    return format[0] == code && format[1] == '\0';
}

/* A contiguous buffer of ``code`` items (a struct format code: 'B' uint8, 'i' int32,
 * 'f' float32, 'd' float64): an array of another type is refused, not misread. */
static int get_buffer(PyObject *object, Py_buffer *view, char code, int writable,
                      const char *what) {
    int flags = PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(object, view, flags) < 0) return -1;
    Py_ssize_t size = item_size(code);
    if (!is_native(view->format, code) || view->itemsize != size) {
        PyErr_Format(PyExc_TypeError, "bm25_top: %s must hold '%c' items (%zd bytes each), got "
                     "format %s", what, code, size, view->format ? view->format : "B");
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* Add every term's shares into ``scratch`` at its rows, in order, and write each row
 * reached, once, to ``touched``; on an error, ``scratch`` is left zero again. Without
 * branches on the data: a row is written to ``touched`` at every hit and kept (the count
 * moves on) only at its first, when its sum is still 0.0. */
static int accumulate(PyObject *terms, double *scratch, Py_ssize_t n_rows, int32_t *touched,
                      Py_ssize_t *reached_out) {
    Py_ssize_t reached = 0;
    for (Py_ssize_t term = 0; term < PyList_GET_SIZE(terms); term++) {
        PyObject *pair = PyList_GET_ITEM(terms, term);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) < 2) {
            PyErr_SetString(PyExc_TypeError, "bm25_top: each term is a tuple (rows, shares, ...)");
            goto undo;
        }
        Py_buffer rows_view, shares_view;
        if (get_buffer(PyTuple_GET_ITEM(pair, 0), &rows_view, 'i', 0, "rows") < 0)
            goto undo;
        if (get_buffer(PyTuple_GET_ITEM(pair, 1), &shares_view, 'd', 0, "shares") < 0) {
            PyBuffer_Release(&rows_view);
            goto undo;
        }
        const int32_t *hits = (const int32_t *)rows_view.buf;
        const double *shares = (const double *)shares_view.buf;
        Py_ssize_t n_hits = rows_view.len / 4;
        int bad = shares_view.len / 8 != n_hits;
        for (Py_ssize_t i = 0; i < n_hits && !bad; i++) {
            int32_t row = hits[i];
            if ((uint32_t)row >= (uint32_t)n_rows) {
                bad = 1;
                break;
            }
            touched[reached] = row;
            reached += scratch[row] == 0.0;
            scratch[row] += shares[i];
        }
        PyBuffer_Release(&rows_view);
        PyBuffer_Release(&shares_view);
        if (bad) {
            PyErr_SetString(PyExc_ValueError,
                            "bm25_top: a term's rows and shares differ in length, or a row "
                            "is outside the scratch");
            goto undo;
        }
    }
    *reached_out = reached;
    return 0;
undo:
    for (Py_ssize_t j = 0; j < reached; j++) scratch[touched[j]] = 0.0;
    return -1;
}

PyDoc_STRVAR(bm25_top_doc,
"bm25_top(terms, scratch, classes, limit, touched, uniform=-1)\n"
"    -> (touched_count, best, scores, (considered, hidden, stale))\n\n"
"For each term of ``terms``, a tuple whose first two items are ``rows`` (an int32 array)\n"
"and ``shares`` (a float64 array of the same length), in order, add ``shares[i]`` to\n"
"``scratch[rows[i]]`` (a float64 buffer of zeros,\n"
"one per row), and write each row reached, once, to ``touched`` (int32, one place longer\n"
"than ``scratch``). ``classes`` holds a byte per row: 1 if BM25 may rank it, 2 if live,\n"
"4 if visible to the asker, 8 if eligible (visible and fresh). Of the rows reached that\n"
"may rank, return the ``limit`` best by (-score, row), and with them every other row\n"
"tied with the last place, as two lists in that order, and the audit counts of the rows\n"
"reached: how many are live, how many of those not visible, and how many visible but\n"
"not eligible. ``scratch`` is zero again on return. Every share must be positive: a row\n"
"counts as reached when its first share arrives. ``uniform``, when not negative, is\n"
"the class every row has (``classes`` is then not read).");

/* The bits of a row's class byte. */
enum { RANKABLE = 1, LIVE = 2, VISIBLE = 4, ELIGIBLE = 8 };

static PyObject *bm25_top(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *terms, *scratch_object, *classes_object, *touched_object;
    Py_ssize_t limit;
    int uniform = -1;
    if (!PyArg_ParseTuple(args, "O!OOnO|i", &PyList_Type, &terms, &scratch_object,
                          &classes_object, &limit, &touched_object, &uniform))
        return NULL;
    if (limit < 0) {
        PyErr_SetString(PyExc_ValueError, "bm25_top: limit >= 0");
        return NULL;
    }
    if (uniform > 15) {
        PyErr_SetString(PyExc_ValueError, "bm25_top: uniform is a class (0 to 15) or -1");
        return NULL;
    }
    Py_buffer scratch_view, touched_view, classes_view;
    PyObject *result = NULL;
    Entry *entries = NULL;
    double *heap = NULL;
    if (get_buffer(scratch_object, &scratch_view, 'd', 1, "scratch") < 0) return NULL;
    if (get_buffer(touched_object, &touched_view, 'i', 1, "touched") < 0) goto fail_scratch;
    if (get_buffer(classes_object, &classes_view, 'B', 0, "classes") < 0) goto fail_touched;

    double *scratch = (double *)scratch_view.buf;
    int32_t *touched = (int32_t *)touched_view.buf;
    const uint8_t *classes = (const uint8_t *)classes_view.buf;
    Py_ssize_t n_rows = scratch_view.len / 8;
    /* ``touched`` takes a row at every hit, at the place after the distinct rows so far:
     * one more place than rows. */
    if (touched_view.len / 4 <= n_rows) {
        PyErr_SetString(PyExc_ValueError, "bm25_top: touched must be longer than scratch");
        goto done;
    }
    if (classes_view.len != n_rows) {
        PyErr_SetString(PyExc_ValueError, "bm25_top: classes and scratch of other lengths");
        goto done;
    }

    Py_ssize_t reached = 0;
    if (accumulate(terms, scratch, n_rows, touched, &reached) < 0)
        goto done;
    heap = (double *)malloc((size_t)(limit > 0 ? limit : 1) * sizeof(double));
    entries = (Entry *)malloc((size_t)(reached > 0 ? reached : 1) * sizeof(Entry));
    if (heap == NULL || entries == NULL) {
        for (Py_ssize_t i = 0; i < reached; i++) scratch[touched[i]] = 0.0;
        PyErr_NoMemory();
        goto done;
    }

    /* One pass over the rows reached: zero the scratch behind it, count the rows against
     * its class, keep the ``limit`` best scores in a min-heap, and set aside every
     * rankable row at least as good as the heap's least when it is read (a superset of
     * the rows that place: the least only grows). Where every row has one class
     * (``uniform``), the counts are the rows reached and no class is read. */
    Py_ssize_t considered = 0, hidden = 0, stale = 0, size = 0, kept = 0;
    if (uniform >= 0) {
        unsigned alive = (uniform >> 1) & 1, seen = (uniform >> 2) & 1, fresh = (uniform >> 3) & 1;
        considered = alive ? reached : 0;
        hidden = alive && !seen ? reached : 0;
        stale = alive && seen && !fresh ? reached : 0;
        int ranks = limit > 0 && (uniform & RANKABLE);
        for (Py_ssize_t i = 0; i < reached; i++) {
            int32_t row = touched[i];
            double score = scratch[row];
            scratch[row] = 0.0;
            if (ranks) offer(heap, limit, &size, entries, &kept, score, row);
        }
    } else {
        for (Py_ssize_t i = 0; i < reached; i++) {
            int32_t row = touched[i];
            double score = scratch[row];
            scratch[row] = 0.0;
            unsigned class = classes[row];
            unsigned alive = (class >> 1) & 1, seen = (class >> 2) & 1, fresh = (class >> 3) & 1;
            considered += alive;
            hidden += alive & !seen;
            stale += alive & seen & !fresh;
            if (limit > 0 && (class & RANKABLE))
                offer(heap, limit, &size, entries, &kept, score, row);
        }
    }
    /* Every rankable row at least as good as the last place (all of them when fewer). */
    if (size == limit && limit > 0) {
        double last = heap[0];
        Py_ssize_t placed = 0;
        for (Py_ssize_t i = 0; i < kept; i++)
            if (entries[i].score >= last) entries[placed++] = entries[i];
        kept = placed;
    }
    qsort(entries, (size_t)kept, sizeof(Entry), entry_compare);

    PyObject *rows = PyList_New(kept), *scores = PyList_New(kept);
    if (rows == NULL || scores == NULL) {
        Py_XDECREF(rows);
        Py_XDECREF(scores);
        goto done;
    }
    for (Py_ssize_t i = 0; i < kept; i++) {
        PyObject *row = PyLong_FromLong(entries[i].row);
        PyObject *score = PyFloat_FromDouble(entries[i].score);
        if (row == NULL || score == NULL) {
            Py_XDECREF(row);
            Py_XDECREF(score);
            Py_DECREF(rows);
            Py_DECREF(scores);
            goto done;
        }
        PyList_SET_ITEM(rows, i, row);
        PyList_SET_ITEM(scores, i, score);
    }
    result = Py_BuildValue("nNN(nnn)", reached, rows, scores, considered, hidden, stale);

done:
    free(entries);
    free(heap);
    PyBuffer_Release(&classes_view);
fail_touched:
    PyBuffer_Release(&touched_view);
fail_scratch:
    PyBuffer_Release(&scratch_view);
    return result;
}

static PyMethodDef methods[] = {
    {"bm25_top", bm25_top, METH_VARARGS, bm25_top_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernels",
    "Compiled kernels of the reference (optional: numpy does the same without them).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__kernels(void) { return PyModule_Create(&module); }
