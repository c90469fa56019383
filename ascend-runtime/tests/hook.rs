//! The runtime's panic hook: silent for launched cores, delegating for everything else.
//! (Alone in its binary: it installs a process-wide hook before the first launch.)

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use ascend_runtime::prelude::*;

#[test]
fn core_panics_are_quiet_and_other_panics_reach_the_previous_hook() {
    let calls = Arc::new(AtomicUsize::new(0));
    let c = Arc::clone(&calls);
    std::panic::set_hook(Box::new(move |_| {
        c.fetch_add(1, Ordering::SeqCst);
    }));

    // Quiet (the default): the previous hook never sees the cores' panics.
    for mode in [ExecMode::Pooled, ExecMode::ThreadPerCore, ExecMode::Sequential] {
        let err = Launch::new(Soc::Ascend910B).block_dim(4).mode(mode).run(|| panic!("quiet")).unwrap_err();
        assert_eq!(err.primary().unwrap().message, "quiet");
    }
    assert_eq!(calls.load(Ordering::SeqCst), 0);

    // quiet(false): reported to the previous hook too, and still returned as an error.
    let err = Launch::new(Soc::Ascend910B)
        .mode(ExecMode::Sequential)
        .quiet(false)
        .run(|| panic!("loud"))
        .unwrap_err();
    assert_eq!(err.primary().unwrap().message, "loud");
    assert!(err.primary().unwrap().file.ends_with("hook.rs"));
    assert_eq!(calls.load(Ordering::SeqCst), 1);

    // A panic outside any launched core goes to the previous hook.
    let r = std::thread::spawn(|| panic!("outside")).join();
    assert!(r.is_err());
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    let _ = std::panic::take_hook();
}
