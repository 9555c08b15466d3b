//! `--max-time`: a wall-clock limit written as a number and a unit (`8h`, `90m`, `1.5h`,
//! `45s`, `500ms`; a bare number is seconds), kept in a config file as it was written.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// A run's time limit, as written.
#[derive(Clone, Debug, PartialEq)]
pub struct MaxTime {
    /// As given (`8h`).
    written: String,
    /// Its length.
    pub duration: Duration,
}

impl FromStr for MaxTime {
    type Err = String;

    fn from_str(text: &str) -> Result<MaxTime, String> {
        let t = text.trim();
        let (number, unit) = match t.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
            Some((at, _)) => (&t[..at], &t[at..]),
            None => (t, "s"),
        };
        let scale = match unit {
            "ms" => 0.001,
            "s" => 1.0,
            "m" | "min" => 60.0,
            "h" => 3600.0,
            _ => {
                return Err(format!(
                    "unknown unit `{unit}` in `{text}`: use ms, s, m or h"
                ))
            }
        };
        let n: f64 = (number.trim().parse())
            .map_err(|_| format!("`{text}` is no length of time (e.g. 8h, 90m, 45s)"))?;
        let seconds = n * scale;
        if !(seconds.is_finite() && seconds > 0.0 && seconds < 1e9) {
            return Err(format!(
                "`{text}`: the time limit must be above 0 and below 30 years"
            ));
        }
        Ok(MaxTime {
            written: t.to_string(),
            duration: Duration::from_secs_f64(seconds),
        })
    }
}

impl fmt::Display for MaxTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.written)
    }
}

impl Serialize for MaxTime {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.written)
    }
}

impl<'de> Deserialize<'de> for MaxTime {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<MaxTime, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_read_in_seconds_minutes_and_hours() {
        let secs = |t: &str| t.parse::<MaxTime>().map(|m| m.duration.as_secs_f64());
        assert_eq!(secs("45"), Ok(45.0));
        assert_eq!(secs("45s"), Ok(45.0));
        assert_eq!(secs("90m"), Ok(5400.0));
        assert_eq!(secs("1.5h"), Ok(5400.0));
        assert_eq!(secs(" 8h "), Ok(28800.0));
        for bad in ["", "h", "0", "-1h", "3d", "nanh", "1e20"] {
            assert!(secs(bad).is_err(), "{bad}");
        }
        let m: MaxTime = "8h".parse().unwrap();
        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(json, "\"8h\"");
        assert_eq!(serde_json::from_str::<MaxTime>(&json).unwrap(), m);
    }
}
