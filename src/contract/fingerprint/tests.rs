use super::parse::*;
use super::*;

const H100: &str = include_str!("../../../tests/fixtures/fingerprint/nvidia-h100.csv");
const H100_LOCKED: &str =
    include_str!("../../../tests/fixtures/fingerprint/nvidia-h100-locked.csv");
const A100_MIG: &str = include_str!("../../../tests/fixtures/fingerprint/nvidia-a100-mig.csv");
const GEFORCE: &str = include_str!("../../../tests/fixtures/fingerprint/nvidia-geforce.csv");
const HEADER: &str = include_str!("../../../tests/fixtures/fingerprint/nvidia-smi-h100.txt");
const MI325X: &str = include_str!("../../../tests/fixtures/fingerprint/rocm-smi-mi325x.json");
const NAVI: &str = include_str!("../../../tests/fixtures/fingerprint/rocm-smi-navi-old.json");
const CPUINFO: &str = include_str!("../../../tests/fixtures/fingerprint/cpuinfo-epyc.txt");

fn nvidia(csv: &str) -> Fingerprint {
    let (gpus, driver) = nvidia_query(csv);
    Fingerprint {
        schema: FINGERPRINT_SCHEMA,
        gpus,
        driver,
        runtime: nvidia_cuda(HEADER),
        ..Fingerprint::default()
    }
}

fn amd(json: &str, rocm: &str) -> Fingerprint {
    let (gpus, driver) = rocm_json(json);
    Fingerprint {
        schema: FINGERPRINT_SCHEMA,
        gpus,
        driver,
        runtime: rocm_version(rocm),
        ..Fingerprint::default()
    }
}

#[test]
fn nvidia_smi_query_and_header_are_read() {
    let fp = nvidia(H100);
    assert_eq!(fp.gpus.len(), 1);
    let g = &fp.gpus[0];
    assert_eq!(g.model, "NVIDIA H100 80GB HBM3");
    assert_eq!(
        g.uuid.as_deref(),
        Some("GPU-5d8a3c1e-7b2f-4e6a-9c0d-1f2e3a4b5c6d")
    );
    assert_eq!(g.sm_clock_mhz, Some(1980.0));
    assert_eq!(g.power_limit_w, Some(700.0));
    assert_eq!(g.clocks_locked, Some(false));
    assert_eq!(g.mig.as_deref(), Some("Disabled"));
    assert_eq!(fp.driver.as_deref(), Some("550.54.15"));
    assert_eq!(fp.runtime.as_deref(), Some("CUDA 12.4"));
    assert_eq!(
        fp.measured_on(),
        "NVIDIA H100 80GB HBM3 / driver 550.54.15 / CUDA 12.4 / clocks free / 700 W"
    );
}

#[test]
fn mig_and_unsupported_fields() {
    let fp = nvidia(A100_MIG);
    assert_eq!(fp.gpus.len(), 2);
    assert_eq!(fp.gpus[0].mig.as_deref(), Some("Enabled"));
    assert_eq!(
        fp.gpu_models().as_deref(),
        Some("2 × NVIDIA A100-SXM4-40GB")
    );
    let g = &nvidia(GEFORCE).gpus[0];
    assert_eq!(
        (g.clocks_locked, g.mig.as_ref(), g.ecc.as_ref()),
        (None, None, None)
    );
    assert_eq!(g.throttle_reasons.as_deref(), Some("0x0000000000000004"));
}

#[test]
fn rocm_smi_json_in_both_spellings() {
    let fp = amd(MI325X, "6.2.1-112\n");
    assert_eq!(fp.gpu_models().as_deref(), Some("2 × AMD Instinct MI325X"));
    assert_eq!(fp.driver.as_deref(), Some("6.8.5"));
    assert_eq!(fp.runtime.as_deref(), Some("ROCm 6.2.1"));
    assert_eq!(fp.gpus[1].uuid.as_deref(), Some("0x6c4d2e8f1a3b5c70"));
    assert_eq!(fp.gpus[0].power_limit_w, Some(1000.0));
    let navi = amd(NAVI, "");
    assert_eq!(navi.gpus[0].clocks_locked, Some(true));
    assert_eq!(navi.gpus[0].uuid, None);
    assert!(navi.gpus[0].model.starts_with("Navi 31"));
}

