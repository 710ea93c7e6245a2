"""The drop-ins against urllib.parse: CPython's own test cases, and random differential tests
(hypothesis) over str, bytes, non-BMP text, lone surrogates, safe strings, encodings and
errors handlers. Results and exceptions (type and message) must be the same."""

import json
import pathlib
import urllib.parse as up

import pytest
from hypothesis import given, settings, strategies as st

import pctenc

DATA = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "cpython" / "test_urllib.json"
DROPINS = ["quote", "quote_plus", "quote_from_bytes", "unquote", "unquote_plus", "unquote_to_bytes"]


def outcome(f, *args, **kwargs):
    """The result of a call, or the exception's type and message."""
    try:
        return ("ok", type(r := f(*args, **kwargs)).__name__, r)
    except Exception as e:  # noqa: BLE001 - the point is to compare them
        return ("raised", type(e).__name__, str(e))


def same(name, *args, **kwargs):
    ours = outcome(getattr(pctenc, name), *args, **kwargs)
    theirs = outcome(getattr(up, name), *args, **kwargs)
    assert ours == theirs, f"{name}{args!r} {kwargs!r}"
    return ours


def test_signatures_are_urllib_parse():
    import inspect
    for name in DROPINS:
        ours, theirs = getattr(pctenc, name), getattr(up, name)
        try:
            expected = inspect.signature(theirs)
        except ValueError:
            continue
        if name == "unquote_to_bytes":
            assert ours("a%20b") == theirs("a%20b")
            continue
        assert inspect.signature(ours) == expected, name


CASES = json.loads(DATA.read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["python"][:60] for c in CASES])
def test_cpython_test_urllib(case):
    """Each literal case of CPython's QuotingTests and UnquotingTests: the same result as
    urllib.parse, and the value the test expects. The cases that CPython's test writes as an
    expression of several calls run as written too, with pctenc's functions."""
    if case["python"].endswith("(None), " + case["function"] + "(()) raise"):
        f = case["function"]
        same(f, None)
        same(f, ())
        assert outcome(getattr(pctenc, f), None)[0] == outcome(getattr(pctenc, f), ())[0] == "raised"
        return
    arg = case["input"] if "input" in case else bytes(case["input_bytes"])
    kwargs = {"safe": case["safe"]} if "safe" in case else {}
    got = same(case["function"], arg, **kwargs)
    if "excluded" not in case:
        expect = case["expect"] if "expect" in case else bytes(case["expect_bytes"])
        assert got[0] == "ok" and got[2] == expect, case["python"]
    # The call as the test writes it (`call`, `call == call`, or `call raises Error`), in both
    # namespaces.
    expression, _, raises = case["python"].partition(" raises ")
    ours = outcome(eval, expression, {}, {n: getattr(pctenc, n) for n in DROPINS})  # noqa: S307
    if ours[:2] == ("raised", "NameError"):
        return  # a name of the test's own (a loop variable)
    theirs = outcome(eval, expression, {}, {n: getattr(up, n) for n in DROPINS})  # noqa: S307
    assert ours == theirs, case["python"]
    if raises:
        assert ours[:2] == ("raised", raises), case["python"]


texts = st.lists(
    st.one_of(
        st.characters(),
        st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),
        st.sampled_from(["%", "+", " ", "/", "~", "%2", "%zz", "%41", "%C3", "%A9", "%E2%82", "%F0", "\U0001F600", "é"]),
    ),
    max_size=20,
).map("".join)
safes = st.one_of(st.just("/"), st.text(max_size=6), st.binary(max_size=6), st.sampled_from(["", "%", "+", " ", "/?&=", "é~"]))
encodings = st.sampled_from([None, "utf-8", "UTF8", "utf_8", "latin-1", "ascii", "cp1252", "shift_jis"])
errors = st.sampled_from([None, "strict", "replace", "ignore", "surrogatepass", "surrogateescape", "backslashreplace"])


