//! A failed tune session in the CLI's words: the library's errors carry kinds and values,
//! and this names the flags that get past them.

use texel_data::records::RecordForm;
use texel_data::Looks;
use texel_dataset::LoadError;
use texel_tune::{
    JobError, OutputError, RunKind, SessionError, StreamError, TraceSubjectError, Unstreamed,
};

/// What a streamed run is, said when it is asked for what it does not take.
pub(crate) const STREAMED_RUN: &str =
    "(a streamed run is Newton and its polish over the whole trace)";

/// The option that asks a streamed run for what it does not take, in words.
pub(crate) fn unstreamed_words(what: Unstreamed) -> String {
    let flag = match what {
        Unstreamed::Method => "--method",
        Unstreamed::WarmStart => "--warm-start",
    };
    format!("{flag} is not for --stream {STREAMED_RUN}")
}

/// A session's error with what the user can do about it, in the CLI's flags (`epd`: the
/// positions are labelled EPD).
pub fn explain(e: SessionError, epd: bool) -> anyhow::Error {
    let hint = match &e {
        SessionError::OneResult { .. } if epd => {
            " (labels from one side's view? --labels stm reads them as the side to move's)"
        }
        SessionError::K(unfit) => k_hint(unfit, epd),
        _ => return explain_session(e),
    };
    anyhow::anyhow!("{e}{hint}")
}

/// An outputs error with the flags that get past it.
fn explain_outputs(e: OutputError) -> anyhow::Error {
    match e {
        OutputError::EarlierCheckpoint(ckpt) => anyhow::anyhow!(
            "{} holds the checkpoint of an earlier run of these outputs: continue it with \
             --resume {}, or start again with --fresh (which deletes it)",
            ckpt.display(),
            ckpt.display()
        ),
        OutputError::EarlierLog(log) => anyhow::anyhow!(
            "--log {} holds the passes of an earlier run: give another --log, continue that \
             run with --resume, or start again with --fresh (which empties it)",
            log.display()
        ),
        e => e.into(),
    }
}

/// Whether a session stopped by Ctrl-C before its run began (reading the positions, on a
/// path): kept as itself, so the command exits as an interrupted run does.
pub(crate) fn is_stop(e: &SessionError) -> bool {
    matches!(
        e,
        SessionError::Stopped
            | SessionError::Job(JobError::StoppedOnPath(_))
            | SessionError::Streamed(StreamError::StoppedOnPath(_))
    )
}

/// A session's error with the flags that get past it.
fn explain_session(e: SessionError) -> anyhow::Error {
    if is_stop(&e) {
        return e.into();
    }
    if let SessionError::Outputs(e) = e {
        return explain_outputs(e);
    }
    if let SessionError::Streamed(StreamError::Unstreamed(what)) = e {
        return anyhow::anyhow!(unstreamed_words(what));
    }
    if let SessionError::Subject(cause) = &e {
        if let Some(TraceSubjectError::NotBinary(path)) = cause.downcast_ref() {
            return anyhow::anyhow!("{e}: `{}` writes one", to_binary_command(path));
        }
    }
    if let SessionError::Subject(cause) = &e {
        if let Some(hint) = cause.downcast_ref().and_then(load_hint) {
            return anyhow::anyhow!("{e}: {hint}");
        }
    }
    let hint = match &e {
        SessionError::Kind { then, .. } => match then {
            RunKind::Streamed => ": give --stream to continue it",
            RunKind::Memory => ": leave out --stream to continue it",
        },
        SessionError::Job(JobError::NothingToTune(_))
        | SessionError::Streamed(StreamError::NothingToTune(_)) => ": lower --min-support",
        SessionError::Spent { .. } => ": give --passes above it",
        SessionError::Job(JobError::Resume(_)) => {
            " (give the positions the run began with, as they were then: its --epd files, or its \
             --sources file and the files it names; and its --validate and selection)"
        }
        SessionError::Subject(e) => match e.downcast_ref::<LoadError>() {
            Some(LoadError::TooManyBad { .. }) => "\ngive --allow-bad to go on anyway",
            Some(LoadError::NoScores) => ": --lambda 1 tunes on the results alone",
            _ => "",
        },
        _ => "",
    };
    anyhow::anyhow!("{e}{hint}")
}

