"""pctenc's own API: types in and out, the sets, errors and their offsets (checked against
the Rust library through the pctenc CLI), form pairs, and threads with the GIL released."""

import inspect
import os
import pathlib
import pydoc
import shutil
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings, strategies as st

import pctenc

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_types_in_and_out():
    assert pctenc.encode("Jürgen & Björk") == "J%C3%BCrgen%20%26%20Bj%C3%B6rk"
    assert pctenc.encode(b"a b") == b"a%20b"
    assert pctenc.encode(bytearray(b"a b")) == b"a%20b"
    assert pctenc.encode(memoryview(b"a b")) == b"a%20b"
    assert pctenc.encode("a b", "form") == "a+b"
    assert pctenc.encode("a b", "rfc3986", space_as_plus=True) == "a+b"
    assert pctenc.encode("é", lowercase=True) == "%c3%a9"
    assert pctenc.encode("100%25 %", keep_escapes=True) == "100%25%20%25"
    assert pctenc.encode("café au lait", iri=True) == "café%20au%20lait"
    assert pctenc.decode("a%20b") == "a b"
    assert pctenc.decode(b"a%FF", utf8=None) == b"a\xff"
    assert pctenc.decode(b"a%FF", utf8="lossy") == "a\ufffd".encode()
    assert pctenc.decode("a+b", plus=True) == "a b"
    assert pctenc.decode("100%zz", strict=False) == "100%zz"
    assert pctenc.normalize("%7e%2f") == "~%2F"
    assert pctenc.normalize(b"%7e") == b"~"
    assert pctenc.requote("100% a%41") == "100%25%20a%41"
    assert pctenc.is_valid("a%20b", "rfc3986") and not pctenc.is_valid("a b", "rfc3986")
    assert pctenc.encode_many(["a b", "é", ""]) == ["a%20b", "%C3%A9", ""]
    with pytest.raises(TypeError):
        pctenc.encode(5)
    with pytest.raises(TypeError):
        pctenc.encode_many(["a", b"b"])
    with pytest.raises(UnicodeEncodeError):
        pctenc.encode("\ud800")
    with pytest.raises(ValueError, match="unknown set `nope`: expected one of rfc3986, component"):
        pctenc.encode("a", "nope")
    with pytest.raises(ValueError):
        pctenc.decode("a", utf8="latin1")


def public_functions():
    """Every public function of the package, of pctenc.form and of the native module."""
    for module in (pctenc, pctenc.form, pctenc._pctenc):
        for name in dir(module):
            obj = getattr(module, name)
            if not name.startswith("_") and callable(obj) and not inspect.isclass(obj):
                yield f"{module.__name__}.{name}", obj


def test_signatures_show_the_real_defaults():
    """inspect.signature and help() show each default itself, never `...` (Ellipsis)."""
    names = []
    for name, f in public_functions():
        sig = inspect.signature(f)
        for p in sig.parameters.values():
            assert p.default is not Ellipsis, f"{name}{sig}"
        assert "..." not in str(sig) and "Ellipsis" not in pydoc.render_doc(f), f"{name}{sig}"
        names.append(name)
    assert "pctenc.decode" in names and "pctenc._pctenc.encode" in names and "pctenc.form.parse" in names
    assert str(inspect.signature(pctenc.decode)) == "(data, *, strict=True, plus=False, utf8='strict')"
    assert str(inspect.signature(pctenc.encode)) == (
        "(data, set='component', *, space_as_plus=False, lowercase=False, keep_escapes=False, iri=False)"
    )


def test_errors_made_by_hand_have_the_attributes():
    """The stubs declare offset, kind (and byte): an error made by hand has them, as None."""
    e = pctenc.DecodeError("x")
    assert (e.offset, e.kind, str(e)) == (None, None, "x")
    v = pctenc.ValidationError("y")
    assert (v.offset, v.kind, v.byte) == (None, None, None)
    with pytest.raises(pctenc.DecodeError) as raised:
        pctenc.decode("%zz")
    assert (raised.value.offset, raised.value.kind) == (0, "invalid_escape")
    assert pctenc.DecodeError("z").offset is None  # the raised one's attributes are its own


