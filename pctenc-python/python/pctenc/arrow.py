"""pctenc on whole Arrow columns: encode, decode, validate and normalize a column of a
million URLs in one call, without a Python loop.

A loop of ``pctenc.unquote`` over a column is fast per call, but it is still a Python loop:
an object per row in and out. These functions take the column as Arrow data, through the
Arrow PyCapsule interface, so that nothing is copied in and no row becomes a Python object:
pctenc's columnar kernels (the ``pctenc-arrow`` crate) run on the values buffer with the GIL
released, on every core for a large column, and write one output buffer.

Any object that exports ``__arrow_c_array__`` or ``__arrow_c_stream__`` is accepted: a pyarrow
``Array`` or ``ChunkedArray``, a pyarrow ``Table`` or DuckDB result of one column, a Polars
``Series``, pandas data with an Arrow dtype (through ``pyarrow.array``), nanoarrow arrays.
The column may be ``string``, ``large_string``, ``string_view``, ``binary``,
``large_binary`` or ``binary_view``; the result has the same type (``bool`` for
:func:`validate`), and nulls stay null. An array gives an array, chunked input (a stream)
gives a chunked result, chunk for chunk. With pyarrow installed, the result is a
``pyarrow.Array`` or ``pyarrow.ChunkedArray``; without it, an object that exports the same
interface, which Polars, DuckDB and nanoarrow read.

>>> import pyarrow as pa, pctenc.arrow
>>> pctenc.arrow.decode(pa.array(["caf%C3%A9", None, "a+b"]), mode="plus").to_pylist()
['café', None, 'a b']

A value that does not decode raises :class:`pctenc.DecodeError`, whose ``row`` is its index
in the whole input, ``chunk`` the index of its chunk (None for an array) and ``offset`` the
byte offset in the value; the ``try_`` functions give null instead.
"""

from . import _pctenc

__all__ = [
    "encode",
    "decode",
    "try_decode",
    "validate",
    "normalize",
    "url_encode",
    "url_decode",
    "try_url_decode",
]


def _result(out):
    """The kernel's result as pyarrow when pyarrow is installed, else as it came."""
    obj, chunked = out
    try:
        import pyarrow
    except ImportError:
        return obj
    if chunked:
        return pyarrow.chunked_array(obj)
    return pyarrow.array(obj)


def encode(array, set="component", *, space_as_plus=False, lowercase=False, keep_escapes=False, iri=False):
    """Percent-encodes every value with a named set, as :func:`pctenc.encode` does one.

    >>> import pyarrow as pa, pctenc.arrow
    >>> pctenc.arrow.encode(pa.array(["/a b", "é"]), "path").to_pylist()
    ['/a%20b', '%C3%A9']
    """
    return _result(_pctenc.arrow_kernel(array, "encode", set=set, space_as_plus=space_as_plus,
                                        lowercase=lowercase, keep_escapes=keep_escapes, iri=iri))


def decode(array, mode="strict"):
    """Percent-decodes every value. ``mode``: ``"strict"`` (the default: a malformed escape
    or invalid UTF-8 in a string column is an error), ``"lenient"`` (a malformed escape is
    kept as it is), ``"plus"`` (``+`` as a space), ``"lossy"`` (invalid UTF-8 as U+FFFD;
    escapes stay strict), or several, comma-separated (``"plus,lossy"``): pctenc's decoder
    words (docs/WORDS.md), as SQL's ``percent_decode``, nginx and the CLI's ``--mode`` read them. A
    binary column keeps any bytes.

    >>> import pyarrow as pa, pctenc.arrow
    >>> pctenc.arrow.decode(pa.array(["a%20b", "%E6%9D%B1"])).to_pylist()
    ['a b', '東']
    """
    return _result(_pctenc.arrow_kernel(array, "decode", mode=mode))


def try_decode(array, mode="strict"):
    """:func:`decode`, with null for each value that does not decode.

    >>> import pyarrow as pa, pctenc.arrow
    >>> pctenc.arrow.try_decode(pa.array(["a%20b", "100%"])).to_pylist()
    ['a b', None]
    """
    return _result(_pctenc.arrow_kernel(array, "try_decode", mode=mode))


def validate(array, set="component", *, space_as_plus=False, iri=False):
    """Whether each value is already encoded for the set (a ``bool`` column; null stays null).

    >>> import pyarrow as pa, pctenc.arrow
    >>> pctenc.arrow.validate(pa.array(["a%20b", "a b", None])).to_pylist()
    [True, False, None]
    """
    return _result(_pctenc.arrow_kernel(array, "validate", set=set, space_as_plus=space_as_plus, iri=iri))


def normalize(array):
    """RFC 3986 normalization of every value: hex digits uppercased, escapes of unreserved
    characters decoded.

    >>> import pyarrow as pa, pctenc.arrow
    >>> pctenc.arrow.normalize(pa.array(["%7euser/%c3%a9"])).to_pylist()
    ['~user/%C3%A9']
    """
    return _result(_pctenc.arrow_kernel(array, "normalize"))


def url_encode(array):
    """Spark's ``url_encode``: ``java.net.URLEncoder.encode(s, UTF_8)`` byte for byte.

    >>> import pyarrow as pa, pctenc.arrow
    >>> pctenc.arrow.url_encode(pa.array(["Jürgen & Björk ~*"])).to_pylist()
    ['J%C3%BCrgen+%26+Bj%C3%B6rk+%7E*']
    """
    return _result(_pctenc.arrow_kernel(array, "url_encode"))


def url_decode(array):
    """Spark's ``url_decode``: ``java.net.URLDecoder.decode(s, UTF_8)`` byte for byte, quirks
    included; a malformed escape raises :class:`pctenc.DecodeError` with Spark's message.

    >>> import pyarrow as pa, pctenc.arrow
    >>> pctenc.arrow.url_decode(pa.array(["a+b%26c"])).to_pylist()
    ['a b&c']
    """
    return _result(_pctenc.arrow_kernel(array, "url_decode"))


def try_url_decode(array):
    """Spark's ``try_url_decode``: :func:`url_decode` with null where it fails.

    >>> import pyarrow as pa, pctenc.arrow
    >>> pctenc.arrow.try_url_decode(pa.array(["a+b", "%G0"])).to_pylist()
    ['a b', None]
    """
    return _result(_pctenc.arrow_kernel(array, "try_url_decode"))
