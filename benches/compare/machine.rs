//! What a comparison ran on, printed above its table.

use std::fs;
use std::path::Path;
use std::process::Command;

/// What the table ran on; with `python`, its NumPy too.
pub fn machine(python: Option<&Path>, dir: &Path) -> String {
    let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .map(|l| l.trim_start_matches([' ', '\t', ':']).to_string())
        .unwrap_or_else(|| "unknown".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mem = fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|l| l.trim().trim_end_matches(" kB").parse::<u64>().ok())
        .map_or("?".into(), |kb| format!("{:.0} GiB", kb as f64 / 1048576.0));
    let kernel = fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let fs_type = Command::new("stat")
        .args(["-f", "-c", "%T"])
        .arg(dir)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let numpy = python.map(|python| {
        Command::new(python)
            .args([
                "-c",
                "import numpy, sys; print(numpy.__version__, sys.version.split()[0])",
            ])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default()
    });
    let rustc = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let peers = numpy.map_or(String::new(), |numpy| {
        format!("; numpy and Python {numpy}; npyz 0.9")
    });
    format!(
        "- machine: {cpu}, {cores} cores, {mem}, Linux {}\n- target directory: {} ({fs_type})\n- {rustc}{peers}",
        kernel.trim(),
        dir.display()
    )
}