def test_docstrings_are_plain():
    """No Rust link syntax ([`name`]) in what help() shows."""
    for module in (pctenc, pctenc.form, pctenc._pctenc):
        assert "[`" not in (module.__doc__ or ""), module.__name__
        for name in dir(module):
            if not name.startswith("__"):
                doc = getattr(module, name).__doc__ or ""
                assert "[`" not in doc, f"{module.__name__}.{name}: {doc}"
    assert "encode" in pctenc.encode_many.__doc__


def test_version_is_the_distributions():
    from importlib.metadata import version
    assert pctenc.__version__ == version("pctenc")
    assert pctenc.__version__ == pctenc._pctenc.__version__


def test_sets():
    sets = pctenc.sets()
    assert len(sets) == 14
    names = [s["name"] for s in sets]
    assert names[:2] == ["rfc3986", "component"]
    component = sets[1]
    assert component["keeps"] == "!'()*-._~" and component["space"] == "%20"
    assert "encodeURIComponent" in component["description"]
    for s in sets:
        for alias in [s["name"]] + s["aliases"]:
            assert pctenc.encode("a b/~", alias) == pctenc.encode("a b/~", s["name"])


def test_errors_carry_offset_and_kind():
    with pytest.raises(pctenc.DecodeError) as e:
        pctenc.decode("name=J%C3%BCrgen&age=%3")
    assert (e.value.offset, e.value.kind) == (21, "truncated_escape")
    assert str(e.value) == "offset 21: truncated percent-escape: `%` needs two hex digits"
    assert isinstance(e.value, ValueError)
    with pytest.raises(pctenc.DecodeError) as e:
        pctenc.decode("ok%E2%82")
    assert (e.value.offset, e.value.kind) == (2, "invalid_utf8")
    with pytest.raises(pctenc.ValidationError) as e:
        pctenc.validate("a%20b c", "rfc3986")
    assert (e.value.offset, e.value.byte) == (5, 0x20)


def test_lone_surrogates():
    """A str may hold lone surrogates, which have no UTF-8: form pairs read them as U+FFFD
    (as URLSearchParams does), decode as invalid UTF-8, validate rejects them at their offset,
    and the functions that write the text's UTF-8 raise UnicodeEncodeError, as quote does."""
    assert pctenc.form.parse("a=\ud800") == [("a", "\ufffd")]
    assert pctenc.form.parse("\udfff=%41&b=\ud83d\ude00+x") == [("\ufffd", "A"), ("b", "\ufffd\ufffd x")]
    assert pctenc.form.serialize([("a", "\ud800")]) == "a=%EF%BF%BD"
    assert pctenc.form.serialize([("\udc00 x", "y\udbff")]) == "%EF%BF%BD+x=y%EF%BF%BD"

    def decode_error(*args, **kwargs):
        with pytest.raises(pctenc.DecodeError) as e:
            pctenc.decode(*args, **kwargs)
        return e.value.offset, e.value.kind

    with pytest.raises(pctenc.DecodeError) as e:
        pctenc.decode("é%20\ud800")
    assert (e.value.offset, e.value.kind) == (5, "lone_surrogate")
    assert str(e.value) == "offset 5: lone surrogate U+D800 in the str: it has no UTF-8"
    assert decode_error("\udfff") == (0, "lone_surrogate")
    assert decode_error("a\udfff", utf8=None) == (1, "lone_surrogate")
    assert decode_error("a\udfff%zz", strict=False) == (1, "lone_surrogate")
    assert decode_error("\ud800%zz") == (0, "lone_surrogate")
    # An error before the surrogate comes first, as the offsets say.
    assert decode_error("%zz\ud800") == (0, "invalid_escape")
    assert decode_error("%C3\ud800") == (0, "invalid_utf8")
    assert decode_error("%zz\ud800", utf8="lossy") == (0, "invalid_escape")
    assert pctenc.decode("a%20\ud800%41", utf8="lossy") == "a \ufffdA"
    assert pctenc.decode("\ud800%C3", strict=False, utf8="lossy") == "\ufffd\ufffd"

    with pytest.raises(pctenc.ValidationError) as e:
        pctenc.validate("é\ud800", "path", iri=True)
    assert (e.value.offset, e.value.kind, e.value.byte) == (2, "unescaped", 0xED)
    with pytest.raises(pctenc.ValidationError) as e:
        pctenc.validate("a b\ud800", "rfc3986")
    assert (e.value.offset, e.value.byte) == (1, 0x20)
    for iri in (False, True):
        assert not pctenc.is_valid("\ud800", "path", iri=iri)
        assert not pctenc.is_valid("a%20\udfff", "component", iri=iri)

    for call in [pctenc.encode, lambda s: pctenc.encode_many([s]), pctenc.normalize, pctenc.requote]:
        with pytest.raises(UnicodeEncodeError):
            call("a\ud800")


