//! The WebAssembly module of the online encoder (`web/static/`): pctenc's encoder, decoder,
//! validation, normalization and form pairs behind a few `extern "C"` functions, for the
//! page's own small JavaScript glue (`web/static/pctenc.js`).
//!
//! Why plain exports and not `wasm-bindgen`: the page passes strings in and gets strings or
//! an error (offset and message) out, which a shared buffer and a status do; the glue is about
//! 100 lines, the module needs no generated bindings, and building it needs nothing but `cargo`
//! and the `wasm32-unknown-unknown` target.
//!
//! The protocol: JavaScript allocates an input with [`pe_alloc`], writes UTF-16 units
//! ([`pe_encode`]) or UTF-8 bytes (the rest) into it, calls an operation, and reads the
//! result: status 0, the output is the UTF-8 text at [`pe_out_ptr`] / [`pe_out_len`];
//! status 1, the input is invalid, the output is the message and [`pe_error_offset`] says
//! where (a UTF-16 index for `pe_encode`, a byte offset in the UTF-8 input otherwise). Then
//! it frees the input with [`pe_free`]. The output stays valid until the next operation.

use std::cell::RefCell;
use std::fmt::Write as _;

use pctenc::flags::{self, EncodeFlag};
use pctenc::sets::NAMED;
use pctenc::{Encoder, Utf8Mode, form};

thread_local! {
    /// The last operation's output (or message) and error offset.
    static OUT: RefCell<(Vec<u8>, usize)> = const { RefCell::new((Vec::new(), 0)) };
}

/// Encoder options (`pe_check` flags).
pub const SPACE_AS_PLUS: u32 = 1;
/// Lowercase hex digits.
pub const LOWERCASE: u32 = 2;
/// Keep valid `%HH` escapes (re-quote).
pub const KEEP_ESCAPES: u32 = 4;
/// IRI: keep non-ASCII characters raw.
pub const IRI: u32 = 8;

fn ok(text: &[u8]) -> i32 {
    OUT.with(|out| {
        let mut out = out.borrow_mut();
        out.0.clear();
        out.0.extend_from_slice(text);
        out.1 = 0;
    });
    0
}

fn invalid(offset: usize, message: &str) -> i32 {
    OUT.with(|out| {
        let mut out = out.borrow_mut();
        out.0.clear();
        out.0.extend_from_slice(message.as_bytes());
        out.1 = offset;
    });
    1
}

/// `len` bytes (or `len / 2` UTF-16 units) of writable memory for an input, aligned for
/// `u16`.
#[unsafe(no_mangle)]
pub extern "C" fn pe_alloc(len: usize) -> *mut u8 {
    let mut buf = Vec::<u16>::with_capacity(len.div_ceil(2).max(1));
    let ptr = buf.as_mut_ptr().cast::<u8>();
    std::mem::forget(buf);
    ptr
}

/// Frees what [`pe_alloc`] gave for `len`.
///
/// # Safety
///
/// `ptr` and `len` are those of one [`pe_alloc`] call, not freed yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pe_free(ptr: *mut u8, len: usize) {
    // SAFETY: `ptr` came from `pe_alloc(len)`: a `Vec<u16>` of that capacity, forgotten.
    drop(unsafe { Vec::from_raw_parts(ptr.cast::<u16>(), 0, len.div_ceil(2).max(1)) });
}

/// The last output.
#[unsafe(no_mangle)]
pub extern "C" fn pe_out_ptr() -> *const u8 {
    OUT.with(|out| out.borrow().0.as_ptr())
}

/// The last output's length in bytes.
#[unsafe(no_mangle)]
pub extern "C" fn pe_out_len() -> usize {
    OUT.with(|out| out.borrow().0.len())
}

/// Where the last operation's input was invalid.
#[unsafe(no_mangle)]
pub extern "C" fn pe_error_offset() -> usize {
    OUT.with(|out| out.borrow().1)
}

/// # Safety
///
/// `ptr` holds `len` initialized bytes (any pointer when `len` is 0).
unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: the caller's promise.
    unsafe { std::slice::from_raw_parts(ptr, len) }
}

