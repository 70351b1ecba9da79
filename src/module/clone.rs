//! Field-wise `Clone` for the decoded models a monitor refresh writes into per sample.

/// `Clone` whose `clone_from` goes field by field, so that a report refreshed into the
/// same value per sample reuses its strings and vectors (a derived `clone_from` clones
/// anew). The pattern lists every field: a field added later and not listed fails to build.
macro_rules! clone_field_wise {
    ($t:ident { $($f:ident),* $(,)? }) => {
        impl Clone for $t {
            fn clone(&self) -> Self {
                let $t { $($f),* } = self;
                $t { $($f: $f.clone()),* }
            }
            fn clone_from(&mut self, source: &Self) {
                $crate::module::clone::clone_fields_except!(self, source, $t { $($f),* } except {});
            }
        }
    };
}
pub(crate) use clone_field_wise;

/// `out.f.clone_from(&src.f)` for each field `f` listed before `except`; the pattern names
/// every field of `$t` (those after `except` ignored), so a field added later fails to
/// build until it is placed on one side.
macro_rules! clone_fields_except {
    ($out:expr, $src:expr, $t:ident { $($f:ident),* $(,)? } except { $($skip:ident),* $(,)? }) => {{
        let $t { $($f,)* $($skip: _,)* } = $src;
        $($out.$f.clone_from($f);)*
    }};
}
pub(crate) use clone_fields_except;
