"""Content and machinery of the Tidewater labelled set (see ``tools/gen_tidewater.py``).

The content modules (``wholesale_*``, ``retail_*``, ``advisory_*``, ``shared``) hold the
documents as wrapped prose with marked facts, and the questions asked of them; ``build``
turns them into records, ``claims`` plans the labelled claims, ``validate`` checks every
rule of ``evals/DATASET_FORMAT.md`` and the set's own, ``write`` renders the files and the
data card, and ``check`` scores the reference retriever on the result.
"""
