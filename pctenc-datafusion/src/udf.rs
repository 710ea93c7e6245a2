//! The DataFusion scalar functions (`ScalarUDFImpl`).

use std::sync::{Arc, LazyLock};

use arrow::array::{Array, ArrayRef};
use arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{DataFusionError, Result, ScalarValue, exec_err};
use datafusion::execution::FunctionRegistry;
use datafusion::logical_expr::{
    ColumnarValue, DocSection, Documentation, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl,
    Signature, TypeSignature, Volatility,
};
use datafusion::prelude::SessionContext;
use pctenc::{Decoder, Encoder, Set};

use pctenc_arrow::{self as kernels, KernelError};

/// The six byte-array kinds every function takes as its first argument.
const BYTE_KINDS: [DataType; 6] = [
    DataType::Utf8,
    DataType::LargeUtf8,
    DataType::Utf8View,
    DataType::Binary,
    DataType::LargeBinary,
    DataType::BinaryView,
];

const STRING_KINDS: [DataType; 3] = [DataType::Utf8, DataType::LargeUtf8, DataType::Utf8View];

/// `f(x)` when `one`, and `f(x, name)` when `two`, for every kind of `x`.
fn signature(one: bool, two: bool) -> Signature {
    let mut sigs = Vec::new();
    for kind in &BYTE_KINDS {
        if one {
            sigs.push(TypeSignature::Exact(vec![kind.clone()]));
        }
        if two {
            for name in &STRING_KINDS {
                sigs.push(TypeSignature::Exact(vec![kind.clone(), name.clone()]));
            }
        }
    }
    Signature::one_of(sigs, Volatility::Immutable)
}

const SECTION: DocSection = DocSection {
    include: true,
    label: "pctenc: percent-encoding",
    description: Some("Percent-encoding (URL-encoding) functions of pctenc"),
};

fn parse_set(name: &str) -> Result<Set, String> {
    name.parse::<Set>().map_err(|e| e.to_string())
}

/// The decoding modes of `percent_decode`, as pctenc-arrow names them.
fn parse_mode(mode: &str) -> Result<Decoder, String> {
    pctenc_arrow::decoder_for_mode(mode)
}

/// The string value of a literal argument: `None` for a column (or a literal of another
/// type), `Some(None)` for a null literal.
fn literal_str(value: Option<&ScalarValue>) -> Option<Option<&str>> {
    match value? {
        ScalarValue::Utf8(s) | ScalarValue::LargeUtf8(s) | ScalarValue::Utf8View(s) => Some(s.as_deref()),
        _ => None,
    }
}

/// A kernel's error in SQL: its message, then the row and offset. A scalar function sees one
/// batch of rows at a time and not where the batch starts in the table, so the row counts
/// within the batch; the value itself is in Spark's message (`url_decode`).
fn sql_error(e: KernelError) -> DataFusionError {
    DataFusionError::Execution(match (e.row(), e.offset()) {
        (Some(row), Some(offset)) => format!("{} (batch row {row}, offset {offset})", e.message()),
        (Some(row), None) => format!("{} (batch row {row})", e.message()),
        _ => e.message().to_owned(),
    })
}

type KernelResult = std::result::Result<ArrayRef, KernelError>;

/// Runs `f` on the first argument: an array, or a scalar (computed once, as a one-row array).
fn on_first(args: &ScalarFunctionArgs, f: impl Fn(&dyn Array) -> KernelResult) -> Result<ColumnarValue> {
    match &args.args[0] {
        ColumnarValue::Array(a) => Ok(ColumnarValue::Array(f(a.as_ref()).map_err(sql_error)?)),
        ColumnarValue::Scalar(s) => {
            let one = s.to_array_of_size(1)?;
            let out = f(one.as_ref()).map_err(sql_error)?;
            Ok(ColumnarValue::Scalar(ScalarValue::try_from_array(&out, 0)?))
        }
    }
}

