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

import struct

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


def _checked(data, op):
    """pyarrow data (and a pandas Series backed by it), checked on pyarrow's side before it is
    read. The C data interface does not carry a buffer's size: the values' length is taken
    from the last offset, so an untrusted ``.arrow`` file whose offsets run past the values
    cannot be seen from the kernels. Here each offset kind's first and last offsets are read
    against its values buffer's real size (two numbers a chunk), after pyarrow's own cheap
    ``validate()``; the kernels then check that the offsets between never go backwards. A
    ``RecordBatchReader``'s batches are checked as they come, against its schema too."""
    module = type(data).__module__
    if module.startswith("pandas") and hasattr(getattr(data, "array", None), "__arrow_array__"):
        # A pandas Series backed by Arrow (the `str` dtype, `ArrowDtype`): its pyarrow data,
        # without a copy, so that pyarrow can check it (a Feather file read by pandas is as
        # untrusted as one read by pyarrow).
        try:
            import pyarrow as pa
        except ImportError:
            return data
        # As pandas holds it: wrapping it again (pa.chunked_array) would go through the C
        # interface, which makes the values buffer as long as the last offset says.
        data = data.array.__arrow_array__()
    elif not module.startswith("pyarrow"):
        return data

    def malformed(e):
        return ValueError(f"pctenc.arrow.{op}(): malformed Arrow data: {e}")

    try:
        import pyarrow as pa
    except ImportError:  # pyarrow's objects, but pyarrow cannot be imported again
        return data

    def check(array):
        """An offset kind's first and last offsets, against its values buffer's real size."""
        if isinstance(array, pa.ChunkedArray):
            for chunk in array.chunks:
                check(chunk)
            return
        kind = array.type
        if pa.types.is_dictionary(kind):
            check(array.dictionary)
            return
        width = 4 if pa.types.is_string(kind) or pa.types.is_binary(kind) else None
        if pa.types.is_large_string(kind) or pa.types.is_large_binary(kind):
            width = 8
        if width is None or len(array) == 0:
            return
        buffers = array.buffers()
        offsets, values = buffers[1], buffers[2]
        form = "<i" if width == 4 else "<q"
        try:
            first = struct.unpack_from(form, offsets, array.offset * width)[0]
            last = struct.unpack_from(form, offsets, (array.offset + len(array)) * width)[0]
        except (struct.error, TypeError):
            raise malformed("an offsets buffer shorter than its rows") from None
        size = values.size if values is not None else 0
        if first < 0 or last > size or first > last:
            raise malformed(f"offsets {first}..{last} outside a values buffer of {size} bytes")

    def check_all(obj):
        if isinstance(obj, (pa.Table, pa.RecordBatch)):
            for column in obj.columns:
                check(column)
        elif isinstance(obj, (pa.Array, pa.ChunkedArray)):
            check(obj)

    if isinstance(data, pa.RecordBatchReader):
        schema = data.schema

        def batches():
            for batch in data:
                if not batch.schema.equals(schema):
                    raise malformed(f"a batch of schema {batch.schema} in a stream of {schema}")
                try:
                    batch.validate()
                except ValueError as e:  # pyarrow's ArrowInvalid
                    raise malformed(e) from None
                check_all(batch)
                yield batch

        return pa.RecordBatchReader.from_batches(schema, batches())
    validate = getattr(data, "validate", None)
    if callable(validate):
        try:
            validate()
        except ValueError as e:  # pyarrow's ArrowInvalid
            raise malformed(e) from None
    check_all(data)
    return data


def _run(array, op, **options):
    return _result(_pctenc.arrow_kernel(_checked(array, op), op, **options))


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
    return _run(array, "encode", set=set, space_as_plus=space_as_plus, lowercase=lowercase,
                keep_escapes=keep_escapes, iri=iri)


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
    return _run(array, "decode", mode=mode)


def try_decode(array, mode="strict"):
    """:func:`decode`, with null for each value that does not decode.

    >>> import pyarrow as pa, pctenc.arrow
    >>> pctenc.arrow.try_decode(pa.array(["a%20b", "100%"])).to_pylist()
    ['a b', None]
    """
    return _run(array, "try_decode", mode=mode)


def validate(array, set="component", *, space_as_plus=False, iri=False):
    """Whether each value is already encoded for the set (a ``bool`` column; null stays null).

    >>> import pyarrow as pa, pctenc.arrow
    >>> pctenc.arrow.validate(pa.array(["a%20b", "a b", None])).to_pylist()
    [True, False, None]
    """
    return _run(array, "validate", set=set, space_as_plus=space_as_plus, iri=iri)


def normalize(array):
    """RFC 3986 normalization of every value: hex digits uppercased, escapes of unreserved
    characters decoded.

    >>> import pyarrow as pa, pctenc.arrow
    >>> pctenc.arrow.normalize(pa.array(["%7euser/%c3%a9"])).to_pylist()
    ['~user/%C3%A9']
    """
    return _run(array, "normalize")


def url_encode(array):
    """Spark's ``url_encode``: ``java.net.URLEncoder.encode(s, UTF_8)`` byte for byte.

    >>> import pyarrow as pa, pctenc.arrow
    >>> pctenc.arrow.url_encode(pa.array(["Jürgen & Björk ~*"])).to_pylist()
    ['J%C3%BCrgen+%26+Bj%C3%B6rk+%7E*']
    """
    return _run(array, "url_encode")


def url_decode(array):
    """Spark's ``url_decode``: ``java.net.URLDecoder.decode(s, UTF_8)`` byte for byte, quirks
    included; a malformed escape raises :class:`pctenc.DecodeError` with Spark's message.

    >>> import pyarrow as pa, pctenc.arrow
    >>> pctenc.arrow.url_decode(pa.array(["a+b%26c"])).to_pylist()
    ['a b&c']
    """
    return _run(array, "url_decode")


def try_url_decode(array):
    """Spark's ``try_url_decode``: :func:`url_decode` with null where it fails.

    >>> import pyarrow as pa, pctenc.arrow
    >>> pctenc.arrow.try_url_decode(pa.array(["a+b", "%G0"])).to_pylist()
    ['a b', None]
    """
    return _run(array, "try_url_decode")
