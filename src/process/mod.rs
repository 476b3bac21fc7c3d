//! The lazy Laplace process {V_ε}: one sample path per data owner.

pub mod laplace;
