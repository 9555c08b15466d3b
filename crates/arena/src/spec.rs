//! Engines written as `key=value,...` text, as `texel match --engine` and `texel selfplay
//! --gauntlet` take them: `name=N,params=P.json` for texel's own engine, or
//! `name=N,cmd=PATH[,arg=A][,option.NAME=V]` for a UCI engine, each with a time control
//! (`tc=`, `nodes=`, `depth=` or `st=`) and optionally `hash=` and `timeout=`.

use crate::engine::{EngineSpec, Kind, TimeControl};
use std::path::PathBuf;
use std::time::Duration;

/// Why an engine's text cannot be read; the message names the field at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SpecError(String);

fn bad(message: String) -> SpecError {
    SpecError(message)
}

/// A number of seconds from `key=value`: finite, and above 0.
fn seconds(key: &str, value: &str) -> Result<Duration, SpecError> {
    match value.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s < 1e9 => Ok(Duration::from_secs_f64(s)),
        _ => Err(bad(format!(
            "bad {key}={value}: seconds above 0 are needed"
        ))),
    }
}

/// The time control of `key=value`; a limit that allows no search (0 nodes, depth 0, no
/// time) is refused.
fn time_control(key: &str, value: &str) -> Result<TimeControl, SpecError> {
    let count = || match value.parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(bad(format!(
            "bad {key}={value}: a whole number from 1 is needed"
        ))),
    };
    Ok(match key {
        "tc" => {
            let (base, inc) = value.split_once('+').unwrap_or((value, "0"));
            let increment = match inc.parse::<f64>() {
                Ok(s) if s.is_finite() && (0.0..1e9).contains(&s) => Duration::from_secs_f64(s),
                _ => {
                    return Err(bad(format!(
                        "bad tc={value}: the increment must be seconds from 0"
                    )))
                }
            };
            TimeControl::Clock {
                base: seconds(key, base)?,
                increment,
            }
        }
        "nodes" => TimeControl::Nodes(count()?),
        "depth" => {
            TimeControl::Depth(u32::try_from(count()?).map_err(|_| bad("depth too large".into()))?)
        }
        _ => TimeControl::MoveTime(seconds(key, value)?),
    })
}

/// The fields read so far.
#[derive(Default)]
struct Fields {
    name: Option<String>,
    params: Option<PathBuf>,
    cmd: Option<PathBuf>,
    args: Vec<String>,
    options: Vec<(String, String)>,
    tc: Option<TimeControl>,
    hash: Option<usize>,
    timeout: Option<Duration>,
}

impl Fields {
    /// Reads `text`'s fields; with `defaults`, a time control or timeout already given wins.
    fn apply(&mut self, text: &str, defaults: bool) -> Result<(), SpecError> {
        for field in text.split(',').filter(|f| !f.trim().is_empty()) {
            let (k, v) = field
                .split_once('=')
                .ok_or_else(|| bad(format!("engine setting {field:?} is not key=value")))?;
            let (k, v) = (k.trim(), v.trim());
            match k {
                "tc" | "nodes" | "depth" | "st" if !defaults || self.tc.is_none() => {
                    self.tc = Some(time_control(k, v)?)
                }
                "tc" | "nodes" | "depth" | "st" => {}
                "hash" => {
                    let mb = v.parse().map_err(|_| bad(format!("bad hash {v:?}")))?;
                    self.hash = Some(mb);
                }
                "timeout" if !defaults || self.timeout.is_none() => {
                    self.timeout = Some(seconds(k, v)?)
                }
                "timeout" => {}
                "name" => self.name = Some(v.to_string()),
                "params" => self.params = Some(PathBuf::from(v)),
                "cmd" => self.cmd = Some(PathBuf::from(v)),
                "arg" => self.args.push(v.to_string()),
                k if k.starts_with("option.") => self
                    .options
                    .push((k["option.".len()..].to_string(), v.to_string())),
                _ => return Err(bad(format!("unknown engine setting {k:?}"))),
            }
        }
        Ok(())
    }
}

impl EngineSpec {
    /// The engine `text` describes, with the settings of `each` (such as `tc=5+0.05`)
    /// where `text` leaves them open.
    ///
    /// # Errors
    /// A field is not `key=value` or unknown, a value is bad, the name or time control is
    /// missing, or `params=` is given to a UCI engine.
    pub fn parse(text: &str, each: Option<&str>) -> Result<EngineSpec, SpecError> {
        let mut f = Fields::default();
        f.apply(text, false)?;
        if let Some(each) = each {
            f.apply(each, true)?;
        }
        let name = (f.name).ok_or_else(|| bad(format!("engine {text:?} has no name=")))?;
        let tc = f.tc.ok_or_else(|| {
            bad(format!(
                "engine {name} has no time control (tc=, nodes=, depth= or st=)"
            ))
        })?;
        let kind = match f.cmd {
            Some(_) if f.params.is_some() => {
                return Err(bad(format!(
                    "engine {name}: params= is for texel's own engine, not cmd="
                )))
            }
            Some(cmd) => Kind::Uci {
                cmd,
                args: f.args,
                options: f.options,
            },
            None => Kind::BuiltIn { params: f.params },
        };
        Ok(EngineSpec {
            name,
            kind,
            tc,
            hash_mb: f.hash.unwrap_or(16),
            timeout: f.timeout,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_read_with_their_defaults_from_each() {
        let e = EngineSpec::parse("name=a,params=p.json", Some("nodes=500,hash=8")).unwrap();
        assert_eq!(e.name, "a");
        assert_eq!(e.tc, TimeControl::Nodes(500));
        assert_eq!(e.hash_mb, 8);
        assert_eq!(
            e.kind,
            Kind::BuiltIn {
                params: Some("p.json".into())
            }
        );
        let u =
            EngineSpec::parse("name=sf,cmd=/bin/sf,arg=-x,option.Threads=1,depth=3", None).unwrap();
        assert_eq!(u.tc, TimeControl::Depth(3));
        let own = EngineSpec::parse("name=a,nodes=9", Some("nodes=500")).unwrap();
        assert_eq!(own.tc, TimeControl::Nodes(9), "the engine's own limit wins");
        assert!(matches!(u.kind, Kind::Uci { ref args, .. } if args == &["-x"]));
    }

    #[test]
    fn bad_engines_are_refused_by_what_is_wrong() {
        let err = |t: &str| EngineSpec::parse(t, None).unwrap_err().to_string();
        assert!(err("name=a").contains("no time control"));
        assert!(err("nodes=5").contains("no name="));
        assert!(err("name=a,nodes=0").contains("whole number from 1"));
        assert!(err("name=a,nodes=5,colour=red").contains("unknown engine setting"));
        assert!(err("name=a,nodes=5,cmd=x,params=p").contains("params= is for texel"));
        assert!(err("name=a,tc=5+x").contains("increment"));
        assert!(err("name=a,nodes").contains("not key=value"));
    }
}