/// Runs `f` with the second argument parsed by `parse`: once for a literal; for a column of
/// names, once for each distinct name, over the rows that name it (taken out of the batch,
/// and put back in their order).
fn with_second<T>(
    args: &ScalarFunctionArgs,
    default: T,
    parse: impl Fn(&str) -> Result<T, String>,
    f: impl Fn(&dyn Array, &T) -> KernelResult,
) -> Result<ColumnarValue> {
    let Some(second) = args.args.get(1) else {
        return on_first(args, |a| f(a, &default));
    };
    match second {
        ColumnarValue::Scalar(s) => match literal_str(Some(s)) {
            Some(Some(name)) => {
                let value = parse(name).map_err(DataFusionError::Execution)?;
                on_first(args, |a| f(a, &value))
            }
            // A null name: a null result.
            Some(None) => Ok(ColumnarValue::Scalar(ScalarValue::try_from(args.return_type())?)),
            None => exec_err!("expected a string for the second argument, got {}", s.data_type()),
        },
        ColumnarValue::Array(names) => {
            let first = args.args[0].to_array(args.number_rows)?;
            let names = arrow::compute::cast(names, &DataType::Utf8)?;
            let names = names.as_any().downcast_ref::<arrow::array::StringArray>().expect("cast to Utf8");
            Ok(ColumnarValue::Array(by_name(&first, names, args.return_type(), parse, f)?))
        }
    }
}

