//! Encoders and decoders from a word of flag bits, for bindings whose callers pass options
//! as an integer (a C `uint32_t`, a JavaScript number).
//!
//! Each binding keeps its own bit values, which are part of its published interface: it
//! names where each option sits with a table of `(flag, bit)` pairs, and [`decoder`] and
//! [`encoder`] do the rest, so that every binding refuses the same things: a bit its table
//! does not name, and UTF-8 strict with UTF-8 lossy.
//!
//! ```
//! use pctenc::flags::{self, DecodeFlag, FlagsError};
//! use pctenc::{Reject, Utf8Mode};
//!
//! const LENIENT: u32 = 1;
//! const UTF8_STRICT: u32 = 2;
//! const UTF8_LOSSY: u32 = 4;
//! const REJECT_NUL: u32 = 8;
//! const DECODE: &[(DecodeFlag, u32)] = &[
//!     (DecodeFlag::Lenient, LENIENT),
//!     (DecodeFlag::Utf8Strict, UTF8_STRICT),
//!     (DecodeFlag::Utf8Lossy, UTF8_LOSSY),
//!     (DecodeFlag::Reject(Reject::NUL), REJECT_NUL),
//! ];
//!
//! let dec = flags::decoder(DECODE, LENIENT | UTF8_LOSSY)?;
//! assert_eq!(dec.decode(b"%zz%FF")?, "%zz\u{FFFD}".as_bytes());
//! assert_eq!(flags::decoder(DECODE, UTF8_STRICT | UTF8_LOSSY).unwrap_err(), FlagsError::Utf8StrictAndLossy);
//! assert_eq!(flags::decoder(DECODE, 1 << 7).unwrap_err(), FlagsError::Unknown(1 << 7));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::fmt;

use crate::decode::{Decoder, Reject, Utf8Mode};
use crate::encode::Encoder;
use crate::set::Set;

/// A decoder option a bit of a binding's flag word can stand for.
///
/// ```
/// use pctenc::flags::{self, DecodeFlag};
///
/// let dec = flags::decoder(&[(DecodeFlag::PlusAsSpace, 1)], 1)?;
/// assert_eq!(dec.decode(b"a+b")?, &b"a b"[..]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeFlag {
    /// [`Decoder::lenient`]: a `%` that starts no valid escape is copied as it is.
    Lenient,
    /// [`Decoder::plus_as_space`]: `+` decodes to a space.
    PlusAsSpace,
    /// [`Utf8Mode::Strict`]: the decoded bytes must be UTF-8. Not with [`Utf8Lossy`](Self::Utf8Lossy).
    Utf8Strict,
    /// [`Utf8Mode::Lossy`]: invalid UTF-8 becomes U+FFFD. Not with [`Utf8Strict`](Self::Utf8Strict).
    Utf8Lossy,
    /// [`Decoder::legacy_u`]: `%uHHHH` escapes.
    LegacyU,
    /// [`Decoder::reject`]: escapes of these bytes are errors (the classes of all the flags
    /// given are joined).
    Reject(Reject),
}

/// An encoder option a bit of a binding's flag word can stand for; each adds to what the set
/// does.
///
/// ```
/// use pctenc::flags::{self, EncodeFlag};
///
/// let enc = flags::encoder(pctenc::sets::COMPONENT, &[(EncodeFlag::Lowercase, 1)], 1)?;
/// assert_eq!(enc.encode("é"), "%c3%a9");
/// # Ok::<(), pctenc::flags::FlagsError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeFlag {
    /// [`Set::with_space_as_plus`]: a space is written `+`.
    SpaceAsPlus,
    /// [`Encoder::lowercase`]: escapes with lowercase hex digits.
    Lowercase,
    /// [`Encoder::keep_escapes`]: valid `%HH` escapes are kept as written (re-quoting).
    KeepEscapes,
    /// [`Set::with_iri`]: valid non-ASCII UTF-8 is kept raw (RFC 3987).
    Iri,
}

/// Why a flag word gives no encoder or decoder.
///
/// ```
/// use pctenc::flags::{self, FlagsError};
///
/// let err = flags::encoder(pctenc::sets::COMPONENT, &[], 2).unwrap_err();
/// assert_eq!(err, FlagsError::Unknown(2));
/// assert_eq!(err.to_string(), "unknown flags 0x2");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FlagsError {
    /// Bits the binding's table does not name (the bits are carried).
    Unknown(u32),
    /// Both [`DecodeFlag::Utf8Strict`] and [`DecodeFlag::Utf8Lossy`]: invalid UTF-8 cannot be
    /// both an error and replaced.
    Utf8StrictAndLossy,
}

impl fmt::Display for FlagsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FlagsError::Unknown(bits) => write!(f, "unknown flags {bits:#x}"),
            FlagsError::Utf8StrictAndLossy => f.write_str(
                "UTF-8 strict and UTF-8 lossy together: invalid UTF-8 cannot be both an error and replaced",
            ),
        }
    }
}

