//! The `declare_params!` macro: one declaration per term, expanded into the typed handles,
//! the metadata table, the group list and the default values.

/// Maps a declared shape to its handle type.
macro_rules! handle_type {
    (S) => { $crate::params::SParam };
    (i32) => { $crate::params::IParam };
    ([S; $n:literal]) => { $crate::params::SArray<$n> };
    ([i32; $n:literal]) => { $crate::params::IArray<$n> };
}
pub(crate) use handle_type;

/// Expands the parameter table. Each term reads
/// `/// doc` `NAME: SHAPE = VALUE[, index "meaning"][, step N][, nonlinear][, rising | falling]`
/// `[, at_least N][, at_most N];` (the last three are constraints the tuner keeps)
/// inside `group NAME { ... }` blocks, or `candidates NAME with PARTNER, ... { ... }` for a
/// family of candidate terms that the evaluation skips while all its values are zero (the
/// partners are the established groups the term lab tunes together with it).
macro_rules! declare_params {
    ( $(
        $(#[doc = $gdoc:literal])*
        $kind:ident $group:ident $(with $($partner:ident),+)? {
            $(
                $(#[doc = $doc:literal])*
                $name:ident : $shape:tt = $value:expr $(, $key:ident $($arg:literal)?)* ;
            )*
        }
    )* ) => {
        #[allow(non_camel_case_types, clippy::upper_case_acronyms, dead_code)]
        #[repr(u16)]
        enum TermIndex { $($($name,)*)* }

        /// Number of terms in the table.
        pub const TERM_COUNT: usize = [$($(stringify!($name),)*)*].len();

        const SLOTS: [usize; TERM_COUNT] = [$($(
            <$crate::params::handle_type!($shape) as $crate::params::Handle>::SLOTS,
        )*)*];
        const OFFSETS: [usize; TERM_COUNT] = $crate::params::prefix_sums(SLOTS);

        /// Number of flat slots (tunable integers) in the table.
        pub const FLAT_LEN: usize = $crate::params::total(SLOTS);

        $($(
            $(#[doc = $doc])*
            pub const $name: $crate::params::handle_type!($shape) =
                <$crate::params::handle_type!($shape)>::new(
                    TermIndex::$name as u16,
                    OFFSETS[TermIndex::$name as usize],
                );
        )*)*

        /// The groups of the table, in declaration order.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum Group { $($(#[doc = $gdoc])* $group,)* }

        impl Group {
            /// Every group, in declaration order.
            pub const ALL: &'static [Group] = &[$(Group::$group,)*];

            /// The group's name as written in the table (`KnightV`).
            pub const fn name(self) -> &'static str {
                match self { $(Group::$group => stringify!($group),)* }
            }

            /// The group's one-line description.
            pub fn doc(self) -> &'static str {
                match self { $(Group::$group => concat!($($gdoc),*).trim(),)* }
            }

            /// The word that opens the group in the table: `group`, or `candidates` for
            /// a family of candidate terms.
            pub const fn keyword(self) -> &'static str {
                match self { $(Group::$group => stringify!($kind),)* }
            }

            /// The established groups a candidate family works with: the term lab tunes them
            /// together with the family (empty for other groups).
            pub fn partners(self) -> &'static [Group] {
                match self { $(Group::$group => &[$($(Group::$partner),+)?],)* }
            }

            /// Whether the group is a family of candidate terms (skipped by the evaluation
            /// while all its values are zero; judged by the term lab).
            pub fn is_candidate(self) -> bool {
                self.keyword() == "candidates"
            }
        }

        /// Metadata of every term, in declaration order (index = [`TermId`](crate::TermId)).
        pub static TERMS: [$crate::params::TermInfo; TERM_COUNT] = [$($(
            $crate::params::TermInfo::new(
                stringify!($name),
                Group::$group,
                <$crate::params::handle_type!($shape) as $crate::params::Handle>::SHAPE,
                OFFSETS[TermIndex::$name as usize],
                concat!($($doc),*),
            ) $(.$key($($arg)?))*,
        )*)*];

        /// Writes every term's declared default into `params`.
        pub(crate) fn write_defaults(params: &mut $crate::params::Params) {
            use $crate::params::Handle as _;
            $($( $name.set(params, $value); )*)*
        }
    };
}
pub(crate) use declare_params;
