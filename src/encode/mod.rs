//! Encoding: [`Encoder`], its switches and validation. The rest of it by job: `output.rs`
//! (the output forms and sizing), `parts.rs` (how re-quoting and IRI input are cut for the
//! kernels), `lazy.rs` ([`PercentEncode`]), `stream.rs` ([`StreamEncoder`]), `par.rs` (the
//! parallel paths).

mod lazy;
mod output;
#[cfg(feature = "rayon")]
pub(crate) mod par;
mod parts;
#[cfg(feature = "alloc")]
mod stream;

pub use lazy::PercentEncode;
#[cfg(feature = "alloc")]
pub use stream::StreamEncoder;

use crate::{hex, set::Set, simd, simd::engine::Engine};

/// Percent-encodes with one set and one choice of hex case.
///
/// The free functions ([`encode`](crate::encode), [`encode_slice`](crate::encode_slice), ...)
/// are shortcuts for `Encoder::new(set)`; an `Encoder` also offers lowercase hex digits, the
/// UTF-16 and lazy forms, and re-quoting ([`keep_escapes`](Encoder::keep_escapes)). It is
/// `Copy` and cheap to build: make one where it is needed. Each option reads back as the
/// [`Decoder`](crate::Decoder)'s do: a switch `x(on)` as a question, `is_x()`
/// ([`is_lowercase`](Encoder::is_lowercase)), `x(value)` as `x_value()`
/// ([`engine_value`](Encoder::engine_value)); the set, given to [`new`](Encoder::new) or
/// [`with_set`](Encoder::with_set), as [`set`](Encoder::set).
///
/// ```
/// use pctenc::{sets, Encoder};
///
/// let enc = Encoder::new(sets::COMPONENT).lowercase(true);
/// assert_eq!(enc.encode("é/"), "%c3%a9%2f");
/// assert_eq!(enc.encoded_len("é/"), 9);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encoder {
    set: Set,
    lowercase: bool,
    keep_escapes: bool,
    /// `None`: the best backend of this CPU, [`Engine::detect`].
    engine: Option<Engine>,
}

impl Encoder {
    /// An encoder for `set`, with uppercase hex digits.
    ///
    /// ```
    /// let enc = pctenc::Encoder::new(pctenc::sets::FORM);
    /// assert_eq!(enc.encode("a b"), "a+b");
    /// ```
    pub const fn new(set: Set) -> Encoder {
        Encoder { set, lowercase: false, keep_escapes: false, engine: None }
    }

    /// This encoder's options (hex case, re-quoting, engine) with another set.
    ///
    /// ```
    /// let form = pctenc::Encoder::new(pctenc::sets::FORM).lowercase(true);
    /// let path = form.with_set(pctenc::sets::PATH);
    /// assert_eq!(path.encode("é /"), "%c3%a9%20/");
    /// ```
    #[must_use]
    pub const fn with_set(self, set: Set) -> Encoder {
        Encoder { set, ..self }
    }

    /// Runs on `engine`'s backend instead of the best one this CPU has. The output is the
    /// same; this is for tests, benchmarks and the CLI's `--backend`.
    ///
    /// ```
    /// use pctenc::{sets, Backend, Encoder, Engine};
    ///
    /// let scalar = Encoder::new(sets::COMPONENT).engine(Engine::new(Backend::Scalar).unwrap());
    /// assert_eq!(scalar.encode("a b"), "a%20b");
    /// ```
    #[must_use]
    pub const fn engine(self, engine: Engine) -> Encoder {
        Encoder { engine: Some(engine), ..self }
    }

    /// The engine this encoder runs on: the one given to [`engine`](Encoder::engine), else
    /// the best one this CPU has.
    ///
    /// ```
    /// let enc = pctenc::Encoder::new(pctenc::sets::URI);
    /// assert_eq!(enc.engine_value(), pctenc::Engine::detect());
    /// ```
    pub fn engine_value(&self) -> Engine {
        self.engine.unwrap_or_else(Engine::detect)
    }

    /// Writes hex digits in lowercase (`%c3`) when `on`. Uppercase is the default and what
    /// RFC 3986 recommends.
    ///
    /// ```
    /// let enc = pctenc::Encoder::new(pctenc::sets::RFC3986).lowercase(true);
    /// assert_eq!(enc.encode("é"), "%c3%a9");
    /// ```
    #[must_use]
    pub const fn lowercase(self, on: bool) -> Encoder {
        Encoder { lowercase: on, ..self }
    }

    /// Whether hex digits are written in lowercase ([`lowercase`](Encoder::lowercase)).
    ///
    /// ```
    /// let enc = pctenc::Encoder::new(pctenc::sets::PATH);
    /// assert!(!enc.is_lowercase());
    /// assert!(enc.lowercase(true).is_lowercase());
    /// ```
    pub const fn is_lowercase(&self) -> bool {
        self.lowercase
    }