/// The command that writes the binary form of the text trace `path`, beside it.
pub fn to_binary_command(path: &std::path::Path) -> String {
    format!(
        "texel traces convert --input {} --out {}.bin",
        path.display(),
        path.with_extension("").display()
    )
}

/// How to read a file the load refused for its form, if that is why.
fn load_hint(e: &LoadError) -> Option<String> {
    match e {
        LoadError::Binary { listed, .. } => Some(form_hint(*listed, None)),
        LoadError::WrongForm { listed, wrong, .. } => Some(looks_hint(*listed, wrong.looks)),
        _ => None,
    }
}

/// A load's error, with how to read a file refused for its form.
pub fn explain_load(e: LoadError) -> anyhow::Error {
    match load_hint(&e) {
        Some(hint) => anyhow::anyhow!("{e}: {hint}"),
        None => e.into(),
    }
}

/// How to read a file whose first block reads as `looks` (in its source `source` of a
/// sources file, or by the flag).
fn looks_hint(source: Option<usize>, looks: Looks) -> String {
    match (looks, source) {
        (Looks::Form(form), _) => form_hint(source, Some(form)),
        (Looks::Text, Some(n)) => format!(
            "give source {n} of the sources file the \"format\" of its text lines, or none \
             (each line's form is then detected)"
        ),
        (Looks::Text, None) => "read it without --format (each line's form is then detected) \
                                or with the --format of its text lines"
            .into(),
        (Looks::Unknown, _) => "is it the file meant? Its first records hold no chess \
                                position in any form texel reads"
            .into(),
    }
}

/// How to name a binary file's form (`form`, when its records say which; any of the three
/// otherwise): in its source of a sources file (`source`, from 1), or by the flag.
pub fn form_hint(source: Option<usize>, form: Option<RecordForm>) -> String {
    let word = |form: RecordForm| match form {
        RecordForm::Marlin => "marlin",
        RecordForm::Bullet => "bullet",
        RecordForm::Viri => "viri",
    };
    match (source, form) {
        (Some(n), Some(form)) => format!(
            "give source {n} of the sources file its \"format\": \"{}\"",
            word(form)
        ),
        (Some(n), None) => format!(
            "give source {n} of the sources file its \"format\": \"marlin\", \"bullet\" or \
             \"viri\""
        ),
        (None, Some(form)) => format!("give --format {}", word(form)),
        (None, None) => "give --format marlin, --format bullet or --format viri".into(),
    }
}

/// An import's or conversion's error, with how to name the form of a records file read in
/// another (`flag`: the command's flag for the input's form).
pub fn explain_import(e: texel_import::ImportError, flag: &str) -> anyhow::Error {
    match &e {
        texel_import::ImportError::WrongForm { wrong, .. } => {
            let hint = looks_hint(None, wrong.looks).replace("--format", flag);
            anyhow::anyhow!("{e}: {hint}")
        }
        texel_import::ImportError::TooManyBad { .. } => {
            anyhow::anyhow!("{e}\ngive --allow-bad to write the good lines anyway")
        }
        _ => e.into(),
    }
}

/// What to give when K cannot be fitted (`epd`: the positions are labelled EPD, whose
/// labels `--stm-labels` reads from the side to move's view).
pub fn k_hint(unfit: &texel_solve::error::UnfitK, epd: bool) -> &'static str {
    match unfit {
        texel_solve::error::UnfitK::Unrelated { .. } if epd => {
            " with --k; labels from the side to move's view: --labels stm"
        }
        _ => {
            " with --k (texel's sigmoid is base 10: a base-e K such as texel-tuner's 2.7 is \
             --k 1.1726, i.e. 2.7 / ln 10)"
        }
    }
}