/// Where each encoder flag sits, for `pctenc::flags`.
const ENCODE_FLAGS: [(EncodeFlag, u32); 4] = [
    (EncodeFlag::SpaceAsPlus, SPACE_AS_PLUS),
    (EncodeFlag::Lowercase, LOWERCASE),
    (EncodeFlag::KeepEscapes, KEEP_ESCAPES),
    (EncodeFlag::Iri, IRI),
];

/// The encoder for set number `set` and `flags`, or the message saying why there is none.
fn encoder(set: u32, flags: u32) -> Result<Encoder, String> {
    let named = NAMED.get(set as usize).ok_or("no such set")?;
    flags::encoder(named.set, &ENCODE_FLAGS, flags).map_err(|e| e.to_string())
}

/// The words at `(words, words_len)` (UTF-8, as every surface writes them: docs/WORDS.md),
/// parsed by the core's one parser.
///
/// # Safety
///
/// `words` holds `words_len` bytes (any pointer when `words_len` is 0).
unsafe fn parse_words<T: std::str::FromStr<Err = pctenc::WordsError>>(
    words: *const u8,
    words_len: usize,
) -> Result<T, String> {
    // SAFETY: the caller's promise.
    let words = unsafe { bytes(words, words_len) };
    let words = std::str::from_utf8(words).map_err(|_| "the words are not UTF-8".to_string())?;
    words.parse().map_err(|e: pctenc::WordsError| e.to_string())
}

/// Encodes `len` UTF-16 units with the encoder that the words at `(words, words_len)` name
/// (a set and options: `"component lowercase"`; the glue writes them from the page's menu
/// and boxes); a lone surrogate is an error at its index, as `encodeURIComponent` throws. Bad
/// words are an error at offset 0 with the parser's message.
///
/// # Safety
///
/// `ptr` holds `len` UTF-16 units, aligned (any pointer when `len` is 0); `words` holds
/// `words_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pe_encode(ptr: *const u16, len: usize, words: *const u8, words_len: usize) -> i32 {
    // SAFETY: the caller's promise.
    let enc: Encoder = match unsafe { parse_words(words, words_len) } {
        Ok(enc) => enc,
        Err(message) => return invalid(0, &message),
    };
    let units: &[u16] = if len == 0 {
        &[]
    } else {
        // SAFETY: the caller's promise.
        unsafe { std::slice::from_raw_parts(ptr, len) }
    };
    match enc.encode_utf16(units) {
        Ok(text) => ok(text.as_bytes()),
        Err(e) => invalid(
            e.index(),
            &format!("lone surrogate U+{:04X}: half a UTF-16 surrogate pair cannot be encoded", e.unit()),
        ),
    }
}

/// Decodes `len` bytes of UTF-8 text with the decoder that the words at `(words, words_len)`
/// name (`"lenient plus utf8=lossy"`, docs/WORDS.md). In bytes mode (`utf8=bytes`, the
/// default) the bytes that are not UTF-8 are shown as `\xHH` and a backslash as `\\`. Bad
/// words are an error at offset 0 with the parser's message.
///
/// # Safety
///
/// `ptr` holds `len` bytes and `words` `words_len` bytes (any pointer for a length of 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pe_decode(ptr: *const u8, len: usize, words: *const u8, words_len: usize) -> i32 {
    // SAFETY: the caller's promise.
    let input = unsafe { bytes(ptr, len) };
    // SAFETY: the caller's promise.
    let dec: pctenc::Decoder = match unsafe { parse_words(words, words_len) } {
        Ok(dec) => dec,
        Err(message) => return invalid(0, &message),
    };
    match dec.decode(input) {
        Ok(out) if dec.utf8_value() == Utf8Mode::Bytes => ok(show_bytes(&out).as_bytes()),
        Ok(out) => ok(&out),
        Err(e) => invalid(e.offset(), &e.kind().to_string()),
    }
}

/// `bytes` as text: valid UTF-8 as it is, every other byte as `\xHH`, and a backslash as
/// `\\`, so that the two cannot be confused.
fn show_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(&chunk.valid().replace('\\', "\\\\"));
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02X}");
        }
    }
    out
}

