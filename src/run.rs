//! One resolution from validated inputs to written outputs: read the event,
//! decide, settle what the payload left open, write the answer.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;

use crate::answer::Answer;
use crate::error::{Error, exit};
use crate::event;
use crate::github::{self, Api};
use crate::inputs::Inputs;
use crate::online::{self, Online, Plan};
use crate::output::{self, Format};
use crate::rules;

/// Resolves and writes the answer; returns the exit code.
pub fn run(inputs: &Inputs) -> Result<u8, Error> {
    let answer = resolve(inputs)?;
    write(inputs, &answer)?;
    if inputs.strict && answer.missing_baseline() {
        return Ok(exit::NO_BASELINE);
    }
    Ok(exit::OK)
}

/// The answer for the inputs, without writing anything.
pub fn resolve(inputs: &Inputs) -> Result<Answer, Error> {
    let payload = event::load(&inputs.event_path)?;
    let decision =
        rules::decide(&inputs.event_name, &payload, &inputs.settings).map_err(|source| {
            Error::Payload {
                path: inputs.event_path.clone(),
                event: inputs.event_name.to_string(),
                source,
            }
        })?;
    let (mut answer, lookup) = Answer::new(decision, inputs.label.clone(), &inputs.server_url);
    let plan = Plan {
        lookup,
        tag: inputs.tag.clone(),
        previous_tag_policy: inputs.tag_policy.clone(),
        workdir: inputs.workdir.clone(),
        fetch: inputs.fetch.clone(),
        artifacts: inputs.artifacts.clone(),
    };
    if inputs.offline {
        online::settle_offline(&mut answer, plan);
    } else {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|source| Error::Runtime { source })?;
        // octocrab starts its request buffer on the runtime it is built in.
        let entered = runtime.enter();
        let token = inputs.token.as_ref().map(|t| t.expose().to_owned());
        let api = Api::new(github::Config {
            api_url: inputs.api_url.clone(),
            token: token.clone(),
            timeout: inputs.timeout,
        });
        match api {
            Ok(api) => {
                let git_auth = token
                    .as_deref()
                    .and_then(|t| crate::git::Auth::new(t, &inputs.server_url));
                let online = Online {
                    api,
                    server_url: inputs.server_url.clone(),
                    git_auth,
                    remote_refs: tokio::sync::OnceCell::new(),
                };
                runtime.block_on(online::settle(&mut answer, plan, &online));
                answer.trace.push(format!(
                    "{} API request(s) to {}",
                    online.api.requests(),
                    inputs.api_url
                ));
            }
            Err(err) => {
                answer.warn("GitHub API unavailable", err.to_string());
                online::settle_offline(&mut answer, plan);
            }
        }
        drop(entered);
        // Blocking git work past the deadline is abandoned, not awaited.
        runtime.shutdown_background();
    }
    answer.finish();
    Ok(answer)
}

fn debug_lines(inputs: &Inputs) -> Vec<String> {
    let s = &inputs.settings;
    let shown = |v: Option<String>| v.unwrap_or_else(|| "(none)".to_owned());
    vec![
        format!("event file: {}", inputs.event_path.display()),
        format!("event name: {}", inputs.event_name),
        format!(
            "offline: {}, strict: {}, label: {}",
            inputs.offline, inputs.strict, inputs.label
        ),
        format!(
            "server url: {}, api url: {}",
            inputs.server_url, inputs.api_url
        ),
        format!(
            "token: {}, timeout: {}s, tag: {}, tag pattern: {}, pre-releases: {}",
            if inputs.token.is_some() {
                "set"
            } else {
                "none"
            },
            inputs.timeout.as_secs(),
            inputs.tag.is_some(),
            inputs.tag_policy.pattern,
            inputs.tag_policy.prereleases
        ),
        format!(
            "base-sha: {}, base-ref: {}, mode: {}",
            shown(s.base_sha.as_ref().map(ToString::to_string)),
            shown(s.base_ref.as_ref().map(ToString::to_string)),
            if s.merge_base { "merge-base" } else { "base" }
        ),
        format!(
            "GITHUB_REPOSITORY: {}, GITHUB_SHA: {}",
            shown(s.repository.as_ref().map(ToString::to_string)),
            shown(s.github_sha.as_ref().map(ToString::to_string))
        ),
    ]
}

fn append(what: &'static str, path: &Path, text: &str) -> Result<(), Error> {
    let write_err = |source| Error::Write {
        what,
        path: path.to_owned(),
        source,
    };
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(write_err)?;
    file.write_all(text.as_bytes()).map_err(write_err)
}

fn write(inputs: &Inputs, answer: &Answer) -> Result<(), Error> {
    let mut stdout = std::io::stdout().lock();
    let result = match inputs.format {
        Format::Json => writeln!(stdout, "{}", output::json(answer)),
        Format::Text => stdout.write_all(output::text::render(answer).as_bytes()),
        Format::Github => {
            let output_file = inputs.github_output.as_deref().ok_or(Error::NoOutputFile)?;
            let debug = if inputs.debug {
                debug_lines(inputs)
            } else {
                Vec::new()
            };
            let rendered = output::github::render(answer, &debug)?;
            append("GITHUB_OUTPUT", output_file, &rendered.outputs)?;
            // The outputs are what later steps need; a summary that cannot be
            // written is worth a warning, not a failed step.
            let summary_failed = inputs
                .step_summary
                .as_deref()
                .and_then(|file| append("GITHUB_STEP_SUMMARY", file, &rendered.summary).err());
            stdout
                .write_all(rendered.stdout.as_bytes())
                .and_then(|()| match summary_failed {
                    Some(err) => {
                        let mut line = String::new();
                        output::workflow_command::command(
                            &mut line,
                            "warning",
                            &[("title", "Job summary not written")],
                            &err.to_string(),
                        );
                        stdout.write_all(line.as_bytes())
                    }
                    None => Ok(()),
                })
        }
    };
    // A closed stdout (`| head`) is not worth failing a resolved answer over.
    match result {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::Write {
            what: "stdout",
            path: "-".into(),
            source: e,
        }),
        _ => Ok(()),
    }
}
