//! `pctenc sets`: the sets and what they keep.

use std::fmt::Write;

pub fn table() -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{:<18} {:<36} {:<6} ALIASES", "SET", "KEEPS (besides A-Z a-z 0-9)", "SPACE");
    for named in pctenc::sets::NAMED {
        let kept: String = named.set.kept_punctuation().map(char::from).collect();
        let kept = kept.replace(' ', "SP ");
        let space = named.set.space_label();
        let _ = writeln!(out, "{:<18} {:<36} {:<6} {}", named.name, kept, space, named.aliases.join(", "));
    }
    let _ = writeln!(
        out,
        "\nEvery set escapes C0 controls, DEL and bytes 0x80-0xFF (as the UTF-8 of non-ASCII text).\n\
         --keep/--escape adjust a set, --space-as-plus writes a space as +, --iri keeps IRI characters raw."
    );
    out
}
