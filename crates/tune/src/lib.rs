//! Texel tuning.
