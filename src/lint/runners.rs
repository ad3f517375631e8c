//! Which runners a job's labels name: GitHub's own standard images, a
//! provider's hosted machines, GitHub's larger runners, custom and
//! self-hosted ones, GPU machines and containers given an accelerator.
//! The judgement every rule about holding a runner starts from, and the
//! labels an expression stands for (a matrix's values, a caller's
//! inputs, under `fromJSON` the lists they write); split from
//! [`super::workflow`], which reads the jobs. Pure.

use super::candidates::candidates;
use super::yaml::Node;

/// Whether a label starts as GitHub's image labels do (`ubuntu-`,
/// `windows-`, `macos-`): one of them, a larger runner an organisation
/// names after one (`ubuntu-24.04-16-cores`), or a custom label that
/// borrows the shape (`ubuntu-latest-m`).
pub fn image_like(label: &str) -> bool {
    ["ubuntu-", "windows-", "macos-"]
        .iter()
        .any(|p| label.starts_with(p))
}

/// GitHub's own image labels, exactly, the standard runners every
/// account gets. A label that starts like one but is not one
/// (`ubuntu-latest-m`, read on axolotl's base image build) is
/// a runner group an organisation named: custom, and usually larger.
/// GitHub's larger macOS runners (`macos-14-large`, `-xlarge`) are not
/// listed: they are billed as larger runners.
const GITHUB_IMAGES: &[&str] = &[
    "ubuntu-latest",
    "ubuntu-26.04",
    "ubuntu-24.04",
    "ubuntu-22.04",
    "ubuntu-20.04",
    "ubuntu-18.04",
    "ubuntu-16.04",
    "ubuntu-slim",
    // GitHub's arm64 images; 26.04 is in GitHub's runner-images list
    // (read on highway's multiarch builds).
    "ubuntu-26.04-arm",
    "ubuntu-24.04-arm",
    "ubuntu-22.04-arm",
    // IBM's Z and Power runners, hosted for public repositories like
    // GitHub's own (read on Qiskit's wheel builds).
    "ubuntu-24.04-s390x",
    "ubuntu-24.04-ppc64le",
    "windows-latest",
    "windows-2025",
    "windows-2025-vs2026",
    "windows-11-vs2026-arm",
    "windows-2022",
    "windows-2019",
    "windows-2016",
    "windows-11-arm",
    "macos-latest",
    "macos-26",
    "macos-15",
    "macos-26-intel",
    "macos-15-intel",
    "macos-14",
    "macos-13",
    "macos-12",
    "macos-11",
    "macos-10.15",
];

/// Whether a label is one of GitHub's own standard runners
/// ([`GITHUB_IMAGES`]).
pub fn github_hosted(label: &str) -> bool {
    GITHUB_IMAGES.contains(&label)
}

/// Labels of runners a provider hosts and bills by the minute (Depot,
/// Namespace, Blacksmith, BuildJet, WarpBuild, Ubicloud, RunsOn,
/// CodSpeed): like
/// GitHub's own, a job on one is freed when it ends or times out.
pub fn provider_hosted(label: &str) -> bool {
    [
        "depot-",
        "namespace-profile-",
        "nscloud-",
        "blacksmith-",
        "buildjet-",
        "warp-",
        "ubicloud-",
        "runs-on=",
        "runs-on/",
        // CodSpeed's macro runners (`codspeed-macro`), on its own
        // machines, run for its benchmark jobs alone (stenciljs/core).
        "codspeed-",
    ]
    .iter()
    .any(|p| label.starts_with(p))
        // A provider's bare name as the label (`runs-on: blacksmith`, read
        // on turso's image builds): its default machine.
        // RunsOn's first label is its bare name (`[runs-on, runner=64cpu-linux-x64,
        // run-id=...]`, read on sp1's suites).
        || ["blacksmith", "depot", "buildjet", "ubicloud", "namespace", "runs-on"].contains(&label)
        // A provider's image of one of GitHub's (`blaze/macos-15`): a
        // hosted machine of that image, billed by the minute and freed
        // when the job ends (read on tracel-ai/burn's macOS tests).
        || label
            .rsplit_once('/')
            .is_some_and(|(provider, image)| !provider.is_empty() && image_like(image))
}

