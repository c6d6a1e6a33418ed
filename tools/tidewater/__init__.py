"""The builder of the Tidewater labelled set (see ``tools/gen_tidewater.py`` and README.md).

The content is data under ``data/``; ``content`` reads it (``fields`` and ``specs`` for the
plain shapes, ``rows`` and ``payment_cases`` for the families built from tables), ``build``
renders the documents (``markup``) and numbers the questions, ``claims`` plans the labelled
claims, ``validate`` checks every rule of ``evals/DATASET_FORMAT.md`` and the set's own,
``write`` renders the files and the data card (``readme``), and ``check`` scores the
reference retriever on the result.
"""
