//! Runs `examples/sql.rs` (its queries check their results against extype's own ops), so the
//! README's `cargo run -p extype-datafusion --example sql` is tested by `cargo test`.

#[path = "../examples/sql.rs"]
mod sql;

#[test]
fn the_sql_example_runs_and_its_checks_pass() {
    sql::main().unwrap();
}
