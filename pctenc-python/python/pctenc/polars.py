"""pctenc in Polars expressions: importing this module registers the ``pctenc`` namespace,

>>> import polars as pl, pctenc.polars
>>> df = pl.DataFrame({"url": ["/caf%C3%A9?q=a+b", None]})
>>> df.select(pl.col("url").pctenc.decode(mode="plus")).to_series().to_list()
['/café?q=a b', None]

in eager and lazy frames alike. Each expression hands its column to :mod:`pctenc.arrow`
through ``map_batches``: Polars gives the column's Arrow data, pctenc's kernels run on it
without the GIL and without a Python object per row, and Polars reads the result back, both
ways without a copy (Polars exports strings as ``string_view``, which the kernels take as
they are).

Why not a compiled Polars plugin? A plugin is a second native library built against the
``polars`` crates, which must match the Polars version the user runs, and whose build takes
longer than all of pctenc's; this namespace needs nothing but Polars itself. What it costs
is a Python call per batch (not per row) and that Polars cannot look into the function to
optimize around it (it is opaque to the query planner, as ``map_batches`` always is):
``docs/BENCHMARKS.md`` shows it against calling :mod:`pctenc.arrow` directly, and against
``map_elements(urllib.parse.unquote)``.
"""

import polars as pl

from . import _pctenc

__all__ = ["PctencExpr"]


@pl.api.register_expr_namespace("pctenc")
class PctencExpr:
    """``pl.col(...).pctenc``: pctenc's encoders and decoders on a string or binary column."""

    def __init__(self, expr):
        self._expr = expr

    def _map(self, op, return_dtype=None, **options):
        def run(series):
            obj, _ = _pctenc.arrow_kernel(series, op, **options)
            return pl.Series(series.name, obj)

        # Row by row, each value on its own: Polars may cut the column into batches as it likes.
        return self._expr.map_batches(run, return_dtype=return_dtype, is_elementwise=True)

    def encode(self, set="component", *, space_as_plus=False, lowercase=False, keep_escapes=False, iri=False):
        """Percent-encodes each value with a named set (:func:`pctenc.arrow.encode`)."""
        return self._map("encode", set=set, space_as_plus=space_as_plus, lowercase=lowercase,
                         keep_escapes=keep_escapes, iri=iri)

    def decode(self, mode="strict"):
        """Percent-decodes each value (:func:`pctenc.arrow.decode`; ``mode`` as there)."""
        return self._map("decode", mode=mode)

    def try_decode(self, mode="strict"):
        """:meth:`decode`, with null for each value that does not decode."""
        return self._map("try_decode", mode=mode)

    def validate(self, set="component", *, space_as_plus=False, iri=False):
        """Whether each value is already encoded for the set (a Boolean column)."""
        return self._map("validate", return_dtype=pl.Boolean, set=set, space_as_plus=space_as_plus, iri=iri)

    def normalize(self):
        """RFC 3986 normalization of each value."""
        return self._map("normalize")

    def url_encode(self):
        """Spark's ``url_encode``."""
        return self._map("url_encode")

    def url_decode(self):
        """Spark's ``url_decode``."""
        return self._map("url_decode")

    def try_url_decode(self):
        """Spark's ``try_url_decode``."""
        return self._map("try_url_decode")
