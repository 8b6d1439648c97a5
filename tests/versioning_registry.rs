//! Old type names (`#[extype(aliases = [...])]`) in the registry: an old name resolves to the
//! type that has it now; an old name claimed by two types, or that is another type's name, is a
//! conflict of that name alone, as a name registered twice is.

use extype::ExtensionType;
use extype::ndarray::{ArrayD, array};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "clash.A", version = 2, aliases = ["clash.Old", "clash.OnlyA"])]
pub struct A {
    pub values: ArrayD<f32>,
}

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "clash.B", version = 2, aliases = ["clash.Old"])]
pub struct B {
    pub values: ArrayD<f32>,
}

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "clash.C", aliases = ["clash.B"])]
pub struct C {
    pub values: ArrayD<f32>,
}

#[test]
fn an_old_name_resolves_to_its_type() {
    let entry = extype::registry().get("clash.OnlyA").unwrap();
    assert_eq!((entry.name, entry.version()), ("clash.A", 2));
    assert_eq!(entry.aliases(), ["clash.Old", "clash.OnlyA"]);
    // Old names are not registered names of their own.
    assert!(!extype::registry().names().contains(&"clash.OnlyA"));
}

#[test]
fn an_alias_clash_breaks_only_the_names_involved() {
    let registry = extype::registry();
    let err = registry.resolve("clash.Old").unwrap_err().to_string();
    assert!(
        err.contains("\"clash.Old\" is claimed twice") && err.contains("A") && err.contains("B"),
        "{err}"
    );
    // An old name that is another type's name breaks that name.
    let err = registry.resolve("clash.B").unwrap_err().to_string();
    assert!(err.contains("\"clash.B\" is claimed twice"), "{err}");
    // Everything else works.
    assert_eq!(registry.get("clash.A").unwrap().name, "clash.A");
    assert_eq!(registry.get("clash.C").unwrap().name, "clash.C");
    let conflicts: Vec<String> = registry.conflicts().iter().map(|e| e.to_string()).collect();
    assert_eq!(conflicts.len(), 2, "{conflicts:?}");
    assert!(extype::check().is_err());
    let a = A {
        values: array![1.0f32].into_dyn(),
    };
    let dir = std::env::temp_dir().join(format!("extype-alias-clash-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("a.safetensors");
    extype::io::save(&path, &a).unwrap();
    assert_eq!(extype::io::load_as::<A>(&path).unwrap(), a);
    std::fs::remove_dir_all(&dir).unwrap();
}