/// [`with_second`] for a column of names: each row's result, from one call of `f` a distinct
/// name. Of several failing rows, the first is reported.
fn by_name<T>(
    first: &ArrayRef,
    names: &arrow::array::StringArray,
    return_type: &DataType,
    parse: impl Fn(&str) -> Result<T, String>,
    f: impl Fn(&dyn Array, &T) -> KernelResult,
) -> Result<ArrayRef> {
    // The rows of each distinct name, in the order the names first appear.
    let mut groups: Vec<(&str, Vec<u32>)> = Vec::new();
    let mut index = std::collections::HashMap::new();
    let row_index =
        |i: usize| u32::try_from(i).map_err(|_| DataFusionError::Execution("batch too large".into()));
    for i in (0..names.len()).filter(|&i| names.is_valid(i)) {
        let name = names.value(i);
        let g = *index.entry(name).or_insert_with(|| {
            groups.push((name, Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push(row_index(i)?);
    }
    // Where each row's result is: (group, index in it); the last group is one null.
    let mut place = vec![(groups.len(), 0); names.len()];
    let mut parts = Vec::with_capacity(groups.len() + 1);
    let mut failed: Option<KernelError> = None;
    for (g, (name, rows)) in groups.iter().enumerate() {
        for (j, &r) in rows.iter().enumerate() {
            place[r as usize] = (g, j);
        }
        let at = |j: usize| rows[j] as usize;
        let out = match parse(name) {
            Err(message) => Err(KernelError::in_row(at(0), message)),
            Ok(value) => {
                let taken =
                    arrow::compute::take(first, &arrow::array::UInt32Array::from(rows.clone()), None)?;
                f(taken.as_ref(), &value).map_err(|e| e.map_row(at))
            }
        };
        match out {
            Ok(out) => parts.push(out),
            Err(e) => {
                if failed.as_ref().is_none_or(|f| e.row() < f.row()) {
                    failed = Some(e);
                }
                parts.push(arrow::array::new_null_array(return_type, 0));
            }
        }
    }
    if let Some(e) = failed {
        return Err(sql_error(e));
    }
    parts.push(arrow::array::new_null_array(return_type, 1));
    let refs: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
    Ok(arrow::compute::interleave(&refs, &place)?)
}

/// Checks a literal second argument at planning time.
fn check_literal(args: &ReturnFieldArgs, check: impl Fn(&str) -> Result<(), String>) -> Result<()> {
    if let Some(Some(name)) = args.scalar_arguments.get(1).and_then(|v| literal_str(*v)) {
        check(name).map_err(DataFusionError::Plan)?;
    }
    Ok(())
}

macro_rules! udf_struct {
    ($name:ident) => {
        #[derive(Debug, PartialEq, Eq, Hash)]
        struct $name {
            signature: Signature,
        }
    };
}

udf_struct!(UrlEncode);
udf_struct!(UrlDecode);
udf_struct!(TryUrlDecode);
udf_struct!(PercentEncode);
udf_struct!(PercentDecode);
udf_struct!(TryPercentDecode);
udf_struct!(PercentValidate);
udf_struct!(PercentNormalize);

fn doc(description: &str, syntax: &str, example: &str, args: &[(&str, &str)]) -> Documentation {
    let mut b = Documentation::builder(SECTION, description, syntax).with_sql_example(example);
    for (name, text) in args {
        b = b.with_argument(*name, *text);
    }
    b.build()
}

const STR_ARG: (&str, &str) =
    ("str", "String or binary expression (Utf8, LargeUtf8, Utf8View, Binary, LargeBinary, BinaryView).");

static DOC_URL_ENCODE: LazyLock<Documentation> = LazyLock::new(|| {
    doc(
        "Spark-compatible: encodes a string as java.net.URLEncoder.encode(str, UTF-8) does \
         (application/x-www-form-urlencoded): A-Z a-z 0-9 . - * _ are kept, a space becomes +, \
         every other byte of the UTF-8 becomes uppercase %HH. Returns the same kind of string.",
        "url_encode(str)",
        "```sql\n> SELECT url_encode('a b&c=é');\n+-----------------------------+\n| url_encode(Utf8(\"a b&c=é\")) |\n+-----------------------------+\n| a+b%26c%3D%C3%A9            |\n+-----------------------------+\n```",
        &[STR_ARG],
    )
});

static DOC_URL_DECODE: LazyLock<Documentation> = LazyLock::new(|| {
    doc(
        "Spark-compatible: decodes as java.net.URLDecoder.decode(str, UTF-8) does: + is a space, %HH \
         is a byte, invalid UTF-8 becomes U+FFFD as Java's String does. A % not followed by two hex \
         digits is an error (CANNOT_DECODE_URL, with the row and offset); try_url_decode gives NULL.",
        "url_decode(str)",
        "```sql\n> SELECT url_decode('a+b%26c%3D%C3%A9');\n+--------------------------------------+\n| url_decode(Utf8(\"a+b%26c%3D%C3%A9\")) |\n+--------------------------------------+\n| a b&c=é                              |\n+--------------------------------------+\n```",
        &[STR_ARG],
    )
});

static DOC_TRY_URL_DECODE: LazyLock<Documentation> = LazyLock::new(|| {
    doc(
        "Spark-compatible: url_decode, but NULL where url_decode raises CANNOT_DECODE_URL.",
        "try_url_decode(str)",
        "```sql\n> SELECT try_url_decode('100%');\n+------------------------------+\n| try_url_decode(Utf8(\"100%\")) |\n+------------------------------+\n|                              |\n+------------------------------+\n```",
        &[STR_ARG],
    )
});

static DOC_PERCENT_ENCODE: LazyLock<Documentation> = LazyLock::new(|| {
    doc(
        "Percent-encodes with one of pctenc's exact sets (default component, as JavaScript's \
         encodeURIComponent). Returns the same kind of string or binary. The WHATWG URL sets \
         (fragment, query, special-query, path, userinfo, c0-control) keep % as browsers do, \
         so their output is not undone by percent_decode where the input holds a %.",
        "percent_encode(str[, set_name])",
        "```sql\n> SELECT percent_encode('/a b', 'path');\n+-------------------------------------------+\n| percent_encode(Utf8(\"/a b\"),Utf8(\"path\")) |\n+-------------------------------------------+\n| /a%20b                                    |\n+-------------------------------------------+\n```",
        &[
            STR_ARG,
            (
                "set_name",
                &format!(
                    "A set as the pctenc CLI names it: {} (and their aliases). An unknown literal name \
                     is a planning error.",
                    pctenc::sets::NAMED.iter().map(|n| n.name).collect::<Vec<_>>().join(", ")
                ),
            ),
        ],
    )
});

static DOC_PERCENT_DECODE: LazyLock<Documentation> = LazyLock::new(|| {
    doc(
        "Percent-decodes. mode (default strict) is a list of pctenc's decoder words (docs/WORDS.md), \
         comma- or space-separated: strict (a % that starts no escape, or invalid UTF-8 in a string \
         result, is an error naming the row and offset), lenient (such a % is kept), plus (+ is a \
         space), lossy or utf8=lossy (invalid UTF-8 becomes U+FFFD, binary input included; escapes \
         stay strict), utf8=strict, legacy_u, reject_nul|controls|crlf|slashes|all, \
         keep_encoded=SET. A contradiction or a repeat is an error naming both words. Otherwise \
         binary input gives the bytes as they are.",
        "percent_decode(str[, mode])",
        "```sql\n> SELECT percent_decode('a+b%2Fc', 'plus');\n+----------------------------------------------+\n| percent_decode(Utf8(\"a+b%2Fc\"),Utf8(\"plus\")) |\n+----------------------------------------------+\n| a b/c                                        |\n+----------------------------------------------+\n```",
        &[
            STR_ARG,
            (
                "mode",
                "Decoder words: strict, lenient, plus, lossy, utf8=..., reject_..., several comma-separated.",
            ),
        ],
    )
});

static DOC_TRY_PERCENT_DECODE: LazyLock<Documentation> = LazyLock::new(|| {
    doc(
        "percent_decode, but NULL for a value that does not decode.",
        "try_percent_decode(str[, mode])",
        "```sql\n> SELECT try_percent_decode('%zz');\n+---------------------------------+\n| try_percent_decode(Utf8(\"%zz\")) |\n+---------------------------------+\n|                                 |\n+---------------------------------+\n```",
        &[STR_ARG, ("mode", "As for percent_decode.")],
    )
});

static DOC_PERCENT_VALIDATE: LazyLock<Documentation> = LazyLock::new(|| {
    doc(
        "Whether str is a correct percent-encoding for the set: no raw byte the set escapes, and \
         every % starts a %HH escape.",
        "percent_validate(str, set_name)",
        "```sql\n> SELECT percent_validate('a%20b', 'component');\n+---------------------------------------------------+\n| percent_validate(Utf8(\"a%20b\"),Utf8(\"component\")) |\n+---------------------------------------------------+\n| true                                              |\n+---------------------------------------------------+\n```",
        &[STR_ARG, ("set_name", "A set name, as for percent_encode.")],
    )
});

static DOC_PERCENT_NORMALIZE: LazyLock<Documentation> = LazyLock::new(|| {
    doc(
        "Normalizes percent-encoding (RFC 3986 6.2.2): hex digits uppercased, escapes of unreserved \
         bytes (A-Z a-z 0-9 - . _ ~) decoded; everything else as it is.",
        "percent_normalize(str)",
        "```sql\n> SELECT percent_normalize('%7euser%2f');\n+---------------------------------------+\n| percent_normalize(Utf8(\"%7euser%2f\")) |\n+---------------------------------------+\n| ~user%2F                              |\n+---------------------------------------+\n```",
        &[STR_ARG],
    )
});

macro_rules! common {
    ($name:literal, $doc:ident) => {
        fn name(&self) -> &str {
            $name
        }
        fn signature(&self) -> &Signature {
            &self.signature
        }
        fn documentation(&self) -> Option<&Documentation> {
            Some(&$doc)
        }
    };
}

fn same_kind(arg_types: &[DataType]) -> Result<DataType> {
    Ok(arg_types[0].clone())
}

fn same_field(name: &str, args: &ReturnFieldArgs) -> FieldRef {
    Arc::new(Field::new(name, args.arg_fields[0].data_type().clone(), true))
}

impl ScalarUDFImpl for UrlEncode {
    common!("url_encode", DOC_URL_ENCODE);
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        same_kind(arg_types)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        on_first(&args, |a| kernels::url_encode(a))
    }
}

impl ScalarUDFImpl for UrlDecode {
    common!("url_decode", DOC_URL_DECODE);
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        same_kind(arg_types)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        on_first(&args, |a| kernels::url_decode(a))
    }
}

impl ScalarUDFImpl for TryUrlDecode {
    common!("try_url_decode", DOC_TRY_URL_DECODE);
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        same_kind(arg_types)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        on_first(&args, |a| kernels::try_url_decode(a))
    }
}

impl ScalarUDFImpl for PercentEncode {
    common!("percent_encode", DOC_PERCENT_ENCODE);
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        same_kind(arg_types)
    }
    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        check_literal(&args, |n| parse_set(n).map(|_| ()))?;
        Ok(same_field(self.name(), &args))
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        with_second(&args, pctenc::sets::COMPONENT, parse_set, |a, set| {
            kernels::encode(a, &Encoder::new(*set))
        })
    }
}

