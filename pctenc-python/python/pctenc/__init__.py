"""pctenc: fast, exact percent-encoding (URL-encoding) for Python.

Drop-in replacements for ``urllib.parse``'s quoting functions, with the same signatures,
defaults, results and exceptions::

    from pctenc import quote, unquote      # instead of: from urllib.parse import quote, unquote

and pctenc's own API: every standard set by name (``sets()``), strict decoding with the
offset of the first problem (``decode`` raises ``DecodeError``), validation, RFC 3986
normalization, re-quoting, and form pairs (``pctenc.form``).

Other encodings than UTF-8, and ``errors`` handlers that change the result, are handled by
``urllib.parse`` itself, so every result is CPython's. Inputs of ``RELEASE_GIL`` bytes or
more are worked on with the GIL released.
"""

from . import _pctenc
from ._pctenc import (
    RELEASE_GIL,
    __version__,
    DecodeError,
    ValidationError,
    decode,
    encode,
    encode_many,
    is_valid,
    normalize,
    requote,
    validate,
)

__all__ = [
    "quote", "quote_plus", "quote_from_bytes", "unquote", "unquote_plus", "unquote_to_bytes",
    "encode", "encode_many", "decode", "validate", "is_valid", "normalize", "requote", "sets",
    "form", "DecodeError", "ValidationError", "RELEASE_GIL",
]

# The exceptions are the package's (and so pickle by this name, for process pools).
DecodeError.__module__ = ValidationError.__module__ = "pctenc"

_quote = _pctenc.quote
_quote_plus = _pctenc.quote_plus
_quote_from_bytes = _pctenc.quote_from_bytes
_unquote = _pctenc.unquote
_unquote_plus = _pctenc.unquote_plus


def quote(string, safe='/', encoding=None, errors=None):
    """``urllib.parse.quote``: percent-encode ``string`` (``str`` or ``bytes``) but ``safe``."""
    return _quote(string, safe, encoding, errors)


def quote_plus(string, safe='', encoding=None, errors=None):
    """``urllib.parse.quote_plus``: as ``quote``, with spaces written as ``+``."""
    return _quote_plus(string, safe, encoding, errors)


def quote_from_bytes(bs, safe='/'):
    """``urllib.parse.quote_from_bytes``: percent-encode ``bytes`` but ``safe``."""
    return _quote_from_bytes(bs, safe)


def unquote(string, encoding='utf-8', errors='replace'):
    """``urllib.parse.unquote``: decode ``%xx`` escapes (leniently), as text."""
    return _unquote(string, encoding, errors)


def unquote_plus(string, encoding='utf-8', errors='replace'):
    """``urllib.parse.unquote_plus``: as ``unquote``, with ``+`` read as a space."""
    return _unquote_plus(string, encoding, errors)


unquote_to_bytes = _pctenc.unquote_to_bytes



def sets():
    """The named sets: a list of dicts with ``name``, ``aliases``, ``description``,
    ``keeps`` (the punctuation kept besides letters and digits) and ``space``."""
    return _pctenc.sets_info()


from . import form  # noqa: E402  (uses the names above)
