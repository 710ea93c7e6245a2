//! The CLI's messages, exit statuses, options and standard input: what a user sees.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::process::Stdio;

use crate::run::pctenc_with;

/// A temporary directory holding a file `name` with `contents`; returns both.
fn file_with(name: &str, contents: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, contents).unwrap();
    (dir, path)
}

/// Runs `args` with standard input the open file `stdin` (its offset shared with the
/// caller's descriptor); returns (status, stdout).
fn with_stdin_file(args: &[&str], stdin: &File) -> (i32, Vec<u8>) {
    let out = pctenc_with(args, Stdio::from(stdin.try_clone().unwrap()), Stdio::piped(), Stdio::piped());
    assert!(out.stderr.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap(), out.stdout)
}

/// Standard input that is a regular file is read once, from its offset on, and left at its
/// end, as a `read()` loop leaves it: `pctenc encode - - < f` prints `f` once, and whatever
/// reads the descriptor next sees the end of the file. Every command alike.
#[test]
fn stdin_file_offset_is_left_at_the_end() {
    let (_dir, path) = file_with("in", b"a b\nc%41\n");
    let file = File::open(&path).unwrap();
    assert_eq!(with_stdin_file(&["encode", "-", "-"], &file), (0, b"a%20b\nc%2541\n".to_vec()));
    let mut file = File::open(&path).unwrap();
    assert_eq!(with_stdin_file(&["decode", "-", "-"], &file), (0, b"a b\ncA\n".to_vec()));
    assert_eq!(file.stream_position().unwrap(), 9);

    let expected: [(&[&str], &[u8]); 4] = [
        (&["encode"], b"b\nc%2541\n"),
        (&["decode"], b"b\ncA\n"),
        (&["normalize"], b"b\ncA\n"),
        (&["check", "--keep", " "], b""),
    ];
    for (args, want) in expected {
        for start in [0u64, 2] {
            let mut file = File::open(&path).unwrap();
            file.seek(SeekFrom::Start(start)).unwrap();
            let (code, out) = with_stdin_file(args, &file);
            if start == 2 {
                assert_eq!((code, &out[..]), (0, want), "{args:?} from offset {start}");
            }
            assert_eq!(
                file.stream_position().unwrap(),
                9,
                "{args:?} from offset {start}: offset not at the end"
            );
            let mut rest = Vec::new();
            file.read_to_end(&mut rest).unwrap();
            assert!(rest.is_empty(), "{args:?}");
        }
    }
}
