#[allow(unused)] use super::*;
