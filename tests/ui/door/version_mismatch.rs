// What every expansion of a macro from another release than the runtime reduces to: generated
// code checks the version of `extype::__private` it was written against.
const _: () = extype::__private::expect_version(2);

fn main() {}
