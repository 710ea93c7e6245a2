//! The kernels' one error type: a failing row is named by its index and byte offset, so a
//! query's message points at the value, and the type converts to and from Arrow's error.

use std::fmt;

use arrow_schema::ArrowError;

/// The error of a kernel: the row and byte offset of the element that failed, and why.
///
/// ```
/// use arrow_array::StringArray;
/// use pctenc::Decoder;
///
/// let err = pctenc_arrow::decode(&StringArray::from(vec!["a", "b%4"]), &Decoder::new()).unwrap_err();
/// assert_eq!((err.row(), err.offset()), (Some(1), Some(1)));
/// assert_eq!(err.message(), "truncated percent-escape: `%` needs two hex digits");
/// let arrow: arrow_schema::ArrowError = err.into();
/// assert!(arrow.to_string().contains("row 1, offset 1"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelError {
    row: Option<usize>,
    offset: Option<usize>,
    message: String,
}

impl KernelError {
    pub(crate) fn at(row: usize, offset: usize, message: impl Into<String>) -> KernelError {
        KernelError { row: Some(row), offset: Some(offset), message: message.into() }
    }

    /// An error of row `row` as a whole, for a caller that works on rows itself (a SQL
    /// function whose second argument is bad in one row).
    ///
    /// ```
    /// let e = pctenc_arrow::KernelError::in_row(3, "unknown set");
    /// assert_eq!((e.row(), e.offset(), e.to_string()), (Some(3), None, "row 3: unknown set".into()));
    /// ```
    pub fn in_row(row: usize, message: impl Into<String>) -> KernelError {
        KernelError { row: Some(row), offset: None, message: message.into() }
    }

    /// The same error with its row renumbered by `f`: from a part of an array, given to a
    /// kernel alone, to the whole.
    ///
    /// ```
    /// let e = pctenc_arrow::KernelError::in_row(3, "bad").map_row(|row| row + 100);
    /// assert_eq!(e.row(), Some(103));
    /// ```
    pub fn map_row(self, f: impl FnOnce(usize) -> usize) -> KernelError {
        KernelError { row: self.row.map(f), ..self }
    }

    pub(crate) fn whole(message: impl Into<String>) -> KernelError {
        KernelError { row: None, offset: None, message: message.into() }
    }

    /// The row (index in the array given, slice offset not counted) that failed, if one did.
    pub fn row(&self) -> Option<usize> {
        self.row
    }

    /// The byte offset in that row's value where the problem is.
    pub fn offset(&self) -> Option<usize> {
        self.offset
    }

    /// What went wrong, without the row and offset.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.row, self.offset) {
            (Some(row), Some(offset)) => write!(f, "row {row}, offset {offset}: {}", self.message),
            (Some(row), None) => write!(f, "row {row}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for KernelError {}

impl From<ArrowError> for KernelError {
    fn from(e: ArrowError) -> KernelError {
        KernelError::whole(e.to_string())
    }
}

impl From<KernelError> for ArrowError {
    fn from(e: KernelError) -> ArrowError {
        ArrowError::ComputeError(e.to_string())
    }
}