/// Whether a label names one of GitHub's larger runners by an image's
/// shape: a `core`, `gpu` or `large` word (`ubuntu-latest-16-cores`,
/// `macos-14-large`) or a size ([`sized`]).
pub fn larger_image(label: &str) -> bool {
    image_like(label)
        && (["core", "gpu", "large"].iter().any(|k| label.contains(k)) || sized(label))
}

/// Whether runner `labels` hold an expression lint cannot read as a
/// hosted machine: not a provider's label (RunsOn's `run-id=${{
/// github.run_id }}` beside its other labels), and not one whose every
/// quoted result is a hosted label and whose variables say they name a
/// small machine (`${{ vars.GHA_WORKER_SMALL || 'ubuntu-latest' }}`,
/// read on nats-server's MQTT benchmarks). A variable that
/// says nothing of its machine (`${{ vars.RUNS_ON || 'ubuntu-latest'
/// }}`, RediSearch's benchmark EC2 runner) stays unknown. An expensive
/// quoted result makes the job costly already ([`costly_labels`]).
pub fn unknown_runner(labels: &[String]) -> bool {
    let provider = labels.iter().any(|l| provider_hosted(l));
    labels.iter().any(|l| {
        let hosted = |c: &String| github_hosted(c) || provider_hosted(c);
        let results = candidates(l);
        let small = !results.is_empty()
            && results.iter().all(hosted)
            && (small_variables(l) || compared_only(l));
        let providers = provider_hosted(l) || provider && l.contains('=');
        l.contains("${{") && !providers && !small
    })
}

/// Whether every context an expression reads is only compared (`inputs.arch
/// == 'aarch64'`): then its result is always one of its quoted results,
/// never the context's own value. RediSearch's benchmark flow runs on
/// `${{ inputs.arch == 'aarch64' && 'ubuntu-24.04-arm' || 'ubuntu-24.04'
/// }}`, one of GitHub's two images whatever the input.
fn compared_only(expression: &str) -> bool {
    let mut unquoted = String::new();
    for (i, part) in expression.split('\'').enumerate() {
        unquoted.push_str(if i % 2 == 0 { part } else { "''" });
    }
    let is_context = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '*');
    let mut any = false;
    let mut rest = unquoted.as_str();
    while let Some(start) = rest.find(|c: char| c.is_ascii_alphabetic()) {
        let (before, from) = rest.split_at(start);
        let len = from.find(|c: char| !is_context(c)).unwrap_or(from.len());
        let (word, after) = from.split_at(len);
        if word.contains('.') {
            any = true;
            let compared = |t: &str| t.starts_with("==") || t.starts_with("!=");
            if !compared(after.trim_start()) && !before.trim_end().ends_with(['=', '!'].as_slice())
            {
                return false;
            }
        }
        rest = after;
    }
    any
}

/// Whether every context an expression reads is a configuration variable
/// whose name says it is a small machine (`vars.GHA_WORKER_SMALL`).
fn small_variables(expression: &str) -> bool {
    let mut unquoted = String::new();
    for (i, part) in expression.split('\'').enumerate() {
        if i % 2 == 0 {
            unquoted.push_str(part);
            unquoted.push(' ');
        }
    }
    let mut contexts = unquoted
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .filter(|w| w.contains('.'))
        .peekable();
    contexts.peek().is_some()
        && contexts.all(|w| {
            w.strip_prefix("vars.").is_some_and(|name| {
                name.to_ascii_lowercase()
                    .split('_')
                    .any(|word| word == "small")
            })
        })
}

