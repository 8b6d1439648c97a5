//! A Ballista scheduler with extype's UDFs and types: `extype-scheduler --help` for its options.

fn main() -> std::process::ExitCode {
    extype_ballista::scheduler_main()
}
