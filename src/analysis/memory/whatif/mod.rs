//! What if (docs/rules/memory.md §9, beyond the reference): the run's allocations replayed through a model
//! of tt-metal's bank allocator with a fix applied, and what tt-metal would then do with the
//! failed request. Pure: the report layer reads the checkpoint, each operation's graph and
//! snapshot, and the failure, and feeds them to a [`WhatIfReplay`] (`run.rs`), which answers with
//! an [`Answer`] (`answer.rs`).

mod advice;
mod advice_kind;
mod allocator;
#[cfg(test)]
mod allocator_tests;
mod answer;
#[cfg(test)]
mod apart_tests;
mod cb_hint;
mod device;
mod failed;
mod fix;
mod fixed_picture;
mod hardware;
mod machine;
mod phrase;
mod plan;
mod rank;
mod recorded;
mod resolve;
#[cfg(test)]
mod resolve_tests;
mod run;
mod sentences;
mod sequence;
#[cfg(test)]
mod settled_tests;
#[cfg(test)]
mod tests;

pub use advice::{
    AdviceFor, ReplayedAdvice, advice, advice_fix_text, advice_sentence, l1_small_need, output_may_go_to_dram,
};
pub use advice_kind::{Advice, AdviceKind};
pub(crate) use allocator::BankAllocator;
pub use answer::{
    AfterFix, Answer, BufferAfterFix, CircularBufferUse, FailsOn, InTheWay, Mismatch, Outcome, ReplayCheck, Request,
    WhatIfNote,
};
pub(crate) use cb_hint::cb_hint;
pub(crate) use device::{
    addresses_differ, both_ids_held, checkpoint_buffers, device_view, graph_id, graph_tensors, ids_holding_buffers,
    lockstep_tensors,
};
pub(crate) use failed::{
    AtFailure, NO_PICTURE, answer_at_failure, distinct, input_buffers, more_after_request, own_unrecorded, request_of,
    unknown_answer,
};
pub use fix::{Fix, FixError};
pub(crate) use hardware::{HardwareFacts, default_dram_base, failure_dram};
pub use phrase::{Sources, fixes_with_places};
pub use plan::{DramMove, Plan, Regions, request_page};
pub use rank::{TEXT_LINES, rank, text_lines};
pub(crate) use rank::{freed_after, replayed_advice};
pub use recorded::{RecordedCursor, RecordedRun};
pub(crate) use resolve::{FixFacts, Resolved, buffers_to_check, resolve, tensors_named};
pub use run::{FailedOperation, WhatIfReplay};
pub use sentences::{answer_sentence, fix_phrase, fixes_phrase, not_applied, note_text};
pub use sequence::{BufferId, DeviceView, OperationRecord, Place, Recorded, Sequence, Step};
