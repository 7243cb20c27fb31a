//! Microsoft's Philly trace (Jeon et al., ATC '19): `cluster_job_log`, a JSON array of jobs.
//!
//! Schema, as the philly-traces repository's README gives it (msr-fiddle/philly-traces):
//! `status` (Pass, Killed or Failed), `vc` (hashed virtual cluster), `jobid`, `attempts` (each
//! with `start_time`, `end_time` and `detail`: the servers, each with its list of `gpus`),
//! `submitted_time`, `user` (hashed). Times are "YYYY-MM-DD HH:MM:SS". A job may have no
//! attempts, an attempt may lack a time (a logging error), and a last attempt with no
//! `end_time` was still running when the trace was taken.
//!
//! Rules, beside the common ones in [`super`]:
//! - *Duration*: the sum of `end_time - start_time` over the attempts that record both: the
//!   time the job held GPUs, retries included.
//! - *GPUs*: those of the last attempt that records both times (all its servers' `gpus`).
//! - *Skipped and counted*: jobs still running when the trace was taken, and jobs with no
//!   attempt that records both times.
//! - The model draw hashes `jobid`'s text.

use super::{fnv1a, into_jobs, seconds_of, TenantField, TraceJob, TraceOptions, TraceRead};
use crate::error::SimError;
use crate::throughputs::ThroughputTable;
use serde_json::value::RawValue;
use serde_json::Value;

/// Whether a file looks like Philly's job log (a JSON array of jobs with attempts).
pub fn recognises(text: &str) -> bool {
    let head: String = text.chars().take(4096).collect();
    head.trim_start().starts_with('[')
        && head.contains("\"attempts\"")
        && head.contains("\"submitted_time\"")
}

pub fn read(
    text: &str,
    table: &ThroughputTable,
    types: &[String],
    opts: &TraceOptions,
) -> Result<TraceRead, SimError> {
    let jobs: Vec<&RawValue> = serde_json::from_str(text)
        .map_err(|e| SimError::Input(format!("Philly job log: not a JSON array of jobs: {e}")))?;
    let tenant_key = match opts.tenant {
        TenantField::User => "user",
        TenantField::VirtualCluster => "vc",
    };
    let mut read = TraceRead::default();
    let mut parsed = Vec::new();
    for raw in jobs {
        read.lines += 1;
        let line = line_of(text, raw.get());
        match job(raw, tenant_key, line) {
            Ok(Parsed::Job(job)) => parsed.push(job),
            Ok(Parsed::StillRunning) => read.skip("still running when the trace was taken"),
            Ok(Parsed::NoRun) => read.skip("no attempt with both times recorded"),
            Err(message) => read.malformed(message),
        }
    }
    into_jobs(parsed, table, types, opts, &mut read)?;
    read.finish()
}

enum Parsed {
    Job(TraceJob),
    StillRunning,
    NoRun,
}

/// One job of the log; errors name the line the job starts on and the field.
fn job(raw: &RawValue, tenant_key: &str, line: usize) -> Result<Parsed, String> {
    let value: Value =
        serde_json::from_str(raw.get()).map_err(|e| format!("job at line {line}: {e}"))?;
    let at = |field: &str| format!("job at line {line}, field '{field}'");
    let text = |field: &str| -> Result<&str, String> {
        value[field]
            .as_str()
            .filter(|s| !s.is_empty())
            .ok_or_else(|| format!("{}: expected text", at(field)))
    };
    let time = |v: &Value, field: &str| -> Result<Option<f64>, String> {
        match v {
            Value::Null => Ok(None),
            Value::String(s) => seconds_of(s)
                .map(Some)
                .ok_or_else(|| format!("{}: '{s}' is not a time (YYYY-MM-DD HH:MM:SS)", at(field))),
            other => Err(format!("{}: {other} is not a time", at(field))),
        }
    };
    let jobid = text("jobid")?;
    let submit_s = time(&value["submitted_time"], "submitted_time")?
        .ok_or_else(|| format!("{}: missing", at("submitted_time")))?;
    let attempts = match &value["attempts"] {
        Value::Null => &[][..],
        Value::Array(a) => a.as_slice(),
        _ => return Err(format!("{}: expected a list", at("attempts"))),
    };
    let mut duration_s = 0.0;
    let mut gpus = 0u32;
    let mut ran = false;
    for (k, attempt) in attempts.iter().enumerate() {
        let start = time(&attempt["start_time"], "attempts.start_time")?;
        let end = time(&attempt["end_time"], "attempts.end_time")?;
        if let (Some(_), None) = (start, end) {
            if k + 1 == attempts.len() {
                return Ok(Parsed::StillRunning);
            }
        }
        let (Some(start), Some(end)) = (start, end) else {
            continue;
        };
        if end < start {
            return Err(format!(
                "{}: ends before it starts",
                at("attempts.end_time")
            ));
        }
        duration_s += end - start;
        ran = true;
        gpus = 0;
        for server in attempt["detail"].as_array().map_or(&[][..], Vec::as_slice) {
            let list = server["gpus"]
                .as_array()
                .ok_or_else(|| format!("{}: expected a list", at("attempts.detail.gpus")))?;
            gpus += list.len() as u32;
        }
    }
    if !ran {
        return Ok(Parsed::NoRun);
    }
    Ok(Parsed::Job(TraceJob {
        id: fnv1a(jobid),
        tenant: text(tenant_key)?.to_string(),
        gpus,
        submit_s,
        duration_s,
        state: text("status")?.to_string(),
        gpu_type: None,
        adjusted: Vec::new(),
    }))
}

