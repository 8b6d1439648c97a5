//! The text form of shapes and dims: `[8, ?, 3]`, `[!1, 4]`, `[$n, $m!1]`, `[]`, `*`; and
//! `Symbol::new`, which checks a symbol name.
//!
//! Whitespace is allowed between tokens. Errors give the byte position, what was expected there
//! and what was found.

use std::fmt;
use std::str::FromStr;

use crate::dim::{Dim, DimVec, MAX_DIM, MAX_RANK, Symbol};
use crate::error::{EXCERPT_CHARS, ShapeError};
use crate::partial::Shape;

impl Symbol {
    /// A symbol named `name`; an error (saying what is wrong, and where) unless `name` is an
    /// ASCII identifier of at most [`MAX_LEN`](Self::MAX_LEN) bytes.
    pub fn new(name: &str) -> Result<Symbol, ShapeError> {
        Symbol::from_name(name).map_err(|bad| ShapeError::Parse {
            what: "symbol",
            input: name.to_string(),
            position: bad.position,
            expected: bad.expected,
            found: bad.found,
        })
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(dims) = self.dims() else {
            return f.write_str("*");
        };
        f.write_str("[")?;
        for (i, d) in dims.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

impl FromStr for Shape {
    type Err = ShapeError;

    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let mut p = Cursor::new("shape", input);
        p.skip_ws();
        let shape = if p.eat('*') {
            Shape::unknown_rank()
        } else {
            p.expect('[', "`[` or `*`")?;
            let mut dims = DimVec::new();
            p.skip_ws();
            if !p.eat(']') {
                loop {
                    p.skip_ws();
                    if dims.len() == MAX_RANK {
                        return Err(p.error_at(
                            p.pos,
                            format!("at most {MAX_RANK} dims (the largest rank)"),
                            format!("dim {}", MAX_RANK + 1),
                        ));
                    }
                    dims.push(p.dim()?);
                    p.skip_ws();
                    if p.eat(']') {
                        break;
                    }
                    p.expect(',', "`,` or `]`")?;
                }
            }
            Shape::from_dims(dims)
        };
        p.skip_ws();
        p.end()?;
        Ok(shape)
    }
}

impl FromStr for Dim {
    type Err = ShapeError;

    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let mut p = Cursor::new("dim", input);
        p.skip_ws();
        let dim = p.dim()?;
        p.skip_ws();
        p.end()?;
        Ok(dim)
    }
}

/// `input`, or when longer than `2 * EXCERPT_CHARS` characters, an excerpt of at most
/// [`EXCERPT_CHARS`] characters on each side of byte `position`, marked with `…` where cut — so
/// an error about a 200 kB input stays short.
pub(crate) fn excerpt(input: &str, position: usize) -> String {
    if input.len() <= 2 * EXCERPT_CHARS {
        return input.to_string();
    }
    let mut at = position.min(input.len());
    while !input.is_char_boundary(at) {
        at -= 1;
    }
    let (before, after) = input.split_at(at);
    let start = before
        .char_indices()
        .rev()
        .nth(EXCERPT_CHARS - 1)
        .map_or(0, |(i, _)| i);
    let end = after
        .char_indices()
        .nth(EXCERPT_CHARS)
        .map_or(after.len(), |(i, _)| i);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.push_str(&before[start..]);
    out.push_str(&after[..end]);
    if end < after.len() {
        out.push('…');
    }
    out
}

