//! Elementwise kernels: [`unary`] maps and [`binary`] ops with NumPy broadcasting, on top of
//! one iteration [`engine`](self) that vectorises contiguous data of any memory order and the
//! contiguous inner lanes of everything else.

pub mod binary;
pub(crate) mod engine;
pub mod unary;
