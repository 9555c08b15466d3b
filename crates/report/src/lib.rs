//! Reports you look at: one self-contained HTML page (inline SVG, nothing from the network)
//! per tuning run, term lab, match or loop. [`plot`] draws every plot; [`page`] lays them out.

pub mod games;
pub mod lab;
pub mod page;
pub mod plot;
pub mod tune;
