//! [`RegistryEntry`]: one registered type, as submitted to `inventory`, and
//! [`register!`](crate::register).

use std::any::TypeId;

use crate::derived::{Derived, ErasedSpec, StructDesc};
use crate::error::Result;
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
    /// Through a derived type's table, with no code of its own (see `__private::derived`).
    #[doc(hidden)]
    Derived(&'static StructDesc),
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
    /// decoded through its table, so registering it compiles no code of its own.
    #[doc(hidden)]
    pub const fn derived<T: Derived>(name: &'static str, file: &'static str, line: u32) -> Self {
        RegistryEntry {
            name,
            type_id: T::DESC.type_id,
            type_name: T::DESC.types.value_type_name,
            decoder: SpecDecoder::Derived(T::DESC),
            file,
            line,
        }
    }

    /// Deserializes a spec of this type (a [`SpecTree::Spec`] carrying its name).
    pub fn deserialize_spec(&self, value: &SpecTree) -> Result<Box<dyn AnySpec>> {
        match self.decoder {
            SpecDecoder::Typed(decode) => decode(value),
            SpecDecoder::Derived(desc) => match ErasedSpec::deserialize(desc, value) {
                Ok(spec) => Ok(Box::new(spec)),
                Err(e) => Err(e),
            },
        }
    }

    pub(super) fn location(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

inventory::collect!(RegistryEntry);

/// Registers an extension type under a name, by hand: `register!(MyType<f32>, "pkg.MyTypeF32");`.
/// The derive does this for non-generic types; a generic type needs one `register!` per concrete
/// instantiation that should be loadable by name.
#[macro_export]
macro_rules! register {
    ($t:ty, $name:expr $(,)?) => {
        $crate::__private::inventory::submit! {
            $crate::__private::RegistryEntry::new::<$t>($name, ::core::file!(), ::core::line!())
        }
    };
}
