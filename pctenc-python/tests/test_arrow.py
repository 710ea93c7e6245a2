"""pctenc.arrow and pctenc.polars: the Arrow kernels from Python, against pctenc's own
one-value functions row by row, on every string and binary type, chunked, sliced and empty
input, Polars (eager and lazy) and DuckDB data, errors by row, chunk and offset, and the
results without pyarrow.

pyarrow, polars and duckdb are optional: without one, its tests are skipped, unless
PCTENC_REQUIRE_ARROW is set (CI), which makes a missing one a failure.
"""

import os
import random
import re
import subprocess
import sys
import textwrap
import urllib.parse

import pytest

import pctenc


def need(name):
    try:
        return __import__(name)
    except ImportError:
        if os.environ.get("PCTENC_REQUIRE_ARROW"):
            pytest.fail(f"PCTENC_REQUIRE_ARROW is set but {name} is not installed")
        pytest.skip(f"{name} is not installed")


@pytest.fixture
def pa():
    return need("pyarrow")


ALPHABET = "ab /?&=+%~é東\u00a0\U0001f600"


def random_values(rng, n, nulls=0.1):
    """Strings built from characters that percent-encoding treats differently, with nulls."""
    out = []
    for _ in range(n):
        if rng.random() < nulls:
            out.append(None)
        else:
            out.append("".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 24))))
    return out


def encoded(values):
    return [None if v is None else pctenc.encode(v, "component") for v in values]


STRING_TYPES = ["string", "large_string", "string_view"]
BINARY_TYPES = ["binary", "large_binary", "binary_view"]


def typed(pa, values, name):
    kind = getattr(pa, name)()
    if name in BINARY_TYPES:
        values = [None if v is None else v.encode("utf-8", "surrogatepass") for v in values]
    return pa.array(values, type=kind)


def as_text(values):
    return [v.decode() if isinstance(v, bytes) else v for v in values]


@pytest.mark.parametrize("name", STRING_TYPES + BINARY_TYPES)
def test_agrees_with_the_one_value_functions(pa, name):
    import pctenc.arrow

    rng = random.Random(name)
    values = random_values(rng, 3000)
    array = typed(pa, values, name)
    out = pctenc.arrow.encode(array, "component")
    assert out.type == array.type
    assert as_text(out.to_pylist()) == encoded(values)

    enc = typed(pa, encoded(values), name)
    dec = pctenc.arrow.decode(enc)
    assert dec.type == array.type
    assert as_text(dec.to_pylist()) == values
    assert pctenc.arrow.validate(enc, "component").to_pylist() == [None if v is None else True for v in values]

    # Spark's url_encode is quote_plus with Java's safe characters (which leave out `~`,
    # always safe to Python); url_decode reverses it.
    spark = pctenc.arrow.url_encode(array)
    want = [None if v is None else urllib.parse.quote_plus(v, safe="*-._").replace("~", "%7E") for v in values]
    assert as_text(spark.to_pylist()) == want
    assert as_text(pctenc.arrow.url_decode(spark).to_pylist()) == values

    plus = typed(pa, [None if v is None else pctenc.quote_plus(v) for v in values], name)
    assert as_text(pctenc.arrow.decode(plus, mode="plus").to_pylist()) == values
    norm = pctenc.arrow.normalize(enc)
    assert as_text(norm.to_pylist()) == [None if v is None else pctenc.normalize(v) for v in encoded(values)]


def test_decode_matches_unquote_on_hostile_rows(pa):
    import pctenc.arrow

    rng = random.Random(7)
    rows = []
    for _ in range(2000):
        rows.append("".join(rng.choice("%%%0aAfFgz+é ") for _ in range(rng.randrange(0, 12))))
    lossy = pctenc.arrow.try_decode(pa.array(rows), mode="lenient,lossy").to_pylist()
    assert lossy == [urllib.parse.unquote(r) for r in rows]
    strict = pctenc.arrow.try_decode(pa.array(rows)).to_pylist()
    for row, got in zip(rows, strict):
        try:
            want = pctenc.decode(row)
        except pctenc.DecodeError:
            want = None
        assert got == want, row


