//! Inputs: files and standard input, read in fixed-size chunks.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::Failure;

/// Bytes read at a time: memory stays bounded whatever the input's size or line lengths.
pub const CHUNK: usize = 256 * 1024;

/// One input and its name for messages.
pub struct Input {
    pub name: String,
    reader: Box<dyn Read>,
}

impl Input {
    /// Every input of the command line in order; standard input when there is none.
    pub fn all(files: &[PathBuf]) -> Vec<PathBuf> {
        if files.is_empty() { vec![PathBuf::from("-")] } else { files.to_vec() }
    }

    pub fn open(path: &Path) -> Result<Input, Failure> {
        if path == Path::new("-") {
            return Ok(Input { name: "<stdin>".into(), reader: Box::new(io::stdin().lock()) });
        }
        let file = File::open(path).map_err(|e| Failure::io(path, e))?;
        Ok(Input { name: path.display().to_string(), reader: Box::new(file) })
    }

    /// Fills as much of `buf` as one read gives; 0 at the end of the input.
    pub fn read(&mut self, buf: &mut [u8]) -> Result<usize, Failure> {
        loop {
            match self.reader.read(buf) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Failure::Io { what: self.name.clone(), error: e }),
            }
        }
    }
}
