//! The verification door's ways into a [`Divisor`] (feature `verify`): a divisor of a
//! given strategy without its proof, whether and how it is proven, and its slices by the
//! sequence or the divider whatever the plan says, on a chosen backend or with a chosen
//! check: for the tests of both paths, the benchmarks and `fmadiv plan --measure`.

use super::{Check, Divisor, Proven, Strategy, portable, repair_class};
#[cfg(fmadiv_x86)]
use super::{x16, x86};

impl Divisor {
    /// Prepares `b` with a given strategy, without proof. For tests of the proofs only:
    /// anything but the proven choice may be wrong.
    pub(crate) fn with_strategy(b: f32, strategy: Strategy) -> Divisor {
        let d = Divisor::new(b);
        let _ = d.proven.set(Proven::with_strategy(b, strategy));
        d
    }

    /// [`Divisor::with_strategy`] with `zh = RZ(1/b)`: one ulp off `RN(1/b)` where that
    /// rounded away from zero, which Markstein's sequence does not allow.
    pub(crate) fn with_strategy_toward_zero(b: f32, strategy: Strategy) -> Divisor {
        let d = Divisor::new(b);
        let _ = d.proven.set(Proven::with_strategy_toward_zero(b, strategy));
        d
    }

    /// The repair class of a two-products divisor (makes the proof); `None` for other
    /// strategies: how the plan picks the divisors it times.
    pub(crate) fn two_products_repair_class(&self) -> Option<usize> {
        let p = self.proven();
        (p.strategy == Strategy::TwoProducts).then(|| repair_class(p.zh, p.zl))
    }

    /// Whether the proof has been made (for tests of both paths).
    pub(crate) fn is_proven(&self) -> bool {
        self.proven.get().is_some()
    }

    /// `out[i] = a[i] / b` by the proven sequence (`true`; the proof is made if it was not)
    /// or the divider (`false`), whatever the plan says: for the tests of both
    /// paths and `fmadiv plan --measure`.
    pub(crate) fn divide_slice_by(&self, sequence: bool, a: &[f32], out: &mut [f32]) {
        assert_eq!(
            a.len(),
            out.len(),
            "fmadiv::Divisor::divide_slice_by: length mismatch"
        );
        #[cfg(fmadiv_x86)]
        if let Some(k) = crate::dispatch::avx2_fma() {
            let (x, o, n) = (a.as_ptr(), out.as_mut_ptr(), out.len());
            // SAFETY: the CPU has AVX2+FMA (`k`); a is readable and out writable for n
            // elements and cannot overlap (out is a unique borrow).
            unsafe {
                if sequence {
                    x86::divide_raw(k, self.proven(), Check::Flags, x, o, n)
                } else {
                    x86::divide_by_divider(k, self.b, x, o, n)
                }
            }
            return;
        }
        let _ = sequence;
        for (o, &x) in out.iter_mut().zip(a) {
            *o = portable::div_one(x, self.b);
        }
    }

    /// [`Divisor::divide_slice_by`] on a given SIMD backend (`None`, nothing written, for
    /// the portable path or one this CPU cannot run): the sixteen-lane backends run their
    /// entry points (`divisor::x16`).
    #[cfg(fmadiv_x86)]
    pub(crate) fn divide_slice_on(
        &self,
        backend: crate::Backend,
        sequence: bool,
        a: &[f32],
        out: &mut [f32],
    ) -> Option<()> {
        assert_eq!(
            a.len(),
            out.len(),
            "fmadiv::Divisor::divide_slice_on: length mismatch"
        );
        match backend {
            _ if !backend.runs_here() => None,
            crate::Backend::Portable => None,
            crate::Backend::Avx2Fma => {
                self.divide_slice_by(sequence, a, out);
                Some(())
            }
            _ => {
                let p = sequence.then(|| self.proven());
                let (x, o, n) = (a.as_ptr(), out.as_mut_ptr(), out.len());
                // SAFETY: the backend runs here; a is readable and out writable for n
                // elements and cannot overlap (out is a unique borrow).
                unsafe { x16::divide(backend, self.b, p, Check::Flags, x, o, n) };
                Some(())
            }
        }
    }

