#!/usr/bin/env python3
"""Writes tests/data/python/charset-oracle.json: what CPython's urllib.parse.quote and unquote
return for random text in five legacy encodings, the oracle of tests/charset.rs.

For each encoding: an alphabet of characters (ASCII, characters that CPython's codec decodes
from random byte sequences, and some that no legacy encoding has), CPython's encoding of each
character on its own, and random strings over the alphabet with their `quote` and the
`unquote` of that. Characters the codec cannot encode are written as `&#N;`
(`errors="xmlcharrefreplace"`), which `quote` then escapes: `%26%23N%3B`, as the URL Standard
writes them.

    python3 scripts/gen-charset-oracle.py          # rewrite the file
    python3 scripts/gen-charset-oracle.py --check  # exit 1 if the file is not what this Python gives
"""
import json
import os
import random
import sys
import urllib.parse

# (pctenc's label, CPython's codec name)
ENCODINGS = [
    ("windows-1252", "cp1252"),
    ("shift_jis", "shift_jis"),
    ("euc-kr", "euc_kr"),
    ("gb18030", "gb18030"),
    ("big5", "big5"),
]
# Characters no legacy encoding here has, and a few every one has.
FOREIGN = ["\u2603", "\U0001F600", "\u0915", "\u05D0", "\uFFFD", "\u00A0", "\u00E9", "\u20AC", "\u3042"]
PATH = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "python", "charset-oracle.json")


def alphabet(codec, rng):
    """ASCII printable, space, some controls, and up to 120 characters of the codec's own."""
    chars = [chr(c) for c in range(0x20, 0x7F)] + ["\t", "\n", "\x00", "\x1B"]
    own = set()
    for _ in range(20000):
        if len(own) >= 120:
            break
        raw = bytes(rng.randrange(0x80, 0x100) for _ in range(rng.choice([1, 2, 2, 4])))
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError:
            continue
        own.update(c for c in text if ord(c) >= 0x80)
    return chars + sorted(own) + FOREIGN


def main():
    rng = random.Random(2026)
    cases = []
    for label, codec in ENCODINGS:
        chars = alphabet(codec, rng)
        per_char = {c: urllib.parse.quote(c, safe="", encoding=codec, errors="xmlcharrefreplace") for c in chars}
        strings = []
        for _ in range(150):
            s = "".join(rng.choice(chars) for _ in range(rng.randrange(0, 24)))
            quoted = urllib.parse.quote(s, safe="", encoding=codec, errors="xmlcharrefreplace")
            unquoted = urllib.parse.unquote(quoted, encoding=codec, errors="strict")
            plus = urllib.parse.quote_plus(s, safe="", encoding=codec, errors="xmlcharrefreplace")
            strings.append({"text": s, "quote": quoted, "unquote": unquoted, "quote_plus": plus})
        # Every byte on its own, decoded with errors="replace".
        single = [urllib.parse.unquote("%%%02X" % b, encoding=codec, errors="replace") for b in range(256)]
        cases.append({"label": label, "codec": codec, "chars": per_char, "strings": strings, "bytes": single})
    doc = {
        "source": "CPython %d.%d.%d urllib.parse, by scripts/gen-charset-oracle.py" % sys.version_info[:3],
        "encodings": cases,
    }
    text = json.dumps(doc, ensure_ascii=True, indent=1) + "\n"
    if "--check" in sys.argv:
        # The Python version line may differ; the data must not.
        old = json.load(open(PATH, encoding="utf-8"))
        if old["encodings"] != doc["encodings"]:
            sys.exit("tests/data/python/charset-oracle.json is not what this CPython gives: rerun the script")
        print("charset oracle: %d encodings, as this CPython (%s) gives them" % (len(cases), sys.version.split()[0]))
        return
    with open(PATH, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