/// Instance families of the clouds' GPU and accelerator machines, as a
/// provider that starts them names them (RunsOn's `family=g6.4xlarge`):
/// AWS's G and P families, and its Trainium, Inferentia and Gaudi ones.
const GPU_FAMILIES: &[&str] = &[
    "g3", "g3s", "g4dn", "g4ad", "g5", "g5g", "g6", "g6e", "g6f", "gr6", "gr6f", "p2", "p3",
    "p3dn", "p4d", "p4de", "p5", "p5e", "p5en", "p6", "trn1", "trn1n", "trn2", "inf1", "inf2",
    "dl1", "dl2q",
];

/// Whether a provider's label asks for a GPU instance family
/// (`family=g6.4xlarge`, `runs-on=ID/family=g4dn.xlarge/...`, a list
/// `family=g5+g6`).
fn gpu_family(label: &str) -> bool {
    label.split('/').any(|part| {
        let value = ["family=", "instance-type=", "type="]
            .iter()
            .find_map(|k| part.strip_prefix(k));
        value.is_some_and(|v| {
            v.split(['+', ',']).any(|f| {
                let family = f.split('.').next().unwrap_or(f);
                GPU_FAMILIES.contains(&family)
            })
        })
    })
}

/// Whether one of GitHub's image labels carries a core count after its
/// version, the shape of a larger runner an organisation names
/// (`ubuntu-2404-8x-x64`, `ubuntu-24.04-8core`, `windows-2022-16`,
/// `ubuntu-latest-x64-32x`; read on lancedb's CI): a number
/// with `x`, `c` or `core` after the image's name, or a bare number after
/// its version (`latest`, `24.04`, `2022`). Not `macos-m2-15`, whose `15`
/// is the version, nor `ubuntu-24.04-arm`, GitHub's own, which says no
/// size.
fn sized(label: &str) -> bool {
    let mut versioned = false;
    label.split('-').skip(1).any(|word| {
        let unit = word.trim_start_matches(|c: char| c.is_ascii_digit());
        let count = word.strip_suffix(unit).unwrap_or("");
        let count_ok = !count.is_empty() && !count.starts_with('0') && count.len() <= 3;
        let found = count_ok
            && (["x", "c", "core", "cores"].contains(&unit) || (unit.is_empty() && versioned));
        versioned |= word == "latest"
            || (word.contains('.') || word.len() == 4)
                && word.bytes().all(|b| b.is_ascii_digit() || b == b'.');
        found
    })
}

/// Device files of accelerators: GPUs (NVIDIA's, AMD's `kfd` and the
/// render nodes of `dri`), and the NPUs and TPUs that stand in for them
/// (`/dev/accel`, Tenstorrent's, Ascend's `davinci`, AWS Neuron).
const ACCELERATORS: &[&str] = &[
    "/dev/dri",
    "/dev/kfd",
    "/dev/nvidia",
    "/dev/accel",
    "/dev/tenstorrent",
    "/dev/davinci",
    "/dev/neuron",
];

/// Whether a container's `options` give it an accelerator: `--gpus`, or
/// a `--device` of an [`ACCELERATORS`] file (or one a variable or
/// expression names, which the file cannot tell). Other devices (a VPN's
/// `--device=/dev/net/tun` on a hosted runner, read on tt-xla's uplift
/// job) make no machine expensive.
pub fn accelerators(options: &str) -> bool {
    let mut words = options
        .split_whitespace()
        .map(|w| w.trim_matches(|c| c == '"' || c == '\''));
    while let Some(word) = words.next() {
        if word == "--gpus" || word.starts_with("--gpus=") {
            return true;
        }
        let device = match word.strip_prefix("--device") {
            Some("") => words.next().unwrap_or(""),
            Some(rest) => match rest.strip_prefix('=') {
                Some(value) => value,
                None => continue,
            },
            None => continue,
        };
        let device = device.trim_matches(|c| c == '"' || c == '\'');
        if device.contains('$') || ACCELERATORS.iter().any(|a| device.starts_with(a)) {
            return true;
        }
    }
    false
}