/// The line of `text` on which `part` (a slice of it) starts.
fn line_of(text: &str, part: &str) -> usize {
    let offset = (part.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types() -> Vec<String> {
        ["k80", "p100", "v100"].map(String::from).to_vec()
    }

    // Written for this test from the README's schema and example entry.
    const LOG: &str = r#"[
{"status": "Pass", "vc": "ee9e8c", "jobid": "application_1506638472019_14199",
 "attempts": [
   {"start_time": "2017-10-07 01:12:09", "end_time": "2017-10-07 01:13:23",
    "detail": [{"ip": "m47", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3", "gpu4", "gpu5", "gpu6", "gpu7"]}]},
   {"start_time": "2017-10-07 01:13:30", "end_time": "2017-10-07 03:13:30",
    "detail": [{"ip": "m412", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3"]}]}],
 "submitted_time": "2017-10-07 01:11:39", "user": "ce2f4c"},
{"status": "Killed", "vc": "b436b2", "jobid": "application_1506638472019_2",
 "attempts": [{"start_time": "2017-10-07 02:00:00", "end_time": "2017-10-07 02:30:00",
   "detail": [{"ip": "m1", "gpus": ["gpu0"]}]}],
 "submitted_time": "2017-10-07 01:59:00", "user": "aa11bb"},
{"status": "Pass", "vc": "b436b2", "jobid": "application_1506638472019_3",
 "attempts": [{"start_time": "2017-10-07 02:00:00", "end_time": null,
   "detail": [{"ip": "m1", "gpus": ["gpu1"]}]}],
 "submitted_time": "2017-10-07 01:59:30", "user": "aa11bb"},
{"status": "Failed", "vc": "b436b2", "jobid": "application_1506638472019_4",
 "attempts": [], "submitted_time": "2017-10-07 02:10:00", "user": "aa11bb"},
{"status": "Pass", "vc": "b436b2", "jobid": "application_1506638472019_5",
 "attempts": [], "submitted_time": "October 7th", "user": "aa11bb"}
]"#;

    #[test]
    fn reads_the_schema_by_the_stated_rules() {
        let table = ThroughputTable::builtin();
        let read = read(LOG, &table, &types(), &TraceOptions::default()).unwrap();
        assert_eq!(read.lines, 5);
        // Job 1: 74 s on 8 GPUs then 7,200 s on 4: 7,274 s, the last attempt's 4 GPUs.
        // Job 2: 1,800 s on 1 GPU, submitted 47 min 21 s (2,841 s) after job 1.
        let jobs: Vec<(&str, u32, f64, f64)> = read
            .jobs
            .iter()
            .map(|j| {
                (
                    j.tenant.as_str(),
                    j.scale_factor,
                    j.arrival,
                    j.total_steps / j.rate[2],
                )
            })
            .collect();
        assert_eq!(jobs.len(), 2);
        assert_eq!((jobs[0].0, jobs[0].1, jobs[0].2), ("ce2f4c", 4, 0.0));
        assert!((jobs[0].3 - 7274.0).abs() < 1e-6, "{jobs:?}");
        assert_eq!((jobs[1].0, jobs[1].1, jobs[1].2), ("aa11bb", 1, 2841.0));
        assert!((jobs[1].3 - 1800.0).abs() < 1e-6, "{jobs:?}");
        let skipped: Vec<(&str, usize)> =
            read.skipped.iter().map(|(s, n)| (s.as_str(), *n)).collect();
        assert_eq!(
            skipped,
            vec![
                ("malformed line", 1),
                ("no attempt with both times recorded", 1),
                ("still running when the trace was taken", 1),
            ]
        );
        assert_eq!(
            read.examples,
            vec![
                "job at line 19, field 'submitted_time': 'October 7th' is not a time (YYYY-MM-DD HH:MM:SS)"
                    .to_string()
            ]
        );
        let states: Vec<&str> = read.kept_by_state.keys().map(String::as_str).collect();
        assert_eq!(states, ["Killed", "Pass"]);
    }

    #[test]
    fn recognition_and_errors() {
        assert!(recognises(LOG));
        assert!(!recognises("job_id,user,vc,gpu_num\n"));
        let table = ThroughputTable::builtin();
        let err = read("{not json", &table, &types(), &TraceOptions::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a JSON array of jobs"), "{err}");
        let by_vc = TraceOptions {
            tenant: TenantField::VirtualCluster,
            ..TraceOptions::default()
        };
        let read_vc = read(LOG, &table, &types(), &by_vc).unwrap();
        assert_eq!(read_vc.jobs[0].tenant, "ee9e8c");
    }
}
