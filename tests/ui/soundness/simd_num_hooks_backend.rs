// Safe code outside extype-kernels cannot reach a SIMD backend through the reduction hooks of
// `Num` either: the hooks are generic over the backend and would run the AVX-512 leaf sum on a
// CPU without AVX-512. The hooks trait is sealed (not nameable outside the crate).
#![forbid(unsafe_code)]

use extype_kernels::reduce::hooks::NumHooks;

fn main() {
    let xs = [1.0f32; 4096];
    let _ = <f32 as NumHooks>::sum_leaf::<extype_kernels::simd::Avx512>(&xs);
}