def test_chunked_slices_and_empty(pa):
    import pctenc.arrow

    values = ["a b", None, "é", "x/y", "", "東京"]
    chunked = pa.chunked_array([values[:2], values[2:2], values[2:]])
    out = pctenc.arrow.encode(chunked)
    assert isinstance(out, pa.ChunkedArray)
    assert out.num_chunks == 3
    assert out.to_pylist() == encoded(values)

    sliced = pa.array(values).slice(2, 3)
    assert pctenc.arrow.encode(sliced).to_pylist() == encoded(values[2:5])

    for kind in STRING_TYPES + BINARY_TYPES:
        empty = pa.array([], type=getattr(pa, kind)())
        assert len(pctenc.arrow.decode(empty)) == 0
        assert pctenc.arrow.decode(empty).type == empty.type
        none = pa.chunked_array([], type=getattr(pa, kind)())
        out = pctenc.arrow.url_decode(none)
        assert isinstance(out, pa.ChunkedArray) and len(out) == 0 and out.type == none.type


def test_large_columns_run_in_parallel_and_agree(pa):
    import pctenc.arrow

    rng = random.Random(3)
    values = random_values(rng, 60000, nulls=0.01)  # well over the 256 KiB parallel threshold
    out = pctenc.arrow.encode(pa.array(values))
    assert out.to_pylist() == encoded(values)
    assert pctenc.arrow.decode(out).to_pylist() == values


def test_errors_name_row_chunk_and_offset(pa):
    import pctenc.arrow

    with pytest.raises(pctenc.DecodeError) as e:
        pctenc.arrow.decode(pa.array(["ok", None, "ab%zz"]))
    assert (e.value.row, e.value.chunk, e.value.offset) == (2, None, 2)
    assert str(e.value).startswith("row 2, offset 2: ")

    with pytest.raises(pctenc.DecodeError) as e:
        pctenc.arrow.decode(pa.chunked_array([["a", "b"], ["c", "d%4"]]))
    assert (e.value.row, e.value.chunk, e.value.offset) == (3, 1, 1)
    assert str(e.value).startswith("row 3 (chunk 1, row 1 in it), offset 1: ")

    with pytest.raises(pctenc.DecodeError) as e:
        pctenc.arrow.url_decode(pa.array(["100%"]))
    assert "[CANNOT_DECODE_URL]" in str(e.value) and e.value.offset == 3

    # Invalid UTF-8 in a string column is an error; a binary column keeps the byte.
    with pytest.raises(pctenc.DecodeError) as e:
        pctenc.arrow.decode(pa.array(["a%FFb"]))
    assert e.value.offset == 1
    assert pctenc.arrow.decode(pa.array([b"a%FFb"])).to_pylist() == [b"a\xffb"]

    with pytest.raises(ValueError, match="unknown word `loose`"):
        pctenc.arrow.decode(pa.array(["a"]), mode="loose")
    with pytest.raises(ValueError, match="unknown set"):
        pctenc.arrow.encode(pa.array(["a"]), "nope")


def test_wrong_types_are_type_errors(pa):
    import pctenc.arrow

    with pytest.raises(TypeError, match=r"takes a pyarrow Array or ChunkedArray, a Polars Series.*not list"):
        pctenc.arrow.decode(["a%20b"])
    with pytest.raises(TypeError, match="takes string, large_string, string_view, binary.*not int64"):
        pctenc.arrow.decode(pa.array([1, 2]))
    table = pa.table({"a": ["x"], "b": ["y"]})
    with pytest.raises(TypeError, match="one column, not a table of 2 columns"):
        pctenc.arrow.decode(table)
    # A table of one column is its column.
    assert pctenc.arrow.decode(pa.table({"a": ["x%20y"]})).to_pylist() == ["x y"]


def test_polars_eager_and_lazy():
    pl = need("polars")
    import pctenc.polars  # noqa: F401  (registers the namespace)

    df = pl.DataFrame({"url": ["/caf%C3%A9?q=a+b", None, "%zz"], "raw": [b"a b", b"\xff", None]})
    out = df.select(pl.col("url").pctenc.try_decode(mode="plus"))
    assert out.to_series().to_list() == ["/café?q=a b", None, None]
    lazy = df.lazy().with_columns(
        enc=pl.col("raw").pctenc.encode(),
        ok=pl.col("url").pctenc.validate(),
        spark=pl.col("url").pctenc.try_url_decode(),
    )
    assert lazy.collect_schema()["ok"] == pl.Boolean
    got = lazy.filter(pl.col("url").is_not_null()).collect()
    assert got["enc"].to_list() == [b"a%20b", None]  # rows 0 and 2: raw is null in row 2
    assert got["ok"].to_list() == [False, False]
    assert got["spark"].to_list() == ["/café?q=a b", None]
    with pytest.raises(pctenc.DecodeError, match="row 2"):
        df.select(pl.col("url").pctenc.decode())


