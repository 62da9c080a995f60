//! Computer analyses of finished games in the PostgreSQL store (the records and their SQL are
//! `store/analyses.rs`).

use futures::future::BoxFuture;
use tokio_postgres::Client;

use super::{read_failed, write_failed, PostgresStore};
use crate::server::store::analyses::{encoded, record, sql};
use crate::server::store::{now_ms, AnalysisRecord, AnalysisStore, AnalysisWrite, StoreError};

async fn get(client: &Client, game: &str, stale_before_ms: i64) -> Result<Option<AnalysisRecord>, StoreError> {
    let row = client.query_opt(sql::GET, &[&game]).await.map_err(read_failed)?;
    row.map_or(Ok(None), |r| record(game, (r.get(0), r.get(1), r.get(2), r.get(3)), stale_before_ms))
}

async fn claim(client: &Client, game: &str, runner: &str, stale_before_ms: i64) -> Result<bool, StoreError> {
    let changed =
        client.execute(sql::CLAIM, &[&game, &runner, &now_ms(), &stale_before_ms]).await.map_err(write_failed)?;
    Ok(changed == 1)
}

async fn update(client: &Client, game: &str, runner: &str, write: &AnalysisWrite) -> Result<(), StoreError> {
    let done = match write {
        AnalysisWrite::Progress(p) => client.execute(sql::PROGRESS, &[p, &now_ms(), &game, &runner]).await,
        AnalysisWrite::Done(analysis) => {
            client.execute(sql::DONE, &[&encoded(analysis)?, &now_ms(), &game, &runner]).await
        }
        AnalysisWrite::Abandon => client.execute(sql::ABANDON, &[&game, &runner]).await,
    };
    done.map(|_| ()).map_err(write_failed)
}

impl AnalysisStore for PostgresStore {
    fn analysis(
        &self,
        game: &str,
        stale_before_ms: i64,
    ) -> BoxFuture<'static, Result<Option<AnalysisRecord>, StoreError>> {
        let game = game.to_string();
        self.read(move |client| Box::pin(async move { get(client, &game, stale_before_ms).await }))
    }

    fn claim_analysis(
        &self,
        game: &str,
        runner: &str,
        stale_before_ms: i64,
    ) -> BoxFuture<'static, Result<bool, StoreError>> {
        let (game, runner) = (game.to_string(), runner.to_string());
        self.read(move |client| Box::pin(async move { claim(client, &game, &runner, stale_before_ms).await }))
    }

    fn write_analysis(
        &self,
        game: &str,
        runner: &str,
        write: AnalysisWrite,
    ) -> BoxFuture<'static, Result<(), StoreError>> {
        let (game, runner) = (game.to_string(), runner.to_string());
        self.read(move |client| Box::pin(async move { update(client, &game, &runner, &write).await }))
    }
}
