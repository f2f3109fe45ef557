//! The division operators: `a / divisor` for `f32`, `wide::f32x8` and `wide::f32x16`, by
//! value and by reference.

use super::Divisor;

/// `a / d`: [`Divisor::divide`].
impl core::ops::Div<Divisor> for f32 {
    type Output = f32;

    #[inline]
    fn div(self, d: Divisor) -> f32 {
        d.divide(self)
    }
}

/// `a / &d`: [`Divisor::divide`].
impl core::ops::Div<&Divisor> for f32 {
    type Output = f32;

    #[inline]
    fn div(self, d: &Divisor) -> f32 {
        d.divide(self)
    }
}

/// `a / d` for eight lanes: [`Divisor::divide_f32x8`].
impl core::ops::Div<Divisor> for wide::f32x8 {
    type Output = wide::f32x8;

    #[inline]
    fn div(self, d: Divisor) -> wide::f32x8 {
        d.divide_f32x8(self)
    }
}

/// `a / &d` for eight lanes: [`Divisor::divide_f32x8`].
impl core::ops::Div<&Divisor> for wide::f32x8 {
    type Output = wide::f32x8;

    #[inline]
    fn div(self, d: &Divisor) -> wide::f32x8 {
        d.divide_f32x8(self)
    }
}

/// `a / d` for sixteen lanes: [`Divisor::divide_f32x16`].
impl core::ops::Div<Divisor> for wide::f32x16 {
    type Output = wide::f32x16;

    #[inline]
    fn div(self, d: Divisor) -> wide::f32x16 {
        d.divide_f32x16(self)
    }
}

/// `a / &d` for sixteen lanes: [`Divisor::divide_f32x16`].
impl core::ops::Div<&Divisor> for wide::f32x16 {
    type Output = wide::f32x16;

    #[inline]
    fn div(self, d: &Divisor) -> wide::f32x16 {
        d.divide_f32x16(self)
    }
}