def test_polars_series_directly():
    pl = need("polars")
    import pctenc.arrow

    s = pl.Series("u", ["a%20b", None])
    out = pctenc.arrow.decode(s)
    assert pl.Series(out).to_list() == ["a b", None]


def test_duckdb_results_without_conversion():
    duckdb = need("duckdb")
    need("pyarrow")
    import pctenc.arrow

    con = duckdb.connect()
    rel = con.sql("SELECT * FROM (VALUES ('a%20b'), (NULL), ('%E6%9D%B1')) t(u)")
    assert pctenc.arrow.decode(rel).to_pylist() == ["a b", None, "東"]
    table = rel.arrow()
    assert pctenc.arrow.decode(table).to_pylist() == ["a b", None, "東"]


def test_pandas_arrow_dtype():
    pd = need("pandas")
    pa = need("pyarrow")
    import pctenc.arrow

    s = pd.Series(["a%20b", None], dtype=pd.ArrowDtype(pa.string()))
    assert pctenc.arrow.decode(pa.array(s)).to_pylist() == ["a b", None]


def test_without_pyarrow_the_result_exports_the_interface():
    need("pyarrow")
    code = textwrap.dedent(
        """
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name == "pyarrow" or name.startswith("pyarrow."):
                    raise ImportError("pyarrow hidden")
        # Build the input with pyarrow, then hide it from pctenc.arrow.
        import pyarrow as pa
        array = pa.array(["a%20b", None])
        chunked = pa.chunked_array([["x%2Fy"]])
        for name in [n for n in sys.modules if n == "pyarrow" or n.startswith("pyarrow.")]:
            del sys.modules[name]
        sys.meta_path.insert(0, Block())
        import pctenc.arrow
        out = pctenc.arrow.decode(array)
        assert hasattr(out, "__arrow_c_array__"), type(out)
        assert "pyarrow" not in type(out).__module__
        out = pctenc.arrow.decode(chunked)
        assert hasattr(out, "__arrow_c_stream__"), type(out)
        sys.meta_path.pop(0)
        import pyarrow as pa2
        assert pa2.chunked_array(out).to_pylist() == ["x/y"]
        print("ok")
        """
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr


# ---------------------------------------------------------------------------------------
# No crash from any column: empty slices, structs, malformed data, panics.

KERNELS = ["encode", "decode", "try_decode", "validate", "normalize", "url_encode", "url_decode", "try_url_decode"]


def call(kernel, data):
    import pctenc.arrow
    return getattr(pctenc.arrow, kernel)(data)


@pytest.mark.parametrize("name", STRING_TYPES + BINARY_TYPES)
def test_empty_slices_at_an_offset(pa, name):
    """An empty slice that starts past the first row (what `arr[1:]` and
    `RecordBatch.slice(1, 0)` give) is an empty column in and out, in every kernel."""
    values = [b"a"] if name in BINARY_TYPES else ["a"]
    array = pa.array(values, getattr(pa, name)())
    batch = pa.record_batch({"c": array})
    for kernel in KERNELS:
        for empty in [array[1:], array.slice(1, 0), batch.slice(1, 0)]:
            out = call(kernel, empty)
            assert len(out) == 0, (kernel, empty)


def test_non_text_types_are_type_errors_naming_the_type(pa):
    """A struct column is not unwrapped (its nulls would be lost); any type but the six and
    a dictionary of one is a TypeError that names it."""
    columns = [
        (pa.array([{"x": "a b"}, None]), "struct<x: string>"),
        (pa.array([[b"a"]]), "list<item: binary>"),
        (pa.array([1.5]), "double"),
        (pa.array([None]), "null"),
        (pa.array([1]).dictionary_encode(), "dictionary<values=int64"),
    ]
    for column, name in columns:
        for kernel in KERNELS:
            with pytest.raises(TypeError, match=re.escape(name)):
                call(kernel, column)


MALFORMED = r'''
import sys
import pyarrow as pa
import pctenc, pctenc.arrow

def buf(*ints, width=4):
    return pa.py_buffer(b"".join(i.to_bytes(width, "little", signed=True) for i in ints))

kind = sys.argv[1]
data = pa.py_buffer(b"abcdefghijklmnopqrstuvwxyz%20%41")
cases = lambda: {
    # offsets that go backwards in row 1
    "backwards": pa.Array.from_buffers(pa.string(), 3, [None, buf(0, 5, 2, 8), data]),
    # offsets past the values buffer in row 0 (the last offset is within it)
    "past": pa.Array.from_buffers(pa.large_binary(), 2, [None, buf(0, 40, 2, width=8), data]),
    # a view of 20 bytes at offset 30 of a 32-byte buffer (row 1)
    "view": pa.Array.from_buffers(pa.binary_view(), 2, [None, pa.py_buffer(
        (3).to_bytes(4, "little") + b"abc" + bytes(9)
        + (20).to_bytes(4, "little") + b"abcd" + (0).to_bytes(4, "little") + (30).to_bytes(4, "little")), data]),
    # a view naming buffer 5 of 1 (row 0)
    "index": pa.Array.from_buffers(pa.string_view(), 1, [None, pa.py_buffer(
        (20).to_bytes(4, "little") + b"abcd" + (5).to_bytes(4, "little") + (0).to_bytes(4, "little")), data]),
    # a dictionary key past the dictionary (row 1)
    "key": pa.DictionaryArray.from_buffers(pa.dictionary(pa.int32(), pa.string()), 2,
        [None, buf(0, 7)], pa.array(["a"])),
}
array = cases()[kind]
for kernel in KERNELS:
    try:
        getattr(pctenc.arrow, kernel)(array)
    except ValueError as e:
        assert "malformed Arrow data" in str(e) and "row" in str(e), str(e)
        continue
    raise AssertionError(f"{kernel}: no error for {kind}")
print("ok")
'''


@pytest.mark.parametrize("kind", ["backwards", "past", "view", "index", "key"])
def test_malformed_arrow_data_is_a_value_error(pa, kind):
    """Offsets that go backwards or past the values, views past their buffer or naming a
    buffer that is not there, dictionary keys past the dictionary: a ValueError naming the
    row, never a read outside the buffers (run in a child process, which a crash would end)."""
    code = MALFORMED.replace("KERNELS", repr(KERNELS))
    run = subprocess.run([sys.executable, "-c", code, kind], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "ok", (run.returncode, run.stderr[-2000:])


def test_no_panic_reaches_python(pa):
    """Whatever a kernel meets, a panic never reaches Python as PanicException (a
    BaseException), and nothing is written to stderr: every hostile column above gives an
    ordinary exception or a result."""
    code = textwrap.dedent('''
        import pyarrow as pa, pctenc.arrow
        columns = [pa.array(["a"])[1:], pa.array([{"x": "a"}]), pa.array(["%zz", None]).dictionary_encode()[1:],
                   pa.chunked_array([pa.array(["a"])[1:], pa.array(["b%"])]), pa.array([b"\\xff%"], pa.binary()).view(pa.string())]
        for column in columns:
            for kernel in KERNELS:
                try:
                    getattr(pctenc.arrow, kernel)(column)
                except Exception:
                    pass
        print("ok")
    '''.replace("KERNELS", repr(KERNELS)))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "ok" and run.stderr == "", run.stderr[-2000:]


def test_try_url_decode_nulls_a_string_row_that_is_not_utf8(pa):
    """A string column whose row is not UTF-8 (a binary column viewed as strings): null in
    try_url_decode, an error naming the row in url_decode."""
    import pctenc.arrow
    column = pa.array([b"ok%20", b"%41\xff", None], pa.binary()).view(pa.string())
    assert pctenc.arrow.try_url_decode(column).to_pylist() == ["ok ", None, None]
    with pytest.raises(pctenc.DecodeError) as e:
        pctenc.arrow.url_decode(column)
    assert (e.value.row, e.value.offset) == (1, 3)


def test_keyword_errors_name_the_keyword(pa):
    import pctenc.arrow
    with pytest.raises(TypeError, match="mode must be a str"):
        pctenc.arrow.decode(pa.array(["a"]), mode=None)
    with pytest.raises(TypeError, match="set must be a str"):
        pctenc.arrow.encode(pa.array(["a"]), set=3)


# ---------------------------------------------------------------------------------------
# Dictionary columns.


def as_plain(pa, result):
    """A result as a plain column: a dictionary's values read through its keys."""
    if pa.types.is_dictionary(result.type):
        return result.cast(result.type.value_type)
    return result


@pytest.mark.parametrize("value_type", ["string", "large_string", "binary"])
def test_dictionaries_agree_with_the_plain_column(pa, value_type):
    """A dictionary column gives, row by row, what the plain column gives, in every kernel;
    plain encoding keeps the dictionary, the others give the value type; an entry no row
    uses never fails the call."""
    import pctenc.arrow
    rng = random.Random(49)
    values = list(dict.fromkeys(v for v in random_values(rng, 60, nulls=0) if v))
    values += ["%41", "A", "%zz", "a%2", "%E9"]  # collide once decoded, fail to decode
    kind = getattr(pa, value_type)()
    dictionary = pa.array([v.encode() if value_type == "binary" else v for v in values], kind)
    keys = pa.array([rng.randrange(len(values)) if rng.random() > 0.1 else None for _ in range(400)], pa.int32())
    column = pa.DictionaryArray.from_arrays(keys, dictionary)
    plain = column.cast(kind)
    for kernel in KERNELS:
        ours = theirs = None
        try:
            ours = as_plain(pa, call(kernel, column)).to_pylist()
        except pctenc.DecodeError as e:
            ours = ("error", e.row, e.offset)
        try:
            theirs = call(kernel, plain).to_pylist()
        except pctenc.DecodeError as e:
            theirs = ("error", e.row, e.offset)
        assert ours == theirs, kernel
    assert pa.types.is_dictionary(pctenc.arrow.encode(column).type)
    assert not pa.types.is_dictionary(pctenc.arrow.try_decode(column).type)
    # The entries that fail, used by no row: no error.
    entries = pa.array([b"ok", b"%zz"] if value_type == "binary" else ["ok", "%zz"], kind)
    used = pa.DictionaryArray.from_arrays(pa.array([0, None, 0], pa.int32()), entries)
    assert as_plain(pa, pctenc.arrow.decode(used)).to_pylist() == [entries[0].as_py(), None, entries[0].as_py()]


def test_dictionaries_from_polars_duckdb_and_parquet(pa, tmp_path):
    import pctenc.arrow
    import pyarrow.parquet as pq
    pl = need("polars")
    duckdb = need("duckdb")
    values = ["a b", "c%20d", None, "a b"]
    for dtype in [pl.Categorical, pl.Enum(["a b", "c%20d"])]:
        series = pl.Series("c", values, dtype=dtype)
        assert pctenc.arrow.encode(series).to_pylist() == ["a%20b", "c%2520d", None, "a%20b"]
        assert pctenc.arrow.decode(series).to_pylist() == ["a b", "c d", None, "a b"]
    path = tmp_path / "dict.parquet"
    pq.write_table(pa.table({"c": values}), path, use_dictionary=True)
    column = pq.read_table(path, read_dictionary=["c"]).column("c")
    assert pa.types.is_dictionary(column.type)
    assert as_plain(pa, pctenc.arrow.encode(column)).to_pylist() == ["a%20b", "c%2520d", None, "a%20b"]
    con = duckdb.connect()
    con.execute("CREATE TYPE mood AS ENUM ('a b', 'c%20d')")
    rel = con.sql("SELECT CAST(c AS mood) AS c FROM (VALUES ('a b'), ('c%20d'), (NULL)) t(c)")
    assert pctenc.arrow.decode(rel).to_pylist() == ["a b", "c d", None]


# ---------------------------------------------------------------------------------------
# Polars: a return dtype for every column type, errors through expressions.


def test_polars_every_column_type_has_a_return_dtype():
    pl = need("polars")
    import pctenc.polars  # noqa: F401

    df = pl.DataFrame({"s": ["a b", None], "b": [b"a b", None]}).with_columns(
        cat=pl.col("s").cast(pl.Categorical), enum=pl.col("s").cast(pl.Enum(["a b"])), null=pl.lit(None)
    )
    for column, dtype in [("s", pl.String), ("b", pl.Binary), ("cat", pl.String), ("enum", pl.String), ("null", pl.String)]:
        for name in ["encode", "decode", "try_decode", "normalize", "url_encode", "url_decode", "try_url_decode"]:
            out = df.lazy().select(getattr(pl.col(column).pctenc, name)()).collect()
            assert out.dtypes == [dtype], (column, name)
        assert df.select(pl.col(column).pctenc.validate()).dtypes == [pl.Boolean]
    assert df.select(pl.col("cat").pctenc.encode()).to_series().to_list() == ["a%20b", None]
    for bad in [pl.lit(1), pl.lit([1]), pl.lit(1.5)]:
        with pytest.raises(TypeError, match=r"pctenc\.encode\(\) takes String, Binary, Categorical or Enum columns"):
            df.select(bad.pctenc.encode())


def test_polars_errors_keep_their_place():
    """A DecodeError from an expression keeps its offset; its row is counted within the batch
    Polars passed (under the streaming engine, one of many), and says so."""
    pl = need("polars")
    import pctenc.polars  # noqa: F401

    df = pl.DataFrame({"u": ["ok"] * 5 + ["a%zz"]})
    for engine in ["in-memory", "streaming"]:
        with pytest.raises(pctenc.DecodeError) as e:
            df.lazy().select(pl.col("u").pctenc.decode()).collect(engine=engine)
        assert e.value.offset == 1 and " of a batch" in str(e.value), str(e.value)
        assert e.value.row is None
    with pytest.raises(pctenc.DecodeError) as e:
        pctenc.arrow.decode(pl.Series(["ok", "a%zz"]))
    assert (e.value.row, e.value.offset) == (1, 1)


def test_decode_error_attributes_survive_a_rebuild_from_the_message():
    """Polars re-raises an expression's exception as a new one of the same class, from its
    message: the attributes are read back from it."""
    e = pctenc.DecodeError("row 5 (chunk 1, row 2 in it), offset 3: why")
    assert (e.row, e.chunk, e.offset) == (5, 1, 3)
    e = pctenc.DecodeError("offset 7: why")
    assert (e.row, e.chunk, e.offset) == (None, None, 7)
    assert pctenc.DecodeError("x").offset is None


# ---------------------------------------------------------------------------------------
# The README's table of equivalents, against each system.

HOSTILE = ["a b", "a+b", "~*'()", "%", "%4", "%zz", "%41%42", "%e9", "%C3%A9", "100%", "é東😀", "a/b?c=d&e",
           "%%", "+%2B+", "%_", "\t\n", "%00", "%ff%fe", "x%2", ""]


def hostile_rows(rng, n):
    return HOSTILE + ["".join(rng.choice(HOSTILE) for _ in range(rng.randrange(1, 5))) for _ in range(n)]


def test_equivalents_of_urllib_on_columns(pa):
    import pctenc.arrow
    rows = hostile_rows(random.Random(10), 3000)
    column = pa.array(rows)
    assert pctenc.arrow.encode(column, "python-quote").to_pylist() == [urllib.parse.quote(r) for r in rows]
    assert pctenc.arrow.encode(column, "python-quote-plus").to_pylist() == [urllib.parse.quote_plus(r) for r in rows]
    assert pctenc.arrow.decode(column, mode="lenient,lossy").to_pylist() == [urllib.parse.unquote(r) for r in rows]
    assert pctenc.arrow.decode(column, mode="lenient,lossy,plus").to_pylist() == [
        urllib.parse.unquote_plus(r) for r in rows
    ]


def test_equivalents_of_duckdb(pa):
    """DuckDB's url_encode is the rfc3986 set; its url_decode is lenient decoding, and raises
    where the result is not UTF-8, where pctenc's decode raises too."""
    import pctenc.arrow
    duckdb = need("duckdb")
    rows = hostile_rows(random.Random(11), 3000)
    con = duckdb.connect()
    hostile = pa.table({"s": rows})
    theirs = con.sql("SELECT url_encode(s) AS s FROM hostile").arrow().read_all().column("s").to_pylist()
    assert pctenc.arrow.encode(hostile.column("s"), "rfc3986").to_pylist() == theirs
    ours = pctenc.arrow.try_decode(hostile.column("s"), mode="lenient").to_pylist()
    for row, value in enumerate(rows):
        try:
            theirs = con.execute("SELECT url_decode(?)", [value]).fetchone()[0]
        except duckdb.Error:
            theirs = None
        assert ours[row] == theirs, value


# ---------------------------------------------------------------------------------------
# A second hostile pass: each case is one that crashed, aborted or panicked.

CHILD = r'''
import io, resource, struct, sys
resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
import numpy as np, pyarrow as pa, pctenc, pctenc.arrow as A
case = sys.argv[1]

def expect_value_error(call, words):
    try:
        call()
    except ValueError as e:
        assert words in str(e), str(e)
        return
    raise AssertionError(f"{case}: no ValueError")

if case == "null-view":
    # A null row's view points at a buffer that is not there: never read.
    good = pa.array([b"a long value of many bytes %41", None, b"x"], pa.binary_view())
    b = good.buffers()
    v = np.frombuffer(b[1], dtype=np.uint64).copy().reshape(-1, 2)
    v[1, 0] = 100 | (0x41414141 << 32)
    v[1, 1] = 7 | ((1 << 31) << 32)
    for kind in [pa.binary_view(), pa.string_view()]:
        arr = pa.Array.from_buffers(kind, 3, [b[0], pa.py_buffer(v.tobytes()), b[2]])
        assert A.validate(arr).to_pylist() == [False, None, True]
        keys = pa.array([0, 2, None, 1], pa.int32())
        assert A.validate(pa.DictionaryArray.from_arrays(keys, arr)).to_pylist() == [False, True, None, None]
elif case == "ipc-offsets":
    # An IPC file whose last offset runs far past the values: pyarrow's check catches it.
    arr = pa.array(["x" * 4660, "y"])
    sink = io.BytesIO()
    with pa.ipc.new_file(sink, pa.schema([("c", arr.type)])) as w:
        w.write_batch(pa.record_batch([arr], names=["c"]))
    data = sink.getvalue().replace(struct.pack("<iii", 0, 4660, 4661), struct.pack("<iii", 0, 4660, 0x7FFF0000), 1)
    table = pa.ipc.open_file(pa.py_buffer(data)).read_all()
    for kernel in ["encode", "decode", "try_decode", "url_encode", "validate"]:
        for data in [table.column(0), table, table.to_batches()[0], table.to_reader()]:
            expect_value_error(lambda: getattr(A, kernel)(data), "malformed Arrow data")
elif case == "shared-views":
    # A million views of one 64 KiB value: valid, but 64 GB once gathered.
    value = pa.py_buffer(b"a" * 65536)
    view = (65536 | (ord("a") * 0x01010101) << 32) | 0  # length, prefix; buffer 0, offset 0
    views = np.zeros((1_000_000, 2), dtype=np.uint64)
    views[:, 0] = 65536 | (0x61616161 << 32)
    arr = pa.Array.from_buffers(pa.binary_view(), 1_000_000, [None, pa.py_buffer(views.tobytes()), value])
    expect_value_error(lambda: A.decode(arr), "out of memory")
elif case == "huge-gather":
    d = pa.DictionaryArray.from_arrays(pa.array(np.zeros(10_000_000, np.int32)), pa.array(["a" * (1 << 20)], pa.large_string()))
    expect_value_error(lambda: A.decode(d), "out of memory")
elif case == "stream-schema":
    # Batches that do not match the stream's schema.
    schema = pa.schema([("c", pa.string())])
    for batch in [pa.record_batch([pa.array([0, 1 << 40, 5])], names=["c"]),
                  pa.record_batch([pa.array(["a", "b"], pa.large_string())], names=["c"])]:
        reader = pa.RecordBatchReader.from_batches(schema, iter([batch]))
        expect_value_error(lambda: A.encode(reader), "malformed Arrow data")
print("ok")
'''


@pytest.mark.parametrize("case", ["null-view", "ipc-offsets", "shared-views", "huge-gather", "stream-schema"])
def test_second_hostile_pass(pa, case):
    """In a child process with 6 GiB of address space: an answer or a ValueError, never a
    crash, an abort or a panic report on stderr."""
    run = subprocess.run([sys.executable, "-c", CHILD, case], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok" and run.stderr == "", (run.returncode, run.stderr[-3000:])


def test_switches_must_be_bools(pa):
    import pctenc.arrow
    with pytest.raises(TypeError, match="space_as_plus must be True or False, not str"):
        pctenc.arrow.encode(pa.array(["a b"]), space_as_plus="yes")
    with pytest.raises(TypeError, match="iri must be True or False"):
        pctenc.arrow.validate(pa.array(["a b"]), iri=1)


# ---------------------------------------------------------------------------------------
# A third hostile pass.

CHILD3 = r'''
import io, resource, struct, sys
resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
import numpy as np, pandas as pd, pyarrow as pa, pctenc, pctenc.arrow as A
case, tmp = sys.argv[1], sys.argv[2]

def expect_value_error(call, words):
    try:
        call()
    except ValueError as e:
        assert words in str(e), str(e)
        return
    raise AssertionError(f"{case}: no ValueError")

if case == "feather":
    # An untrusted Feather file read by pandas: its Series is as untrusted as the table.
    arr = pa.array(["x" * 4660, "y"])
    sink = io.BytesIO()
    with pa.ipc.new_file(sink, pa.schema([("c", arr.type)])) as w:
        w.write_batch(pa.record_batch([arr], names=["c"]))
    data = sink.getvalue().replace(struct.pack("<iii", 0, 4660, 4661), struct.pack("<iii", 0, 4660, 1 << 20), 1)
    path = tmp + "/bad.arrow"
    open(path, "wb").write(data)
    table = pa.ipc.open_file(path).read_all()
    for series in [pd.read_feather(path)["c"], table.to_pandas(types_mapper=pd.ArrowDtype)["c"]]:
        expect_value_error(lambda: A.encode(series), "malformed Arrow data")
elif case == "many-rows":
    # 250 million empty strings: the rows' bookkeeping alone is gigabytes.
    n = 250_000_000
    arr = pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(np.zeros(n + 1, np.int32)), pa.py_buffer(b"")])
    for kernel in ["encode", "try_decode"]:
        expect_value_error(lambda: getattr(A, kernel)(arr), "out of memory")
print("ok")
'''


@pytest.mark.parametrize("case", ["feather", "many-rows"])
def test_third_hostile_pass(pa, case, tmp_path):
    """In a child process with 6 GiB of address space: a ValueError, never a crash or an
    abort, for an untrusted Feather file read by pandas and for a column too long to keep a
    word a row for."""
    need("pandas")
    run = subprocess.run([sys.executable, "-c", CHILD3, case, str(tmp_path)], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok" and run.stderr == "", (run.returncode, run.stderr[-3000:])


def test_interrupts_are_not_value_errors(pa):
    """KeyboardInterrupt and SystemExit raised while the data is read pass through as they
    are (an `except ValueError` around a decode must not swallow Ctrl-C)."""
    import pctenc.arrow

    class Exits:
        def __arrow_c_array__(self, requested_schema=None):
            raise SystemExit(3)

    class Interrupts:
        def __arrow_c_stream__(self, requested_schema=None):
            raise KeyboardInterrupt

    with pytest.raises(SystemExit):
        pctenc.arrow.encode(Exits())
    with pytest.raises(KeyboardInterrupt):
        pctenc.arrow.encode(Interrupts())


def test_an_array_with_a_schema_is_not_a_table(pa):
    """An array exporter with a `schema` attribute (as nanoarrow's arrays have) of struct type
    is a struct column, not a table of one column: a TypeError, its nulls not dropped."""
    import pctenc.arrow
    column = pa.array([{"x": "a b"}, None])

    class NanoarrowLike:
        schema = "struct<x: string>"

        def __arrow_c_array__(self, requested_schema=None):
            return column.__arrow_c_array__(requested_schema)

    with pytest.raises(TypeError, match="(?i)struct"):
        pctenc.arrow.encode(NanoarrowLike())
    # A RecordBatchReader of one column is a table's stream: its column.
    reader = pa.table({"a": ["x%20y"]}).to_reader()
    assert pctenc.arrow.decode(reader).to_pylist() == ["x y"]