/// A byte cursor over the text being parsed, producing positioned errors.
pub(crate) struct Cursor<'a> {
    what: &'static str,
    input: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(what: &'static str, input: &'a str) -> Self {
        Cursor {
            what,
            input,
            pos: 0,
        }
    }

    pub(crate) fn peek(&self) -> Option<char> {
        self.input[self.pos..].chars().next()
    }

    /// The byte offset of the next character.
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    pub(crate) fn at_end(&self) -> bool {
        self.pos == self.input.len()
    }

    pub(crate) fn skip_ws(&mut self) {
        while let Some(c) = self.peek().filter(|c| c.is_whitespace()) {
            self.pos += c.len_utf8();
        }
    }

    pub(crate) fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    pub(crate) fn expect(&mut self, c: char, expected: &str) -> Result<(), ShapeError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(expected))
        }
    }

    pub(crate) fn end(&self) -> Result<(), ShapeError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.error("end of input"))
        }
    }

    /// Consumes the longest run of characters satisfying `pred`.
    pub(crate) fn take_while(&mut self, pred: impl Fn(char) -> bool) -> &'a str {
        let start = self.pos;
        while let Some(c) = self.peek().filter(|&c| pred(c)) {
            self.pos += c.len_utf8();
        }
        &self.input[start..self.pos]
    }

    /// A decimal size of at most [`MAX_DIM`] (`isize::MAX`).
    pub(crate) fn size(&mut self) -> Result<usize, ShapeError> {
        let start = self.pos;
        let digits = self.take_while(|c| c.is_ascii_digit());
        if digits.is_empty() {
            return Err(self.error("a size"));
        }
        match digits.parse::<usize>() {
            Ok(n) if n <= MAX_DIM => Ok(n),
            _ => Err(self.error_at(
                start,
                format!("a size of at most {MAX_DIM} (isize::MAX)"),
                format!("`{}`", excerpt(digits, 0)),
            )),
        }
    }

    /// One dim: a size, `?`, `!1`, `$name` or `$name!1`.
    pub(crate) fn dim(&mut self) -> Result<Dim, ShapeError> {
        match self.peek() {
            Some('$') => {
                self.pos += 1;
                let start = self.pos;
                let name = self.take_while(|c| c.is_ascii_alphanumeric() || c == '_');
                let name = Symbol::new(name).map_err(|e| match e {
                    ShapeError::Parse {
                        position,
                        expected,
                        found,
                        ..
                    } => self.error_at(
                        start + position,
                        format!("a symbol name: {expected}"),
                        found,
                    ),
                    other => other,
                })?;
                let not_one = self.eat('!');
                if not_one {
                    self.expect('1', "`1` after `!` (only `$name!1` is a dim)")?;
                }
                Ok(Dim::Symbol { name, not_one })
            }
            Some('?') => {
                self.pos += 1;
                Ok(Dim::Unknown)
            }
            Some('!') => {
                self.pos += 1;
                self.expect('1', "`1` after `!` (only `!1` is a dim)")?;
                Ok(Dim::NotOne)
            }
            Some(c) if c.is_ascii_digit() => self.size().map(Dim::Known),
            _ => Err(self.error("a dim (a size, `?`, `!1` or `$name`)")),
        }
    }

    pub(crate) fn error(&self, expected: &str) -> ShapeError {
        let found = match self.peek() {
            None => "end of input".to_string(),
            Some(c) => format!("`{c}`"),
        };
        self.error_at(self.pos, expected.to_string(), found)
    }

    pub(crate) fn error_at(&self, position: usize, expected: String, found: String) -> ShapeError {
        ShapeError::Parse {
            what: self.what,
            input: excerpt(self.input, position),
            position,
            expected,
            found: excerpt(&found, 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for text in [
            "[8, ?, 3]",
            "[!1, 4]",
            "[]",
            "*",
            "[0]",
            "[1, 1, 1]",
            "[$n, 3]",
            "[$n!1, $n!1, $_x1]",
        ] {
            let shape: Shape = text.parse().unwrap();
            assert_eq!(shape.to_string(), text);
        }
        assert_eq!(
            " [ 8 ,?,!1 ] ".parse::<Shape>().unwrap().to_string(),
            "[8, ?, !1]"
        );
        // One spelling per shape: a symbol known not 1 somewhere is so everywhere.
        assert_eq!(
            "[$n, $n!1]".parse::<Shape>().unwrap().to_string(),
            "[$n!1, $n!1]"
        );
        assert_eq!("?".parse::<Dim>().unwrap(), Dim::Unknown);
        assert_eq!("!1".parse::<Dim>().unwrap(), Dim::NotOne);
        assert_eq!(" 12 ".parse::<Dim>().unwrap(), Dim::Known(12));
        let n = Symbol::new("n").unwrap();
        assert_eq!("$n".parse::<Dim>().unwrap(), Dim::symbol(n));
        assert_eq!(
            "$n!1".parse::<Dim>().unwrap(),
            Dim::Symbol {
                name: n,
                not_one: true
            }
        );
    }

    fn parse_err(text: &str) -> (usize, String) {
        match text.parse::<Shape>().unwrap_err() {
            ShapeError::Parse { position, .. } => {
                (position, text.parse::<Shape>().unwrap_err().to_string())
            }
            other => panic!("not a parse error: {other}"),
        }
    }

    #[test]
    fn errors_have_positions() {
        assert_eq!(parse_err("[8, x]").0, 4);
        assert_eq!(parse_err("[8,").0, 3);
        assert_eq!(parse_err("[8 3]").0, 3);
        assert_eq!(parse_err("[!2]").0, 2);
        assert_eq!(parse_err("[8, 3]]").0, 6);
        assert_eq!(parse_err("[-1]").0, 1);
        assert_eq!(parse_err("").0, 0);
        assert_eq!(parse_err("[8,]").0, 3);
        let (pos, msg) = parse_err("[99999999999999999999999]");
        assert_eq!(pos, 1);
        assert!(msg.contains("a size of at most"), "{msg}");
        assert_eq!(
            parse_err("[8, x]").1,
            "cannot parse shape \"[8, x]\": at position 4, expected a dim (a size, `?`, `!1` or \
             `$name`), found `x`"
        );
        assert_eq!(parse_err("[$]").0, 2);
        assert_eq!(parse_err("[$1n]").0, 2);
        assert_eq!(parse_err("[$n!2]").0, 4);
        assert_eq!(parse_err("[$n x]").0, 4);
        let long = format!("[${}]", "a".repeat(Symbol::MAX_LEN + 1));
        let (pos, msg) = parse_err(&long);
        assert_eq!(pos, 2 + Symbol::MAX_LEN);
        assert!(msg.contains("at most 22 bytes"), "{msg}");
        assert_eq!(
            parse_err("[$]").1,
            "cannot parse shape \"[$]\": at position 2, expected a symbol name: a name, found end \
             of input"
        );
        let (_, msg) = parse_err(&format!("[{}]", isize::MAX as usize + 1));
        assert!(
            msg.contains("a size of at most 9223372036854775807 (isize::MAX)"),
            "{msg}"
        );
        assert_eq!(
            format!("[{}]", isize::MAX).parse::<Shape>().unwrap(),
            Shape::known(&[isize::MAX as usize])
        );
        assert!("é".parse::<Shape>().is_err());
        assert!("[1é]".parse::<Shape>().is_err());
    }
}