@settings(max_examples=3000, deadline=None)
@given(texts, safes, encodings, errors)
def test_quote_str(s, safe, encoding, errs):
    same("quote", s, safe, encoding, errs)
    same("quote_plus", s, safe, encoding, errs)


@settings(max_examples=2000, deadline=None)
@given(st.binary(max_size=60), safes)
def test_quote_bytes(b, safe):
    same("quote", b, safe)
    same("quote_plus", b, safe)
    same("quote_from_bytes", b, safe)
    same("quote_from_bytes", bytearray(b), safe)
    same("quote", b, safe, "utf-8")  # TypeError: no encoding for bytes
    same("quote", b, safe, None, "strict")


@settings(max_examples=3000, deadline=None)
@given(texts, encodings, errors)
def test_unquote_str(s, encoding, errs):
    same("unquote", s, encoding, errs)
    same("unquote_plus", s, encoding, errs)
    same("unquote_to_bytes", s)
    same("unquote", s)
    same("unquote_plus", s)


escaped_bytes = st.lists(
    st.one_of(st.binary(max_size=3), st.sampled_from([b"%", b"%2", b"%FF", b"%C3%A9", b"%E2%82", b"+", b"%zz"])), max_size=12
).map(b"".join)


@settings(max_examples=2000, deadline=None)
@given(escaped_bytes, encodings, errors)
def test_unquote_bytes(b, encoding, errs):
    same("unquote", b, encoding, errs)
    same("unquote", b)
    same("unquote_to_bytes", b)
    same("unquote_to_bytes", bytearray(b))
    same("unquote_plus", b)


@pytest.mark.parametrize("value", [None, 5, 3.5, ["a"], memoryview(b"a%20"), bytearray(b"a%20b c"), object()])
def test_other_types_raise_as_urllib(value):
    for name in DROPINS:
        same(name, value)
    same("quote", "a b", value)
    same("quote_plus", "a b", value)
    same("quote_from_bytes", b"a b", value)
    same("unquote", "a%20b", value)
    same("unquote", "a%20b", "utf-8", value)


SAFES_OF_INTS = [[47], (47, 63), range(32, 64), memoryview(b"/"), {47}, [47, 300], b"/?", bytearray(b"/")]


@pytest.mark.parametrize("safe", SAFES_OF_INTS, ids=repr)
def test_safe_of_ints_as_urllib(safe):
    """urllib.parse takes any iterable of ints as `safe` (quote_plus only without a space)."""
    for s in ["a/b?c", "a /b?c", b"a/b", b"a /b?"]:
        same("quote", s, safe)
        same("quote_plus", s, safe)
    same("quote_from_bytes", b"a /b?", safe)


def accepts(annotation, value):
    """Whether `value` has the type `annotation` (Union, Optional, Iterable[...] and classes)."""
    import collections.abc
    import typing
    origin = typing.get_origin(annotation)
    if origin is typing.Union:
        return any(accepts(a, value) for a in typing.get_args(annotation))
    if origin is collections.abc.Iterable:
        (item,) = typing.get_args(annotation)
        return isinstance(value, collections.abc.Iterable) and all(accepts(item, v) for v in value)
    return isinstance(value, annotation)


def test_stub_safe_is_what_urllib_takes():
    """The stub's `safe` annotations admit what urllib.parse takes (str, bytes, a list of
    ints...) and refuse what it refuses."""
    import ast
    import typing
    stub = pathlib.Path(pctenc.__file__).with_name("__init__.pyi")
    tree = ast.parse(stub.read_text())
    namespace = dict(vars(typing))
    for node in tree.body:
        if isinstance(node, ast.Assign):
            namespace[node.targets[0].id] = eval(ast.unparse(node.value), namespace)  # noqa: S307
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    for name in ["quote", "quote_plus", "quote_from_bytes"]:
        (safe,) = [a for a in functions[name].args.args if a.arg == "safe"]
        annotation = eval(ast.unparse(safe.annotation), namespace)  # noqa: S307
        for value in ["/", "é/"] + SAFES_OF_INTS:
            assert outcome(getattr(up, name), b"a/b", value)[0] == "ok"
            assert accepts(annotation, value), (name, value)
        for value in [None, 5, ["a"], 3.5, [b"/"]]:
            assert outcome(getattr(up, name), b"a/b", value)[0] == "raised"
            assert not accepts(annotation, value), (name, value)