impl ScalarUDFImpl for PercentDecode {
    common!("percent_decode", DOC_PERCENT_DECODE);
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        same_kind(arg_types)
    }
    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        check_literal(&args, |m| parse_mode(m).map(|_| ()))?;
        Ok(same_field(self.name(), &args))
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        with_second(&args, Decoder::new(), parse_mode, |a, dec| kernels::decode(a, dec))
    }
}

impl ScalarUDFImpl for TryPercentDecode {
    common!("try_percent_decode", DOC_TRY_PERCENT_DECODE);
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        same_kind(arg_types)
    }
    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        check_literal(&args, |m| parse_mode(m).map(|_| ()))?;
        Ok(same_field(self.name(), &args))
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        with_second(&args, Decoder::new(), parse_mode, |a, dec| kernels::try_decode(a, dec))
    }
}

impl ScalarUDFImpl for PercentValidate {
    common!("percent_validate", DOC_PERCENT_VALIDATE);
    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Boolean)
    }
    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        check_literal(&args, |n| parse_set(n).map(|_| ()))?;
        Ok(Arc::new(Field::new(self.name(), DataType::Boolean, true)))
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        with_second(&args, pctenc::sets::COMPONENT, parse_set, |a, set| {
            Ok(Arc::new(kernels::validate(a, &Encoder::new(*set))?) as ArrayRef)
        })
    }
}