#[test]
fn cpuinfo_gives_model_and_count() {
    assert_eq!(
        cpuinfo(CPUINFO),
        (Some("AMD EPYC 7763 64-Core Processor".to_owned()), Some(2))
    );
}

#[test]
fn output_that_is_not_the_tools_gives_nothing() {
    for junk in ["", "garbage", "a,b,c", "{}", "[1,2]", ",,,,,,,,,"] {
        assert_eq!(nvidia_query(junk), (Vec::new(), None), "{junk:?}");
        assert_eq!(rocm_json(junk), (Vec::new(), None), "{junk:?}");
        assert_eq!(nvidia_cuda(junk), None);
        assert_eq!(rocm_version(junk), None);
    }
    assert_eq!(nvidia_cuda("CUDA Version: 12.4; rm -rf /"), None);
    assert_eq!(
        nvidia_cuda("| CUDA Version: 12.4     |"),
        Some("CUDA 12.4".to_owned())
    );
    assert_eq!(nvidia_cuda("CUDA Version: $(id)"), None);
    // A control character in a name is shown, never kept raw.
    let (gpus, _) = nvidia_query("H\u{1b}]100, x, 1, 1, 1, 1, 0x0, Active, Enabled, Enabled");
    assert_eq!(gpus[0].model, "H\\u{1b}]100");
}

#[test]
fn differences_are_the_fields_that_move_performance() {
    let h100 = nvidia(H100);
    assert!(h100.same_machine(&h100.clone()));
    // Another GPU of the same model (its UUID) is the same machine.
    let mut other = h100.clone();
    other.gpus[0].uuid = Some("GPU-other".to_owned());
    other.runner.name = Some("gpu-runner-7".to_owned());
    assert!(h100.same_machine(&other));
    let locked = nvidia(H100_LOCKED);
    let d = h100.differences(&locked);
    assert_eq!(d.len(), 1);
    assert_eq!(
        (d[0].field.as_str(), d[0].current.as_str()),
        ("clocks", "locked")
    );
    // A driver's minor version is not a difference; its major version is.
    let mut minor = h100.clone();
    minor.driver = Some("550.90.07".to_owned());
    assert!(h100.same_machine(&minor));
    let mi325 = amd(MI325X, "6.2.1");
    let mut mi355 = amd(MI325X, "6.4.0");
    for g in &mut mi355.gpus {
        g.model = "AMD Instinct MI355X".to_owned();
    }
    let fields: Vec<String> = mi325
        .differences(&mi355)
        .into_iter()
        .map(|d| d.field)
        .collect();
    assert_eq!(fields, ["GPU", "runtime"]);
    assert_eq!(
        mismatch_sentence(&mi325, &mi355, &mi325.differences(&mi355)),
        "the baseline was measured on 2 × AMD Instinct MI325X / driver 6.8.5 / ROCm 6.2.1 / clocks free / 1000 W; \
         this run on 2 × AMD Instinct MI355X / driver 6.8.5 / ROCm 6.4.0 / clocks free / 1000 W \
         (GPU 2 × AMD Instinct MI325X → 2 × AMD Instinct MI355X, runtime ROCm 6.2 → ROCm 6.4): a change between them may be the machine's, not the code's"
    );
    // Unknown on one side is no difference.
    assert!(Fingerprint::default().same_machine(&h100));
}

#[test]
fn a_file_is_bounded_and_cleaned() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("current.csv");
    assert_eq!(Fingerprint::beside(&csv), None);
    let mut fp = nvidia(H100);
    fp.gpus[0].model = format!("{}\u{7}", "x".repeat(500));
    std::fs::write(
        Fingerprint::path_for(&csv),
        serde_json::to_string(&fp).unwrap(),
    )
    .unwrap();
    let read = Fingerprint::beside(&csv).unwrap();
    assert!(
        read.gpus[0].model.chars().count() < 230,
        "{}",
        read.gpus[0].model
    );
    std::fs::write(Fingerprint::path_for(&csv), vec![b' '; 70 * 1024]).unwrap();
    assert!(
        Fingerprint::load(&Fingerprint::path_for(&csv))
            .unwrap_err()
            .contains("at most")
    );
}
