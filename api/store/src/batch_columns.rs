//! The columns of a group-commit batch ([`super::group_commit`]): each change's rows
//! gathered into one array per column, bound to the batch statement as `unnest`ed
//! arrays.

use uuid::Uuid;

use worp_domain::events::EventRow;
use worp_domain::records::{AnswerToKeep, GameRow, PlayerNotice};

#[derive(Default)]
pub(super) struct EventColumns {
    pub(super) game_id: Vec<Uuid>,
    pub(super) seq: Vec<i64>,
    pub(super) kind: Vec<String>,
    pub(super) payload: Vec<String>,
    pub(super) rules_version: Vec<i32>,
    pub(super) recorded_at: Vec<chrono::DateTime<chrono::Utc>>,
    pub(super) hash: Vec<String>,
}

impl EventColumns {
    pub(super) fn push(&mut self, row: &EventRow) {
        let e = &row.event;
        self.game_id.push(e.game_id);
        self.seq.push(e.seq);
        self.kind.push(e.kind.clone());
        self.payload.push(row.payload.clone());
        self.rules_version.push(e.rules_version);
        self.recorded_at.push(e.recorded_at);
        self.hash.push(e.hash.clone());
    }
}

#[derive(Default)]
pub(super) struct RowColumns {
    pub(super) id: Vec<Uuid>,
    pub(super) variant: Vec<String>,
    pub(super) status: Vec<String>,
    pub(super) version: Vec<i64>,
    pub(super) to_move_seat: Vec<Option<i32>>,
    pub(super) to_move_player: Vec<Option<Uuid>>,
    pub(super) summary: Vec<String>,
    pub(super) created_at: Vec<chrono::DateTime<chrono::Utc>>,
    pub(super) updated_at: Vec<chrono::DateTime<chrono::Utc>>,
    pub(super) deadline: Vec<Option<chrono::DateTime<chrono::Utc>>>,
}

impl RowColumns {
    pub(super) fn push(&mut self, r: &GameRow) {
        self.id.push(r.id);
        self.variant.push(r.variant.clone());
        self.status.push(r.status.clone());
        self.version.push(r.version);
        self.to_move_seat.push(r.to_move_seat);
        self.to_move_player.push(r.to_move_player);
        self.summary.push(r.summary.get().to_owned());
        self.created_at.push(r.created_at);
        self.updated_at.push(r.updated_at);
        self.deadline.push(r.deadline);
    }
}

#[derive(Default)]
pub(super) struct NoticeColumns {
    pub(super) player_id: Vec<Uuid>,
    pub(super) game_id: Vec<Uuid>,
    pub(super) version: Vec<i64>,
    pub(super) kind: Vec<String>,
    pub(super) payload: Vec<String>,
    pub(super) at: Vec<chrono::DateTime<chrono::Utc>>,
}

impl NoticeColumns {
    pub(super) fn push(&mut self, n: &PlayerNotice, at: chrono::DateTime<chrono::Utc>) {
        self.player_id.push(n.player_id);
        self.game_id.push(n.game_id);
        self.version.push(n.version);
        self.kind.push(n.kind.clone());
        self.payload.push(n.payload.get().to_owned());
        self.at.push(at);
    }
}

#[derive(Default)]
pub(super) struct AnswerColumns {
    pub(super) player_id: Vec<Uuid>,
    pub(super) key: Vec<String>,
    pub(super) body: Vec<String>,
    pub(super) at: Vec<chrono::DateTime<chrono::Utc>>,
    pub(super) request: Vec<String>,
    pub(super) body_hash: Vec<String>,
}

impl AnswerColumns {
    pub(super) fn push(&mut self, kept: &AnswerToKeep, at: chrono::DateTime<chrono::Utc>) {
        self.player_id.push(kept.player_id);
        self.key.push(kept.key.clone());
        self.body.push(kept.body.get().to_owned());
        self.at.push(at);
        self.request.push(kept.request.clone());
        self.body_hash.push(kept.body_hash.clone());
    }
}
