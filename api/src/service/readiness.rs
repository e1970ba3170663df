//! Whether this process may take traffic (`GET /readyz`).

use super::{Refusal, Worp};

impl Worp {
    /// Ready when the database answers and every migration of this build has run on it.
    pub async fn readiness(&self) -> Result<(), Refusal> {
        match self.store.migrated().await {
            Ok(true) => Ok(()),
            Ok(false) => Err(Refusal::Unavailable(
                "the database lacks migrations of this build".into(),
            )),
            Err(e) => Err(Refusal::Unavailable(format!(
                "the database does not answer: {e}"
            ))),
        }
    }
}
