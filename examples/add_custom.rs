//! Placeholder: replaced by the add_custom example.
fn main() {}