impl ScalarUDFImpl for PercentNormalize {
    common!("percent_normalize", DOC_PERCENT_NORMALIZE);
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        same_kind(arg_types)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        on_first(&args, |a| kernels::normalize(a))
    }
}

/// Every function, ready to register: `url_encode`, `url_decode`, `try_url_decode`,
/// `percent_encode`, `percent_decode`, `try_percent_decode`, `percent_validate`,
/// `percent_normalize`.
pub fn functions() -> Vec<Arc<ScalarUDF>> {
    vec![
        Arc::new(ScalarUDF::from(UrlEncode { signature: signature(true, false) })),
        Arc::new(ScalarUDF::from(UrlDecode { signature: signature(true, false) })),
        Arc::new(ScalarUDF::from(TryUrlDecode { signature: signature(true, false) })),
        Arc::new(ScalarUDF::from(PercentEncode { signature: signature(true, true) })),
        Arc::new(ScalarUDF::from(PercentDecode { signature: signature(true, true) })),
        Arc::new(ScalarUDF::from(TryPercentDecode { signature: signature(true, true) })),
        Arc::new(ScalarUDF::from(PercentValidate { signature: signature(false, true) })),
        Arc::new(ScalarUDF::from(PercentNormalize { signature: signature(true, false) })),
    ]
}

/// Registers every function on `ctx` (replacing functions of the same names, such as
/// DataFusion's own Spark functions when those are registered).
pub fn register(ctx: &SessionContext) {
    for f in functions() {
        ctx.register_udf(Arc::unwrap_or_clone(f));
    }
}

/// Registers every function in any [`FunctionRegistry`] (a `SessionState`, Ballista's
/// registries).
///
/// # Errors
///
/// What the registry reports.
pub fn register_in(registry: &mut dyn FunctionRegistry) -> Result<()> {
    for f in functions() {
        registry.register_udf(f)?;
    }
    Ok(())
}

/// The names of the functions [`register`] adds.
pub fn function_names() -> Vec<String> {
    functions().iter().map(|f: &Arc<ScalarUDF>| f.name().to_string()).collect()
}