/// Whether runner `labels` (and a container given `devices`) are an
/// expensive runner: [`Job::costly_runner`]'s judgement, also for the
/// labels a called workflow's jobs ask for.
pub fn costly_labels(labels: &[String], devices: bool) -> bool {
    costly_labels_as(labels, devices, true)
}

/// Whether runner `labels` are a machine the project keeps (self-hosted,
/// custom, GPU or larger), a CPU machine among them: what a job with no
/// timeout holds for GitHub's 360 minutes. A `cpu` label says what the
/// machine is, not that nobody waits for it (openxla's `[self-hosted,
/// ..., cpu]` convperf runner, smg's `k8s-runner-cpu`); only the rules
/// about superseded runs ([`costly_labels`]) let a CPU machine go.
pub fn own_machine_labels(labels: &[String], devices: bool) -> bool {
    costly_labels_as(labels, devices, false)
}

/// [`costly_labels`], a CPU machine ordinary when `cpu_ordinary`.
fn costly_labels_as(labels: &[String], devices: bool, cpu_ordinary: bool) -> bool {
    // A label chosen by an expression is one of its quoted results
    // ([`candidates`]): any expensive one, beside the written labels,
    // makes the job expensive.
    let written: Vec<String> = labels
        .iter()
        .filter(|l| !l.contains("${{"))
        .cloned()
        .collect();
    let judged = |extra: Vec<String>| {
        let mut one = written.clone();
        one.extend(extra);
        costly_set(&one, false, cpu_ordinary)
    };
    costly_set(labels, devices, cpu_ordinary)
        || labels.iter().any(|l| {
            // A provider's labels among the results are one list a runner
            // asks for whole (`fromJSON(format('["runs-on",
            // "runner=64cpu-linux-x64","run-id={0}"]', github.run_id))`,
            // op-succinct's tests): judged together, as written ones are.
            let (listed, alone): (Vec<String>, Vec<String>) =
                candidates(l).into_iter().partition(|c| {
                    let c = c.to_ascii_lowercase();
                    provider_hosted(&c) || c.contains('=')
                });
            let provider = listed
                .iter()
                .any(|c| provider_hosted(&c.to_ascii_lowercase()));
            let (listed, alone) = if provider {
                (listed, alone)
            } else {
                (Vec::new(), [listed, alone].concat())
            };
            (!listed.is_empty() && judged(listed)) || alone.into_iter().any(|c| judged(vec![c]))
        })
}

/// [`costly_labels`] for one set of labels that a runner must all have.
fn costly_set(labels: &[String], devices: bool, cpu_ordinary: bool) -> bool {
    let labels: Vec<String> = labels.iter().map(|l| l.to_ascii_lowercase()).collect();
    // A provider's job labels (RunsOn's `runs-on=ID`, `family=...`,
    // `image=...`) describe a machine it bills by the minute.
    let provider = labels.iter().any(|l| provider_hosted(l));
    // A runner that says it is a CPU machine (`linux-amd64-cpu4`, a `cpu`
    // label) is an ordinary build machine: read on cccl's and flashinfer's
    // CPU runners, where a superseded run loses nothing costly.
    let words = || {
        labels
            .iter()
            .flat_map(|l| l.split(|c: char| !c.is_ascii_alphanumeric()))
    };
    let cpu = cpu_ordinary && words().any(|w| w.starts_with("cpu"));
    // A label naming CUDA (`cuda`, `cuda-12`) says an NVIDIA GPU, whatever
    // else its list says (`[self-hosted, cpu, cuda]`: a `cpu` word does
    // not undo it); not a longer word (`cudaqx`, a project's name). Each
    // matrix entry is its own list ([`runner_choices`]).
    let cuda = words().any(|w| {
        w.strip_prefix("cuda")
            .is_some_and(|v| v.bytes().all(|b| b.is_ascii_digit()))
    });
    devices
        || cuda
        || labels.iter().any(|l| l.contains("gpu"))
        || provider && labels.iter().any(|l| gpu_family(l))
        || !cpu
            && labels.iter().any(|l| {
                custom_family(l)
                    || !l.contains("${{")
                        && (larger_image(l)
                            || !(github_hosted(l)
                                || provider_hosted(l)
                                || (provider && l.contains('='))))
            })
}

