//! Program/erase suspend and resume (docs/NAND.md): what the die can do, and the
//! bookkeeping of one suspendable array operation.
//!
//! A die busy programming or erasing may suspend the operation for a read: after
//! `t_suspend_ns` the array is free, the read runs, and a resume (`t_resume_ns`)
//! continues the operation with the time it still had left. Whether a read suspends is
//! the scheduler's choice (`scheduler.suspend`); this section describes the part.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which array operations the die can suspend.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SuspendOps {
    /// Programs only.
    Program,
    /// Erases only.
    Erase,
    /// Programs and erases.
    #[default]
    Both,
}

impl SuspendOps {
    /// True if a program may be suspended.
    #[inline]
    pub fn program(self) -> bool {
        self != SuspendOps::Erase
    }

    /// True if an erase may be suspended.
    #[inline]
    pub fn erase(self) -> bool {
        self != SuspendOps::Program
    }
}

/// The die's suspend capability (`[nand.suspend]`), read only when `scheduler.suspend`
/// is not `"off"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SuspendConfig {
    /// Time from the suspend command until the array is free for the read, ns.
    pub t_suspend_ns: u64,
    /// Time a resume adds before the suspended operation continues, ns.
    pub t_resume_ns: u64,
    /// Suspensions one operation may take; further reads wait for it to finish.
    pub max_per_op: u32,
    /// Which operations can be suspended.
    pub ops: SuspendOps,
}

impl Default for SuspendConfig {
    /// 20 µs to suspend, 5 µs to resume, at most 4 suspensions of one operation
    /// (chosen values: see docs/NAND.md for what public sources give).
    fn default() -> Self {
        SuspendConfig {
            t_suspend_ns: 20_000,
            t_resume_ns: 5_000,
            max_per_op: 4,
            ops: SuspendOps::Both,
        }
    }
}

/// One suspendable array operation: when it ends, how often it was suspended, and while
/// suspended the time it still needs. Times are absolute, in ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Suspendable {
    /// When the operation ends if nothing suspends it again (meaningless while
    /// suspended).
    pub end_ns: u64,
    /// Array time still needed, kept while suspended.
    pub remaining_ns: u64,
    /// When the current suspension began, if suspended.
    pub suspended_at: Option<u64>,
    /// Suspensions so far.
    pub suspends: u32,
}

impl Suspendable {
    /// An operation of `duration_ns` starting at `now`.
    pub fn start(now: u64, duration_ns: u64) -> Self {
        Suspendable {
            end_ns: now + duration_ns,
            remaining_ns: duration_ns,
            suspended_at: None,
            suspends: 0,
        }
    }

    /// True if the operation may be suspended at `now`: running, under the limit, and
    /// with more time left than the suspension itself takes (suspending an operation
    /// about to end delays the read more than waiting does).
    pub fn may_suspend(&self, now: u64, max_per_op: u32, t_suspend_ns: u64) -> bool {
        self.suspended_at.is_none()
            && self.suspends < max_per_op
            && self.end_ns.saturating_sub(now) > t_suspend_ns
    }

    /// Suspends the operation at `now`; the time it still needs is kept.
    pub fn suspend(&mut self, now: u64) {
        debug_assert!(self.suspended_at.is_none() && now <= self.end_ns);
        self.remaining_ns = self.end_ns - now;
        self.suspended_at = Some(now);
        self.suspends += 1;
    }

    /// Resumes at `now` after `t_resume_ns`; returns the new end and the time the
    /// suspension lasted (resume included).
    pub fn resume(&mut self, now: u64, t_resume_ns: u64) -> (u64, u64) {
        let at = self
            .suspended_at
            .take()
            .expect("resume of a running operation");
        self.end_ns = now + t_resume_ns + self.remaining_ns;
        (self.end_ns, now + t_resume_ns - at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_remaining_time_is_kept_across_suspensions() {
        let mut op = Suspendable::start(1_000, 500_000);
        assert_eq!(op.end_ns, 501_000);
        assert!(op.may_suspend(101_000, 2, 20_000));
        op.suspend(101_000);
        assert_eq!(op.remaining_ns, 400_000);
        assert!(!op.may_suspend(101_000, 2, 20_000), "already suspended");
        // A 20 µs suspend and a 60 µs read later, resumed with 5 µs.
        let (end, held) = op.resume(181_000, 5_000);
        assert_eq!(end, 181_000 + 5_000 + 400_000);
        assert_eq!(held, 85_000);
        // The array time actually spent is the operation's own, whatever the pauses.
        op.suspend(300_000);
        let (end, _) = op.resume(350_000, 5_000);
        assert_eq!(end - 350_000 - 5_000, 586_000 - 300_000);
        assert_eq!(op.suspends, 2);
    }

    #[test]
    fn the_limit_and_the_tail_stop_suspensions() {
        let mut op = Suspendable::start(0, 100_000);
        for i in 0..3 {
            assert!(op.may_suspend(10 * i, 3, 20_000));
            op.suspend(10 * i);
            op.resume(10 * i, 0);
        }
        assert!(!op.may_suspend(40, 3, 20_000), "limit reached");
        let op = Suspendable::start(0, 100_000);
        assert!(!op.may_suspend(80_000, 3, 20_000), "ends within t_suspend");
        assert!(!op.may_suspend(1, 0, 0), "a limit of 0 never suspends");
    }

    #[test]
    fn ops_select_program_and_erase() {
        assert!(SuspendOps::Both.program() && SuspendOps::Both.erase());
        assert!(SuspendOps::Program.program() && !SuspendOps::Program.erase());
        assert!(!SuspendOps::Erase.program() && SuspendOps::Erase.erase());
    }
}
