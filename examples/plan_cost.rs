//! What the plan's making time is made of on this machine, in a fresh process: the plan
//! itself (what a program's first division waits for: four `cpuid` leaves, XCR0, the
//! `rcpps` check, the table), then one `cpuid` (the first and a second; on a virtual machine
//! each is a trap to the hypervisor), and the standard library's one-time feature detection,
//! which the library does not use (it asks about eight more leaves).
//!
//!   for i in $(seq 8); do taskset -c 0 target/release/examples/plan_cost; done

use std::time::Instant;

fn main() {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::__cpuid;
        let nanos = |t: Instant| t.elapsed().as_nanos();
        let t = Instant::now();
        let plan = fmadiv::plan();
        let made = nanos(t);
        let t = Instant::now();
        let first = __cpuid(1);
        let cpuid_first = nanos(t);
        let t = Instant::now();
        let second = __cpuid(1);
        let cpuid_second = nanos(t);
        let t = Instant::now();
        let avx2 = std::is_x86_feature_detected!("avx2");
        let detection = nanos(t);
        assert_eq!(first.eax, second.eax);
        assert_eq!(
            avx2 && std::is_x86_feature_detected!("fma"),
            plan.cpu().has_avx2_fma()
        );
        println!(
            "the plan {made} ns (its own clock: {} us); then cpuid {cpuid_first} ns, again \
             {cpuid_second} ns; std's feature detection {detection} ns (avx2: {avx2})",
            plan.made_in_micros()
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    println!("SKIPPED: cpuid is x86-64's");
}