    /// Re-quotes when `on`: encodes input that may be partly encoded already without encoding
    /// it twice. Every valid `%HH` escape is copied as written (hex case included), a `%` that
    /// does not start one is written `%25`, and every other byte is encoded as the set says
    /// (space as `+`, IRI). Every method that encodes honours it: [`encode`](Encoder::encode),
    /// [`encode_slice`](Encoder::encode_slice), [`encoded_len`](Encoder::encoded_len), the
    /// lazy form, and the others. [`requote`](crate::requote) is the shortcut.
    ///
    /// In this mode `%` always starts an escape, even with a set that keeps `%` (the WHATWG
    /// sets): a stray one becomes `%25`. With a space-as-`+` set, a `+` is taken as an encoded
    /// space and kept. So the output is always a correct encoding for the set
    /// ([`validate`](Encoder::validate) accepts it), input that already is one comes out
    /// unchanged, and re-quoting twice gives what re-quoting once gave. This is the
    /// "re-quoting without double encoding" of markdown-it's `mdurl`; Python requests'
    /// `requote_uri` instead encodes every `%` of an input that has a stray one, valid escapes
    /// included.
    ///
    /// Lowercase hex ([`lowercase`](Encoder::lowercase)) applies to the escapes this encoder
    /// writes; escapes copied from the input keep their case.
    ///
    /// ```
    /// use pctenc::{sets, Encoder};
    ///
    /// let enc = Encoder::new(sets::COMPONENT).keep_escapes(true);
    /// assert_eq!(enc.encode("100% %41 %zz"), "100%25%20%41%20%25zz");
    /// assert_eq!(enc.encode("caf%c3%a9 crème"), "caf%c3%a9%20cr%C3%A8me");
    /// // Already encoded: nothing changes.
    /// assert_eq!(enc.encode("a%20b"), "a%20b");
    /// // A set that keeps `%` still gets a correct encoding.
    /// let path = Encoder::new(sets::PATH).keep_escapes(true);
    /// assert_eq!(path.encode("/50%/a b%2F"), "/50%25/a%20b%2F");
    /// // Form: `+` is an encoded space.
    /// let form = Encoder::new(sets::FORM).keep_escapes(true);
    /// assert_eq!(form.encode("a+b c%2B&"), "a+b+c%2B%26");
    /// ```
    #[must_use]
    pub const fn keep_escapes(self, on: bool) -> Encoder {
        Encoder { keep_escapes: on, ..self }
    }

    /// Whether this encoder re-quotes ([`keep_escapes`](Encoder::keep_escapes)).
    ///
    /// ```
    /// let enc = pctenc::Encoder::new(pctenc::sets::URI);
    /// assert!(!enc.is_keeping_escapes() && enc.keep_escapes(true).is_keeping_escapes());
    /// ```
    pub const fn is_keeping_escapes(&self) -> bool {
        self.keep_escapes
    }

    /// The set this encoder uses.
    ///
    /// ```
    /// assert_eq!(*pctenc::Encoder::new(pctenc::sets::URI).set(), pctenc::sets::URI);
    /// ```
    pub const fn set(&self) -> &Set {
        &self.set
    }

    fn digits(&self) -> &'static [u8; 16] {
        if self.lowercase { hex::LOWER } else { hex::UPPER }
    }

    fn escapes(&self) -> &'static str {
        if self.lowercase { hex::ESCAPES_LOWER } else { hex::ESCAPES_UPPER }
    }

    /// Whether the input goes to the kernel whole: no re-quoting, no IRI split. The common
    /// case takes this shortcut past `try_parts` and `try_segments`, whose closures cost
    /// short inputs about half their speed.
    #[inline]
    const fn is_plain(&self) -> bool {
        !self.keep_escapes && !self.set.is_iri()
    }

    /// The set for the text between escapes: when re-quoting with a space-as-`+` set, a `+`
    /// is an encoded space and is kept.
    const fn text_set(&self) -> Set {
        if self.keep_escapes && self.set.space_as_plus() { self.set.copying_plus() } else { self.set }
    }

    /// [`validate`](crate::validate) for this encoder's set, on its engine.
    ///
    /// # Errors
    ///
    /// A [`ValidationError`](crate::ValidationError) naming the first place where `input` is
    /// not a correct encoding for the set: a raw byte the set escapes, or a `%` that does not
    /// start a `%HH` escape.
    ///
    /// # Examples
    ///
    /// ```
    /// let enc = pctenc::Encoder::new(pctenc::sets::COMPONENT);
    /// assert!(enc.validate(enc.encode("a b/c").as_bytes()).is_ok());
    /// assert!(enc.validate("a b").is_err());
    /// ```
    pub fn validate(&self, input: impl AsRef<[u8]>) -> Result<(), crate::error::ValidationError> {
        let engine = self.engine_value();
        crate::scalar::validate::validate(input.as_ref(), &self.set, |i, s| simd::valid_prefix(engine, i, s))
    }
}
