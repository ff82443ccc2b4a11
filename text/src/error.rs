//! Reader errors: the internal nom error (a position and a message) and the public
//! [`ParseError`] with file, line, column and a rendered source snippet.

use nom::error::{ErrorKind, ParseError as NomParseError};
use std::borrow::Cow;
use std::fmt;

/// The reader's nom error: where (as the remaining input length) and what was expected.
#[derive(Debug, Clone, PartialEq)]
pub struct PErr {
    /// Bytes of input left at the error; the offset is `source.len() - rem`.
    pub rem: usize,
    /// The message.
    pub msg: Cow<'static, str>,
}

impl PErr {
    /// An error at the start of `i`.
    pub fn at(i: &[u8], msg: impl Into<Cow<'static, str>>) -> PErr {
        PErr {
            rem: i.len(),
            msg: msg.into(),
        }
    }
}

impl NomParseError<&[u8]> for PErr {
    fn from_error_kind(input: &[u8], kind: ErrorKind) -> Self {
        PErr::at(input, format!("syntax error ({})", kind.description()))
    }

    fn append(_: &[u8], _: ErrorKind, other: Self) -> Self {
        other
    }
}

/// Result of a reader function.
pub type PResult<'a, T> = nom::IResult<&'a [u8], T, PErr>;

/// A located error from reading PTX text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The file name given to the reader.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub col: usize,
    /// Byte offset in the source.
    pub offset: usize,
    /// What went wrong or what was expected.
    pub message: String,
    /// The source line, without its newline.
    pub source_line: String,
}

impl ParseError {
    /// Builds the error for byte `offset` of `src`.
    pub fn new(file: &str, src: &str, offset: usize, message: impl Into<String>) -> ParseError {
        let offset = offset.min(src.len());
        let before = &src.as_bytes()[..offset];
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_end = src.as_bytes()[offset..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(src.len(), |p| offset + p);
        let line_text = String::from_utf8_lossy(&src.as_bytes()[line_start..line_end]);
        let col = String::from_utf8_lossy(&src.as_bytes()[line_start..offset])
            .chars()
            .count()
            + 1;
        ParseError {
            file: file.to_string(),
            line,
            col,
            offset,
            message: message.into(),
            source_line: line_text.trim_end_matches('\r').to_string(),
        }
    }

    /// The rendered diagnostic: `FILE:LINE:COL: error: message`, the source line and a caret.
    pub fn render(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.line, self.col, self.message
        )?;
        let gutter = self.line.to_string();
        writeln!(f, "{} | {}", gutter, self.source_line.replace('\t', " "))?;
        write!(
            f,
            "{} | {}^",
            " ".repeat(gutter.len()),
            " ".repeat(self.col.saturating_sub(1))
        )
    }
}

impl std::error::Error for ParseError {}
