// Safe code outside extype-kernels cannot run AVX-512 instructions unchecked: the AVX-512
// backend's vector methods execute them without a CPU feature check (SIGILL on a CPU without
// AVX-512), so neither the backend nor its vector trait can be named outside the crate.
#![forbid(unsafe_code)]

use extype_kernels::simd::{Avx512, VirtualVectors};

fn main() {
    let v = <Avx512 as VirtualVectors>::splat32(1.0);
    println!("{:?}", <Avx512 as VirtualVectors>::to_array32(v));
}
