//! Encoding as a row operation: an [`Encoder`] over each row, or, for plain encoding, over a
//! whole chunk of values at once.

use pctenc::Encoder;

use crate::row::{Row, RowOp, span};

pub(crate) struct EncodeOp<'a> {
    enc: &'a Encoder,
    /// Escapes are per byte (no re-quoting, no IRI): the count over the whole buffer is the
    /// sum of the rows' counts.
    plain: bool,
}

impl RowOp for EncodeOp<'_> {
    fn reserve(&self, values: &[u8], bounds: &[usize]) -> usize {
        let values = span(values, bounds);
        if self.plain {
            self.enc.encoded_len(values)
        } else {
            // Re-quoting and IRI sets look at neighbouring bytes: an upper bound.
            values.len().saturating_mul(3)
        }
    }

    fn row(&self, input: &[u8], out: &mut [u8]) -> Row {
        match self.enc.encode_slice(input, out) {
            Ok(n) => Row::Written(n),
            Err(e) => Row::Grow(e.needed()),
        }
    }

    /// Without re-quoting or an IRI set, each byte is kept or escaped on its own (no escape
    /// to copy, no character to keep), so the rows' outputs, one after the other, are the
    /// output of their values: measured in one pass ([`Encoder::encoded_lens`]), then
    /// encoded in one call.
    fn measure(&self, values: &[u8], bounds: &[usize]) -> Option<Vec<usize>> {
        self.plain.then(|| self.enc.encoded_lens(values, bounds))
    }

    fn write(&self, span: &[u8], out: &mut [u8]) -> Option<usize> {
        self.enc.encode_slice(span, out).ok()
    }

    /// An encoder's output is UTF-8 whatever its input (what `Encoder::encode` returning a
    /// `str` rests on): escapes are ASCII, a set other than IRI escapes every byte from 0x80
    /// on, and an IRI set keeps only whole valid UTF-8 characters.
    fn output_is_utf8(&self) -> bool {
        true
    }

    /// Without re-quoting, and with `%` escaped, every `%` of the output starts an escape of
    /// one input byte and every other byte is the input's own (a space written as `+` only
    /// where `+` is escaped: [`pctenc::Set::space_as_plus`]): the output decodes back to the
    /// input, so two inputs never give one output.
    fn injective(&self) -> bool {
        !self.enc.is_keeping_escapes() && self.enc.set().contains(b'%')
    }
}

pub(crate) fn encode_op(enc: &Encoder) -> EncodeOp<'_> {
    EncodeOp { enc, plain: !enc.is_keeping_escapes() && !enc.set().is_iri() }
}
