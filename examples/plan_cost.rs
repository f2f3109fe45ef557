//! What the plan's making time is made of on this machine, in a fresh process: one `cpuid`
//! (the first and a second; on a virtual machine each is a trap to the hypervisor), the
//! standard library's one-time feature detection (which any program that asks
//! `is_x86_feature_detected!` pays once, and the plan asks), and the plan after it.
//!
//!   for i in $(seq 8); do taskset -c 0 target/release/examples/plan_cost; done

use std::time::Instant;

fn main() {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::__cpuid;
        let nanos = |t: Instant| t.elapsed().as_nanos();
        let t = Instant::now();
        let first = __cpuid(1);
        let cpuid_first = nanos(t);
        let t = Instant::now();
        let second = __cpuid(1);
        let cpuid_second = nanos(t);
        let t = Instant::now();
        let avx2 = std::is_x86_feature_detected!("avx2");
        let detection = nanos(t);
        let t = Instant::now();
        let plan = fmadiv::plan();
        let after = nanos(t);
        assert_eq!(first.eax, second.eax);
        println!(
            "cpuid {cpuid_first} ns, again {cpuid_second} ns; std's feature detection {detection} ns \
             (avx2: {avx2}); the plan after it {after} ns (its own clock: {} us)",
            plan.made_in_micros()
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    println!("SKIPPED: cpuid is x86-64's");
}
