//! Ballista standalone: a scheduler and an executor in this process, over loopback gRPC,
//! run the DataFusion tests' queries on a Parquet file and give the same results.

#![cfg(feature = "ballista")]

mod common;

use datafusion::prelude::SessionContext;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn standalone_cluster_gives_the_same_results() {
    let dir = tempfile::tempdir().unwrap();
    let path = common::write_parquet(dir.path()).await;

    let local = SessionContext::new();
    pctenc_datafusion::register(&local);
    common::register_table(&local, &path).await;

    let cluster = pctenc_datafusion::ballista::standalone().await.unwrap();
    common::register_table(&cluster, &path).await;

    for q in common::QUERIES {
        let want = common::run(&local, q).await;
        assert_eq!(
            want.len(),
            if q.contains("id = 2") {
                1
            } else if q.contains("IN (") {
                6
            } else {
                common::ROWS.len()
            },
            "{q}"
        );
        assert_eq!(common::run(&cluster, q).await, want, "{q}");
    }
    // Errors come back from the executors with the row and offset.
    let err = common::error(&cluster, "SELECT url_decode(e) FROM t").await;
    assert!(err.contains("CANNOT_DECODE_URL") && err.contains("offset 3"), "{err}");
    let err = cluster.sql("SELECT percent_encode(s, 'nope') FROM t").await.unwrap_err().strip_backtrace();
    assert!(err.contains("unknown set `nope`"), "{err}");
}
