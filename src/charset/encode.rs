//! Percent-encode after encoding (URL Standard): text converted to a legacy encoding, then
//! percent-encoded; what the encoding cannot represent written as `%26%23N%3B`.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

use encoding_rs::{EncoderResult, Encoding, ISO_2022_JP, UTF_8};

use super::Charset;
use crate::encode::Encoder;

/// Room for the bytes `encoding_rs` writes per call: more than any character needs (ISO-2022-
/// JP's escape sequence and a character, 5 bytes), small enough for the stack.
const CHUNK: usize = 1024;

/// An ASCII run at least this long is percent-encoded straight from the text, not copied.
const DIRECT: usize = 256;

/// The bytes gathered before they are percent-encoded: enough to amortize a call.
const BATCH: usize = 16 << 10;

impl Encoder {
    /// Percent-encodes `text` in a legacy encoding, as a browser writes a form or URL query of
    /// a page in that encoding: the text is converted to `charset`, then each byte is
    /// percent-encoded with this encoder's set (the URL Standard's *percent-encode after
    /// encoding*).
    ///
    /// - A character that `charset` cannot represent is written as the HTML numeric character
    ///   reference `&#N;` percent-encoded, `%26%23N%3B` (`N` in decimal), whatever the set.
    /// - UTF-16BE, UTF-16LE and `replacement` encode as UTF-8, as in forms and URLs
    ///   ([`Charset::output`]); with UTF-8 this is [`Encoder::encode`].
    /// - ISO-2022-JP writes its escape sequences (`ESC $ B` ... `ESC ( B`), percent-encoded
    ///   where the set says.
    /// - With [`keep_escapes`](Encoder::keep_escapes), the `%HH` escapes of the text are
    ///   copied; with an IRI set, nothing is kept raw that is not ASCII: the IRI rules are
    ///   those of UTF-8.
    ///
    /// Runs of ASCII text are percent-encoded straight from the input on the SIMD paths (they
    /// are the same bytes in every ASCII-compatible encoding); only the other runs go through
    /// `encoding_rs`. The output borrows `text` when nothing is changed.
    ///
    /// Behind the feature `encoding`.
    ///
    /// ```
    /// use pctenc::charset::Charset;
    /// use pctenc::{Encoder, sets};
    ///
    /// let query = Encoder::new(sets::SPECIAL_QUERY);
    /// assert_eq!(query.encode_in("q=Fußball", Charset::WINDOWS_1252), "q=Fu%DFball");
    /// assert_eq!(query.encode_in("€ 5", Charset::for_label("latin1").unwrap()), "%80%205");
    /// assert_eq!(query.encode_in("日本", Charset::EUC_KR), "%EC%ED%DC%E2");
    /// // Not in the encoding: a character reference.
    /// assert_eq!(query.encode_in("a†", Charset::BIG5), "a%26%238224%3B");
    /// assert_eq!(query.encode_in("¥", Charset::ISO_2022_JP), "%1B(J\\%1B(B");
    /// ```
    pub fn encode_in<'a>(&self, text: &'a str, charset: Charset) -> Cow<'a, str> {
        let encoding = charset.output().encoding();
        if encoding == UTF_8 {
            return self.encode(text);
        }
        if encoding.is_ascii_compatible() && super::ascii_prefix(text.as_bytes()) == text.len() {
            return self.encode(text);
        }
        let mut out = String::new();
        self.encode_string_in(text, charset, &mut out);
        Cow::Owned(out)
    }

    /// [`encode_in`](Encoder::encode_in), appended to `out`.
    ///
    /// # Panics
    ///
    /// Only where any `String` growth panics: when the output's length overflows `usize`.
    ///
    /// # Examples
    ///
    /// ```
    /// use pctenc::charset::Charset;
    /// use pctenc::{Encoder, sets};
    ///
    /// let mut url = String::from("/search?q=");
    /// Encoder::new(sets::FORM).encode_string_in("한국어 사전", Charset::EUC_KR, &mut url);
    /// assert_eq!(url, "/search?q=%C7%D1%B1%B9%BE%EE+%BB%E7%C0%FC");
    /// ```
    pub fn encode_string_in(&self, text: &str, charset: Charset, out: &mut String) {
        let encoding = charset.output().encoding();
        if encoding == UTF_8 {
            return self.encode_string(text, out);
        }
        // The bytes of a legacy encoding are not UTF-8: the IRI rules do not apply to them.
        let bytes = self.with_set(self.set().with_iri(false));
        if encoding.is_ascii_compatible() {
            bytes.encode_ascii_compatible(text, encoding, out);
        } else {
            bytes.encode_stateful(text, encoding, out);
        }
    }

    /// Runs of ASCII straight to the set, the other runs through `encoding_rs`. The encoders
    /// of ASCII-compatible encodings keep no state between characters, so the runs can be
    /// converted one by one. Short runs of both kinds are gathered in `batch`, their bytes in
    /// the encoding, and percent-encoded together, so that text that mixes scripts costs one
    /// encoder call per `BATCH` bytes, not one per run; a long ASCII run is percent-encoded
    /// straight from the text. A `%HH` escape of the text (`keep_escapes`) is ASCII, so it lies
    /// in one run, and no character's bytes in these encodings start with a hex digit or
    /// hold a `%`, so none is made where runs meet.
    fn encode_ascii_compatible(&self, text: &str, encoding: &'static Encoding, out: &mut String) {
        let mut converter = encoding.new_encoder();
        let mut batch = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let ascii = super::ascii_prefix(rest.as_bytes());
            if ascii >= DIRECT {
                self.encode_string(&batch, out);
                batch.clear();
                self.encode_string(&rest[..ascii], out);
            } else {
                batch.extend_from_slice(&rest.as_bytes()[..ascii]);
            }
            rest = &rest[ascii..];
            // A non-ASCII run ends before the next ASCII byte, which starts a character.
            let run = rest.bytes().position(|b| b.is_ascii()).unwrap_or(rest.len());
            self.convert_into(&mut converter, &rest[..run], &mut batch, out);
            rest = &rest[run..];
            if batch.len() >= BATCH {
                self.encode_string(&batch, out);
                batch.clear();
            }
        }
        self.encode_string(&batch, out);
    }

    /// Appends the bytes of `text` in the converter's encoding to `batch`; at a character the
    /// encoding cannot represent, percent-encodes `batch` into `out`, then writes the
    /// character's reference.
    fn convert_into(
        &self,
        converter: &mut encoding_rs::Encoder,
        mut text: &str,
        batch: &mut Vec<u8>,
        out: &mut String,
    ) {
        while !text.is_empty() {
            let room = converter.max_buffer_length_from_utf8_without_replacement(text.len()).unwrap_or(CHUNK);
            let start = batch.len();
            batch.resize(start + room.max(CHUNK / 64), 0);
            let (result, read, written) =
                converter.encode_from_utf8_without_replacement(text, &mut batch[start..], false);
            batch.truncate(start + written);
            text = &text[read..];
            if let EncoderResult::Unmappable(c) = result {
                self.encode_string(&*batch, out);
                batch.clear();
                self.reference(c, out);
            }
        }
    }

    /// ISO-2022-JP (the one encoding here that is not ASCII-compatible): the whole text
    /// through the converter, whose state (ASCII, Roman, JIS X 0208) decides the bytes of
    /// ASCII too.
    fn encode_stateful(&self, text: &str, encoding: &'static Encoding, out: &mut String) {
        debug_assert_eq!(encoding, ISO_2022_JP);
        self.encode_stateful_part(&mut encoding.new_encoder(), text, true, out);
    }

    /// [`encode_stateful`](Encoder::encode_stateful) of a text that comes in pieces, each
    /// cut outside the escapes that `keep_escapes` copies: `converter` carries the state
    /// from one to the next, and `last` ends the text (the converter returns to ASCII). With
    /// `keep_escapes`, the text's escapes are cut out and converted on their own (the
    /// converter is switched back to ASCII before them), then copied as written.
    pub(crate) fn encode_stateful_part(
        &self,
        converter: &mut encoding_rs::Encoder,
        text: &str,
        last: bool,
        out: &mut String,
    ) {
        let plain = self.keep_escapes(false);
        let mut rest = text;
        if self.is_keeping_escapes() {
            let plus = self.set().space_as_plus();
            while let Some((at, len)) = next_kept(rest.as_bytes(), plus) {
                plain.convert(converter, &rest[..at], false, out);
                // Back to ASCII (from JIS X 0208, or from Roman, where `~` and `\` are other
                // characters), where the kept bytes mean themselves: a backslash, which only
                // ASCII has, makes the converter switch (`ESC ( B`), and is dropped.
                let mut switch = Vec::new();
                convert_raw(converter, "\\", false, &mut switch);
                switch.pop();
                plain.encode_string(&switch, out);
                out.push_str(&rest[at..at + len]);
                rest = &rest[at + len..];
            }
        }
        plain.convert(converter, rest, last, out);
    }

    /// Converts `text` with `converter` and percent-encodes the bytes, a chunk at a time;
    /// unmappable characters become `%26%23N%3B`. `last` ends the stream (ISO-2022-JP returns
    /// to ASCII).
    fn convert(&self, converter: &mut encoding_rs::Encoder, mut text: &str, last: bool, out: &mut String) {
        let mut buf = [0u8; CHUNK];
        loop {
            let (result, read, written) =
                converter.encode_from_utf8_without_replacement(text, &mut buf, last);
            self.encode_string(&buf[..written], out);
            text = &text[read..];
            match result {
                EncoderResult::InputEmpty => return,
                EncoderResult::OutputFull => {}
                EncoderResult::Unmappable(c) => self.reference(c, out),
            }
        }
    }

    /// `%26%23N%3B`: `&#N;` with its punctuation escaped whatever the set, as the URL
    /// Standard writes it, in this encoder's case of hex digits.
    fn reference(&self, c: char, out: &mut String) {
        use core::fmt::Write;
        let semicolon = if self.is_lowercase() { "%3b" } else { "%3B" };
        // Writing to a `String` cannot fail.
        let _ = write!(out, "%26%23{}{semicolon}", u32::from(c));
    }
}