def cli():
    """The pctenc binary built from the same Rust library, if there is one."""
    for path in [os.environ.get("PCTENC_CLI"), ROOT / "target" / "release" / "pctenc", ROOT / "target" / "debug" / "pctenc"]:
        if path and pathlib.Path(path).exists():
            return str(path)
    if os.environ.get("PCTENC_REQUIRE_CLI"):
        pytest.fail("PCTENC_REQUIRE_CLI is set but no pctenc binary was found")
    pytest.skip("no pctenc binary: build it with `cargo build --release --bin pctenc` to compare errors with it")
    return shutil.which("pctenc")


inputs = st.lists(st.sampled_from(["a", "%", "%4", "%41", "%zz", "%C3%A9", "%E2%82", "%FF", "+", " ", "é", "\n"]), max_size=10).map("".join)


@settings(max_examples=150, deadline=None)
@given(inputs, st.booleans(), st.sampled_from(["strict", "lossy"]))
def test_decode_errors_match_the_rust_library(s, plus, utf8):
    """The same error offset and message as the Rust library gives (its CLI, which prints
    `<stdin>:line:column: offset N: why`), or the same output."""
    line = s.replace("\n", "")
    args = [cli(), "decode", "--utf8", utf8] + (["--plus"] if plus else [])
    run = subprocess.run(args, input=line.encode(), capture_output=True)
    try:
        ours = pctenc.decode(line, plus=plus, utf8=utf8).encode()
    except pctenc.DecodeError as e:
        assert run.returncode == 1, (line, run.stdout)
        assert run.stderr.decode().rstrip("\n").endswith(str(e)), (line, run.stderr)
        assert str(e).startswith(f"offset {e.offset}: ")
        return
    assert run.returncode == 0 and run.stdout == ours, (line, run.stdout, run.stderr)


def test_form_pairs():
    assert pctenc.form.parse("a=1&&b=x+y&c") == [("a", "1"), ("b", "x y"), ("c", "")]
    assert pctenc.form.parse(b"x=%E2%9C%93") == [("x", "✓")]
    assert pctenc.form.serialize([("q", "C++ & C#"), ("page", "2")]) == "q=C%2B%2B+%26+C%23&page=2"
    import urllib.parse as up
    pairs = [("a b", "x&y=z"), ("é", "~"), ("", "")]
    assert pctenc.form.parse(pctenc.form.serialize(pairs)) == pairs
    assert pctenc.form.serialize(pairs) == up.urlencode(pairs).replace("%7E", "~") .replace("~", "%7E")


def test_threads_run_while_pctenc_works():
    """Above RELEASE_GIL bytes the GIL is released: a Python thread keeps counting while
    another is inside one long pctenc call, and threads in a pool get the serial results."""
    big = "Jürgen & Björk /a?b=c%20d+e " * (1 << 20)  # about 30 MB
    counted = 0
    stop = threading.Event()

    def count():
        nonlocal counted
        while not stop.is_set():
            counted += 1

    expected = pctenc.encode(big)
    counter = threading.Thread(target=count)
    counter.start()
    time.sleep(0.05)
    before = counted
    start = time.perf_counter()
    got = pctenc.encode(big)
    took = time.perf_counter() - start
    during = counted - before
    stop.set()
    counter.join()
    assert got == expected
    # With the GIL held the counter would stand still for the whole call.
    assert during > 1000, f"the counter ran {during} times during a {took:.3f} s call"

    small = [("a b é %41 " * n) for n in range(1, 200)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(pctenc.encode, [big] * 4 + small))
        decoded = list(pool.map(pctenc.decode, results))
    assert results[:4] == [expected] * 4
    assert decoded == [big] * 4 + small