/// Whether `len` bytes of text are already encoded for set `set` with `flags`: the output
/// is a sentence saying so.
///
/// # Safety
///
/// `ptr` holds `len` bytes (any pointer when `len` is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pe_check(ptr: *const u8, len: usize, set: u32, flags: u32) -> i32 {
    let enc = match encoder(set, flags) {
        Ok(enc) => enc,
        Err(message) => return invalid(0, &message),
    };
    // SAFETY: the caller's promise.
    let input = unsafe { bytes(ptr, len) };
    match enc.validate(input) {
        Ok(()) => ok(format!("Valid: already encoded for {}.", NAMED[set as usize].name).as_bytes()),
        Err(e) => {
            // "offset N: why": the offset goes on its own.
            let message = e.to_string();
            invalid(e.offset(), message.split_once(": ").map_or(message.as_str(), |(_, why)| why))
        }
    }
}

/// RFC 3986 normalization of `len` bytes (uppercase hex, unreserved escapes decoded).
///
/// # Safety
///
/// `ptr` holds `len` bytes (any pointer when `len` is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pe_normalize(ptr: *const u8, len: usize) -> i32 {
    // SAFETY: the caller's promise.
    let input = unsafe { bytes(ptr, len) };
    ok(&pctenc::normalize(input))
}

/// The pairs of a form body or query string (`form::parse_query`: one leading `?` dropped),
/// as a JSON array of `[name, value]`.
///
/// # Safety
///
/// `ptr` holds `len` bytes (any pointer when `len` is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pe_form_parse(ptr: *const u8, len: usize) -> i32 {
    // SAFETY: the caller's promise.
    let input = unsafe { bytes(ptr, len) };
    let mut json = String::from("[");
    for (i, (name, value)) in form::parse_query(input).enumerate() {
        if i > 0 {
            json.push(',');
        }
        json.push('[');
        json_string(&name, &mut json);
        json.push(',');
        json_string(&value, &mut json);
        json.push(']');
    }
    json.push(']');
    ok(json.as_bytes())
}

/// A form body from `len` bytes of lines `name=value` (split at the first `=`; a line
/// without one is a name with an empty value; empty lines are skipped).
///
/// # Safety
///
/// `ptr` holds `len` bytes of UTF-8 (any pointer when `len` is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pe_form_serialize(ptr: *const u8, len: usize) -> i32 {
    // SAFETY: the caller's promise.
    let input = unsafe { bytes(ptr, len) };
    let Ok(text) = std::str::from_utf8(input) else { return invalid(0, "not UTF-8") };
    let pairs = text
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .filter(|line| !line.is_empty())
        .map(|line| line.split_once('=').unwrap_or((line, "")));
    let mut out = form::Serializer::new();
    for (name, value) in pairs {
        out.append_pair(name, value);
    }
    ok(out.finish().as_bytes())
}

/// The sets, as a JSON array of `{name, aliases, description, keeps, space}`: what the page
/// shows for each (`keeps`: the punctuation kept besides letters and digits).
#[unsafe(no_mangle)]
pub extern "C" fn pe_sets() -> i32 {
    let mut json = String::from("[");
    for (i, named) in NAMED.iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        json.push_str("{\"name\":");
        json_string(named.name, &mut json);
        json.push_str(",\"aliases\":[");
        for (k, alias) in named.aliases.iter().enumerate() {
            if k > 0 {
                json.push(',');
            }
            json_string(alias, &mut json);
        }
        json.push_str("],\"description\":");
        json_string(named.description, &mut json);
        let keeps: String = named.set.kept_punctuation().map(char::from).collect();
        json.push_str(",\"keeps\":");
        json_string(&keeps, &mut json);
        json.push_str(",\"space\":");
        json_string(named.set.space_label(), &mut json);
        json.push('}');
    }
    json.push(']');
    ok(json.as_bytes())
}

