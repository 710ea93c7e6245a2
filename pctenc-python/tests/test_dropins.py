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
