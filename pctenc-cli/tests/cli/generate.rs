//! `pctenc completions SHELL`, `pctenc man [COMMAND]` and `pctenc --version`.

use std::fs::File;
use std::process::{Command, Stdio};

use crate::run::{fails, fails_all, ok, output_of, pctenc_with};

fn text(args: &[&str]) -> String {
    String::from_utf8(ok(args, b"")).unwrap()
}

/// The bash script completes what the command line takes: bash itself runs it.
#[test]
fn bash_completes_commands_options_and_values() {
    let script = text(&["completions", "bash"]);
    assert!(script.contains("complete -F _pctenc"), "{script}");
    // `COMP_WORDS` up to the cursor, as bash fills it; the candidates it would offer.
    let complete = |words: &[&str]| -> Vec<String> {
        let words: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
        let program = format!(
            "{script}\nCOMP_WORDS=({words}); COMP_CWORD={cword}; COMP_LINE=\"${{COMP_WORDS[*]}}\"; \
             COMP_POINT=${{#COMP_LINE}}; _pctenc pctenc \"${{COMP_WORDS[COMP_CWORD]}}\" \
             \"${{COMP_WORDS[COMP_CWORD-1]}}\"; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            words = words.join(" "),
            cword = words.len() - 1,
        );
        let out = output_of(Command::new("bash").arg("-c").arg(program)).expect("run bash");
        assert!(out.status.success(), "bash: {}", String::from_utf8_lossy(&out.stderr));
        let mut candidates: Vec<String> =
            String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect();
        candidates.sort();
        candidates
    };
    assert_eq!(complete(&["pctenc", "enc"]), ["encode"]);
    assert_eq!(complete(&["pctenc", "c"]), ["charsets", "check", "completions"]);
    let options = complete(&["pctenc", "encode", "--"]);
    for option in ["--set", "--keep-escapes", "--output", "--binary", "--help"] {
        assert!(options.contains(&option.to_string()), "{option} not in {options:?}");
    }
    assert!(!options.contains(&"--lenient".to_string()), "{options:?}");
    assert_eq!(complete(&["pctenc", "decode", "--utf8", "s"]), ["strict"]);
    assert_eq!(complete(&["pctenc", "completions", "fi"]), ["fish"]);
}

/// zsh's and fish's scripts name every command; each shell's own syntax is what
/// clap_complete writes (zsh and fish are not installed where the tests run).
#[test]
fn zsh_and_fish_scripts_name_every_command() {
    let zsh = text(&["completions", "zsh"]);
    assert!(zsh.starts_with("#compdef pctenc\n"), "{zsh}");
    let fish = text(&["completions", "fish"]);
    for command in
        ["encode", "decode", "check", "normalize", "sets", "charsets", "info", "completions", "man"]
    {
        assert!(zsh.contains(&format!("'{command}:")), "zsh: no {command}");
        assert!(fish.contains(&format!("-a \"{command}\"")), "fish: no {command}");
    }
    assert!(fish.contains("complete -c pctenc"), "{fish}");
    for shell in ["elvish", "powershell"] {
        assert!(text(&["completions", shell]).contains("pctenc"), "{shell}");
    }
}

#[test]
fn completions_refuse_an_unknown_shell() {
    let (code, message) = fails_all(&["completions", "nosh"], b"");
    assert_eq!(code, 2);
    assert!(message.starts_with("pctenc: invalid value 'nosh' for '<SHELL>'"), "{message}");
    assert!(message.contains("[possible values: bash, elvish, fish, powershell, zsh]"), "{message}");
    let (code, message) = fails_all(&["completions"], b"");
    assert_eq!(code, 2, "{message}");
}

/// The pages are roff that man renders, one for the tool and one per command, each with the
/// options the command takes.
#[test]
fn man_pages_render() {
    let page = text(&["man"]);
    assert!(page.contains(".TH pctenc 1 "), "{page}");
    for command in ["encode", "decode", "check", "normalize", "completions", "man"] {
        assert!(page.contains(&format!("pctenc\\-{command}(1)")), "no {command} in\n{page}");
    }
    let encode = text(&["man", "encode"]);
    assert!(encode.contains(".TH pctenc-encode 1 "), "{encode}");
    assert!(encode.contains("\\fB\\-\\-keep\\-escapes\\fR"), "{encode}");
    assert!(!encode.contains("\\-\\-lenient"), "{encode}");
    // The CPU of the machine that made the page is not in it.
    assert!(!page.contains("cpu features"), "{page}");

    // As man shows it (groff, which man-db runs), when man is installed.
    if let Ok(out) = output_of(Command::new("man").arg("--version")) {
        assert!(out.status.success());
        let exe = env!("CARGO_BIN_EXE_pctenc");
        let rendered =
            output_of(Command::new("sh").arg("-c").arg(format!("'{exe}' man decode | MANWIDTH=80 man -l -")))
                .unwrap();
        let rendered = String::from_utf8(rendered.stdout).unwrap();
        assert!(rendered.contains("--lenient"), "{rendered}");
        assert!(rendered.contains("Percent-decode the input"), "{rendered}");
    }
}

#[test]
fn man_refuses_an_unknown_command() {
    let (code, message) = fails(&["man", "nope"], b"");
    assert_eq!(code, 2);
    assert!(message.starts_with("pctenc: no command `nope`: expected one of encode, decode"), "{message}");
}

/// Output that cannot be written is an I/O error, status 2, as for every command.
#[cfg(unix)]
#[test]
fn unwritable_output_is_an_error() {
    for args in [&["completions", "bash"][..], &["man"]] {
        let full = File::options().write(true).open("/dev/full").unwrap();
        let out = pctenc_with(args, Stdio::null(), Stdio::from(full), Stdio::piped());
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("No space left on device"), "{args:?}: {stderr}");
    }
}

/// `--version` names the backend the commands run on and the CPU features seen, as
/// `pctenc info` does; `-V` is the version alone.
#[test]
fn version_names_the_backend_and_cpu_features() {
    let version = text(&["--version"]);
    let info = text(&["info"]);
    let field =
        |name: &str| info.lines().find_map(|l| l.strip_prefix(name)).map(str::trim).expect(name).to_string();
    let mut lines = version.lines();
    assert_eq!(lines.next(), Some(concat!("pctenc ", env!("CARGO_PKG_VERSION"))));
    assert_eq!(
        lines.next().unwrap(),
        format!("backend: {} ({})", field("backend detected:"), field("architecture:"))
    );
    assert_eq!(lines.next().unwrap(), format!("cpu features: {}", field("cpu features found:")));
    assert_eq!(lines.next(), None);
    assert_eq!(text(&["-V"]), concat!("pctenc ", env!("CARGO_PKG_VERSION"), "\n"));
}
