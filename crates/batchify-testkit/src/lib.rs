//! test kit
