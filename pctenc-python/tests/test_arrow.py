"""pctenc.arrow and pctenc.polars: the Arrow kernels from Python, against pctenc's own
one-value functions row by row, on every string and binary type, chunked, sliced and empty
input, Polars (eager and lazy) and DuckDB data, errors by row, chunk and offset, and the
results without pyarrow.

pyarrow, polars and duckdb are optional: without one, its tests are skipped, unless
PCTENC_REQUIRE_ARROW is set (CI), which makes a missing one a failure.
"""

import os
import random
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

    with pytest.raises(ValueError, match="unknown decoding mode `loose`"):
        pctenc.arrow.decode(pa.array(["a"]), mode="loose")
    with pytest.raises(ValueError, match="unknown set"):
        pctenc.arrow.encode(pa.array(["a"]), "nope")


def test_wrong_types_are_type_errors(pa):
    import pctenc.arrow

    with pytest.raises(TypeError, match=r"takes a pyarrow Array or ChunkedArray, a Polars Series.*not list"):
        pctenc.arrow.decode(["a%20b"])
    with pytest.raises(TypeError, match="takes string, large_string, string_view, binary.*not Int64"):
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
