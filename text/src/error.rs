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
    /// The source line, without its newline; a line longer than the snippet window is cut to
    /// about [`SNIPPET_WIDTH`] characters around the column, each cut end marked `...`.
    pub source_line: String,
    /// 0-based position of the column in `source_line` (where the caret goes).
    pub caret: usize,
}

/// The most characters of a source line that a diagnostic echoes: an error at the end of a
/// 50 MB line prints this window around its column, not the line.
pub const SNIPPET_WIDTH: usize = 120;

/// Whether `b` starts a character of UTF-8 text (is not a continuation byte).
fn starts_char(b: u8) -> bool {
    b & 0xC0 != 0x80
}

impl ParseError {
    /// Builds the error for byte `offset` of `src`.
    pub fn new(file: &str, src: &str, offset: usize, message: impl Into<String>) -> ParseError {
        ParseError::in_bytes(file, src.as_bytes(), offset, message)
    }

    /// [`ParseError::new`] for text given as bytes, which need not be UTF-8 (invalid sequences
    /// in the echoed line show as U+FFFD).
    pub fn in_bytes(
        file: &str,
        src: &[u8],
        offset: usize,
        message: impl Into<String>,
    ) -> ParseError {
        let offset = offset.min(src.len());
        let before = &src[..offset];
        let line_start = memchr::memrchr(b'\n', before).map_or(0, |p| p + 1);
        let line = memchr::memchr_iter(b'\n', before).count() + 1;
        let line_end = memchr::memchr(b'\n', &src[offset..]).map_or(src.len(), |p| offset + p);
        let mut line_end = line_end;
        if line_end > line_start && src[line_end - 1] == b'\r' {
            line_end -= 1;
        }
        let col = src[line_start..offset]
            .iter()
            .filter(|&&b| starts_char(b))
            .count()
            + 1;
        // The window: up to half the width before the column and the rest after it, each
        // step a whole character so that the cut does not split one.
        let mut from = offset;
        let mut shown_before = 0;
        while from > line_start && shown_before < SNIPPET_WIDTH / 2 {
            from -= 1;
            while from > line_start && !starts_char(src[from]) {
                from -= 1;
            }
            shown_before += 1;
        }
        let mut to = offset;
        let mut shown_after = 0;
        while to < line_end && shown_before + shown_after < SNIPPET_WIDTH {
            to += 1;
            while to < line_end && !starts_char(src[to]) {
                to += 1;
            }
            shown_after += 1;
        }
        let mut source_line = String::new();
        let mut caret = shown_before;
        if from > line_start {
            source_line.push_str("...");
            caret += 3;
        }
        source_line.push_str(&String::from_utf8_lossy(&src[from..to]));
        if to < line_end {
            source_line.push_str("...");
        }
        ParseError {
            file: file.to_string(),
            line,
            col,
            offset,
            message: message.into(),
            source_line,
            caret,
        }
    }

    /// The rendered diagnostic: `FILE:LINE:COL: error: message`, the source line and a caret.
    pub fn render(&self) -> String {
        self.to_string()
    }

    /// The two lines under the message: the source line (or the window of it around the
    /// column) after a line-number gutter, and a caret under the column.
    pub fn snippet(&self) -> String {
        let gutter = self.line.to_string();
        format!(
            "{gutter} | {}\n{} | {}^",
            self.source_line
                .chars()
                .map(|c| match c {
                    '\t' => ' ',
                    // Control characters (a NUL) and a byte-order mark would not show, or would
                    // move the terminal's cursor: each shows as one replacement character.
                    c if c.is_control() || c == '\u{feff}' => '\u{fffd}',
                    c => c,
                })
                .collect::<String>(),
            " ".repeat(gutter.len()),
            " ".repeat(self.caret)
        )
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.line, self.col, self.message
        )?;
        f.write_str(&self.snippet())
    }
}

impl std::error::Error for ParseError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_are_echoed_whole() {
        let e = ParseError::new("f", "a\n\tbad x;\r\nc", 7, "m");
        assert_eq!((e.line, e.col, e.caret), (2, 6, 5));
        assert_eq!(e.source_line, "\tbad x;");
        assert_eq!(e.to_string(), "f:2:6: error: m\n2 |  bad x;\n  |      ^");
    }

    #[test]
    fn long_lines_are_cut_around_the_column() {
        // Multi-byte characters on both sides: the window counts characters, never splits one.
        let line = format!("{}X{}", "é".repeat(1000), "ü".repeat(1000));
        let at = "é".len() * 1000;
        let e = ParseError::new("f", &line, at, "m");
        assert_eq!(e.col, 1001);
        let shown: Vec<char> = e.source_line.chars().collect();
        assert!(shown.len() <= SNIPPET_WIDTH + 6, "{}", shown.len());
        assert!(e.source_line.starts_with("...é") && e.source_line.ends_with("ü..."));
        assert_eq!(shown[e.caret], 'X');
        // Near the start of the line: no cut there, the rest of the width after the column.
        let e = ParseError::new("f", &line, "é".len() * 3, "m");
        assert!(e.source_line.starts_with("ééé") && e.source_line.ends_with("..."));
        assert_eq!(e.caret, 3);
        assert_eq!(e.source_line.chars().count(), SNIPPET_WIDTH + 3);
        // Bytes that are not UTF-8 show as replacement characters, one each.
        let e = ParseError::in_bytes("f", b"ab\xffcd", 2, "m");
        assert_eq!((e.col, e.caret), (3, 2));
        assert_eq!(e.source_line, "ab\u{fffd}cd");
    }
}
