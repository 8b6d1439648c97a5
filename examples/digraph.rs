//! A directed graph as an extension type: a general data structure, not a tensor-like one.
//! Node and edge features are maps of tensors, edges are index tensors, and the node set is a
//! nested extension type. Run with `cargo run --example digraph`.

use std::collections::BTreeMap;

use extype::{ExtensionType, PathSink, TypeSpec};
use ndarray::{Array1, Array2, arr1, arr2};

/// The nodes: ids plus named feature matrices with one row per node.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "examples.NodeSet")]
pub struct NodeSet {
    pub ids: Array1<i64>,
    pub features: BTreeMap<String, Array2<f32>>,
}

/// A directed graph: `source[e] → target[e]` for each edge `e`, with edge features.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "examples.Digraph", validate = Digraph::check)]
pub struct Digraph {
    pub nodes: NodeSet,
    #[extype(shape = "e")]
    pub source: Array1<i64>,
    #[extype(shape = "e")]
    pub target: Array1<i64>,
    pub edge_features: BTreeMap<String, Array2<f32>>,
    pub directed: bool,
}

impl Digraph {
    fn check(&self) -> extype::Result<()> {
        let n = self.nodes.ids.len() as i64;
        for (which, indices) in [("source", &self.source), ("target", &self.target)] {
            if let Some((e, i)) = indices
                .iter()
                .enumerate()
                .find(|(_, i)| !(0..n).contains(*i))
            {
                return Err(extype::Error::invalid(format!(
                    "{which}[{e}] = {i} is not a node index (there are {n} nodes)"
                )));
            }
        }
        let rows = |m: &BTreeMap<String, Array2<f32>>, want: usize, what: &str| {
            m.iter().find(|(_, f)| f.nrows() != want).map(|(k, f)| {
                format!(
                    "{what} feature {k:?} has {} rows, expected {want}",
                    f.nrows()
                )
            })
        };
        if let Some(msg) = rows(&self.nodes.features, self.nodes.ids.len(), "node")
            .or_else(|| rows(&self.edge_features, self.source.len(), "edge"))
        {
            return Err(extype::Error::invalid(msg));
        }
        Ok(())
    }

    fn out_degree(&self) -> Vec<usize> {
        let mut degree = vec![0; self.nodes.ids.len()];
        for &s in &self.source {
            degree[s as usize] += 1;
        }
        degree
    }
}

fn main() -> extype::Result<()> {
    let mut node_features = BTreeMap::new();
    node_features.insert(
        "embedding".to_string(),
        arr2(&[[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]]),
    );
    let mut edge_features = BTreeMap::new();
    edge_features.insert("weight".to_string(), arr2(&[[1.0], [0.5], [2.0], [0.1]]));
    let graph = Digraph::try_new(
        NodeSet {
            ids: arr1(&[10, 20, 30]),
            features: node_features,
        },
        arr1(&[0, 0, 1, 2]),
        arr1(&[1, 2, 2, 0]),
        edge_features,
        true,
    )?;
    println!("spec: {}", graph.spec());
    println!("out degree: {:?}", graph.out_degree());

    println!("\n== Components, each with its path (its name on disk)");
    let mut sink = PathSink::default();
    extype::Field::push_views(&graph, &extype::FieldPath::Root, &mut sink);
    for (path, view) in &sink.0 {
        println!("{path:<28} {:?} {:?}", view.dtype(), view.shape());
    }

    println!("\n== Invalid graphs are rejected with the field and the reason");
    let err = Digraph::try_new(
        graph.nodes.clone(),
        arr1(&[0, 5]),
        arr1(&[1, 2]),
        BTreeMap::new(),
        true,
    )
    .unwrap_err();
    println!("error: {err}");
    let err = Digraph::try_new(
        graph.nodes.clone(),
        arr1(&[0, 1, 2]),
        arr1(&[1, 2]),
        BTreeMap::new(),
        true,
    )
    .unwrap_err();
    println!("error: {err}");

    println!("\n== Round trip through components and the spec's JSON");
    let json = extype::serial::spec_to_json(&graph.spec())?;
    let spec: DigraphSpec = extype::serial::spec_from_json(&json)?;
    let rebuilt = spec.from_components(graph.clone().into_components())?;
    println!("rebuilt equals original: {}", rebuilt == graph);
    Ok(())
}
