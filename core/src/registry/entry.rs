//! [`RegistryEntry`]: one registered type, as submitted to `inventory`, and
//! [`register!`](crate::register).

use std::any::TypeId;

use crate::derived::{ErasedSpec, StructDesc};
use crate::error::{RegistryError, Result};
use crate::spec::{AnySpec, ExtensionType, TypeSpec};
use crate::spec_tree::SpecTree;

/// One registered extension type. Build it with [`RegistryEntry::new`] (a `const fn`, so it can be
/// submitted to `inventory`).
#[derive(Debug)]
pub struct RegistryEntry {
    /// The stable name (`"pkg.MaskedTensor"`), written into serialized specs.
    pub name: &'static str,
    /// The `TypeId` of the value type.
    pub type_id: TypeId,
    /// The Rust name of the value type.
    pub type_name: fn() -> &'static str,
    /// How specs of this type are deserialized.
    pub decoder: SpecDecoder,
    /// Source file of the registration.
    pub file: &'static str,
    /// Source line of the registration.
    pub line: u32,
}

/// How a registered type's specs are deserialized.
#[derive(Debug, Clone, Copy)]
pub enum SpecDecoder {
    /// Through the type's `TypeSpec::deserialize`, boxed (types registered with
    /// [`RegistryEntry::new`]).
    Typed(fn(&SpecTree) -> Result<Box<dyn AnySpec>>),
    /// Through a derived type's table, with no code of its own (see `__private_v1::derived`),
    /// reached through the function the derive generates beside the entry (`None` only where
    /// the type's impls do not apply, which fails its build).
    #[doc(hidden)]
    Derived(fn() -> Option<&'static StructDesc>),
}

fn deserialize_spec_of<T: ExtensionType>(value: &SpecTree) -> Result<Box<dyn AnySpec>> {
    match T::Spec::deserialize(value) {
        Ok(spec) => Ok(Box::new(spec)),
        Err(e) => Err(e),
    }
}

impl RegistryEntry {
    /// The entry registering `T` under `name`, defined at `file:line` (pass `file!()`, `line!()`).
    pub const fn new<T: ExtensionType>(name: &'static str, file: &'static str, line: u32) -> Self {
        RegistryEntry {
            name,
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>,
            decoder: SpecDecoder::Typed(deserialize_spec_of::<T>),
            file,
            line,
        }
    }

    /// The entry of a derived type (what `#[derive(ExtensionType)]` submits): its specs are
    /// decoded through its table, so registering it compiles no code of its own. The table comes
    /// from `desc`, a [`Probe`](crate::derived::Probe) of `T`: the entry never names `T`'s impls,
    /// so a type whose field types are unsupported gets its one error at the field, not here.
    #[doc(hidden)]
    pub const fn derived<T: 'static>(
        name: &'static str,
        file: &'static str,
        line: u32,
        desc: fn() -> Option<&'static StructDesc>,
    ) -> Self {
        RegistryEntry {
            name,
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>,
            decoder: SpecDecoder::Derived(desc),
            file,
            line,
        }
    }

    /// Deserializes a spec of this type (a [`SpecTree::Spec`] carrying its name).
    pub fn deserialize_spec(&self, value: &SpecTree) -> Result<Box<dyn AnySpec>> {
        match self.decoder {
            SpecDecoder::Typed(decode) => decode(value),
            SpecDecoder::Derived(desc) => match desc() {
                Some(desc) => match ErasedSpec::deserialize(desc, value) {
                    Ok(spec) => Ok(Box::new(spec)),
                    Err(e) => Err(e),
                },
                None => Err(RegistryError::NotDecodable {
                    name: self.name.to_string(),
                    type_name: (self.type_name)().to_string(),
                }
                .into()),
            },
        }
    }

    /// The derived type's table, when the entry is a derived type's (its version, old names,
    /// defaults and migrations: `desc.evolution`).
    pub fn desc(&self) -> Option<&'static StructDesc> {
        match self.decoder {
            SpecDecoder::Derived(desc) => desc(),
            SpecDecoder::Typed(_) => None,
        }
    }

    /// The names the type was registered under before (`#[extype(aliases = [...])]`).
    pub fn aliases(&self) -> &'static [&'static str] {
        self.desc().map_or(&[], |d| d.evolution.aliases)
    }

    /// The type's version (`#[extype(version = N)]`; 1 for unversioned and hand-registered
    /// types).
    pub fn version(&self) -> u32 {
        self.desc().map_or(1, |d| d.evolution.version)
    }

    pub(super) fn location(&self) -> String {
        crate::error::source_location(self.file, self.line)
    }
}

inventory::collect!(RegistryEntry);

/// Registers an extension type under a name, by hand: `register!(MyType<f32>, "pkg.MyTypeF32");`.
/// The derive does this for non-generic types; a generic type needs one `register!` per concrete
/// instantiation that should be loadable by name.
#[macro_export]
macro_rules! register {
    ($t:ty, $name:expr $(,)?) => {
        $crate::__private_v1::inventory::submit! {
            $crate::__private_v1::RegistryEntry::new::<$t>($name, ::core::file!(), ::core::line!())
        }
    };
}

#[cfg(test)]
mod tests {
    use super::RegistryEntry;
    use crate::error::{Error, RegistryError};
    use crate::spec_tree::SpecTree;

    /// An entry whose probe found no table (only a failed build could make one) is an error
    /// naming the type when its specs are decoded, never a panic.
    #[test]
    fn a_derived_entry_without_a_table_is_an_error() {
        let entry = RegistryEntry::derived::<u8>("test.NoTable", file!(), line!(), || None);
        let err = match entry.deserialize_spec(&SpecTree::None) {
            Err(e) => e,
            Ok(_) => panic!("decoded a spec without a table"),
        };
        let Error::Registry(registry_error) = &err else {
            panic!("not a registry error: {err}");
        };
        assert!(matches!(
            &**registry_error,
            RegistryError::NotDecodable { name, type_name }
                if name == "test.NoTable" && type_name == "u8"
        ));
        assert!(err.to_string().contains("\"test.NoTable\""), "{err}");
    }
}
