// `ragged!` with a list where the other items of the same list are scalars: the scalars of a
// ragged tensor all sit at one nesting depth, and the error says so at the list.

fn main() {
    let _ = extype::ragged![[1, [2, 3]], [4]];
}
