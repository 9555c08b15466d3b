//! Memory: how much a tune may take (`--memory`), written as a size (the library decides
//! whether a binary trace's tuner form fits in it: `texel_tune::Holding`), and how much the
//! process took at its peak (the benches print it).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A size in bytes, written `12G`, `800M`, `64K` (powers of 1,024; `GiB`, `MB`, ... read
/// alike) or as plain bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct MemorySize(pub u64);

impl std::str::FromStr for MemorySize {
    type Err = String;

    fn from_str(s: &str) -> Result<MemorySize, String> {
        let text = s.trim();
        let digits = text.find(|c: char| !(c.is_ascii_digit() || c == '.'));
        let (number, unit) = text.split_at(digits.unwrap_or(text.len()));
        let scale: u64 = match unit
            .trim()
            .to_ascii_uppercase()
            .trim_end_matches(['B', 'I'])
        {
            "" => 1,
            "K" => 1 << 10,
            "M" => 1 << 20,
            "G" => 1 << 30,
            "T" => 1 << 40,
            _ => return Err(format!("{s:?} is not a size (12G, 800M, 64K or bytes)")),
        };
        let value: f64 = (number.parse().ok())
            .filter(|v: &f64| v.is_finite() && *v > 0.0)
            .ok_or_else(|| format!("{s:?} is not a size above 0 (12G, 800M, 64K or bytes)"))?;
        Ok(MemorySize((value * scale as f64) as u64))
    }
}

impl fmt::Display for MemorySize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Rounded up: a size printed as a budget to give is enough.
        let gib = self.0 as f64 / f64::from(1u32 << 30);
        match (gib >= 1.0, self.0 >= 1 << 20) {
            (true, _) => write!(f, "{:.1}G", (gib * 10.0).ceil() / 10.0),
            (false, true) => write!(f, "{}M", self.0.div_ceil(1 << 20)),
            (false, false) => write!(f, "{}K", self.0.div_ceil(1 << 10)),
        }
    }
}

impl Serialize for MemorySize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

impl<'de> Deserialize<'de> for MemorySize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<MemorySize, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        let text = value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_string);
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The process's peak resident memory in bytes (Linux: `VmHWM` of `/proc/self/status`).
pub(crate) fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_their_units() {
        let size = |s: &str| s.parse::<MemorySize>().map(|m| m.0);
        assert_eq!(size("12G"), Ok(12 << 30));
        assert_eq!(size("800M"), Ok(800 << 20));
        assert_eq!(size("1.5GiB"), Ok(3 << 29));
        assert_eq!(size("4096"), Ok(4096));
        assert!(size("12Q").is_err() && size("0").is_err() && size("G").is_err());
        assert_eq!(MemorySize(3 << 29).to_string(), "1.5G");
        assert_eq!(MemorySize((800 << 20) + 1).to_string(), "801M");
        assert_eq!(MemorySize(64 << 10).to_string(), "64K");
    }
}