/// `s` as a JSON string literal.
fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output() -> (String, usize) {
        OUT.with(|out| {
            let out = out.borrow();
            (String::from_utf8(out.0.clone()).unwrap(), out.1)
        })
    }

    fn encode(text: &[u16], words: &str) -> (i32, String, usize) {
        // SAFETY: `text` is a slice of units, `words` a string.
        let status = unsafe { pe_encode(text.as_ptr(), text.len(), words.as_ptr(), words.len()) };
        let (out, at) = output();
        (status, out, at)
    }

    #[test]
    fn encodes_as_encode_uri_component() {
        let units: Vec<u16> = "Jürgen & Björk".encode_utf16().collect();
        assert_eq!(encode(&units, "component"), (0, "J%C3%BCrgen%20%26%20Bj%C3%B6rk".into(), 0));
        let units: Vec<u16> = "-_.!~*'()".encode_utf16().collect();
        assert_eq!(encode(&units, "component").1, "-_.!~*'()");
        let (status, message, at) = encode(&[b'a' as u16, 0xD800, b'b' as u16], "component");
        assert_eq!((status, at), (1, 1));
        assert!(message.contains("U+D800"), "{message}");
        assert_eq!(encode(&[], "form space_as_plus").0, 0);
        let units: Vec<u16> = "a bé".encode_utf16().collect();
        assert_eq!(encode(&units, "Path,space-as-plus,lowercase").1, "a+b%c3%a9");
        let (status, message, at) = encode(&[], "form plus");
        assert_eq!((status, at), (1, 0));
        assert!(message.starts_with("unknown word `plus`"), "{message}");
        assert!(encode(&[], "form component").1.contains("`component` contradicts `form`"));
    }

    #[test]
    fn decode_check_normalize_form() {
        let run = |f: unsafe extern "C" fn(*const u8, usize, *const u8, usize) -> i32,
                   input: &[u8],
                   words: &str| {
            // SAFETY: `input` is a slice, `words` a string.
            let status = unsafe { f(input.as_ptr(), input.len(), words.as_ptr(), words.len()) };
            (status, output())
        };
        assert_eq!(
            run(pe_decode, b"100%zz", ""),
            (1, ("invalid percent-escape: `%` not followed by two hex digits".into(), 3))
        );
        assert_eq!(run(pe_decode, b"a+b%FF", "plus"), (0, ("a b\\xFF".into(), 0)));
        assert_eq!(run(pe_decode, b"%5CxFF|%FF", "strict").1.0, "\\\\xFF|\\xFF");
        assert_eq!(run(pe_decode, b"%5C", "utf8=strict").1.0, "\\");
        assert_eq!(run(pe_decode, b"a%FF", "lossy").1.0, "a\u{FFFD}");
        assert_eq!(run(pe_decode, b"a%FF", "utf8=strict").1.1, 1);
        assert_eq!(run(pe_decode, b"%u00E9", "legacy_u utf8=strict").1.0, "é");
        assert_eq!(run(pe_decode, b"%zz", "lenient").1.0, "%zz");
        // The core's words: `lossy` is UTF-8 only, escapes stay strict; a contradiction names
        // both words, as on every surface.
        assert_eq!(run(pe_decode, b"%zz%FF", "lossy").1.1, 0);
        assert_eq!(run(pe_decode, b"%zz%FF", "lenient lossy").1.0, "%zz\u{FFFD}");
        let (status, (message, _)) = run(pe_decode, b"a%FF", "utf8=strict, utf8=lossy");
        assert_eq!(status, 1);
        assert_eq!(message, "`utf8=lossy` contradicts `utf8=strict` (word at offset 13)");
        assert_eq!(run(pe_decode, b"a", "sloppy").0, 1);
        // SAFETY: slices.
        unsafe {
            assert_eq!(pe_check(b"a b".as_ptr(), 3, 0, 0), 1);
            assert_eq!(output().1, 1);
            assert_eq!(pe_normalize(b"%7e%2f".as_ptr(), 6), 0);
            assert_eq!(output().0, "~%2F");
            assert_eq!(pe_form_parse(b"?a=1&b=\"x\"+y".as_ptr(), 12), 0);
            assert_eq!(output().0, r#"[["a","1"],["b","\"x\" y"]]"#);
            assert_eq!(pe_form_serialize(b"q=a b\n\nk=v=w\r\nflag".as_ptr(), 18), 0);
            assert_eq!(output().0, "q=a+b&k=v%3Dw&flag=");
        }
        assert_eq!(pe_sets(), 0);
        assert!(output().0.starts_with("[{\"name\":\"rfc3986\""));
    }

    #[test]
    fn memory_round_trip() {
        for len in [0, 1, 2, 3, 1000] {
            let p = pe_alloc(len);
            assert!(!p.is_null() && p.align_offset(2) == 0);
            // SAFETY: from pe_alloc(len).
            unsafe { pe_free(p, len) };
        }
    }
}