/// The bytes `converter` writes for `text`, unmappable characters as `&#N;` (only called on
/// ASCII, which ISO-2022-JP always maps).
fn convert_raw(converter: &mut encoding_rs::Encoder, text: &str, last: bool, out: &mut Vec<u8>) {
    let mut buf = [0u8; 16];
    let (result, read, written) = converter.encode_from_utf8_without_replacement(text, &mut buf, last);
    debug_assert_eq!((result, read), (EncoderResult::InputEmpty, text.len()));
    out.extend_from_slice(&buf[..written]);
}

/// Where the first byte run that `keep_escapes` copies starts in `bytes`, and its length: a
/// `%HH` escape, or with `plus` (a space-as-`+` set) a `+`, which stands for a space.
fn next_kept(bytes: &[u8], plus: bool) -> Option<(usize, usize)> {
    let escape = |at: usize| {
        bytes.len() - at >= 3 && bytes[at + 1].is_ascii_hexdigit() && bytes[at + 2].is_ascii_hexdigit()
    };
    let mut found =
        if plus { memchr::memchr2_iter(b'%', b'+', bytes) } else { memchr::memchr2_iter(b'%', b'%', bytes) };
    found.find_map(|at| match bytes[at] {
        b'+' => Some((at, 1)),
        _ if escape(at) => Some((at, 3)),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sets;

    /// ISO-2022-JP in pieces, the converter carried from one to the next, gives what the
    /// whole text gives, wherever the text is cut (outside an escape).
    #[test]
    fn iso_2022_jp_in_pieces() {
        let text = "a\u{a5}b~\\あ%41x%4\u{203e}い+ z\u{2603}";
        let encoders = [
            Encoder::new(sets::COMPONENT),
            Encoder::new(sets::FORM).keep_escapes(true),
            Encoder::new(sets::PATH).keep_escapes(true).lowercase(true),
        ];
        for encoder in encoders {
            let want = encoder.encode_in(text, Charset::ISO_2022_JP).into_owned();
            let cuts: std::vec::Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
            for &a in &cuts {
                for &b in cuts.iter().filter(|&&b| b >= a) {
                    let pieces = [&text[..a], &text[a..b], &text[b..]];
                    // A cut inside `%41` is not one the CLI makes.
                    let inside = |i: usize| text[..i].ends_with('%') || text[..i].ends_with("%4");
                    if inside(a) || inside(b) {
                        continue;
                    }
                    let mut converter = ISO_2022_JP.new_encoder();
                    let mut out = String::new();
                    for (i, piece) in pieces.iter().enumerate() {
                        encoder.encode_stateful_part(&mut converter, piece, i == 2, &mut out);
                    }
                    assert_eq!(out, want, "cut at {a} and {b}");
                }
            }
        }
    }
}