/// Whether a label that an expression completes begins with fixed text
/// no hosted label begins with (opea's `docker-build-${{ inputs.node }}`,
/// `k8s-${{ matrix.hardware }}`): one of the project's own machines,
/// whatever the value. `ubuntu-${{ matrix.version }}` may be GitHub's,
/// `depot-${{ ... }}` a provider's.
fn custom_family(label: &str) -> bool {
    let Some((prefix, _)) = label.split_once("${{") else {
        return false;
    };
    let hosted = GITHUB_IMAGES.iter().any(|i| i.starts_with(prefix))
        || image_like(prefix)
        || provider_hosted(&format!("{prefix}x"));
    // A provider's `key=value` (RunsOn's `run-id=${{ github.run_id }}`)
    // describes its machine, no label of one.
    let setting = prefix.contains('=');
    prefix.len() >= 3 && prefix.bytes().any(|b| b.is_ascii_alphabetic()) && !hosted && !setting
}

/// What `text`, one `${{ matrix.K }}` with fixed text around it or
/// none, is over `matrix`'s values of `K`; empty when it is something
/// else, or `K` has no value written in the matrix.
pub fn matrix_written(matrix: &Node, text: &str) -> Vec<String> {
    let Some((before, rest)) = text.trim().split_once("${{") else {
        return Vec::new();
    };
    let Some((inner, after)) = rest.split_once("}}") else {
        return Vec::new();
    };
    match inner.trim().strip_prefix("matrix.") {
        Some(k) if !after.contains("${{") => matrix_values(matrix, k.trim())
            .into_iter()
            .map(|v| format!("{before}{v}{after}"))
            .collect(),
        _ => Vec::new(),
    }
}

/// The values a matrix gives `key`: its list and its `include`s', also
/// a field of the maps listed under a key (`matrix.config.runner` over
/// `config: [{runner: macos-14}, {runner: macos-14-large}]`, read on
/// fluent-bit's macOS package builds).
pub(crate) fn matrix_values(matrix: &Node, key: &str) -> Vec<String> {
    matrix_entries(matrix, key).into_iter().flatten().collect()
}

/// `K` of a label written `${{ inputs.K }}`, or `${{ fromJson(inputs.K)
/// }}` (then `true`: the value is a list).
pub fn input_in(label: &str) -> Option<(&str, bool)> {
    context_in(label, "inputs.")
}

/// `${{ <context>K }}` or `${{ fromJSON(<context>K) }}` (`inputs.`,
/// `matrix.`): K, and whether it is read as JSON.
pub(crate) fn context_in<'l>(label: &'l str, context: &str) -> Option<(&'l str, bool)> {
    let inner = label.trim().strip_prefix("${{")?.strip_suffix("}}")?.trim();
    if let Some(k) = inner.strip_prefix(context) {
        return Some((k.trim(), false));
    }
    let lower = inner.to_ascii_lowercase();
    let arg = lower
        .strip_prefix("fromjson(")
        .and_then(|r| r.strip_suffix(')'))?;
    let at = inner.len().checked_sub(arg.len().saturating_add(1))?;
    let k = inner.get(at..inner.len().saturating_sub(1))?.trim();
    k.strip_prefix(context).map(|k| (k.trim(), true))
}

/// An input's value as a runner's labels: itself, or under `fromJson`
/// the strings of the list it writes (`"['ubuntu-latest']"`, bbolt's
/// default, quoted either way).
pub(crate) fn written_list(value: &str, json: bool) -> Vec<String> {
    let v = value.trim();
    match v.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        Some(list) if json => list
            .split(',')
            .map(|x| x.trim().trim_matches(|c| c == '"' || c == '\'').to_owned())
            .filter(|x| !x.is_empty())
            .collect(),
        _ => vec![v.trim_matches('"').to_owned()],
    }
}

