//! The DataFusion scalar functions (`ScalarUDFImpl`).

use std::sync::{Arc, LazyLock};

use arrow::array::{Array, ArrayRef};
use arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{DataFusionError, Result, ScalarValue, exec_err, plan_err};
use datafusion::logical_expr::{
    ColumnarValue, DocSection, Documentation, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl,
    Signature, TypeSignature, Volatility,
};
use pctenc::{Decoder, Encoder, Set, Utf8Mode};

use crate::kernels::{self, KernelError};

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

/// `f(x)` and, when `second`, `f(x, name)` for every kind of `x`.
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

/// The names of the sets, for messages.
fn set_names() -> String {
    pctenc::sets::NAMED.iter().map(|n| n.name).collect::<Vec<_>>().join(", ")
}

fn parse_set(name: &str) -> Result<Set> {
    Set::by_name(name).ok_or_else(|| {
        DataFusionError::Plan(format!("unknown set `{name}`: expected one of {}", set_names()))
    })
}

/// The decoding modes of `percent_decode`: a comma-separated list of `strict` (the default:
/// nothing), `lenient`, `plus`, `lossy`.
fn parse_mode(mode: &str) -> Result<Decoder> {
    let mut dec = Decoder::new();
    for word in mode.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        dec = match word.to_ascii_lowercase().as_str() {
            "strict" => dec,
            "lenient" => dec.lenient(true),
            "plus" => dec.plus_as_space(true),
            "lossy" => dec.utf8(Utf8Mode::Lossy),
            _ => {
                return plan_err!(
                    "unknown decoding mode `{word}`: expected strict, lenient, plus or lossy (or several, \
                     comma-separated)"
                );
            }
        };
    }
    Ok(dec)
}

/// The string value of a literal argument (`None`: a column, or a null literal).
fn literal_str(value: Option<&ScalarValue>) -> Option<Option<&str>> {
    match value? {
        ScalarValue::Utf8(s) | ScalarValue::LargeUtf8(s) | ScalarValue::Utf8View(s) => Some(s.as_deref()),
        _ => None,
    }
}

fn kernel_error(e: KernelError) -> DataFusionError {
    DataFusionError::Execution(e.to_string())
}

/// Runs `f` on the first argument: an array, or a scalar (computed once, as a one-row array).
fn on_first(args: &ScalarFunctionArgs, f: impl Fn(&dyn Array) -> Result<ArrayRef>) -> Result<ColumnarValue> {
    match &args.args[0] {
        ColumnarValue::Array(a) => Ok(ColumnarValue::Array(f(a.as_ref())?)),
        ColumnarValue::Scalar(s) => {
            let one = s.to_array_of_size(1)?;
            let out = f(one.as_ref())?;
            Ok(ColumnarValue::Scalar(ScalarValue::try_from_array(&out, 0)?))
        }
    }
}

/// Runs `f` with the second argument parsed by `parse`: once for a literal, else row by row
/// (a column of names).
fn with_second<T>(
    args: &ScalarFunctionArgs,
    default: T,
    parse: impl Fn(&str) -> Result<T>,
    f: impl Fn(&dyn Array, &T) -> Result<ArrayRef>,
) -> Result<ColumnarValue> {
    let Some(second) = args.args.get(1) else {
        return on_first(args, |a| f(a, &default));
    };
    match second {
        ColumnarValue::Scalar(s) => match literal_str(Some(s)) {
            Some(Some(name)) => {
                let value = parse(name)?;
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
            let mut parts = Vec::with_capacity(first.len());
            for i in 0..first.len() {
                let row = first.slice(i, 1);
                if names.is_null(i) {
                    parts.push(arrow::array::new_null_array(row.data_type(), 1));
                    continue;
                }
                let value = parse(names.value(i))
                    .map_err(|e| DataFusionError::Execution(format!("row {i}: {}", e.strip_backtrace())))?;
                parts.push(f(row.as_ref(), &value)?);
            }
            let refs: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
            Ok(ColumnarValue::Array(arrow::compute::concat(&refs)?))
        }
    }
}

/// Checks a literal second argument at planning time.
fn check_literal(args: &ReturnFieldArgs, check: impl Fn(&str) -> Result<()>) -> Result<()> {
    if let Some(Some(name)) = args.scalar_arguments.get(1).and_then(|v| literal_str(*v)) {
        check(name)?;
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
        "```sql\n> SELECT url_encode('a b&c=é');\n+------------------------------+\n| url_encode(Utf8(\"a b&c=é\")) |\n+------------------------------+\n| a+b%26c%3D%C3%A9             |\n+------------------------------+\n```",
        &[STR_ARG],
    )
});

static DOC_URL_DECODE: LazyLock<Documentation> = LazyLock::new(|| {
    doc(
        "Spark-compatible: decodes as java.net.URLDecoder.decode(str, UTF-8) does: + is a space, %HH \
         is a byte, invalid UTF-8 becomes U+FFFD as Java's String does. A % not followed by two hex \
         digits is an error (CANNOT_DECODE_URL, with the row and offset); try_url_decode gives NULL.",
        "url_decode(str)",
        "```sql\n> SELECT url_decode('a+b%26c%3D%C3%A9');\n+------------------------------------+\n| url_decode(Utf8(\"a+b%26c%3D%C3%A9\")) |\n+------------------------------------+\n| a b&c=é                            |\n+------------------------------------+\n```",
        &[STR_ARG],
    )
});

static DOC_TRY_URL_DECODE: LazyLock<Documentation> = LazyLock::new(|| {
    doc(
        "Spark-compatible: url_decode, but NULL where url_decode raises CANNOT_DECODE_URL.",
        "try_url_decode(str)",
        "```sql\n> SELECT try_url_decode('100%');\n+-----------------------------+\n| try_url_decode(Utf8(\"100%\")) |\n+-----------------------------+\n|                             |\n+-----------------------------+\n```",
        &[STR_ARG],
    )
});

