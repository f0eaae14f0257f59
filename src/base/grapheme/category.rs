//! The grapheme categories the boundary rules tell apart (shared by the rules in `mod.rs` and
//! the generated `table.rs`).

/// A code point's category, as far as the boundary rules tell them apart: the
/// Grapheme_Cluster_Break property, with Extended_Pictographic and the Indic_Conjunct_Break
/// values (GB9c, GB11) folded in, as unicode-segmentation does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Cat {
    Any,
    Cr,
    Lf,
    Control,
    /// Extend and InCB=Extend: nearly all of Extend.
    Extend,
    /// Extend without an InCB value: ZWNJ alone.
    ExtendPlain,
    /// Extend and InCB=Linker: the viramas that join conjuncts.
    Linker,
    /// ZWJ, also InCB=Extend.
    Zwj,
    SpacingMark,
    Prepend,
    L,
    V,
    T,
    Lv,
    Lvt,
    /// Regional_Indicator.
    Ri,
    /// Extended_Pictographic.
    Pict,
    /// InCB=Consonant.
    Consonant,
}
