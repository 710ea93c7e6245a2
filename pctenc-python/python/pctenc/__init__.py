"""pctenc: fast, exact percent-encoding (URL-encoding) for Python.

Drop-in replacements for ``urllib.parse``'s quoting functions, with the same signatures,
defaults, results and exceptions::

    from pctenc import quote, unquote      # instead of: from urllib.parse import quote, unquote

and pctenc's own API: every standard set by name (``sets()``), strict decoding with the
offset of the first problem (``decode`` raises ``DecodeError``), validation, RFC 3986
normalization, re-quoting, and form pairs (``pctenc.form``).

The drop-ins are the native functions themselves, with urllib's signatures, so a call costs
no Python frame, and a value with nothing to change is returned as itself. Other encodings
than UTF-8, ``errors`` handlers that change the result, and odd argument types are handled by
``urllib.parse``'s own code (a private copy of it, so that ``urllib.parse.quote =
pctenc.quote`` is safe), so every result is CPython's. Inputs of ``RELEASE_GIL`` bytes or
more are worked on with the GIL released.
"""

import re as _re

from . import _pctenc
from ._pctenc import (
    RELEASE_GIL,
    quote,
    quote_from_bytes,
    quote_plus,
    unquote,
    unquote_plus,
    unquote_to_bytes,
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

# Where a DecodeError's message starts: "offset 2: ...", "row 1, offset 0: ...", "row 5
# (chunk 1, row 2 in it), offset 0: ...", "row 3 of a batch, offset 1: ...".
_PLACE = _re.compile(
    r"(?:row (?P<row>\d+)(?P<batch> of a batch)?(?: \(chunk (?P<chunk>\d+), row \d+ in it\))?(?:, |: ))?"
    r"(?:offset (?P<offset>\d+): )?"
)


def _read_back(name):
    """A DecodeError's `offset`, `row` or `chunk`: as set when it was raised, or, for one
    made again from its message alone (Polars re-raises an expression's error so), read back
    from where the message starts. None where the message does not say (a row "of a batch"
    is not a row of the whole input)."""

    def get(self):
        if name in self.__dict__:
            return self.__dict__[name]
        text = self.args[0] if self.args and isinstance(self.args[0], str) else ""
        m = _PLACE.match(text)
        if m.group(name) is None or (name == "row" and m.group("batch")):
            return None
        return int(m.group(name))

    def set(self, value):
        self.__dict__[name] = value

    return property(get, set)


for _name in ("offset", "row", "chunk"):
    setattr(DecodeError, _name, _read_back(_name))

def sets():
    """The named sets: a list of dicts with ``name``, ``aliases``, ``description``,
    ``keeps`` (the punctuation kept besides letters and digits) and ``space``."""
    return _pctenc.sets_info()


from . import form  # noqa: E402  (uses the names above)