static DOC_PERCENT_ENCODE: LazyLock<Documentation> = LazyLock::new(|| {
    doc(
        "Percent-encodes with one of pctenc's exact sets (default component, as JavaScript's \
         encodeURIComponent). Returns the same kind of string or binary.",
        "percent_encode(str[, set_name])",
        "```sql\n> SELECT percent_encode('/a b', 'path');\n+------------------------------------------+\n| percent_encode(Utf8(\"/a b\"),Utf8(\"path\")) |\n+------------------------------------------+\n| /a%20b                                   |\n+------------------------------------------+\n```",
        &[
            STR_ARG,
            (
                "set_name",
                "A set as the pctenc CLI names it: rfc3986, component, uri, form, fragment, query, \
                 special-query, path, userinfo, c0-control, python-quote, python-quote-plus, go-path, \
                 non-alphanumeric (and their aliases). An unknown literal name is a planning error.",
            ),
        ],
    )
});

static DOC_PERCENT_DECODE: LazyLock<Documentation> = LazyLock::new(|| {
    doc(
        "Percent-decodes. mode (default strict) is a comma-separated list: strict (a % that starts no \
         escape, or invalid UTF-8 in a string result, is an error naming the row and offset), lenient \
         (such a % is kept), plus (+ is a space), lossy (invalid UTF-8 becomes U+FFFD). Binary input \
         gives the bytes as they are.",
        "percent_decode(str[, mode])",
        "```sql\n> SELECT percent_decode('a+b%2Fc', 'plus');\n+---------------------------------------------+\n| percent_decode(Utf8(\"a+b%2Fc\"),Utf8(\"plus\")) |\n+---------------------------------------------+\n| a b/c                                       |\n+---------------------------------------------+\n```",
        &[STR_ARG, ("mode", "strict, lenient, plus, lossy, or several of them comma-separated.")],
    )
});

static DOC_TRY_PERCENT_DECODE: LazyLock<Documentation> = LazyLock::new(|| {
    doc(
        "percent_decode, but NULL for a value that does not decode.",
        "try_percent_decode(str[, mode])",
        "```sql\n> SELECT try_percent_decode('%zz');\n+--------------------------------+\n| try_percent_decode(Utf8(\"%zz\")) |\n+--------------------------------+\n|                                |\n+--------------------------------+\n```",
        &[STR_ARG, ("mode", "As for percent_decode.")],
    )
});

static DOC_PERCENT_VALIDATE: LazyLock<Documentation> = LazyLock::new(|| {
    doc(
        "Whether str is a correct percent-encoding for the set: no raw byte the set escapes, and \
         every % starts a %HH escape.",
        "percent_validate(str, set_name)",
        "```sql\n> SELECT percent_validate('a%20b', 'component');\n+--------------------------------------------------+\n| percent_validate(Utf8(\"a%20b\"),Utf8(\"component\")) |\n+--------------------------------------------------+\n| true                                             |\n+--------------------------------------------------+\n```",
        &[STR_ARG, ("set_name", "A set name, as for percent_encode.")],
    )
});

static DOC_PERCENT_NORMALIZE: LazyLock<Documentation> = LazyLock::new(|| {
    doc(
        "Normalizes percent-encoding (RFC 3986 6.2.2): hex digits uppercased, escapes of unreserved \
         bytes (A-Z a-z 0-9 - . _ ~) decoded; everything else as it is.",
        "percent_normalize(str)",
        "```sql\n> SELECT percent_normalize('%7euser%2f');\n+----------------------------------+\n| percent_normalize(Utf8(\"%7euser%2f\")) |\n+----------------------------------+\n| ~user%2F                         |\n+----------------------------------+\n```",
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

/// url_decode's error: Spark's message, then the row and offset.
fn spark_error(e: KernelError) -> DataFusionError {
    match (e.row(), e.offset()) {
        (Some(row), Some(offset)) => {
            DataFusionError::Execution(format!("{} (row {row}, offset {offset})", e.message()))
        }
        _ => kernel_error(e),
    }
}

impl ScalarUDFImpl for UrlEncode {
    common!("url_encode", DOC_URL_ENCODE);
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        same_kind(arg_types)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        on_first(&args, |a| kernels::url_encode(a).map_err(kernel_error))
    }
}

impl ScalarUDFImpl for UrlDecode {
    common!("url_decode", DOC_URL_DECODE);
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        same_kind(arg_types)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        on_first(&args, |a| kernels::url_decode(a).map_err(spark_error))
    }
}

impl ScalarUDFImpl for TryUrlDecode {
    common!("try_url_decode", DOC_TRY_URL_DECODE);
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        same_kind(arg_types)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        on_first(&args, |a| kernels::try_url_decode(a).map_err(kernel_error))
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
            kernels::encode(a, &Encoder::new(*set)).map_err(kernel_error)
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
        with_second(&args, Decoder::new(), parse_mode, |a, dec| kernels::decode(a, dec).map_err(kernel_error))
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
        with_second(&args, Decoder::new(), parse_mode, |a, dec| {
            kernels::try_decode(a, dec).map_err(kernel_error)
        })
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
            Ok(Arc::new(kernels::validate(a, &Encoder::new(*set)).map_err(kernel_error)?) as ArrayRef)
        })
    }
}

impl ScalarUDFImpl for PercentNormalize {
    common!("percent_normalize", DOC_PERCENT_NORMALIZE);
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        same_kind(arg_types)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        on_first(&args, |a| kernels::normalize(a).map_err(kernel_error))
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
