//! A Ballista executor with extype's UDFs and types: `extype-executor --help` for its options.

fn main() -> std::process::ExitCode {
    extype_ballista::executor_main()
}