/// A matrix key with a quoted fallback after it (`os || 'ubuntu-latest'`
/// in `${{ matrix.os || 'ubuntu-latest' }}`): the key and the fallback.
fn fallback(k: &str) -> Option<(&str, &str)> {
    let (key, lit) = k.split_once("||")?;
    let key = key.trim();
    let lit = lit.trim().strip_prefix('\'')?.strip_suffix('\'')?;
    let simple = key
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    (simple && !key.is_empty() && !lit.contains('\'')).then_some((key, lit))
}

/// The runners `${{ matrix.K || 'fallback' }}` may be: the values the
/// matrix gives K, and the fallback for its entries without one
/// (firewood's examples job: `macos-26` for one entry, `ubuntu-latest`
/// for the others; both GitHub's). `None` when K has no such fallback.
pub(crate) fn matrix_or_fallback(matrix: &Node, k: &str) -> Option<Vec<String>> {
    let (key, lit) = fallback(k)?;
    let mut values = matrix_values(matrix, key);
    values.push(lit.to_owned());
    Some(values)
}

/// The label lists a runner may be asked for, one per matrix entry when
/// `runs-on` takes its labels from one matrix key whose entries are
/// lists: boundless' `${{ matrix.service.runner }}` over `[self-hosted,
/// ..., cpu]` and `[self-hosted, ..., g6.4xlarge]` is two machines, and
/// the one entry's `cpu` says nothing of the other. Otherwise the one
/// list `flat` (every label, every value, read together).
pub(crate) fn runner_choices(
    runs_on: Option<&Node>,
    matrix: Option<&Node>,
    flat: Vec<String>,
) -> Vec<Vec<String>> {
    let Some(runs_on) = runs_on else {
        return vec![flat];
    };
    let mut scalars = Vec::new();
    runs_on.scalars(&mut scalars);
    let keyed: Vec<_> = scalars
        .iter()
        .filter_map(|s| context_in(&s.text, "matrix.").map(|k| (s, k)))
        .collect();
    let (Some(m), [(keyed_scalar, (key, json))]) = (matrix, keyed.as_slice()) else {
        return vec![flat];
    };
    let others: Vec<String> = scalars
        .iter()
        .filter(|s| !std::ptr::eq(**s, **keyed_scalar))
        .map(|s| s.text.clone())
        .collect();
    let entries = matrix_entries(m, key);
    if entries.len() < 2 || others.iter().any(|o| o.contains("${{")) {
        return vec![flat];
    }
    entries
        .into_iter()
        .map(|entry| {
            let mut one = others.clone();
            one.extend(entry.iter().flat_map(|v| written_list(v, *json)));
            one
        })
        .collect()
}

/// The values a matrix gives `key`, kept apart per entry of the matrix
/// (a value of its list, an `include`'s): each entry's labels together.
fn matrix_entries(matrix: &Node, key: &str) -> Vec<Vec<String>> {
    let mut path = key.split('.');
    let first = path.next().unwrap_or(key);
    let mut nodes: Vec<&Node> = Vec::new();
    if let Some(n) = matrix.get(first) {
        match n.items() {
            [] => nodes.push(n),
            items => nodes.extend(items.iter()),
        }
    }
    let includes = matrix.get("include").map(Node::items).unwrap_or_default();
    nodes.extend(includes.iter().filter_map(|i| i.get(first)));
    for field in path {
        nodes = nodes
            .iter()
            .flat_map(|n| match n.items() {
                [] => n.get(field).into_iter().collect::<Vec<_>>(),
                items => items.iter().filter_map(|i| i.get(field)).collect(),
            })
            .collect();
    }
    nodes
        .into_iter()
        .map(|n| {
            let mut found = Vec::new();
            n.scalars(&mut found);
            found.iter().map(|f| f.text.clone()).collect()
        })
        .collect()
}