impl core::error::Error for FlagsError {}

/// The options of `table` whose bit is set in `flags`, or the bits no entry names.
fn chosen<T: Copy>(table: &[(T, u32)], flags: u32) -> Result<impl Iterator<Item = T> + '_, FlagsError> {
    let known = table.iter().fold(0, |acc, &(_, bit)| acc | bit);
    match flags & !known {
        0 => Ok(table.iter().filter(move |&&(_, bit)| flags & bit != 0).map(|&(flag, _)| flag)),
        unknown => Err(FlagsError::Unknown(unknown)),
    }
}

/// The decoder that `flags` asks for, the bit of each option being given by `table`; no bit
/// set is [`Decoder::new`]. [`FlagsError::Unknown`] for a bit `table` does not name,
/// [`FlagsError::Utf8StrictAndLossy`] when both UTF-8 options are set.
///
/// ```
/// use pctenc::flags::{self, DecodeFlag};
/// use pctenc::Reject;
///
/// let table = [(DecodeFlag::Reject(Reject::NUL), 1), (DecodeFlag::Reject(Reject::SLASHES), 2)];
/// let dec = flags::decoder(&table, 1 | 2)?;
/// assert!(dec.decode(b"%2F").is_err() && dec.decode(b"%00").is_err());
/// assert_eq!(flags::decoder(&table, 0)?.decode(b"%2F")?, &b"/"[..]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn decoder(table: &[(DecodeFlag, u32)], flags: u32) -> Result<Decoder, FlagsError> {
    let (mut strict, mut lossy, mut reject) = (false, false, Reject::NONE);
    let mut dec = Decoder::new();
    for flag in chosen(table, flags)? {
        match flag {
            DecodeFlag::Lenient => dec = dec.lenient(true),
            DecodeFlag::PlusAsSpace => dec = dec.plus_as_space(true),
            DecodeFlag::Utf8Strict => strict = true,
            DecodeFlag::Utf8Lossy => lossy = true,
            DecodeFlag::LegacyU => dec = dec.legacy_u(true),
            DecodeFlag::Reject(class) => reject |= class,
        }
    }
    let utf8 = match (strict, lossy) {
        (true, true) => return Err(FlagsError::Utf8StrictAndLossy),
        (true, false) => Utf8Mode::Strict,
        (false, true) => Utf8Mode::Lossy,
        (false, false) => Utf8Mode::Bytes,
    };
    Ok(dec.utf8(utf8).reject(reject))
}

/// The encoder for `set` that `flags` asks for, the bit of each option being given by
/// `table`; no bit set is [`Encoder::new`]. [`FlagsError::Unknown`] for a bit `table` does
/// not name.
///
/// ```
/// use pctenc::flags::{self, EncodeFlag};
///
/// let table = [(EncodeFlag::SpaceAsPlus, 1), (EncodeFlag::KeepEscapes, 4)];
/// let enc = flags::encoder(pctenc::sets::COMPONENT, &table, 1 | 4)?;
/// assert_eq!(enc.encode("a b%41%"), "a+b%41%25");
/// # Ok::<(), pctenc::flags::FlagsError>(())
/// ```
pub fn encoder(set: Set, table: &[(EncodeFlag, u32)], flags: u32) -> Result<Encoder, FlagsError> {
    let (mut set, mut lowercase, mut keep_escapes) = (set, false, false);
    for flag in chosen(table, flags)? {
        match flag {
            EncodeFlag::SpaceAsPlus => set = set.with_space_as_plus(true),
            EncodeFlag::Lowercase => lowercase = true,
            EncodeFlag::KeepEscapes => keep_escapes = true,
            EncodeFlag::Iri => set = set.with_iri(true),
        }
    }
    Ok(Encoder::new(set).lowercase(lowercase).keep_escapes(keep_escapes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bit_named_twice_or_zero_is_harmless() {
        let table = [(DecodeFlag::Lenient, 1), (DecodeFlag::PlusAsSpace, 1), (DecodeFlag::LegacyU, 0)];
        let dec = decoder(&table, 1).unwrap();
        assert_eq!(dec, Decoder::new().lenient(true).plus_as_space(true));
        assert_eq!(decoder(&table, 0).unwrap(), Decoder::new());
    }

    #[test]
    fn unknown_bits_are_reported_before_a_contradiction() {
        let table = [(DecodeFlag::Utf8Strict, 1), (DecodeFlag::Utf8Lossy, 2)];
        assert_eq!(decoder(&table, 3), Err(FlagsError::Utf8StrictAndLossy));
        assert_eq!(decoder(&table, 4 | 3), Err(FlagsError::Unknown(4)));
    }
}
