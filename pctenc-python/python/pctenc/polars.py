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

from . import DecodeError, _pctenc

__all__ = ["PctencExpr", "Expr"]

# What each column type gives: a String or Binary column gives the same type; a Categorical
# or Enum column (a dictionary, whose categories the kernel transforms once each) gives
# String, as the results are other values than the categories; a Null column (all null, of
# no type yet) is a String column of nulls.
_TYPES = (pl.String, pl.Categorical, pl.Enum, pl.Null, pl.Binary)


def _output_dtype(op, dtype):
    """The dtype an expression returns for a column of `dtype`, or a TypeError naming it."""
    if not isinstance(dtype, _TYPES):
        raise TypeError(f"pl.col(...).pctenc.{op}() takes String, Binary, Categorical or Enum columns, not {dtype}")
    if op == "validate":
        return pl.Boolean
    return pl.Binary if isinstance(dtype, pl.Binary) else pl.String


def _batch_error(e):
    """A kernel's DecodeError inside an expression: Polars hands each call a batch of the
    column (under the streaming engine, one of many), so the row it names is counted within
    that batch, which the message says; the whole-frame row is not known here."""
    if e.row is None:
        return e
    message = str(e).split(": ", 1)[-1]
    place = f"row {e.row} of a batch"
    offset = f", offset {e.offset}" if e.offset is not None else ""
    return DecodeError(f"{place}{offset}: {message}")


@pl.api.register_expr_namespace("pctenc")
class PctencExpr:
    """``pl.col(...).pctenc``: pctenc's encoders and decoders on a string or binary column."""

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def _map(self, op, **options):
        def run(series):
            if series.dtype == pl.Null:
                series = series.cast(pl.String)
            try:
                obj, _ = _pctenc.arrow_kernel(series, op, **options)
            except DecodeError as e:
                raise _batch_error(e) from None
            out = pl.Series(series.name, obj)
            return out.cast(pl.String) if out.dtype == pl.Categorical else out

        def plan(expr, dtype):
            # Each value on its own: Polars may cut the column into batches as it likes.
            return expr.map_batches(run, return_dtype=_output_dtype(op, dtype), is_elementwise=True)

        # The dtype is known when the query is planned: the expression's return type then, and
        # a clear error for a column of another type, before any batch runs.
        return self._expr.pipe_with_dtype(plan)

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
        return self._map("validate", set=set, space_as_plus=space_as_plus, iri=iri)

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


class Expr(pl.Expr):
    """``pl.Expr`` with the ``pctenc`` namespace, for type checkers, which cannot see a
    namespace registered at run time::

        typing.cast(pctenc.polars.Expr, pl.col("url")).pctenc.decode()

    Never made: every ``pl.Expr`` has the namespace once this module is imported.
    """

    @property
    def pctenc(self) -> PctencExpr:
        return PctencExpr(self)
