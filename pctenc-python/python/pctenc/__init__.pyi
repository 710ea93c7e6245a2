from typing import Any, Iterable, List, Optional, TypedDict, Union, overload, type_check_only

from . import form as form

__all__ = [
    "quote", "quote_plus", "quote_from_bytes", "unquote", "unquote_plus", "unquote_to_bytes",
    "encode", "encode_many", "decode", "validate", "is_valid", "normalize", "requote", "sets",
    "form", "DecodeError", "ValidationError", "RELEASE_GIL",
]

_Bytes = Union[bytes, bytearray, memoryview]
# What urllib.parse takes: a str (its ASCII characters are kept), or any iterable of ints
# (bytes, bytearray, a list: the byte values under 128 are kept). quote_plus adds a space to
# `safe` (`safe + b" "`) when the string has one, which only str, bytes and bytearray allow,
# as in urllib.parse.
_Safe = Union[str, Iterable[int]]

RELEASE_GIL: int
__version__: str

# pctenc's own errors carry each attribute; one made by hand has None.
class DecodeError(ValueError):
    offset: Optional[int]
    kind: Optional[str]
    # From pctenc.arrow: the row in the whole input, and the chunk's index (None for an array).
    row: Optional[int]
    chunk: Optional[int]

class ValidationError(ValueError):
    offset: Optional[int]
    kind: Optional[str]
    byte: Optional[int]

@type_check_only
class SetInfo(TypedDict):
    name: str
    aliases: List[str]
    description: str
    keeps: str
    space: str

def quote(string: Union[str, bytes, bytearray], safe: _Safe = "/", encoding: Optional[str] = None, errors: Optional[str] = None) -> str: ...
def quote_plus(string: Union[str, bytes, bytearray], safe: _Safe = "", encoding: Optional[str] = None, errors: Optional[str] = None) -> str: ...
def quote_from_bytes(bs: Union[bytes, bytearray], safe: _Safe = "/") -> str: ...
def unquote(string: Union[str, bytes], encoding: str = "utf-8", errors: str = "replace") -> str: ...
def unquote_plus(string: str, encoding: str = "utf-8", errors: str = "replace") -> str: ...
def unquote_to_bytes(string: Union[str, bytes, bytearray]) -> bytes: ...
@overload
def encode(data: str, set: str = "component", *, space_as_plus: bool = False, lowercase: bool = False, keep_escapes: bool = False, iri: bool = False) -> str: ...
@overload
def encode(data: _Bytes, set: str = "component", *, space_as_plus: bool = False, lowercase: bool = False, keep_escapes: bool = False, iri: bool = False) -> bytes: ...
def encode_many(items: Iterable[str], set: str = "component", *, space_as_plus: bool = False, lowercase: bool = False, keep_escapes: bool = False, iri: bool = False) -> List[str]: ...
@overload
def decode(data: str, *, strict: bool = True, plus: bool = False, utf8: Optional[str] = "strict") -> str: ...
@overload
def decode(data: _Bytes, *, strict: bool = True, plus: bool = False, utf8: Optional[str] = "strict") -> bytes: ...
def validate(data: Union[str, _Bytes], set: str = "component", *, space_as_plus: bool = False, iri: bool = False) -> None: ...
def is_valid(data: Union[str, _Bytes], set: str = "component", *, space_as_plus: bool = False, iri: bool = False) -> bool: ...
@overload
def normalize(data: str) -> str: ...
@overload
def normalize(data: _Bytes) -> bytes: ...
def requote(data: Union[str, _Bytes], set: str = "component") -> str: ...
def sets() -> List[SetInfo]: ...
