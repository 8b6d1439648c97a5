//! `io::map` is an `unsafe fn`: its contract (the file is not modified or truncated while
//! mapped) cannot be checked, so safe code cannot call it — and a crate that forbids `unsafe`
//! reads files with the copying `io::load` instead.
#![forbid(unsafe_code)]

fn main() {
    let _ = extype::io::map("values.safetensors");
}
