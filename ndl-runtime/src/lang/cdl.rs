//! CDL
