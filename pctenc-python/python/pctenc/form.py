"""``application/x-www-form-urlencoded`` pairs, as the WHATWG URL Standard (and so
``URLSearchParams``) reads and writes them."""

from . import _pctenc

__all__ = ["parse", "serialize"]


def parse(data):
    """The ``(name, value)`` pairs of a form body or query string (``str``, ``bytes`` or a
    buffer): split on ``&`` and ``=``, ``+`` read as a space, escapes decoded leniently, and
    invalid UTF-8 replaced by U+FFFD, as is each lone surrogate of a ``str`` (as
    ``URLSearchParams`` reads a string). Never raises for bad input."""
    return _pctenc.form_parse(data)


def serialize(pairs):
    """An iterable of ``(name, value)`` string pairs as a form body, as
    ``URLSearchParams.toString()`` writes it: a lone surrogate becomes U+FFFD
    (``%EF%BF%BD``), as it does there."""
    return _pctenc.form_serialize(pairs)