def test_edge_cases():
    for s in ["", "%", "%%", "%%41", "+", "++", "%2B+", "a%2", "%E2%82%AC", "%e2%82%ac", "%ED%A0%80", "\ud800%41", "é%A9"]:
        for name in DROPINS:
            same(name, s)
            same(name, s.encode("utf-8", "surrogatepass"))
    # Large inputs (the GIL is released above RELEASE_GIL bytes): the same results.
    big = ("Jürgen & Björk /a?b=c%20d+e " * 5000)
    for name in DROPINS:
        same(name, big)
        same(name, big.encode())


def test_lone_surrogates_as_urllib():
    """Lone surrogates, which have no UTF-8: the drop-ins do what urllib.parse does."""
    for s in ["\ud800", "a=\ud800", "%41\udfff", "\udfff+%zz", "\ud83d\ude00%20"]:
        for name in DROPINS:
            same(name, s)
        same("quote", s, "", "utf-8", "surrogatepass")
        same("unquote", s, "utf-8", "strict")
    assert outcome(pctenc.quote, "\ud800")[:2] == ("raised", "UnicodeEncodeError")


class S(str):
    pass


class SE(str):
    def encode(self, *args, **kwargs):
        return b"XYZ"


class B(bytes):
    pass


def test_subclasses_and_identity():
    for value in [S("abc"), S("a b+c%41"), SE("a b"), B(b"abc"), B(b"a%20b"), bytearray(b"a b")]:
        for name in DROPINS:
            same(name, value)
        same("quote", "a b", SE("/ "))
        same("quote_plus", "a b", SE("/"))
    assert type(pctenc.unquote_plus(S("abc"))) is type(up.unquote_plus(S("abc")))
    x = b"abc"
    assert (pctenc.unquote_to_bytes(x) is x) == (up.unquote_to_bytes(x) is x)
    s = "no escapes"
    assert (pctenc.unquote(s) is s) == (up.unquote(s) is s)


def test_errors_pickle():
    import pickle
    for call in [lambda: pctenc.decode("%zz"), lambda: pctenc.validate("a b", "rfc3986")]:
        try:
            call()
        except ValueError as e:
            back = pickle.loads(pickle.dumps(e))
            assert type(back) is type(e) and str(back) == str(e)
            assert type(e).__module__ == "pctenc"


def test_no_op_calls_return_the_input_itself():
    """A value with nothing to change is returned as itself, where CPython returns it too
    (unquote, unquote_plus of an exact str) and where it returns an equal new str (quote)."""
    for s in ["", "a", "/static/app.js", "abcdefghij" * 10, "é東", "\U0001f600"]:
        assert pctenc.unquote(s) is s and pctenc.unquote_plus(s) is s
        assert (up.unquote(s) is s) and (up.unquote_plus(s) is s)
    for s in ["", "a", "/products/", "x" * 100, "a-b_c.d~e/f"]:
        assert pctenc.quote(s) is s and pctenc.quote(s) == up.quote(s)
    assert pctenc.quote_plus("abc") == "abc" and pctenc.quote("a b") == "a%20b"


