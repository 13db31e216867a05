//! The structured regions around the block being lowered, and where each kind of jump out of
//! them goes: both backends lower WGSL's structured control flow the same way and differ only
//! in what a jump target is (a machine block, an LLVM block with its `phi`s).

use dianran_frontend::ir::Terminator;

/// One enclosing region, with the targets its jumps reach.
#[derive(Clone, Debug)]
pub enum Frame<T> {
    /// A loop: `continue` goes to `cont`, `break` to `exit`.
    Loop {
        /// The continuing block.
        cont: T,
        /// The block after the loop.
        exit: T,
    },
    /// A switch: `break` goes to `exit`.
    Switch {
        /// The block after the switch.
        exit: T,
    },
    /// An inlined call: its `return` goes to `exit`.
    Inline {
        /// The block after the call.
        exit: T,
    },
}

/// Where a `break`, `continue` or `return` goes ([`Frames::exit`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exit<T> {
    /// To this block, carrying the terminator's values.
    To(T),
    /// Out of the entry itself (a `return` outside any inlined call).
    Entry,
}

/// The enclosing regions, innermost last.
#[derive(Clone, Debug)]
pub struct Frames<T>(Vec<Frame<T>>);

impl<T> Default for Frames<T> {
    fn default() -> Self {
        Frames(Vec::new())
    }
}

impl<T: Clone> Frames<T> {
    /// Enters a region.
    pub fn push(&mut self, f: Frame<T>) {
        self.0.push(f);
    }

    /// Leaves the innermost region.
    pub fn pop(&mut self) {
        self.0.pop();
    }

    /// Where terminator `t` goes when it is a `break`, `continue` or `return` (its values
    /// are `t.args()`); `None` for other terminators. An error says which jump has no region
    /// to leave.
    pub fn exit(&self, t: &Terminator) -> Option<Result<Exit<T>, &'static str>> {
        Some(match t {
            Terminator::Break(_) => {
                self.break_target().map(Exit::To).ok_or("break outside a loop or switch")
            }
            Terminator::Continue(_) => {
                self.continue_target().map(Exit::To).ok_or("continue outside a loop")
            }
            Terminator::Return(_) => Ok(self.return_target().map_or(Exit::Entry, Exit::To)),
            _ => return None,
        })
    }

    /// Where `break` goes: the exit of the innermost loop or switch.
    pub fn break_target(&self) -> Option<T> {
        self.0.iter().rev().find_map(|f| match f {
            Frame::Loop { exit, .. } | Frame::Switch { exit } => Some(exit.clone()),
            Frame::Inline { .. } => None,
        })
    }

    /// Where `continue` goes: the continuing block of the innermost loop.
    pub fn continue_target(&self) -> Option<T> {
        self.0.iter().rev().find_map(|f| match f {
            Frame::Loop { cont, .. } => Some(cont.clone()),
            _ => None,
        })
    }

    /// Where `return` goes: the exit of the innermost inlined call; `None` returns from the
    /// entry.
    pub fn return_target(&self) -> Option<T> {
        self.0.iter().rev().find_map(|f| match f {
            Frame::Inline { exit } => Some(exit.clone()),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jumps_reach_the_innermost_region_of_their_kind() {
        let mut f = Frames::default();
        assert_eq!((f.break_target(), f.continue_target(), f.return_target()), (None, None, None));
        f.push(Frame::Loop { cont: 1, exit: 2 });
        f.push(Frame::Inline { exit: 3 });
        f.push(Frame::Switch { exit: 4 });
        assert_eq!(f.break_target(), Some(4));
        assert_eq!(f.continue_target(), Some(1));
        assert_eq!(f.return_target(), Some(3));
        f.pop();
        // Past the inlined call, `break` and `continue` still reach the loop around it.
        assert_eq!(f.break_target(), Some(2));
        f.pop();
        assert_eq!(f.return_target(), None);
    }
}
