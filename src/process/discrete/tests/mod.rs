//! Statistical tests of the discrete chain (memo §5).