def test_defaults_left_out_or_given():
    """Left out, each argument is urllib's default; given, even as None, it is what urllib
    makes of it (an explicit safe=None is an error there)."""
    for s in ["a b/c", b"a b/c", "é%41+"]:
        same("quote", s)
        same("quote", s, "/")
        same("quote", s, safe="/", encoding=None, errors=None)
        same("quote", s, None)
        same("quote", s, encoding=None)
        same("quote_plus", s, "")
        same("quote_plus", s, safe=None)
    for s in ["a%20b+c", b"a%20b+c", "%E9"]:
        same("unquote", s)
        same("unquote", s, None, None)
        same("unquote", s, encoding="utf-8", errors="replace")
        same("unquote_plus", s, errors=None)
        same("unquote", s, "latin-1")
    for name in DROPINS:
        same(name)  # the missing argument's TypeError
        # Too many: a TypeError too (PyO3 words it "1 positional arguments").
        too_many = [outcome(getattr(m, name), "a", "b", "c", "d", "e") for m in (pctenc, up)]
        assert [o[:2] for o in too_many] == [("raised", "TypeError")] * 2


PATCHED = """
import sys, urllib.parse as up
import pctenc
originals = {n: getattr(up, n) for n in NAMES}
for n in originals:
    setattr(up, n, getattr(pctenc, n))
sys.setrecursionlimit(100000)

class S(str):
    pass

calls = [
    lambda q: q.unquote("a%E9", "latin-1"),
    lambda q: q.unquote("a%FF", "utf-8", "strict"),
    lambda q: q.unquote_plus("a+%FF", errors="strict"),
    lambda q: q.unquote("a\\ud800%41"),
    lambda q: q.quote("a\\ud800", "", "utf-8", "surrogatepass"),
    lambda q: q.quote(S("a b")),
    lambda q: q.quote_plus(S("a b")),
    lambda q: q.quote("a/b c", [47]),
    lambda q: q.quote_plus("a b", [47]),
    lambda q: q.quote_from_bytes(bytearray(b"a b")),
    lambda q: q.unquote_to_bytes(bytearray(b"a%20b")),
    lambda q: q.unquote(None),
    lambda q: q.unquote_to_bytes(None),
    lambda q: q.quote(None),
    lambda q: q.quote("a b", encoding="cp1252"),
    lambda q: q.unquote(b"a%E9", "latin-1"),
]

def outcome(call, q):
    try:
        return ("ok", call(q))
    except RecursionError as e:
        return ("RecursionError", str(e))
    except Exception as e:
        return (type(e).__name__, str(e))

class Original:
    pass

orig = Original()
for n, f in originals.items():
    setattr(orig, n, f)
for i, call in enumerate(calls):
    ours = outcome(call, pctenc)
    assert ours[0] != "RecursionError", (i, ours)
    # With urllib.parse patched, its own functions call pctenc's: compare with the originals
    # called with urllib.parse unpatched.
    for n in originals:
        setattr(up, n, originals[n])
    theirs = outcome(call, orig)
    for n in originals:
        setattr(up, n, getattr(pctenc, n))
    assert ours == theirs, (i, ours, theirs)
print("ok", len(calls))
"""


def test_with_urllib_patched_to_pctenc():
    """`urllib.parse.quote = pctenc.quote` (and the rest): every fallback path gives
    urllib's answer, with no recursion and no crash, even with a recursion limit that would
    let a loop run into the C stack."""
    import subprocess
    import sys
    code = PATCHED.replace("NAMES", repr(DROPINS))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.startswith("ok"), run.stdout


def test_a_failed_fallback_leaves_no_trace():
    """A fallback that fails deep in a stack (RecursionError) leaves the next call, at a
    normal depth, to give urllib's answer: the private copy of urllib.parse is loaded at
    import, and a failure is never kept in its place."""
    import subprocess
    import sys
    code = """
import sys, urllib.parse as up, pctenc
up.unquote = pctenc.unquote
def deep(n):
    if n == 0:
        try:
            return pctenc.unquote("%41", "latin-1")
        except RecursionError:
            return "RecursionError"
    return deep(n - 1)
limit = sys.getrecursionlimit()
for depth in range(limit - 40, limit):
    try:
        deep(depth)
    except RecursionError:
        pass
assert pctenc.unquote("%41", "latin-1") == "A"
print("ok")
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-3000:]
