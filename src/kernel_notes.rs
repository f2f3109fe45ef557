//! Why the kernel is exact: notes (documentation only).