    /// `a[i] = a[i] / b` in place by the proven sequence (`true`) or the divider (`false`),
    /// whatever the plan says (see [`Divisor::divide_slice_by`]).
    pub(crate) fn divide_in_place_by(&self, sequence: bool, a: &mut [f32]) {
        #[cfg(fmadiv_x86)]
        if let Some(k) = crate::dispatch::avx2_fma() {
            let (x, n) = (a.as_mut_ptr(), a.len());
            // SAFETY: the CPU has AVX2+FMA (`k`); `a` is readable and writable for its
            // length, which both loops allow in place.
            unsafe {
                if sequence {
                    x86::divide_raw_in_place(k, self.proven(), x, n)
                } else {
                    x86::divide_by_divider(k, self.b, x, x, n)
                }
            }
            return;
        }
        let _ = sequence;
        for x in a.iter_mut() {
            *x = portable::div_one(*x, self.b);
        }
    }

    /// [`Divisor::divide_in_place_by`] on a given SIMD backend (`None`, nothing written, for
    /// the portable path or one this CPU cannot run): the sixteen-lane backends run their
    /// entry points (`divisor::x16`) with the output the input.
    #[cfg(fmadiv_x86)]
    pub(crate) fn divide_in_place_on(
        &self,
        backend: crate::Backend,
        sequence: bool,
        a: &mut [f32],
    ) -> Option<()> {
        match backend {
            _ if !backend.runs_here() => None,
            crate::Backend::Portable => None,
            crate::Backend::Avx2Fma => {
                self.divide_in_place_by(sequence, a);
                Some(())
            }
            _ => {
                let p = sequence.then(|| self.proven());
                let (x, n) = (a.as_mut_ptr(), a.len());
                // SAFETY: the backend runs here; a is readable and writable for n elements,
                // and `x16::divide` allows the output to be the input.
                unsafe { x16::divide(backend, self.b, p, Check::Flags, x, x, n) };
                Some(())
            }
        }
    }

    /// `out[i] = a[i] / b` by the proven sequence with the given check, on a given SIMD
    /// backend (`None`, nothing written, for the portable path or one this CPU cannot
    /// run); `in_place`: the dividends are divided in place, `out` is not touched.
    #[cfg(fmadiv_x86)]
    pub(crate) fn divide_checked_on(
        &self,
        backend: crate::Backend,
        check: Check,
        a: &mut [f32],
        out: Option<&mut [f32]>,
    ) -> Option<()> {
        if !backend.runs_here() || backend == crate::Backend::Portable {
            return None;
        }
        let n = a.len();
        let x = a.as_mut_ptr();
        let o = match out {
            Some(out) => {
                assert_eq!(
                    n,
                    out.len(),
                    "fmadiv::Divisor::divide_checked_on: length mismatch"
                );
                out.as_mut_ptr()
            }
            None => x,
        };
        let p = self.proven();
        // SAFETY: the backend runs here; x is readable and o writable for n elements, and
        // o is x or a distinct unique borrow. Every loop chosen allows in place but the
        // flag-checked chunks, which `x16::divide` and `divide_raw` skip in place.
        unsafe {
            match backend {
                crate::Backend::Avx2Fma => {
                    let k = crate::dispatch::avx2_fma()?;
                    if core::ptr::eq(x, o) && check == Check::Flags {
                        x86::divide_raw_in_place(k, p, x, n)
                    } else {
                        x86::divide_raw(k, p, check, x, o, n)
                    }
                }
                _ => x16::divide(backend, self.b, Some(p), check, x, o, n),
            }
        }
        Some(())
    }

    /// `out[i] = a[i] / b` by the proven sequence (the proof made if it was not) with the
    /// given check of the two-products loop, whatever the plan says: for tests and
    /// benchmarks of the sequences and of both checks.
    pub(crate) fn divide_slice_checked_by(&self, check: Check, a: &[f32], out: &mut [f32]) {
        assert!(
            a.len() == out.len(),
            "fmadiv::Divisor::divide_slice: length mismatch: {} dividends, output of {}",
            a.len(),
            out.len()
        );
        #[cfg(fmadiv_x86)]
        if crate::backend() != crate::Backend::Portable {
            let (x, o, n) = (a.as_ptr(), out.as_mut_ptr(), out.len());
            // SAFETY: the backend in use runs here; a is readable and out writable for n
            // elements and cannot overlap (out is a unique borrow).
            unsafe {
                match crate::dispatch::avx2_fma_backend() {
                    Some(k) => x86::divide_raw(k, self.proven(), check, x, o, n),
                    None => x16::divide(
                        crate::backend(),
                        self.b,
                        Some(self.proven()),
                        check,
                        x,
                        o,
                        n,
                    ),
                }
            }
            return;
        }
        // Without AVX2+FMA every quotient comes from the divider: nothing to check.
        let _ = check;
        for (o, &x) in out.iter_mut().zip(a) {
            *o = portable::div_one(x, self.b);
        }
    }
}
