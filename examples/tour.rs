//! A tour of extype. Run with `cargo run --example tour`.

use extype::Shape;

fn main() -> extype::Result<()> {
    println!("== Partial shapes");
    let a: Shape = "[8, ?, 3]".parse()?;
    let b: Shape = "[?, 5, 3]".parse()?;
    println!("{a} merged with {b} = {}", a.merge_with(&b)?);
    let c: Shape = "[8, 4]".parse()?;
    let d: Shape = "[8, 7]".parse()?;
    println!("{c} relaxed with {d} = {}", c.most_specific_compatible(&d));
    Ok(())
}
